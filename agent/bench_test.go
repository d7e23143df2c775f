package agent_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agent"
)

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
// event verified (Strict) and without the Verifier. The handles' own checks
// run in both.
func BenchmarkHandler(b *testing.B) {
	for _, bc := range []struct {
		name string
		opt  agent.Options
	}{{"verify", agent.Options{}}, {"noverify", agent.Options{NoVerify: true}}} {
		b.Run(bc.name, func(b *testing.B) {
			h := agent.Handler(benchRun, bc.opt)
			w := discard{h: http.Header{}}
			body := `{"threadId":"t","runId":"r","messages":[{"id":"u1","role":"user","content":"hi"}]}`
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)))
			}
			b.ReportMetric(float64(benchEvents*b.N)/b.Elapsed().Seconds(), "events/s")
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
