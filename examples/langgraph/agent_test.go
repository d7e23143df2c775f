package langgraph

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/examples/internal/served"
	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/oracle"
	"github.com/aguitest/aguitest/internal/textgolden"
	"github.com/aguitest/aguitest/scripted"
)

// srv is server.mjs, started once for the package's tests: langgraphjs
// dev takes seconds to start, more on a busy machine.
var srv = &served.Once{Dir: ".", Wait: 4 * time.Minute, Name: "node", Args: []string{"server.mjs"}}

func TestMain(m *testing.M) {
	code := m.Run()
	srv.Stop()
	os.Exit(code)
}

// agent returns server.mjs as a URL agent and the options that serve each
// case's scripted LLM where its model client points, or skips when Node or
// the packages are missing (a failure under CI).
func agent(t *testing.T) (harness.Agent, harness.Options) {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping the LangGraph agent under -short: langgraphjs dev takes long to start")
	}
	oracle.Need(t, ".", "@ag-ui/langgraph", "the LangGraph agent")
	s, err := srv.Get()
	require.NoError(t, err)
	// Exploration is off: through ModelAddr the plans of a case run one at
	// a time, a second or more each against langgraphjs dev, and the
	// table's cases explored take over ten minutes. The reproductions
	// below are under the cases' own plans.
	return harness.URL(s.URL), harness.Options{ModelAddr: s.ModelAddr, Timeout: 60 * time.Second, Explore: &harness.Explore{Off: true}}
}

// The client's tools, which the harness runs as a frontend would.
var (
	showOnMap = harness.Tool{
		Name:        "show_on_map",
		Description: "Shows a city on the user's map.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		Run: func(_ context.Context, args json.RawMessage) (string, error) {
			var a struct{ City string }
			if err := json.Unmarshal(args, &a); err != nil {
				return "", err
			}
			return "shown: " + a.City, nil
		},
	}
	readSensor = harness.Tool{
		Name:        "read_sensor",
		Description: "Reads a sensor in the user's home.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"sensor":{"type":"string"}},"required":["sensor"]}`),
		Run: func(context.Context, json.RawMessage) (string, error) {
			return "", errors.New(sensorError)
		},
	}
)

const sensorError = "sensor offline: no reading for 5 minutes"

// runID waives run-id-mismatch, which every run of the bridge shows (the
// run-id finding below), so that each other case tests its own topic.
var runID = []agui.Rule{agui.RuleRunIDMismatch}

func weather(city string) scripted.Call {
	return scripted.Call{Name: "get_weather", Args: `{"city":"` + city + `"}`}
}

// finding is a case run through the harness's core: want are what the
// report must say (each in one of its problems; none: the case passes),
// and the whole report is kept in testdata/report/<name>.golden ("go test
// -update" rewrites it), so that a change, for better or worse, fails the
// test.
type finding struct {
	c    harness.Case
	want []string
}

// TestAgent runs a table of natural cases against the LangGraph agent.
// The cases that show a bug of @ag-ui/langgraph 0.0.43 (README.md says
// what each is) assert that aguitest reports it.
func TestAgent(t *testing.T) {
	a, o := agent(t)
	findings := []finding{
		{c: harness.Case{
			Name:   "text",
			Allow:  runID,
			Input:  served.Input("text", "Hello?", nil),
			Script: scripted.Script{Turns: []scripted.Turn{{Text: "Hello! Ask me about the weather.", Plan: scripted.Plan{Split: scripted.Split{By: scripted.Words}}}}},
		}},
		{
			// The bridge mints the run's id from the input's runId for
			// RUN_STARTED, then takes the LangGraph server's run_id as its
			// own mid-stream (h.run_id&&(this.activeRun.id=h.run_id,...) in
			// @ag-ui/langgraph 0.0.43's dist/index.mjs): RUN_FINISHED names
			// a run that never started, and every run of every case shows
			// it (the other cases waive it, runID).
			c: harness.Case{
				Name:   "run-id",
				Input:  served.Input("run-id", "Hello?", nil),
				Script: scripted.Script{Turns: []scripted.Turn{{Text: "Hello! Ask me about the weather."}}},
			},
			want: []string{"run-id-mismatch: RUN_FINISHED names runId"},
		},
		{c: harness.Case{
			Name:  "client-tool",
			Allow: runID,
			Input: served.Input("client-tool", "Show Seoul on my map.", []harness.Tool{showOnMap}),
			Tools: []harness.Tool{showOnMap},
			Script: scripted.Script{Turns: []scripted.Turn{
				{Expect: scripted.Expect{Tools: []string{"get_weather", "show_on_map"}}, Calls: []scripted.Call{{Name: "show_on_map", Args: `{"city":"Seoul"}`}}, Plan: scripted.Plan{Split: scripted.Split{Size: 3, Escapes: true}}},
				{Text: "Seoul is on your map."},
			}},
		}},
		{c: harness.Case{
			Name:  "own-call",
			Allow: runID,
			Input: served.Input("own-call", "Paris tomorrow?", nil),
			Script: scripted.Script{Turns: []scripted.Turn{
				{Calls: []scripted.Call{weather("Paris")}},
				{Text: "18°C in Paris."},
			}},
		}},
		{
			// Two calls at once, no text: the second call's arguments are
			// streamed under the first call's id (the bridge reads only
			// tool_call_chunks[0] and keys the deltas by the call in
			// progress), and the second call is never started. The client
			// cannot parse the merged arguments, so its one tool fails, and
			// CopilotKit (the default frontend) posts no run after a round
			// where every tool failed: turn 2 is unused.
			c: harness.Case{
				Name:  "parallel-client-calls",
				Allow: runID,
				Input: served.Input("parallel-client-calls", "Show Paris and Rome on my map.", []harness.Tool{showOnMap}),
				Tools: []harness.Tool{showOnMap},
				Script: scripted.Script{Turns: []scripted.Turn{
					{Calls: []scripted.Call{{Name: "show_on_map", Args: `{"city":"Paris"}`}, {Name: "show_on_map", Args: `{"city":"Rome"}`}}},
					{Text: "Both are on your map."},
				}},
			},
			want: []string{"args-not-json: the arguments of tool call 'call_1_1'", `{\"city\":\"Paris\"}{\"city\":\"Rome\"}`},
		},
		{
			// Text, then a call: the chunk that names the call ends the text
			// message and is dropped, and so is the call; only the run's
			// MESSAGES_SNAPSHOT holds it, and the client has nothing to run.
			c: harness.Case{
				Name:  "text-then-call",
				Allow: runID,
				Input: served.Input("text-then-call", "Show Paris on my map.", []harness.Tool{showOnMap}),
				Tools: []harness.Tool{showOnMap},
				Script: scripted.Script{Turns: []scripted.Turn{
					{Text: "Showing it.", Calls: []scripted.Call{{Name: "show_on_map", Args: `{"city":"Paris"}`}}},
					{Text: "Paris is on your map."},
				}},
				Check: toolResultHolds(2, "shown: Paris"),
			},
			want: []string{"turn 2 was never used", "the model was asked 1 times"},
		},
		{
			// The call's name and its whole arguments in one chunk, as
			// OpenAI-compatible servers send a call: the bridge starts the
			// call and drops the arguments of that chunk; the client runs
			// the tool with {}. The run's MESSAGES_SNAPSHOT then holds the
			// right arguments, so only the tool's result shows it.
			c: harness.Case{
				Name:  "args-with-name",
				Allow: runID,
				Input: served.Input("args-with-name", "Show Paris on my map.", []harness.Tool{showOnMap}),
				Tools: []harness.Tool{showOnMap},
				Script: scripted.Script{Turns: []scripted.Turn{
					{Calls: []scripted.Call{{Name: "show_on_map", Args: `{"city":"Paris"}`}}, Plan: scripted.Plan{Split: scripted.Split{By: scripted.Whole, WithName: true}}},
					{Text: "Paris is on your map."},
				}},
				Check: toolResultHolds(2, "shown: Paris"),
			},
			want: []string{`its tool results are ["shown: "]`},
		},
		{
			// A failed client tool, posted as an application on HttpAgent
			// may post it (the error in the tool message's error field,
			// empty content, a run right after): the bridge drops the
			// error (only status "error" is kept), and the model gets an
			// empty result. CopilotKit, the harness's default frontend,
			// posts "Error: <message>" as the content instead, which the
			// bridge keeps, and posts no run after a round where every
			// tool failed.
			c: harness.Case{
				Name:     "tool-error",
				Allow:    runID,
				Frontend: harness.FrontendHTTPAgent,
				Input:    served.Input("tool-error", "How warm is the kitchen?", []harness.Tool{readSensor}),
				Tools:    []harness.Tool{readSensor},
				Script: scripted.Script{Turns: []scripted.Turn{
					{Calls: []scripted.Call{{Name: "read_sensor", Args: `{"sensor":"kitchen"}`}}},
					{Text: "The kitchen sensor is offline."},
				}},
				Check: toolResultHolds(2, sensorError),
			},
			want: []string{`its tool results are [""]`},
		},
		{
			// The model refuses (400, not retried): after RUN_ERROR the
			// bridge goes on with STEP_FINISHED, STATE_SNAPSHOT,
			// MESSAGES_SNAPSHOT and RUN_FINISHED.
			c: harness.Case{
				Name:      "provider-refuses",
				Allow:     runID,
				Input:     served.Input("provider-refuses", "Hello?", nil),
				Script:    scripted.Script{Turns: []scripted.Turn{{Fault: &scripted.Fault{Kind: scripted.FaultStatus, Status: 400, Message: "scripted refusal", Always: true}}}},
				WantError: &harness.WantError{},
			},
			want: []string{"after-run-error: Cannot send event type 'STEP_FINISHED'", "finished-after-error"},
		},
		{
			// The client leaves while the model streams: the bridge's
			// observable has no teardown, so the run goes on on the server
			// and the next run on the thread is refused (422).
			c: harness.Case{
				Name:  "client-disconnect",
				Allow: runID,
				Input: served.Input("client-disconnect", "Tell me a long story.", nil, "Are you still there?"),
				Script: scripted.Script{Turns: []scripted.Turn{
					{
						Text:  "Once upon a time, in a city of bridges, there lived a clockmaker who never slept.",
						Plan:  scripted.Plan{Split: scripted.Split{By: scripted.Words}},
						Fault: &scripted.Fault{Kind: scripted.FaultStall, After: 2},
					},
					{Text: "Yes, I am still here."},
				}},
				Leave: &harness.Leave{At: "TEXT_MESSAGE_CONTENT", Wait: 5 * time.Second},
			},
			want: []string{"HTTP 422: Thread is already running a task"},
		},
		{
			// delete_file asks the user with interrupt(): by default the
			// bridge sends the interrupt only as a CUSTOM on_interrupt
			// event and finishes the run plainly (its emitInterruptOutcome
			// option sends RUN_FINISHED's interrupt outcome), so the client
			// has nothing to answer; aguitest names the event and the
			// option.
			c: harness.Case{
				Name:  "interrupt",
				Allow: runID,
				Input: served.Input("interrupt", "Delete notes.txt.", nil),
				Script: scripted.Script{Turns: []scripted.Turn{
					{Calls: []scripted.Call{{Name: "delete_file", Args: `{"path":"notes.txt"}`}}},
					{Text: "Done, as you answered."},
				}},
				Answers: []harness.Answer{{Payload: json.RawMessage(`{"approved":true}`)}},
			},
			want: []string{"only in a CUSTOM event named on_interrupt", "emitInterruptOutcome: true", "turn 2 was never used: 1 request for 2 turns"},
		},
	}
	o.Dir, o.Update = "testdata/TestAgent", golden.Update()
	for _, f := range findings {
		t.Run(f.c.Name, func(t *testing.T) {
			if f.want != nil {
				f.c.NoGolden = true
			}
			f.c.Scrubs = scrubs
			r := o.Test(t.Context(), a, f.c)
			var out strings.Builder
			for _, p := range r.Problems {
				out.WriteString(p.Text + "\n")
			}
			if f.want == nil && r.Failed() {
				t.Errorf("want no problem; the report says:\n%s", out.String())
			}
			for _, w := range f.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("the report does not say %q; it says:\n%s", w, out.String())
				}
			}
			if f.want != nil {
				textgolden.Check(t, "testdata/report", f.c.Name, []byte(scrub(out.String())))
			}
		})
	}
}

// toolResultHolds checks that request n to the model has a tool result
// holding text.
func toolResultHolds(n int, text string) func(harness.T, *harness.Result) {
	return func(t harness.T, r *harness.Result) {
		if len(r.Requests) < n {
			t.Errorf("the model was asked %d times, want a request %d", len(r.Requests), n)
			return
		}
		var results []string
		for _, m := range r.Requests[n-1].Messages {
			if m.Role == "tool" {
				if strings.Contains(m.Content, text) {
					return
				}
				results = append(results, m.Content)
			}
		}
		t.Errorf("request %d: no tool result holds %q; its tool results are %q", n, text, results)
	}
}

// The ids the agent mints per run, and the scripted LLM's port.
var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	portRE = regexp.MustCompile(`127\.0\.0\.1:\d+`)
)

// scrubs keep of the goldens what does not change from one run to the
// next: RAW events carry LangGraph's own events whole, with the server's
// run ids and address.
var scrubs = []golden.Scrub{
	{Pointer: "/event", Replace: "a LangGraph event"},
	{Pattern: uuidRE, Replace: "UUID"},
	{Pattern: portRE, Replace: "127.0.0.1:PORT"},
}

// scrub replaces what changes from one run to the next.
func scrub(s string) string {
	return portRE.ReplaceAllString(uuidRE.ReplaceAllString(s, "UUID"), "127.0.0.1:PORT")
}
