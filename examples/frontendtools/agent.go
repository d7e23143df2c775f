package frontendtools

import (
	"context"
	"errors"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agent/scriptedmodel"
	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/scripted"
)

// Model is the LLM the agent asks: a streaming chat model. *scripted.Model
// is one; an adapter over a provider's SDK would be another.
type Model = scriptedmodel.Model

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
	run, err := agent.Start(in, emit, agent.Options{})
	if err != nil {
		return err
	}
	return run.End(a.answer(ctx, run))
}

// answer asks the model once and streams its answer. Each call is sent
// whole, in the model's order, and left for the client to run: there is no
// TOOL_CALL_RESULT.
func (a Agent) answer(ctx context.Context, run *agent.Run) error {
	stream, err := a.Model.Stream(ctx, a.request(run.Input()))
	if err != nil {
		return &agent.Failure{Message: "the model could not answer: " + err.Error(), Code: "PROVIDER_ERROR"}
	}
	if _, err := scriptedmodel.Stream(run.Turn(agent.TurnOptions{Buffered: true}), stream); err != nil {
		var ae *agent.Error
		if errors.As(err, &ae) || errors.Is(err, agent.ErrGone) {
			return err
		}
		return &agent.Failure{Message: "the model's answer broke off: " + err.Error(), Code: "PROVIDER_ERROR"}
	}
	return nil
}

// request turns a run's input into what the model is asked: the system
// prompt, the conversation, and the client's tools.
func (a Agent) request(in agui.RunAgentInput) scripted.Request {
	system := a.System
	if system == "" {
		system = defaultSystem
	}
	req := scriptedmodel.Request(in)
	req.Messages = append([]scripted.Message{{Role: "system", Content: system}}, req.Messages...)
	return req
}
