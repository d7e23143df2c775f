// Code copied from harness/helpers_test.go by TestHelpersAreCopies's
// instructions; edit that file, not this one.

package sdktest_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// showBoth is a case with two parallel calls to a client tool, text
// before them and an answer after: the shapes exploration varies.
func showBoth() harness.Case {
	return harness.Case{
		Name:  "show-both",
		Input: harness.User("Show Paris and Rome on my map."),
		Tools: []harness.Tool{{
			Name: "show_on_map",
			Run:  func(context.Context, json.RawMessage) (string, error) { return "shown", nil },
		}},
		Script: scripted.Script{Turns: []scripted.Turn{
			{Text: "Showing both.", Calls: []scripted.Call{
				{Name: "show_on_map", Args: `{"city":"Paris"}`},
				{Name: "show_on_map", Args: `{"city":"Rome"}`},
			}},
			{Text: "Both are on your map."},
		}},
		NoGolden: true,
	}
}

// quietAgent runs the calls to get_weather itself without telling the
// client about them (no TOOL_CALL_* events, no result): it sends the
// results back to the model, asks again, and streams only the text,
// through rewrite. With forget set, it drops the calls instead: it
// neither runs them nor tells the model or the client.
func quietAgent(rewrite func(string) string, forget bool) harness.Agent {
	return harness.Func(func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		if err := emit(agui.NewRunStarted(in.ThreadID, in.RunID)); err != nil {
			return err
		}
		req := scripted.Request{Messages: []scripted.Message{{Role: "user", Content: in.Messages[len(in.Messages)-1].Content.Text}}}
		for step := 1; ; step++ {
			stream, err := env.Model.Stream(ctx, req)
			if err != nil {
				return err
			}
			var text strings.Builder
			calls := map[string]*scripted.Call{}
			var order []string
			for chunk, err := range stream {
				if err != nil {
					return err
				}
				if d := chunk.Call; d != nil {
					key := strconv.Itoa(d.Index)
					if d.Index < 0 {
						key = d.ID
					}
					if calls[key] == nil {
						calls[key] = &scripted.Call{ID: d.ID, Name: d.Name}
						order = append(order, key)
					}
					calls[key].Args += d.Args
				}
				text.WriteString(chunk.Text)
			}
			if text.Len() > 0 {
				id := in.RunID + "-" + strconv.Itoa(step)
				for _, e := range []agui.Event{agui.NewTextMessageStart(id), agui.NewTextMessageContent(id, rewrite(text.String())), agui.NewTextMessageEnd(id)} {
					if err := emit(e); err != nil {
						return err
					}
				}
			}
			if len(order) == 0 {
				break
			}
			if forget {
				req.Messages = append(req.Messages, scripted.Message{Role: "user", Content: "go on"})
				continue
			}
			assistant := scripted.Message{Role: "assistant", Content: text.String()}
			for _, k := range order {
				assistant.Calls = append(assistant.Calls, *calls[k])
			}
			req.Messages = append(req.Messages, assistant)
			for _, k := range order {
				req.Messages = append(req.Messages, scripted.Message{Role: "tool", ToolCallID: calls[k].ID, Content: "sunny"})
			}
		}
		return emit(agui.NewRunFinished(in.ThreadID, in.RunID))
	})
}

// weatherCase: the model calls get_weather twice, then answers.
func weatherCase() harness.Case {
	return harness.Case{
		Name:  "weather",
		Input: harness.User("Paris or Rome?"),
		Script: scripted.Script{Turns: []scripted.Turn{
			{Text: "Let me look.", Calls: []scripted.Call{
				{Name: "get_weather", Args: `{"city":"Paris"}`},
				{Name: "get_weather", Args: `{"city":"Rome"}`},
			}},
			{Text: "Both are sunny."},
		}},
		NoGolden: true,
	}
}

// ownCalls: the model calls the agent's own tool twice, then answers.
func ownCalls() harness.Case {
	c := weatherCase()
	c.Name = "own-calls"
	return c
}
