package frontendtools_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/examples/frontendtools"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// client is the frontend of one case: the Go implementations of its tools,
// as a browser or a desktop client would run them, and what they did.
type client struct {
	mu         sync.Mutex // an explored case runs its tools from several plans at once
	background string
	ran        []string
}

// record notes that a tool ran.
func (c *client) record(tool string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ran = append(c.ran, tool)
}

var colors = map[string]bool{"blue": true, "black": true, "white": true, "green": true}

func (c *client) tools() []harness.Tool {
	return []harness.Tool{
		{
			Name:        "get_user_location",
			Description: "Get the user's current GPS location.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{}}`),
			Run: func(context.Context, json.RawMessage) (string, error) {
				c.record("get_user_location")
				return `{"latitude":52.3676,"longitude":4.9041,"accuracy":10.0,"city":"Amsterdam"}`, nil
			},
		},
		{
			Name:        "read_climate_sensors",
			Description: "Read climate sensor data from the client device.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"include_temperature":{"type":"boolean","default":true},` +
				`"include_humidity":{"type":"boolean","default":true}}}`),
			Run: func(_ context.Context, args json.RawMessage) (string, error) {
				c.record("read_climate_sensors")
				a := struct {
					Temperature *bool `json:"include_temperature"`
					Humidity    *bool `json:"include_humidity"`
				}{}
				if err := json.Unmarshal(args, &a); err != nil {
					return "", err
				}
				r := struct {
					Temperature float64 `json:"temperature"`
					Humidity    float64 `json:"humidity"`
					AQI         int     `json:"air_quality_index"`
				}{0, 0, 75}
				if a.Temperature == nil || *a.Temperature {
					r.Temperature = 22.5
				}
				if a.Humidity == nil || *a.Humidity {
					r.Humidity = 45
				}
				b, err := json.Marshal(r)
				return string(b), err
			},
		},
		{
			Name:        "change_background_color",
			Description: "Change the console background color.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"color":{"type":"string","description":"Color name"}}}`),
			Run: func(_ context.Context, args json.RawMessage) (string, error) {
				c.record("change_background_color")
				a := struct {
					Color string `json:"color"`
				}{"blue"}
				if err := json.Unmarshal(args, &a); err != nil {
					return "", err
				}
				if !colors[a.Color] {
					return "", errors.New("this console cannot show " + a.Color)
				}
				c.mu.Lock()
				c.background = a.Color
				c.mu.Unlock()
				return "Background changed to " + a.Color, nil
			},
		},
	}
}

var offered = []string{"get_user_location", "read_climate_sensors", "change_background_color"}

func agent() harness.Agent {
	return harness.Func(func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		return frontendtools.Agent{Model: env.Model}.Run(ctx, in, emit)
	})
}

const (
	location = `{"latitude":52.3676,"longitude":4.9041,"accuracy":10.0,"city":"Amsterdam"}`
	sensors  = `{"temperature":22.5,"humidity":45,"air_quality_index":75}`
)

func TestFrontendTools(t *testing.T) {
	type row struct {
		name      string
		input     harness.Input
		turns     []scripted.Turn
		runs      int
		ran       []string
		results   []string // tool messages, content or "error: ..."
		lastText  string
		wantColor string
		frontend  harness.Frontend
	}
	rows := []row{
		{
			name:  "single",
			input: harness.User("Where am I located?"),
			turns: []scripted.Turn{
				{Expect: scripted.Expect{Tools: offered, LastUser: "Where am I"}, Calls: []scripted.Call{{Name: "get_user_location"}}},
				{Expect: scripted.Expect{ToolResults: []string{"run-1-call-1"}}, Text: "You are in Amsterdam, at 52.37°N, 4.90°E."},
			},
			runs:     2,
			ran:      []string{"get_user_location"},
			results:  []string{location},
			lastText: "You are in Amsterdam, at 52.37°N, 4.90°E.",
		},
		{
			// Two tools in one turn, their deltas interleaved.
			name:  "parallel",
			input: harness.User("Where am I, and how warm is it here?"),
			turns: []scripted.Turn{
				{
					Expect: scripted.Expect{Tools: offered},
					Calls: []scripted.Call{
						{Name: "get_user_location"},
						{Name: "read_climate_sensors", Args: `{"include_temperature":true,"include_humidity":false}`},
					},
					Plan: scripted.Plan{Split: scripted.Split{Size: 4}, Order: scripted.Order{By: scripted.RoundRobin}},
				},
				{Expect: scripted.Expect{ToolResults: []string{"run-1-call-1", "run-1-call-1"}}, Text: "Amsterdam, 22.5°C."},
			},
			runs:     2,
			ran:      []string{"get_user_location", "read_climate_sensors"},
			results:  []string{location, `{"temperature":22.5,"humidity":0,"air_quality_index":75}`},
			lastText: "Amsterdam, 22.5°C.",
		},
		{
			// The model needs the first result to make the second call.
			name:  "chain",
			input: harness.User("Is the air good where I am?"),
			turns: []scripted.Turn{
				{Expect: scripted.Expect{Tools: offered}, Text: "Let me find you first.", Calls: []scripted.Call{{Name: "get_user_location"}}},
				{Expect: scripted.Expect{ToolResults: []string{"run-1-call-1"}}, Calls: []scripted.Call{{Name: "read_climate_sensors"}}},
				{Expect: scripted.Expect{ToolResults: []string{"run-1-call-1", "run-2-call-1"}}, Text: "In Amsterdam the air quality index is 75: moderate."},
			},
			runs:     3,
			ran:      []string{"get_user_location", "read_climate_sensors"},
			results:  []string{location, sensors},
			lastText: "In Amsterdam the air quality index is 75: moderate.",
		},
		{
			// The tool fails on the client: the next run carries a tool
			// message with the error, and the agent apologises. An
			// HttpAgent application posts the error field and runs again
			// (CopilotKit, the default, would wait for the user).
			name:     "tool-error",
			frontend: harness.FrontendHTTPAgent,
			input:    harness.User("Make the background ultraviolet."),
			turns: []scripted.Turn{
				{Expect: scripted.Expect{Tools: offered}, Calls: []scripted.Call{{Name: "change_background_color", Args: `{"color":"ultraviolet"}`}}},
				{Expect: scripted.Expect{ToolResults: []string{"run-1-call-1"}}, Text: "Sorry, your console cannot show ultraviolet. Shall I try blue?"},
			},
			runs:     2,
			ran:      []string{"change_background_color"},
			results:  []string{"error: this console cannot show ultraviolet"},
			lastText: "Sorry, your console cannot show ultraviolet. Shall I try blue?",
		},
		{
			// A second user turn once the first has settled.
			name: "follow-up",
			input: harness.Input{
				Messages:  harness.User("Make it dark.").Messages,
				FollowUps: []string{"Thanks. How humid is it?"},
			},
			turns: []scripted.Turn{
				{Expect: scripted.Expect{Tools: offered, LastUser: "dark"}, Calls: []scripted.Call{{Name: "change_background_color", Args: `{"color":"black"}`}}},
				{Expect: scripted.Expect{ToolResults: []string{"run-1-call-1"}}, Text: "Done: the background is black."},
				{Expect: scripted.Expect{LastUser: "humid", Tools: offered}, Calls: []scripted.Call{{Name: "read_climate_sensors", Args: `{"include_temperature":false}`}}},
				{Expect: scripted.Expect{ToolResults: []string{"run-1-call-1", "run-3-call-1"}}, Text: "The humidity is 45%."},
			},
			runs:      4,
			ran:       []string{"change_background_color", "read_climate_sensors"},
			results:   []string{"Background changed to black", `{"temperature":0,"humidity":45,"air_quality_index":75}`},
			lastText:  "The humidity is 45%.",
			wantColor: "black",
		},
	}

	var cases []harness.Case
	for _, r := range rows {
		c := &client{}
		cases = append(cases, harness.Case{
			Name:     r.name,
			Input:    r.input,
			Frontend: r.frontend,
			Script:   scripted.Script{Turns: r.turns},
			Tools:    c.tools(),
			Check: func(t harness.T, res *harness.Result) {
				if got := len(res.Runs); got != r.runs {
					t.Errorf("runs: got %d, want %d", got, r.runs)
				}
				if d := cmp.Diff(r.ran, c.ran); d != "" {
					t.Errorf("tools the client ran (-want +got):\n%s", d)
				}
				if d := cmp.Diff(r.results, toolResults(res.Messages)); d != "" {
					t.Errorf("tool messages (-want +got):\n%s", d)
				}
				if got := res.LastText(); got != r.lastText {
					t.Errorf("last text: got %q, want %q", got, r.lastText)
				}
				if c.background != r.wantColor {
					t.Errorf("background: got %q, want %q", c.background, r.wantColor)
				}
				noResultEvents(t, res)
				errorReachedModel(t, res)
			},
		})
	}
	// The checks above read what each case's client recorded, so the
	// table runs under the case's own plan alone: exploring it would run
	// the tools once per plan, into the same record. Exploration has its
	// own subtest below.
	harness.Run(t, agent(), cases, harness.Options{Explore: &harness.Explore{Off: true}})

	// The same table explored: each case runs under many plans of its
	// script besides its own, and must give the client the same
	// conversation under every one. The tools run once per plan, several
	// plans at once, so these clients are fresh and their record unread.
	t.Run("explored", func(t *testing.T) {
		var explored []harness.Case
		for _, r := range rows {
			explored = append(explored, harness.Case{
				Name:     r.name,
				Input:    r.input,
				Frontend: r.frontend,
				Script:   scripted.Script{Turns: r.turns},
				Tools:    (&client{}).tools(),
				NoGolden: true,
			})
		}
		harness.Run(t, agent(), explored, harness.Options{Explore: &harness.Explore{Plans: 30}})
	})
}

// toolResults returns the tool messages of a conversation: their content,
// or "error: " and the error.
func toolResults(msgs []agui.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role != agui.RoleTool {
			continue
		}
		if m.Error != "" {
			out = append(out, "error: "+m.Error)
			continue
		}
		out = append(out, m.Content.Text)
	}
	return out
}

// noResultEvents checks that the agent left every call to the client.
func noResultEvents(t harness.T, res *harness.Result) {
	t.Helper()
	for _, e := range res.Events() {
		if e.Type() == agui.ToolCallResult {
			t.Errorf("TOOL_CALL_RESULT for %s: frontend calls get their result from the client", e.ToolCallID())
		}
	}
}

// errorReachedModel checks that a tool message with an error reaches the
// model as a result saying so.
func errorReachedModel(t harness.T, res *harness.Result) {
	t.Helper()
	for _, m := range res.Messages {
		if m.Role != agui.RoleTool || m.Error == "" {
			continue
		}
		found := false
		for _, req := range res.Requests {
			for _, sm := range req.Messages {
				if sm.ToolCallID == m.ToolCallID && strings.Contains(sm.Content, m.Error) {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("the error of %s (%q) never reached the model", m.ToolCallID, m.Error)
		}
	}
}
