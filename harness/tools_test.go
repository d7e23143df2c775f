package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/oracle"
)

// noArgsRun is the first run of the seed's location scenario: the agent
// asks for get_user_location() with no arguments, a START and an END with
// no TOOL_CALL_ARGS between them, and leaves the call to the client.
func noArgsRun(threadID, runID string) []agui.Event {
	return []agui.Event{
		agui.NewRunStarted(threadID, runID),
		agui.NewToolCallStart("loc-1", "get_user_location", "msg-a"),
		agui.NewToolCallEnd("loc-1"),
		agui.NewRunFinished(threadID, runID),
	}
}

// locationAgent asks for the location, then answers with the tool's
// result once it comes back.
func locationAgent(_ context.Context, _ harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
	events := noArgsRun(in.ThreadID, in.RunID)
	if last := in.Messages[len(in.Messages)-1]; last.Role == agui.RoleTool {
		events = []agui.Event{
			agui.NewRunStarted(in.ThreadID, in.RunID),
			agui.NewTextMessageStart("msg-b"),
			agui.NewTextMessageContent("msg-b", "You are in "+last.Content.Text+"."),
			agui.NewTextMessageEnd("msg-b"),
			agui.NewRunFinished(in.ThreadID, in.RunID),
		}
	}
	for _, e := range events {
		if err := emit(e); err != nil {
			return err
		}
	}
	return nil
}

// A call streamed with no arguments reaches the frontend tool as {}, and
// the next run carries it back as the reference client holds it.
func TestToolWithoutArguments(t *testing.T) {
	var args []string
	var res *harness.Result
	harness.Run(t, harness.Func(locationAgent), []harness.Case{{
		Name:  "location",
		Input: harness.User("Where am I?"),
		Tools: []harness.Tool{{
			Name: "get_user_location",
			Run: func(ctx context.Context, a json.RawMessage) (string, error) {
				args = append(args, string(a))
				return "Seoul", ctx.Err()
			},
		}},
		NoGolden: true,
		Check:    func(t harness.T, r *harness.Result) { res = r },
	}}, harness.Options{Dir: t.TempDir()})
	assert.Equal(t, []string{"{}"}, args, "the arguments Tool.Run got")
	require.NotNil(t, res)
	require.Len(t, res.Runs, 2)
	assert.Equal(t, "You are in Seoul.", res.LastText())

	// The reference client, served the same first run, holds the call with
	// the arguments it streamed: none, "". The harness posts it back so.
	dir := oracle.Dir(t, "the comparison with @ag-ui/client's messages")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		enc := agui.NewSSEEncoder(w)
		for _, e := range noArgsRun("thread-1", "run-1") {
			if err := enc.Encode(e); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	cmd := exec.Command("node", filepath.Join(dir, "replay-client.mjs"), srv.URL, "thread-1", "run-1")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "node: %s", stderr.Bytes())
	var client struct {
		OK       bool           `json:"ok"`
		Error    string         `json:"error"`
		Messages []agui.Message `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(out, &client), "%s", out)
	require.True(t, client.OK, client.Error)
	require.Len(t, client.Messages, 1, "%s", out)

	posted := res.Runs[1].Input.Messages
	require.Len(t, posted, 3, "user, assistant, tool")
	want, err := json.Marshal(client.Messages[0])
	require.NoError(t, err)
	got, err := json.Marshal(posted[1])
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got), "the assistant message of the second run, against @ag-ui/client's")
	assert.Equal(t, "", posted[1].ToolCalls[0].Function.Arguments)
	assert.Equal(t, agui.RoleTool, posted[2].Role)
	assert.Equal(t, "loc-1", posted[2].ToolCallID)
}

// An agent may answer, in the next run, a call that came back in the
// input history: the verifier knows the run's input, so this is no
// result-unknown-call. A case can waive a rule by name and keep the rest.
func TestResultForACallFromHistory(t *testing.T) {
	agent := func(results int) func(context.Context, harness.Env, agui.RunAgentInput, func(agui.Event) error) error {
		return func(_ context.Context, _ harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
			events := noArgsRun(in.ThreadID, in.RunID)
			if len(in.Messages) > 1 {
				events = []agui.Event{agui.NewRunStarted(in.ThreadID, in.RunID)}
				for i := range results {
					events = append(events, agui.NewToolCallResult(fmt.Sprintf("res-%d", i+1), "loc-1", "Seoul"))
				}
				events = append(events, agui.NewRunFinished(in.ThreadID, in.RunID))
			}
			for _, e := range events {
				if err := emit(e); err != nil {
					return err
				}
			}
			return nil
		}
	}
	tests := []struct {
		name    string
		results int
		allow   []agui.Rule
	}{
		{"one result", 1, nil},
		{"two results, duplicate-result waived", 2, []agui.Rule{agui.RuleDuplicateResult}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res *harness.Result
			harness.Run(t, harness.Func(agent(tt.results)), []harness.Case{{
				Name:     "history",
				Input:    harness.User("Where am I?"),
				Tools:    []harness.Tool{locationTool},
				NoGolden: true,
				Allow:    tt.allow,
				Check:    func(t harness.T, r *harness.Result) { res = r },
			}}, harness.Options{Dir: t.TempDir()})
			require.NotNil(t, res)
			require.Len(t, res.Runs, 2)
			assert.Empty(t, res.Runs[1].Violations)
		})
	}
}
