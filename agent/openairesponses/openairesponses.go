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
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/aguitest/aguitest/agent"
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
	var answer *agent.Answer
	for s.Next() {
		if answer != nil {
			continue
		}
		done, err := Event(turn, s.Current())
		if err != nil {
			return nil, err
		}
		if done {
			if answer, err = turn.End(); err != nil {
				return nil, err
			}
		}
	}
	if err := s.Err(); err != nil {
		return answer, err
	}
	if answer == nil {
		return nil, ErrIncomplete
	}
	return answer, nil
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
