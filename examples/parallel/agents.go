package parallel

import (
	"context"
	"errors"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agent/scriptedmodel"
	"github.com/aguitest/aguitest/agui"
)

// Model is the LLM the agents ask: a streaming chat model. *scripted.Model
// is one.
type Model = scriptedmodel.Model

// Streaming forwards the model's answer as it arrives: each text delta as
// TEXT_MESSAGE_CONTENT, each call's first delta as TOOL_CALL_START and every
// argument fragment as TOOL_CALL_ARGS under that call's own id, so parallel
// calls interleave on the wire as they did on the provider's stream. The
// calls end when the model's answer is complete. Every call is left for the
// client to run.
type Streaming struct{ Model Model }

// Buffering keeps each call's fragments until the model's answer is
// complete, then emits each call whole: TOOL_CALL_START, one TOOL_CALL_ARGS,
// TOOL_CALL_END, in the order of the provider's indexes. Text is still
// forwarded as it arrives.
type Buffering struct{ Model Model }

// Run runs the agent once for in, handing each event to emit.
func (a Streaming) Run(ctx context.Context, in agui.RunAgentInput, emit func(agui.Event) error) error {
	return run(ctx, a.Model, in, emit, agent.TurnOptions{})
}

// Run runs the agent once for in, handing each event to emit.
func (a Buffering) Run(ctx context.Context, in agui.RunAgentInput, emit func(agui.Event) error) error {
	return run(ctx, a.Model, in, emit, agent.TurnOptions{Buffered: true})
}

// run is both agents: they differ only in how the turn sends calls.
func run(ctx context.Context, m Model, in agui.RunAgentInput, emit func(agui.Event) error, opt agent.TurnOptions) error {
	r, err := agent.Start(in, emit, agent.Options{})
	if err != nil {
		return err
	}
	return r.End(answer(ctx, m, r, opt))
}

func answer(ctx context.Context, m Model, r *agent.Run, opt agent.TurnOptions) error {
	stream, err := m.Stream(ctx, scriptedmodel.Request(r.Input()))
	if err != nil {
		return &agent.Failure{Message: "the model could not answer: " + err.Error(), Code: "PROVIDER_ERROR"}
	}
	if _, err := scriptedmodel.Stream(r.Turn(opt), stream); err != nil {
		var ae *agent.Error
		if errors.As(err, &ae) || errors.Is(err, agent.ErrGone) {
			return err
		}
		return &agent.Failure{Message: "the model's answer broke off: " + err.Error(), Code: "PROVIDER_ERROR"}
	}
	return nil
}
