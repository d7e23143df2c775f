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
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var stdout, stderr bytes.Buffer
	code := runLLM(ctx, []string{"serve", "--realtime", "--addr", "127.0.0.1:0", path}, &stdout, &stderr)
	if code != 1 || !strings.HasPrefix(stdout.String(), "http://127.0.0.1:") || !strings.Contains(stderr.String(), "0 of 1 turn used") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, &stdout, &stderr)
	}
}
