package harness_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// newAgent stands for your agent's constructor: an http.Handler that
// serves AG-UI and whose OpenAI client uses env.BaseURL.
func newAgent(env harness.Env) http.Handler { return http.NotFoundHandler() }

// A table-driven agent test, as it stands in a _test.go file. The first
// case is a frontend-tool round trip: the agent calls get_user_location,
// the harness runs it as a client would and posts the next run, the agent
// answers. Goldens are kept in testdata/TestAgent/; "go test -update"
// writes them.
func ExampleRun() {
	TestAgent := func(t *testing.T) {
		harness.Run(t, harness.Handler(newAgent), []harness.Case{
			{
				Name:  "location",
				Input: harness.User("Where am I?"),
				Tools: []harness.Tool{{
					Name: "get_user_location",
					Run:  func(context.Context, json.RawMessage) (string, error) { return `{"city":"Seoul"}`, nil },
				}},
				Script: scripted.Script{Turns: []scripted.Turn{
					{Calls: []scripted.Call{{ID: "c1", Name: "get_user_location"}}},
					{Expect: scripted.Expect{ToolResults: []string{"c1"}}, Text: "You are in Seoul."},
				}},
				Check: func(t *testing.T, r *harness.Result) {
					if got := r.LastText(); got != "You are in Seoul." {
						t.Errorf("answer: got %q", got)
					}
				},
			},
			{
				Name:  "parallel calls, any interleaving",
				Input: harness.User("Add two tasks."),
				Script: scripted.Script{Turns: []scripted.Turn{{
					Calls: []scripted.Call{{Name: "add_task", Args: `{"title":"a"}`}, {Name: "add_task", Args: `{"title":"b"}`}},
					Plan:  scripted.Plan{Split: scripted.Split{Size: 3}, Order: scripted.Order{By: scripted.Shuffle}, Seed: 1},
				}}},
			},
		})
	}
	_ = TestAgent
}
