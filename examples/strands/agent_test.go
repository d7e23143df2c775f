package strands

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

	"github.com/aguitest/aguitest/examples/internal/served"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/oracle"
	"github.com/aguitest/aguitest/internal/textgolden"
	"github.com/aguitest/aguitest/scripted"
)

// srv is server.mjs, started once for the package's tests.
var srv = &served.Once{Dir: ".", Wait: 2 * time.Minute, Name: "node", Args: []string{"server.mjs"}}

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
	oracle.Need(t, ".", "@ag-ui/aws-strands", "the Strands agent")
	s, err := srv.Get()
	require.NoError(t, err)
	// Exploration is off: on the Bedrock wire it interleaves the content
	// blocks of one response, which Strands' BedrockModel (it ignores
	// contentBlockIndex) merges; no Bedrock model is known to stream so,
	// and the project has yet to judge whether the plans belong to the
	// wire (see README.md).
	return harness.URL(s.URL), harness.Options{ModelAddr: s.ModelAddr, Timeout: 30 * time.Second, Explore: &harness.Explore{Off: true}}
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

func weather(city string) scripted.Call {
	return scripted.Call{Name: "get_weather", Args: `{"city":"` + city + `"}`}
}

// TestAgent: what the Strands agent gets right, with its goldens.
func TestAgent(t *testing.T) {
	a, o := agent(t)
	cases := []harness.Case{
		{
			Name:   "text",
			Input:  harness.User("Hello?"),
			Script: scripted.Script{Turns: []scripted.Turn{{Text: "Hello! Ask me about the weather.", Plan: scripted.Plan{Split: scripted.Split{By: scripted.Words}}}}},
		},
		{
			Name:  "client-tool",
			Input: harness.User("Show Seoul on my map."),
			Tools: []harness.Tool{showOnMap},
			Script: scripted.Script{Turns: []scripted.Turn{
				{Expect: scripted.Expect{Tools: []string{"get_weather", "show_on_map"}}, Calls: []scripted.Call{{Name: "show_on_map", Args: `{"city":"Seoul"}`}}, Plan: scripted.Plan{Split: scripted.Split{Size: 3, Escapes: true}}},
				{Text: "Seoul is on your map."},
			}},
		},
		{
			// Strands runs both calls, sends both results back in one
			// message, and answers.
			Name:  "own-calls",
			Input: harness.User("Paris or Rome tomorrow?"),
			Script: scripted.Script{Turns: []scripted.Turn{
				{Text: "Checking both cities.", Calls: []scripted.Call{weather("Paris"), weather("Rome")}, Plan: scripted.Plan{Split: scripted.Split{Size: 4}}},
				{Text: "Rome is warmer: 24°C against 18°C."},
			}},
		},
		{
			Name:      "provider-error",
			Input:     harness.User("Hello?"),
			Script:    scripted.Script{Turns: []scripted.Turn{{Fault: &scripted.Fault{Kind: scripted.FaultStatus, Status: 500, RetryAfter: "0", Always: true}}}},
			WantError: &harness.WantError{},
			Check: func(t harness.T, r *harness.Result) {
				t.Logf("the agent asked the model %d times", len(r.Requests))
			},
		},
	}
	harness.Run(t, a, cases, o)
}

// finding is a case that shows a bug of the framework: the test asserts
// that aguitest reports it (each of want in one of the report's
// problems), and keeps the whole report in testdata/findings/<name>.txt
// ("go test -update" rewrites it), so that a change, for better or worse,
// fails the test.
type finding struct {
	c    harness.Case
	want []string
}

// TestFindings: the bugs of @ag-ui/aws-strands 0.2.3 and Strands 1.19
// that aguitest finds with a plain table (README.md says what each is).
func TestFindings(t *testing.T) {
	a, o := agent(t)
	findings := []finding{
		{
			// Each tool message becomes a user message of its own: two
			// results in a row break Bedrock's alternation of roles.
			c: harness.Case{
				Name:  "parallel-client-calls",
				Input: served.Input("parallel-client-calls", "Show Paris and Rome on my map.", []harness.Tool{showOnMap}),
				Tools: []harness.Tool{showOnMap},
				Script: scripted.Script{Turns: []scripted.Turn{
					{Text: "Showing both.", Calls: []scripted.Call{{Name: "show_on_map", Args: `{"city":"Paris"}`}, {Name: "show_on_map", Args: `{"city":"Rome"}`}}},
					{Text: "Both are on your map."},
				}},
			},
			want: []string{"run 2 ended with RUN_ERROR", "A conversation must alternate between user and assistant roles"},
		},
		{
			// A failed client tool, posted as an application on HttpAgent
			// may post it (the error in the tool message's error field,
			// empty content, a run right after): the error is dropped, and
			// the model is told the tool succeeded with no value.
			// CopilotKit, the harness's default frontend, posts
			// "Error: <message>" as the content and no run after the round,
			// so the field is never put to the adapter.
			c: harness.Case{
				Name:     "tool-error",
				Frontend: harness.FrontendHTTPAgent,
				Input:    served.Input("tool-error", "How warm is the kitchen?", []harness.Tool{readSensor}),
				Tools:    []harness.Tool{readSensor},
				Script: scripted.Script{Turns: []scripted.Turn{
					{Calls: []scripted.Call{{Name: "read_sensor", Args: `{"sensor":"kitchen"}`}}},
					{Text: "The kitchen sensor is offline."},
				}},
				Check: toolResultHolds(2, sensorError),
			},
			want: []string{`request 2: no tool result holds "sensor offline`, "Tool executed successfully with no return value."},
		},
		{
			// The endpoint ends the run's generator when the client
			// leaves, but the generator waits on the model's stream: the
			// thread stays busy while the model streams.
			c: harness.Case{
				Name:  "client-disconnect",
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
			want: []string{`code "THREAD_BUSY"`, "Another run is already in progress on thread"},
		},
	}
	for _, f := range findings {
		t.Run(f.c.Name, func(t *testing.T) {
			f.c.NoGolden = true
			r := o.Test(t.Context(), a, f.c)
			var out strings.Builder
			for _, p := range r.Problems {
				out.WriteString(p.Text + "\n")
			}
			for _, w := range f.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("the report does not say %q; it says:\n%s", w, out.String())
				}
			}
			textgolden.Check(t, "testdata/findings", f.c.Name, []byte(scrub(out.String())))
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

// The ids the agent mints per run.
var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	portRE = regexp.MustCompile(`127\.0\.0\.1:\d+`)
)

// scrub replaces what changes from one run to the next.
func scrub(s string) string {
	return portRE.ReplaceAllString(uuidRE.ReplaceAllString(s, "UUID"), "127.0.0.1:PORT")
}
