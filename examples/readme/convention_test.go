package readme_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
)

// TestAssertionConvention is CONTRIBUTING.md's assertion convention at
// work: require for the steps the test cannot go on without, a go-cmp diff
// (-want +got) for the structured value it checks.
func TestAssertionConvention(t *testing.T) {
	v := agui.NewView(agui.RunAgentInput{})
	for _, e := range []agui.Event{
		agui.NewRunStarted("thread-1", "run-1"),
		agui.NewTextMessageStart("msg-1"),
		agui.NewTextMessageContent("msg-1", "Three tasks."),
		agui.NewTextMessageEnd("msg-1"),
		agui.NewRunFinished("thread-1", "run-1"),
	} {
		require.NoError(t, v.Apply(e), "applying %s", e)
	}
	var got []map[string]any
	require.NoError(t, json.Unmarshal(v.MessagesJSON(), &got), "the view's messages as JSON")
	want := []map[string]any{{"id": "msg-1", "role": "assistant", "content": "Three tasks."}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}
