package harness_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/oracle"
)

// viewAgent answers the first request with text reopened around a call to
// a frontend tool (Mastra's chunks), an activity and state; the second
// with text, an activity delta and a state delta.
func viewAgent(_ context.Context, _ harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
	ev := func(s string) agui.Event {
		e, err := agui.ParseEvent([]byte(s))
		if err != nil {
			panic(err)
		}
		return e
	}
	events := []agui.Event{agui.NewRunStarted(in.ThreadID, in.RunID)}
	if len(in.Messages) == 1 {
		events = append(events,
			ev(`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"Let me "}`),
			ev(`{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"get_user_location","parentMessageId":"m1","delta":"{}"}`),
			ev(`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"look."}`),
			ev(`{"type":"ACTIVITY_SNAPSHOT","messageId":"a1","activityType":"plan","content":{"steps":["locate"]}}`),
			ev(`{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}`),
			ev(`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/where","value":null}]}`),
		)
	} else {
		events = append(events,
			agui.NewTextMessageStart("m2"),
			agui.NewTextMessageContent("m2", "You are in Seoul."),
			agui.NewTextMessageEnd("m2"),
			ev(`{"type":"ACTIVITY_DELTA","messageId":"a1","activityType":"plan","patch":[{"op":"add","path":"/steps/-","value":"answer"}]}`),
			ev(`{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/where","value":"Seoul"}]}`),
		)
	}
	for _, e := range append(events, agui.NewRunFinished(in.ThreadID, in.RunID)) {
		if err := emit(e); err != nil {
			return err
		}
	}
	return nil
}

// TestResultIsTheClientsView runs a two-request conversation and holds
// what the harness posts and keeps against HttpAgent of @ag-ui/client:
// served the first response, the client must hold what the harness then
// posts (its activity messages aside, plus the tool's result); served the
// second, what Result.Messages and Result.State hold.
func TestResultIsTheClientsView(t *testing.T) {
	var res *harness.Result
	harness.Run(t, harness.Func(viewAgent), []harness.Case{{
		Name:  "location",
		Input: harness.User("Where am I?"),
		Tools: []harness.Tool{{Name: "get_user_location", Run: func(context.Context, json.RawMessage) (string, error) { return "Seoul", nil }}},
		Check: func(t harness.T, r *harness.Result) { res = r },
		// The golden is not the point here.
		NoGolden: true,
	}}, harness.Options{Dir: t.TempDir()})
	require.NotNil(t, res)
	require.Len(t, res.Runs, 2)

	dir := oracle.Dir(t, "the comparison of harness.Result with @ag-ui/client's agent")
	first := clientAfter(t, dir, res.Runs[0].Input.Messages, res.Runs[0].Input.State, res.Runs[0].Events)

	// What the harness posts next: the client's messages but its activity,
	// then the tool's result; and its state.
	var sent []json.RawMessage
	for _, m := range first.Messages {
		var role struct{ Role string }
		require.NoError(t, json.Unmarshal(m, &role))
		if role.Role != "activity" {
			sent = append(sent, m)
		}
	}
	// The result's id is the client's to mint (a UUID).
	posted := res.Runs[1].Input.Messages
	toolMsg, err := json.Marshal(agui.ToolMessage(posted[len(posted)-1].ID, "c1", "Seoul"))
	require.NoError(t, err)
	sent = append(sent, toolMsg)
	assert.JSONEq(t, jsonList(t, sent), jsonOf(t, res.Runs[1].Input.Messages), "the messages of the second request")
	assert.JSONEq(t, string(first.State), string(res.Runs[1].Input.State), "the state of the second request")

	// The client keeps its activity messages between requests.
	var history []agui.Message
	require.NoError(t, json.Unmarshal([]byte(jsonList(t, append(first.Messages, toolMsg))), &history))
	second := clientAfter(t, dir, history, first.State, res.Runs[1].Events)
	assert.JSONEq(t, jsonList(t, second.Messages), jsonOf(t, res.Messages), "Result.Messages")
	assert.JSONEq(t, string(second.State), string(res.State), "Result.State")
	assert.Equal(t, "You are in Seoul.", res.LastText())
}

type clientResult struct {
	OK       bool              `json:"ok"`
	Error    string            `json:"error"`
	Messages []json.RawMessage `json:"messages"`
	State    json.RawMessage   `json:"state"`
}

// clientAfter serves events to HttpAgent, whose agent starts with history
// and state, and returns what it holds after the run.
func clientAfter(t *testing.T, dir string, history []agui.Message, state json.RawMessage, events []agui.Event) clientResult {
	t.Helper()
	var body bytes.Buffer
	enc := agui.NewSSEEncoder(&body)
	for _, e := range events {
		require.NoError(t, enc.Encode(e))
	}
	if history == nil {
		history = []agui.Message{}
	}
	msgs, err := json.Marshal(history)
	require.NoError(t, err)
	line, err := json.Marshal(map[string]any{"body": base64.StdEncoding.EncodeToString(body.Bytes()), "messages": json.RawMessage(msgs), "state": state})
	require.NoError(t, err)
	r := oracle.Run[clientResult](t, dir, "httpagent.mjs", [][]byte{line})[0]
	require.True(t, r.OK, "the client rejects the run: %s", r.Error)
	return r
}

func jsonList(t *testing.T, items []json.RawMessage) string {
	t.Helper()
	if items == nil {
		return "[]"
	}
	b, err := json.Marshal(items)
	require.NoError(t, err)
	return string(b)
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// What the client warns about and the verifier does not see is reported:
// a patch that does not apply, a call attached to a user's message.
func TestClientWarningsAreReported(t *testing.T) {
	agent := harness.Func(func(_ context.Context, _ harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		for _, s := range []string{
			`{"type":"RUN_STARTED","threadId":"` + in.ThreadID + `","runId":"` + in.RunID + `"}`,
			`{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}`,
			`{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2},{"op":"remove","path":"/missing"}]}`,
			`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"user-1"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"c1"}`,
			`{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c1","content":"ok"}`,
			`{"type":"RUN_FINISHED","threadId":"` + in.ThreadID + `","runId":"` + in.RunID + `"}`,
		} {
			e, err := agui.ParseEvent([]byte(s))
			if err != nil {
				return err
			}
			if err := emit(e); err != nil {
				return err
			}
		}
		return nil
	})
	r := harness.Options{}.Test(t.Context(), agent, harness.Case{Name: "warnings", Input: harness.Input{Messages: []agui.Message{agui.UserMessage("user-1", "hi")}}, NoGolden: true})
	var got []string
	for _, p := range r.Problems {
		assert.Equal(t, harness.ProblemClient, p.Kind, p.Text)
		got = append(got, p.Text)
	}
	assert.Equal(t, []string{
		"run 1: event 3 (STATE_DELTA): the patch does not apply to the state, which the client keeps as it was: operation 1: OPERATION_PATH_UNRESOLVABLE: Cannot perform the operation at a path that does not exist",
		"run 1: event 4 (TOOL_CALL_START): parentMessageId 'user-1' names a user message, not an assistant's; the client puts the call in a new assistant message 'c1'",
	}, got)
	require.NotNil(t, r.Result)
	assert.Contains(t, string(r.Result.State), `"n":1`, "the client keeps its state when a patch fails")
}
