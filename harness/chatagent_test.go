package harness_test

import (
	"context"
	"fmt"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agent/scriptedmodel"
	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
)

// chatAgent is a small Go agent for the harness's own tests, on package
// agent: it asks the scripted model, streams its text, and streams its tool
// calls interleaved on the wire under the provider's ids, as a careful agent
// does. With buggy set it is mixedUpAgent instead.
func chatAgent(buggy bool) func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
	if buggy {
		return mixedUpAgent
	}
	return func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		run, err := agent.Start(in, emit, agent.Options{})
		if err != nil {
			return err
		}
		stream, err := env.Model.Stream(ctx, scriptedmodel.Request(in))
		if err == nil {
			_, err = scriptedmodel.Stream(run.Turn(agent.TurnOptions{ProviderIDs: true}), stream)
		}
		return run.End(err)
	}
}

// mixedUpAgent puts every argument fragment under the id of the call that
// started last, a mistake real agents make when parallel calls interleave.
// It is examples/parallel's MixedUp (the same events, by hand: package
// agent's handles cannot express the bug), written again here because the
// examples are a module of their own that the library's tests do not
// require.
func mixedUpAgent(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
	if err := emit(agui.NewRunStarted(in.ThreadID, in.RunID)); err != nil {
		return err
	}
	stream, err := env.Model.Stream(ctx, scriptedmodel.Request(in))
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
