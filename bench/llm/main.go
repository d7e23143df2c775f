// Command llm compares the chunk throughput of the scripted server with
// that of @copilotkit/aimock on the same script, read by the same client
// in one run. See README.md; run it with ./run.sh.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	openai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/aguitest/aguitest/scripted"
)

func main() {
	turns := flag.Int("turns", 200, "turns in the script")
	calls := flag.Int("calls", 3, "parallel calls per turn")
	frag := flag.Int("frag", 8, "fragment size in bytes")
	rounds := flag.Int("rounds", 3, "runs per server; the best is kept")
	aimockDir := flag.String("aimock", "node_modules/@copilotkit/aimock", "directory of the installed @copilotkit/aimock package")
	flag.Parse()
	if err := run(*turns, *calls, *frag, *rounds, *aimockDir); err != nil {
		fmt.Fprintln(os.Stderr, "llm bench:", err)
		os.Exit(1)
	}
}

// turn is one scripted answer: the user message that asks for it and the
// calls it answers with.
type turn struct {
	user  string
	calls []scripted.Call
}

func script(turns, calls int) []turn {
	out := make([]turn, turns)
	for i := range out {
		out[i].user = fmt.Sprintf("t%05d", i)
		for n := range calls {
			args := fmt.Sprintf(`{"turn":%d,"call":%d,"city":"Paris","days":[1,2,3],"note":%q}`, i, n, strings.Repeat("lorem ipsum dolor ", 8))
			out[i].calls = append(out[i].calls, scripted.Call{Name: fmt.Sprintf("tool_%d", n), Args: args})
		}
	}
	return out
}

func run(turns, calls, frag, rounds int, aimockDir string) error {
	ts := script(turns, calls)
	version, err := aimockVersion(aimockDir)
	if err != nil {
		return err
	}
	aimockURL, stop, err := startAimock(aimockDir, ts, frag)
	if err != nil {
		return err
	}
	defer stop()

	fmt.Printf("script: %d turns, %d parallel calls each, %d-byte fragments\n", turns, calls, frag)
	fmt.Printf("aimock: @copilotkit/aimock %s on node %s\n", version, nodeVersion())
	for _, reader := range []struct {
		name string
		read func(ctx context.Context, url string, t turn) (int, error)
	}{
		{"openai-go v3 streaming + ChatCompletionAccumulator", readOpenAIGo},
		{"raw SSE reader (net/http + bufio)", readRaw},
	} {
		var best [2]float64
		var counts [2]int
		for range rounds {
			for k := range 2 {
				url := aimockURL
				var srv *scripted.Server
				if k == 0 {
					srv = scripted.NewServer(scriptedScript(ts, frag))
					url = srv.URL
				}
				n, d, err := readAll(url, ts, reader.read)
				if srv != nil {
					srv.Close()
					if err == nil {
						err = srv.Check()
					}
				}
				if err != nil {
					return fmt.Errorf("%s, %s: %w", reader.name, []string{"scripted", "aimock"}[k], err)
				}
				counts[k] = n
				best[k] = max(best[k], float64(n)/d.Seconds())
			}
		}
		fmt.Printf("\nclient: %s (best of %d)\n", reader.name, rounds)
		fmt.Printf("  scripted  %8d chunks  %10.0f chunks/s\n", counts[0], best[0])
		fmt.Printf("  aimock    %8d chunks  %10.0f chunks/s\n", counts[1], best[1])
		fmt.Printf("  ratio scripted/aimock: %.2fx\n", best[0]/best[1])
	}
	return nil
}

func scriptedScript(ts []turn, frag int) scripted.Script {
	s := scripted.Script{Plan: scripted.Plan{Split: scripted.Split{By: scripted.Bytes, Size: frag}}}
	for _, t := range ts {
		s.Turns = append(s.Turns, scripted.Turn{Expect: scripted.Expect{LastUser: t.user}, Calls: t.calls})
	}
	return s
}

// readAll reads every turn in order and returns the chunks read.
func readAll(url string, ts []turn, read func(context.Context, string, turn) (int, error)) (int, time.Duration, error) {
	ctx := context.Background()
	start := time.Now()
	total := 0
	for _, t := range ts {
		n, err := read(ctx, url, t)
		if err != nil {
			return 0, 0, fmt.Errorf("turn %s: %w", t.user, err)
		}
		total += n
	}
	return total, time.Since(start), nil
}

var client = openai.NewClient(option.WithAPIKey("bench"), option.WithMaxRetries(0))

// readOpenAIGo streams one turn with openai-go and checks the reassembled
// calls.
func readOpenAIGo(ctx context.Context, url string, t turn) (int, error) {
	stream := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:    "gpt-4o",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(t.user)},
	}, option.WithBaseURL(url))
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	n := 0
	for stream.Next() {
		acc.AddChunk(stream.Current())
		n++
	}
	if err := stream.Err(); err != nil {
		return 0, err
	}
	if len(acc.Choices) != 1 {
		return 0, errors.New("no choice")
	}
	got := acc.Choices[0].Message.ToolCalls
	if len(got) != len(t.calls) {
		return 0, fmt.Errorf("%d calls, want %d", len(got), len(t.calls))
	}
	for i, c := range got {
		if c.Function.Name != t.calls[i].Name || c.Function.Arguments != t.calls[i].Args {
			return 0, fmt.Errorf("call %d: %s(%s), want %s(%s)", i, c.Function.Name, c.Function.Arguments, t.calls[i].Name, t.calls[i].Args)
		}
	}
	return n, nil
}

var raw = &http.Client{}

// readRaw streams one turn and counts the data events but [DONE].
func readRaw(ctx context.Context, url string, t turn) (int, error) {
	body, _ := json.Marshal(map[string]any{
		"model": "gpt-4o", "stream": true,
		"messages": []map[string]string{{"role": "user", "content": t.user}},
	})
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/chat/completions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := raw.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return 0, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.HasPrefix(line, []byte("data: ")) && !bytes.Equal(line, []byte("data: [DONE]")) {
			n++
		}
	}
	return n, sc.Err()
}

// startAimock writes the script as aimock fixtures, one per turn matched
// by its user message, and starts aimock's CLI on a free loopback port.
func startAimock(dir string, ts []turn, frag int) (string, func(), error) {
	type toolCall struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type fixture struct {
		Match    map[string]string `json:"match"`
		Response struct {
			ToolCalls []toolCall `json:"toolCalls"`
		} `json:"response"`
	}
	var fx struct {
		Fixtures []fixture `json:"fixtures"`
	}
	for _, t := range ts {
		f := fixture{Match: map[string]string{"userMessage": t.user}}
		for _, c := range t.calls {
			f.Response.ToolCalls = append(f.Response.ToolCalls, toolCall{c.Name, c.Args})
		}
		fx.Fixtures = append(fx.Fixtures, f)
	}
	tmp, err := os.MkdirTemp("", "aimock-bench")
	if err != nil {
		return "", nil, err
	}
	path := filepath.Join(tmp, "bench.fixture.json")
	b, _ := json.Marshal(fx)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return "", nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("node", filepath.Join(dir, "dist/cli.js"),
		"--host", "127.0.0.1", "--port", fmt.Sprint(port), "--fixtures", path,
		"--chunk-size", fmt.Sprint(frag), "--log-level", "silent")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting aimock (run npm ci in bench/llm first): %w", err)
	}
	stop := func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		os.RemoveAll(tmp)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/v1", port)
	for deadline := time.Now().Add(20 * time.Second); ; {
		resp, err := http.Get(url + "/models")
		if err == nil {
			resp.Body.Close()
			return url, stop, nil
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Errorf("aimock did not start: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func aimockVersion(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", fmt.Errorf("aimock is not installed (run npm ci in bench/llm): %w", err)
	}
	var p struct{ Version string }
	if err := json.Unmarshal(b, &p); err != nil {
		return "", err
	}
	return p.Version, nil
}

func nodeVersion() string {
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}
