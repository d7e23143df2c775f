package sdktest_test

import (
	"context"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agent/scriptedmodel"
	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/examples/bugs"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/textgolden"
	"github.com/aguitest/aguitest/scripted"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFidelity: what the model said must reach the client, as the client
// assembles it; an agent that ran a call itself, or adds text of its own,
// is no failure, and one that rewrites the model's text passes under the
// named relaxation. Each row runs under the case's own plan and explored,
// so that no plan raises a false alarm either.
func TestFidelity(t *testing.T) {
	same := func(s string) string { return s }
	for _, tc := range []struct {
		name  string
		agent harness.Agent
		case_ func() harness.Case
		relax []harness.Fidelity
		want  []string // in the problems, in order; none: the case passes
	}{
		{name: "runs its calls without telling the client", agent: quietAgent(same, false), case_: weatherCase},
		{name: "adds text of its own", agent: quietAgent(func(s string) string { return "[bot] " + s + " (checked)" }, false), case_: weatherCase},
		{
			name:  "rewrites the text",
			agent: quietAgent(strings.ToUpper, false), case_: weatherCase,
			want: []string{
				`fidelity: the model said "Let me look." (turn 1); the client's assistant messages do not hold it after the text before it: they read "LET ME LOOK.", "BOTH ARE SUNNY."`,
				`fidelity: the model said "Both are sunny." (turn 2)`,
			},
		},
		{name: "rewrites the text, relaxed", agent: quietAgent(strings.ToUpper, false), case_: weatherCase, relax: []harness.Fidelity{harness.FidelityText}},
		{
			name:  "forgets its calls",
			agent: quietAgent(same, true), case_: weatherCase,
			want: []string{`fidelity: in turn 1 the model called get_weather with {"city":"Paris"} (call 1) and get_weather with {"city":"Rome"} (call 2); the client never got them, and no tool message or later model request shows the agent ran them (the client holds no call)`},
		},
		{name: "forgets its calls, relaxed", agent: quietAgent(same, true), case_: weatherCase, relax: []harness.Fidelity{harness.FidelityCalls}},
		{
			name:  "runs its calls and sends their results",
			agent: bugAgent(bugs.None), case_: ownCalls,
		},
		{
			// strands #1346, caught under the case's own plan with no
			// golden and no check.
			name:  "sends the first of two client calls",
			agent: bugAgent(bugs.FirstClientCall), case_: showBoth,
			want: []string{`fidelity: in turn 1 the model called show_on_map with {"city":"Rome"} (call 2); the client never got it`},
		},
		{
			// As Strands ran a tool with no arguments while the stream
			// showed them: the client sees the model's call whole, the
			// model is told the call had none.
			name:  "tells the model its call had no arguments",
			agent: forgetfulAgent(), case_: ownCalls,
			want: []string{
				`fidelity: in turn 1 the model called get_weather with {"city":"Paris"}; request 2 to the model carries the call (id run-1-call-1) with no arguments`,
				`fidelity: in turn 1 the model called get_weather with {"city":"Rome"}; request 2 to the model carries the call (id run-1-call-2) with no arguments`,
			},
		},
		{name: "tells the model its call had no arguments, relaxed", agent: forgetfulAgent(), case_: ownCalls, relax: []harness.Fidelity{harness.FidelityHistory}},
		{
			// microsoft/agent-framework #6009.
			name:  "shares one id between results",
			agent: bugAgent(bugs.SharedResultID), case_: ownCalls,
			want: []string{`fidelity: the client holds 2 messages under the id "run-1-msg-1-results" (the result of call run-1-call-1, the result of call run-1-call-2): a frontend that keys messages by id shows only one of them`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, explored := range []bool{false, true} {
				c := tc.case_()
				c.Relax = tc.relax
				if explored {
					c.Explore = &harness.Explore{Plans: 40}
				}
				r := harness.Options{}.Test(t.Context(), tc.agent, c)
				if len(tc.want) == 0 {
					assert.False(t, r.Failed(), "explored %v: %v", explored, r.Err())
					continue
				}
				require.NotEmpty(t, r.Problems, "explored %v", explored)
				var fidelity []string
				for _, p := range r.Problems {
					if p.Kind == harness.ProblemFidelity {
						fidelity = append(fidelity, p.Text)
					}
				}
				require.Len(t, fidelity, len(tc.want), "explored %v: %v", explored, r.Err())
				for i, w := range tc.want {
					assert.True(t, strings.HasPrefix(textgolden.RunIDs(fidelity[i]), w), "problem %d:\ngot  %s\nwant %s...", i+1, fidelity[i], w)
				}
			}
		})
	}
}

// bugAgent is the examples/bugs agent with a bug on the Go-native model.
func bugAgent(b bugs.Bug) harness.Agent {
	return harness.Func(func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		return bugs.Agent{Model: env.Model, Tools: bugs.Weather(), Bug: b}.Run(ctx, in, emit)
	})
}

// forgetfulAgent is the examples/bugs agent whose model client sends the
// calls of its history without their arguments.
func forgetfulAgent() harness.Agent {
	return harness.Func(func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		return bugs.Agent{Model: forgetsArgs{env.Model}, Tools: bugs.Weather()}.Run(ctx, in, emit)
	})
}

// forgetsArgs drops the arguments of the calls in the history it sends.
type forgetsArgs struct{ m scriptedmodel.Model }

func (f forgetsArgs) Stream(ctx context.Context, req scripted.Request) (iter.Seq2[scripted.Chunk, error], error) {
	msgs := make([]scripted.Message, len(req.Messages))
	for i, m := range req.Messages {
		m.Calls = slices.Clone(m.Calls)
		for j := range m.Calls {
			m.Calls[j].Args = ""
		}
		msgs[i] = m
	}
	req.Messages = msgs
	return f.m.Stream(ctx, req)
}
