package sdktest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	. "github.com/aguitest/aguitest/scripted"
	"github.com/google/go-cmp/cmp"
	openai "github.com/openai/openai-go/v3"
)

// TestConversation runs a two-turn tool conversation with openai-go.
func TestConversation(t *testing.T) {
	s, err := Load("../../scripted/testdata/weather.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(s)
	defer srv.Close()
	c := openAIGoClient(srv.URL)
	params := openai.ChatCompletionNewParams{
		Model:    "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Paris and Rome?")},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name:       "get_weather",
			Parameters: openai.FunctionParameters{"type": "object"},
		})},
	}
	stream := c.Chat.Completions.NewStreaming(t.Context(), params)
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	calls := acc.Choices[0].Message.ToolCalls
	if len(calls) != 2 || calls[0].ID != "call_paris" || calls[1].Function.Arguments != `{"city":"Rome"}` {
		t.Fatalf("calls = %+v", calls)
	}
	params.Messages = append(params.Messages, acc.Choices[0].Message.ToParam())
	for _, call := range calls {
		params.Messages = append(params.Messages, openai.ToolMessage("18C", call.ID))
	}
	resp, err := c.Chat.Completions.New(t.Context(), params) // not streaming
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Message.Content; got != "Paris: 18°C and sunny. Rome: 24°C, clear." {
		t.Errorf("content = %q", got)
	}
	if resp.Usage.TotalTokens != 134 || resp.Model != "gpt-scripted" {
		t.Errorf("usage %+v, model %q", resp.Usage, resp.Model)
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[1].Messages) != 4 || reqs[1].Messages[1].Calls[1].ID != "call_rome" || reqs[1].Tools[0].Name != "get_weather" || reqs[0].Stream != true || reqs[1].Stream {
		t.Errorf("recorded requests: %+v", reqs)
	}
}

func TestNonStreaming(t *testing.T) {
	for _, tc := range planCases() {
		t.Run(tc.name, func(t *testing.T) {
			srv := NewServer(oneTurn(tc.plan))
			defer srv.Close()
			resp, err := goOpenAIClient(srv.URL).CreateChatCompletion(t.Context(), goopenai.ChatCompletionRequest{
				Model:    "m",
				Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "x"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			msg := resp.Choices[0].Message
			got := joined{Text: msg.Content, Reasoning: msg.ReasoningContent, Finish: string(resp.Choices[0].FinishReason)}
			for _, c := range msg.ToolCalls {
				got.Calls = append(got.Calls, Call{ID: c.ID, Name: c.Function.Name, Args: c.Function.Arguments})
			}
			if d := cmp.Diff(wantJoined(Plan{}), got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestMismatchOverHTTP(t *testing.T) {
	srv := NewServer(Script{Turns: []Turn{{Text: "x", Expect: Expect{LastUser: "weather"}}}})
	defer srv.Close()
	_, err := goOpenAIClient(srv.URL).CreateChatCompletion(t.Context(), goopenai.ChatCompletionRequest{
		Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "hello"}},
	})
	var apiErr *goopenai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 400 || !strings.Contains(apiErr.Message, `last_user: got "hello", want one containing "weather"`) {
		t.Errorf("err = %v, want a 400 showing the diff", err)
	}
	if err := srv.Check(); err == nil || !strings.Contains(err.Error(), "turn 1: the request does not match") {
		t.Errorf("Check() = %v", err)
	}
}

// TestWireDeterministic: the same script gives the same bytes every run.
func TestWireDeterministic(t *testing.T) {
	var bodies []string
	for range 2 {
		srv := NewServer(oneTurn(Plan{Split: Split{By: Random}, Order: Order{By: Shuffle}, Seed: 11}))
		resp, body := post(t, srv.URL+"/chat/completions", streamBody)
		srv.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		bodies = append(bodies, body)
	}
	if bodies[0] != bodies[1] {
		t.Errorf("two runs differ:\n%s", cmp.Diff(bodies[0], bodies[1]))
	}
	b := bodies[0]
	if !strings.HasPrefix(b, `data: {"id":"chatcmpl-scripted-0","object":"chat.completion.chunk","created":1735689600,"model":"m",`) ||
		!strings.Contains(b, `"delta":{"role":"assistant","reasoning_content":"`) ||
		!strings.HasSuffix(b, "\n\ndata: [DONE]\n\n") {
		t.Errorf("unexpected stream:\n%s", b)
	}
	// Every event is valid JSON.
	for _, ev := range strings.Split(strings.TrimSuffix(b, "\n\n"), "\n\n") {
		data := strings.TrimPrefix(ev, "data: ")
		if data != "[DONE]" && !json.Valid([]byte(data)) {
			t.Errorf("event is not JSON: %s", data)
		}
	}
}

func TestModels(t *testing.T) {
	srv := NewServer(Script{Model: "gpt-x", Turns: []Turn{{Text: "x"}}})
	defer srv.Close()
	c := openAIGoClient(srv.URL)
	page, err := c.Models.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 1 || page.Data[0].ID != "gpt-x" {
		t.Errorf("models = %+v", page.Data)
	}
}

// TestBadRequests: malformed requests get a 400 in the provider's error
// shape, and use up no turn.
func TestBadRequests(t *testing.T) {
	srv := NewServer(Script{Turns: []Turn{{Text: "x"}}})
	defer srv.Close()
	tests := []struct {
		name, method, path, body string
		status                   int
		message                  string
	}{
		{"not JSON", "POST", "/chat/completions", `{"messages":`, 400, "not a valid chat completions request"},
		{"no messages", "POST", "/chat/completions", `{"model":"m","messages":[]}`, 400, "'messages' must be a non-empty array"},
		{"messages wrong type", "POST", "/chat/completions", `{"messages":{"role":"user"}}`, 400, "not a valid chat completions request"},
		{"no role", "POST", "/chat/completions", `{"messages":[{"content":"x"}]}`, 400, "messages[0]: 'role' is missing"},
		{"content wrong type", "POST", "/chat/completions", `{"messages":[{"role":"user","content":42}]}`, 400, "messages[0].content"},
		{"wrong method", "GET", "/chat/completions", ``, 405, "Use POST"},
		{"unknown path", "POST", "/embeddings", `{}`, 404, "Unknown path /v1/embeddings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e struct {
				Error struct {
					Message, Type string
					Code          string
				}
			}
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
				t.Fatalf("body is not the error shape: %v", err)
			}
			if resp.StatusCode != tt.status || !strings.Contains(e.Error.Message, tt.message) || e.Error.Type != "invalid_request_error" {
				t.Errorf("got %d %+v, want %d with message containing %q", resp.StatusCode, e.Error, tt.status, tt.message)
			}
		})
	}
	if srv.Model().Used() != 0 {
		t.Errorf("bad requests used %d turns", srv.Model().Used())
	}
}

func TestStatusFaults(t *testing.T) {
	tests := []struct {
		name  string
		fault Fault
		code  string
	}{
		{"429", Fault{Kind: FaultStatus, Status: 429, RetryAfter: "7"}, "rate_limit_exceeded"},
		{"500", Fault{Kind: FaultStatus, Status: 500}, "server_error"},
		{"400", Fault{Kind: FaultStatus, Status: 400, Message: "context too long", Code: "context_length_exceeded"}, "context_length_exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := Script{Turns: []Turn{{Fault: &tt.fault}, {Fault: &tt.fault}, {Fault: &tt.fault}}}
			srv := NewServer(script)
			defer srv.Close()

			resp, body := post(t, srv.URL+"/chat/completions", streamBody)
			if resp.StatusCode != tt.fault.Status || resp.Header.Get("Retry-After") != tt.fault.RetryAfter || !strings.Contains(body, `"code":"`+tt.code+`"`) {
				t.Errorf("raw: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
			}

			_, err := openAIGo(t.Context(), srv.URL)
			var oe *openai.Error
			if !errors.As(err, &oe) || oe.StatusCode != tt.fault.Status || oe.Code != tt.code {
				t.Errorf("openai-go: %v, want status %d code %s", err, tt.fault.Status, tt.code)
			}

			_, err = goOpenAI(t.Context(), srv.URL)
			var ge *goopenai.APIError
			if !errors.As(err, &ge) || ge.HTTPStatusCode != tt.fault.Status || ge.Code != tt.code {
				t.Errorf("go-openai: %v, want status %d code %s", err, tt.fault.Status, tt.code)
			}
			if err := srv.Check(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestStreamFaults(t *testing.T) {
	tests := []struct {
		name  string
		fault Fault
	}{
		{"disconnect", Fault{Kind: FaultDisconnect, After: 3}},
		{"disconnect before any chunk", Fault{Kind: FaultDisconnect}},
		{"malformed", Fault{Kind: FaultMalformed, After: 2}},
		{"malformed data", Fault{Kind: FaultMalformed, After: 1, Data: "{not json}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := oneTurn(Plan{}).Turns[0]
			turn.Fault = &tt.fault
			srv := NewServer(Script{Turns: []Turn{turn, turn}})
			defer srv.Close()
			if _, err := openAIGo(t.Context(), srv.URL); err == nil {
				t.Error("openai-go read the stream without an error")
			}
			if _, err := goOpenAI(t.Context(), srv.URL); err == nil {
				t.Error("go-openai read the stream without an error")
			}
		})
	}
}

func TestDisconnectRaw(t *testing.T) {
	srv := NewServer(Script{Turns: []Turn{{Text: strings.Repeat("x", 40), Fault: &Fault{Kind: FaultDisconnect, After: 2}}}})
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(streamBody))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("read error %v, want io.ErrUnexpectedEOF", err)
	}
	if n := strings.Count(string(b), "data: "); n != 2 {
		t.Errorf("got %d events before the drop, want 2:\n%s", n, b)
	}
}

// TestStall: the stream stops after two chunks until the client gives up;
// nothing sleeps.
func TestStall(t *testing.T) {
	srv := NewServer(Script{Turns: []Turn{{Text: strings.Repeat("x", 40), Fault: &Fault{Kind: FaultStall, After: 2}}}})
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c := openAIGoClient(srv.URL)
	stream := c.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("x")},
	})
	n := 0
	for stream.Next() {
		n++
		if n == 2 {
			cancel() // the client's timeout, without waiting for one
		}
	}
	if n != 2 || !errors.Is(stream.Err(), context.Canceled) {
		t.Errorf("got %d chunks and %v, want 2 and context.Canceled", n, stream.Err())
	}
}

// TestStallReleasedByClose: closing the server ends a stalled stream.
func TestStallReleasedByClose(t *testing.T) {
	srv := NewServer(Script{Turns: []Turn{{Text: "abc", Fault: &Fault{Kind: FaultStall}}}})
	resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(streamBody))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	srv.Close() // must not hang
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Log("stream ended cleanly after close")
	}
}

func TestHandlerMounted(t *testing.T) {
	m := NewModel(Script{Turns: []Turn{{Text: "mounted"}}})
	mux := http.NewServeMux()
	mux.Handle("/llm/", http.StripPrefix("/llm", m.Handler()))
	ts := httptest.NewServer(mux)
	defer ts.Close()
	resp, err := goOpenAIClient(ts.URL+"/llm/v1").CreateChatCompletion(t.Context(), goopenai.ChatCompletionRequest{
		Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "x"}},
	})
	if err != nil || resp.Choices[0].Message.Content != "mounted" {
		t.Fatalf("got %+v, %v", resp, err)
	}
	if err := m.Check(); err != nil {
		t.Error(err)
	}
}

// TestMidRuneWire: cuts inside a character reach a JSON client whole.
func TestMidRuneWire(t *testing.T) {
	turn := Turn{Text: "é😀€", Calls: []Call{{Name: "f", Args: `{"s":"😀é"}`}}, Plan: Plan{Split: Split{Size: 1, MidRune: true}}}
	srv := NewServer(Script{Turns: []Turn{turn, turn}})
	defer srv.Close()
	_, body := post(t, srv.URL+"/chat/completions", streamBody)
	if strings.Contains(body, `\ufffd`) {
		t.Errorf("a cut character reached the wire:\n%s", body)
	}
	got, err := goOpenAI(t.Context(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "é😀€" || got.Calls[0].Args != `{"s":"😀é"}` {
		t.Errorf("got %+v", got)
	}
}

// TestDisconnectBeforeDone: a fault set past the last chunk drops the
// connection before "data: [DONE]".
func TestDisconnectBeforeDone(t *testing.T) {
	srv := NewServer(Script{Turns: []Turn{{Text: "abc", Fault: &Fault{Kind: FaultDisconnect, After: 99}}}})
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(streamBody))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(string(b), "[DONE]") || !strings.Contains(string(b), `"finish_reason":"stop"`) {
		t.Errorf("read %v:\n%s\nwant every chunk, no [DONE], then io.ErrUnexpectedEOF", err, b)
	}
}

// TestIDStylesOnWire checks the tool_calls deltas of each id style.
func TestIDStylesOnWire(t *testing.T) {
	tests := []struct {
		ids           IDStyle
		index, idEach bool
	}{
		{IDsFirst, true, false},
		{IDsEvery, true, true},
		{IDsNoIndex, false, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.ids), func(t *testing.T) {
			srv := NewServer(Script{Turns: []Turn{{Calls: []Call{{ID: "k", Name: "f", Args: `{"a":12345678}`}}, Plan: Plan{IDs: tt.ids}}}})
			defer srv.Close()
			_, body := post(t, srv.URL+"/chat/completions", streamBody)
			var deltas []string
			for _, ev := range strings.Split(body, "\n\n") {
				if _, d, ok := strings.Cut(ev, `"tool_calls":[`); ok {
					deltas = append(deltas, d)
				}
			}
			if len(deltas) != 3 {
				t.Fatalf("%d call deltas, want 3:\n%s", len(deltas), body)
			}
			for i, d := range deltas {
				if got := strings.Contains(d, `"index":0`); got != tt.index {
					t.Errorf("delta %d %s: index present %v, want %v", i, d, got, tt.index)
				}
				if got, want := strings.Contains(d, `"id":"k"`), i == 0 || tt.idEach; got != want {
					t.Errorf("delta %d %s: id present %v, want %v", i, d, got, want)
				}
				if got := strings.Contains(d, `"name":"f"`); got != (i == 0) {
					t.Errorf("delta %d %s: name present %v, want only on the first", i, d, got)
				}
			}
		})
	}
}

func TestNonStreamingFaults(t *testing.T) {
	for _, f := range []Fault{{Kind: FaultDisconnect}, {Kind: FaultMalformed}} {
		t.Run(string(f.Kind), func(t *testing.T) {
			srv := NewServer(Script{Turns: []Turn{{Text: "x", Fault: &f}}})
			defer srv.Close()
			_, err := goOpenAIClient(srv.URL).CreateChatCompletion(t.Context(), goopenai.ChatCompletionRequest{
				Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "x"}},
			})
			if err == nil {
				t.Error("go-openai got a completion, want an error")
			}
		})
	}
}
