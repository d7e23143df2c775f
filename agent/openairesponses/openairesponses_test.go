package openairesponses_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agent/internal/bridgetest"
	"github.com/aguitest/aguitest/agent/openairesponses"
	"github.com/aguitest/aguitest/agui"
)

// stream writes a Responses stream as the API sends it: reasoning, text,
// then two function calls whose argument deltas interleave by output_index,
// each closed by its own output_item.done, then response.completed. cut
// stops it before response.completed.
func stream(cut bool) string {
	var b strings.Builder
	seq := 0
	ev := func(typ string, fields string) {
		fmt.Fprintf(&b, "event: %s\ndata: {\"type\":%q,\"sequence_number\":%d,%s}\n\n", typ, typ, seq, fields)
		seq++
	}
	resp := `"response":{"id":"resp_1","object":"response","created_at":1,"status":"%s","model":"m","output":[],"parallel_tool_calls":true,"tool_choice":"auto","tools":[]}`
	ev("response.created", fmt.Sprintf(resp, "in_progress"))
	ev("response.output_item.added", `"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}`)
	ev("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Two "`)
	ev("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"calls."`)
	ev("response.output_item.done", `"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"opaque"}`)
	ev("response.output_item.added", `"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}`)
	ev("response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Checking.","logprobs":[]`)
	ev("response.output_item.added", `"output_index":2,"item":{"id":"fc_a","type":"function_call","status":"in_progress","arguments":"","call_id":"call_a","name":"get_weather"}`)
	ev("response.output_item.added", `"output_index":3,"item":{"id":"fc_b","type":"function_call","status":"in_progress","arguments":"","call_id":"call_b","name":"roll_dice"}`)
	for _, d := range []struct {
		index int
		item  string
		delta string
	}{{2, "fc_a", `{"city":`}, {3, "fc_b", `{"sides":`}, {2, "fc_a", `"Zürich"}`}, {3, "fc_b", `20}`}} {
		q, _ := json.Marshal(d.delta)
		ev("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"delta":%s`, d.item, d.index, q))
	}
	ev("response.output_item.done", `"output_index":3,"item":{"id":"fc_b","type":"function_call","status":"completed","arguments":"{\"sides\":20}","call_id":"call_b","name":"roll_dice"}`)
	ev("response.output_item.done", `"output_index":2,"item":{"id":"fc_a","type":"function_call","status":"completed","arguments":"{\"city\":\"Zürich\"}","call_id":"call_a","name":"get_weather"}`)
	if !cut {
		ev("response.completed", fmt.Sprintf(resp, "completed"))
	}
	return b.String()
}

func run(t *testing.T, body string, opt agent.TurnOptions) ([]agui.Event, *agent.Answer, error) {
	t.Helper()
	var events []agui.Event
	r, err := agent.Start(agui.RunAgentInput{ThreadID: "t", RunID: "r"}, func(e agui.Event) error { events = append(events, e); return nil }, agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	client := openai.NewClient(option.WithBaseURL(bridgetest.ServeSSE(t, body)), option.WithAPIKey("test"), option.WithMaxRetries(0))
	s := client.Responses.NewStreaming(t.Context(), responses.ResponseNewParams{Model: "m"})
	defer s.Close()
	answer, err := openairesponses.Stream(r.Turn(opt), s)
	if err == nil {
		if err := r.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	return events, answer, err
}

func TestStream(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  agent.TurnOptions
		want []string
	}{
		{"streamed", agent.TurnOptions{ProviderIDs: true}, []string{
			"RUN_STARTED", "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT",
			`REASONING_ENCRYPTED_VALUE "opaque"`, "REASONING_MESSAGE_END", "REASONING_END",
			"TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT",
			"TOOL_CALL_START call_a", "TOOL_CALL_START call_b",
			`TOOL_CALL_ARGS call_a {"city":`, `TOOL_CALL_ARGS call_b {"sides":`, `TOOL_CALL_ARGS call_a "Zürich"}`, `TOOL_CALL_ARGS call_b 20}`,
			// Each call ends when its item is done, in the provider's order.
			"TOOL_CALL_END call_b", "TOOL_CALL_END call_a",
			"TEXT_MESSAGE_END", "RUN_FINISHED",
		}},
		{"buffered", agent.TurnOptions{Buffered: true}, []string{
			"RUN_STARTED", "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT",
			`REASONING_ENCRYPTED_VALUE "opaque"`, "REASONING_MESSAGE_END", "REASONING_END",
			"TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
			"TOOL_CALL_START r-call-1", `TOOL_CALL_ARGS r-call-1 {"city":"Zürich"}`, "TOOL_CALL_END r-call-1",
			"TOOL_CALL_START r-call-2", `TOOL_CALL_ARGS r-call-2 {"sides":20}`, "TOOL_CALL_END r-call-2",
			"RUN_FINISHED",
		}},
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

// A stream cut before response.completed is not an answer.
func TestIncomplete(t *testing.T) {
	_, answer, err := run(t, stream(true), agent.TurnOptions{})
	if answer != nil || err != openairesponses.ErrIncomplete {
		t.Errorf("got %v, %v; want no answer and ErrIncomplete", answer, err)
	}
}

func TestInputAndTools(t *testing.T) {
	got, err := json.Marshal(responses.ResponseNewParams{
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: openairesponses.Input(bridgetest.Conversation)},
		Tools: openairesponses.Tools(bridgetest.ToolDecls),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"input":[` +
		`{"content":"Be brief.","role":"system"},` +
		`{"content":"Weather in Zürich?\nAnd a d20.","role":"user"},` +
		`{"content":"Checking.","role":"assistant"},` +
		`{"arguments":"{\"city\":\"Zürich\"}","call_id":"c1","name":"get_weather","type":"function_call"},` +
		`{"arguments":"{}","call_id":"c2","name":"roll_dice","type":"function_call"},` +
		`{"output":"{\"tempC\":18}","call_id":"c1","type":"function_call_output"},` +
		`{"output":"{\"error\":\"no dice\"}","call_id":"c2","type":"function_call_output"},` +
		`{"content":"18°C; no dice.","role":"assistant"}],` +
		`"tools":[{"name":"get_weather","parameters":{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"},"strict":false,"description":"The weather in a city.","type":"function"},` +
		`{"name":"roll_dice","parameters":{"properties":{},"type":"object"},"strict":false,"type":"function"}]}`
	bridgetest.JSONEqual(t, want, got)
}
