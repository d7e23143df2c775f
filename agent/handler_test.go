package agent_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agui"
)

func post(t *testing.T, h http.Handler, method, body string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, "/", strings.NewReader(body)))
	return rec
}

func TestHandlerRequests(t *testing.T) {
	h := agent.Handler(func(context.Context, *agent.Run) error { return nil }, agent.Options{})
	if rec := post(t, h, http.MethodGet, ""); rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != http.MethodPost {
		t.Errorf("GET: got %d, Allow %q; want 405, Allow POST", rec.Code, rec.Header().Get("Allow"))
	}
	if rec := post(t, h, http.MethodPost, `{"threadId":`); rec.Code != http.StatusBadRequest {
		t.Errorf("a body that is not JSON: got %d, want 400", rec.Code)
	}
}

// TestHandlerEnds: the handler ends the run from the agent's result, and
// a stream it sends always conforms.
func TestHandlerEnds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		agent agent.Func
		last  string
	}{
		{"nil", func(context.Context, *agent.Run) error { return nil },
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`},
		{"an error", func(context.Context, *agent.Run) error { return errors.New("no model") },
			`{"type":"RUN_ERROR","message":"no model"}`},
		{"a failure", func(context.Context, *agent.Run) error {
			return &agent.Failure{Message: "the model could not answer", Code: "PROVIDER_ERROR"}
		}, `{"type":"RUN_ERROR","message":"the model could not answer","code":"PROVIDER_ERROR"}`},
		{"a call left open", func(_ context.Context, run *agent.Run) error {
			_, err := run.ToolCall("get_weather")
			return err
		}, `{"type":"RUN_ERROR","message":"the agent ended its run with tool call r-call-1 (get_weather) still open","code":"UNCLOSED"}`},
		{"ended by the agent", func(_ context.Context, run *agent.Run) error {
			return run.Fail("done here", "")
		}, `{"type":"RUN_ERROR","message":"done here"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := post(t, agent.Handler(tc.agent, agent.Options{}), http.MethodPost, `{"threadId":"t","runId":"r"}`)
			if ct := rec.Header().Get("Content-Type"); ct != agui.MediaTypeSSE {
				t.Errorf("Content-Type: got %q", ct)
			}
			events, err := agui.ReadEvents(rec.Body)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.last, events[len(events)-1].String()); d != "" {
				t.Errorf("last event (-want +got):\n%s", d)
			}
			if vs := agui.Verify(events, agui.Options{}); len(vs) > 0 {
				t.Errorf("violations: %v", vs)
			}
		})
	}
}

// TestHandlerClientGone: when the client goes, the agent's context ends
// and nothing more is sent.
func TestHandlerClientGone(t *testing.T) {
	stopped := make(chan error, 1)
	srv := httptest.NewServer(agent.Handler(func(ctx context.Context, run *agent.Run) error {
		text, err := run.Text()
		if err != nil {
			stopped <- err
			return err
		}
		for {
			if err := text.Delta("more "); err != nil {
				stopped <- err // the write failed: the client has gone
				return err
			}
			if ctx.Err() != nil {
				stopped <- ctx.Err()
				return ctx.Err()
			}
		}
	}, agent.Options{}))
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"threadId":"t","runId":"r"}`))
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, "RUN_STARTED") {
		t.Fatalf("first line: %q, %v", line, err)
	}
	resp.Body.Close()
	err = <-stopped
	if !errors.Is(err, context.Canceled) && !errors.Is(err, agent.ErrGone) {
		t.Errorf("the agent stopped with %v, want its context cancelled or ErrGone", err)
	}
}

// TestNewID: ids come from Options.NewID when it is set.
func TestNewID(t *testing.T) {
	rec := &recorder{}
	run, err := agent.Start(agui.RunAgentInput{RunID: "r"}, rec.send, agent.Options{
		NewID: func(runID string, kind agent.IDKind, n int) string {
			return string(kind) + "_" + runID + "_" + string(rune('a'+n-1))
		},
	})
	ok(t, err)
	c := must[*agent.ToolCall](t)(run.ToolCall("x"))
	if c.ID() != "call_r_a" || c.ResultMessageID() != "msg_r_a" {
		t.Errorf("ids: got %s and %s", c.ID(), c.ResultMessageID())
	}
}

// TestHandlerPanic: an agent that panics still ends its stream with
// RUN_ERROR before net/http sees the panic.
func TestHandlerPanic(t *testing.T) {
	h := agent.Handler(func(context.Context, *agent.Run) error { panic("boom") }, agent.Options{})
	rec := httptest.NewRecorder()
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("recovered %v, want the agent's panic", p)
			}
		}()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"threadId":"t","runId":"r"}`)))
	}()
	events, err := agui.ReadEvents(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := events[len(events)-1].String(), `{"type":"RUN_ERROR","message":"the agent failed","code":"PANIC"}`; got != want {
		t.Errorf("last event: got %s, want %s", got, want)
	}
}

// TestEndWrappedFailure: a *Failure wrapped in another error keeps its
// message and code.
func TestEndWrappedFailure(t *testing.T) {
	run, rec := start(t, agent.Options{})
	ok(t, run.End(fmt.Errorf("turn 2: %w", &agent.Failure{Message: "down", Code: "PROVIDER_ERROR"})))
	if got, want := rec.events[len(rec.events)-1].String(), `{"type":"RUN_ERROR","message":"down","code":"PROVIDER_ERROR"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
