package readme_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/aguitest/aguitest/examples/taskboard"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// TestExplore is README's table explored (docs/testing-agents.md): each
// case also runs under 100 other plans of its script, and the goldens are
// those of the cases' own plans.
func TestExplore(t *testing.T) {
	agent := harness.Handler(func(env harness.Env) http.Handler {
		return taskboard.New(taskboard.Options{BaseURL: env.BaseURL, APIKey: env.APIKey})
	})
	cases := []harness.Case{{
		Name:   "answers",
		Input:  harness.User("What is on the board?"),
		Script: scripted.Script{Turns: []scripted.Turn{{Text: "Three tasks."}}},
	}, {
		Name:  "parallel-calls",
		Input: harness.User("Add two tasks."),
		Tools: []harness.Tool{{
			Name: "add_task",
			Run: func(ctx context.Context, args json.RawMessage) (string, error) {
				return "", errors.New("the agent answers add_task itself")
			},
		}},
		Script: scripted.Script{Turns: []scripted.Turn{{
			Calls: []scripted.Call{
				{Name: "add_task", Args: `{"title":"Spec"}`},
				{Name: "add_task", Args: `{"title":"Release"}`},
			},
		}, {Text: "Added both."}}},
	}}
	harness.Run(t, agent, cases, harness.Options{Explore: &harness.Explore{}})
}
