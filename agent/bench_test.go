package agent_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agent"
)

// socket is a ResponseWriter over a loopback TCP connection, buffered and
// flushed as net/http's is: every Flush is a write to the kernel, as it is
// for a real client.
type socket struct {
	h http.Header
	w *bufio.Writer
}

func (s socket) Header() http.Header         { return s.h }
func (s socket) Write(p []byte) (int, error) { return s.w.Write(p) }
func (s socket) WriteHeader(int)             {}
func (s socket) Flush()                      { _ = s.w.Flush() }

// dial returns a socket whose other end is read and discarded.
func dial(b *testing.B) socket {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, c)
		c.Close()
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return socket{h: http.Header{}, w: bufio.NewWriterSize(c, 4096)}
}

// discard is a ResponseWriter that keeps nothing and flushes nothing: what
// is measured is the handler, not a network.
type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(p []byte) (int, error) { return len(p), nil }
func (d discard) WriteHeader(int)             {}
func (d discard) Flush()                      {}

// benchRun emits a run of benchEvents events: text in 200 deltas, then
// ten calls answered by the agent (arguments in two fragments).
func benchRun(_ context.Context, run *agent.Run) error {
	t, err := run.Text()
	if err != nil {
		return err
	}
	for range 200 {
		if err := t.Delta("Some streamed text, "); err != nil {
			return err
		}
	}
	if err := t.End(); err != nil {
		return err
	}
	for range 10 {
		c, err := run.ToolCall("get_weather")
		if err != nil {
			return err
		}
		if err := c.Args(`{"city":`); err != nil {
			return err
		}
		if err := c.Args(`"Seoul"}`); err != nil {
			return err
		}
		if _, err := c.Result(`{"tempC":21}`); err != nil {
			return err
		}
	}
	return nil
}

// benchEvents is the number of events of benchRun, RUN_STARTED and
// RUN_FINISHED included.
const benchEvents = 1 + 202 + 10*5 + 1

// BenchmarkHandler measures events per second through Handler, with every
// event verified (Strict) and without the Verifier (verify=on, verify=off;
// compare with benchstat -col /verify). The handles' own checks run in
// both. The response goes nowhere (wire=discard: the handler alone) or to
// a loopback socket flushed per event (wire=socket: what serving costs).
// Besides wall time it reports the CPU time of the handler's thread
// (cpu-ns/op, events/cpu-s), which other load on the machine does not
// inflate.
func BenchmarkHandler(b *testing.B) {
	for _, bc := range []struct {
		name string
		opt  agent.Options
		wire string
	}{
		{"wire=discard/verify=on", agent.Options{}, "discard"},
		{"wire=discard/verify=off", agent.Options{NoVerify: true}, "discard"},
		{"wire=socket/verify=on", agent.Options{}, "socket"},
		{"wire=socket/verify=off", agent.Options{NoVerify: true}, "socket"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := agent.Handler(benchRun, bc.opt)
			var w http.ResponseWriter = discard{h: http.Header{}}
			if bc.wire == "socket" {
				w = dial(b)
			}
			body := `{"threadId":"t","runId":"r","messages":[{"id":"u1","role":"user","content":"hi"}]}`
			b.ReportAllocs()
			// The handler runs on this goroutine: pinned to its thread,
			// the thread's CPU time is the handler's, whatever else
			// the machine runs.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu := threadCPU()
			for b.Loop() {
				h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)))
			}
			cpu = threadCPU() - cpu
			b.ReportMetric(float64(benchEvents*b.N)/b.Elapsed().Seconds(), "events/s")
			if cpu > 0 {
				b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(benchEvents*b.N)/(float64(cpu)/1e9), "events/cpu-s")
			}
		})
	}
}

// TestBenchRun checks that the benchmark's run is what it claims.
func TestBenchRun(t *testing.T) {
	rec := httptest.NewRecorder()
	agent.Handler(benchRun, agent.Options{}).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"threadId":"t","runId":"r"}`)))
	if n := strings.Count(rec.Body.String(), "data: "); n != benchEvents {
		t.Errorf("events: got %d, want %d", n, benchEvents)
	}
	if !strings.Contains(rec.Body.String(), "RUN_FINISHED") {
		t.Errorf("the run did not finish:\n%s", rec.Body.String())
	}
}
