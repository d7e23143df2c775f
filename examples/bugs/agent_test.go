package bugs_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/examples/bugs"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/textgolden"
	"github.com/aguitest/aguitest/scripted"
)

// agent is the agent with bug b (none for bugs.None) on the Go-native
// scripted model, its own tool get_weather.
func agent(b bugs.Bug) harness.Agent {
	return harness.Func(func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		return bugs.Agent{Model: env.Model, Bug: b, Tools: bugs.Weather()}.Run(ctx, in, emit)
	})
}

// httpAgent is the agent with bug b served over HTTP, its model the
// scripted LLM's Chat Completions wire read with openai-go.
func httpAgent(b bugs.Bug) harness.Agent {
	return harness.Handler(func(env harness.Env) http.Handler {
		return bugs.Agent{Model: bugs.NewChatModel(env.BaseURL, env.APIKey), Bug: b, Tools: bugs.Weather()}
	})
}

// The client's tools, which the harness runs as a frontend would.
var (
	showOnMap = harness.Tool{
		Name:       "show_on_map",
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`),
		Run: func(_ context.Context, args json.RawMessage) (string, error) {
			var v struct{ City string }
			err := json.Unmarshal(args, &v)
			return "shown: " + v.City, err
		},
	}
	getLocation = harness.Tool{
		Name: "get_location",
		Run:  func(context.Context, json.RawMessage) (string, error) { return "Seoul", nil },
	}
)

// cases is a plain table, as one writes it for any agent (text, one and
// two calls to the client's tools, two to the agent's own, a call with
// no arguments): no plan, no golden, no check of its own. Exploration
// and fidelity, both on by default, do the rest.
func cases() []harness.Case {
	return []harness.Case{
		{
			Name:   "text",
			Input:  harness.User("Hello?"),
			Script: scripted.Script{Turns: []scripted.Turn{{Text: "Hello! Ask me about the weather."}}},
		},
		{
			Name:  "client-call",
			Input: harness.User("Show Paris on my map."),
			Tools: []harness.Tool{showOnMap},
			Script: scripted.Script{Turns: []scripted.Turn{
				{Text: "Showing it.", Calls: []scripted.Call{{Name: "show_on_map", Args: `{"city":"Paris"}`}}},
				{Text: "Paris is on your map."},
			}},
		},
		{
			Name:  "client-calls",
			Input: harness.User("Show Paris and Rome on my map."),
			Tools: []harness.Tool{showOnMap},
			Script: scripted.Script{Turns: []scripted.Turn{
				{Text: "Showing both.", Calls: []scripted.Call{
					{Name: "show_on_map", Args: `{"city":"Paris"}`},
					{Name: "show_on_map", Args: `{"city":"Rome"}`},
				}},
				{Text: "Both are on your map."},
			}},
		},
		{
			Name:  "own-calls",
			Input: harness.User("Paris or Rome tomorrow?"),
			Script: scripted.Script{Turns: []scripted.Turn{
				{Calls: []scripted.Call{
					{Name: "get_weather", Args: `{"city":"Paris"}`},
					{Name: "get_weather", Args: `{"city":"Rome"}`},
				}},
				{Text: "Rome is warmer: 24°C against 18°C."},
			}},
		},
		{
			Name:  "no-arguments",
			Input: harness.User("Where am I?"),
			Tools: []harness.Tool{getLocation},
			Script: scripted.Script{Turns: []scripted.Turn{
				{Calls: []scripted.Call{{Name: "get_location"}}},
				{Text: "You are in Seoul."},
			}},
		},
	}
}

// TestAgent: the correct agent passes the table under every plan of the
// default exploration, and its goldens (of the case's own plans) hold.
func TestAgent(t *testing.T) {
	harness.Run(t, agent(bugs.None), cases(), harness.Options{Parallel: true})
}

// TestBugsAreCaught runs the table against each agent with a bug, through
// the harness's core, and compares what it reports with
// testdata/failures/<bug>.txt: the cases that fail, and for each its
// problems, among them the exploration's, with the plan as found, the
// smallest failing script it was shrunk to, and what differs under it.
// "go test -update" rewrites the files.
func TestBugsAreCaught(t *testing.T) {
	for _, b := range bugs.Bugs {
		t.Run(string(b), func(t *testing.T) {
			cs := cases()
			for i := range cs {
				cs[i].NoGolden = true
			}
			o := harness.Options{Parallel: true} // the defaults: explored within harness.DefaultPlans
			var out strings.Builder
			explored := false
			for _, r := range o.TestAll(t.Context(), agent(b), cs) {
				if !r.Failed() {
					continue
				}
				out.WriteString("--- FAIL: " + r.Case + "\n")
				for _, p := range r.Problems {
					out.WriteString("    " + strings.ReplaceAll(p.Text, "\n", "\n    ") + "\n")
					if p.Kind == harness.ProblemExplore {
						explored = true
						if !strings.HasPrefix(p.Text, "explore: the case's own plan fails (above)") {
							assert.NotNil(t, r.Exploration.Failure, "a failing exploration has its failure")
						}
					}
				}
			}
			require.True(t, explored, "exploration caught nothing:\n%s", out.String())
			textgolden.Check(t, "testdata/failures", strings.NewReplacer("#", "-", "/", "-").Replace(string(b)), []byte(out.String()))
		})
	}
}

// TestOverHTTP: the same agents over HTTP, on the Chat Completions wire:
// the correct one passes the table under every plan that wire can
// express; one that drops the arguments arriving with a call's name is
// caught, as on the Go-native model.
func TestOverHTTP(t *testing.T) {
	o := harness.Options{Explore: &harness.Explore{Plans: 40}, Parallel: true}
	cs := cases()
	for i := range cs {
		cs[i].NoGolden = true
	}
	for _, r := range o.TestAll(t.Context(), httpAgent(bugs.None), cs) {
		assert.False(t, r.Failed(), "%s: %v", r.Case, r.Err())
		if assert.NotNil(t, r.Exploration, r.Case) {
			assert.Equal(t, []scripted.Wire{scripted.WireChat}, r.Exploration.Wires)
		}
	}
	r := o.Test(t.Context(), httpAgent(bugs.FirstChunkArgs), cs[2])
	require.NotNil(t, r.Exploration)
	require.NotNil(t, r.Exploration.Failure, "%v", r.Err())
	assert.Contains(t, r.Exploration.Failure.Script.GoString(), "WithName: true")
}

// TestWhatCatchesEachBug runs the plain table against each agent with a
// bug, with the verifier alone, with fidelity, with exploration, and with
// both, the harness's default options: only both catch every bug, and
// the defaults do.
func TestWhatCatchesEachBug(t *testing.T) {
	type layers struct{ verifier, fidelity, explore, both bool }
	want := map[bugs.Bug]layers{
		bugs.WrongID:         {explore: true, both: true},
		bugs.MergedCalls:     {verifier: true, fidelity: true, explore: true, both: true},
		bugs.FirstChunkArgs:  {explore: true, both: true},
		bugs.FirstClientCall: {fidelity: true, both: true},
		bugs.SharedResultID:  {fidelity: true, both: true},
	}
	caught := func(b bugs.Bug, fidelity, explore bool) bool {
		cs := cases()
		for i := range cs {
			cs[i].NoGolden = true
		}
		o := harness.Options{Parallel: true} // explored by default
		if !fidelity {
			o.Relax = harness.Fidelities
		}
		if !explore {
			o.Explore = &harness.Explore{Off: true}
		}
		for _, r := range o.TestAll(t.Context(), agent(b), cs) {
			if r.Failed() {
				return true
			}
		}
		return false
	}
	for _, b := range bugs.Bugs {
		got := layers{
			verifier: caught(b, false, false),
			fidelity: caught(b, true, false),
			explore:  caught(b, false, true),
			both:     caught(b, true, true),
		}
		assert.Equal(t, want[b], got, "%s: what catches it", b)
	}
}
