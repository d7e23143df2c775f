package agui

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/internal/oracle"
)

var messageCases = []struct {
	name string
	m    Message
	want string
}{
	{"developer", DeveloperMessage("d1", "be brief"), `{"id":"d1","role":"developer","content":"be brief"}`},
	{"system with name", Message{ID: "s1", Role: RoleSystem, Content: TextContent("rules"), Name: "ops", SubagentRunID: "sub1"},
		`{"id":"s1","role":"system","content":"rules","name":"ops","subagentRunId":"sub1"}`},
	{"user text", UserMessage("u1", "hi"), `{"id":"u1","role":"user","content":"hi"}`},
	{"user empty text", UserMessage("u1", ""), `{"id":"u1","role":"user","content":""}`},
	{"user parts", Message{ID: "u2", Role: RoleUser, Content: PartsContent(
		TextPart("look"),
		ContentPart{Type: "image", ID: "p1", Source: &PartSource{Type: "url", Value: "https://example.com/a.png", MimeType: "image/png"}},
		ContentPart{Type: "audio", Source: &PartSource{Type: "data", Value: "AAAA", MimeType: "audio/wav"}},
		ContentPart{Type: "video", Source: &PartSource{Type: "file", Value: "file-123", Provider: "openai"}},
		ContentPart{Type: "document", Source: &PartSource{Type: "url", Value: "https://example.com/a.pdf"}, Metadata: json.RawMessage(`{"title":"A"}`)},
	)},
		`{"id":"u2","role":"user","content":[{"type":"text","text":"look"},` +
			`{"type":"image","id":"p1","source":{"type":"url","value":"https://example.com/a.png","mimeType":"image/png"}},` +
			`{"type":"audio","source":{"type":"data","value":"AAAA","mimeType":"audio/wav"}},` +
			`{"type":"video","source":{"type":"file","value":"file-123","provider":"openai"}},` +
			`{"type":"document","source":{"type":"url","value":"https://example.com/a.pdf"},"metadata":{"title":"A"}}]}`},
	{"user no parts", Message{ID: "u3", Role: RoleUser, Content: PartsContent()}, `{"id":"u3","role":"user","content":[]}`},
	{"assistant text", AssistantMessage("a1", "sure"), `{"id":"a1","role":"assistant","content":"sure"}`},
	{"assistant tool calls", AssistantMessage("a2", "", NewToolCall("c1", "get_weather", `{"city":"Paris"}`), ToolCall{ID: "c2", Type: "function", Function: FunctionCall{Name: "now", Arguments: ""}}),
		`{"id":"a2","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},` +
			`{"id":"c2","type":"function","function":{"name":"now","arguments":""}}]}`},
	{"assistant everything", Message{ID: "a3", Role: RoleAssistant, Content: TextContent("x"), Name: "bot", EncryptedValue: "enc", Metadata: json.RawMessage(`{"k":1}`),
		ToolCalls: []ToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "f", Arguments: "{}"}, EncryptedValue: "e", Metadata: json.RawMessage(`{"m":true}`)}}},
		`{"id":"a3","role":"assistant","content":"x","name":"bot","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"},"encryptedValue":"e","metadata":{"m":true}}],"encryptedValue":"enc","metadata":{"k":1}}`},
	{"tool", ToolMessage("t1", "c1", `{"temp":21}`), `{"id":"t1","role":"tool","toolCallId":"c1","content":"{\"temp\":21}"}`},
	{"tool error and parts", Message{ID: "t2", Role: RoleTool, ToolCallID: "c2", Error: "timeout", Content: PartsContent(TextPart(""))},
		`{"id":"t2","role":"tool","toolCallId":"c2","content":[{"type":"text","text":""}],"error":"timeout"}`},
	{"activity", Message{ID: "ac1", Role: RoleActivity, ActivityType: "search", Activity: json.RawMessage(`{"query":"go"}`)},
		`{"id":"ac1","role":"activity","activityType":"search","content":{"query":"go"}}`},
	{"activity empty", Message{ID: "ac2", Role: RoleActivity, ActivityType: "plan", Activity: json.RawMessage(`{}`)},
		`{"id":"ac2","role":"activity","activityType":"plan","content":{}}`},
	{"reasoning", Message{ID: "r1", Role: RoleReasoning, Content: TextContent("thinking"), EncryptedValue: "sig"},
		`{"id":"r1","role":"reasoning","content":"thinking","encryptedValue":"sig"}`},
}

func TestMessageRoundTrip(t *testing.T) {
	for _, tc := range messageCases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(b); got != tc.want {
				t.Errorf("encoded:\n got %s\nwant %s", got, tc.want)
			}
			var back Message
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.m, back); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolCallDefaultType(t *testing.T) {
	b, err := json.Marshal(ToolCall{ID: "c", Function: FunctionCall{Name: "f"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"id":"c","type":"function","function":{"name":"f","arguments":""}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestMessageEncodeErrors(t *testing.T) {
	tests := []struct {
		name string
		m    Message
	}{
		{"system parts", Message{ID: "s", Role: RoleSystem, Content: PartsContent(TextPart("x"))}},
		{"assistant parts", Message{ID: "a", Role: RoleAssistant, Content: PartsContent()}},
		{"bad metadata", Message{ID: "u", Role: RoleUser, Metadata: json.RawMessage(`{`)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if b, err := json.Marshal(tc.m); err == nil {
				t.Errorf("got %s, want an error", b)
			}
		})
	}
}

func TestMessageDecode(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Message
		wantErr bool
	}{
		{"unknown fields", `{"id":"u","role":"user","content":"hi","future":{"x":[1]},"name":"ann"}`, Message{ID: "u", Role: RoleUser, Content: TextContent("hi"), Name: "ann"}, false},
		{"part unknown fields", `{"id":"u","role":"user","content":[{"type":"text","text":"a","extra":1},{"type":"binary","source":{"type":"url","value":"v","x":2}}]}`,
			Message{ID: "u", Role: RoleUser, Content: PartsContent(TextPart("a"), ContentPart{Type: "binary", Source: &PartSource{Type: "url", Value: "v"}, Raw: json.RawMessage(`{"type":"binary","source":{"type":"url","value":"v","x":2}}`)})}, false},
		{"assistant without content", `{"id":"a","role":"assistant","content":null}`, Message{ID: "a", Role: RoleAssistant}, false},
		{"numeric content", `{"id":"u","role":"user","content":5}`, Message{}, true},
		{"not an object", `[]`, Message{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got Message
			err := json.Unmarshal([]byte(tc.in), &got)
			if (err != nil) != tc.wantErr {
				t.Fatalf("got error %v, want error: %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunAgentInputEncode(t *testing.T) {
	tests := []struct {
		name string
		in   RunAgentInput
		want string
	}{
		{"zero lists", RunAgentInput{ThreadID: "t", RunID: "r"},
			`{"threadId":"t","runId":"r","state":{},"messages":[],"tools":[],"context":[],"forwardedProps":{}}`},
		{"null state", RunAgentInput{ThreadID: "t", RunID: "r", State: json.RawMessage("null"), ForwardedProps: json.RawMessage(" null ")},
			`{"threadId":"t","runId":"r","state":{},"messages":[],"tools":[],"context":[],"forwardedProps":{}}`},
		{"full", RunAgentInput{
			ThreadID: "t", RunID: "r", ProtocolVersion: "1.0", ParentRunID: "p",
			State: json.RawMessage(`[1,2]`), Messages: []Message{UserMessage("u1", "hi")},
			Tools:          []Tool{{Name: "confirm", Description: "Ask the user", Parameters: json.RawMessage(`{"type":"object"}`)}},
			Context:        []Context{{Description: "tz", Value: "UTC"}},
			ForwardedProps: json.RawMessage(`{"a":1}`),
			Resume:         []ResumeEntry{{InterruptID: "i1", Status: "resolved", Payload: json.RawMessage(`true`)}},
		}, `{"threadId":"t","runId":"r","protocolVersion":"1.0","parentRunId":"p","state":[1,2],"messages":[{"id":"u1","role":"user","content":"hi"}],` +
			`"tools":[{"name":"confirm","description":"Ask the user","parameters":{"type":"object"}}],"context":[{"description":"tz","value":"UTC"}],` +
			`"forwardedProps":{"a":1},"resume":[{"interruptId":"i1","status":"resolved","payload":true}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(b); got != tc.want {
				t.Errorf("encoded:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// referenceInput is shaped as @ag-ui/client 1.0.0 sends a request, with a
// field this version does not know.
const referenceInput = `{
  "threadId": "thread_7f3a",
  "runId": "run_01JA1",
  "state": {"cart": []},
  "messages": [
    {"id": "m1", "role": "user", "content": "Weather in Paris and Oslo?"},
    {"id": "m2", "role": "assistant", "content": "", "toolCalls": [
      {"id": "call_p", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}
    ]},
    {"id": "m3", "role": "tool", "toolCallId": "call_p", "content": "21C"}
  ],
  "tools": [{"name": "get_weather", "description": "Current weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}],
  "context": [{"description": "user locale", "value": "fr-FR"}],
  "forwardedProps": {},
  "somethingNew": true
}`

func TestRunAgentInputDecode(t *testing.T) {
	var in RunAgentInput
	if err := json.Unmarshal([]byte(referenceInput), &in); err != nil {
		t.Fatal(err)
	}
	want := []Message{
		UserMessage("m1", "Weather in Paris and Oslo?"),
		AssistantMessage("m2", "", NewToolCall("call_p", "get_weather", `{"city":"Paris"}`)),
		ToolMessage("m3", "call_p", "21C"),
	}
	if diff := cmp.Diff(want, in.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if in.ThreadID != "thread_7f3a" || in.RunID != "run_01JA1" {
		t.Errorf("got thread %q run %q", in.ThreadID, in.RunID)
	}
	if len(in.Tools) != 1 || in.Tools[0].Name != "get_weather" || len(in.Context) != 1 || in.Context[0].Value != "fr-FR" {
		t.Errorf("got tools %+v context %+v", in.Tools, in.Context)
	}
}

// schemaOracle returns the oracle directory holding @ag-ui/core, or skips.
func schemaOracle(t *testing.T) string {
	t.Helper()
	return oracle.Need(t, filepath.Join("..", "internal", "oracle"), "@ag-ui/core", "the check against @ag-ui/core's RunAgentInputSchema")
}

// parseWithSchema runs RunAgentInputSchema.parse on each input and returns,
// per input, the parsed value as JSON or the schema's error.
const parseWithSchema = `
const { createRequire } = require("node:module");
const { RunAgentInputSchema } = createRequire(process.argv[1] + "/package.json")("@ag-ui/core/schemas");
const lines = require("node:fs").readFileSync(0, "utf8").split("\n").filter((l) => l.trim() !== "");
for (const line of lines) {
  const r = RunAgentInputSchema.safeParse(JSON.parse(line));
  process.stdout.write(JSON.stringify(r.success ? { ok: true, value: r.data } : { ok: false, error: r.error.message }) + "\n");
}
`

func TestRunAgentInputSchema(t *testing.T) {
	dir := schemaOracle(t)
	var inputs []RunAgentInput
	inputs = append(inputs, RunAgentInput{ThreadID: "t", RunID: "r"})
	var ref RunAgentInput
	if err := json.Unmarshal([]byte(referenceInput), &ref); err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, ref)
	var all []Message
	for _, tc := range messageCases {
		all = append(all, tc.m)
	}
	inputs = append(inputs, RunAgentInput{
		ThreadID: "t2", RunID: "r2", ProtocolVersion: "1.0", ParentRunID: "r1",
		State: json.RawMessage(`"s"`), Messages: all,
		Tools:          []Tool{{Name: "x", Description: "", Metadata: json.RawMessage(`{"ui":"card"}`)}},
		ForwardedProps: json.RawMessage(`[1]`),
		Resume:         []ResumeEntry{{InterruptID: "i", Status: "cancelled", Metadata: json.RawMessage(`{}`)}},
	})
	var stdin bytes.Buffer
	var encoded [][]byte
	for _, in := range inputs {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		encoded = append(encoded, b)
		stdin.Write(b)
		stdin.WriteByte('\n')
	}
	// A known-bad input proves the schema is really checking.
	stdin.WriteString(`{"threadId":"t","runId":"r","messages":[],"forwardedProps":null}` + "\n")

	cmd := exec.Command("node", "-e", parseWithSchema, dir)
	cmd.Stdin = &stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	type result struct {
		OK    bool            `json:"ok"`
		Value json.RawMessage `json:"value"`
		Error string          `json:"error"`
	}
	var results []result
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("node output %q: %v", sc.Text(), err)
		}
		results = append(results, r)
	}
	if len(results) != len(inputs)+1 {
		t.Fatalf("got %d results for %d inputs", len(results), len(inputs)+1)
	}
	for i, r := range results[:len(inputs)] {
		if !r.OK {
			t.Errorf("input %d rejected by RunAgentInputSchema: %s\ninput: %s", i, strings.TrimSpace(r.Error), encoded[i])
			continue
		}
		// What the schema kept must decode to what we encoded.
		var back RunAgentInput
		if err := json.Unmarshal(r.Value, &back); err != nil {
			t.Fatalf("input %d: decoding the schema's output: %v", i, err)
		}
		if diff := cmp.Diff(withEmptyLists(inputs[i]), withEmptyLists(back), cmp.Transformer("json", func(m json.RawMessage) any {
			var v any
			if len(m) == 0 {
				return nil
			}
			if err := json.Unmarshal(m, &v); err != nil {
				return string(m)
			}
			return v
		})); diff != "" {
			t.Errorf("input %d after the schema (-ours +schema's):\n%s", i, diff)
		}
	}
	if results[len(inputs)].OK {
		t.Errorf("the schema accepted a null forwardedProps; the oracle is not checking")
	}
}

// withEmptyLists replaces nil lists with empty ones and nil state and
// forwarded properties with {}, as they are encoded.
func withEmptyLists(in RunAgentInput) RunAgentInput {
	in.State = objectOrEmpty(in.State)
	in.ForwardedProps = objectOrEmpty(in.ForwardedProps)
	if in.Messages == nil {
		in.Messages = []Message{}
	}
	if in.Tools == nil {
		in.Tools = []Tool{}
	}
	if in.Context == nil {
		in.Context = []Context{}
	}
	return in
}

func ExampleRunAgentInput() {
	in := RunAgentInput{
		ThreadID: "t1",
		RunID:    "r2",
		Messages: []Message{
			UserMessage("m1", "What is the weather in Paris?"),
			AssistantMessage("m2", "", NewToolCall("c1", "get_weather", `{"city":"Paris"}`)),
			ToolMessage("m3", "c1", "21C and sunny"),
		},
	}
	b, _ := json.MarshalIndent(in, "", "  ")
	fmt.Println(string(b))
	// Output:
	// {
	//   "threadId": "t1",
	//   "runId": "r2",
	//   "state": {},
	//   "messages": [
	//     {
	//       "id": "m1",
	//       "role": "user",
	//       "content": "What is the weather in Paris?"
	//     },
	//     {
	//       "id": "m2",
	//       "role": "assistant",
	//       "toolCalls": [
	//         {
	//           "id": "c1",
	//           "type": "function",
	//           "function": {
	//             "name": "get_weather",
	//             "arguments": "{\"city\":\"Paris\"}"
	//           }
	//         }
	//       ]
	//     },
	//     {
	//       "id": "m3",
	//       "role": "tool",
	//       "toolCallId": "c1",
	//       "content": "21C and sunny"
	//     }
	//   ],
	//   "tools": [],
	//   "context": [],
	//   "forwardedProps": {}
	// }
}

// TestLegacyBinaryPartKept: a history holding a legacy binary content part
// keeps it whole (mimeType, url, data, filename, id), in the input and in
// the client's view, as HttpAgent keeps it in the messages it holds.
func TestLegacyBinaryPartKept(t *testing.T) {
	const part = `{"type":"binary","mimeType":"image/png","url":"https://x/y.png","data":"AAAA","filename":"y.png","id":"b1"}`
	history := `[{"id":"u1","role":"user","content":[{"type":"text","text":"see"},` + part + `]}]`
	var msgs []Message
	require.NoError(t, json.Unmarshal([]byte(history), &msgs))
	got, err := json.Marshal(msgs)
	require.NoError(t, err)
	if !sameJSONValue(got, []byte(history)) {
		t.Errorf("round trip:\n got  %s\n want %s", got, history)
	}
	body := sseBody(t, []obj{
		{{"type", "RUN_STARTED"}, {"threadId", "thread-1"}, {"runId", "run-1"}},
		{{"type", "RUN_FINISHED"}, {"threadId", "thread-1"}, {"runId", "run-1"}},
	})
	v, err := viewOf(t, viewCase{History: msgs}, body)
	require.NoError(t, err)
	if !sameJSONValue(v.MessagesJSON(), []byte(history)) {
		t.Errorf("the view holds %s, want %s", v.MessagesJSON(), history)
	}
	dir := needOracle(t)
	res := runHTTPAgent(t, dir, []httpCase{{Body: base64.StdEncoding.EncodeToString(body), Messages: json.RawMessage(history)}})[0]
	require.True(t, res.OK, res.Error)
	want, _ := json.Marshal(res.Messages)
	if !sameJSONValue(v.MessagesJSON(), want) {
		t.Errorf("HttpAgent holds %s; the view %s", want, v.MessagesJSON())
	}
}
