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

func TestAgent(t *testing.T) {
	agent := harness.Handler(func(env harness.Env) http.Handler {
		// Your agent, its LLM client pointed at the scripted model.
		return taskboard.New(taskboard.Options{BaseURL: env.BaseURL, APIKey: env.APIKey})
	})
	harness.Run(t, agent, []harness.Case{{
		Name:   "answers",
		Input:  harness.User("What is on the board?"),
		Script: scripted.Script{Turns: []scripted.Turn{{Text: "Three tasks."}}},
	}, {
		Name:  "parallel-calls",
		Input: harness.User("Add two tasks."),
		Tools: []harness.Tool{{ // offered to the agent, which runs it itself
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
			Plan: scripted.Plan{Order: scripted.Order{By: scripted.RoundRobin}},
		}, {Text: "Added both."}}},
	}})
}
