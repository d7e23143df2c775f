package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

var brokenTool = harness.Tool{
	Name:       "read_sensor",
	Parameters: json.RawMessage(`{"type":"object","properties":{"sensor":{"type":"string"}}}`),
	Run: func(context.Context, json.RawMessage) (string, error) {
		return "", errors.New("sensor offline")
	},
}

// toolMessage is what a tool message the client posted says.
type toolMessage struct{ Content, Error string }

// The harness posts a failed frontend tool as the frontend it plays does:
// CopilotKit (the default) as content "Error: <message>" and no run after
// it unless another call of the round succeeded (then the client waits for
// the user); HttpAgent as the error field, and a run after it.
func TestFrontendToolError(t *testing.T) {
	failing := scripted.Turn{Calls: []scripted.Call{{ID: "s1", Name: "read_sensor", Args: `{"sensor":"kitchen"}`}}}
	both := scripted.Turn{Calls: []scripted.Call{
		{ID: "s1", Name: "read_sensor", Args: `{"sensor":"kitchen"}`},
		{ID: "l1", Name: "get_user_location"},
	}}
	answer := scripted.Turn{Expect: scripted.Expect{ToolResults: []string{"s1"}}, Text: "The sensor is offline."}
	tests := []struct {
		name      string
		frontend  harness.Frontend
		turns     []scripted.Turn
		followUps []string
		runs      int
		want      toolMessage
	}{
		{"copilotkit by default: no run after a failed tool", "", []scripted.Turn{failing}, nil, 1, toolMessage{Content: "Error: sensor offline"}},
		{"copilotkit: the result goes with the user's next message", harness.FrontendCopilotKit, []scripted.Turn{failing, answer}, []string{"Try again?"}, 2, toolMessage{Content: "Error: sensor offline"}},
		{"copilotkit: another call succeeded, so the client runs again", harness.FrontendCopilotKit, []scripted.Turn{both, answer}, nil, 2, toolMessage{Content: "Error: sensor offline"}},
		{"httpagent: the error field, and a run after it", harness.FrontendHTTPAgent, []scripted.Turn{failing, answer}, nil, 2, toolMessage{Error: "sensor offline"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := harness.Options{Frontend: tt.frontend}.Test(t.Context(), harness.Func(chatAgent(false)), harness.Case{
				Name:     "sensor",
				Input:    harness.Input{Messages: harness.User("How warm is the kitchen?").Messages, FollowUps: tt.followUps},
				Tools:    []harness.Tool{brokenTool, locationTool},
				Script:   scripted.Script{Turns: tt.turns},
				NoGolden: true,
			})
			require.NoError(t, rep.Err())
			if got := len(rep.Result.Runs); got != tt.runs {
				t.Errorf("got %d runs, want %d", got, tt.runs)
			}
			var got []toolMessage
			for _, m := range rep.Result.Messages {
				if m.Role == agui.RoleTool && m.ToolCallID == "s1" {
					got = append(got, toolMessage{m.Content.Text, m.Error})
				}
			}
			if diff := cmp.Diff([]toolMessage{tt.want}, got); diff != "" {
				t.Errorf("the failed tool's message (-want +got):\n%s", diff)
			}
			if tt.runs > 1 {
				// The next run carries it.
				var sent []toolMessage
				for _, m := range rep.Result.Runs[1].Input.Messages {
					if m.Role == agui.RoleTool && m.ToolCallID == "s1" {
						sent = append(sent, toolMessage{m.Content.Text, m.Error})
					}
				}
				if diff := cmp.Diff([]toolMessage{tt.want}, sent); diff != "" {
					t.Errorf("run 2's tool message (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// A frontend the harness does not know fails the case at its start.
func TestFrontendUnknown(t *testing.T) {
	rep := harness.Options{Frontend: "netscape"}.Test(t.Context(), harness.Func(chatAgent(false)), harness.Case{
		Name: "x", Input: harness.User("hi"), Script: scripted.Script{Turns: []scripted.Turn{{Text: "hi"}}}, NoGolden: true,
	})
	require.NotEmpty(t, rep.Problems)
	if got, want := rep.Problems[0].Text, `harness: Options.Frontend: unknown frontend "netscape": want one of copilotkit, httpagent`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, s := range []string{"", "copilotkit", "httpagent"} {
		if _, err := harness.ParseFrontend(s); err != nil {
			t.Errorf("ParseFrontend(%q): %v", s, err)
		}
	}
}
