package recorder

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aguitest/aguitest/agui"
)

var largeSize = flag.Int64("recorder.large", 64<<20, "size in bytes of the recording BenchmarkReadLarge streams (1<<30 for the 1 GB figure)")

// benchEvents returns n typical content events.
func benchEvents(n int) []agui.Event {
	evs := make([]agui.Event, n)
	for i := range evs {
		evs[i] = agui.NewTextMessageContent("msg-0123456789", fmt.Sprintf("token %d of a streamed answer, ", i))
	}
	return evs
}

// BenchmarkWriter measures recording throughput: event records written to
// a file, one Write per record as the in-process Sink does.
func BenchmarkWriter(b *testing.B) {
	evs := benchEvents(1024)
	f, err := os.Create(filepath.Join(b.TempDir(), "bench.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w, err := NewWriter(f, Header{})
	if err != nil {
		b.Fatal(err)
	}
	line, _ := appendRecord(nil, Record{Kind: KindEvent, Run: "run-1", Offset: time.Second, Event: evs[0].Raw()})
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := w.Write(EventRecord("run-1", time.Duration(i)*time.Microsecond, evs[i%len(evs)])); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkWriterBatch writes the same records 256 at a time, as the
// middleware does when a run's storage goroutine drains its queue.
func BenchmarkWriterBatch(b *testing.B) {
	evs := benchEvents(256)
	recs := make([]Record, len(evs))
	for i, e := range evs {
		recs[i] = EventRecord("run-1", time.Duration(i)*time.Microsecond, e)
	}
	f, err := os.Create(filepath.Join(b.TempDir(), "bench.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w, _ := NewWriter(f, Header{})
	var size int64
	for _, r := range recs {
		l, _ := appendRecord(nil, r)
		size += int64(len(l))
	}
	b.SetBytes(size)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := w.Write(recs...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(recs))/time.Since(start).Seconds(), "events/s")
}

// BenchmarkMiddleware serves a 100,000-event stream over HTTP to a client
// reading it all, alternately from the bare handler and through the
// middleware recording into files, and reports both wall times and the
// overhead.
func BenchmarkMiddleware(b *testing.B) {
	const n = 100_000
	evs := benchEvents(n)
	agentH := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		enc := agui.NewSSEEncoder(w)
		for _, e := range evs {
			if err := enc.Encode(e); err != nil {
				return
			}
		}
	})
	dir := b.TempDir()
	rec := Middleware(agentH, Config{Dir: dir})
	bare := httptest.NewServer(agentH)
	defer bare.Close()
	wrapped := httptest.NewServer(rec)
	defer wrapped.Close()
	var cpuBare, cpuWrapped time.Duration
	fetch := func(url string) (time.Duration, int64) {
		start := time.Now()
		resp, err := http.Post(url, "application/json", strings.NewReader(`{"runId":"bench"}`))
		if err != nil {
			b.Fatal(err)
		}
		nb, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(start), nb
	}
	fetch(bare.URL) // warm up both paths
	fetch(wrapped.URL)
	rec.Wait()
	var tBare, tWrapped time.Duration
	var size int64
	b.ResetTimer()
	measure := func(url string) (time.Duration, time.Duration, int64) {
		runtime.GC() // neither side pays for the other's garbage
		c0 := cpuTime()
		d, nb := fetch(url)
		rec.Wait() // the recording's work counts too
		return d, cpuTime() - c0, nb
	}
	for i := 0; i < b.N; i++ {
		// Alternate the order so that neither side always goes first.
		order := []bool{false, true}
		if i%2 == 1 {
			order = []bool{true, false}
		}
		for _, wrap := range order {
			if wrap {
				d, c, _ := measure(wrapped.URL)
				tWrapped += d
				cpuWrapped += c
			} else {
				d, c, nb := measure(bare.URL)
				tBare += d
				cpuBare += c
				size = nb
			}
		}
	}
	b.StopTimer()
	s := rec.Stats()
	if s.DroppedBytes != 0 || s.StorageErrors != 0 {
		b.Logf("stats: %+v", s)
	}
	b.ReportMetric(float64(tBare.Milliseconds())/float64(b.N), "bare-ms/stream")
	b.ReportMetric(float64(tWrapped.Milliseconds())/float64(b.N), "recorded-ms/stream")
	b.ReportMetric(100*(float64(tWrapped)/float64(tBare)-1), "overhead-%")
	b.ReportMetric(float64(tWrapped-tBare)/float64(b.N)/n, "added-ns/event")
	b.ReportMetric(float64(size)/1e6, "MB/stream")
	b.ReportMetric(float64(cpuWrapped-cpuBare)/float64(b.N)/n, "recorder-cpu-ns/event")
	b.ReportMetric(100*(float64(cpuWrapped)/float64(cpuBare)-1), "cpu-overhead-%")
	b.ReportMetric(float64(s.DroppedBytes), "dropped-bytes")
}

// BenchmarkReadLarge writes a recording of -recorder.large bytes, then
// streams it record by record, parsing every event, and reports the read
// rate and the process's peak resident memory (VmHWM), which stays flat in
// the file's size.
func BenchmarkReadLarge(b *testing.B) {
	path := filepath.Join(b.TempDir(), "large.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w, _ := NewWriter(bw, Header{})
	evs := benchEvents(1024)
	var written int64
	var line []byte
	for i := 0; written < *largeSize; i++ {
		run := "run-" + strconv.Itoa(i/10000)
		line, _ = appendRecord(line[:0], Record{Kind: KindEvent, Run: run, Offset: time.Duration(i), Event: evs[i%len(evs)].Raw()})
		bw.Write(line)
		written += int64(len(line))
	}
	bw.Flush()
	f.Close()
	_ = w
	hwmBefore := vmHWM()
	b.SetBytes(written)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		events := 0
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if rec.Kind == KindEvent {
				if _, err := rec.EventOf(); err != nil {
					b.Fatal(err)
				}
				events++
			}
		}
		r.Close()
		b.ReportMetric(float64(events), "events")
	}
	b.StopTimer()
	b.ReportMetric(float64(written)/(1<<20), "file-MiB")
	b.ReportMetric(float64(hwmBefore)/1024, "peak-RSS-MiB-before-read")
	b.ReportMetric(float64(vmHWM())/1024, "peak-RSS-MiB")
}

// cpuTime returns the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// nopFlusher is a ResponseWriter that discards and flushes nothing.
type nopFlusher struct{ h http.Header }

func (n *nopFlusher) Header() http.Header         { return n.h }
func (n *nopFlusher) Write(p []byte) (int, error) { return len(p), nil }
func (n *nopFlusher) WriteHeader(int)             {}
func (n *nopFlusher) Flush()                      {}

// BenchmarkWritePath measures what the middleware adds to each Write and
// flush on the response path (copying into the run's buffer), against the
// same calls on the bare writer.
func BenchmarkWritePath(b *testing.B) {
	ev := []byte("data: " + benchEvents(1)[0].String() + "\n\n")
	for _, wrapped := range []bool{false, true} {
		name := "bare"
		if wrapped {
			name = "recorded"
		}
		b.Run(name, func(b *testing.B) {
			var w http.ResponseWriter = &nopFlusher{h: http.Header{}}
			if wrapped {
				rn := &run{h: Middleware(nil, Config{Writer: &Writer{}}), wake: make(chan struct{}, 1), urgent: make(chan struct{}, 1)}
				rn.h.cfg.BufferSize = 1 << 62
				w = &responseWriter{ResponseWriter: w, run: rn}
				go func() {
					// Drain as the storage goroutine would.
					for range rn.wake {
						rn.mu.Lock()
						rn.queue, rn.queued = rn.queue[:0], 0
						retired := rn.retired
						rn.retired = nil
						rn.mu.Unlock()
						for _, b := range retired {
							b = b[:0]
							blockPool.Put(&b)
						}
					}
				}()
				defer close(rn.wake)
			}
			rc := http.NewResponseController(w)
			b.SetBytes(int64(len(ev)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				w.Write(ev)
				rc.Flush()
			}
		})
	}
}

// vmHWM returns the peak resident set size in KiB, or 0 where /proc is
// missing.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte("VmHWM:")); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(v)), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// BenchmarkRecordPath measures the recorder's own CPU cost per event, with
// no network: the wrapped writer's Write and flush on the response path,
// plus parsing and encoding on the storage goroutine, into io.Discard.
func BenchmarkRecordPath(b *testing.B) {
	evs := benchEvents(1000)
	frames := make([][]byte, len(evs))
	var size int64
	for i, e := range evs {
		frames[i] = []byte("data: " + e.String() + "\n\n")
		size += int64(len(frames[i]))
	}
	w, _ := NewWriter(io.Discard, Header{})
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		for _, f := range frames {
			w.Write(f)
			rc.Flush()
		}
	}), Config{Writer: w})
	req := httptest.NewRequest("POST", "/", strings.NewReader(`{"runId":"r"}`))
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.ServeHTTP(&nopFlusher{h: http.Header{}}, req)
		h.Wait()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(frames)), "ns/event")
}

// BenchmarkRedactClean is the quick check the recording path makes on
// every event: nothing in it looks like a credential.
func BenchmarkRedactClean(b *testing.B) {
	evs := benchEvents(64)
	var rd Redact
	var n int64
	for _, e := range evs {
		n += int64(len(e.Raw()))
	}
	b.SetBytes(n / int64(len(evs)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if !rd.clean(evs[i%len(evs)].Raw()) {
			b.Fatal("a content event needs redaction")
		}
	}
}

// BenchmarkRecordPathRedaction is BenchmarkRecordPath with the redaction
// defaults on (the zero Redact) and with every default turned off, side by
// side, so that what recognising credentials costs on the recording path
// reads as a ratio from one run:
//
//	go test ./recorder -run '^$' -bench RecordPathRedaction -count 6 | benchstat -col /redact -
func BenchmarkRecordPathRedaction(b *testing.B) {
	evs := benchEvents(1000)
	frames := make([][]byte, len(evs))
	var size int64
	for i, e := range evs {
		frames[i] = []byte("data: " + e.String() + "\n\n")
		size += int64(len(frames[i]))
	}
	for _, c := range []struct {
		name string
		rd   Redact
	}{{"defaults", Redact{}}, {"off", Redact{Off: Defaults()}}} {
		b.Run("redact="+c.name, func(b *testing.B) {
			w, _ := NewWriter(io.Discard, Header{})
			h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rc := http.NewResponseController(w)
				for _, f := range frames {
					w.Write(f)
					rc.Flush()
				}
			}), Config{Writer: w, Redact: c.rd})
			b.SetBytes(size)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req := httptest.NewRequest("POST", "/", strings.NewReader(`{"runId":"r"}`))
				h.ServeHTTP(&nopFlusher{h: http.Header{}}, req)
				h.Wait()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(frames)), "ns/event")
		})
	}
}
