package anthropicmessages_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agent/anthropicmessages"
	"github.com/aguitest/aguitest/agent/internal/bridgetest"
	"github.com/aguitest/aguitest/harness"
)

func claudeAgent(opt agent.TurnOptions) harness.Agent {
	return harness.Handler(func(env harness.Env) http.Handler {
		client := anthropic.NewClient(option.WithBaseURL(strings.TrimSuffix(env.BaseURL, "/v1")), option.WithAPIKey(env.APIKey), option.WithMaxRetries(0))
		return agent.Handler(func(ctx context.Context, run *agent.Run) error {
			system, msgs := anthropicmessages.Messages(run.Input().Messages)
			s := client.Messages.NewStreaming(ctx, anthropic.MessageNewParams{Model: "claude", MaxTokens: 100, System: system, Messages: msgs, Tools: anthropicmessages.Tools(run.Tools())})
			defer s.Close()
			_, err := anthropicmessages.Stream(run.Turn(opt), s)
			return err
		}, agent.Options{})
	})
}

// TestHarness runs the bridge through the harness on the scripted LLM's
// Messages wire under every plan the wire can express, in both modes.
func TestHarness(t *testing.T) {
	bridgetest.RequireWire(t, "/messages")
	plans := bridgetest.Plans(bridgetest.Wire{})
	for _, mode := range []struct {
		name string
		opt  agent.TurnOptions
	}{{"streamed", agent.TurnOptions{ProviderIDs: true}}, {"buffered", agent.TurnOptions{Buffered: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			ids := []string{"run-1-call-1", "run-1-call-2", "run-1-call-3"}
			if mode.opt.ProviderIDs {
				ids = nil
			}
			harness.Run(t, claudeAgent(mode.opt), bridgetest.Cases(mode.name, plans, ids), harness.Options{Parallel: true})
		})
	}
}

// TestHarnessExplored explores the bridge's case beyond the plans listed
// above, in both modes.
func TestHarnessExplored(t *testing.T) {
	bridgetest.RequireWire(t, "/messages")
	for _, mode := range []struct {
		name string
		opt  agent.TurnOptions
	}{{"streamed", agent.TurnOptions{ProviderIDs: true}}, {"buffered", agent.TurnOptions{Buffered: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			ids := []string{"run-1-call-1", "run-1-call-2", "run-1-call-3"}
			if mode.opt.ProviderIDs {
				ids = nil
			}
			harness.Run(t, claudeAgent(mode.opt), bridgetest.Explored(mode.name, bridgetest.Wire{}, ids, 30))
		})
	}
}
