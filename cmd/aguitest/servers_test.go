package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fifo makes a named pipe no one writes to: opening it blocks.
func fifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	t.Cleanup(func() {
		// Release the goroutine still opening it.
		if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return p
}

// TestServersInterruptedWhileLoading: Ctrl-C while serve, llm serve or
// llm replay reads its input (a FIFO no one writes to, which needed
// SIGKILL) ends the command at once, exit 130.
func TestServersInterruptedWhileLoading(t *testing.T) {
	for _, tt := range []struct {
		name string
		run  func(ctx context.Context, args []string, stdout, stderr io.Writer) int
		args []string
	}{
		{"serve", runServe, []string{}},
		{"llm serve", runLLM, []string{"serve"}},
		{"llm replay", runLLM, []string{"replay"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			code := make(chan int, 1)
			var stderr syncBuffer
			go func() { code <- tt.run(ctx, append(tt.args, fifo(t)), io.Discard, &stderr) }()
			// Opening the FIFO blocks until a writer comes, which none
			// does: without the interrupt the command never returns.
			cancel()
			if c := <-code; c != exitInterrupted || !strings.Contains(stderr.String(), "interrupted while reading") {
				t.Errorf("exit %d, stderr %q", c, stderr.String())
			}
		})
	}
}

// TestServersRefuseEndlessInput: /dev/zero is refused at once as a
// recording (serve ran 10 minutes) and as a script (llm serve read 2 GB).
func TestServersRefuseEndlessInput(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, tt := range []struct {
		name string
		run  func(ctx context.Context, args []string, stdout, stderr io.Writer) int
		args []string
		want string
	}{
		{"serve", runServe, []string{"/dev/zero"}, "not an aguitest recording"},
		{"llm replay", runLLM, []string{"replay", "/dev/zero"}, "not an aguitest recording"},
		{"llm serve", runLLM, []string{"serve", "/dev/zero"}, "larger than 64 MiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := tt.run(t.Context(), tt.args, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q", code, stderr.String())
			}
		})
	}
}

// TestServeLimitsAndCORS: request bodies over the limit get 413, and no
// web page may read recordings unless its origin is allowed (serve used to
// answer Access-Control-Allow-Origin: * to any page).
func TestServeLimitsAndCORS(t *testing.T) {
	rec := "../../recorder/testdata/weather.jsonl"
	post := func(url, origin string, body []byte) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}

	url, stop, _ := startServing(t, runServe, "--speed", "0", "--loop", "--max-request-bytes", "1000", rec)
	resp, body := post(url, "", bytes.Repeat([]byte(" "), 2000))
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "larger than 1000 bytes") {
		t.Errorf("a large body: %d %q", resp.StatusCode, body)
	}
	resp, body = post(url, "https://evil.example", []byte(`{}`))
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" || strings.Contains(body, "RUN_STARTED") {
		t.Errorf("a page of another origin: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	resp, body = post(url, "", []byte(`{}`))
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "" || !strings.Contains(body, "RUN_FINISHED") {
		t.Errorf("a client that is no browser: %d %v", resp.StatusCode, resp.Header)
	}
	stop()

	url, stop, _ = startServing(t, runServe, "--speed", "0", "--loop", "--allow-origin", "http://localhost:3000", rec)
	defer stop()
	pre, _ := http.NewRequest("OPTIONS", url, nil)
	pre.Header.Set("Origin", "http://localhost:3000")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	pre.Header.Set("Access-Control-Request-Headers", "content-type")
	presp, err := http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	presp.Body.Close()
	if presp.StatusCode != http.StatusNoContent || presp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" || presp.Header.Get("Access-Control-Allow-Headers") != "content-type" {
		t.Errorf("preflight of an allowed origin: %d %v", presp.StatusCode, presp.Header)
	}
	resp, body = post(url, "http://localhost:3000", []byte(`{}`))
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" || !strings.Contains(body, "RUN_FINISHED") {
		t.Errorf("an allowed origin: %d %v", resp.StatusCode, resp.Header)
	}
	if resp, _ := post(url, "http://localhost:3001", []byte(`{}`)); resp.StatusCode != http.StatusForbidden {
		t.Errorf("another origin: %d", resp.StatusCode)
	}
}

// TestLLMServeLimits: a request body over 32 MiB gets 413 on every wire,
// and is reported; requests are not kept for the life of the server.
func TestLLMServeLimits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(path, []byte(`{"turns":[{"text":"x"}]}`), 0o644)
	url, stop := serveLLM(t, "serve", path)
	big := append([]byte(`{"model":"m","messages":[{"role":"user","content":"`), bytes.Repeat([]byte("a"), 33<<20)...)
	big = append(big, `"}]}`...)
	resp, err := http.Post(url+"/chat/completions", "application/json", bytes.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "larger than") {
		t.Errorf("got %d %s", resp.StatusCode, b)
	}
	code, stderr := stop()
	if code != 1 || !strings.Contains(stderr, "413") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}
