package parallel

import (
	"context"
	"fmt"

	"github.com/aguitest/aguitest/agent/scriptedmodel"
	"github.com/aguitest/aguitest/agui"
)

// MixedUp is Streaming with a bug seen in real agents: it keeps one "current
// call" and sends every argument fragment under the id of the call that
// started last. With calls streamed one after another nothing shows; once a
// provider interleaves them, one call's fragments land in another's
// arguments. It is here to show what aguitest reports; do not copy it.
//
// It builds its events by hand, as agents did before package agent: a
// ToolCall handle sends its fragments under its own id, so the bug cannot
// be written with one. It allocates ids the way package agent does, so
// that the script answers it as it answers Streaming.
type MixedUp struct{ Model Model }

// Run runs the agent once for in, handing each event to emit.
func (a MixedUp) Run(ctx context.Context, in agui.RunAgentInput, emit func(agui.Event) error) error {
	if err := emit(agui.NewRunStarted(in.ThreadID, in.RunID)); err != nil {
		return err
	}
	stream, err := a.Model.Stream(ctx, scriptedmodel.Request(in))
	if err != nil {
		return emit(agui.NewRunError("the model could not answer: "+err.Error(), "PROVIDER_ERROR"))
	}
	msgID := in.RunID + "-msg-1"
	textOpen := false
	var calls []string // call ids, in the order they started
	byKey := map[string]bool{}
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
			key := fmt.Sprint(d.Index)
			if d.Index < 0 {
				key = d.ID
			}
			if !byKey[key] {
				byKey[key] = true
				calls = append(calls, fmt.Sprintf("%s-call-%d", in.RunID, len(calls)+1))
				if err := emit(agui.NewToolCallStart(calls[len(calls)-1], d.Name, msgID)); err != nil {
					return err
				}
			}
			// The bug: the call that started last, not the call
			// the fragment belongs to.
			if d.Args != "" {
				if err := emit(agui.NewToolCallArgs(calls[len(calls)-1], d.Args)); err != nil {
					return err
				}
			}
		}
	}
	if textOpen {
		if err := emit(agui.NewTextMessageEnd(msgID)); err != nil {
			return err
		}
	}
	for _, id := range calls {
		if err := emit(agui.NewToolCallEnd(id)); err != nil {
			return err
		}
	}
	return emit(agui.NewRunFinished(in.ThreadID, in.RunID))
}
