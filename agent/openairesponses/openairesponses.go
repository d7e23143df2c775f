// Package openairesponses bridges an OpenAI Responses stream, as
// github.com/openai/openai-go/v3 reads it, to an agent.Turn.
//
// The Responses API streams each part of an answer as an output item:
// reasoning, a message, each function call, keyed by output_index, and
// says when each is complete (response.output_item.done) and when the
// whole answer is (response.completed). A call ends when its item is done,
// not when the stream moves on to another item: interleaved items stay
// open until the provider closes them.
package openairesponses

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agui"
)

// ErrIncomplete is returned when a stream ends without response.completed:
// the answer, and any call in it, is not known to be complete.
var ErrIncomplete = errors.New("openairesponses: the stream ended without response.completed")

// Failed is the provider's failure reported in the stream
// (response.failed, response.incomplete, error).
type Failed struct {
	Type, Code, Message string
}

// Error returns "type: code: message".
func (f *Failed) Error() string {
	return fmt.Sprintf("openairesponses: %s: %s: %s", f.Type, f.Code, f.Message)
}

// Stream feeds a streamed response into turn and completes the turn at
// response.completed. A stream error, or a failure the provider reports in
// the stream (*Failed), returns no answer: the turn is left incomplete.
func Stream(turn *agent.Turn, s *ssestream.Stream[responses.ResponseStreamEventUnion]) (*agent.Answer, error) {
	return agent.Consume(turn, s, func(e responses.ResponseStreamEventUnion) (bool, error) { return Event(turn, e) }, ErrIncomplete)
}

// Event feeds one stream event into turn and reports whether it completed
// the response; completing the turn is then the caller's (Stream does it).
func Event(turn *agent.Turn, e responses.ResponseStreamEventUnion) (done bool, err error) {
	index := int(e.OutputIndex)
	switch e.Type {
	case "response.output_text.delta", "response.refusal.delta":
		return false, turn.Text(e.Delta)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		return false, turn.Reasoning(e.Delta)
	case "response.output_item.added":
		if e.Item.Type == "function_call" {
			return false, turn.Call(agent.CallDelta{Index: index, ID: e.Item.CallID, Name: e.Item.Name})
		}
	case "response.function_call_arguments.delta":
		return false, turn.Call(agent.CallDelta{Index: index, Args: e.Delta})
	case "response.output_item.done":
		switch e.Item.Type {
		case "function_call":
			return false, turn.CallDone(agent.CallDelta{Index: index})
		case "reasoning":
			return false, turn.ReasoningDone(e.Item.EncryptedContent)
		}
	case "response.completed":
		return true, nil
	case "response.failed", "response.incomplete":
		f := &Failed{Type: e.Type, Code: string(e.Response.Error.Code), Message: e.Response.Error.Message}
		if e.Type == "response.incomplete" {
			f.Message = e.Response.IncompleteDetails.Reason
		}
		return false, f
	case "error":
		return false, &Failed{Type: e.Type, Code: e.Code, Message: e.Message}
	}
	return false, nil
}

// Input converts the AG-UI conversation to Responses input items: each
// message as a message item of its role, an assistant's calls as
// function_call items, a tool message as a function_call_output (one with
// an error carries {"error": "..."}). Activity and reasoning messages are
// for the user and are left out.
func Input(msgs []agui.Message) responses.ResponseInputParam {
	var items responses.ResponseInputParam
	for _, m := range msgs {
		text := agent.ContentText(m.Content)
		switch m.Role {
		case agui.RoleUser, agui.RoleSystem, agui.RoleDeveloper:
			items = append(items, responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRole(m.Role)))
		case agui.RoleAssistant:
			if text != "" {
				items = append(items, responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleAssistant))
			}
			for _, tc := range m.ToolCalls {
				args := tc.Function.Arguments
				if args == "" {
					args = "{}"
				}
				items = append(items, responses.ResponseInputItemParamOfFunctionCall(args, tc.ID, tc.Function.Name))
			}
		case agui.RoleTool:
			if m.Error != "" {
				b, _ := json.Marshal(map[string]string{"error": m.Error})
				text = string(b)
			}
			out := responses.ResponseInputItemParamOfFunctionCallOutput(text)
			out.OfFunctionCallOutput.CallID = param.NewOpt(m.ToolCallID)
			items = append(items, out)
		}
	}
	return items
}

// Tools converts the client's tool declarations to Responses function
// tools (not strict: the client's schemas need not meet strict mode's
// rules). A declaration without parameters gets an empty object schema.
func Tools(tools []agui.Tool) []responses.ToolUnionParam {
	var out []responses.ToolUnionParam
	for _, t := range tools {
		params := map[string]any{"type": "object", "properties": map[string]any{}}
		if len(t.Parameters) > 0 {
			var p map[string]any
			if json.Unmarshal(t.Parameters, &p) == nil && p != nil {
				params = p
			}
		}
		tool := responses.ToolParamOfFunction(t.Name, params, false)
		if t.Description != "" {
			tool.OfFunction.Description = param.NewOpt(t.Description)
		}
		out = append(out, tool)
	}
	return out
}
