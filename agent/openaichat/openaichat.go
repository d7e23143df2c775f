// Package openaichat bridges an OpenAI Chat Completions stream, as
// github.com/openai/openai-go/v3 reads it, to an agent.Turn, and converts
// the AG-UI conversation and tools to the parameters of a request.
//
// Chat Completions says a call is complete only with the choice's
// finish_reason, which completes all of them at once. Until then a call's
// arguments may still grow, even when the stream has moved on to another
// call: parallel calls interleave by index. (openai-go's
// ChatCompletionAccumulator.JustFinishedToolCall reports a call as finished
// each time the stream switches calls, with the arguments received so far;
// this bridge does not use it.) Reasoning arrives, from providers that
// stream it, as a reasoning_content field of the delta.
package openaichat

import (
	"encoding/json"
	"errors"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agui"
)

// ErrIncomplete is returned when a stream ends without a finish_reason: the
// answer, and any call in it, is not known to be complete.
var ErrIncomplete = errors.New("openaichat: the stream ended without a finish_reason")

// Stream feeds a streamed completion into turn. When the first choice's
// finish_reason arrives it completes the turn (agent.Turn.End) and reads
// the rest of the stream (the usage chunk). It returns the answer; a
// stream error before the finish_reason returns no answer (the turn is
// left incomplete: fail the run), one after it returns the answer and the
// error.
func Stream(turn *agent.Turn, s *ssestream.Stream[openai.ChatCompletionChunk]) (*agent.Answer, error) {
	return agent.Consume(turn, s, func(c openai.ChatCompletionChunk) (bool, error) { return Chunk(turn, c) }, ErrIncomplete)
}

// Chunk feeds one chunk's first choice into turn: reasoning, text (and a
// refusal, which is text the user reads) and call deltas. It reports
// whether the chunk carried the finish_reason; completing the turn is then
// the caller's (Stream does it).
func Chunk(turn *agent.Turn, c openai.ChatCompletionChunk) (done bool, err error) {
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // one answer per turn: n=1
		}
		d := ch.Delta
		// openai-go keeps fields it does not model as raw JSON, and
		// marks them not Valid: read the raw text.
		if f, ok := d.JSON.ExtraFields["reasoning_content"]; ok {
			var r string
			if json.Unmarshal([]byte(f.Raw()), &r) == nil {
				if err := turn.Reasoning(r); err != nil {
					return false, err
				}
			}
		}
		if err := turn.Text(d.Content); err != nil {
			return false, err
		}
		if err := turn.Text(d.Refusal); err != nil {
			return false, err
		}
		for _, tc := range d.ToolCalls {
			index := -1
			if tc.JSON.Index.Valid() {
				index = int(tc.Index)
			}
			if err := turn.Call(agent.CallDelta{Index: index, ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments}); err != nil {
				return false, err
			}
		}
		if ch.FinishReason != "" {
			done = true
		}
	}
	return done, nil
}

// Messages converts the AG-UI conversation to Chat Completions messages. A
// call streamed with no arguments goes as {}; a tool message with an error
// carries it as the result {"error": "..."}; activity and reasoning messages are for the user and
// are left out. Content in parts becomes its text parts, joined.
func Messages(msgs []agui.Message) []openai.ChatCompletionMessageParamUnion {
	var out []openai.ChatCompletionMessageParamUnion
	for _, m := range msgs {
		text := agent.ContentText(m.Content)
		switch m.Role {
		case agui.RoleUser:
			out = append(out, openai.UserMessage(text))
		case agui.RoleSystem:
			out = append(out, openai.SystemMessage(text))
		case agui.RoleDeveloper:
			out = append(out, openai.DeveloperMessage(text))
		case agui.RoleAssistant:
			am := openai.ChatCompletionAssistantMessageParam{}
			if text != "" {
				am.Content.OfString = openai.String(text)
			}
			for _, tc := range m.ToolCalls {
				am.ToolCalls = append(am.ToolCalls, toolCall(tc.ID, tc.Function.Name, argsOrEmpty(tc.Function.Arguments)))
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &am})
		case agui.RoleTool:
			if m.Error != "" {
				b, _ := json.Marshal(map[string]string{"error": m.Error})
				text = string(b)
			}
			out = append(out, openai.ToolMessage(text, m.ToolCallID))
		}
	}
	return out
}

// Assistant returns the assistant message of an answer, with its text and
// calls (under their AG-UI ids), to send back with the conversation.
func Assistant(a *agent.Answer) openai.ChatCompletionMessageParamUnion {
	am := openai.ChatCompletionAssistantMessageParam{}
	if a.Text != "" {
		am.Content.OfString = openai.String(a.Text)
	}
	for _, c := range a.Calls {
		am.ToolCalls = append(am.ToolCalls, toolCall(c.ID(), c.Name(), argsOrEmpty(c.RawArgs())))
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &am}
}

func argsOrEmpty(s string) string {
	if s == "" {
		return "{}"
	}
	return s
}

func toolCall(id, name, args string) openai.ChatCompletionMessageToolCallUnionParam {
	return openai.ChatCompletionMessageToolCallUnionParam{
		OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
			ID:       id,
			Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: name, Arguments: args},
		},
	}
}

// Tools converts the client's tool declarations to Chat Completions
// function tools. A declaration without parameters gets an empty object
// schema.
func Tools(tools []agui.Tool) []openai.ChatCompletionToolUnionParam {
	var out []openai.ChatCompletionToolUnionParam
	for _, t := range tools {
		params := shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
		if len(t.Parameters) > 0 {
			var p shared.FunctionParameters
			if json.Unmarshal(t.Parameters, &p) == nil && p != nil {
				params = p
			}
		}
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: params}
		if t.Description != "" {
			def.Description = openai.String(t.Description)
		}
		out = append(out, openai.ChatCompletionFunctionTool(def))
	}
	return out
}
