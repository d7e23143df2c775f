package anthropicmessages_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agent/anthropicmessages"
	"github.com/aguitest/aguitest/agent/internal/bridgetest"
	"github.com/aguitest/aguitest/agui"
)

// stream writes a Messages stream as the API sends it: a thinking block
// with its signature, a text block, then two tool_use blocks whose input
// deltas interleave by index (as aguitest's scripted wire can send them),
// each closed by its own content_block_stop, then message_stop. cut stops
// it before message_stop.
func stream(cut bool) string {
	var b strings.Builder
	ev := func(typ, fields string) {
		fmt.Fprintf(&b, "event: %s\ndata: {\"type\":%q%s}\n\n", typ, typ, fields)
	}
	ev("message_start", `,"message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`)
	ev("content_block_start", `,"index":0,"content_block":{"type":"thinking","thinking":"","signature":""}`)
	ev("content_block_delta", `,"index":0,"delta":{"type":"thinking_delta","thinking":"Two "}`)
	ev("content_block_delta", `,"index":0,"delta":{"type":"thinking_delta","thinking":"calls."}`)
	ev("content_block_delta", `,"index":0,"delta":{"type":"signature_delta","signature":"sig=="}`)
	ev("content_block_stop", `,"index":0`)
	ev("content_block_start", `,"index":1,"content_block":{"type":"text","text":""}`)
	ev("content_block_delta", `,"index":1,"delta":{"type":"text_delta","text":"Checking."}`)
	ev("content_block_stop", `,"index":1`)
	ev("content_block_start", `,"index":2,"content_block":{"type":"tool_use","id":"toolu_a","name":"get_weather","input":{}}`)
	ev("content_block_start", `,"index":3,"content_block":{"type":"tool_use","id":"toolu_b","name":"roll_dice","input":{}}`)
	for _, d := range []struct {
		index int
		delta string
	}{{2, `{"city":`}, {3, `{"sides":`}, {2, `"Zürich"}`}, {3, `20}`}} {
		q, _ := json.Marshal(d.delta)
		ev("content_block_delta", fmt.Sprintf(`,"index":%d,"delta":{"type":"input_json_delta","partial_json":%s}`, d.index, q))
	}
	ev("content_block_stop", `,"index":3`)
	ev("content_block_stop", `,"index":2`)
	ev("message_delta", `,"delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}`)
	if !cut {
		ev("message_stop", ``)
	}
	return b.String()
}

func run(t *testing.T, body string, opt agent.TurnOptions) ([]agui.Event, *agent.Answer, error) {
	t.Helper()
	client := anthropic.NewClient(option.WithBaseURL(bridgetest.ServeSSE(t, body)), option.WithAPIKey("test"), option.WithMaxRetries(0))
	var events []agui.Event
	r, err := agent.Start(agui.RunAgentInput{ThreadID: "t", RunID: "r"}, func(e agui.Event) error { events = append(events, e); return nil }, agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := client.Messages.NewStreaming(t.Context(), anthropic.MessageNewParams{
		Model: "claude", MaxTokens: 100,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("go"))},
	})
	defer s.Close()
	answer, err := anthropicmessages.Stream(r.Turn(opt), s)
	if err == nil {
		if err := r.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	return events, answer, err
}

func TestStream(t *testing.T) {
	reasoning := []string{
		"RUN_STARTED", "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT",
		`REASONING_ENCRYPTED_VALUE "sig=="`, "REASONING_MESSAGE_END", "REASONING_END",
		"TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT",
	}
	for _, tc := range []struct {
		name string
		opt  agent.TurnOptions
		want []string
	}{
		{"streamed", agent.TurnOptions{ProviderIDs: true}, append(reasoning[:len(reasoning):len(reasoning)],
			"TOOL_CALL_START toolu_a", "TOOL_CALL_START toolu_b",
			`TOOL_CALL_ARGS toolu_a {"city":`, `TOOL_CALL_ARGS toolu_b {"sides":`, `TOOL_CALL_ARGS toolu_a "Zürich"}`, `TOOL_CALL_ARGS toolu_b 20}`,
			// Each call ends at its block's stop, in the provider's order.
			"TOOL_CALL_END toolu_b", "TOOL_CALL_END toolu_a",
			"TEXT_MESSAGE_END", "RUN_FINISHED",
		)},
		{"buffered", agent.TurnOptions{Buffered: true}, append(reasoning[:len(reasoning):len(reasoning)],
			"TEXT_MESSAGE_END",
			"TOOL_CALL_START r-call-1", `TOOL_CALL_ARGS r-call-1 {"city":"Zürich"}`, "TOOL_CALL_END r-call-1",
			"TOOL_CALL_START r-call-2", `TOOL_CALL_ARGS r-call-2 {"sides":20}`, "TOOL_CALL_END r-call-2",
			"RUN_FINISHED",
		)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events, answer, err := run(t, stream(false), tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			bridgetest.CheckFixture(t, events, answer, tc.want)
		})
	}
}

// A stream cut before message_stop is not an answer; an error event is
// the stream's error.
func TestIncomplete(t *testing.T) {
	_, answer, err := run(t, stream(true), agent.TurnOptions{})
	if answer != nil || err != anthropicmessages.ErrIncomplete {
		t.Errorf("cut: got %v, %v; want no answer and ErrIncomplete", answer, err)
	}
	body := strings.Replace(stream(false), "event: content_block_stop", "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\nevent: content_block_stop", 1)
	if _, _, err := run(t, body, agent.TurnOptions{}); err == nil || !strings.Contains(err.Error(), "Overloaded") {
		t.Errorf("error event: got %v, want the API's error", err)
	}
}

func TestMessagesAndTools(t *testing.T) {
	system, msgs := anthropicmessages.Messages(bridgetest.Conversation)
	got, err := json.Marshal(anthropic.MessageNewParams{System: system, Messages: msgs, Tools: anthropicmessages.Tools(bridgetest.ToolDecls)})
	if err != nil {
		t.Fatal(err)
	}
	// The two results go in one user message, after the assistant's
	// tool_use blocks; the call streamed with no arguments has {}.
	want := `{"max_tokens":0,"messages":[` +
		`{"content":[{"text":"Weather in Zürich?\nAnd a d20.","type":"text"}],"role":"user"},` +
		`{"content":[{"text":"Checking.","type":"text"},` +
		`{"id":"c1","input":{"city":"Zürich"},"name":"get_weather","type":"tool_use"},` +
		`{"id":"c2","input":{},"name":"roll_dice","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"tool_use_id":"c1","is_error":false,"content":[{"text":"{\"tempC\":18}","type":"text"}],"type":"tool_result"},` +
		`{"tool_use_id":"c2","is_error":true,"content":[{"text":"no dice","type":"text"}],"type":"tool_result"}],"role":"user"},` +
		`{"content":[{"text":"18°C; no dice.","type":"text"}],"role":"assistant"}],` +
		`"system":[{"text":"Be brief.","type":"text"}],` +
		`"tools":[{"input_schema":{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"},"name":"get_weather","description":"The weather in a city."},` +
		`{"input_schema":{"properties":{},"type":"object"},"name":"roll_dice"}]}`
	bridgetest.JSONEqual(t, want, got)
}

// A reasoning message that carries its signature comes back as the
// thinking block that starts the next assistant turn; one without (or
// that no assistant turn follows) stays with the user. The message the
// bridge accumulated goes back the same way within a run.
func TestThinkingGoesBack(t *testing.T) {
	_, msgs := anthropicmessages.Messages([]agui.Message{
		agui.UserMessage("u1", "Paris?"),
		{ID: "r1", Role: agui.RoleReasoning, Content: agui.Content{Text: "Look it up."}, EncryptedValue: "sig1"},
		{ID: "a1", Role: agui.RoleAssistant, ToolCalls: []agui.ToolCall{agui.NewToolCall("toolu_1", "get_forecast", `{"city":"Paris"}`)}},
		agui.ToolMessage("t1", "toolu_1", "sunny"),
		{ID: "r2", Role: agui.RoleReasoning, Content: agui.Content{Text: "No signature."}},
		{ID: "a2", Role: agui.RoleAssistant, Content: agui.Content{Text: "Sunny."}},
		{ID: "u2", Role: agui.RoleUser},
	})
	got, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	bridgetest.JSONEqual(t, `[`+
		`{"content":[{"text":"Paris?","type":"text"}],"role":"user"},`+
		`{"content":[{"signature":"sig1","thinking":"Look it up.","type":"thinking"},{"id":"toolu_1","input":{"city":"Paris"},"name":"get_forecast","type":"tool_use"}],"role":"assistant"},`+
		`{"content":[{"tool_use_id":"toolu_1","is_error":false,"content":[{"text":"sunny","type":"text"}],"type":"tool_result"}],"role":"user"},`+
		`{"content":[{"text":"Sunny.","type":"text"}],"role":"assistant"}]`, got)

	client := anthropic.NewClient(option.WithBaseURL(bridgetest.ServeSSE(t, stream(false))), option.WithAPIKey("test"), option.WithMaxRetries(0))
	r, err := agent.Start(agui.RunAgentInput{ThreadID: "t", RunID: "r"}, func(agui.Event) error { return nil }, agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := client.Messages.NewStreaming(t.Context(), anthropic.MessageNewParams{Model: "claude", MaxTokens: 100})
	defer s.Close()
	turn := r.Turn(agent.TurnOptions{})
	b := anthropicmessages.New(turn)
	if _, err := agent.Consume(turn, s, b.Event, anthropicmessages.ErrIncomplete); err != nil {
		t.Fatal(err)
	}
	back, err := json.Marshal(b.Message().ToParam())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(back), `{"signature":"sig==","thinking":"Two calls.","type":"thinking"}`) || !strings.Contains(string(back), `"id":"toolu_b"`) {
		t.Errorf("the accumulated message goes back as %s", back)
	}
}
