package recorder

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/agui"
)

// streamEvents returns a run of n content events.
func streamEvents(runID string, n int) []agui.Event {
	evs := []agui.Event{agui.NewRunStarted("t", runID), agui.NewTextMessageStart("m1")}
	for i := 0; i < n; i++ {
		evs = append(evs, agui.NewTextMessageContent("m1", fmt.Sprintf("part %d <&> ", i)))
	}
	return append(evs, agui.NewTextMessageEnd("m1"), agui.NewRunFinished("t", runID))
}

// agent serves evs as SSE, flushing after each.
func agent(evs []agui.Event) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		enc := agui.NewSSEEncoder(w)
		for _, e := range evs {
			if err := enc.Encode(e); err != nil {
				return
			}
		}
	})
}

func post(t *testing.T, url, body string, h http.Header) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readDir reads every recording in dir, sorted by name.
func readDir(t *testing.T, dir string) map[string][]Record {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	sort.Strings(names)
	out := map[string][]Record{}
	for _, n := range names {
		r, err := Open(n)
		if err != nil {
			t.Fatal(err)
		}
		recs, errs := readAll(t, r)
		r.Close()
		if len(errs) > 0 {
			t.Fatalf("%s: %v", n, errs)
		}
		out[n] = recs
	}
	return out
}

func eventsOf(t *testing.T, recs []Record) []agui.Event {
	t.Helper()
	var evs []agui.Event
	for _, r := range recs {
		if r.Kind == KindEvent {
			e, err := r.EventOf()
			if err != nil {
				t.Fatalf("line %d: %v", r.Line, err)
			}
			evs = append(evs, e)
		}
	}
	return evs
}

func endOf(t *testing.T, recs []Record) *End {
	t.Helper()
	for _, r := range recs {
		if r.Kind == KindEnd {
			return r.End
		}
	}
	t.Fatal("no end record")
	return nil
}

func TestMiddlewareByteForByte(t *testing.T) {
	evs := streamEvents("r1", 50)
	bare := httptest.NewServer(agent(evs))
	defer bare.Close()
	dir := t.TempDir()
	h := Middleware(agent(evs), Config{Dir: dir})
	wrapped := httptest.NewServer(h)
	defer wrapped.Close()

	body := `{"threadId":"t","runId":"r1","messages":[]}`
	want := post(t, bare.URL, body, nil)
	got := post(t, wrapped.URL, body, nil)
	if !bytes.Equal(got, want) {
		t.Fatalf("the client got different bytes through the middleware")
	}
	wrapped.Close()
	h.Wait()

	files := readDir(t, dir)
	if len(files) != 1 {
		t.Fatalf("got %d recordings, want 1", len(files))
	}
	for name, recs := range files {
		if !strings.Contains(name, "r1") {
			t.Errorf("file name %s does not name the run", name)
		}
		if recs[1].Kind != KindRequest || recs[1].Run != "r1" || string(recs[1].Request.Input) != body {
			t.Errorf("request record = %+v", recs[1])
		}
		got := eventsOf(t, recs)
		if len(got) != len(evs) {
			t.Fatalf("got %d events, want %d", len(got), len(evs))
		}
		for i := range evs {
			if got[i].String() != evs[i].String() {
				t.Errorf("event %d = %s, want %s", i, got[i], evs[i])
			}
		}
		end := endOf(t, recs)
		if end.Outcome != OutcomeFinished || end.Events != int64(len(evs)) || end.Bytes != int64(len(want)) || end.Status != 200 {
			t.Errorf("end = %+v", end)
		}
	}
	if s := h.Stats(); s.Runs != 1 || s.Finished != 1 || s.DroppedBytes != 0 {
		t.Errorf("stats = %+v", s)
	}
}

func TestMiddlewareFlushesThrough(t *testing.T) {
	// Each event must reach the client before the handler writes the next.
	step := make(chan struct{})
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		enc := agui.NewSSEEncoder(w)
		enc.Encode(agui.NewRunStarted("t", "r"))
		<-step
		// Through http.ResponseController too, which also reaches the
		// server's writer for deadlines.
		rc := http.NewResponseController(w)
		if err := rc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Errorf("SetWriteDeadline: %v", err)
		}
		w.Write([]byte("data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"))
		if err := rc.Flush(); err != nil {
			t.Errorf("Flush: %v", err)
		}
		if _, ok := w.(http.Flusher); !ok {
			t.Error("the wrapped writer is not an http.Flusher")
		}
		<-step
	}), Config{Writer: discardWriter(t)})
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for i, want := range []string{"RUN_STARTED", "RUN_FINISHED"} {
		line, err := br.ReadString('\n')
		if err != nil || !strings.Contains(line, want) {
			t.Fatalf("line %d = %q, %v; want %s", i, line, err, want)
		}
		br.ReadString('\n')
		step <- struct{}{}
	}
}

func discardWriter(t *testing.T) *Writer {
	t.Helper()
	w, err := NewWriter(io.Discard, Header{})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// failingWriter fails every write after the first n.
type failingWriter struct {
	mu sync.Mutex
	n  int
}

func (f *failingWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n <= 0 {
		return 0, errors.New("disk on fire")
	}
	f.n--
	return len(p), nil
}

func TestMiddlewareStorageFailing(t *testing.T) {
	evs := streamEvents("r", 200)
	var want bytes.Buffer
	agent(evs).ServeHTTP(&sseRecorder{ResponseRecorder: httptest.NewRecorder(), buf: &want}, httptest.NewRequest("POST", "/", nil))

	w, err := NewWriter(&failingWriter{n: 2}, Header{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var reported []error
	h := Middleware(agent(evs), Config{Writer: w, OnError: func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() }})
	srv := httptest.NewServer(h)
	defer srv.Close()
	got := post(t, srv.URL, "{}", nil)
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("the client got %d bytes, want %d identical bytes", len(got), want.Len())
	}
	srv.Close()
	h.Wait()
	if s := h.Stats(); s.StorageErrors != 1 || s.DroppedRecord == 0 {
		t.Errorf("stats = %+v, want one storage error and dropped records", s)
	}
	if len(reported) != 1 || !strings.Contains(reported[0].Error(), "disk on fire") {
		t.Errorf("OnError got %v", reported)
	}
}

// sseRecorder is an httptest.ResponseRecorder copying the body to buf.
type sseRecorder struct {
	*httptest.ResponseRecorder
	buf *bytes.Buffer
}

func (s *sseRecorder) Write(p []byte) (int, error) {
	s.buf.Write(p)
	return s.ResponseRecorder.Write(p)
}

// blockingWriter blocks every write after the header until release closes.
type blockingWriter struct {
	release chan struct{}
	started chan struct{}
	once    sync.Once
	buf     bytes.Buffer
	n       int
}

func (b *blockingWriter) Write(p []byte) (int, error) {
	if b.n++; b.n > 1 {
		b.once.Do(func() { close(b.started) })
		<-b.release
	}
	return b.buf.Write(p)
}

func TestMiddlewareSlowStorageDropsAndCounts(t *testing.T) {
	evs := streamEvents("r", 2000)
	bw := &blockingWriter{release: make(chan struct{}), started: make(chan struct{})}
	w, err := NewWriter(bw, Header{})
	if err != nil {
		t.Fatal(err)
	}
	h := Middleware(agent(evs), Config{Writer: w, BufferSize: 4096})
	srv := httptest.NewServer(h)
	defer srv.Close()
	var want bytes.Buffer
	agent(evs).ServeHTTP(&sseRecorder{ResponseRecorder: httptest.NewRecorder(), buf: &want}, httptest.NewRequest("POST", "/", nil))
	// Storage blocks from the first record on; the whole stream must
	// still reach the client.
	got := post(t, srv.URL, "{}", nil)
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("client got %d bytes, want %d", len(got), want.Len())
	}
	<-bw.started
	close(bw.release)
	srv.Close()
	h.Wait()
	s := h.Stats()
	if s.DroppedBytes == 0 {
		t.Fatalf("stats = %+v, want dropped bytes", s)
	}
	recs, errs := readAll(t, NewReader(&bw.buf, "slow"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	end := endOf(t, recs)
	if end.Dropped != s.DroppedBytes || end.Bytes != int64(want.Len()) {
		t.Errorf("end = %+v, stats = %+v", end, s)
	}
	// Whatever was recorded is whole events.
	for _, r := range recs {
		if r.Kind == KindEvent && r.Event == nil {
			t.Errorf("line %d: a partial event was recorded: %q", r.Line, r.Data)
		}
	}
}

func TestMiddlewareClientGone(t *testing.T) {
	sent := make(chan struct{})
	handlerDone := make(chan struct{})
	dir := t.TempDir()
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(handlerDone)
		w.Header().Set("Content-Type", "text/event-stream")
		enc := agui.NewSSEEncoder(w)
		enc.Encode(agui.NewRunStarted("t", "r"))
		enc.Encode(agui.NewTextMessageStart("m"))
		close(sent)
		for i := 0; ; i++ {
			if err := enc.Encode(agui.NewTextMessageContent("m", "x")); err != nil {
				return
			}
			if r.Context().Err() != nil {
				return
			}
		}
	}), Config{Dir: dir})
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL, strings.NewReader(`{"runId":"r"}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	<-sent
	io.ReadFull(resp.Body, make([]byte, 10))
	cancel()
	resp.Body.Close()
	<-handlerDone
	srv.Close()
	h.Wait()
	for _, recs := range readDir(t, dir) {
		end := endOf(t, recs)
		if end.Outcome != OutcomeClientGone {
			t.Errorf("outcome = %q, want %q", end.Outcome, OutcomeClientGone)
		}
		if evs := eventsOf(t, recs); len(evs) < 2 || evs[0].Type() != agui.RunStarted {
			t.Errorf("recorded %d events", len(evs))
		}
	}
	if s := h.Stats(); s.ClientGone != 1 {
		t.Errorf("stats = %+v", s)
	}
}

func TestMiddlewareConcurrentRuns(t *testing.T) {
	const n = 100
	dir := t.TempDir()
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in agui.RunAgentInput
		b, _ := io.ReadAll(r.Body)
		if err := jsonUnmarshal(b, &in); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		agent(streamEvents(in.RunID, 100)).ServeHTTP(w, r)
	}), Config{Dir: dir})
	srv := httptest.NewServer(h)
	defer srv.Close()
	var wg sync.WaitGroup
	bodies := make([][]byte, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(fmt.Sprintf(`{"threadId":"t","runId":"run%03d"}`, i)))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			bodies[i], _ = io.ReadAll(resp.Body)
		}()
	}
	wg.Wait()
	srv.Close()
	h.Wait()
	files := readDir(t, dir)
	if len(files) != n {
		t.Fatalf("got %d recordings, want %d", len(files), n)
	}
	seen := map[string]bool{}
	for name, recs := range files {
		run := recs[1].Run
		seen[run] = true
		want := streamEvents(run, 100)
		got := eventsOf(t, recs)
		if len(got) != len(want) {
			t.Errorf("%s: %d events, want %d", name, len(got), len(want))
			continue
		}
		for i := range want {
			if got[i].String() != want[i].String() {
				t.Errorf("%s: event %d = %s, want %s", name, i, got[i], want[i])
				break
			}
		}
		if end := endOf(t, recs); end.Outcome != OutcomeFinished {
			t.Errorf("%s: end = %+v", name, end)
		}
		for _, r := range recs[1:] {
			if r.Run != run {
				t.Errorf("%s: record of run %s", name, r.Run)
			}
		}
	}
	if len(seen) != n {
		t.Errorf("got %d distinct runs, want %d", len(seen), n)
	}
}

func TestMiddlewareSharedWriterConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "all.jsonl")
	w, err := Create(path, Header{})
	if err != nil {
		t.Fatal(err)
	}
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in agui.RunAgentInput
		b, _ := io.ReadAll(r.Body)
		jsonUnmarshal(b, &in)
		agent(streamEvents(in.RunID, 20)).ServeHTTP(w, r)
	}), Config{Writer: w})
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rr := httptest.NewRecorder()
			h.ServeHTTP(rr, httptest.NewRequest("POST", "/", strings.NewReader(fmt.Sprintf(`{"runId":"r%d"}`, i))))
		}()
	}
	wg.Wait()
	h.Wait()
	w.Close()
	r, _ := Open(path)
	defer r.Close()
	recs, errs := readAll(t, r)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	byRun := map[string]int{}
	for _, rec := range recs {
		if rec.Kind == KindEvent {
			byRun[rec.Run]++
		}
	}
	if len(byRun) != 20 {
		t.Fatalf("got %d runs", len(byRun))
	}
	for run, n := range byRun {
		if n != 24 {
			t.Errorf("run %s: %d events, want 24", run, n)
		}
	}
}

func TestMiddlewareSampleAndLimit(t *testing.T) {
	evs := streamEvents("r", 100)
	draws := []float64{0.9, 0.1, 0.6, 0.2}
	i := 0
	dir := t.TempDir()
	h := Middleware(agent(evs), Config{Dir: dir, Sample: Fraction(0.5, func() float64 { i++; return draws[i-1] }), MaxRunBytes: 2000})
	for range draws {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(`{"runId":"r"}`)))
	}
	h.Wait()
	if s := h.Stats(); s.Runs != 2 || s.Skipped != 2 || s.Limited != 2 {
		t.Errorf("stats = %+v, want 2 runs, 2 skipped, 2 limited", s)
	}
	for name, recs := range readDir(t, dir) {
		end := endOf(t, recs)
		if !end.Limited || end.Events != int64(len(evs)) || end.Outcome != OutcomeFinished {
			t.Errorf("%s: end = %+v", name, end)
		}
		if n := len(eventsOf(t, recs)); n == 0 || n >= len(evs) {
			t.Errorf("%s: %d events recorded, want some but not all", name, n)
		}
		fi, _ := os.Stat(name)
		if fi.Size() > 3000 {
			t.Errorf("%s: %d bytes, over the limit", name, fi.Size())
		}
	}
}

func TestMiddlewarePanicRecorded(t *testing.T) {
	w := &bytes.Buffer{}
	wr, _ := NewWriter(w, Header{})
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agui.NewSSEEncoder(w).Encode(agui.NewRunStarted("t", "r"))
		panic("boom")
	}), Config{Writer: wr})
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("recovered %v, want the handler's panic", p)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/", nil))
	}()
	h.Wait()
	recs, _ := readAll(t, NewReader(w, "p"))
	if end := endOf(t, recs); end.Outcome != OutcomeTruncated || !strings.Contains(end.Error, "boom") {
		t.Errorf("end = %+v", end)
	}
}

func TestSecretsNeverRecorded(t *testing.T) {
	const secret = "sk-PLANTED-0123456789"
	evs := []agui.Event{
		agui.NewRunStarted("t", "r"),
		agui.NewEvent(agui.Custom, "name", "creds", "value", map[string]string{"password": secret}),
		agui.NewTextMessageStart("m"),
		agui.NewTextMessageContent("m", "your key is "+secret),
		agui.NewTextMessageEnd("m"),
		agui.NewRunFinished("t", "r"),
	}
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Set-Cookie", "session="+secret)
		w.Header().Set("X-Request-Token", secret)
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"key "+secret+"\"}}]}\n\n")
	}))
	defer provider.Close()
	client := &http.Client{Transport: &Transport{}}
	dir := t.TempDir()
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), "POST", provider.URL, strings.NewReader(`{"model":"m","api_key":"`+secret+`"}`))
		req.Header.Set("Authorization", "Bearer "+secret)
		req.Header.Set("Api-Key", secret)
		resp, err := client.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		agent(evs).ServeHTTP(w, r)
	}), Config{Dir: dir, Redact: Redact{
		Pointers: []string{"/forwardedProps/token", "/value/password", "/api_key"},
		Patterns: []*regexp.Regexp{regexp.MustCompile(`sk-[A-Za-z0-9-]+`)},
	}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	hdr := http.Header{}
	for _, k := range []string{"Authorization", "Cookie", "X-Api-Key", "api-key", "X-Auth-Token", "Proxy-Authorization", "X-My-Secret", "X-Session-Id"} {
		hdr.Set(k, secret)
	}
	hdr.Set("X-Trace", "kept")
	got := post(t, srv.URL, `{"threadId":"t","runId":"r","forwardedProps":{"token":"`+secret+`"},"messages":[{"id":"u","role":"user","content":"`+secret+`"}]}`, hdr)
	if !bytes.Contains(got, []byte(secret)) {
		t.Error("redaction changed what the client received")
	}
	srv.Close()
	h.Wait()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 1 {
		t.Fatalf("got %d files", len(files))
	}
	b, _ := os.ReadFile(files[0])
	if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte("PLANTED")) {
		t.Errorf("the secret is in the recording:\n%s", b)
	}
	for _, want := range []string{`"X-Trace":["kept"]`, `"token":"[REDACTED]"`, `"kind":"provider"`, `"password":"[REDACTED]"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("recording lacks %s:\n%s", want, b)
		}
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
func jsonMarshal(v any) ([]byte, error)   { return json.Marshal(v) }

func TestMiddlewareNonSSEResponse(t *testing.T) {
	var file bytes.Buffer
	w, _ := NewWriter(&file, Header{})
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"bad input"}`, http.StatusBadRequest)
	}), Config{Writer: w})
	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, httptest.NewRequest("POST", "/", strings.NewReader("not json")))
	h.Wait()
	if rr.Code != 400 || !strings.Contains(rr.Body.String(), "bad input") {
		t.Errorf("client got %d %q", rr.Code, rr.Body)
	}
	recs, errs := readAll(t, NewReader(&file, "e"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if recs[1].Request.Body != "not json" {
		t.Errorf("request = %+v", recs[1].Request)
	}
	if end := endOf(t, recs); end.Outcome != OutcomeTruncated || end.Status != 400 || end.Events != 0 {
		t.Errorf("end = %+v", end)
	}
}

// TestProxyForwardsToTheEndpoint is README's setup: "aguitest record
// --target http://localhost:8000/agent" in front of a Go 1.22 "POST
// /agent" route, the frontend posting to the printed root URL. The
// upstream gets /agent (it used to get /agent/, and answer 404).
func TestProxyForwardsToTheEndpoint(t *testing.T) {
	mux := http.NewServeMux()
	var mu sync.Mutex
	var got []string
	note := func(r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.RequestURI())
		mu.Unlock()
	}
	mux.HandleFunc("POST /agent", func(w http.ResponseWriter, r *http.Request) {
		note(r)
		agent(streamEvents("r", 1)).ServeHTTP(w, r)
	})
	mux.HandleFunc("POST /agent/sub", func(w http.ResponseWriter, r *http.Request) {
		note(r)
		agent(streamEvents("r", 1)).ServeHTTP(w, r)
	})
	up := httptest.NewServer(mux)
	defer up.Close()
	for _, tt := range []struct{ target, path, want string }{
		{"/agent", "/", "/agent"},
		{"/agent", "", "/agent"},
		{"/agent", "/agent", "/agent"},
		{"/agent", "/sub", "/agent/sub"},
		{"/agent", "/agent/sub", "/agent/sub"},
		{"/agent?v=1", "/?x=2", "/agent?v=1&x=2"},
		{"", "/agent", "/agent"},
		{"/", "/agent", "/agent"},
	} {
		target, _ := url.Parse(up.URL + tt.target)
		var buf bytes.Buffer
		w, _ := NewWriter(&buf, Header{})
		h := Proxy(target, Config{Writer: w})
		srv := httptest.NewServer(h)
		got = nil
		resp, err := http.Post(srv.URL+tt.path, "application/json", strings.NewReader(`{"runId":"r"}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		srv.Close()
		h.Wait()
		mu.Lock()
		if resp.StatusCode != 200 || len(got) != 1 || got[0] != tt.want {
			t.Errorf("target %s, POST %q: status %d, upstream got %q, want %q", tt.target, tt.path, resp.StatusCode, got, tt.want)
		}
		mu.Unlock()
		recs, _ := readAll(t, NewReader(&buf, "p"))
		if end := endOf(t, recs); end.Outcome != OutcomeFinished {
			t.Errorf("target %s, POST %q: recorded %+v", tt.target, tt.path, end)
		}
	}
}

// An event whose data is not UTF-8 is recorded as data, which the reader
// reads, rather than as an event the reader would refuse: the recording
// stays readable, and the client's other events are in it.
func TestMiddlewareInvalidUTF8Event(t *testing.T) {
	var file bytes.Buffer
	w, _ := NewWriter(&file, Header{})
	bad := "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"caf\xe9\"}"
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
		fmt.Fprint(w, "data: "+bad+"\n\n")
		fmt.Fprint(w, "data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
	}), Config{Writer: w})
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(`{"runId":"r"}`)))
	h.Wait()
	recs, errs := readAll(t, NewReader(&file, "e"))
	if len(errs) > 0 {
		t.Fatalf("the recording does not read back: %v", errs)
	}
	var kinds []string
	for _, r := range recs {
		switch {
		case r.Kind == KindEvent && r.Data != "":
			kinds = append(kinds, "data "+r.Data)
		case r.Kind == KindEvent:
			kinds = append(kinds, "event "+string(lastType(r.Event)))
		}
	}
	want := []string{"event RUN_STARTED", "data " + strings.ToValidUTF8(bad, "\uFFFD"), "event RUN_FINISHED"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}
