package claude

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/textgolden"
)

// The weather desk takes the conformance battery, its own tool
// get_forecast included, each scenario that streams an answer explored
// under 20 other plans; the report is kept in testdata/conform.golden.
// In a Go test the battery runs against the handler in process, as
// "aguitest conform --cmd" runs it against the program.
func TestConform(t *testing.T) {
	// Its waits (the agent's retries of provider-429 and provider-500)
	// overlap the other tests.
	t.Parallel()
	agent := harness.Handler(func(env harness.Env) http.Handler {
		return New(Options{BaseURL: env.BaseURL, APIKey: env.APIKey, Model: "claude-test"})
	})
	rep := conform.Run(t.Context(), agent, conform.Config{
		Tools:   []conform.ServerTool{{Name: "get_forecast", Args: json.RawMessage(`{"city":"Paris"}`), Result: &conform.Value{Matches: `"tempC"`}}},
		Explore: &harness.Explore{Plans: 20},
	})
	var b bytes.Buffer
	if err := rep.WriteJSON(&b, true); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d scenarios in %.1fs: %d passed, %d failed, %d skipped", len(rep.Results), rep.Duration.Seconds(),
		rep.Count(conform.Pass), rep.Count(conform.Fail), rep.Count(conform.Skip))
	textgolden.Check(t, "testdata", "conform", b.Bytes())
}

// The battery as Go cases under harness.Run: each scenario a subtest.
func TestConformCases(t *testing.T) {
	agent := harness.Handler(func(env harness.Env) http.Handler {
		return New(Options{BaseURL: env.BaseURL, APIKey: env.APIKey, Model: "claude-test"})
	})
	harness.Run(t, agent, conform.Cases(conform.Config{Only: []string{"text", "frontend-tool", "parallel-tools", "tool-error"}}), harness.Options{Timeout: conform.DefaultTimeout})
}
