package taskboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/examples/taskboard"
	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// start is the board every case starts from, unless it says otherwise.
const start = `{"columns":[
	{"id":"todo","title":"To do","tasks":[{"id":"T1","title":"Write the spec"}]},
	{"id":"doing","title":"Doing","tasks":[{"id":"T2","title":"Fix the login bug"}]},
	{"id":"done","title":"Done","tasks":[{"id":"T3","title":"Set up CI"}]}],
	"nextId":4}`

// boardTools declares the board tools the client offers. The agent answers
// their calls itself; if it ever left one without a result, the harness
// would run it as a frontend tool and the error would show in the next run.
func boardTools(names ...string) []harness.Tool {
	var out []harness.Tool
	for _, n := range names {
		out = append(out, harness.Tool{
			Name:        n,
			Description: "Changes the task board.",
			Parameters:  json.RawMessage(`{"type":"object"}`),
			Run: func(context.Context, json.RawMessage) (string, error) {
				return "", errAnsweredByAgent
			},
		})
	}
	return out
}

type agentError string

func (e agentError) Error() string { return string(e) }

const errAnsweredByAgent = agentError("the client does not run board tools: the agent answers them")

func agent() harness.Agent {
	return harness.Handler(func(env harness.Env) http.Handler {
		return taskboard.New(taskboard.Options{BaseURL: env.BaseURL, APIKey: env.APIKey})
	})
}

// input is a user message sent with the starting board.
func input(text string) harness.Input {
	in := harness.User(text)
	in.State = json.RawMessage(start)
	return in
}

// Call ids the agent assigns: run, then the call's number in the run.
const (
	call00 = "run-1-call-1"
	call01 = "run-1-call-2"
	call02 = "run-1-call-3"
)

func TestTaskBoard(t *testing.T) {
	all := taskboard.BoardTools
	cases := []harness.Case{
		{
			// The wire golden shows the order of one call: START,
			// ARGS, STATE_DELTA while it is open, END, RESULT.
			Name:   "add",
			Golden: golden.Wire,
			Input:  input("Add 'Write the changelog' to To do."),
			Script: script(
				scripted.Turn{
					Expect: scripted.Expect{LastUser: "changelog", Tools: append(all, taskboard.RenderA2UI)},
					Text:   "Adding it.",
					Calls:  []scripted.Call{{Name: "add_task", Args: `{"title":"Write the changelog","column":"todo"}`}},
				},
				scripted.Turn{Expect: scripted.Expect{ToolResults: []string{call00}}, Text: "Added T4 to To do."},
			),
			Check: checks(
				stateIs(`{"columns":[
					{"id":"todo","title":"To do","tasks":[{"id":"T1","title":"Write the spec"},{"id":"T4","title":"Write the changelog"}]},
					{"id":"doing","title":"Doing","tasks":[{"id":"T2","title":"Fix the login bug"}]},
					{"id":"done","title":"Done","tasks":[{"id":"T3","title":"Set up CI"}]}],"nextId":5}`),
				resultsAre(`{"ok":true,"task":{"id":"T4","title":"Write the changelog"}}`),
				lastTextIs("Added T4 to To do."),
				stateEventsInsideCalls,
			),
		},
		{
			Name:  "move",
			Input: input("The login bug is fixed."),
			Script: script(
				scripted.Turn{Calls: []scripted.Call{{Name: "move_task", Args: `{"id":"T2","to":"done"}`}}},
				scripted.Turn{Expect: scripted.Expect{ToolResults: []string{call00}}, Text: "Moved T2 to Done."},
			),
			Check: checks(
				stateIs(`{"columns":[
					{"id":"todo","title":"To do","tasks":[{"id":"T1","title":"Write the spec"}]},
					{"id":"doing","title":"Doing","tasks":[]},
					{"id":"done","title":"Done","tasks":[{"id":"T3","title":"Set up CI"},{"id":"T2","title":"Fix the login bug"}]}],"nextId":4}`),
				resultsAre(`{"ok":true,"task":{"id":"T2","title":"Fix the login bug"}}`),
				stateEventsInsideCalls,
			),
		},
		{
			Name:  "rename",
			Input: input("Call the spec task 'Write the spec (v2)'."),
			Script: script(
				scripted.Turn{Calls: []scripted.Call{{Name: "rename_task", Args: `{"id":"T1","title":"Write the spec (v2)"}`}}},
				scripted.Turn{Expect: scripted.Expect{ToolResults: []string{call00}}, Text: "Renamed."},
			),
			Check: checks(
				stateIs(`{"columns":[
					{"id":"todo","title":"To do","tasks":[{"id":"T1","title":"Write the spec (v2)"}]},
					{"id":"doing","title":"Doing","tasks":[{"id":"T2","title":"Fix the login bug"}]},
					{"id":"done","title":"Done","tasks":[{"id":"T3","title":"Set up CI"}]}],"nextId":4}`),
				resultsAre(`{"ok":true,"task":{"id":"T1","title":"Write the spec (v2)"}}`),
			),
		},
		{
			Name:  "remove",
			Input: input("Drop the CI card."),
			Script: script(
				scripted.Turn{Calls: []scripted.Call{{Name: "remove_task", Args: `{"id":"T3"}`}}},
				scripted.Turn{Expect: scripted.Expect{ToolResults: []string{call00}}, Text: "Removed T3."},
			),
			Check: checks(
				stateIs(`{"columns":[
					{"id":"todo","title":"To do","tasks":[{"id":"T1","title":"Write the spec"}]},
					{"id":"doing","title":"Doing","tasks":[{"id":"T2","title":"Fix the login bug"}]},
					{"id":"done","title":"Done","tasks":[]}],"nextId":4}`),
				resultsAre(`{"ok":true,"task":{"id":"T3","title":"Set up CI"}}`),
			),
		},
		{
			// The client's state holds no board yet: the first change
			// publishes the whole board (a snapshot, inside the call).
			Name:  "empty-state",
			Input: harness.User("Add 'Plan the sprint'."),
			Script: script(
				scripted.Turn{Calls: []scripted.Call{{Name: "add_task", Args: `{"title":"Plan the sprint"}`}}},
				scripted.Turn{Expect: scripted.Expect{ToolResults: []string{call00}}, Text: "Added T1."},
			),
			Check: checks(
				stateIs(`{"columns":[
					{"id":"todo","title":"To do","tasks":[{"id":"T1","title":"Plan the sprint"}]},
					{"id":"doing","title":"Doing","tasks":[]},
					{"id":"done","title":"Done","tasks":[]}],"nextId":2}`),
				countEvents(agui.StateSnapshot, 1),
				countEvents(agui.StateDelta, 0),
				stateEventsInsideCalls,
			),
		},
		{
			// Three calls in one turn, their argument fragments
			// interleaved on the provider's stream, text in between.
			Name:  "parallel",
			Input: input("Start the spec, rename the CI card, and add a release task."),
			Script: script(
				scripted.Turn{
					Text: "Three changes coming.",
					Calls: []scripted.Call{
						{Name: "move_task", Args: `{"id":"T1","to":"doing"}`},
						{Name: "rename_task", Args: `{"id":"T3","title":"Set up CI \"nightly\""}`},
						{Name: "add_task", Args: `{"title":"Release 1.0","column":"todo"}`},
					},
					Plan: scripted.Plan{
						Split: scripted.Split{Size: 5, Escapes: true},
						Order: scripted.Order{By: scripted.Scheduled, Schedule: "#1 #2 text #1 #3 #2 #3 text #1"},
					},
				},
				scripted.Turn{Expect: scripted.Expect{ToolResults: []string{call00, call01, call02}}, Text: "Done: T1 started, CI renamed, T4 added."},
			),
			Check: checks(
				stateIs(`{"columns":[
					{"id":"todo","title":"To do","tasks":[{"id":"T4","title":"Release 1.0"}]},
					{"id":"doing","title":"Doing","tasks":[{"id":"T2","title":"Fix the login bug"},{"id":"T1","title":"Write the spec"}]},
					{"id":"done","title":"Done","tasks":[{"id":"T3","title":"Set up CI \"nightly\""}]}],"nextId":5}`),
				resultsAre(
					`{"ok":true,"task":{"id":"T1","title":"Write the spec"}}`,
					`{"ok":true,"task":{"id":"T3","title":"Set up CI \"nightly\""}}`,
					`{"ok":true,"task":{"id":"T4","title":"Release 1.0"}}`,
				),
				countEvents(agui.StateDelta, 3),
				stateEventsInsideCalls,
				callsInterleaved,
			),
		},
		{
			// render_a2ui is offered by no client and called anyway.
			Name:  "render-a2ui",
			Input: input("Show me the board as cards."),
			Script: script(
				scripted.Turn{Calls: []scripted.Call{{Name: taskboard.RenderA2UI, Args: `{"surface":{"root":"board","components":[{"id":"board","component":{"List":{"children":["T1","T2","T3"]}}}]}}`}}},
				scripted.Turn{Expect: scripted.Expect{ToolResults: []string{call00}}, Text: "Here is your board."},
			),
			Check: checks(
				stateIs(start),
				resultsAre(`{"rendered":true}`),
				offered(taskboard.BoardTools...),
				countEvents(agui.StateDelta, 0),
			),
		},
		{
			// A task that does not exist: the tool fails, the board
			// stays, the model is told and tells the user.
			Name:  "unknown-task",
			Input: input("Move T9 to done."),
			Script: script(
				scripted.Turn{Calls: []scripted.Call{{Name: "move_task", Args: `{"id":"T9","to":"done"}`}}},
				scripted.Turn{Expect: scripted.Expect{ToolResults: []string{call00}}, Text: "There is no task T9."},
			),
			Check: checks(
				stateIs(start),
				resultsAre(`{"error":"no task \"T9\""}`),
				countEvents(agui.StateDelta, 0),
			),
		},
		{
			// The client offers three of the four board tools; the model
			// calls the fourth. The agent refuses before opening it.
			Name:  "not-offered",
			Input: input("Remove the CI card."),
			Tools: boardTools("add_task", "move_task", "rename_task"),
			Script: script(
				scripted.Turn{Text: "Removing it.", Calls: []scripted.Call{{Name: "remove_task", Args: `{"id":"T3"}`}}},
			),
			WantError: &harness.WantError{Message: `^the client offered no remove_task tool$`, Code: "TOOL_NOT_OFFERED"},
			Check: checks(
				stateIs(start),
				endsWithRunError,
				countEvents(agui.ToolCallStart, 0),
			),
		},
		{
			Name:      "provider-429",
			Input:     input("Add 'Write the changelog'."),
			Script:    script(scripted.Turn{Fault: &scripted.Fault{Kind: scripted.FaultStatus, Status: 429, RetryAfter: "2"}}),
			WantError: &harness.WantError{Message: `^the model could not answer: 429 Too Many Requests$`, Code: "PROVIDER_ERROR"},
			Check: checks(
				stateIs(start),
				endsWithRunError,
			),
		},
		{
			// The stream breaks off with a call open: RUN_ERROR ends the
			// run, so the strict verifier still passes.
			Name:  "provider-disconnect",
			Input: input("Add 'Write the changelog'."),
			Script: script(scripted.Turn{
				Calls: []scripted.Call{{Name: "add_task", Args: `{"title":"Write the changelog"}`}},
				Fault: &scripted.Fault{Kind: scripted.FaultDisconnect, After: 3},
			}),
			WantError: &harness.WantError{Message: `^the model's answer broke off: unexpected EOF$`, Code: "PROVIDER_ERROR"},
			Check: checks(
				stateIs(start),
				endsWithRunError,
				countEvents(agui.ToolCallStart, 1),
				countEvents(agui.ToolCallEnd, 0),
			),
		},
		{
			// The tools ran, then the next request fails: the board
			// keeps what the tools did.
			Name:  "provider-500-after-tool",
			Input: input("Add 'Write the changelog'."),
			Script: script(
				scripted.Turn{Calls: []scripted.Call{{Name: "add_task", Args: `{"title":"Write the changelog"}`}}},
				scripted.Turn{Fault: &scripted.Fault{Kind: scripted.FaultStatus, Status: 500}},
			),
			WantError: &harness.WantError{Message: `^the model could not answer: 500 Internal Server Error$`, Code: "PROVIDER_ERROR"},
			Check: checks(
				endsWithRunError,
				resultsAre(`{"ok":true,"task":{"id":"T4","title":"Write the changelog"}}`),
				countEvents(agui.StateDelta, 1),
			),
		},
	}
	for i := range cases {
		if cases[i].Tools == nil {
			cases[i].Tools = boardTools(all...)
		}
	}
	// Each case is explored: run under many plans of its script besides
	// its own, and must give the client the same board under every one.
	harness.Run(t, agent(), cases, harness.Options{Explore: &harness.Explore{Plans: 30}})
	// The same cases and goldens over the protobuf encoding.
	t.Run("protobuf", func(t *testing.T) {
		harness.Run(t, agent(), cases, harness.Options{Accept: agui.MediaTypeProto})
	})
}

func script(turns ...scripted.Turn) scripted.Script { return scripted.Script{Turns: turns} }

type check func(t harness.T, r *harness.Result)

func checks(cs ...check) func(t harness.T, r *harness.Result) {
	return func(t harness.T, r *harness.Result) {
		t.Helper()
		for _, c := range cs {
			c(t, r)
		}
	}
}

// stateIs checks the client's board at the end of the case.
func stateIs(want string) check {
	return func(t harness.T, r *harness.Result) {
		t.Helper()
		var w, g taskboard.Board
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatalf("bad want: %v", err)
		}
		if err := json.Unmarshal(r.State, &g); err != nil {
			t.Errorf("the client's state is not a board: %v\n%s", err, r.State)
			return
		}
		if d := cmp.Diff(w, g); d != "" {
			t.Errorf("board (-want +got):\n%s", d)
		}
	}
}

// resultsAre checks the tool messages of the conversation, in order.
func resultsAre(want ...string) check {
	return func(t harness.T, r *harness.Result) {
		t.Helper()
		var got []string
		for _, m := range r.Messages {
			if m.Role == agui.RoleTool {
				if m.Error != "" {
					t.Errorf("tool message %s has an error: %s", m.ID, m.Error)
				}
				got = append(got, m.Content.Text)
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("tool results (-want +got):\n%s", d)
		}
	}
}

func lastTextIs(want string) check {
	return func(t harness.T, r *harness.Result) {
		t.Helper()
		if got := r.LastText(); got != want {
			t.Errorf("last text: got %q, want %q", got, want)
		}
	}
}

func countEvents(typ agui.EventType, want int) check {
	return func(t harness.T, r *harness.Result) {
		t.Helper()
		n := 0
		for _, e := range r.Events() {
			if e.Type() == typ {
				n++
			}
		}
		if n != want {
			t.Errorf("%s events: got %d, want %d", typ, n, want)
		}
	}
}

// offered checks that the agent called render_a2ui although the client
// offered only the board tools.
func offered(names ...string) check {
	return func(t harness.T, r *harness.Result) {
		t.Helper()
		var got []string
		for _, tool := range r.Runs[0].Input.Tools {
			got = append(got, tool.Name)
		}
		if d := cmp.Diff(names, got); d != "" {
			t.Errorf("offered tools (-want +got):\n%s", d)
		}
	}
}

// endsWithRunError checks that the case is one run whose last event is
// its RUN_ERROR (Case.WantError checks the message and code).
func endsWithRunError(t harness.T, r *harness.Result) {
	t.Helper()
	require.Len(t, r.Runs, 1)
	ev := r.Runs[0].Events
	require.NotEmpty(t, ev)
	assert.Equal(t, agui.RunError, ev[len(ev)-1].Type(), "the last event")
}

// stateEventsInsideCalls checks the seed's "working while a call is open":
// every state event comes after a TOOL_CALL_START and before its END, and
// every TOOL_CALL_RESULT after its END.
func stateEventsInsideCalls(t harness.T, r *harness.Result) {
	t.Helper()
	for n, run := range r.Runs {
		open := map[string]bool{}
		ended := map[string]bool{}
		for i, e := range run.Events {
			switch e.Type() {
			case agui.ToolCallStart:
				open[e.ToolCallID()] = true
			case agui.ToolCallEnd:
				delete(open, e.ToolCallID())
				ended[e.ToolCallID()] = true
			case agui.ToolCallResult:
				if !ended[e.ToolCallID()] {
					t.Errorf("run %d: event %d: result for %s before its END", n+1, i, e.ToolCallID())
				}
			case agui.StateDelta, agui.StateSnapshot:
				if len(open) == 0 {
					t.Errorf("run %d: event %d: %s while no call is open", n+1, i, e.Type())
				}
			}
		}
	}
}

// callsInterleaved checks that the agent forwarded the provider's
// interleaving: some call's ARGS come after another call's START, before
// its own last ARGS.
func callsInterleaved(t harness.T, r *harness.Result) {
	t.Helper()
	var seq []string
	for _, e := range r.Runs[0].Events {
		if e.Type() == agui.ToolCallArgs {
			if len(seq) == 0 || seq[len(seq)-1] != e.ToolCallID() {
				seq = append(seq, e.ToolCallID())
			}
		}
	}
	if len(seq) <= 3 {
		t.Errorf("the calls' ARGS are not interleaved on the wire: %s", strings.Join(seq, " "))
	}
}
