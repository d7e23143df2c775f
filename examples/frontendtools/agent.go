package frontendtools

import (
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/scripted"
)

// Model is the LLM the agent asks: a streaming chat model. *scripted.Model
// is one; an adapter over a provider's SDK would be another.
type Model interface {
	Stream(ctx context.Context, req scripted.Request) (iter.Seq2[scripted.Chunk, error], error)
}

// Agent answers AG-UI runs with the help of the client's tools.
type Agent struct {
	Model Model
	// System is the system prompt; empty means a short default.
	System string
}

const defaultSystem = "You are a helpful assistant with access to client tools."

// Run runs the agent once for in, handing each event to emit. It returns
// emit's error when the client has gone; a failing model ends the run with
// RUN_ERROR instead.
func (a Agent) Run(ctx context.Context, in agui.RunAgentInput, emit func(agui.Event) error) error {
	if err := emit(agui.NewRunStarted(in.ThreadID, in.RunID)); err != nil {
		return err
	}
	stream, err := a.Model.Stream(ctx, a.request(in))
	if err != nil {
		return emit(agui.NewRunError("the model could not answer: "+err.Error(), "PROVIDER_ERROR"))
	}
	msgID := in.RunID + "-msg"
	textOpen := false
	type call struct {
		name string
		args strings.Builder
	}
	var calls []*call
	byKey := map[string]*call{}
	lastKey := ""
	for chunk, err := range stream {
		if err != nil {
			return emit(agui.NewRunError("the model's answer broke off: "+err.Error(), "PROVIDER_ERROR"))
		}
		switch {
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
		case chunk.Call != nil:
			d := chunk.Call
			key := d.ID
			if d.Index >= 0 {
				key = fmt.Sprint(d.Index)
			}
			if key == "" {
				key = lastKey
			}
			lastKey = key
			c, ok := byKey[key]
			if !ok {
				c = &call{name: d.Name}
				byKey[key] = c
				calls = append(calls, c)
			}
			c.args.WriteString(d.Args)
		}
	}
	if textOpen {
		if err := emit(agui.NewTextMessageEnd(msgID)); err != nil {
			return err
		}
	}
	// Each call whole, in the model's order, and left for the client to
	// run: no TOOL_CALL_RESULT.
	for i, c := range calls {
		id := fmt.Sprintf("%s-call-%d", in.RunID, i)
		args := c.args.String()
		if args == "" {
			args = "{}"
		}
		for _, e := range []agui.Event{
			agui.NewToolCallStart(id, c.name, msgID),
			agui.NewToolCallArgs(id, args),
			agui.NewToolCallEnd(id),
		} {
			if err := emit(e); err != nil {
				return err
			}
		}
	}
	return emit(agui.NewRunFinished(in.ThreadID, in.RunID))
}

// request turns a run's input into what the model is asked: the system
// prompt, the conversation, and the client's tools.
func (a Agent) request(in agui.RunAgentInput) scripted.Request {
	system := a.System
	if system == "" {
		system = defaultSystem
	}
	req := scripted.Request{Messages: []scripted.Message{{Role: "system", Content: system}}}
	for _, m := range in.Messages {
		sm := scripted.Message{Role: string(m.Role), Content: textOf(m.Content), ToolCallID: m.ToolCallID}
		switch m.Role {
		case agui.RoleTool:
			if m.Error != "" {
				// The model reads a failed tool as a result that
				// says so.
				sm.Content = "error: " + m.Error
			}
		case agui.RoleAssistant:
			for _, tc := range m.ToolCalls {
				sm.Calls = append(sm.Calls, scripted.Call{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
			}
		case agui.RoleUser, agui.RoleSystem, agui.RoleDeveloper:
		default:
			continue // activity and reasoning are for the user
		}
		req.Messages = append(req.Messages, sm)
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, scripted.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return req
}

func textOf(c agui.Content) string {
	if !c.IsParts() {
		return c.Text
	}
	var parts []string
	for _, p := range c.Parts {
		if p.Type == "text" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}
