package parallel

import (
	"context"

	"github.com/aguitest/aguitest/agui"
)

// MixedUp is Streaming with a bug seen in real agents: it keeps one "current
// call" and sends every argument fragment under the id of the call that
// started last. With calls streamed one after another nothing shows; once a
// provider interleaves them, one call's fragments land in another's
// arguments. It is here to show what aguitest reports; do not copy it.
type MixedUp struct{ Model Model }

// Run runs the agent once for in, handing each event to emit.
func (a MixedUp) Run(ctx context.Context, in agui.RunAgentInput, emit func(agui.Event) error) error {
	return run(ctx, a.Model, in, emit, &mixedCalls{})
}

type mixedCalls struct {
	streamCalls
	current *call
}

func (m *mixedCalls) delta(c *call, first bool, args string, emit func(agui.Event) error) error {
	if first {
		m.current = c
	}
	return m.streamCalls.delta(m.current, first, args, emit)
}
