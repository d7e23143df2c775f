package replay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/clock"
	"github.com/aguitest/aguitest/recorder"
)

const weather = "../recorder/testdata/weather.jsonl"

func load(t *testing.T, path string) *Recording {
	t.Helper()
	rec, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Problems) > 0 {
		t.Fatalf("problems: %v", rec.Problems)
	}
	return rec
}

// blockedClock blocks every Sleep until its context ends, saying when the
// first one started.
type blockedClock struct{ waited chan struct{} }

func (blockedClock) Now() time.Time { return clock.Epoch }

func (c blockedClock) Sleep(ctx context.Context, d time.Duration) error {
	select {
	case c.waited <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return ctx.Err()
}

func TestLoad(t *testing.T) {
	rec := load(t, weather)
	if len(rec.Runs) != 1 {
		t.Fatalf("got %d runs", len(rec.Runs))
	}
	run := rec.Runs[0]
	if run.ID != "run-1" || run.Request == nil || run.Outcome() != recorder.OutcomeFinished || len(run.Events) != 10 || len(run.Exchanges) != 1 {
		t.Errorf("run = %+v", run)
	}
	if run.Events[0].Line != 4 || run.Events[0].Offset != 1500*time.Microsecond {
		t.Errorf("first event at line %d offset %v", run.Events[0].Line, run.Events[0].Offset)
	}
	if vs := agui.Verify(run.AGUIEvents(), agui.Options{}); vs != nil {
		t.Errorf("violations: %v", vs)
	}
}

func TestRunsInterleavedAndCut(t *testing.T) {
	var buf bytes.Buffer
	w, _ := recorder.NewWriter(&buf, recorder.Header{})
	ev := func(run string, e agui.Event) recorder.Record {
		return recorder.Record{Kind: recorder.KindEvent, Run: run, Event: e.Raw()}
	}
	w.Write(
		recorder.Record{Kind: recorder.KindRequest, Run: "a", Request: &recorder.Request{}},
		recorder.Record{Kind: recorder.KindRequest, Run: "b", Request: &recorder.Request{}},
		ev("a", agui.NewRunStarted("t", "a")),
		ev("b", agui.NewRunStarted("t", "b")),
		ev("b", agui.NewRunFinished("t", "b")),
		recorder.Record{Kind: recorder.KindEnd, Run: "b", End: &recorder.End{Outcome: "finished"}},
		ev("a", agui.NewRunFinished("t", "a")),
	)
	data := buf.String() + `{"kind":"end","run":"a","en`
	rec, err := Read(recorder.NewReader(strings.NewReader(data), "mixed"))
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Truncated || len(rec.Problems) != 1 || !strings.Contains(rec.Problems[0].Error(), "mixed:9: recording is truncated") {
		t.Errorf("truncated %v, problems %v", rec.Truncated, rec.Problems)
	}
	if len(rec.Runs) != 2 || rec.Runs[0].ID != "b" || rec.Runs[1].ID != "a" {
		t.Fatalf("runs = %v", rec.Runs)
	}
	if a := rec.Runs[1]; len(a.Events) != 2 || a.End != nil || a.Outcome() != recorder.OutcomeTruncated {
		t.Errorf("run a = %+v", a)
	}
}

func TestLoadNewerVersion(t *testing.T) {
	_, err := Read(recorder.NewReader(strings.NewReader(`{"kind":"header","format":"aguitest-recording","version":2}`+"\n"), "new.jsonl"))
	if err == nil || err.Error() != "new.jsonl:1: recording format version 2 is newer than this aguitest (supports 1)" {
		t.Errorf("err = %v", err)
	}
}

func TestHandlerTiming(t *testing.T) {
	run := load(t, weather).Runs[0]
	last := run.Events[len(run.Events)-1].Offset
	tests := []struct {
		name  string
		speed float64
		want  time.Duration
	}{
		{"original timing", 1, last},
		{"twice as fast", 2, last / 2},
		{"as fast as possible", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := new(clock.Virtual)
			srv := NewServer([]*Run{run}, Options{Speed: tt.speed, Clock: clk})
			defer srv.Close()
			resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type = %q", ct)
			}
			got, err := agui.ReadEvents(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			want := run.AGUIEvents()
			if len(got) != len(want) {
				t.Fatalf("got %d events, want %d", len(got), len(want))
			}
			for i := range want {
				if !bytes.Equal(got[i].Raw(), want[i].Raw()) {
					t.Errorf("event %d = %s, want %s", i, got[i], want[i])
				}
			}
			if d := clk.Elapsed() - tt.want; d < -time.Microsecond || d > time.Microsecond {
				t.Errorf("waited %v in all, want %v", clk.Elapsed(), tt.want)
			}
		})
	}
}

func TestHandlerRunSelection(t *testing.T) {
	mk := func(id string) *Run {
		return &Run{ID: id, Events: []Event{{Event: agui.NewRunStarted("t", id)}, {Event: agui.NewRunFinished("t", id)}}}
	}
	runs := []*Run{mk("r1"), mk("r2"), mk("r3")}
	s := Handler(runs, Options{})
	srv := httptest.NewServer(s)
	defer srv.Close()
	postRun := func(body string) (int, string) {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			return resp.StatusCode, ""
		}
		evs, err := agui.ReadEvents(resp.Body)
		if err != nil || len(evs) == 0 {
			t.Fatalf("events %v, %v", evs, err)
		}
		return 200, evs[0].RunID()
	}
	for i, tt := range []struct {
		body     string
		wantCode int
		wantRun  string
	}{
		{`{"runId":"r2"}`, 200, "r2"},
		{`{}`, 200, "r1"},
		{`{"runId":"zz"}`, 200, "r3"},
		{`{}`, http.StatusConflict, ""},
	} {
		code, run := postRun(tt.body)
		if code != tt.wantCode || run != tt.wantRun {
			t.Errorf("request %d: got %d %q, want %d %q", i, code, run, tt.wantCode, tt.wantRun)
		}
	}
	resp, _ := http.Get(srv.URL)
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", resp.StatusCode)
	}
	if len(s.Unserved()) != 0 {
		t.Errorf("unserved: %v", s.Unserved())
	}
	if err := s.Check(); err == nil || err.Error() != "1 request was refused: no run was left to serve (3 runs, Loop off)" {
		t.Errorf("Check() = %v", err)
	}

	loop := NewServer(runs[:2], Options{Loop: true})
	defer loop.Close()
	if err := loop.Check(); err == nil || err.Error() != "run 1 of 2 (r1) was never requested\nrun 2 of 2 (r2) was never requested" {
		t.Errorf("Check() before any request = %v", err)
	}
	for i := 0; i < 3; i++ {
		resp, err := http.Post(loop.URL, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("loop request %d: %d", i, resp.StatusCode)
		}
	}
	if err := loop.Check(); err != nil {
		t.Errorf("Check() after each run was served = %v", err)
	}
}

func TestHandlerClientGoneStops(t *testing.T) {
	run := load(t, weather).Runs[0]
	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan struct{}, 1) // the first wait is never missed
	done := make(chan error)
	go func() {
		done <- Stream(ctx, io.Discard, run, Options{Speed: 1, Clock: blockedClock{waited}})
	}()
	<-waited
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Stream = %v, want context.Canceled", err)
	}
}

func TestProvider(t *testing.T) {
	exs := load(t, weather).Exchanges()
	clk := new(clock.Virtual)
	p := NewProvider(exs, ProviderOptions{Speed: 1, Clock: clk})
	defer p.Close()
	body := `{"model":"m","messages":[{"role":"user","content":"Weather in Paris?"}],"stream":true}`
	resp, err := http.Post(p.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var want bytes.Buffer
	for _, c := range exs[0].Chunks {
		want.Write(c.Data)
	}
	if resp.StatusCode != 200 || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("got %d %q, want 200 %q", resp.StatusCode, got, want.Bytes())
	}
	if clk.Elapsed() != 140*time.Millisecond {
		t.Errorf("waited %v, want 140ms", clk.Elapsed())
	}
	if err := p.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	// One request too many.
	resp, _ = http.Post(p.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	resp.Body.Close()
	if resp.StatusCode != 500 {
		t.Errorf("unexpected request: status %d", resp.StatusCode)
	}
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), "unexpected request 2") {
		t.Errorf("Check = %v", err)
	}
}

func TestProviderMismatchAndUnused(t *testing.T) {
	exs := load(t, weather).Exchanges()
	exs = append(exs, exs[0])
	p := NewProvider(exs, ProviderOptions{})
	defer p.Close()
	resp, err := http.Post(p.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m2","messages":[{"role":"user","content":"Weather in Paris?"}],"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(string(msg), "-want +got") {
		t.Errorf("got %d %s", resp.StatusCode, msg)
	}
	err = p.Check()
	for _, want := range []string{`request 1 does not match exchange 1 (line 3)`, `string("m2")`, "exchange 2 of 2 (POST https://llm.example/v1/chat/completions, OpenAI Chat Completions, line 3) was never requested"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check() = %v\nwant it to contain %q", err, want)
		}
	}
}

// TestRecordThenReplayProvider records an agent that calls a provider
// through recorder.Transport, then re-runs the agent offline against the
// provider replay and compares its output with the recording.
func TestRecordThenReplayProvider(t *testing.T) {
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, word := range []string{"Hello", " world"} {
			fmt.Fprintf(w, "data: %s\n\n", word)
			w.(http.Flusher).Flush()
		}
	}))
	defer llm.Close()
	// The agent: streams what the provider says as one text message.
	agentFor := func(base string) http.Handler {
		client := &http.Client{Transport: &recorder.Transport{}}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			req, _ := http.NewRequestWithContext(r.Context(), "POST", base+"/v1/chat", strings.NewReader(`{"q":"hi"}`))
			resp, err := client.Do(req)
			if err != nil {
				http.Error(w, err.Error(), 502)
				return
			}
			defer resp.Body.Close()
			evs, _ := agui.NewSSEDecoder(resp.Body), 0
			enc := agui.NewSSEEncoder(w)
			enc.Encode(agui.NewRunStarted("t", "r"))
			enc.Encode(agui.NewTextMessageStart("m"))
			for {
				m, err := evs.Next()
				if err != nil {
					break
				}
				enc.Encode(agui.NewTextMessageContent("m", string(m.Data)))
			}
			enc.Encode(agui.NewTextMessageEnd("m"))
			enc.Encode(agui.NewRunFinished("t", "r"))
		})
	}
	var buf bytes.Buffer
	w, _ := recorder.NewWriter(&buf, recorder.Header{})
	h := recorder.Middleware(agentFor(llm.URL), recorder.Config{Writer: w})
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(`{"runId":"r"}`)))
	h.Wait()
	rec, err := Read(recorder.NewReader(&buf, "rec"))
	if err != nil {
		t.Fatal(err)
	}
	run := rec.Runs[0]
	if len(run.Exchanges) != 1 || len(run.Exchanges[0].Chunks) == 0 {
		t.Fatalf("exchanges = %+v", run.Exchanges)
	}

	// Offline: the provider is gone; the replay answers instead.
	llm.Close()
	p := NewProvider(rec.Exchanges(), ProviderOptions{})
	defer p.Close()
	rr := httptest.NewRecorder()
	agentFor(p.URL).ServeHTTP(rr, httptest.NewRequest("POST", "/", strings.NewReader(`{}`)))
	if err := p.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	got, err := agui.ReadEvents(rr.Body)
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(run.AGUIEvents(), got); d != "" {
		t.Errorf("the re-run differs from the recording (-want +got):\n%s", d)
	}
}

// TestRequestLimits: a request body over the limit gets 413 from both
// servers, in the provider's error shape from Provider, and Provider's
// Check reports it.
func TestRequestLimits(t *testing.T) {
	big := strings.Repeat(" ", 2000)
	srv := NewServer(nil, Options{MaxRequestBytes: 1000})
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "larger than 1000 bytes") {
		t.Errorf("Server: got %d %q, want 413 naming the limit", resp.StatusCode, b)
	}

	p := NewProvider(nil, ProviderOptions{MaxRequestBytes: 1000})
	defer p.Close()
	resp, err = http.Post(p.URL+"/v1/messages", "application/json", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), `"type":"error"`) || !strings.Contains(string(b), "larger than 1000 bytes") {
		t.Errorf("Provider: got %d %q, want 413 in Anthropic's error shape", resp.StatusCode, b)
	}
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), "larger than 1000 bytes") {
		t.Errorf("Provider.Check() = %v, want the refused request", err)
	}
}
