package scripted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/internal/eventstream"
)

// Request bodies of one user message, per wire and path.
var wireRequests = []struct {
	wire       Wire
	path       string
	stream     string // a body asking for a stream
	whole      string // a body asking for one response
	streamPath string // when the wire streams on a path of its own
}{
	{WireChat, "/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, ""},
	{WireResponses, "/responses", `{"model":"m","stream":true,"input":"hi"}`, `{"model":"m","input":"hi"}`, ""},
	{WireAnthropic, "/v1/messages", `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`, ""},
	{WireGemini, "/v1beta/models/m:generateContent", "", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, "/v1beta/models/m:streamGenerateContent?alt=sse"},
	{WireAzureChat, "/openai/deployments/d/chat/completions?api-version=2024-10-21", `{"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`, `{"messages":[{"role":"user","content":"hi"}]}`, ""},
	{WireAzureResponses, "/openai/v1/responses", `{"model":"d","stream":true,"input":"hi"}`, `{"model":"d","input":"hi"}`, ""},
	{WireVertex, "/v1/projects/p/locations/us-central1/publishers/google/models/m:generateContent", "", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, "/v1/projects/p/locations/us-central1/publishers/google/models/m:streamGenerateContent?alt=sse"},
	{WireBedrock, "/model/m/converse", "", `{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`, "/model/m/converse-stream"},
	{WireOllama, "/api/chat", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, `{"model":"m","stream":false,"messages":[{"role":"user","content":"hi"}]}`, ""},
}

// streamRequest returns the path and body of a streaming request on w.
func streamRequest(w Wire) (path, body string) {
	for _, r := range wireRequests {
		if r.wire == w {
			if r.streamPath != "" {
				return r.streamPath, r.whole
			}
			return r.path, r.stream
		}
	}
	panic("no request for wire " + w)
}

// wholeRequest returns the path and body of a request on w that does not
// stream.
func wholeRequest(w Wire) (path, body string) {
	for _, r := range wireRequests {
		if r.wire == w {
			return r.path, r.whole
		}
	}
	panic("no request for wire " + w)
}

// base returns the server's root URL, without /v1.
func base(srv *Server) string { return strings.TrimSuffix(srv.URL, "/v1") }

// checkRawGolden compares got with testdata/wires/name.golden, rewriting
// it under -update.
func checkRawGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "wires", name+".golden")
	if golden.Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to write it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs; run go test with -update to accept (-want +got):\n%s", path, cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")))
	}
}

// TestWireGoldens: the bytes of each wire, streaming and not, for a turn
// with reasoning, text and two calls; reviewed once against the
// providers' references and the SDKs' parsers, then kept.
func TestWireGoldens(t *testing.T) {
	turn := Turn{Reasoning: "Two cities.", Text: "Checking é.", Calls: []Call{{ID: "a", Name: "get_weather", Args: `{"city":"Paris"}`}, {Name: "noop"}},
		Plan: Plan{Split: Split{Size: 6}}}
	for _, wr := range wireRequests {
		for _, stream := range []bool{true, false} {
			name := string(wr.wire) + "-whole"
			path, body := wholeRequest(wr.wire)
			if stream {
				name = string(wr.wire) + "-stream"
				path, body = streamRequest(wr.wire)
			}
			t.Run(name, func(t *testing.T) {
				var bodies []string
				for range 2 {
					srv := NewServer(Script{Turns: []Turn{turn}})
					resp, got := post(t, base(srv)+"/v1"+strings.TrimPrefix(path, "/v1"), body)
					if resp.StatusCode != 200 {
						t.Fatalf("status %d: %s", resp.StatusCode, got)
					}
					if err := srv.Check(); err != nil {
						t.Error(err)
					}
					srv.Close()
					if wr.wire == WireBedrock && stream {
						got = eventstreamText(t, []byte(got))
					}
					bodies = append(bodies, resp.Header.Get("Content-Type")+"\n"+got)
				}
				if bodies[0] != bodies[1] {
					t.Errorf("two runs differ:\n%s", cmp.Diff(bodies[0], bodies[1]))
				}
				checkRawGolden(t, name, []byte(bodies[0]))
			})
		}
	}
}

// eventstreamText writes each message of an event stream on a line of its
// own, its headers and then its payload, for a golden file to review.
func eventstreamText(t *testing.T, b []byte) string {
	t.Helper()
	var out strings.Builder
	for len(b) > 0 {
		m, n, err := eventstream.Decode(b)
		if err != nil {
			t.Fatalf("%v after:\n%s", err, out.String())
		}
		fmt.Fprintf(&out, "%s %s\n", m.String(), m.Payload)
		b = b[n:]
	}
	return out.String()
}

// TestGeminiJSONArray: streamGenerateContent without alt=sse streams a
// JSON array of the chunks, as Gemini does.
func TestGeminiJSONArray(t *testing.T) {
	srv := NewServer(Script{Turns: []Turn{{Text: "Hello there", Plan: Plan{Split: Split{Size: 4}}}}})
	defer srv.Close()
	resp, body := post(t, base(srv)+"/v1/models/m:streamGenerateContent", `{"contents":[{"parts":[{"text":"hi"}]}]}`)
	var chunks []struct {
		Candidates []struct {
			Content      struct{ Parts []struct{ Text string } }
			FinishReason string
		}
	}
	if err := json.Unmarshal([]byte(body), &chunks); err != nil || resp.Header.Get("Content-Type") != "application/json; charset=UTF-8" {
		t.Fatalf("%v, %s:\n%s", err, resp.Header.Get("Content-Type"), body)
	}
	text := ""
	for _, c := range chunks {
		text += c.Candidates[0].Content.Parts[0].Text
	}
	if text != "Hello there" || len(chunks) != 4 || chunks[3].Candidates[0].FinishReason != "STOP" {
		t.Errorf("chunks %+v", chunks)
	}
}

// TestProviderRejects: a conversation the provider would refuse gets its
// 400 with its own error text, uses no turn, and is reported by Check.
func TestProviderRejects(t *testing.T) {
	tests := []struct {
		name, path, body string
		message          string // the provider's text, in full
		param            string // OpenAI's param
	}{
		{
			// CopilotKit's BuiltInAgent split one turn whose call came before
			// its text into two assistant messages (@copilotkit/runtime 1.75).
			name: "chat: tool result after a split assistant turn (CopilotKit)", path: "/v1/chat/completions",
			body:    `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"assistant","content":"Done."},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`,
			message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", param: "messages.[3].role",
		},
		{
			name: "chat: a call without a result", path: "/v1/chat/completions",
			body:    `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"},{"role":"user","content":"and?"}]}`,
			message: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: c2", param: "messages.[3].role",
		},
		{
			name: "chat: a result for another call", path: "/v1/chat/completions",
			body:    `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c9","content":"ok"}]}`,
			message: "Invalid parameter: 'tool_call_id' of 'c9' not found in 'tool_calls' of previous message.", param: "messages.[2].tool_call_id",
		},
		{
			name: "chat: unknown role", path: "/v1/chat/completions",
			body:    `{"model":"m","messages":[{"role":"ai","content":"hi"}]}`,
			message: "Invalid value: 'ai'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", param: "messages[0].role",
		},
		{
			name: "responses: output without its call", path: "/v1/responses",
			body:    `{"model":"m","input":[{"role":"user","content":"go"},{"type":"function_call_output","call_id":"c1","output":"ok"}]}`,
			message: "No tool call found for function call output with call_id c1.", param: "input",
		},
		{
			name: "responses: a call without its output", path: "/v1/responses",
			body:    `{"model":"m","input":[{"role":"user","content":"go"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"role":"user","content":"and?"}]}`,
			message: "No tool output found for function call c1.", param: "input",
		},
		{
			name: "responses: a tool role", path: "/v1/responses",
			body:    `{"model":"m","input":[{"role":"tool","content":"ok"}]}`,
			message: "Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", param: "input[0]",
		},
		{
			name: "responses: an unknown previous response", path: "/v1/responses",
			body:    `{"model":"m","previous_response_id":"resp_x","input":"hi"}`,
			message: "Previous response with id 'resp_x' not found.", param: "previous_response_id",
		},
		{
			name: "anthropic: a result without its call", path: "/v1/messages",
			body:    `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`,
			message: "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
		},
		{
			name: "anthropic: a call without its result", path: "/v1/messages",
			body:    `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}},{"type":"tool_use","id":"toolu_2","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`,
			message: "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
		},
		{
			name: "anthropic: thinking dropped before tool results", path: "/v1/messages",
			body:    `{"model":"m","max_tokens":9,"thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"text","text":"Checking."},{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`,
			message: "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). To avoid this requirement, disable `thinking`.",
		},
		{
			name: "anthropic: a system role", path: "/v1/messages",
			body:    `{"model":"m","max_tokens":9,"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]}`,
			message: "messages.0.role: Input should be 'user' or 'assistant'",
		},
		{
			name: "anthropic: empty content", path: "/v1/messages",
			body:    `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":""},{"role":"assistant","content":"x"}]}`,
			message: "messages.0: all messages must have non-empty content except for the optional final assistant message",
		},
		{
			name: "gemini: a response without its call", path: "/v1beta/models/m:generateContent",
			body:    `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`,
			message: "Please ensure that function response turn comes immediately after a function call turn.",
		},
		{
			name: "gemini: fewer responses than calls", path: "/v1beta/models/m:generateContent",
			body:    `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}},{"functionCall":{"name":"g","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`,
			message: "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
		},
		{
			name: "gemini: a call after a model turn", path: "/v1beta/models/m:generateContent",
			body:    `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"text":"Sure."}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`,
			message: "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
		},
		{
			name: "gemini: unknown role", path: "/v1beta/models/m:generateContent",
			body:    `{"contents":[{"role":"assistant","parts":[{"text":"hi"}]}]}`,
			message: "Please use a valid role: user, model.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(Script{Turns: []Turn{{Text: "x"}}})
			defer srv.Close()
			resp, body := post(t, base(srv)+tt.path, tt.body)
			if resp.StatusCode != 400 {
				t.Fatalf("status %d, want 400: %s", resp.StatusCode, body)
			}
			var e struct {
				Type  string
				Error struct {
					Message, Type, Status string
					Param                 *string
					Code                  any
				}
			}
			if err := json.Unmarshal([]byte(body), &e); err != nil {
				t.Fatal(err)
			}
			if e.Error.Message != tt.message {
				t.Errorf("message\n got %q\nwant %q", e.Error.Message, tt.message)
			}
			switch w := Wire(wireOfPath(tt.path)); w {
			case WireChat, WireResponses:
				if e.Error.Type != "invalid_request_error" || e.Error.Param == nil || *e.Error.Param != tt.param {
					t.Errorf("type %q param %v, want invalid_request_error %q", e.Error.Type, e.Error.Param, tt.param)
				}
			case WireAnthropic:
				if e.Type != "error" || e.Error.Type != "invalid_request_error" {
					t.Errorf("type %q error.type %q", e.Type, e.Error.Type)
				}
			case WireGemini:
				if e.Error.Status != "INVALID_ARGUMENT" {
					t.Errorf("status %q", e.Error.Status)
				}
			}
			if srv.Model().Used() != 0 {
				t.Error("a refused request used a turn")
			}
			err := srv.Check()
			if err == nil || !strings.Contains(err.Error(), "refused as the provider would refuse it: 400 "+tt.message) {
				t.Errorf("Check() = %v, want the refusal", err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Error == "" || string(reqs[0].Body) != tt.body {
				t.Errorf("requests %+v", reqs)
			}
		})
	}
}

func wireOfPath(p string) Wire {
	for _, w := range Wires {
		for _, r := range wireRequests {
			if r.wire == w && (strings.HasSuffix(p, strings.TrimPrefix(r.path, "/v1")) || strings.Contains(p, ":generateContent") && w == WireGemini) {
				return w
			}
		}
	}
	return ""
}

// TestAccepted: conversations every provider accepts (the Anthropic API
// combines consecutive turns of one role, so the split turn of the
// CopilotKit case is fine there).
func TestAccepted(t *testing.T) {
	tests := []struct{ name, path, body string }{
		{"chat: parallel results", "/v1/chat/completions", `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"go"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c2","content":"ok"},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`},
		{"anthropic: split assistant turn", "/v1/messages", `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},{"role":"assistant","content":"Done."},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`},
		{"anthropic: prefill", "/v1/messages", `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":""}]}`},
		{"anthropic: thinking kept before tool results", "/v1/messages", `{"model":"m","max_tokens":9,"thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`},
		{"responses: call and output", "/v1/responses", `{"model":"m","input":[{"role":"user","content":"go"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]},{"type":"function_call_output","call_id":"c1","output":"ok"}]}`},
		{"gemini: call and response", "/v1beta/models/m:generateContent", `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(Script{Turns: []Turn{{Text: "x"}}})
			defer srv.Close()
			resp, body := post(t, base(srv)+tt.path, tt.body)
			if resp.StatusCode != 200 {
				t.Errorf("status %d: %s", resp.StatusCode, body)
			}
			if err := srv.Check(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestNeutralRequests: the same conversation, sent on every wire, reads
// the same in the neutral form.
func TestNeutralRequests(t *testing.T) {
	bodies := map[Wire]string{
		WireChat: `{"model":"m","temperature":0.5,"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}],"messages":[
			{"role":"system","content":"Be brief."},{"role":"user","content":"Paris?"},
			{"role":"assistant","content":"Checking.","tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
			{"role":"tool","tool_call_id":"c1","content":"sunny"}]}`,
		WireResponses: `{"model":"m","temperature":0.5,"instructions":"Be brief.","tools":[{"type":"function","name":"get_weather","parameters":{"type":"object"}}],"input":[
			{"role":"user","content":[{"type":"input_text","text":"Paris?"}]},
			{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Checking."}]},
			{"type":"function_call","call_id":"c1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},
			{"type":"function_call_output","call_id":"c1","output":"sunny"}]}`,
		WireAnthropic: `{"model":"m","temperature":0.5,"max_tokens":9,"system":[{"type":"text","text":"Be brief."}],"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[
			{"role":"user","content":"Paris?"},
			{"role":"assistant","content":[{"type":"text","text":"Checking."},{"type":"tool_use","id":"c1","name":"get_weather","input":{"city": "Paris"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"sunny"}]}]}]}`,
		WireGemini: `{"generationConfig":{"temperature":0.5},"systemInstruction":{"parts":[{"text":"Be brief."}]},"tools":[{"functionDeclarations":[{"name":"get_weather","parameters":{"type":"object"}}]}],"contents":[
			{"role":"user","parts":[{"text":"Paris?"}]},
			{"role":"model","parts":[{"text":"Checking."},{"functionCall":{"id":"c1","name":"get_weather","args":{"city":"Paris"}}}]},
			{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"get_weather","response":"sunny"}}]}]}`,
	}
	bodies[WireAzureChat] = bodies[WireChat]
	bodies[WireAzureResponses] = bodies[WireResponses]
	bodies[WireVertex] = bodies[WireGemini]
	bodies[WireBedrock] = `{"inferenceConfig":{"temperature":0.5},"system":[{"text":"Be brief."}],"toolConfig":{"tools":[{"toolSpec":{"name":"get_weather","inputSchema":{"json":{"type":"object"}}}}]},"messages":[
			{"role":"user","content":[{"text":"Paris?"}]},
			{"role":"assistant","content":[{"text":"Checking."},{"toolUse":{"toolUseId":"c1","name":"get_weather","input":{"city":"Paris"}}}]},
			{"role":"user","content":[{"toolResult":{"toolUseId":"c1","content":[{"text":"sunny"}]}}]}]}`
	bodies[WireOllama] = `{"model":"m","stream":false,"options":{"temperature":0.5},"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}],"messages":[
			{"role":"system","content":"Be brief."},{"role":"user","content":"Paris?"},
			{"role":"assistant","content":"Checking.","tool_calls":[{"id":"c1","function":{"name":"get_weather","arguments":{"city":"Paris"}}}]},
			{"role":"tool","tool_name":"get_weather","content":"sunny"}]}`
	want := []Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "Paris?"},
		{Role: "assistant", Content: "Checking.", Calls: []Call{{ID: "c1", Name: "get_weather", Args: `{"city":"Paris"}`}}},
		{Role: "tool", ToolCallID: "c1", Content: "sunny"},
	}
	expect := Expect{Messages: 4, LastUser: "Paris", ToolResults: []string{"c1"}, Tools: []string{"get_weather"}}
	for _, w := range Wires {
		t.Run(string(w), func(t *testing.T) {
			srv := NewServer(Script{Turns: []Turn{{Expect: expect, Text: "Sunny."}}})
			defer srv.Close()
			path, _ := wholeRequest(w)
			resp, body := post(t, base(srv)+path, bodies[w])
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			if err := srv.Check(); err != nil {
				t.Error(err)
			}
			req := srv.Requests()[0]
			msgs := req.Messages
			if w == WireOllama {
				msgs[3].Name = "" // Ollama names the tool of a result
			}
			if w.base() == WireGemini {
				msgs[3].Name = "" // Gemini names the function of a response
				msgs[3].Content = strings.Trim(msgs[3].Content, `"`)
			}
			if d := cmp.Diff(want, msgs); d != "" {
				t.Errorf("messages (-want +got):\n%s", d)
			}
			if req.System != "Be brief." || req.Wire != w || len(req.Tools) != 1 || string(req.Tools[0].Parameters) != `{"type":"object"}` {
				t.Errorf("request %+v", req)
			}
			if len(req.Options) == 0 {
				t.Error("no options kept")
			}
		})
	}
}

// TestValidateWire: what each wire cannot express is an error naming it.
func TestValidateWire(t *testing.T) {
	calls := []Call{{ID: "a", Name: "f"}, {ID: "b", Name: "g"}}
	tests := []struct {
		name   string
		turn   Turn
		stream bool
		wire   Wire
		want   string // "" for fine
	}{
		{"chat takes every plan", Turn{Calls: calls, Plan: Plan{IDs: IDsNoIndex, Order: Order{By: Shuffle}}}, true, WireChat, ""},
		{"responses: no-index", Turn{Calls: calls, Plan: Plan{IDs: IDsNoIndex}}, true, WireResponses, "turn 1: the OpenAI Responses wire cannot express ids=no-index"},
		{"responses: round-robin", Turn{Calls: calls, Plan: Plan{Order: Order{By: RoundRobin}}}, true, WireResponses, ""},
		{"anthropic: ids every", Turn{Calls: calls, Plan: Plan{IDs: IDsEvery}}, true, WireAnthropic, "the Anthropic Messages wire cannot express ids=every"},
		{"anthropic: interleaved blocks", Turn{Calls: calls, Plan: Plan{Order: Order{By: RoundRobin, Text: TextBetween}}}, true, WireAnthropic, ""},
		{"anthropic: raw args, streamed", Turn{Calls: []Call{{Name: "f", Args: "{oops", Raw: true}}}, true, WireAnthropic, ""},
		{"anthropic: raw args, whole", Turn{Calls: []Call{{Name: "f", Args: "{oops", Raw: true}}}, false, WireAnthropic, "a non-streamed tool_use carries its input as a JSON object"},
		{"gemini: round-robin", Turn{Calls: calls, Plan: Plan{Order: Order{By: RoundRobin}}}, true, WireGemini, "the Gemini wire cannot express order=round-robin"},
		{"gemini: one call round-robin", Turn{Calls: calls[:1], Plan: Plan{Order: Order{By: RoundRobin}}}, true, WireGemini, ""},
		{"gemini: reverse", Turn{Calls: calls, Plan: Plan{Order: Order{By: Reverse}}}, true, WireGemini, ""},
		{"gemini: schedule once each", Turn{Calls: calls, Plan: Plan{Order: Order{By: Scheduled, Schedule: "b text a"}}}, true, WireGemini, ""},
		{"gemini: schedule twice", Turn{Calls: calls, Plan: Plan{Order: Order{By: Scheduled, Schedule: "a b a"}}}, true, WireGemini, `schedule "a b a": it names call "a" twice`},
		{"gemini: fragments", Turn{Calls: []Call{{Name: "f", Fragments: []string{`{"a"`, `:1}`}}}}, true, WireGemini, "the fragments of call 1 (f)"},
		{"gemini: array args", Turn{Calls: []Call{{Name: "f", Args: `[1]`}}}, true, WireGemini, "functionCall args are a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Script{Turns: []Turn{tt.turn}}
			err := s.ValidateWire(tt.wire, tt.stream)
			if tt.want == "" {
				if err != nil {
					t.Errorf("ValidateWire: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ValidateWire = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestStatusFaultShapes: a status fault's body on each wire, as its
// provider sends it.
func TestStatusFaultShapes(t *testing.T) {
	tests := []struct {
		fault      Fault
		wire       Wire
		body       string
		retryAfter string
	}{
		{Fault{Kind: FaultStatus, Status: 429, RetryAfter: "3"}, WireChat, `{"error":{"message":"Rate limit reached for requests. Please try again later.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, "3"},
		{Fault{Kind: FaultStatus, Status: 500}, WireResponses, `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":"server_error"}}`, ""},
		{Fault{Kind: FaultStatus, Status: 529}, WireAnthropic, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, ""},
		{Fault{Kind: FaultStatus, Status: 429, RetryAfter: "20"}, WireAnthropic, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit. Please reduce the prompt length or the maximum tokens requested, or try again later."}}`, "20"},
		{Fault{Kind: FaultStatus, Status: 429, RetryAfter: "34"}, WireGemini, `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"34s"}]}}`, ""},
		{Fault{Kind: FaultStatus, Status: 503, Message: "busy"}, WireGemini, `{"error":{"code":503,"message":"busy","status":"UNAVAILABLE"}}`, ""},
		{Fault{Kind: FaultError}, WireAnthropic, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, ""},
		{Fault{Kind: FaultStatus, Status: 429, RetryAfter: "1"}, WireAzureChat, `{"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation under Azure OpenAI API have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 1 second."}}`, "1"},
		{Fault{Kind: FaultStatus, Status: 400, Code: "content_filter"}, WireAzureChat, `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"hate":{"filtered":false,"severity":"safe"},"self_harm":{"filtered":false,"severity":"safe"},"sexual":{"filtered":false,"severity":"safe"},"violence":{"filtered":true,"severity":"medium"}}}}}`, ""},
		{Fault{Kind: FaultStatus, Status: 500}, WireAzureResponses, `{"error":{"message":"The server had an error processing your request. Sorry about that! You can retry your request, or contact us through an Azure support request if you keep seeing this error.","type":"server_error","param":null,"code":"server_error"}}`, ""},
		{Fault{Kind: FaultStatus, Status: 429, RetryAfter: "5"}, WireVertex, `{"error":{"code":429,"message":"Resource exhausted. Please try again later.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"5s"}]}}`, ""},
		{Fault{Kind: FaultStatus, Status: 429, RetryAfter: "5"}, WireBedrock, `{"message":"Too many requests, please wait before trying again."}`, ""},
		{Fault{Kind: FaultStatus, Status: 503}, WireOllama, `{"error":"server busy, please try again.  maximum pending requests exceeded"}`, ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.wire)+"/"+tt.fault.Message+string(tt.fault.Kind), func(t *testing.T) {
			srv := NewServer(Script{Turns: []Turn{{Fault: &tt.fault}}})
			defer srv.Close()
			path, body := wholeRequest(tt.wire)
			resp, got := post(t, base(srv)+path, body)
			status := tt.fault.Status
			if status == 0 {
				status = 529
			}
			if resp.StatusCode != status || got != tt.body || resp.Header.Get("Retry-After") != tt.retryAfter {
				t.Errorf("got %d Retry-After %q\n%s\nwant %d Retry-After %q\n%s", resp.StatusCode, resp.Header.Get("Retry-After"), got, status, tt.retryAfter, tt.body)
			}
			if tt.wire == WireBedrock && !strings.HasPrefix(resp.Header.Get("X-Amzn-Errortype"), "ThrottlingException:") {
				t.Errorf("X-Amzn-Errortype %q, want ThrottlingException", resp.Header.Get("X-Amzn-Errortype"))
			}
		})
	}
}

// TestErrorEvents: a FaultError ends each wire's stream with its error
// event after the chunks before it.
func TestErrorEvents(t *testing.T) {
	want := map[Wire][]string{
		WireChat:      {"data: {\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\",\"param\":null,\"code\":\"server_error\"}}\n\n"},
		WireResponses: {"event: error\ndata: {\"type\":\"error\",\"sequence_number\":", `"error":{"type":"server_error","code":"server_error","message":"The server had an error while processing your request.","param":null}}`, "event: response.failed\n", `"status":"failed"`, `"error":{"code":"server_error","message":"The server had an error while processing your request."}`},
		WireAnthropic: {"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"},\"request_id\":\"req_scripted_1\"}\n\n"},
		WireGemini:    {"data: {\"error\":{\"code\":500,\"message\":\"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting\",\"status\":\"INTERNAL\"}}\r\n\r\n"},
		WireBedrock:   {":exception-type\x07\x00\x17internalServerException", ":message-type\x07\x00\x09exception", `{"message":"The system encountered an unexpected error during processing. Try your request again."}`},
		WireOllama:    {"\n{\"error\":\"an error was encountered while running the model\"}\n"},
	}
	want[WireAzureChat] = want[WireChat]
	want[WireAzureResponses] = want[WireResponses]
	want[WireVertex] = want[WireGemini]
	for _, w := range Wires {
		t.Run(string(w), func(t *testing.T) {
			srv := NewServer(Script{Turns: []Turn{{Text: "Hello there, world", Plan: Plan{Split: Split{Size: 4}}, Fault: &Fault{Kind: FaultError, After: 2}}}})
			defer srv.Close()
			path, body := streamRequest(w)
			resp, got := post(t, base(srv)+path, body)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			for _, s := range want[w] {
				if !strings.Contains(got, s) {
					t.Errorf("stream lacks %q:\n%s", s, got)
				}
			}
			if strings.Contains(got, "ld") || !strings.Contains(got, "o th") {
				t.Errorf("want two text deltas before the error:\n%s", got)
			}
		})
	}
}

// TestMalformedOnWires: a malformed chunk of each wire is not JSON, and
// the stream goes on after it.
func TestMalformedOnWires(t *testing.T) {
	for _, w := range Wires {
		t.Run(string(w), func(t *testing.T) {
			srv := NewServer(Script{Turns: []Turn{{Text: "abcdefgh", Plan: Plan{Split: Split{Size: 4}}, Fault: &Fault{Kind: FaultMalformed, After: 1}}}})
			defer srv.Close()
			path, body := streamRequest(w)
			_, got := post(t, base(srv)+path, body)
			events, err := wireEvents(w, []byte(got))
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for _, data := range events {
				if !json.Valid([]byte(data)) {
					bad++
				}
			}
			if bad != 1 || !strings.Contains(got, "efgh") {
				t.Errorf("%d malformed chunks, want 1 and the stream going on:\n%s", bad, got)
			}
		})
	}
}

// TestDisconnectOnWires: each wire's stream drops after its chunks.
func TestDisconnectOnWires(t *testing.T) {
	for _, w := range Wires {
		t.Run(string(w), func(t *testing.T) {
			srv := NewServer(Script{Turns: []Turn{{Text: "abcdefgh", Plan: Plan{Split: Split{Size: 4}}, Fault: &Fault{Kind: FaultDisconnect, After: 1}}}})
			defer srv.Close()
			path, body := streamRequest(w)
			req, _ := http.NewRequest("POST", base(srv)+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer test")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(string(b), "abcd") || strings.Contains(string(b), "efgh") {
				t.Errorf("read %v:\n%s", err, b)
			}
		})
	}
}

// TestFaultRepeats: a fault answers Times requests, or every request, and
// Check says when the client stopped retrying early.
func TestFaultRepeats(t *testing.T) {
	t.Run("times", func(t *testing.T) {
		srv := NewServer(Script{Turns: []Turn{{Fault: &Fault{Kind: FaultStatus, Status: 500, Times: 3}}, {Text: "ok"}}})
		defer srv.Close()
		for i, want := range []int{500, 500, 500, 200} {
			resp, _ := post(t, srv.URL+"/chat/completions", streamBody)
			if resp.StatusCode != want {
				t.Errorf("request %d: status %d, want %d", i, resp.StatusCode, want)
			}
			if i == 1 {
				if err := srv.Check(); err == nil || !strings.Contains(err.Error(), "turn 1: its fault answered 2 of 3 requests") {
					t.Errorf("Check() after 2 = %v", err)
				}
			}
		}
		if err := srv.Check(); err != nil {
			t.Error(err)
		}
	})
	t.Run("always", func(t *testing.T) {
		srv := NewServer(Script{Turns: []Turn{{Text: "first"}, {Fault: &Fault{Kind: FaultStatus, Status: 529, Always: true}}}})
		defer srv.Close()
		for i, want := range []int{200, 529, 529, 529, 529} {
			path, body := wholeRequest(WireAnthropic)
			if resp, _ := post(t, base(srv)+path, body); resp.StatusCode != want {
				t.Errorf("request %d: status %d, want %d", i, resp.StatusCode, want)
			}
		}
		if err := srv.Check(); err != nil {
			t.Error(err)
		}
		if got := srv.Model().Used(); got != 2 {
			t.Errorf("Used() = %d, want 2", got)
		}
	})
	t.Run("validate", func(t *testing.T) {
		s := Script{Turns: []Turn{{Fault: &Fault{Kind: FaultStatus, Status: 500, Always: true}}, {Text: "never"}}}
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "must be on the last turn") {
			t.Errorf("Validate() = %v", err)
		}
	})
}

// TestLogRequests: every request, refused ones too, as one JSON line each.
func TestLogRequests(t *testing.T) {
	var log bytes.Buffer
	srv := NewServer(Script{Turns: []Turn{{Text: "x"}}})
	defer srv.Close()
	srv.Model().LogRequests(&log)
	post(t, base(srv)+"/v1/messages", `{"model":"m","max_tokens":9,"system":"sys","messages":[{"role":"user","content":"hi"}]}`)
	post(t, base(srv)+"/v1/messages", `{"model":"m","max_tokens":9,"messages":[{"role":"robot","content":"hi"}]}`)
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), log.String())
	}
	want := `{"wire":"anthropic-messages","model":"m","system":"sys","messages":[{"role":"system","content":"sys"},{"role":"user","content":"hi"}],"options":{"max_tokens":9},"raw":{"model":"m","max_tokens":9,"system":"sys","messages":[{"role":"user","content":"hi"}]}}`
	if lines[0] != want {
		t.Errorf("line 1\n got %s\nwant %s", lines[0], want)
	}
	var second struct{ Error string }
	if err := json.Unmarshal([]byte(lines[1]), &second); err != nil || !strings.Contains(second.Error, "messages.0.role: Input should be 'user' or 'assistant'") {
		t.Errorf("line 2 %s: %v", lines[1], err)
	}
}

// TestResponsesStore: item_reference items and previous_response_id read
// back what the server answered, as OpenAI's stored responses do.
func TestResponsesStore(t *testing.T) {
	srv := NewServer(Script{Turns: []Turn{
		{Reasoning: "r", Text: "Checking.", Calls: []Call{{Name: "f", Args: `{"a":1}`}}},
		{Expect: Expect{ToolResults: []string{"call_1_1"}}, Text: "Done."},
		{Expect: Expect{LastUser: "again"}, Text: "Again."},
	}})
	defer srv.Close()
	resp, body := post(t, srv.URL+"/responses", `{"model":"m","input":"go"}`)
	if resp.StatusCode != 200 {
		t.Fatal(body)
	}
	resp, body = post(t, srv.URL+"/responses", `{"model":"m","input":[{"role":"user","content":"go"},{"type":"item_reference","id":"rs_scripted_1"},{"type":"item_reference","id":"msg_scripted_1"},{"type":"item_reference","id":"fc_scripted_1_1"},{"type":"function_call_output","call_id":"call_1_1","output":"ok"}]}`)
	if resp.StatusCode != 200 {
		t.Fatal(body)
	}
	resp, body = post(t, srv.URL+"/responses", `{"model":"m","previous_response_id":"resp_scripted_2","input":"again"}`)
	if resp.StatusCode != 200 {
		t.Fatal(body)
	}
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	want := []Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", Content: "Checking.", Reasoning: "r", Calls: []Call{{ID: "call_1_1", Name: "f", Args: `{"a":1}`}}},
		{Role: "tool", ToolCallID: "call_1_1", Content: "ok"},
		{Role: "assistant", Content: "Done."},
		{Role: "user", Content: "again"},
	}
	if d := cmp.Diff(want, srv.Requests()[2].Messages); d != "" {
		t.Errorf("third request (-want +got):\n%s", d)
	}
}
