package openairesponses_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agent/internal/bridgetest"
	"github.com/aguitest/aguitest/agent/openairesponses"
	"github.com/aguitest/aguitest/harness"
)

func respAgent(opt agent.TurnOptions) harness.Agent {
	return harness.Handler(func(env harness.Env) http.Handler {
		client := openai.NewClient(option.WithBaseURL(env.BaseURL), option.WithAPIKey(env.APIKey), option.WithMaxRetries(0))
		return agent.Handler(func(ctx context.Context, run *agent.Run) error {
			s := client.Responses.NewStreaming(ctx, responses.ResponseNewParams{
				Model: "m",
				Input: responses.ResponseNewParamsInputUnion{OfInputItemList: openairesponses.Input(run.Input().Messages)},
				Tools: openairesponses.Tools(run.Tools()),
			})
			defer s.Close()
			_, err := openairesponses.Stream(run.Turn(opt), s)
			return err
		}, agent.Options{})
	})
}

// TestHarness runs the bridge through the harness on the scripted LLM's
// Responses wire under every plan the wire can express, in both modes.
func TestHarness(t *testing.T) {
	bridgetest.RequireWire(t, "/responses")
	plans := bridgetest.Plans(bridgetest.Wire{IDsEvery: true})
	for _, mode := range []struct {
		name string
		opt  agent.TurnOptions
	}{{"streamed", agent.TurnOptions{}}, {"buffered", agent.TurnOptions{Buffered: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			harness.Run(t, respAgent(mode.opt), bridgetest.Cases(mode.name, plans, []string{"run-1-call-1", "run-1-call-2", "run-1-call-3"}), harness.Options{Parallel: true})
		})
	}
}

// TestHarnessExplored explores the bridge's case beyond the plans listed
// above, in both modes.
func TestHarnessExplored(t *testing.T) {
	bridgetest.RequireWire(t, "/responses")
	for _, mode := range []struct {
		name string
		opt  agent.TurnOptions
	}{{"streamed", agent.TurnOptions{}}, {"buffered", agent.TurnOptions{Buffered: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			harness.Run(t, respAgent(mode.opt), bridgetest.Explored(mode.name, bridgetest.Wire{IDsEvery: true}, []string{"run-1-call-1", "run-1-call-2", "run-1-call-3"}, 30))
		})
	}
}
