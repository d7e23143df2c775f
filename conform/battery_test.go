package conform_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/harness"
)

// refConfig names refAgent's own tool and the tool it asks about.
var refConfig = conform.Config{
	Tools:      []conform.ServerTool{{Name: "get_forecast", Args: json.RawMessage(`{"city":"Paris"}`), Result: &conform.Value{Matches: `"tempC":18`}}},
	Interrupts: []conform.InterruptTool{{Tool: "delete_file", Args: json.RawMessage(`{"path":"notes.txt"}`), Payload: json.RawMessage(`{"approved":true}`)}},
}

// A correct agent takes the whole battery.
func TestBatteryPasses(t *testing.T) {
	rep := conform.Run(t.Context(), harness.Func(refAgent{}.Run), refConfig)
	assert.NoError(t, rep.Err)
	assert.Len(t, rep.Results, len(conform.Names))
	for _, r := range rep.Results {
		assert.Equal(t, conform.Pass, r.Status, "%s: %s %v", r.Name, r.Reason, r.Problems)
	}
}

// Each bug real agents have fails the scenario made for it, saying what
// is wrong.
func TestBatteryCatchesBugs(t *testing.T) {
	tests := []struct {
		bug      bug
		scenario string
		want     string
	}{
		{dropsToolError, "tool-error-field", `request 2 to the model: no tool result holds the error "sensor offline: no reading for 5 minutes" the client posted in the tool message's error field`},
		{swallowsFailure, "provider-500", "want a run ending with RUN_ERROR (any message and code), got none: run 1 finished"},
		{dropsLastCall, "parallel-tools", `turn 1: the model called lookup_contact with {"name":"Grace"} (call 2); the client holds no such call`},
		{resetsState, "state", `the client's state after the run: got {"agent":"fresh"}, want the state it sent`},
		{forgetsHistory, "follow-up", `request 2 to the model: want the conversation so far, with a user message holding "France"`},
		{runsWithoutAsking, "interrupt/delete_file", "run 1 finished without an interrupt: the server did not ask the user before delete_file"},
		{renamesCallArgs, "frontend-tool", `the model called lookup_contact with {"name":"Zoë \"Z\" Ångström","city":"東京"} (call 1); the client holds no such call; it holds lookup_contact {"name":"Zoë \"Z\" Ångström"}`},
		{echoesText, "text", "holds text the model did not say"},
		{openCallOnFailure, "provider-disconnect", "args-not-json"},
		{sharesResultID, "backend-calls", `the client holds 2 messages under the id "`},
		{runsToolWithoutArgs, "text-after-calls", `the model called get_forecast with {"city":"Paris"}; request 2 to the model carries the call (id call_1_1) with {}`},
		{joinsStepText, "text-after-calls", `holds "Let me check that for you.Here is what I found.": the texts of two of the model's turns in one message`},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			cfg := refConfig
			cfg.Only = []string{tt.scenario}
			rep := conform.Run(t.Context(), harness.Func(refAgent{bug: tt.bug}.Run), cfg)
			if !assert.Len(t, rep.Results, 1) {
				return
			}
			r := rep.Results[0]
			assert.Equal(t, conform.Fail, r.Status)
			var texts []string
			for _, p := range r.Problems {
				texts = append(texts, p.Text)
			}
			assert.Contains(t, strings.Join(texts, "\n"), tt.want)
		})
	}
}

// The battery as Go cases, in a test: each scenario is a subtest.
func TestCases(t *testing.T) {
	harness.Run(t, harness.Func(refAgent{}.Run), conform.Cases(refConfig), harness.Options{Timeout: conform.DefaultTimeout})
}

// An interrupt answered by its reason, for a server whose interrupt names
// a call the client does not hold, is resumed as one answered by its tool.
func TestInterruptByReason(t *testing.T) {
	cfg := refConfig
	cfg.Interrupts = []conform.InterruptTool{{Tool: "delete_file", Reason: "approval", Args: json.RawMessage(`{"path":"notes.txt"}`), Payload: json.RawMessage(`{"approved":true}`)}}
	cfg.Only = []string{"interrupt"}
	rep := conform.Run(t.Context(), harness.Func(refAgent{}.Run), cfg)
	if assert.Len(t, rep.Results, 1) {
		assert.Equal(t, conform.Pass, rep.Results[0].Status, "%v", rep.Results[0].Problems)
	}
}

// Under exploration, each scenario that streams a model's answer runs
// under other plans too: the correct agent passes under every one, and
// an agent that drops the last of parallel calls fails.
func TestBatteryExplored(t *testing.T) {
	cfg := refConfig
	cfg.Explore = &harness.Explore{Plans: 12, Seed: 3}
	rep := conform.Run(t.Context(), harness.Func(refAgent{}.Run), cfg)
	explored := 0
	for _, r := range rep.Results {
		assert.Equal(t, conform.Pass, r.Status, "%s: %v", r.Name, r.Problems)
		if r.Harness.Exploration != nil {
			explored++
			assert.Contains(t, strings.Join(r.Notes, "\n"), "explored under ")
		}
	}
	assert.Equal(t, 16, explored, "every scenario but the four provider failures and client-disconnect")
}
