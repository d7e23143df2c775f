package agui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// events parses JSON objects, one per string.
func mustEvents(t testing.TB, lines ...string) []Event {
	t.Helper()
	evs := make([]Event, len(lines))
	for i, l := range lines {
		e, err := ParseEvent([]byte(l))
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		evs[i] = e
	}
	return evs
}

func TestViewAssembles(t *testing.T) {
	history := []Message{UserMessage("u1", "weather?")}
	tests := []struct {
		name      string
		events    []string
		messages  string
		state     string
		errPrefix string
	}{
		{
			name: "text reopened under one id, calls between (Mastra's chunks)",
			events: []string{
				`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
				`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"Let me "}`,
				`{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"weather","parentMessageId":"m1","delta":"{}"}`,
				`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"check."}`,
				`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
			},
			messages: `[{"id":"u1","role":"user","content":"weather?"},
				{"id":"m1","role":"assistant","content":"Let me check.","toolCalls":[{"id":"c1","type":"function","function":{"name":"weather","arguments":"{}"}}]}]`,
			state: `{}`,
		},
		{
			name: "a result goes after its call's message and the results there",
			events: []string{
				`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
				`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"a"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"c1"}`,
				`{"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"b","parentMessageId":"c1"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"c2"}`,
				`{"type":"TEXT_MESSAGE_START","messageId":"m2","role":"assistant"}`,
				`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"done"}`,
				`{"type":"TEXT_MESSAGE_END","messageId":"m2"}`,
				`{"type":"TOOL_CALL_RESULT","messageId":"r2","toolCallId":"c2","content":"B"}`,
				`{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c1","content":"A"}`,
				`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
			},
			messages: `[{"id":"u1","role":"user","content":"weather?"},
				{"id":"c1","role":"assistant","toolCalls":[
					{"id":"c1","type":"function","function":{"name":"a","arguments":""}},
					{"id":"c2","type":"function","function":{"name":"b","arguments":""}}]},
				{"id":"r2","toolCallId":"c2","role":"tool","content":"B"},
				{"id":"r1","toolCallId":"c1","role":"tool","content":"A"},
				{"id":"m2","role":"assistant","content":"done"}]`,
			state: `{}`,
		},
		{
			name: "a surrogate pair split across deltas joins",
			events: []string{
				`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
				`{"type":"TEXT_MESSAGE_START","messageId":"m1"}`,
				`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"\ud83d"}`,
				`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"\ude00!"}`,
				`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
				`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
			},
			messages: `[{"id":"u1","role":"user","content":"weather?"},{"id":"m1","role":"assistant","content":"😀!"}]`,
			state:    `{}`,
		},
		{
			name: "a failing patch keeps the state, the next one applies",
			events: []string{
				`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
				`{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}`,
				`{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2},{"op":"remove","path":"/missing"}]}`,
				`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/m","value":3}]}`,
				`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
			},
			messages: `[{"id":"u1","role":"user","content":"weather?"}]`,
			state:    `{"n":1,"m":3}`,
		},
		{
			name: "activity: snapshot, delta, metadata merged",
			events: []string{
				`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
				`{"type":"ACTIVITY_SNAPSHOT","messageId":"a1","activityType":"plan","content":{"steps":[]},"metadata":{"k":1,"j":1}}`,
				`{"type":"ACTIVITY_DELTA","messageId":"a1","activityType":"plan","patch":[{"op":"add","path":"/steps/-","value":"s1"}],"metadata":{"k":2}}`,
				`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
			},
			messages: `[{"id":"u1","role":"user","content":"weather?"},
				{"id":"a1","role":"activity","activityType":"plan","content":{"steps":["s1"]},"metadata":{"k":2,"j":1}}]`,
			state: `{}`,
		},
		{
			name: "a messages snapshot keeps the client's reasoning unless it carries some",
			events: []string{
				`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
				`{"type":"REASONING_MESSAGE_START","messageId":"rs","role":"reasoning"}`,
				`{"type":"REASONING_MESSAGE_CONTENT","messageId":"rs","delta":"hmm"}`,
				`{"type":"REASONING_MESSAGE_END","messageId":"rs"}`,
				`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u1","role":"user","content":"edited"},{"id":"x","role":"assistant","content":"hi"}]}`,
				`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
			},
			messages: `[{"id":"u1","role":"user","content":"edited"},{"id":"rs","role":"reasoning","content":"hmm"},{"id":"x","role":"assistant","content":"hi"}]`,
			state:    `{}`,
		},
		{
			name: "a patch that moves the state into itself stops the view",
			events: []string{
				`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
				`{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}`,
				`{"type":"STATE_DELTA","delta":[{"op":"move","from":"","path":"/self"}]}`,
				`{"type":"STATE_SNAPSHOT","snapshot":{"n":2}}`,
			},
			messages:  `[{"id":"u1","role":"user","content":"weather?"}]`,
			state:     `{"n":1}`,
			errPrefix: "event 3 (STATE_DELTA): a patch moved the whole document into itself",
		},
		{
			name: "a state the client cannot copy stops the view",
			events: []string{
				`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
				`{"type":"STATE_DELTA","delta":[{"op":"copy","from":"/toString","path":"/f"}]}`,
			},
			messages:  `[{"id":"u1","role":"user","content":"weather?"}]`,
			state:     `{}`,
			errPrefix: "event 2 (STATE_DELTA): STATE_DELTA: the client cannot copy",
		},
		{
			name: "a chunk the client cannot expand stops the view",
			events: []string{
				`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
				`{"type":"TEXT_MESSAGE_CHUNK","delta":"no id"}`,
				`{"type":"TEXT_MESSAGE_START","messageId":"m9"}`,
			},
			messages:  `[{"id":"u1","role":"user","content":"weather?"}]`,
			state:     `{}`,
			errPrefix: "event 2 (TEXT_MESSAGE_CHUNK): First TEXT_MESSAGE_CHUNK must have a messageId",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Assemble(RunAgentInput{Messages: history}, mustEvents(t, tt.events...))
			switch {
			case tt.errPrefix == "" && err != nil:
				t.Fatalf("Assemble: %v", err)
			case tt.errPrefix != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.errPrefix)):
				t.Fatalf("Assemble error = %v, want one starting %q", err, tt.errPrefix)
			}
			if got := v.MessagesJSON(); !sameJSONValue(got, []byte(tt.messages)) {
				t.Errorf("messages:\ngot  %s\nwant %s", got, compact(tt.messages))
			}
			if got := v.State(); !sameJSONValue(got, []byte(tt.state)) {
				t.Errorf("state: got %s, want %s", got, tt.state)
			}
		})
	}
}

func compact(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestViewSurrogatesOnTheWire(t *testing.T) {
	v, err := Assemble(RunAgentInput{}, mustEvents(t,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m1"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"\ud83d"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"\ude00"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m2"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"\ud83d"}`,
	))
	if err != nil {
		t.Fatal(err)
	}
	// A pair joined is one character; a lone half is written as
	// JSON.stringify writes it.
	want := `[{"id":"m1","role":"assistant","content":"😀"},{"id":"m2","role":"assistant","content":"\ud83d"}]`
	if got := string(v.MessagesJSON()); got != want {
		t.Errorf("MessagesJSON:\ngot  %s\nwant %s", got, want)
	}
	if got := v.Messages()[1].Content.Text; got != "\uFFFD" {
		t.Errorf("typed content of a lone surrogate = %q, want U+FFFD", got)
	}
}

func TestViewStopsUntilNextRequest(t *testing.T) {
	v := NewView(RunAgentInput{State: json.RawMessage(`{"n":0}`)})
	for _, e := range mustEvents(t,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r1"}`,
		`{"type":"TOOL_CALL_CHUNK","delta":"{}"}`,
	) {
		_ = v.Apply(e)
	}
	late := mustEvents(t, `{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}`)[0]
	if err := v.Apply(late); err == nil {
		t.Fatal("Apply after the failing event: got nil, want the error again")
	}
	if got := string(v.State()); got != `{"n":0}` {
		t.Fatalf("state after a stopped request = %s, want {\"n\":0}", got)
	}
	v.AddMessages(ToolMessage("t1", "c1", "ok"), UserMessage("u2", "and now?"))
	if err := v.Apply(late); err != nil {
		t.Fatalf("Apply in the next request: %v", err)
	}
	want := `{"messages":[{"id":"t1","role":"tool","toolCallId":"c1","content":"ok"},{"id":"u2","role":"user","content":"and now?"}],"state":{"n":1}}`
	if got := v.String(); got != want {
		t.Errorf("view:\ngot  %s\nwant %s", got, want)
	}
}

func TestViewMessagesTyped(t *testing.T) {
	v, err := Assemble(RunAgentInput{Messages: []Message{
		{ID: "a0", Role: RoleActivity, ActivityType: "plan", Activity: json.RawMessage(`{"x":1}`)},
		{ID: "s0", Role: RoleSystem, Content: PartsContent(TextPart("parts on a text-only role"))},
	}}, mustEvents(t,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"m1"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"a\":1}"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"c1"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m1"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
	))
	if err != nil {
		t.Fatal(err)
	}
	got := v.Messages()
	if len(got) != 3 {
		t.Fatalf("got %d messages, want 3: %s", len(got), v.MessagesJSON())
	}
	m := got[2]
	if m.ID != "m1" || m.Role != RoleAssistant || m.Content.Text != "hi" || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != `{"a":1}` {
		t.Errorf("assistant message = %+v", m)
	}
	if got[0].Role != RoleActivity || string(got[0].Activity) != `{"x":1}` {
		t.Errorf("activity message = %+v", got[0])
	}
	if !strings.Contains(string(v.MessagesJSON()), `"content":[{"type":"text","text":"parts on a text-only role"}]`) {
		t.Errorf("parts on a system message are kept as the client holds them: %s", v.MessagesJSON())
	}
}

func ExampleAssemble() {
	history := []Message{UserMessage("u1", "Weather in Paris?")}
	events, _ := ReadEvents(strings.NewReader(`
{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"Checking"}
{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"weather","parentMessageId":"m1","delta":"{\"city\":\"Paris\"}"}
{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":" now."}
{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c1","content":"18C"}
{"type":"STATE_DELTA","delta":[{"op":"add","path":"/asked","value":1}]}
{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}
`))
	v, err := Assemble(RunAgentInput{Messages: history}, events)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range v.Messages() {
		fmt.Printf("%s %s %q %d call(s)\n", m.ID, m.Role, m.Content.Text, len(m.ToolCalls))
	}
	fmt.Println(string(v.State()))
	// Output:
	// u1 user "Weather in Paris?" 0 call(s)
	// m1 assistant "Checking now." 1 call(s)
	// r1 tool "18C" 0 call(s)
	// {"asked":1}
}
