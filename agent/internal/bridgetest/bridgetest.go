// Package bridgetest is the table every provider bridge of package agent is
// tested with: one model answer (reasoning, text, three parallel calls whose
// arguments hold escapes and multi-byte characters) streamed under a matrix
// of plans (splits, orders, id styles), run through the harness on the
// scripted LLM, in both modes of agent.Turn. Only tests import it.
package bridgetest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// The answer every plan streams, then the model's final text.
var (
	Reasoning = "Two cities and a sum: three calls."
	Answer    = "Checking three things… 一瞬です."
	Calls     = []scripted.Call{
		{Name: "get_weather", Args: `{"city":"Zürich"}`},
		{Name: "get_weather", Args: `{"city":"東京","note":"say \"こんにちは\"\tplease"}`},
		{Name: "convert_currency", Args: `{"from":"EUR","to":"JPY","amount":12.5,"memo":"caf\u00e9 \\o/"}`},
	}
	Final = "Zürich 18°C, 東京 24°C; 12.5 EUR is 2040 JPY."
)

// Plan is a named plan; SameView says the merged events must equal those
// of every other plan marked so (the text comes before the calls).
type Plan struct {
	Name     string
	Plan     scripted.Plan
	SameView bool
}

// Wire limits of the plans a wire can express.
type Wire struct {
	// NoIndex: calls may come without an index (Chat Completions).
	NoIndex bool
	// IDsEvery: the id may be repeated on every delta.
	IDsEvery bool
}

// Plans returns the matrix: every split with every order, each id style the
// wire allows, and text placed between and after the calls.
func Plans(w Wire) []Plan {
	splits := []struct {
		name string
		s    scripted.Split
	}{
		{"bytes3", scripted.Split{Size: 3}},
		{"runes2", scripted.Split{By: scripted.Runes, Size: 2}},
		{"words", scripted.Split{By: scripted.Words}},
		{"random", scripted.Split{By: scripted.Random, Min: 1, Size: 7}},
		{"escapes", scripted.Split{Size: 4, Escapes: true}},
		{"midrune", scripted.Split{Size: 2, MidRune: true}},
		{"empty", scripted.Split{Size: 4, Empty: 2}},
		{"whole", scripted.Split{By: scripted.Whole}},
	}
	orders := []scripted.Order{
		{By: scripted.Sequential},
		{By: scripted.RoundRobin},
		{By: scripted.Reverse},
		{By: scripted.Shuffle},
		{By: scripted.Scheduled, Schedule: "text #1 #2 #1 #3 #2"},
	}
	ids := []scripted.IDStyle{scripted.IDsFirst}
	if w.IDsEvery {
		ids = append(ids, scripted.IDsEvery)
	}
	if w.NoIndex {
		ids = append(ids, scripted.IDsNoIndex)
	}
	var out []Plan
	for _, s := range splits {
		for _, o := range orders {
			for _, id := range ids {
				p := scripted.Plan{Split: s.s, Order: o, IDs: id, Seed: 7}
				out = append(out, Plan{Name: fmt.Sprintf("%s/%s/%s", s.name, o.By, id), Plan: p, SameView: true})
			}
		}
	}
	for _, t := range []scripted.Placement{scripted.TextBetween, scripted.TextAfter} {
		p := scripted.Plan{Split: scripted.Split{Size: 3}, Order: scripted.Order{By: scripted.RoundRobin, Text: t}}
		out = append(out, Plan{Name: "text-" + string(t) + "/round-robin", Plan: p})
	}
	return out
}

// Script is the conversation: the answer under plan p, then, once the
// client has run the three tools, the final text.
func Script(p scripted.Plan, resultIDs []string) scripted.Script {
	return scripted.Script{Turns: []scripted.Turn{
		{Expect: scripted.Expect{Tools: []string{"get_weather", "convert_currency"}}, Reasoning: Reasoning, Text: Answer, Calls: Calls, Plan: p},
		{Expect: scripted.Expect{ToolResults: resultIDs}, Text: Final},
	}}
}

// Tools are the client's; the harness runs them.
var Tools = []harness.Tool{
	{
		Name:        "get_weather",
		Description: "The weather in a city.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"note":{"type":"string"}}}`),
		Run: func(_ context.Context, args json.RawMessage) (string, error) {
			var a struct{ City string }
			if err := json.Unmarshal(args, &a); err != nil {
				return "", err
			}
			b, _ := json.Marshal(a.City)
			return `{"city":` + string(b) + `,"tempC":18}`, nil
		},
	},
	{
		Name:        "convert_currency",
		Description: "Convert an amount between currencies.",
		Parameters:  json.RawMessage(`{"type":"object"}`),
		Run: func(context.Context, json.RawMessage) (string, error) {
			return `{"amount":2040,"currency":"JPY"}`, nil
		},
	},
}

// Cases builds the table for one agent: every plan, with the checks that
// the client got the answer whole (reasoning, text, each call's exact
// arguments), the final text, and, for the plans that place the text
// first, the same merged events as every other such plan. resultIDs are the
// call ids the agent gives the three calls, in index order, as the model
// gets them back. The cases are not explored: each is a plan of the
// matrix already, and exploring each would run the same script under the
// same other plans once per case (Explored explores it once).
func Cases(name string, plans []Plan, resultIDs []string) []harness.Case {
	var ref struct {
		sync.Mutex
		name    string
		entries []golden.Entry
	}
	var out []harness.Case
	for _, p := range plans {
		out = append(out, harness.Case{
			Name:     p.Name,
			Input:    harness.User("Weather in Zürich and Tokyo, and 12.5 EUR in yen?"),
			Script:   Script(p.Plan, resultIDs),
			Tools:    Tools,
			NoGolden: true,
			Explore:  &harness.Explore{Off: true},
			Check: func(t harness.T, r *harness.Result) {
				t.Helper()
				if len(r.Runs) != 2 {
					t.Errorf("runs: got %d, want 2", len(r.Runs))
				}
				wholeAnswer(t, r)
				if got := r.LastText(); got != Final {
					t.Errorf("last text: got %q, want %q", got, Final)
				}
				if !p.SameView {
					return
				}
				got := golden.Normalizer{}.Normalize(r.Events(), golden.Merged)
				ref.Lock()
				defer ref.Unlock()
				if ref.entries == nil {
					ref.name, ref.entries = p.Name, got
					return
				}
				if d := cmp.Diff(ref.entries, got); d != "" {
					t.Errorf("%s: merged events differ from those of %s (-%s +%s):\n%s", name, ref.name, ref.name, p.Name, d)
				}
			},
		})
	}
	return out
}

// wholeAnswer checks what the client assembled from the first run: the
// reasoning and the text verbatim, each call with its exact arguments.
func wholeAnswer(t harness.T, r *harness.Result) {
	t.Helper()
	want := map[string]int{}
	for _, c := range Calls {
		want[c.Name+" "+c.Args]++
	}
	got := map[string]int{}
	var text, reasoning string
	for _, e := range r.Runs[0].Events {
		switch e.Type() {
		case agui.TextMessageContent:
			text += e.Delta()
		case agui.ReasoningMessageContent:
			reasoning += e.Delta()
		}
	}
	for _, m := range r.Messages {
		for _, tc := range m.ToolCalls {
			got[tc.Function.Name+" "+tc.Function.Arguments]++
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("call arguments (-want +got):\n%s", d)
	}
	if text != Answer {
		t.Errorf("text: got %q, want %q", text, Answer)
	}
	if reasoning != Reasoning {
		t.Errorf("reasoning: got %q, want %q", reasoning, Reasoning)
	}
}

// RequireWire skips the test when the scripted LLM does not serve the
// provider wire whose requests end in path ("/responses", "/messages"):
// the wires other than Chat Completions come with a later scripted server.
// The skip says so; it is never a pass.
func RequireWire(t *testing.T, path string) {
	t.Helper()
	srv := scripted.NewServer(scripted.Script{Turns: []scripted.Turn{{Text: "probe"}}})
	defer srv.Close()
	resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(`{"model":"m","max_tokens":1,"input":"probe","messages":[{"role":"user","content":"probe"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		t.Skipf("the scripted LLM does not serve %s yet: this bridge is tested on it once it does", path)
	}
}

// ServeSSE serves body as a text/event-stream answer to every request and
// returns the server's URL.
func ServeSSE(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Summary describes events one a line: the type, the call id, an ARGS
// fragment, an encrypted value.
func Summary(events []agui.Event) []string {
	var out []string
	for _, e := range events {
		s := string(e.Type())
		if id := e.ToolCallID(); id != "" {
			s += " " + id
		}
		switch e.Type() {
		case agui.ToolCallArgs:
			s += " " + e.Delta()
		case agui.ReasoningEncryptedValue:
			v, _ := e.Field("encryptedValue")
			s += " " + string(v)
		}
		out = append(out, s)
	}
	return out
}

// JSONEqual reports a difference between two JSON texts as values.
func JSONEqual(t *testing.T, want string, got []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got: %v", err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want: %v", err)
	}
	if d := cmp.Diff(w, g); d != "" {
		t.Errorf("JSON (-want +got):\n%s\n%s", d, got)
	}
}

// CheckFixture checks a run of the fixture streams the bridges' unit tests
// share (reasoning "Two calls.", text "Checking.", get_weather for Zürich
// and roll_dice with 20 sides): the events in summary, that they conform,
// and the answer.
func CheckFixture(t *testing.T, events []agui.Event, answer *agent.Answer, want []string) {
	t.Helper()
	if d := cmp.Diff(want, Summary(events)); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	if vs := agui.Verify(events, agui.Options{}); len(vs) > 0 {
		t.Errorf("violations: %v", vs)
	}
	var got []string
	for _, c := range answer.Calls {
		got = append(got, c.Name()+" "+c.RawArgs())
	}
	if d := cmp.Diff([]string{`get_weather {"city":"Zürich"}`, `roll_dice {"sides":20}`}, got); d != "" {
		t.Errorf("answer's calls (-want +got):\n%s", d)
	}
	if answer.Text != "Checking." || answer.Reasoning != "Two calls." {
		t.Errorf("answer: text %q, reasoning %q", answer.Text, answer.Reasoning)
	}
}

// Explored is the first case of Cases explored under n plans besides its
// own (harness.Explore): the matrix of splits, orders, id styles and the
// stream shapes of known integration bugs, then seeded random plans, on
// whatever the wire can express. The client's view must be the same under
// every one, and fidelity must hold.
func Explored(name string, w Wire, resultIDs []string, n int) []harness.Case {
	cs := Cases(name, Plans(w)[:1], resultIDs)
	cs[0].Name = "explored"
	cs[0].Explore = &harness.Explore{Plans: n}
	return cs
}
