package readme_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/examples/claude"
	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/harness"
)

func TestConformance(t *testing.T) {
	// Its waits (the provider-429 and provider-500 scenarios wait out the
	// agent's retries) overlap the other tests, and each other's.
	t.Parallel()
	agent := harness.Handler(func(env harness.Env) http.Handler {
		return claude.New(claude.Options{BaseURL: env.BaseURL, APIKey: env.APIKey})
	})
	harness.Run(t, agent, conform.Cases(conform.Config{
		Tools: []conform.ServerTool{{Name: "get_forecast", Args: json.RawMessage(`{"city":"Paris"}`)}},
	}), harness.Options{Parallel: true})
}

// cases.yaml, quoted in docs/conformance.md, runs as "aguitest test
// cases.yaml" runs it, against the weather desk; its goldens are in
// testdata/cases.
func TestCaseFile(t *testing.T) {
	// The overloaded case waits out the client's backoff: it overlaps
	// TestConformance's waits.
	t.Parallel()
	f, err := conform.LoadCases("cases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	guide, err := os.ReadFile("../../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile("cases.yaml")
	if !strings.Contains(string(guide), string(text)) {
		t.Errorf("docs/conformance.md does not quote cases.yaml as it is")
	}
	agent := harness.Handler(func(env harness.Env) http.Handler {
		return claude.New(claude.Options{BaseURL: env.BaseURL, APIKey: env.APIKey})
	})
	o := harness.Options{Dir: f.GoldenDir(), Update: golden.Update()}
	for i, rep := range o.TestAll(t.Context(), agent, f.Cases) {
		for _, p := range rep.Problems {
			t.Errorf("cases.yaml:%d: %s", f.Lines[i], p.Text)
		}
	}
}
