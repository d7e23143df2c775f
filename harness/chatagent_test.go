package harness_test

import (
	"context"
	"fmt"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// chatAgent is a small Go agent for the harness's own tests: it asks the
// scripted model, streams its text, and streams its tool calls interleaved
// on the wire with distinct ids, as a careful agent does. With buggy set it
// puts every argument fragment under the id of the call that started last,
// a mistake real agents make when parallel calls interleave.
func chatAgent(buggy bool) func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
	return func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		if err := emit(agui.NewRunStarted(in.ThreadID, in.RunID)); err != nil {
			return err
		}
		stream, err := env.Model.Stream(ctx, toRequest(in))
		if err != nil {
			return emit(agui.NewRunError(err.Error(), ""))
		}
		msgID := "msg-" + in.RunID
		textOpen := false
		ids := map[string]string{} // provider key -> call id
		var order []string
		last := ""
		for chunk, err := range stream {
			if err != nil {
				return emit(agui.NewRunError(err.Error(), ""))
			}
			switch {
			case chunk.Call != nil:
				d := chunk.Call
				key := d.ID
				if d.Index >= 0 {
					key = fmt.Sprint(d.Index)
				}
				if key == "" {
					key = last
				}
				id, ok := ids[key]
				if !ok {
					id = d.ID
					if id == "" {
						id = fmt.Sprintf("%s-call-%d", in.RunID, len(order))
					}
					ids[key] = id
					order = append(order, id)
					if err := emit(agui.NewToolCallStart(id, d.Name, msgID)); err != nil {
						return err
					}
				}
				last = key
				if buggy {
					id = order[len(order)-1]
				}
				if d.Args != "" {
					if err := emit(agui.NewToolCallArgs(id, d.Args)); err != nil {
						return err
					}
				}
			case chunk.Text != "":
				if !textOpen {
					textOpen = true
					if err := emit(agui.NewTextMessageStart(msgID)); err != nil {
						return err
					}
				}
				if err := emit(agui.NewTextMessageContent(msgID, chunk.Text)); err != nil {
					return err
				}
			}
		}
		if textOpen {
			if err := emit(agui.NewTextMessageEnd(msgID)); err != nil {
				return err
			}
		}
		for _, id := range order {
			if err := emit(agui.NewToolCallEnd(id)); err != nil {
				return err
			}
		}
		return emit(agui.NewRunFinished(in.ThreadID, in.RunID))
	}
}

// toRequest turns a run's input into what the model is asked.
func toRequest(in agui.RunAgentInput) scripted.Request {
	var req scripted.Request
	for _, m := range in.Messages {
		sm := scripted.Message{Role: string(m.Role), Content: m.Content.Text, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			sm.Calls = append(sm.Calls, scripted.Call{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, sm)
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, scripted.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return req
}
