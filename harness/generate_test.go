package harness_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// noteTool is a client tool whose schema has something for every shape.
var noteTool = harness.Tool{
	Name:       "save_note",
	Parameters: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string","minLength":1},"body":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},"pinned":{"type":"boolean"},"stars":{"type":"integer","minimum":0,"maximum":5}},"required":["title"]}`),
	Run:        func(context.Context, json.RawMessage) (string, error) { return "saved", nil },
}

// generatedCase calls every tool the agent declares with generated
// arguments, then answers.
func generatedCase(shape scripted.ArgShape) harness.Case {
	return harness.Case{
		Name:     "generated " + string(shape),
		Input:    harness.User("Save a note."),
		Tools:    []harness.Tool{noteTool},
		NoGolden: true,
		Script: scripted.Script{Turns: []scripted.Turn{
			{Generate: &scripted.Generate{Shape: shape}},
			{Text: "Saved."},
		}},
	}
}

// A frontend tool's call reaches the client with exactly the generated
// arguments, in every shape; the fidelity check holds generated calls to
// it as it does scripted ones.
func TestGeneratedCallsReachTheClient(t *testing.T) {
	for _, shape := range scripted.ArgShapes {
		r := harness.Options{}.Test(t.Context(), harness.Func(chatAgent(false)), generatedCase(shape))
		require.NoError(t, r.Err(), "shape %q", shape)
		gen := r.Result.Requests[0].Generated
		require.Len(t, gen, 1)
		var got []agui.ToolCall
		for _, m := range r.Result.Messages {
			got = append(got, m.ToolCalls...)
		}
		require.Len(t, got, 1)
		assert.JSONEq(t, gen[0].Args, got[0].Function.Arguments, "shape %q", shape)
	}
}

// newlineDropper loses every call whose arguments hold a newline, a bug of
// agents that read arguments line by line.
func newlineDropper(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
	return chatAgent(false)(ctx, env, in, func(e agui.Event) error {
		if e.Type() == agui.ToolCallArgs && strings.Contains(e.Delta(), `\n`) {
			return nil
		}
		return emit(e)
	})
}

// Exploration varies the generated arguments with each plan's seed, finds
// those the agent breaks on, and shrinks them to the smallest that still
// fail, printed as the call's own arguments to paste into the case.
func TestGeneratedCallsShrink(t *testing.T) {
	c := generatedCase(scripted.ShapeMixed)
	c.Explore = &harness.Explore{Plans: 40, Seed: 5}
	r := harness.Options{}.Test(t.Context(), harness.Func(newlineDropper), c)
	x := r.Exploration
	require.NotNil(t, x)
	require.NotNil(t, x.Failure, "%v", r.Problems)
	turn := x.Failure.Script.Turns[0]
	require.Nil(t, turn.Generate, "the failing script's calls are written out")
	require.Len(t, turn.Calls, 1)
	args := turn.Calls[0].Args
	assert.Contains(t, args, `\n`, "the arguments that fail hold a newline")
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(args), &v))
	assert.Len(t, v, 1, "shrunk to one property: %s", args)
	assert.Less(t, len(args), 60, "shrunk: %s", args)
	var shrunkArgs bool
	for _, st := range x.Failure.Steps {
		shrunkArgs = shrunkArgs || strings.Contains(st, "(save_note) with the arguments")
	}
	assert.True(t, shrunkArgs, "steps %v", x.Failure.Steps)
	assert.Contains(t, r.Err().Error(), `Name: "save_note"`)
}
