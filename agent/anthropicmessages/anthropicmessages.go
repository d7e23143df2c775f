// Package anthropicmessages bridges an Anthropic Messages stream, as
// github.com/anthropics/anthropic-sdk-go/v2 reads it, to an agent.Turn.
//
// The Messages API streams each part of an answer as a content block keyed
// by index: thinking (with its signature), text, each tool_use, and says
// when each is complete (content_block_stop) and when the message is
// (message_stop). A tool call ends at its block's stop. A thinking block's
// signature travels with the reasoning message as
// REASONING_ENCRYPTED_VALUE, for the client to send back; redacted thinking
// has no text for the client and is not carried. Messages turns such a
// reasoning message back into the thinking block that starts the next
// assistant turn, as the API requires when thinking is on; an agent that
// calls the model again within a run sends Bridge.Message back.
package anthropicmessages

import (
	"encoding/json"
	"errors"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agui"
)

// ErrIncomplete is returned when a stream ends without message_stop: the
// answer, and any call in it, is not known to be complete.
var ErrIncomplete = errors.New("anthropicmessages: the stream ended without message_stop")

// Bridge feeds the events of one streamed message into a turn. It keeps
// what each content block is, to know what its stop completes, and the
// message as the SDK accumulates it.
type Bridge struct {
	turn   *agent.Turn
	blocks map[int64]string // block index -> content block type
	sigs   map[int64]string // block index -> thinking signature
	msg    anthropic.Message
}

// New returns a Bridge feeding turn.
func New(turn *agent.Turn) *Bridge {
	return &Bridge{turn: turn, blocks: map[int64]string{}, sigs: map[int64]string{}}
}

// Stream feeds a streamed message into turn and completes the turn at
// message_stop. A stream error (the SDK reports the API's error events as
// errors) returns no answer: the turn is left incomplete.
func Stream(turn *agent.Turn, s *ssestream.Stream[anthropic.MessageStreamEventUnion]) (*agent.Answer, error) {
	return agent.Consume(turn, s, New(turn).Event, ErrIncomplete)
}

// Message returns the message streamed so far, as anthropic.Message's
// Accumulate builds it: its ToParam, thinking blocks and signatures
// included, is the assistant turn to send back with the calls' results.
func (b *Bridge) Message() *anthropic.Message { return &b.msg }

// Event feeds one stream event and reports whether it completed the
// message; completing the turn is then the caller's (Stream does it).
func (b *Bridge) Event(e anthropic.MessageStreamEventUnion) (done bool, err error) {
	if err := b.msg.Accumulate(e); err != nil {
		return false, err
	}
	t := b.turn
	switch e.Type {
	case "content_block_start":
		cb := e.ContentBlock
		b.blocks[e.Index] = cb.Type
		switch cb.Type {
		case "tool_use", "server_tool_use":
			return false, t.Call(agent.CallDelta{Index: int(e.Index), ID: cb.ID, Name: cb.Name})
		case "text":
			return false, t.Text(cb.Text)
		case "thinking":
			return false, t.Reasoning(cb.Thinking)
		}
	case "content_block_delta":
		d := e.Delta
		switch d.Type {
		case "text_delta":
			return false, t.Text(d.Text)
		case "thinking_delta":
			return false, t.Reasoning(d.Thinking)
		case "signature_delta":
			b.sigs[e.Index] += d.Signature
		case "input_json_delta":
			return false, t.Call(agent.CallDelta{Index: int(e.Index), Args: d.PartialJSON})
		}
	case "content_block_stop":
		switch b.blocks[e.Index] {
		case "tool_use", "server_tool_use":
			return false, t.CallDone(agent.CallDelta{Index: int(e.Index)})
		case "thinking":
			return false, t.ReasoningDone(b.sigs[e.Index])
		}
	case "message_stop":
		return true, nil
	}
	return false, nil
}

// Messages converts the AG-UI conversation to the Messages API's system
// prompt and messages: system and developer messages become the system
// prompt; an assistant message its text and tool_use blocks, after the
// thinking block of the reasoning message before it when that carries its
// signature (its encrypted value), as the API requires of the turn whose
// calls the next message answers when thinking is on; the tool messages
// that follow it one user message of tool_result blocks (one with an error
// is an error result), as the API requires. A user message without text is
// left out, and so are activity messages and reasoning messages without a
// signature, which are for the user.
func Messages(msgs []agui.Message) (system []anthropic.TextBlockParam, out []anthropic.MessageParam) {
	var thinking *agui.Message
	for i := range msgs {
		m := &msgs[i]
		text := agent.ContentText(m.Content)
		switch m.Role {
		case agui.RoleSystem, agui.RoleDeveloper:
			system = append(system, anthropic.TextBlockParam{Text: text})
		case agui.RoleUser:
			if text != "" {
				out = append(out, anthropic.NewUserMessage(anthropic.NewTextBlock(text)))
			}
		case agui.RoleReasoning:
			thinking = m
			continue
		case agui.RoleAssistant:
			var blocks []anthropic.ContentBlockParamUnion
			if thinking != nil && thinking.EncryptedValue != "" {
				blocks = append(blocks, anthropic.NewThinkingBlock(thinking.EncryptedValue, agent.ContentText(thinking.Content)))
			}
			if text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(text))
			}
			for _, tc := range m.ToolCalls {
				var input any = map[string]any{}
				if tc.Function.Arguments != "" {
					_ = json.Unmarshal([]byte(tc.Function.Arguments), &input)
				}
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, input, tc.Function.Name))
			}
			if len(blocks) > 0 {
				out = append(out, anthropic.NewAssistantMessage(blocks...))
			}
		case agui.RoleTool:
			result := anthropic.NewToolResultBlock(m.ToolCallID, text, false)
			if m.Error != "" {
				result = anthropic.NewToolResultBlock(m.ToolCallID, m.Error, true)
			}
			if n := len(out); n > 0 && out[n-1].OfUser != nil && isToolResults(out[n-1].OfUser.Content) {
				out[n-1].OfUser.Content = append(out[n-1].OfUser.Content, result)
				break
			}
			out = append(out, anthropic.NewUserMessage(result))
		}
		thinking = nil
	}
	return system, out
}

func isToolResults(blocks []anthropic.ContentBlockParamUnion) bool {
	for _, b := range blocks {
		if b.OfToolResult == nil {
			return false
		}
	}
	return len(blocks) > 0
}

// Tools converts the client's tool declarations to Messages API tools. A
// declaration without parameters gets an empty object schema.
func Tools(tools []agui.Tool) []anthropic.ToolUnionParam {
	var out []anthropic.ToolUnionParam
	for _, t := range tools {
		var schema anthropic.ToolInputSchemaParam
		if len(t.Parameters) > 0 {
			var p struct {
				Properties any      `json:"properties"`
				Required   []string `json:"required"`
			}
			if json.Unmarshal(t.Parameters, &p) == nil {
				schema.Properties, schema.Required = p.Properties, p.Required
			}
		}
		if schema.Properties == nil {
			// A zero schema is left out of the request, and the API
			// requires one.
			schema.Properties = map[string]any{}
		}
		tool := anthropic.ToolUnionParamOfTool(schema, t.Name)
		if t.Description != "" {
			tool.OfTool.Description = anthropic.String(t.Description)
		}
		out = append(out, tool)
	}
	return out
}
