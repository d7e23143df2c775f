package recorder

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/aguitest/aguitest/agui"
)

// fullDisk is a file on a full disk: created, then every write fails
// with ENOSPC once limit bytes are written.
type fullDisk struct {
	f     *os.File
	limit int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) > d.limit {
		n, _ := d.f.Write(p[:d.limit])
		d.limit = 0
		return n, &os.PathError{Op: "write", Path: d.f.Name(), Err: syscall.ENOSPC}
	}
	d.limit -= len(p)
	return d.f.Write(p)
}

func (d *fullDisk) Close() error { return d.f.Close() }

func withFullDisk(t *testing.T, limit int) {
	t.Helper()
	old := openFile
	openFile = func(path string) (io.WriteCloser, error) {
		f, err := old(path)
		if err != nil {
			return nil, err
		}
		return &fullDisk{f: f.(*os.File), limit: limit}, nil
	}
	t.Cleanup(func() { openFile = old })
}

// TestMiddlewareFullDisk: with the disk full, runs leave no empty files
// behind (they used to leave one 0-byte file each), every failure is
// reported, and the clients get their streams whole.
func TestMiddlewareFullDisk(t *testing.T) {
	withFullDisk(t, 0)
	dir := t.TempDir()
	var mu sync.Mutex
	var reported []string
	evs := streamEvents("r", 20)
	h := Middleware(agent(evs), Config{Dir: dir, OnError: func(err error) { mu.Lock(); reported = append(reported, err.Error()); mu.Unlock() }})
	srv := httptest.NewServer(h)
	defer srv.Close()
	for range 3 {
		if got := post(t, srv.URL, `{}`, nil); !bytes.Contains(got, []byte("RUN_FINISHED")) {
			t.Errorf("the client got %q", got)
		}
	}
	srv.Close()
	h.Wait()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 0 {
		t.Errorf("files left on a full disk: %v", files)
	}
	if s := h.Stats(); s.StorageErrors != 3 {
		t.Errorf("stats = %+v, want 3 storage errors", s)
	}
	if len(reported) != 3 || !strings.Contains(reported[0], "no space left on device") {
		t.Errorf("reported %q", reported)
	}
}

// TestMiddlewareDiskFillsMidRun: a run whose disk fills while it is
// recorded keeps what was written, with no end record; replay calls it
// incomplete, not an agent that stopped.
func TestMiddlewareDiskFillsMidRun(t *testing.T) {
	withFullDisk(t, 3000)
	dir := t.TempDir()
	h := Middleware(agent(streamEvents("r", 200)), Config{Dir: dir, OnError: func(error) {}, FlushInterval: 1})
	srv := httptest.NewServer(h)
	defer srv.Close()
	post(t, srv.URL, `{}`, nil)
	srv.Close()
	h.Wait()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 1 {
		t.Fatalf("files: %v", files)
	}
	r, _ := Open(files[0])
	defer r.Close()
	kinds := map[Kind]int{}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err == nil {
			kinds[rec.Kind]++
		}
	}
	if kinds[KindEnd] != 0 || kinds[KindEvent] == 0 {
		t.Errorf("records by kind: %v; want events and no end", kinds)
	}
}

// TestMiddlewareSlowStorageOutcome: a run whose end storage had no room
// for is still recorded as finished, with the gap and the bytes dropped:
// the recording is incomplete, the agent did not stop early.
func TestMiddlewareSlowStorageOutcome(t *testing.T) {
	evs := streamEvents("r", 2000)
	bw := &blockingWriter{release: make(chan struct{}), started: make(chan struct{})}
	w, _ := NewWriter(bw, Header{})
	h := Middleware(agent(evs), Config{Writer: w, BufferSize: 4096})
	srv := httptest.NewServer(h)
	defer srv.Close()
	post(t, srv.URL, "{}", nil)
	<-bw.started
	close(bw.release)
	srv.Close()
	h.Wait()
	recs, errs := readAll(t, NewReader(&bw.buf, "slow"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	end := endOf(t, recs)
	if end.Outcome != OutcomeFinished || end.Dropped == 0 || !strings.Contains(end.Incomplete(), "bytes of the response were dropped") {
		t.Errorf("end = %+v (%s), want finished with bytes dropped", end, end.Incomplete())
	}
	var gaps int64
	for _, r := range recs {
		if r.Kind == KindGap {
			gaps += r.Gap.Bytes
		}
	}
	if gaps != end.Dropped {
		t.Errorf("gap records hold %d bytes, the end record says %d", gaps, end.Dropped)
	}
}

// TestMiddlewareCompressed: a response compressed for the client
// (Content-Encoding gzip or deflate, as when the client sent
// Accept-Encoding through a proxy) is recorded as the client decodes it;
// the client's bytes are untouched. It used to be recorded as 0 events,
// "truncated". An encoding the recorder cannot decode says so.
func TestMiddlewareCompressed(t *testing.T) {
	evs := streamEvents("r", 300)
	var sse bytes.Buffer
	enc := agui.NewSSEEncoder(&sse)
	for _, e := range evs {
		enc.Encode(e)
	}
	var pb bytes.Buffer
	penc := agui.NewProtoEncoder(&pb)
	for _, e := range evs {
		penc.Encode(e)
	}
	compress := func(kind string, b []byte) []byte {
		var out bytes.Buffer
		var zw io.WriteCloser
		switch kind {
		case "gzip":
			zw = gzip.NewWriter(&out)
		case "deflate":
			zw = zlib.NewWriter(&out)
		default:
			return b
		}
		zw.Write(b)
		zw.Close()
		return out.Bytes()
	}
	tests := []struct {
		name, encoding, contentType string
		body                        []byte
		wantEvents                  int
		wantUndecoded               string
	}{
		{"gzip sse", "gzip", "text/event-stream", compress("gzip", sse.Bytes()), len(evs), ""},
		{"deflate sse", "deflate", "text/event-stream", compress("deflate", sse.Bytes()), len(evs), ""},
		{"gzip protobuf", "gzip", agui.MediaTypeProto, compress("gzip", pb.Bytes()), len(evs), ""},
		{"gzip cut short", "gzip", "text/event-stream", compress("gzip", sse.Bytes())[:200], -1, ""},
		{"corrupt gzip", "gzip", "text/event-stream", append([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, bytes.Repeat([]byte{0xff}, 64)...), 0, "cannot be decoded"},
		{"brotli", "br", "text/event-stream", []byte("\x0b\x02\x80hello\x03"), 0, `Content-Encoding "br"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				w.Header().Set("Content-Encoding", tt.encoding)
				body := tt.body
				for len(body) > 0 { // in pieces, flushed
					n := min(len(body), 333)
					w.Write(body[:n])
					w.(http.Flusher).Flush()
					body = body[n:]
				}
			}))
			defer upstream.Close()
			target, _ := url.Parse(upstream.URL)
			var file bytes.Buffer
			w, _ := NewWriter(&file, Header{})
			h := Proxy(target, Config{Writer: w})
			srv := httptest.NewServer(h)
			defer srv.Close()
			req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"runId":"r"}`))
			req.Header.Set("Accept-Encoding", tt.encoding)
			resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !bytes.Equal(got, tt.body) {
				t.Errorf("the client got %d bytes, want the %d sent", len(got), len(tt.body))
			}
			srv.Close()
			h.Wait()
			recs, errs := readAll(t, NewReader(&file, "z"))
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			end := endOf(t, recs)
			n := 0
			for _, r := range recs {
				if r.Kind == KindEvent && r.Event != nil {
					n++
				}
			}
			switch {
			case tt.wantEvents < 0:
				if n == 0 || n >= len(evs) || end.Outcome != OutcomeTruncated || end.Undecoded != "" {
					t.Errorf("cut short: %d events, end %+v", n, end)
				}
			case n != tt.wantEvents || int(end.Events) != tt.wantEvents:
				t.Errorf("recorded %d events (end says %d), want %d", n, end.Events, tt.wantEvents)
			}
			if tt.wantEvents == len(evs) && end.Outcome != OutcomeFinished {
				t.Errorf("outcome %s", end.Outcome)
			}
			if end.ContentEncoding != tt.encoding || !strings.Contains(end.Undecoded, tt.wantUndecoded) || (tt.wantUndecoded == "") != (end.Incomplete() == "") {
				t.Errorf("end = %+v", end)
			}
		})
	}
}

// TestHugeRecordStillReads: a record whose line would be longer than a
// Reader reads is written without its bulk, saying so.
func TestHugeRecordStillReads(t *testing.T) {
	old := maxRecordLine
	maxRecordLine = 4096
	defer func() { maxRecordLine = old }()
	var file bytes.Buffer
	w, _ := NewWriter(&file, Header{})
	ctl := strings.Repeat("\x01", 2000) // six bytes each once escaped
	w.Write(
		Record{Kind: KindRequest, Run: "r", Request: &Request{Body: ctl}},
		Record{Kind: KindEvent, Run: "r", Data: ctl},
		Record{Kind: KindProvider, Run: "r", Exchange: &Exchange{Method: "POST", URL: "u", Chunks: []Chunk{{Data: []byte(ctl)}}}},
		Record{Kind: KindEnd, Run: "r", End: &End{Outcome: OutcomeFinished}},
	)
	recs, errs := readAll(t, NewReader(&file, "big"))
	if len(errs) > 0 || len(recs) != 5 {
		t.Fatalf("%d records, errors %v", len(recs), errs)
	}
	if !strings.Contains(recs[1].Request.Body, "not kept") || !strings.Contains(recs[2].Data, "not kept") || !strings.Contains(recs[3].Exchange.Error, "not kept") {
		t.Errorf("records: %+v %+v %+v", recs[1].Request, recs[2], recs[3].Exchange)
	}
}
