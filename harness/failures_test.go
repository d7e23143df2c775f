package harness_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/textgolden"
	"github.com/aguitest/aguitest/scripted"
)

// failure is a case that must fail, and what its report must say, in
// this order.
type failure struct {
	name  string
	agent harness.Agent
	cases []harness.Case
	want  []string
	kind  harness.ProblemKind // of the first problem
}

// emptyDelta sends a TEXT_MESSAGE_CONTENT with an empty delta.
func emptyDelta(_ context.Context, _ harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
	for _, e := range []agui.Event{
		agui.NewRunStarted(in.ThreadID, in.RunID),
		agui.NewTextMessageStart("m"),
		agui.NewEvent(agui.TextMessageContent, "messageId", "m", "delta", ""),
		agui.NewTextMessageEnd("m"),
		agui.NewRunFinished(in.ThreadID, in.RunID),
	} {
		if err := emit(e); err != nil {
			return err
		}
	}
	return nil
}

// serveText answers every request with body under a Content-Type.
func serveText(contentType, body string) harness.Agent {
	return harness.Handler(func(harness.Env) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			fmt.Fprint(w, body)
		})
	})
}

var failing = []failure{
	{"BuggyInterleaving", harness.Func(chatAgent(true)), []harness.Case{{
		Name:  "parallel",
		Input: harness.User("move"),
		Script: scripted.Script{Turns: []scripted.Turn{{
			Calls: []scripted.Call{{ID: "call-a", Name: "add_task", Args: `{"title":"a"}`}, {ID: "call-b", Name: "move_task", Args: `{"id":1}`}},
			Plan:  scripted.Plan{Split: scripted.Split{Size: 4}, Order: scripted.Order{By: scripted.RoundRobin}},
		}}},
		NoGolden: true,
	}}, []string{
		"run 1: event 11 (TOOL_CALL_END) [toolCallId=run-1-call-2]: args-not-json: the arguments of tool call 'run-1-call-2' are not JSON",
		`"{\"ti{\"idtle\"\":1}:\"a\"}"`,
	}, harness.ProblemViolation},
	{"UnusedTurn", harness.Func(chatAgent(false)), []harness.Case{{
		Name: "extra", Input: harness.User("hi"), NoGolden: true,
		Script: scripted.Script{Turns: []scripted.Turn{{Text: "one"}, {Text: "two"}}},
	}}, []string{"scripted LLM: turn 2 was never used: 1 request for 2 turns"}, harness.ProblemModel},
	{"MissingGolden", harness.Func(chatAgent(false)), []harness.Case{{
		Name: "nogolden", Input: harness.User("hi"),
		Script: scripted.Script{Turns: []scripted.Turn{{Text: "one"}}},
	}}, []string{"golden file missing", "-update"}, harness.ProblemGolden},
	{"RunErrorFirst", harness.Func(failingAgent("the provider is down", "PROVIDER_DOWN")), []harness.Case{{
		Name: "down", Input: harness.User("hi"),
		Script: scripted.Script{Turns: []scripted.Turn{{Text: "one"}}},
	}}, []string{
		`run 1 ended with RUN_ERROR: message "the provider is down", code "PROVIDER_DOWN"`,
		"scripted LLM:",
		"golden file missing",
	}, harness.ProblemRunError},
	{"WantErrorMissing", harness.Func(chatAgent(false)), []harness.Case{{
		Name: "fine", Input: harness.User("hi"), NoGolden: true,
		Script:    scripted.Script{Turns: []scripted.Turn{{Text: "one"}}},
		WantError: &harness.WantError{Message: "down", Code: "PROVIDER_DOWN"},
	}}, []string{
		`want a run ending with RUN_ERROR (message matching "down", code "PROVIDER_DOWN"), got none: run 1 finished`,
	}, harness.ProblemRunError},
	{"WantErrorOther", harness.Func(failingAgent("the provider is down", "PROVIDER_DOWN")), []harness.Case{{
		Name: "down", Input: harness.User("hi"), NoGolden: true,
		Script:    scripted.Script{Turns: []scripted.Turn{{Text: "one"}}},
		WantError: &harness.WantError{Code: "RATE_LIMITED"},
	}}, []string{
		`run 1 ended with RUN_ERROR: got message "the provider is down", code "PROVIDER_DOWN", want code "RATE_LIMITED"`,
	}, harness.ProblemRunError},
	{"EnableEmptyDelta", harness.Func(emptyDelta), []harness.Case{{
		Name: "empty", Input: harness.User("hi"), NoGolden: true,
		Enable: []agui.Rule{agui.RuleEmptyDelta},
	}}, []string{"run 1: event 3 (TEXT_MESSAGE_CONTENT) [messageId=m]: empty-delta: "}, harness.ProblemViolation},
	// Valid events, as a JSON array: HttpAgent reads only an event
	// stream, so this agent serves no client.
	{"NotAnEventStream", serveText("application/json", `[{"type":"RUN_STARTED","threadId":"t","runId":"r"},{"type":"RUN_FINISHED","threadId":"t","runId":"r"}]`),
		[]harness.Case{{Name: "json", Input: harness.User("hi"), NoGolden: true}},
		[]string{"run 1: response: content-type: the response has Content-Type \"application/json\""}, harness.ProblemViolation},
	// The second frame is not JSON: the client drops it with an error;
	// the harness reports it and reads on.
	{"UnreadableFrame", serveText("text/event-stream", "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"+
		"data: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"\n\n"+
		"data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n"+
		"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"),
		[]harness.Case{{Name: "frame", Input: harness.User("hi"), NoGolden: true}},
		[]string{
			"run 1: frame 2 at line 3: frame-json: ",
			"run 1: event 2 (TEXT_MESSAGE_END) at line 5 [messageId=m]: message-not-open: ",
		}, harness.ProblemViolation},
	{"WantErrorBadPattern", harness.Func(failingAgent("x", "")), []harness.Case{{
		Name: "bad", Input: harness.User("hi"), NoGolden: true,
		WantError: &harness.WantError{Message: "("},
	}}, []string{`case "bad": WantError.Message is not a regular expression`}, harness.ProblemCase},
	// Under Test a Check's failures are problems; under Run they are the
	// test's, at the Check's own line.
	{"Check", harness.Func(chatAgent(false)), []harness.Case{{
		Name: "hello", Input: harness.User("hi"), NoGolden: true,
		Script: scripted.Script{Turns: []scripted.Turn{{Text: "Hello!"}}},
		Check: func(t harness.T, r *harness.Result) {
			if got := r.LastText(); got != "Bye." {
				t.Fatalf("last text: got %q, want %q", got, "Bye.")
			}
			t.Error("not reached: Fatalf ends the check")
		},
	}}, []string{`last text: got "Hello!", want "Bye."`}, harness.ProblemCheck},
	{"ToolWithoutRun", harness.Func(locationAgent), []harness.Case{{
		Name: "location", Input: harness.User("Where am I?"), NoGolden: true,
		Tools: []harness.Tool{{Name: "get_user_location"}},
	}, {
		Name: "fine", Input: harness.User("Where am I?"), NoGolden: true,
		Tools: []harness.Tool{locationTool},
	}}, []string{`case "location": tool "get_user_location" has no Run`}, harness.ProblemCase},
}

// Each failing scenario's report, from the core: what it says, in order,
// and what kind of problem comes first.
func TestFailures(t *testing.T) {
	for _, f := range failing {
		t.Run(f.name, func(t *testing.T) {
			reports := harness.Options{Dir: t.TempDir()}.TestAll(t.Context(), f.agent, f.cases)
			require.NotEmpty(t, reports[0].Problems, "the case passed; want it to fail")
			assert.Equal(t, f.kind, reports[0].Problems[0].Kind, "the first problem's kind: %s", reports[0].Problems[0])
			assert.NotContains(t, reports[0].Err().Error(), "not reached")
			rest := textgolden.RunIDs(reports[0].Err().Error())
			for _, w := range f.want {
				i := strings.Index(rest, w)
				if !assert.GreaterOrEqual(t, i, 0, "the report lacks %q after what came before:\n%s", w, textgolden.RunIDs(reports[0].Err().Error())) {
					break
				}
				rest = rest[i+len(w):]
			}
			for _, r := range reports[1:] {
				assert.NoError(t, r.Err(), "case %s", r.Case)
			}
		})
	}
}

// Run reports each problem with t.Error, causes first, at the line of the
// test that called it, and goes on with the table. The scenarios run in a
// child test binary, whose output is read.
func TestFailureReports(t *testing.T) {
	if os.Getenv("AGUITEST_HARNESS_CHILD") != "" {
		t.Skip("runs only in the parent")
	}
	for _, f := range failing {
		t.Run(f.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestChildScenario$/^"+f.name+"$", "-test.v")
			cmd.Env = append(os.Environ(), "AGUITEST_HARNESS_CHILD="+f.name)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if err == nil {
				t.Fatalf("the scenario passed; want it to fail. Output:\n%s", out.String())
			}
			assert.NotContains(t, out.String(), "panic:")
			assert.NotContains(t, out.String(), "not reached")
			// Every failure points at the test's own line, not at the
			// harness's insides.
			places := regexp.MustCompile(`(?m)^\s+(\S+\.go:\d+): `).FindAllStringSubmatch(out.String(), -1)
			assert.NotEmpty(t, places, "no failure lines:\n%s", out.String())
			for _, p := range places {
				assert.Regexp(t, `^failures_test\.go:\d+$`, p[1], "a failure line's place")
			}
			want := append(append([]string(nil), f.want...), "--- FAIL: TestChildScenario/"+f.name+"/"+f.cases[0].Name)
			if len(f.cases) > 1 {
				want = append(want, "--- PASS: TestChildScenario/"+f.name+"/"+f.cases[1].Name)
			}
			rest := textgolden.RunIDs(out.String())
			for _, w := range want {
				i := strings.Index(rest, w)
				if !assert.GreaterOrEqual(t, i, 0, "output lacks %q after what came before:\n%s", w, out.String()) {
					break
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestChildScenario runs the failing scenarios of TestFailureReports.
func TestChildScenario(t *testing.T) {
	if os.Getenv("AGUITEST_HARNESS_CHILD") == "" {
		t.Skip("runs only as TestFailureReports' child")
	}
	dir := t.TempDir()
	for _, f := range failing {
		t.Run(f.name, func(t *testing.T) {
			harness.Run(t, f.agent, f.cases, harness.Options{Dir: dir})
		})
	}
}
