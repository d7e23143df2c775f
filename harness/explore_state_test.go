package harness_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// mintingAgent answers with the model's text under a message id it mints
// per run, as LangGraph does ("run-<uuid>"), and keeps in its state a
// copy of its messages under those ids, the thread's id, and the number
// of the run (which no placeholder hides: only IgnoreState does).
func mintingAgent() harness.Agent {
	var n atomic.Int64
	return harness.Func(func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		stream, err := env.Model.Stream(ctx, scripted.Request{Messages: []scripted.Message{{Role: "user", Content: "hi"}}})
		if err != nil {
			return err
		}
		var text string
		for chunk, err := range stream {
			if err != nil {
				return err
			}
			text += chunk.Text
		}
		k := n.Add(1)
		id := fmt.Sprintf("run-%08x-0000-4000-8000-%012x", k, k*7919)
		state := map[string]any{
			"thread":   in.ThreadID,
			"messages": []any{map[string]any{"id": id, "content": text}, map[string]any{"id": id + "-tool-call_1_1"}},
			"counter":  map[string]any{"runs": k, "kept": "yes"},
		}
		for _, e := range []agui.Event{
			agui.NewRunStarted(in.ThreadID, in.RunID),
			agui.NewTextMessageStart(id),
			agui.NewTextMessageContent(id, text),
			agui.NewTextMessageEnd(id),
			agui.NewStateSnapshot(state),
			agui.NewRunFinished(in.ThreadID, in.RunID),
		} {
			if err := emit(e); err != nil {
				return err
			}
		}
		return nil
	})
}

func mintingCase() harness.Case {
	return harness.Case{
		Name:     "minting",
		Input:    harness.User("hi"),
		Script:   scripted.Script{Turns: []scripted.Turn{{Text: "Hello there, how are you?"}}},
		NoGolden: true,
		Explore:  &harness.Explore{Plans: 10},
	}
}

// TestExploreStateIDs: ids the agent mints per run, and the thread's id,
// are placeholders in the state as in the messages, so that only what
// really differs (the number of the run) fails the exploration; and a
// case's IgnoreState, or the options', leaves that out too.
func TestExploreStateIDs(t *testing.T) {
	r := harness.Options{}.Test(t.Context(), mintingAgent(), mintingCase())
	require.True(t, r.Failed(), "the number of the run differs from plan to plan")
	require.NotNil(t, r.Exploration.Failure)
	text := r.Exploration.Failure.Problems[0].Text
	assert.Contains(t, text, ".snapshot.counter.runs: got")
	assert.NotContains(t, text, ".snapshot.messages", "the minted ids differ")
	assert.NotContains(t, text, ".snapshot.thread", "the thread's id differs")
	assert.Contains(t, text, `"messages":[{"content":"Hello there, how are you?","id":"id-1"},{"id":"id-1-tool-call_1_1"}],"thread":"id-2"`)

	c := mintingCase()
	c.IgnoreState = []string{"/counter/runs"}
	r = harness.Options{}.Test(t.Context(), mintingAgent(), c)
	assert.False(t, r.Failed(), "%v", r.Err())

	r = harness.Options{IgnoreState: []string{"/counter"}}.Test(t.Context(), mintingAgent(), mintingCase())
	assert.False(t, r.Failed(), "%v", r.Err())
}

// TestIgnoreStatePointers: a pointer into an array, every element of
// one, and the whole state; a pointer that is not one fails the case at
// its start, before it runs.
func TestIgnoreStatePointers(t *testing.T) {
	for _, ptrs := range [][]string{{"/counter/runs", "/nothing/here", "/messages/9"}, {""}} {
		c := mintingCase()
		c.IgnoreState = ptrs
		r := harness.Options{}.Test(t.Context(), mintingAgent(), c)
		assert.False(t, r.Failed(), "%q: %v", ptrs, r.Err())
	}
	c := mintingCase()
	c.IgnoreState = []string{"counter"}
	r := harness.Options{}.Test(t.Context(), mintingAgent(), c)
	require.Len(t, r.Problems, 1, "%v", r.Err())
	assert.Equal(t, harness.ProblemCase, r.Problems[0].Kind)
	assert.Contains(t, r.Problems[0].Text, `IgnoreState: "counter" is not a JSON Pointer: it does not start with /`)
	assert.Nil(t, r.Result, "the case did not run")
}
