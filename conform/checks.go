package conform

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/words"
	"github.com/aguitest/aguitest/scripted"
)

// checksFor returns the framework-neutral checks of a scenario: what the
// client must hold, and what the model must have been asked.
func checksFor(name string, c harness.Case, cfg Config) func(t harness.T, r *harness.Result) {
	s := c.Script
	base, tool, _ := strings.Cut(name, "/")
	return func(t harness.T, r *harness.Result) {
		t.Helper()
		switch Name(base) {
		case Provider500, Provider429, ProviderDisconnect, ProviderMalformed:
			// Case.WantError holds the RUN_ERROR; the verifier, what came
			// before it; Options.Timeout, the time it took.
			t.Logf("the agent asked the model %s", times(len(r.Requests)))
			return
		case ClientDisconnect:
			clientDisconnect(t, r)
			return
		}
		fidelity(t, s, r)
		switch Name(base) {
		case Reasoning:
			reasoning(t, s.Turns[0].Reasoning, r)
		case FrontendTool:
			resultsReachModel(t, r, 2, "555 0199")
		case ParallelTools:
			resultsReachModel(t, r, 2, "7946 0101", "555 0102", "notice shown")
		case ToolNoArgs:
			resultsReachModel(t, r, 2, "blue-7741")
		case ChainedCalls:
			resultsReachModel(t, r, 2, "7946 0101")
			resultsReachModel(t, r, 3, "7946 0101", "notice shown")
		case ToolError:
			resultsReachModel(t, r, 2, sensorError)
		case ToolErrorField:
			errorFieldReachesModel(t, r)
		case TextBetweenCalls:
			resultsReachModel(t, r, 2, "7946 0101", "555 0102")
		case State:
			if !jsonEqual(json.RawMessage(stateDoc), r.State) {
				t.Errorf("the client's state after the run: got %s, want the state it sent, %s", compact(r.State), compact([]byte(stateDoc)))
			}
			if n := countTypes(r, agui.StateSnapshot, agui.StateDelta); n > 0 {
				t.Logf("the agent sent the state back (%s)", words.Count(n, "state event", "state events"))
			} else {
				t.Logf("the agent sent no state event; the client kept its own")
			}
		case FollowUp:
			conversationReachesModel(t, r, 2, []scripted.Message{
				{Role: "user", Content: "France"}, {Role: "assistant", Content: "Paris."}, {Role: "user", Content: "Italy"},
			})
		case BackendTool:
			for _, bt := range cfg.Tools {
				if bt.Name == tool {
					serverRanTool(t, r, bt)
				}
			}
			resultsReachModel(t, r, 2)
		case BackendCalls:
			for i, bt := range cfg.Tools {
				if i < 2 {
					serverRanTool(t, r, bt)
				}
			}
			// Results that share a message id: the harness's fidelity.
			resultsReachModel(t, r, 2)
			toolResults(t, r, 2, 2)
		case TextAfterCalls:
			resultsReachModel(t, r, 2)
		case Interrupt:
			interrupted(t, r, tool)
			resultsReachModel(t, r, 2)
		}
	}
}

// fidelity checks that what the model said reached the client: every call
// exactly once, with its name and arguments (as JSON values; no arguments
// and {} alike), and the text verbatim and in order, no assistant message
// holding the text of two of the model's turns.
func fidelity(t harness.T, s scripted.Script, r *harness.Result) {
	t.Helper()
	type want struct {
		turn, n int
		name    string
		args    string
	}
	var calls []want
	names := map[string]bool{}
	var texts []string
	for i, turn := range s.Turns {
		if turn.Fault != nil {
			continue
		}
		if turn.Text != "" {
			texts = append(texts, turn.Text)
		}
		cs := turn.Calls
		for _, req := range r.Requests {
			if req.Turn == i+1 && len(req.Generated) > 0 {
				cs = append(slices.Clone(cs), req.Generated...)
				break
			}
		}
		for j, c := range cs {
			calls = append(calls, want{i + 1, j + 1, c.Name, c.Args})
			names[c.Name] = true
		}
	}
	got := viewCalls(r.Messages)
	used := make([]bool, len(got))
	for _, w := range calls {
		found := false
		for i, g := range got {
			if !used[i] && g.name == w.name && sameArgs(g.args, w.args) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("turn %d: the model called %s with %s (call %d); the client holds no such call; it holds %s", w.turn, w.name, argsText(w.args), w.n, describeCalls(got))
		}
	}
	for i, g := range got {
		if !used[i] && names[g.name] {
			t.Errorf("the client holds a call the model did not make: %s", g)
		}
	}

	var msgs []agui.Message
	for _, m := range r.Messages {
		if m.Role == agui.RoleAssistant && m.Content.Text != "" {
			msgs = append(msgs, m)
		}
	}
	i := 0
	for k, w := range texts {
		acc := ""
		for acc != w {
			if i == len(msgs) {
				t.Errorf("the model's text %q did not reach the client whole: the client holds %q", w, acc)
				return
			}
			next := msgs[i].Content.Text
			if !strings.HasPrefix(w, acc+next) {
				if acc == "" && strings.HasPrefix(next, w) && k+1 < len(texts) {
					t.Errorf("assistant message %s holds %q: the texts of two of the model's turns in one message (%q, then %q)", msgs[i].ID, next, w, texts[k+1])
				} else {
					t.Errorf("assistant message %s holds %q where the model said %q", msgs[i].ID, next, w[len(acc):])
				}
				return
			}
			acc += next
			i++
		}
	}
	for ; i < len(msgs); i++ {
		t.Errorf("assistant message %s holds text the model did not say: %q", msgs[i].ID, msgs[i].Content.Text)
	}
}

// sameArgs reports whether a call's streamed arguments are the scripted
// ones, as JSON values; "" is {} on both sides.
func sameArgs(got, want string) bool {
	if strings.TrimSpace(got) == "" {
		got = "{}"
	}
	if strings.TrimSpace(want) == "" {
		want = "{}"
	}
	return jsonEqual(json.RawMessage(got), json.RawMessage(want))
}

func argsText(args string) string {
	if args == "" {
		return "no arguments"
	}
	return args
}

// reasoning checks the reasoning the client was shown, if any, is the
// model's.
func reasoning(t harness.T, want string, r *harness.Result) {
	t.Helper()
	var got strings.Builder
	n := 0
	for _, m := range r.Messages {
		if m.Role == agui.RoleReasoning {
			got.WriteString(m.Content.Text)
			n++
		}
	}
	switch {
	case n == 0:
		t.Logf("the client was shown no reasoning")
	case got.String() != want:
		t.Errorf("the reasoning the client holds: got %q, want the model's %q", got.String(), want)
	}
}

// resultsReachModel checks that the model's request n (from 1) carries
// tool results holding each of the texts. Call ids are the agent's to
// choose (the provider's, or its own, sent back alike), so results are
// known by what they say.
func resultsReachModel(t harness.T, r *harness.Result, n int, texts ...string) {
	t.Helper()
	if len(r.Requests) < n {
		t.Errorf("the model was asked %s; want a request %d with the tool results", times(len(r.Requests)), n)
		return
	}
	var results []string
	for _, m := range r.Requests[n-1].Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(results) == 0 {
		t.Errorf("request %d to the model holds no tool result", n)
		return
	}
	all := strings.Join(results, "\n")
	for _, text := range texts {
		if !strings.Contains(all, text) {
			t.Errorf("request %d to the model: no tool result holds %q; its tool results are %q", n, text, results)
		}
	}
}

// errorFieldReachesModel checks that the error the client posted in a
// tool message's error field reached the model in request 2. Its failure
// says what the shape is: one the protocol allows, which CopilotKit does
// not send.
func errorFieldReachesModel(t harness.T, r *harness.Result) {
	t.Helper()
	if len(r.Requests) < 2 {
		t.Errorf("the model was asked %s; want a request 2 with the tool's error", times(len(r.Requests)))
		return
	}
	var results []string
	for _, m := range r.Requests[1].Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	all := strings.Join(results, "\n")
	if !strings.Contains(all, sensorError) {
		t.Errorf("request 2 to the model: no tool result holds the error %q the client posted in the tool message's error field (content \"\"); its tool results are %q. "+
			"@ag-ui/core's ToolMessage allows the field, and an application on HttpAgent may send it; CopilotKit sends \"Error: <message>\" as the content instead (tool-error)", sensorError, results)
	}
}

// conversationReachesModel checks that the model's request n (from 1)
// holds messages of those roles, in that order, each holding its text.
func conversationReachesModel(t harness.T, r *harness.Result, n int, want []scripted.Message) {
	t.Helper()
	if len(r.Requests) < n {
		t.Errorf("the model was asked %s; want a request %d", times(len(r.Requests)), n)
		return
	}
	msgs := r.Requests[n-1].Messages
	next := 0
	for _, m := range msgs {
		if next < len(want) && m.Role == want[next].Role && strings.Contains(m.Content, want[next].Content) {
			next++
		}
	}
	if next < len(want) {
		var got []string
		for _, m := range msgs {
			got = append(got, fmt.Sprintf("%s %q", m.Role, m.Content))
		}
		t.Errorf("request %d to the model: want the conversation so far, with a %s message holding %q; it holds %s", n, want[next].Role, want[next].Content, strings.Join(got, ", "))
	}
}

// clientDisconnect checks the run after the client left: the agent answers
// it in full.
func clientDisconnect(t harness.T, r *harness.Result) {
	t.Helper()
	if len(r.Runs) == 0 {
		return
	}
	if !r.Runs[0].Left {
		t.Logf("run 1 ended before the client left")
	}
	if len(r.Runs) < 2 {
		t.Errorf("want a second run after the client left, got %s", words.Count(len(r.Runs), "run", "runs"))
		return
	}
	if r.Runs[1].Err != nil {
		t.Errorf("run 2 was not answered after the client left run 1: run 1's model request stalls until the agent drops it, and an agent that goes on with a run its client left can hold up the thread")
		return
	}
	if got, want := r.LastText(), "Yes, I am still here."; got != want {
		t.Errorf("run 2, after the client left run 1: the last assistant text is %q, want %q", got, want)
	}
}

// serverRanTool checks a call the server answers itself: the client holds
// it and its result, and sent no run for it.
func serverRanTool(t harness.T, r *harness.Result, bt ServerTool) {
	t.Helper()
	var ids []string
	for _, c := range viewCalls(r.Messages) {
		if c.name == bt.Name {
			ids = append(ids, c.id)
		}
	}
	for _, id := range ids {
		var content *string
		for _, m := range r.Messages {
			if m.Role == agui.RoleTool && m.ToolCallID == id {
				content = &m.Content.Text
			}
		}
		switch {
		case content == nil:
			t.Errorf("the client holds no result of the call %s to %s: the server ran it without TOOL_CALL_RESULT", id, bt.Name)
		case bt.Result != nil && !bt.Result.holdsText(*content):
			t.Errorf("the result of %s: got %q, want %s", bt.Name, *content, bt.Result)
		}
	}
	if len(r.Runs) > 1 {
		t.Errorf("the client posted %s: the server left its own tool %s to the client", words.Count(len(r.Runs), "run", "runs"), bt.Name)
	}
}

// toolResults checks that request n to the model holds at least want
// tool results, one per call.
func toolResults(t harness.T, r *harness.Result, n, want int) {
	t.Helper()
	if len(r.Requests) < n {
		return // resultsReachModel says so
	}
	got := 0
	for _, m := range r.Requests[n-1].Messages {
		if m.Role == "tool" {
			got++
		}
	}
	if got > 0 && got < want {
		t.Errorf("request %d to the model holds %s; want one for each of the %d calls", n, words.Count(got, "tool result", "tool results"), want)
	}
}

// interrupted checks the server asked the user before running tool.
func interrupted(t harness.T, r *harness.Result, tool string) {
	t.Helper()
	if len(r.Runs) == 0 {
		return
	}
	if len(r.Runs[0].Interrupts) == 0 {
		for _, e := range r.Runs[0].Events {
			if e.Type() == agui.Custom && e.Name() == "on_interrupt" {
				return // the harness says what the server sent instead
			}
		}
		t.Errorf("run 1 finished without an interrupt: the server did not ask the user before %s", tool)
		return
	}
	if len(r.Runs) < 2 || len(r.Runs[1].Input.Resume) == 0 {
		t.Errorf("the interrupt was not answered in a run of its own")
	}
}

// countTypes counts the events of those types in every run.
func countTypes(r *harness.Result, types ...agui.EventType) int {
	n := 0
	for _, e := range r.Events() {
		for _, ty := range types {
			if e.Type() == ty {
				n++
			}
		}
	}
	return n
}

func times(n int) string {
	switch n {
	case 0:
		return "nothing"
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}
