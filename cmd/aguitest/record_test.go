package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/replay"
)

// syncBuffer is a bytes.Buffer safe for a command writing on another
// goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServing runs a serving command in process and returns its URL (the
// first line of its output), a stop function and the exit code channel.
func startServing(t *testing.T, run func(ctx context.Context, args []string, stdout, stderr io.Writer) int, args ...string) (url string, stop func() int, stderr *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr = &syncBuffer{}
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, args, pw, stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no URL printed: %v; stderr: %s", err, stderr.String())
	}
	go io.Copy(io.Discard, pr)
	return strings.TrimSpace(line), func() int { cancel(); return <-code }, stderr
}

func TestServeCommand(t *testing.T) {
	url, stop, stderr := startServing(t, runServe, "--speed", "0", "../../recorder/testdata/weather.jsonl")
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Errorf("URL = %q", url)
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	evs, err := agui.ReadEvents(resp.Body)
	resp.Body.Close()
	if err != nil || len(evs) != 10 || evs[9].Type() != agui.RunFinished {
		t.Errorf("got %d events, %v", len(evs), err)
	}
	if code := stop(); code != 0 {
		t.Errorf("exit code %d; stderr: %s", code, stderr)
	}
	if !strings.Contains(stderr.String(), "1 of 1 run served") {
		t.Errorf("stderr = %s", stderr)
	}
}

func TestServeUsage(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{"help", []string{"serve", "--help"}, 0, "Example:", ""},
		{"no file", []string{"serve"}, 2, "", "want a FILE, DIR or PATTERN"},
		{"missing file", []string{"serve", "nope.jsonl"}, 2, "", "nope.jsonl"},
		{"not a recording", []string{"serve", "../../agui/testdata/streams/simple.jsonl"}, 2, "", "not an aguitest recording"},
		{"negative speed", []string{"serve", "--speed", "-1", "x"}, 2, "", "must not be negative"},
		{"record help", []string{"record", "--help"}, 0, "Example:", ""},
		{"record without target", []string{"record", "--out", "x"}, 2, "", "--target and --out are required"},
		{"record bad target", []string{"record", "--target", "ftp://x", "--out", "x"}, 2, "", "not an http(s) URL"},
		{"record bad pointer", []string{"record", "--target", "http://x", "--out", "x", "--redact", "a/b"}, 2, "", "not a JSON pointer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "", tt.args...)
			if code != tt.wantCode || !strings.Contains(out, tt.wantOut) || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("got %d\nstdout: %s\nstderr: %s\nwant %d, %q, %q", code, out, errOut, tt.wantCode, tt.wantOut, tt.wantErr)
			}
		})
	}
}

func TestRecordCommand(t *testing.T) {
	evs := []agui.Event{
		agui.NewRunStarted("t", "r1"),
		agui.NewTextMessageStart("m"),
		agui.NewTextMessageContent("m", "hi"),
		agui.NewTextMessageEnd("m"),
		agui.NewRunFinished("t", "r1"),
	}
	var gotAuth string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		enc := agui.NewSSEEncoder(w)
		for _, e := range evs {
			enc.Encode(e)
		}
	}))
	defer upstream.Close()
	var direct bytes.Buffer
	resp, err := http.Post(upstream.URL+"/agent", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(&direct, resp.Body)
	resp.Body.Close()

	dir := filepath.Join(t.TempDir(), "recs")
	url, stop, stderr := startServing(t, runRecord, "--target", upstream.URL, "--out", dir, "--redact", "/forwardedProps/secret")
	req, _ := http.NewRequest("POST", url+"agent", strings.NewReader(`{"threadId":"t","runId":"r1","forwardedProps":{"secret":"s3cr3t"}}`))
	req.Header.Set("Authorization", "Bearer s3cr3t")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var proxied bytes.Buffer
	io.Copy(&proxied, resp.Body)
	resp.Body.Close()
	if !bytes.Equal(proxied.Bytes(), direct.Bytes()) {
		t.Errorf("the proxy changed the stream:\ngot  %q\nwant %q", proxied.Bytes(), direct.Bytes())
	}
	if gotAuth != "Bearer s3cr3t" {
		t.Errorf("upstream got Authorization %q", gotAuth)
	}
	if code := stop(); code != 0 {
		t.Fatalf("exit code %d; stderr: %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("got %d recordings", len(files))
	}
	b, _ := os.ReadFile(files[0])
	if bytes.Contains(b, []byte("s3cr3t")) {
		t.Errorf("the secret was recorded:\n%s", b)
	}
	rec, err := replay.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	run := rec.Runs[0]
	if run.Request.Path != "/agent" || run.Outcome() != recorder.OutcomeFinished || len(run.Events) != len(evs) {
		t.Errorf("run = %+v", run)
	}
	code, out, _ := runCmd(t, "", "verify", dir)
	if code != 0 || !strings.Contains(out, "ok: 5 events in 1 run") {
		t.Errorf("verify: %d %s", code, out)
	}
}

func TestVerifyRecording(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.jsonl")
	w, err := recorder.Create(path, recorder.Header{})
	if err != nil {
		t.Fatal(err)
	}
	ev := func(run string, e agui.Event) recorder.Record {
		return recorder.Record{Kind: recorder.KindEvent, Run: run, Event: e.Raw()}
	}
	w.Write(
		ev("a", agui.NewRunStarted("t", "a")),
		ev("b", agui.NewRunStarted("t", "b")),
		ev("b", agui.NewToolCallArgs("c1", "{}")),
		ev("a", agui.NewRunFinished("t", "a")),
		ev("b", agui.NewRunFinished("t", "b")),
	)
	w.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"kind":"event","run":"a","ev`)
	f.Close()

	code, out, _ := runCmd(t, "", "verify", path)
	for _, want := range []string{
		"bad.jsonl:4: run b: event 2 TOOL_CALL_ARGS [toolCallId=c1]: tool-call-not-open",
		"bad.jsonl:7: recording is truncated",
		"1 unreadable line, 1 violation in 5 events",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	future := filepath.Join(dir, "future.jsonl")
	os.WriteFile(future, []byte(`{"kind":"header","format":"aguitest-recording","version":3}`+"\n"), 0o644)
	code, _, errOut := runCmd(t, "", "verify", future)
	if code != 2 || !strings.Contains(errOut, "recording format version 3 is newer than this aguitest (supports 1)") {
		t.Errorf("future version: %d %s", code, errOut)
	}
}

// TestRecordREADMESetup runs README's setup: an agent on a Go 1.22
// "POST /agent" route, "aguitest record --target http://host/agent", the
// frontend posting to the URL the proxy prints. It used to forward to
// /agent/ and get 404.
func TestRecordREADMESetup(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /agent", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		enc := agui.NewSSEEncoder(w)
		enc.Encode(agui.NewRunStarted("t", "r"))
		enc.Encode(agui.NewRunFinished("t", "r"))
	})
	agentSrv := httptest.NewServer(mux)
	defer agentSrv.Close()
	dir := t.TempDir()
	url, stop, stderr := startServing(t, runRecord, "--target", agentSrv.URL+"/agent", "--out", dir)
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"threadId":"t","runId":"r"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "RUN_FINISHED") {
		t.Errorf("the frontend got %d %q", resp.StatusCode, body)
	}
	if code := stop(); code != 0 {
		t.Fatalf("exit code %d; stderr: %s", code, stderr)
	}
	code, out, _ := runCmd(t, "", "verify", dir)
	if code != 0 || !strings.Contains(out, "ok: 2 events in 1 run") {
		t.Errorf("verify: %d %s", code, out)
	}
}

// TestRecordRedactionFlags: the command offers what recorder.Redact
// offers, and the defaults redact what the package redacts.
func TestRecordRedactionFlags(t *testing.T) {
	key := "sk-" + strings.Repeat("Ab3xY9", 8)
	split := "gsk_" + strings.Repeat("Wq8e3", 10)
	rules := filepath.Join(t.TempDir(), "rules.toml")
	os.WriteFile(rules, []byte("[[rules]]\nid = \"acme\"\nregex = 'zeta_[0-9a-f]{16}'\nkeywords = [\"zeta_\"]\n"), 0o644)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		enc := agui.NewSSEEncoder(w)
		enc.Encode(agui.NewRunStarted("t", "r"))
		enc.Encode(agui.NewTextMessageStart("m"))
		enc.Encode(agui.NewTextMessageContent("m", "key "+key+" for ann@example.com"))
		enc.Encode(agui.NewTextMessageEnd("m"))
		// A key the model streams in pieces, and one of the user's format.
		enc.Encode(agui.NewTextMessageStart("m2"))
		enc.Encode(agui.NewTextMessageContent("m2", "again: "+split[:9]))
		enc.Encode(agui.NewTextMessageContent("m2", split[9:20]))
		enc.Encode(agui.NewTextMessageContent("m2", split[20:]+" and zeta_0123456789abcdef"))
		enc.Encode(agui.NewTextMessageEnd("m2"))
		enc.Encode(agui.NewRunFinished("t", "r"))
	}))
	defer upstream.Close()
	record := func(args ...string) string {
		t.Helper()
		dir := t.TempDir()
		url, stop, stderr := startServing(t, runRecord, append([]string{"--target", upstream.URL, "--out", dir}, args...)...)
		req, _ := http.NewRequest("POST", url+"?api_key=hunter2", strings.NewReader(`{"threadId":"t","runId":"r","forwardedProps":{"password":"pw1","user":"ann"}}`))
		req.Header.Set("X-Functions-Key", "fk1")
		req.Header.Set("X-Tenant", "acme")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if code := stop(); code != 0 {
			t.Fatalf("exit code %d; stderr: %s", code, stderr)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if len(files) != 1 {
			t.Fatalf("%d recordings", len(files))
		}
		b, _ := os.ReadFile(files[0])
		return string(b)
	}
	check := func(name, rec string, want, wantNot []string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(rec, w) {
				t.Errorf("%s: the recording lacks %q:\n%s", name, w, rec)
			}
		}
		for _, w := range wantNot {
			if strings.Contains(rec, w) {
				t.Errorf("%s: the recording holds %q:\n%s", name, w, rec)
			}
		}
	}
	check("defaults", record(), []string{"acme", "ann", "zeta_0123456789abcdef"}, []string{key, "hunter2", "pw1", "fk1", split[:9], split[9:20], split[20:]})
	check("rules", record("--redact-rules", rules), nil, []string{"zeta_0123456789abcdef", key, split[20:]})
	check("off", record("--redact-off", "openai,fields"), []string{key, "pw1"}, []string{"hunter2", "fk1"})
	check("keep", record("--keep", "password", "--keep", "X-Functions-Key"), []string{"pw1", "fk1"}, []string{key, "hunter2"})
	check("added", record("--redact", "/forwardedProps/user", "--redact-pattern", `[a-z]+@example\.com`, "--redact-header", "X-Tenant"),
		nil, []string{"acme", `"ann"`, "ann@example.com", key})
	code, _, errOut := runCmd(t, "", "record", "--target", "http://x", "--out", t.TempDir(), "--redact-off", "nope")
	if code != 2 || !strings.Contains(errOut, `unknown redaction "nope"`) {
		t.Errorf("--redact-off nope: %d %s", code, errOut)
	}
	code, _, errOut = runCmd(t, "", "record", "--target", "http://x", "--out", t.TempDir(), "--redact-pattern", "(")
	if code != 2 || !strings.Contains(errOut, "--redact-pattern") {
		t.Errorf("--redact-pattern (: %d %s", code, errOut)
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("[[rules]]\nid = \"x\"\nregex = '('\n"), 0o644)
	code, _, errOut = runCmd(t, "", "record", "--target", "http://x", "--out", t.TempDir(), "--redact-rules", bad)
	if code != 2 || !strings.Contains(errOut, `bad.toml: rule "x"`) {
		t.Errorf("--redact-rules bad.toml: %d %s", code, errOut)
	}
}

// TestRedactFlagsSetEveryOption: every field of recorder.Redact is set by
// a flag of record and llm record, and docs/security.md's snippet names
// that flag next to the field.
func TestRedactFlagsSetEveryOption(t *testing.T) {
	flags := map[string]string{ // field: flag
		"Off": "redact-off", "Keep": "keep", "Headers": "redact-header",
		"Pointers": "redact", "Patterns": "redact-pattern", "Rules": "redact-rules",
	}
	rules := filepath.Join(t.TempDir(), "rules.toml")
	os.WriteFile(rules, []byte("[[rules]]\nid = \"acme\"\nregex = 'acme_[0-9a-f]{16}'\n"), 0o644)
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	read := redactFlags(fs)
	var args []string
	for _, f := range flags {
		if fs.Lookup(f) == nil {
			t.Fatalf("no flag --%s", f)
		}
		v := "x"
		switch f {
		case "redact-off":
			v = string(recorder.DefaultJWT)
		case "redact":
			v = "/x"
		case "redact-rules":
			v = rules
		}
		args = append(args, "--"+f, v)
	}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	rd, err := read()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	rv := reflect.ValueOf(rd)
	for i := range rv.NumField() {
		name := rv.Type().Field(i).Name
		if !rv.Type().Field(i).IsExported() {
			continue
		}
		f, ok := flags[name]
		if !ok {
			t.Errorf("recorder.Redact.%s has no flag", name)
			continue
		}
		if rv.Field(i).IsZero() {
			t.Errorf("--%s does not set recorder.Redact.%s", f, name)
		}
		if !regexp.MustCompile(`(?m)^\s*` + name + `:.*// --` + f + ` `).Match(readme) {
			t.Errorf("docs/security.md's redaction snippet does not show %s next to --%s", name, f)
		}
	}
}

// TestVerifyRecordingReadAhead: a recording is read ahead in batches
// beside its verification; what is reported does not depend on where the
// batches are cut: lines, runs and violations across many batches, an
// unreadable line in the middle, and a fatal error after thousands of
// records that keeps what came before it.
func TestVerifyRecordingReadAhead(t *testing.T) {
	var buf bytes.Buffer
	w, err := recorder.NewWriter(&buf, recorder.Header{})
	if err != nil {
		t.Fatal(err)
	}
	ev := func(run string, e agui.Event) recorder.Record {
		return recorder.Record{Kind: recorder.KindEvent, Run: run, Event: e.Raw()}
	}
	const runs = 700 // 4 records each: 2,800 records, about 11 batches
	for i := range runs {
		run := fmt.Sprintf("r%d", i)
		mid := agui.NewStateSnapshot(map[string]int{"n": i})
		if i%100 == 99 {
			mid = agui.NewToolCallArgs("c", "{}") // never opened
		}
		if err := w.Write(
			recorder.Record{Kind: recorder.KindRequest, Run: run, Request: &recorder.Request{Method: "POST", Path: "/agent"}},
			ev(run, agui.NewRunStarted("t", run)),
			ev(run, mid),
			ev(run, agui.NewRunFinished("t", run)),
		); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// An unreadable line after run r350's records (line 1406).
	lines := strings.SplitAfter(buf.String(), "\n")
	lines = slices.Insert(lines, 1405, "{not a record}\n")
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCmd(t, "", "verify", path)
	// Line 1 is the header; run i's records start at line 2+4i, and one
	// line more after the bad one (line 1406).
	var want []string
	for i := 99; i < runs; i += 100 {
		line := 2 + 4*i + 2
		if i > 350 {
			line++
		}
		want = append(want, fmt.Sprintf("long.jsonl:%d: run r%d: event 2 TOOL_CALL_ARGS [toolCallId=c]: tool-call-not-open", line, i))
	}
	want = append(want, "long.jsonl:1406: invalid record", "1 unreadable line, 7 violations in 2100 events")
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}

	// A header of a newer version after all that: the file is unreadable
	// from there, said with its line.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"kind":"header","format":"aguitest-recording","version":3}` + "\n")
	f.Close()
	code, _, errOut := runCmd(t, "", "verify", path)
	if code != 2 || !strings.Contains(errOut, "long.jsonl:2803: recording format version 3 is newer") {
		t.Errorf("future version after %d records: exit %d, %s", 4*runs, code, errOut)
	}
}

// TestVerifyRecordingRunsLeftOpen: runs with no end record are all judged
// at the end of the file, however many there are (the list of runs is
// pruned as they finish, which once skipped some of them).
func TestVerifyRecordingRunsLeftOpen(t *testing.T) {
	var buf bytes.Buffer
	w, err := recorder.NewWriter(&buf, recorder.Header{})
	if err != nil {
		t.Fatal(err)
	}
	const runs = 100
	for i := range runs {
		run := fmt.Sprintf("r%d", i)
		// Cut after its first event: an incomplete recording.
		for _, e := range []agui.Event{agui.NewRunStarted("t", run)} {
			if err := w.Write(recorder.Record{Kind: recorder.KindEvent, Run: run, Event: e.Raw()}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "open.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCmd(t, "", "verify", "--json", path)
	var rep struct {
		Incomplete []struct{ Run string } `json:"incomplete"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if n := len(rep.Incomplete); n != runs || code != 3 {
		t.Errorf("exit %d, %d incomplete runs reported, want 3 and %d (the last %s)", code, n, runs, rep.Incomplete[n-1].Run)
	}
}
