// Package scriptedmodel bridges aguitest's Go-native scripted model
// (scripted.Model) to an agent.Turn: the way into the scripted LLM for a Go
// agent that takes its model as a Go value rather than an HTTP client.
//
// The Go-native stream, unlike a JSON wire, passes on fragments cut inside
// a character; the agent package's handles hold such bytes back until the
// rest arrives.
package scriptedmodel

import (
	"context"
	"errors"
	"iter"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/scripted"
)

// Model is a streaming chat model; *scripted.Model is one.
type Model interface {
	Stream(ctx context.Context, req scripted.Request) (iter.Seq2[scripted.Chunk, error], error)
}

// ErrIncomplete is returned when a stream ends without its finish chunk:
// the answer, and any call in it, is not known to be complete.
var ErrIncomplete = errors.New("scriptedmodel: the answer ended without a finish reason")

// Stream feeds a model's answer into turn and, once the model says it is
// complete (its finish chunk), completes the turn and returns the answer.
// An error of the stream, or of the turn (a call the turn's Gate refused, a
// refused event), is returned as it is; the turn is then not completed and
// the agent should fail the run.
func Stream(turn *agent.Turn, stream iter.Seq2[scripted.Chunk, error]) (*agent.Answer, error) {
	for chunk, err := range stream {
		if err != nil {
			return nil, err
		}
		switch {
		case chunk.Finish != "":
			return turn.End()
		case chunk.Call != nil:
			d := chunk.Call
			err = turn.Call(agent.CallDelta{Index: d.Index, ID: d.ID, Name: d.Name, Args: d.Args})
		case chunk.Reasoning != "":
			err = turn.Reasoning(chunk.Reasoning)
		default:
			err = turn.Text(chunk.Text)
		}
		if err != nil {
			return nil, err
		}
	}
	return nil, ErrIncomplete
}

// Request turns a run's input into what the model is asked: the
// conversation and the client's tools. A tool message with an error
// reaches the model as a result saying "error: " and the error; activity
// and reasoning messages are for the user and are left out.
func Request(in agui.RunAgentInput) scripted.Request {
	var req scripted.Request
	for _, m := range in.Messages {
		sm := scripted.Message{Role: string(m.Role), Content: agent.ContentText(m.Content), ToolCallID: m.ToolCallID}
		switch m.Role {
		case agui.RoleTool:
			if m.Error != "" {
				sm.Content = "error: " + m.Error
			}
		case agui.RoleAssistant:
			for _, tc := range m.ToolCalls {
				sm.Calls = append(sm.Calls, scripted.Call{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
			}
		case agui.RoleUser, agui.RoleSystem, agui.RoleDeveloper:
		default:
			continue
		}
		req.Messages = append(req.Messages, sm)
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, scripted.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return req
}
