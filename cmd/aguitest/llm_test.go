package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const llmScript = `turns:
  - expect: {last_user: hello}
    text: Hello from the script.
  - text: never asked
`

// TestLLMServe runs "aguitest llm serve" in-process, reads its URL and
// talks to it over HTTP.
func TestLLMServe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(llmScript), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	var code int
	var wg sync.WaitGroup
	wg.Go(func() {
		code = runLLM(ctx, []string{"serve", path}, pw, &stderr)
		pw.Close()
	})
	url, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL on stdout: %v", err)
	}
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/v1") {
		t.Fatalf("URL %q, want http://127.0.0.1:PORT/v1", url)
	}
	go io.Copy(io.Discard, pr)

	resp, err := http.Post(url+"/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hello"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "Hello from the script.") {
		t.Errorf("got %d %s", resp.StatusCode, body)
	}

	cancel() // as SIGINT does
	wg.Wait()
	if code != 1 || !strings.Contains(stderr.String(), "1 of 2 turns used") || !strings.Contains(stderr.String(), "s.yaml:4: turn 2 was never used: 1 request for 2 turns") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 naming the unused turn", code, &stderr)
	}
}

func TestLLMUsage(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("turns:\n  - text: hi\n    colour: red\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"help", []string{"--help"}, 0, "Example:", ""},
		{"serve help", []string{"serve", "--help"}, 0, "usage: aguitest llm serve", ""},
		{"no args", nil, 2, "", "usage:"},
		{"unknown subcommand", []string{"play"}, 2, "", `unknown subcommand "play"`},
		{"no script", []string{"serve"}, 2, "", "want one SCRIPT"},
		{"bad flag", []string{"serve", "--port", "1", "x"}, 2, "", "flag provided but not defined"},
		{"missing file", []string{"serve", "nope.yaml"}, 2, "", "nope.yaml"},
		{"record without target", []string{"record", "--out", "x.jsonl"}, 2, "", "want --target URL and --out FILE"},
		{"record relative target", []string{"record", "--target", "localhost", "--out", "x.jsonl"}, 2, "", "is not an absolute URL"},
		{"replay nothing", []string{"replay"}, 2, "", "want at least one RECORDING"},
		{"replay missing file", []string{"replay", "nope.jsonl"}, 2, "", "nope.jsonl"},
		{"replay help", []string{"replay", "--help"}, 0, "usage: aguitest llm replay", ""},
		{"record help", []string{"record", "--help"}, 0, "--redact-pattern RE", ""},
		{"help", []string{"--help"}, 0, "usage: aguitest llm record", ""},
		{"invalid script", []string{"serve", bad}, 2, "", "bad.yaml:3: field colour not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runLLM(t.Context(), tt.args, &stdout, &stderr)
			if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q", code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

// TestLLMRealtime: --realtime serves, and a stop before any request
// reports every turn unused.
func TestLLMRealtime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, []byte(`{"plan":{"every":"1ms"},"turns":[{"text":"x"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	url, stop := serveLLM(t, "serve", "--realtime", "--addr", "127.0.0.1:0", path)
	code, stderr := stop()
	if code != 1 || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(stderr, "0 of 1 turn used") {
		t.Errorf("exit %d, url %q, stderr %q", code, url, stderr)
	}
}

// serveLLM runs "aguitest llm ARGS" in-process until the returned stop is
// called, and returns the URL it printed and its exit code and standard
// error once stopped.
func serveLLM(t *testing.T, args ...string) (url string, stop func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	var code int
	var wg sync.WaitGroup
	wg.Go(func() {
		code = runLLM(ctx, args, pw, &stderr)
		pw.Close()
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		wg.Wait()
		t.Fatalf("aguitest llm %v: no URL on stdout: %v\n%s", args, err, &stderr)
	}
	go io.Copy(io.Discard, pr)
	return strings.TrimSpace(line), func() (int, string) {
		cancel()
		wg.Wait()
		return code, stderr.String()
	}
}

func postBody(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestLLMServeWires: one base URL serves every wire; --requests logs each
// request in the neutral form with its raw body.
func TestLLMServeWires(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.yaml")
	os.WriteFile(script, []byte("turns:\n  - text: one\n  - text: two\n  - text: three\n  - text: four\n"), 0o644)
	log := filepath.Join(dir, "requests.jsonl")
	url, stop := serveLLM(t, "serve", "--requests", log, script)
	root := strings.TrimSuffix(url, "/v1")
	for _, r := range []struct{ path, body, want string }{
		{url + "/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, `"content":"one"`},
		{url + "/responses", `{"model":"m","input":"hi"}`, `"text":"two"`},
		{root + "/v1/messages", `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`, `"text":"three"`},
		{root + "/v1beta/models/gem:generateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, `"text":"four"`},
	} {
		if code, body := postBody(t, r.path, r.body); code != 200 || !strings.Contains(body, r.want) {
			t.Errorf("%s: %d %s", r.path, code, body)
		}
	}
	if code, stderr := stop(); code != 0 || !strings.Contains(stderr, "4 requests, 4 of 4 turns used") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d logged requests:\n%s", len(lines), b)
	}
	for i, w := range []string{"openai-chat", "openai-responses", "anthropic-messages", "gemini"} {
		if !strings.HasPrefix(lines[i], `{"wire":"`+w+`"`) || !strings.Contains(lines[i], `"raw":{`) || !strings.Contains(lines[i], `{"role":"user","content":"hi"}`) {
			t.Errorf("line %d: %s", i+1, lines[i])
		}
	}
}

// TestLLMRecordReplay records an agent's exchanges through "llm record"
// and serves them with "llm replay", which reports a request that does not
// match and an exchange never requested.
func TestLLMRecordReplay(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.yaml")
	os.WriteFile(script, []byte("turns:\n  - text: Hello.\n  - text: Bye.\n"), 0o644)
	upstream, stopUpstream := serveLLM(t, "serve", script)
	defer stopUpstream()
	rec := filepath.Join(dir, "llm.jsonl")
	proxy, stopProxy := serveLLM(t, "record", "--target", strings.TrimSuffix(upstream, "/v1"), "--out", rec)
	first := `{"model":"m","max_tokens":9,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	second := `{"model":"m","stream":true,"messages":[{"role":"user","content":"bye"}]}`
	_, live1 := postBody(t, strings.TrimSuffix(proxy, "/v1")+"/v1/messages", first)
	_, live2 := postBody(t, proxy+"/chat/completions", second)
	if code, stderr := stopProxy(); code != 0 {
		t.Fatalf("llm record: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(live1, "Hello.") || !strings.Contains(live2, "Bye.") {
		t.Fatalf("live: %s\n%s", live1, live2)
	}

	// The agent again, offline: the same answers, byte for byte.
	url, stop := serveLLM(t, "replay", rec)
	if _, got := postBody(t, url+"/chat/completions", second); got != live2 {
		t.Errorf("replayed\n%s\nlive\n%s", got, live2)
	}
	if _, got := postBody(t, strings.TrimSuffix(url, "/v1")+"/v1/messages", first); got != live1 {
		t.Errorf("replayed\n%s\nlive\n%s", got, live1)
	}
	if code, stderr := stop(); code != 0 || !strings.Contains(stderr, "2 requests, 2 of 2 exchanges used") {
		t.Errorf("exit %d\n%s", code, stderr)
	}

	// A new build that asks something else, once.
	url, stop = serveLLM(t, "replay", rec)
	postBody(t, url+"/chat/completions", strings.Replace(second, "bye", "ciao", 1))
	code, stderr := stop()
	for _, want := range []string{"request 1 does not match exchange 2", `"content": string("ciao")`, "exchange 1 of 2 (POST ", "/v1/messages, Anthropic Messages, line 2) was never requested"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
}
