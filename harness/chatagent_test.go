package harness_test

import (
	"context"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agent/scriptedmodel"
	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/examples/parallel"
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
// started last, a mistake real agents make when parallel calls interleave:
// the hand-built agent of examples/parallel (package agent's handles cannot
// express it).
func mixedUpAgent(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
	return parallel.MixedUp{Model: env.Model}.Run(ctx, in, emit)
}
