package readme_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
)

// TestGoAgent holds docs/writing-agents.md's snippet of an agent built on
// package agent, and runs it through the harness.
func TestGoAgent(t *testing.T) {
	h := agent.Handler(func(ctx context.Context, run *agent.Run) error {
		call, err := run.ToolCall("get_weather")
		if err != nil {
			return err
		}
		if err := call.ArgsJSON(map[string]string{"city": "Seoul"}); err != nil {
			return err
		}
		// The tool runs here, while the call is open.
		if _, err := call.ResultJSON(map[string]int{"tempC": 21}); err != nil {
			return err
		}
		// Misuse is an error naming the rule, and nothing is sent.
		err = call.Args(`{"more":1}`)
		if agent.RuleOf(err) != agui.RuleToolCallNotOpen {
			t.Errorf("arguments after the result: got %v", err)
		}
		return nil
	}, agent.Options{})
	harness.Run(t, harness.Handler(func(harness.Env) http.Handler { return h }), []harness.Case{{
		Name:     "weather",
		Input:    harness.User("Weather in Seoul?"),
		NoGolden: true,
		Check: func(t harness.T, r *harness.Result) {
			if got := r.Messages[len(r.Messages)-1]; got.Role != agui.RoleTool || got.Content.Text != `{"tempC":21}` {
				t.Errorf("last message: got %+v, want the tool's result", got)
			}
		},
	}})
}
