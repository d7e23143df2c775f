package tsagent

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/oracle"
	"github.com/aguitest/aguitest/scripted"
)

// build compiles server.ts, once for the tests of the binary, or skips
// when Node or the npm packages are missing (a failure under CI).
func build(t *testing.T) {
	t.Helper()
	oracle.Need(t, ".", "typescript", "the TypeScript agent")
	if out, err := compile(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}

var compile = sync.OnceValues(func() ([]byte, error) {
	if built() {
		return nil, nil
	}
	return exec.Command("node", filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", ".").CombinedOutput()
})

// built says dist/server.js is newer than what tsc compiles it from (the
// source, the configuration and the installed packages), as make would
// decide: compiling takes longer than the tests of the program.
func built() bool {
	out, err := os.Stat(filepath.Join("dist", "server.js"))
	if err != nil {
		return false
	}
	for _, in := range []string{"server.ts", "tsconfig.json", "package.json", filepath.Join("node_modules", ".package-lock.json")} {
		fi, err := os.Stat(in)
		if err != nil || !fi.ModTime().Before(out.ModTime()) {
			return false
		}
	}
	return true
}

var weatherTool = harness.Tool{
	Name:        "get_weather",
	Description: "The weather in a city, read on the user's device.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
	Run: func(_ context.Context, args json.RawMessage) (string, error) {
		var a struct{ City string }
		if err := json.Unmarshal(args, &a); err != nil {
			return "", err
		}
		return `{"city":"` + a.City + `","tempC":21}`, nil
	},
}

// noteTool is a client tool whose schema nests objects and arrays, bounds
// numbers and lists enum values.
var noteTool = harness.Tool{
	Name:        "save_note",
	Description: "Saves a note on the user's device.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"title":{"type":"string","minLength":1,"maxLength":80},"body":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},"color":{"enum":["yellow","blue"]},"stars":{"type":"integer","minimum":0,"maximum":5},"remind":{"type":"object","properties":{"at":{"type":"string","format":"date-time"},"repeat":{"type":"boolean"}}}},"required":["title"]}`),
	Run:         func(context.Context, json.RawMessage) (string, error) { return "saved", nil },
}

func TestTypeScriptAgent(t *testing.T) {
	build(t)
	agent := harness.Command("node", "dist/server.js")
	cases := []harness.Case{
		{
			Name:   "text",
			Input:  harness.User("Say hello."),
			Script: scripted.Script{Turns: []scripted.Turn{{Text: "Hello from TypeScript!", Plan: scripted.Plan{Split: scripted.Split{By: scripted.Words}}}}},
			Check: func(t harness.T, r *harness.Result) {
				assert.Equal(t, "Hello from TypeScript!", r.LastText())
			},
		},
		{
			Name:  "frontend-tool",
			Input: harness.User("Weather in Seoul?"),
			Tools: []harness.Tool{weatherTool},
			Script: scripted.Script{Turns: []scripted.Turn{
				{Expect: scripted.Expect{Tools: []string{"get_weather"}}, Calls: []scripted.Call{{ID: "w1", Name: "get_weather", Args: `{"city":"Seoul"}`}}},
				{Expect: scripted.Expect{ToolResults: []string{"w1"}}, Text: "It is 21°C in Seoul."},
			}},
			Check: func(t harness.T, r *harness.Result) {
				assert.Len(t, r.Runs, 2)
				assert.Equal(t, "It is 21°C in Seoul.", r.LastText())
			},
		},
		{
			Name:  "parallel-calls-interleaved",
			Input: harness.User("Weather in Seoul and Paris?"),
			Tools: []harness.Tool{weatherTool},
			Script: scripted.Script{Turns: []scripted.Turn{
				{
					Text: "Checking both.",
					Calls: []scripted.Call{
						{ID: "a", Name: "get_weather", Args: `{"city":"Seoul"}`},
						{ID: "b", Name: "get_weather", Args: `{"city":"Paris"}`},
					},
					Plan: scripted.Plan{Split: scripted.Split{Size: 3}, Order: scripted.Order{By: scripted.RoundRobin}},
				},
				{Expect: scripted.Expect{ToolResults: []string{"a", "b"}}, Text: "Both are mild."},
			}},
		},
		{
			// A call to each tool the agent declares to the model, with
			// arguments generated from its schema at their edges: each
			// reaches the client with exactly those arguments, and the
			// exploration varies them.
			Name:  "generated-calls",
			Input: harness.User("Use every tool."),
			Tools: []harness.Tool{weatherTool, noteTool},
			Script: scripted.Script{Turns: []scripted.Turn{
				{Generate: &scripted.Generate{Shape: scripted.ShapeEdge}},
				{Expect: scripted.Expect{ToolResults: []string{"call_1_1", "call_1_2"}}, Text: "Done."},
			}},
		},
		{
			Name:      "provider-error",
			Input:     harness.User("Hello?"),
			Script:    scripted.Script{Turns: []scripted.Turn{{Fault: &scripted.Fault{Kind: scripted.FaultStatus, Status: 500, Message: "upstream failed"}}}},
			WantError: &harness.WantError{Message: "upstream failed"},
			Check: func(t harness.T, r *harness.Result) {
				events := r.Events()
				if assert.NotEmpty(t, events) {
					assert.Equal(t, "RUN_ERROR", string(events[len(events)-1].Type()))
				}
			},
		},
	}
	// Each case is explored: run under plans of its script besides its
	// own (a program started for each, so a small budget), and must give
	// the client the same conversation under every one.
	plans := 12
	var protoExplore *harness.Explore // the default budget
	if testing.Short() {
		plans = 4
		protoExplore = &harness.Explore{Plans: plans}
	}
	harness.Run(t, agent, cases, harness.Options{Explore: &harness.Explore{Plans: plans}})
	// The same cases and goldens over the protobuf encoding, which
	// @ag-ui/encoder answers when the request asks for it.
	t.Run("protobuf", func(t *testing.T) {
		harness.Run(t, agent, cases, harness.Options{Accept: agui.MediaTypeProto, Explore: protoExplore})
	})
}
