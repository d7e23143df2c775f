package harness_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// TestExploreIsDeterministic: the same seed gives the same plans, the
// same failure and the same shrunk script, one plan at a time or several;
// another seed draws other random plans.
func TestExploreIsDeterministic(t *testing.T) {
	agent := harness.Func(chatAgent(true))
	report := func(seed uint64, parallel int) harness.Report {
		c := showBoth()
		c.Explore = &harness.Explore{Plans: 60, Seed: seed, Parallel: parallel}
		return harness.Options{}.Test(t.Context(), agent, c)
	}
	a, b := report(5, 1), report(5, 4)
	require.NotNil(t, a.Exploration)
	require.NotNil(t, a.Exploration.Failure)
	assert.Equal(t, a.Exploration.Failed, b.Exploration.Failed)
	assert.Equal(t, a.Err().Error(), b.Err().Error())
	assert.Equal(t, a.Exploration.Failure.Script.GoString(), b.Exploration.Failure.Script.GoString())

	s := showBoth().Script
	names := func(seed uint64) []string {
		var out []string
		for _, v := range scripted.Explore(s, nil, seed, 60) {
			out = append(out, v.String())
		}
		return out
	}
	assert.Equal(t, names(5), names(5))
	assert.NotEqual(t, names(5), names(6))
}

// A case with no script has nothing to explore: it runs once, and says so
// with no Exploration; a URL agent without ModelAddr cannot be explored,
// which is a failure, not a pass.
func TestExploreCannot(t *testing.T) {
	srv := httptest.NewServer(pong)
	defer srv.Close()
	c := harness.Case{Name: "ping", Input: harness.User("ping"), NoGolden: true, Explore: &harness.Explore{}}
	r := harness.Options{}.Test(t.Context(), harness.URL(srv.URL), c)
	assert.False(t, r.Failed(), "%v", r.Err())
	assert.Nil(t, r.Exploration)

	c = showBoth()
	c.Explore = &harness.Explore{}
	r = harness.Options{}.Test(t.Context(), harness.URL(srv.URL), c)
	require.True(t, r.Failed())
	assert.Contains(t, r.Err().Error(), "explore: a URL agent's model is not the case's scripted LLM")
}

// chunkCounter streams the model's text, and keeps in the state how many
// chunks the answer came in: a behaviour that changes with the plan, which
// neither the verifier nor fidelity sees, and exploration does.
func chunkCounter(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
	stream, err := env.Model.Stream(ctx, scripted.Request{Messages: []scripted.Message{{Role: "user", Content: "hi"}}})
	if err != nil {
		return err
	}
	var text string
	n := 0
	for chunk, err := range stream {
		if err != nil {
			return err
		}
		if chunk.Text != "" {
			text += chunk.Text
			n++
		}
	}
	for _, e := range []agui.Event{
		agui.NewRunStarted(in.ThreadID, in.RunID),
		agui.NewTextMessageStart("m"),
		agui.NewTextMessageContent("m", text),
		agui.NewTextMessageEnd("m"),
		agui.NewStateSnapshot(map[string]any{"chunks": n}),
		agui.NewRunFinished(in.ThreadID, in.RunID),
	} {
		if err := emit(e); err != nil {
			return err
		}
	}
	return nil
}

// TestExploreViewDiffers: an agent whose client view changes with the
// plan fails, reported with the first entry of the view that differs
// from the case's own plan's, as a diff (-want +got).
func TestExploreViewDiffers(t *testing.T) {
	c := harness.Case{
		Name:     "hello",
		Input:    harness.User("hi"),
		Script:   scripted.Script{Turns: []scripted.Turn{{Text: "Hello there!", Plan: scripted.Plan{Split: scripted.Split{By: scripted.Whole}}}}},
		NoGolden: true,
		Explore:  &harness.Explore{Plans: 10},
	}
	r := harness.Options{}.Test(t.Context(), harness.Func(chunkCounter), c)
	require.True(t, r.Failed())
	f := r.Exploration.Failure
	require.NotNil(t, f)
	require.Len(t, f.Problems, 1, "%v", r.Err())
	assert.Equal(t, harness.ProblemExplore, f.Problems[0].Kind)
	assert.Contains(t, f.Problems[0].Text, "the client's view differs from that of the case's own plan (-the case's own plan +this plan; 1 entry of the view, numbered from 1, differs):")
	assert.Contains(t, f.Problems[0].Text, "\t\t- {\"type\":\"STATE\",\"snapshot\":{\"chunks\":1}}\n\t\t+ {\"type\":\"STATE\",\"snapshot\":{\"chunks\":2}}\n\t\t  .snapshot.chunks: got 2, want 1")
}
