package claude_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/examples/claude"
	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// agent is the weather desk, thinking on with that budget (0: off), its
// model the case's scripted server on the Anthropic wire.
func agent(thinking int64) harness.Agent {
	return harness.Handler(func(env harness.Env) http.Handler {
		return claude.New(claude.Options{BaseURL: env.BaseURL, APIKey: env.APIKey, Model: "claude-test", ThinkingBudget: thinking})
	})
}

// showOnMap is the client's tool: the harness runs it as a frontend would.
var showOnMap = harness.Tool{
	Name:        "show_on_map",
	Description: "Shows cities on the user's map.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"cities":{"type":"array","items":{"type":"string"}}},"required":["cities"]}`),
	Run: func(_ context.Context, args json.RawMessage) (string, error) {
		var a struct{ Cities []string }
		if err := json.Unmarshal(args, &a); err != nil {
			return "", err
		}
		return "shown: " + strings.Join(a.Cities, ", "), nil
	},
}

func forecastCall(id, city string) scripted.Call {
	return scripted.Call{ID: id, Name: "get_forecast", Args: `{"city":"` + city + `"}`}
}

func TestWeatherDesk(t *testing.T) {
	words := scripted.Plan{Split: scripted.Split{By: scripted.Words}}
	cases := []harness.Case{
		{
			Name:   "text",
			Input:  harness.User("Hello?"),
			Script: script(scripted.Turn{Text: "Hello! Ask me about tomorrow's weather.", Plan: words}),
		},
		{
			Name:  "forecast",
			Input: harness.User("Weather in Paris tomorrow?"),
			Script: script(
				scripted.Turn{Expect: scripted.Expect{Tools: []string{"get_forecast"}}, Text: "Let me check.", Calls: []scripted.Call{forecastCall("toolu_paris", "Paris")}},
				scripted.Turn{Expect: scripted.Expect{ToolResults: []string{"toolu_paris"}}, Text: "Paris: 18°C and sunny."},
			),
			Check: func(t harness.T, r *harness.Result) {
				if r.LastText() != "Paris: 18°C and sunny." {
					t.Errorf("last text %q", r.LastText())
				}
				if len(r.Requests) < 2 || len(r.Requests[1].Messages) < 3 {
					t.Fatalf("requests %+v", r.Requests)
				}
				res := r.Requests[1].Messages[2]
				if res.Role != "tool" || res.Content != `{"city":"Paris","tempC":18,"sky":"sunny"}` {
					t.Errorf("the forecast went back as %+v", res)
				}
			},
		},
		{
			// Claude streams one block after another; this plan interleaves
			// the two tool_use blocks by index in 3-byte fragments, cut
			// inside escapes, and the agent keeps them apart.
			Name:   "parallel-forecasts-interleaved",
			Golden: golden.Wire,
			Input:  harness.User("Paris or Rome tomorrow?"),
			Script: script(
				scripted.Turn{
					Text:  "Checking both.",
					Calls: []scripted.Call{forecastCall("toolu_p", "Paris"), forecastCall("toolu_r", "Rome")},
					Plan:  scripted.Plan{Split: scripted.Split{Size: 3, Escapes: true}, Order: scripted.Order{By: scripted.RoundRobin, Text: scripted.TextBetween}},
				},
				scripted.Turn{Expect: scripted.Expect{ToolResults: []string{"toolu_p", "toolu_r"}}, Text: "Rome is warmer: 24°C."},
			),
			Check: func(t harness.T, r *harness.Result) {
				// Both results go back in one user turn, in call order.
				if len(r.Requests) < 2 {
					t.Fatalf("%d requests", len(r.Requests))
				}
				var ids []string
				for _, m := range r.Requests[1].Messages {
					if m.Role == "tool" {
						ids = append(ids, m.ToolCallID)
					}
				}
				if d := cmp.Diff([]string{"toolu_p", "toolu_r"}, ids); d != "" {
					t.Errorf("tool results (-want +got):\n%s", d)
				}
				var body struct{ Messages []struct{ Role string } }
				if err := json.Unmarshal(r.Requests[1].Body, &body); err != nil || len(body.Messages) != 3 {
					t.Errorf("the results are not one user turn:\n%s", r.Requests[1].Body)
				}
			},
		},
		{
			// The client's tool ends the run; the next run carries its
			// result, with the agent's own result, in one user turn.
			Name:  "client-tool",
			Input: harness.User("Show Seoul on my map and tell me the weather."),
			Tools: []harness.Tool{showOnMap},
			Script: script(
				scripted.Turn{
					Expect: scripted.Expect{Tools: []string{"get_forecast", "show_on_map"}},
					Calls:  []scripted.Call{{ID: "toolu_map", Name: "show_on_map", Args: `{"cities":["Seoul"]}`}, forecastCall("toolu_f", "Seoul")},
				},
				scripted.Turn{Expect: scripted.Expect{ToolResults: []string{"toolu_map", "toolu_f"}}, Text: "Seoul is on your map: 21°C, cloudy."},
			),
			Check: func(t harness.T, r *harness.Result) {
				if len(r.Runs) != 2 || r.LastText() != "Seoul is on your map: 21°C, cloudy." {
					t.Errorf("%d runs, last text %q", len(r.Runs), r.LastText())
				}
			},
		},
		{
			Name:  "unknown-city",
			Input: harness.User("Weather in Atlantis?"),
			Script: script(
				scripted.Turn{Calls: []scripted.Call{forecastCall("toolu_a", "Atlantis")}},
				scripted.Turn{Expect: scripted.Expect{ToolResults: []string{"toolu_a"}}, Text: "I have no forecast for Atlantis."},
			),
			Check: func(t harness.T, r *harness.Result) {
				if len(r.Requests) < 2 || !strings.Contains(string(r.Requests[1].Body), `"is_error":true`) {
					t.Errorf("the failed lookup did not go back as an error")
				}
			},
		},
		{
			// Overloaded twice: the client's two retries meet it, the third
			// request gets the answer (retry-after: 0 keeps the test fast).
			Name:  "overloaded-then-answers",
			Input: harness.User("Hello?"),
			Script: script(
				scripted.Turn{Fault: &scripted.Fault{Kind: scripted.FaultStatus, Status: 529, RetryAfter: "0", Times: 2}},
				scripted.Turn{Text: "Hello at last."},
			),
			Check: func(t harness.T, r *harness.Result) {
				if len(r.Requests) != 3 || r.LastText() != "Hello at last." {
					t.Errorf("%d requests, last text %q", len(r.Requests), r.LastText())
				}
			},
		},
		{
			Name:      "overloaded",
			Input:     harness.User("Hello?"),
			Script:    script(scripted.Turn{Fault: &scripted.Fault{Kind: scripted.FaultStatus, Status: 529, RetryAfter: "0", Always: true}}),
			WantError: &harness.WantError{Code: "overloaded_error", Message: "Overloaded"},
		},
		{
			Name:      "rate-limited",
			Input:     harness.User("Hello?"),
			Script:    script(scripted.Turn{Fault: &scripted.Fault{Kind: scripted.FaultStatus, Status: 429, RetryAfter: "0", Times: 3}}),
			WantError: &harness.WantError{Code: "rate_limit_error"},
		},
		{
			Name:      "error-event-mid-stream",
			Input:     harness.User("Hello?"),
			Script:    script(scripted.Turn{Text: "This answer breaks off", Plan: words, Fault: &scripted.Fault{Kind: scripted.FaultError, After: 3}}),
			WantError: &harness.WantError{Code: "overloaded_error"},
		},
	}
	harness.Run(t, agent(0), cases, harness.Options{Explore: &harness.Explore{Plans: 30}})
}

// With extended thinking on, every answer of the model starts with a
// thinking block, and the turn whose calls the next request answers must
// come back starting with it, signature and all: the scripted server
// refuses the request otherwise, as the Messages API does.
func TestWeatherDeskThinking(t *testing.T) {
	cases := []harness.Case{
		{
			Name:  "thinking",
			Input: harness.User("Is it warm in Rome in May?"),
			Script: script(scripted.Turn{
				Reasoning: "Rome in May: mild to warm, around 20-25°C.",
				Text:      "Yes, Rome is pleasantly warm in May.",
				Plan:      scripted.Plan{Split: scripted.Split{Size: 5}},
			}),
			Check: func(t harness.T, r *harness.Result) {
				if got := r.Messages[1]; got.Role != agui.RoleReasoning || got.Content.Text != "Rome in May: mild to warm, around 20-25°C." || got.EncryptedValue == "" {
					t.Errorf("reasoning message %+v", got)
				}
			},
		},
		{
			Name:  "thinking-with-tools",
			Input: harness.User("Warmest of Paris, Rome and Oslo?"),
			Script: script(
				scripted.Turn{
					Reasoning: "Three forecasts, in parallel.",
					Calls:     []scripted.Call{forecastCall("toolu_1", "Paris"), forecastCall("toolu_2", "Rome"), forecastCall("toolu_3", "Oslo")},
				},
				scripted.Turn{Expect: scripted.Expect{ToolResults: []string{"toolu_1", "toolu_2", "toolu_3"}}, Reasoning: "Rome wins.", Text: "Rome, at 24°C."},
			),
			Check: func(t harness.T, r *harness.Result) {
				if len(r.Requests) < 2 || len(r.Requests[1].Messages) < 2 {
					t.Fatalf("requests %+v", r.Requests)
				}
				if got := r.Requests[1].Messages[1]; got.Role != "assistant" || got.Reasoning != "Three forecasts, in parallel." || len(got.Calls) != 3 {
					t.Errorf("the assistant turn went back as %+v", got)
				}
			},
		},
		{
			// The client's tool ends the run; in the next run, the thinking
			// block comes back from the reasoning message's encrypted value.
			Name:  "client-tool",
			Input: harness.User("Show Seoul on my map and tell me the weather."),
			Tools: []harness.Tool{showOnMap},
			Script: script(
				scripted.Turn{
					Reasoning: "Map first, and the forecast.",
					Calls:     []scripted.Call{{ID: "toolu_map", Name: "show_on_map", Args: `{"cities":["Seoul"]}`}, forecastCall("toolu_f", "Seoul")},
				},
				scripted.Turn{Expect: scripted.Expect{ToolResults: []string{"toolu_map", "toolu_f"}}, Reasoning: "Both done.", Text: "Seoul is on your map: 21°C, cloudy."},
			),
			Check: func(t harness.T, r *harness.Result) {
				if len(r.Runs) != 2 || len(r.Requests) != 2 {
					t.Fatalf("%d runs, %d requests", len(r.Runs), len(r.Requests))
				}
				if got := r.Requests[1].Messages[1]; got.Reasoning != "Map first, and the forecast." {
					t.Errorf("the thinking block did not come back: %+v", got)
				}
			},
		},
	}
	harness.Run(t, agent(1024), cases, harness.Options{Explore: &harness.Explore{Plans: 30}})
}

// TestThinkingBlockRequired: an agent that drops the thinking block of the
// turn it answers is refused, as the Messages API refuses it. The agent
// with thinking off sends no thinking, and the script's thinking turn is
// refused on the second request.
func TestThinkingBlockRequired(t *testing.T) {
	srv := scripted.NewServer(script(
		scripted.Turn{Reasoning: "r", Calls: []scripted.Call{forecastCall("toolu_1", "Paris")}},
		scripted.Turn{Text: "never"},
	))
	defer srv.Close()
	// The buggy history: the reasoning message lost its signature.
	in := agui.RunAgentInput{ThreadID: "t", RunID: "r2", Messages: []agui.Message{
		agui.UserMessage("u1", "Paris?"),
		{ID: "x", Role: agui.RoleReasoning, Content: agui.Content{Text: "r"}},
		{ID: "a", Role: agui.RoleAssistant, ToolCalls: []agui.ToolCall{agui.NewToolCall("toolu_1", "get_forecast", `{"city":"Paris"}`)}},
		agui.ToolMessage("t1", "toolu_1", "sunny"),
	}}
	var events []agui.Event
	a := claude.New(claude.Options{BaseURL: srv.URL, APIKey: "k", ThinkingBudget: 1024, MaxRetries: -1})
	if err := a.Run(t.Context(), in, func(e agui.Event) error { events = append(events, e); return nil }); err != nil {
		t.Fatal(err)
	}
	last := events[len(events)-1]
	if last.Type() != agui.RunError || !strings.Contains(last.String(), "a final `assistant` message must start with a thinking block") {
		t.Errorf("last event %s", last)
	}
}

func script(turns ...scripted.Turn) scripted.Script {
	return scripted.Script{Model: "claude-test", Turns: turns}
}
