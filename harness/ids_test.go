package harness_test

import (
	"context"
	"regexp"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// uuidV4 is the form of the UUIDs HttpAgent and CopilotKit mint
// (uuid v4): version 4, variant 10.
var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// The client names the thread, each run, the user's messages and the
// messages it adds with UUIDs, as HttpAgent and CopilotKit do, drawn from
// the case: distinct per case, per run and per plan of an exploration, and
// the same every time the case runs. A script's expectations name runs as
// goldens do ("run-1-call-1").
func TestIDs(t *testing.T) {
	var mu sync.Mutex
	var inputs []agui.RunAgentInput
	agent := harness.Func(func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		mu.Lock()
		inputs = append(inputs, in)
		mu.Unlock()
		return chatAgent(false)(ctx, env, in, emit)
	})
	c := harness.Case{
		Name:  "ids",
		Input: harness.Input{Messages: harness.User("Where am I?").Messages, FollowUps: []string{"Thanks."}},
		Tools: []harness.Tool{locationTool},
		Script: scripted.Script{Turns: []scripted.Turn{
			{Calls: []scripted.Call{{ID: "loc-1", Name: "get_user_location"}}},
			{Expect: scripted.Expect{ToolResults: []string{"loc-1"}}, Text: "You are in Seoul."},
			{Text: "You are welcome."},
		}},
		NoGolden: true,
		Explore:  &harness.Explore{Off: true}, // the case's own plan: TestIDsPerPlan explores
	}
	run := func(c harness.Case) []agui.RunAgentInput {
		inputs = nil
		rep := harness.Options{}.Test(t.Context(), agent, c)
		require.NoError(t, rep.Err())
		return inputs
	}
	first := run(c)
	require.Len(t, first, 3)
	thread := first[0].ThreadID
	seen := map[string]bool{}
	for i, in := range first {
		if in.ThreadID != thread {
			t.Errorf("run %d: thread %q, want the first run's %q", i+1, in.ThreadID, thread)
		}
		for _, id := range []string{in.ThreadID, in.RunID} {
			if !uuidV4.MatchString(id) {
				t.Errorf("run %d: id %q is not a version 4 UUID", i+1, id)
			}
		}
		if seen[in.RunID] {
			t.Errorf("run %d: run id %q again", i+1, in.RunID)
		}
		seen[in.RunID] = true
	}
	// The messages the client sent or added: the user's, the tool's
	// result, the follow-up.
	var mine []string
	for _, m := range first[2].Messages {
		if m.Role == agui.RoleUser || m.Role == agui.RoleTool {
			mine = append(mine, m.ID)
			if !uuidV4.MatchString(m.ID) {
				t.Errorf("%s message id %q is not a version 4 UUID", m.Role, m.ID)
			}
		}
	}
	require.Len(t, mine, 3)
	if mine[0] == mine[1] || mine[1] == mine[2] || mine[0] == mine[2] {
		t.Errorf("message ids %v: want distinct ones", mine)
	}
	if diff := cmp.Diff(first, run(c)); diff != "" {
		t.Errorf("a second run of the case sent other inputs (-first +second):\n%s", diff)
	}
	other := c
	other.Name = "ids, another case"
	if o := run(other); o[0].ThreadID == thread {
		t.Errorf("two cases share the thread id %s", thread)
	}
}

// Each plan of an exploration has a thread of its own: a server that
// keeps threads (LangGraph) does not answer one plan from another's.
func TestIDsPerPlan(t *testing.T) {
	var mu sync.Mutex
	threads := map[string]int{}
	agent := harness.Func(func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		mu.Lock()
		threads[in.ThreadID]++
		mu.Unlock()
		return chatAgent(false)(ctx, env, in, emit)
	})
	rep := harness.Options{}.Test(t.Context(), agent, harness.Case{
		Name:     "plans",
		Input:    harness.User("Hi"),
		Script:   scripted.Script{Turns: []scripted.Turn{{Text: "Hello there, how are you?"}}},
		NoGolden: true,
		Explore:  &harness.Explore{Plans: 10},
	})
	require.NoError(t, rep.Err())
	require.NotNil(t, rep.Exploration)
	for id, n := range threads {
		if n != 1 {
			t.Errorf("thread %s: got %d runs, want 1 (one plan, one run)", id, n)
		}
	}
	if len(threads) < 2 {
		t.Errorf("got %d threads, want one per plan run", len(threads))
	}
}

// A case's RunAgentInput is sent as it is: its thread and run ids too.
func TestIDsOfRunAgentInput(t *testing.T) {
	var got []agui.RunAgentInput
	agent := harness.Func(func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		got = append(got, in)
		return chatAgent(false)(ctx, env, in, emit)
	})
	in := agui.RunAgentInput{ThreadID: "t-mine", RunID: "r-mine", Messages: []agui.Message{agui.UserMessage("u-mine", "Hi")}}
	rep := harness.Options{}.Test(t.Context(), agent, harness.Case{
		Name:     "pinned",
		Input:    harness.Input{RunAgentInput: &in, FollowUps: []string{"Again"}},
		Explore:  &harness.Explore{Off: true},
		Script:   scripted.Script{Turns: []scripted.Turn{{Text: "Hello."}, {Text: "Hello again."}}},
		NoGolden: true,
	})
	require.NoError(t, rep.Err())
	require.Len(t, got, 2)
	if got[0].ThreadID != "t-mine" || got[0].RunID != "r-mine" || got[0].Messages[0].ID != "u-mine" {
		t.Errorf("first run: got thread %q, run %q, message %q; want the case's t-mine, r-mine, u-mine", got[0].ThreadID, got[0].RunID, got[0].Messages[0].ID)
	}
	if got[1].ThreadID != "t-mine" || !uuidV4.MatchString(got[1].RunID) {
		t.Errorf("second run: got thread %q, run %q; want t-mine and a new UUID", got[1].ThreadID, got[1].RunID)
	}
}

// harness.UUID is deterministic and in the version 4 form.
func TestUUID(t *testing.T) {
	a, b := harness.UUID("case", "run", "1"), harness.UUID("case", "run", "2")
	if !uuidV4.MatchString(a) || !uuidV4.MatchString(b) {
		t.Errorf("got %q and %q, want version 4 UUIDs", a, b)
	}
	if a == b {
		t.Errorf("two parts gave one UUID %s", a)
	}
	if again := harness.UUID("case", "run", "1"); again != a {
		t.Errorf("got %s, then %s: want the same UUID for the same parts", a, again)
	}
}
