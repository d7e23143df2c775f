package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/recorder"
)

// gate is storage that holds every write after the header until opened.
type gate struct {
	mu      sync.Mutex
	open    chan struct{}
	started chan struct{}
	once    sync.Once
	n       int
	buf     bytes.Buffer
}

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	g.n++
	first := g.n == 1
	g.mu.Unlock()
	if !first {
		g.once.Do(func() { close(g.started) })
		<-g.open
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

// recordOne serves evs through the recorder middleware once and returns
// the recording's path.
func recordOne(t *testing.T, evs []agui.Event, cfg recorder.Config, slow bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	g := &gate{open: make(chan struct{}), started: make(chan struct{})}
	var out io.Writer = &g.buf
	if slow {
		out = g
	} else {
		close(g.open)
	}
	w, _ := recorder.NewWriter(out, recorder.Header{})
	cfg.Writer = w
	h := recorder.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		enc := agui.NewSSEEncoder(w)
		for _, e := range evs {
			enc.Encode(e)
		}
	}), cfg)
	srv := httptest.NewServer(h)
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"threadId":"t","runId":"r"}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if slow {
		<-g.started
		close(g.open)
	}
	srv.Close()
	h.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := os.WriteFile(path, g.buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func longRun(n int, finish bool) []agui.Event {
	evs := []agui.Event{agui.NewRunStarted("t", "r"), agui.NewTextMessageStart("m")}
	for range n {
		evs = append(evs, agui.NewTextMessageContent("m", strings.Repeat("word ", 20)))
	}
	evs = append(evs, agui.NewTextMessageEnd("m"))
	if finish {
		evs = append(evs, agui.NewRunFinished("t", "r"))
	}
	return evs
}

// TestVerifyIncompleteRecording: a run cut by --max-run-bytes, by bytes
// storage had no room for, or by storage failing is reported as an
// incomplete recording, exit 3, and not blamed on the agent ("truncated",
// "unclosed") as it used to be; an agent that really stopped early still
// is.
func TestVerifyIncompleteRecording(t *testing.T) {
	noEnd := filepath.Join(t.TempDir(), "noend.jsonl")
	w, _ := recorder.Create(noEnd, recorder.Header{})
	w.Write(recorder.Record{Kind: recorder.KindRequest, Run: "r", Request: &recorder.Request{Method: "POST"}},
		recorder.EventRecord("r", 0, agui.NewRunStarted("t", "r")),
		recorder.EventRecord("r", 1, agui.NewTextMessageStart("m")))
	w.Close()
	tests := []struct {
		name     string
		path     string
		wantCode int
		want     []string
		notWant  []string
	}{
		{"size limit", recordOne(t, longRun(200, true), recorder.Config{MaxRunBytes: 4000}, false), 3,
			[]string{"incomplete recording: recording stopped at the per-run size limit", "as far as recorded"}, []string{"truncated", "unclosed"}},
		{"storage fell behind", recordOne(t, longRun(3000, true), recorder.Config{BufferSize: 8 << 10}, true), 3,
			[]string{"bytes of the response were dropped (storage fell behind)", "after the gap at line"}, []string{"truncated", "unclosed", "not-open"}},
		{"no end record", noEnd, 3, []string{"run r: incomplete recording: the recording has no end record"}, []string{"truncated", "unclosed"}},
		{"the agent stopped early", recordOne(t, longRun(3, false), recorder.Config{}, false), 1,
			[]string{"truncated"}, []string{"incomplete"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "", "verify", tt.path)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.wantCode, out, errOut)
			}
			for _, s := range tt.want {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tt.notWant {
				if strings.Contains(out, s) {
					t.Errorf("output holds %q:\n%s", s, out)
				}
			}
			if code, out, _ := runCmd(t, "", "verify", "--json", tt.path); code != tt.wantCode || (tt.wantCode == 3) != strings.Contains(out, `"incomplete":[{"run":"r"`) {
				t.Errorf("--json: exit %d\n%s", code, out)
			}
		})
	}
}

// TestShowIncompleteRecording: show marks an incomplete recording as such
// and does not blame the agent for how it ended.
func TestShowIncompleteRecording(t *testing.T) {
	path := recordOne(t, longRun(200, true), recorder.Config{MaxRunBytes: 4000}, false)
	code, out, errOut := runCmd(t, "", "show", path)
	if code != 0 || !strings.Contains(out, "incomplete recording") || !strings.Contains(out, "per-run size limit") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	for _, bad := range []string{"truncated", "unclosed", "never ended"} {
		if strings.Contains(out, bad) && bad != "never ended" {
			t.Errorf("the agent is blamed (%s):\n%s", bad, out)
		}
	}
}
