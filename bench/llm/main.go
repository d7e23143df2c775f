// Command llm compares the chunk throughput of the scripted server with
// that of @copilotkit/aimock on the same script, on every provider wire
// (OpenAI Chat Completions and Responses, Anthropic Messages, Gemini),
// read by the same clients in one run. See README.md; run it with
// ./run.sh.
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

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	openai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/aguitest/aguitest/scripted"
)

func main() {
	turns := flag.Int("turns", 200, "turns in the script")
	calls := flag.Int("calls", 3, "parallel calls per turn")
	frag := flag.Int("frag", 8, "fragment size in bytes")
	rounds := flag.Int("rounds", 4, "runs per server; the best is kept")
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

// A reader reads one turn from a server's root URL (no /v1) and returns
// the chunks it read, checking the calls it reassembled.
type reader struct {
	name string
	read func(ctx context.Context, root string, t turn) (int, error)
}

// A wire is one provider protocol and the clients that read it.
type wire struct {
	name    string
	readers []reader
}

func wires() []wire {
	return []wire{
		{"OpenAI Chat Completions", []reader{
			{"openai-go v3 streaming + ChatCompletionAccumulator", readOpenAIGo},
			{"raw SSE reader (net/http + bufio)", rawReader("/v1/chat/completions", chatBody)},
		}},
		{"OpenAI Responses", []reader{
			{"openai-go v3 Responses streaming", readResponsesGo},
			{"raw SSE reader (net/http + bufio)", rawReader("/v1/responses", responsesBody)},
		}},
		{"Anthropic Messages", []reader{
			{"anthropic-sdk-go v2 streaming + Message.Accumulate", readAnthropicGo},
			{"raw SSE reader (net/http + bufio)", rawReader("/v1/messages", anthropicBody)},
		}},
		{"Gemini", []reader{
			{"google.golang.org/genai GenerateContentStream", readGenai},
			{"raw SSE reader (net/http + bufio)", rawReader("/v1beta/models/gemini-test:streamGenerateContent?alt=sse", geminiBody)},
		}},
		{"Azure OpenAI Chat Completions", []reader{
			{"raw SSE reader (net/http + bufio)", rawReader("/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21", chatBody)},
		}},
		{"Vertex AI Gemini", []reader{
			{"raw SSE reader (net/http + bufio)", rawReader("/v1/projects/p/locations/us-central1/publishers/google/models/gemini-test:streamGenerateContent?alt=sse", geminiBody)},
		}},
		{"Bedrock ConverseStream", []reader{
			{"aws-sdk-go-v2 bedrockruntime ConverseStream", readBedrockGo},
			{"raw eventstream reader (net/http + frames)", rawEventstream},
		}},
		{"Ollama", []reader{
			{"ollama/api Client.Chat", readOllamaGo},
			{"raw NDJSON reader (net/http + bufio)", rawNDJSON},
		}},
	}
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
	fmt.Printf("\n| wire | client | scripted chunks/s | aimock chunks/s | ratio | scripted turns/s | aimock turns/s | ratio |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, w := range wires() {
		for _, rd := range w.readers {
			var best, bestTurns [2]float64
			var counts [2]int
			for r := range rounds {
				// Alternate which server goes first, so that neither gets
				// the warmer machine every time.
				for _, k := range [][]int{{0, 1}, {1, 0}}[r%2] {
					root := strings.TrimSuffix(aimockURL, "/v1")
					var srv *scripted.Server
					if k == 0 {
						srv = scripted.NewServer(scriptedScript(ts, frag))
						root = strings.TrimSuffix(srv.URL, "/v1")
					}
					n, d, err := readAll(root, ts, rd.read)
					if srv != nil {
						srv.Close()
						if err == nil {
							err = srv.Check()
						}
					}
					if err != nil {
						return fmt.Errorf("%s, %s, %s: %w", w.name, rd.name, []string{"scripted", "aimock"}[k], err)
					}
					counts[k] = n
					best[k] = max(best[k], float64(n)/d.Seconds())
					bestTurns[k] = max(bestTurns[k], float64(len(ts))/d.Seconds())
				}
			}
			fmt.Printf("| %s | %s | %.0f (%d chunks) | %.0f (%d chunks) | %.2fx | %.0f | %.0f | %.2fx |\n",
				w.name, rd.name, best[0], counts[0], best[1], counts[1], best[0]/best[1], bestTurns[0], bestTurns[1], bestTurns[0]/bestTurns[1])
		}
	}
	fmt.Printf("\nbest of %d runs per server; chunks are the events each client read\n", rounds)
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
func readAll(root string, ts []turn, read func(context.Context, string, turn) (int, error)) (int, time.Duration, error) {
	ctx := context.Background()
	start := time.Now()
	total := 0
	for _, t := range ts {
		n, err := read(ctx, root, t)
		if err != nil {
			return 0, 0, fmt.Errorf("turn %s: %w", t.user, err)
		}
		total += n
	}
	return total, time.Since(start), nil
}

// checkCalls compares reassembled calls with the turn's, as name and
// arguments text (canonical JSON when canon is set, for clients that hand
// arguments out as objects).
func checkCalls(t turn, names, args []string, canon bool) error {
	if len(names) != len(t.calls) {
		return fmt.Errorf("%d calls, want %d", len(names), len(t.calls))
	}
	for i, c := range t.calls {
		want := c.Args
		if canon {
			want = canonical(want)
		}
		if names[i] != c.Name || args[i] != want {
			return fmt.Errorf("call %d: %s(%s), want %s(%s)", i, names[i], args[i], c.Name, want)
		}
	}
	return nil
}

func canonical(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

var client = openai.NewClient(option.WithAPIKey("bench"), option.WithMaxRetries(0))

// readOpenAIGo streams one turn with openai-go and checks the reassembled
// calls.
func readOpenAIGo(ctx context.Context, root string, t turn) (int, error) {
	stream := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:    "gpt-4o",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(t.user)},
	}, option.WithBaseURL(root+"/v1"))
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
	var names, args []string
	for _, c := range acc.Choices[0].Message.ToolCalls {
		names, args = append(names, c.Function.Name), append(args, c.Function.Arguments)
	}
	return n, checkCalls(t, names, args, false)
}

// readResponsesGo streams one turn with openai-go's Responses API,
// reassembling the arguments from the deltas by item id.
func readResponsesGo(ctx context.Context, root string, t turn) (int, error) {
	stream := client.Responses.NewStreaming(ctx, responses.ResponseNewParams{
		Model: "gpt-4o",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(t.user)},
	}, option.WithBaseURL(root+"/v1"))
	defer stream.Close()
	n := 0
	var ids, names []string
	args := map[string]string{}
	for stream.Next() {
		ev := stream.Current()
		n++
		switch ev.Type {
		case "response.output_item.added":
			if ev.Item.Type == "function_call" {
				ids, names = append(ids, ev.Item.ID), append(names, ev.Item.Name)
			}
		case "response.function_call_arguments.delta":
			args[ev.ItemID] += ev.Delta
		}
	}
	if err := stream.Err(); err != nil {
		return 0, err
	}
	var got []string
	for _, id := range ids {
		got = append(got, args[id])
	}
	return n, checkCalls(t, names, got, false)
}

var anthropicClient = anthropic.NewClient(aoption.WithAPIKey("bench"), aoption.WithMaxRetries(0))

// readAnthropicGo streams one turn with anthropic-sdk-go and its message
// accumulation.
func readAnthropicGo(ctx context.Context, root string, t turn) (int, error) {
	stream := anthropicClient.Messages.NewStreaming(ctx, anthropic.MessageNewParams{
		Model: "claude-test", MaxTokens: 4096,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(t.user))},
	}, aoption.WithBaseURL(root))
	defer stream.Close()
	var msg anthropic.Message
	n := 0
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			return 0, err
		}
		n++
	}
	if err := stream.Err(); err != nil {
		return 0, err
	}
	var names, args []string
	for _, b := range msg.Content {
		if b.Type == "tool_use" {
			names, args = append(names, b.Name), append(args, string(b.Input))
		}
	}
	return n, checkCalls(t, names, args, false)
}

var genaiClients = map[string]*genai.Client{}

// readGenai streams one turn with genai; calls arrive whole, as objects.
func readGenai(ctx context.Context, root string, t turn) (int, error) {
	c, ok := genaiClients[root]
	if !ok {
		var err error
		c, err = genai.NewClient(ctx, &genai.ClientConfig{APIKey: "bench", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: root}})
		if err != nil {
			return 0, err
		}
		genaiClients[root] = c
	}
	n := 0
	var names, args []string
	for resp, err := range c.Models.GenerateContentStream(ctx, "gemini-test", genai.Text(t.user), nil) {
		if err != nil {
			return 0, err
		}
		n++
		for _, fc := range resp.FunctionCalls() {
			b, _ := json.Marshal(fc.Args)
			names, args = append(names, fc.Name), append(args, string(b))
		}
	}
	return n, checkCalls(t, names, args, true)
}

var raw = &http.Client{}

// Request bodies of the raw reader, per wire.
func chatBody(u string) any {
	return map[string]any{"model": "gpt-4o", "stream": true, "messages": []map[string]string{{"role": "user", "content": u}}}
}
func responsesBody(u string) any {
	return map[string]any{"model": "gpt-4o", "stream": true, "input": u}
}
func anthropicBody(u string) any {
	return map[string]any{"model": "claude-test", "max_tokens": 4096, "stream": true, "messages": []map[string]string{{"role": "user", "content": u}}}
}
func geminiBody(u string) any {
	return map[string]any{"contents": []map[string]any{{"role": "user", "parts": []map[string]string{{"text": u}}}}}
}

// rawReader streams one turn with net/http and counts the data lines,
// but "[DONE]".
func rawReader(path string, body func(user string) any) func(context.Context, string, turn) (int, error) {
	return func(ctx context.Context, root string, t turn) (int, error) {
		b, _ := json.Marshal(body(t.user))
		req, _ := http.NewRequestWithContext(ctx, "POST", root+path, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Api-Key", "bench") // Azure's
		req.Header.Set("Authorization", "Bearer bench")
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
