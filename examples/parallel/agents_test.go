package parallel_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/examples/parallel"
	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// The model's answer every plan streams: text, then three parallel calls
// whose arguments hold JSON escapes and multi-byte characters.
var (
	answer = "Checking three things… 一瞬です."
	calls  = []scripted.Call{
		{Name: "get_weather", Args: `{"city":"Zürich"}`},
		{Name: "get_weather", Args: `{"city":"東京","note":"say \"こんにちは\"\tplease"}`},
		{Name: "convert_currency", Args: `{"from":"EUR","to":"JPY","amount":12.5,"memo":"caf\u00e9 \\o/"}`},
	}
	final = "Zürich 18°C, 東京 24°C; 12.5 EUR is 2040 JPY."
)

// plans are the ways a provider streams the same answer.
var plans = []struct {
	name string
	plan scripted.Plan
	// interleaved says whether the calls' deltas interleave on the
	// provider's stream.
	interleaved bool
}{
	{"sequential", scripted.Plan{Split: scripted.Split{Size: 5}}, false},
	{"round-robin", scripted.Plan{Split: scripted.Split{Size: 3}, Order: scripted.Order{By: scripted.RoundRobin}}, true},
	{"reverse", scripted.Plan{Split: scripted.Split{Size: 4}, Order: scripted.Order{By: scripted.Reverse}}, false},
	{"shuffle-seed-7", scripted.Plan{Split: scripted.Split{Size: 3}, Order: scripted.Order{By: scripted.Shuffle}, Seed: 7}, true},
	// "text" leads the schedule: text a schedule leaves out comes after
	// the scheduled deltas, not before the calls as Order.Text says.
	{"schedule", scripted.Plan{Split: scripted.Split{Size: 6}, Order: scripted.Order{By: scripted.Scheduled, Schedule: "text #1 #2 #1 #3 #2"}}, true},
	{"random-split-seed-42", scripted.Plan{Split: scripted.Split{By: scripted.Random, Min: 1, Size: 7}, Order: scripted.Order{By: scripted.RoundRobin}, Seed: 42}, true},
	{"escapes-split", scripted.Plan{Split: scripted.Split{Size: 4, Escapes: true}, Order: scripted.Order{By: scripted.RoundRobin}}, true},
	{"mid-rune-split", scripted.Plan{Split: scripted.Split{Size: 2, MidRune: true}, Order: scripted.Order{By: scripted.RoundRobin}}, true},
	{"empty-deltas", scripted.Plan{Split: scripted.Split{Size: 4, Empty: 2}, Order: scripted.Order{By: scripted.RoundRobin}}, true},
	{"ids-every-delta", scripted.Plan{Split: scripted.Split{Size: 4}, Order: scripted.Order{By: scripted.RoundRobin}, IDs: scripted.IDsEvery}, true},
	{"index-omitted", scripted.Plan{Split: scripted.Split{Size: 4}, Order: scripted.Order{By: scripted.RoundRobin}, IDs: scripted.IDsNoIndex}, true},
	{"whole", scripted.Plan{Split: scripted.Split{By: scripted.Whole}}, false},
}

// tools are the client's: the harness runs them and the next run carries
// their results.
var tools = []harness.Tool{
	{
		Name:        "get_weather",
		Description: "The weather in a city.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"note":{"type":"string"}}}`),
		Run: func(_ context.Context, args json.RawMessage) (string, error) {
			var a struct{ City string }
			if err := json.Unmarshal(args, &a); err != nil {
				return "", err
			}
			return `{"city":` + quote(a.City) + `,"tempC":18}`, nil
		},
	},
	{
		Name:        "convert_currency",
		Description: "Convert an amount between currencies.",
		Parameters:  json.RawMessage(`{"type":"object"}`),
		Run: func(_ context.Context, args json.RawMessage) (string, error) {
			var a struct{ Amount float64 }
			if err := json.Unmarshal(args, &a); err != nil {
				return "", err
			}
			return `{"amount":2040,"currency":"JPY"}`, nil
		},
	},
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func script(p scripted.Plan) scripted.Script {
	return scripted.Script{Turns: []scripted.Turn{
		{Expect: scripted.Expect{Tools: []string{"get_weather", "convert_currency"}}, Text: answer, Calls: calls, Plan: p},
		{Expect: scripted.Expect{ToolResults: []string{"run-1-call-1", "run-1-call-2", "run-1-call-3"}}, Text: final},
	}}
}

// reference holds the merged entries of the first case run, by any test;
// every other case, of either agent, must give the same.
var reference struct {
	sync.Mutex
	name    string
	entries []golden.Entry
}

func sameAsReference(t harness.T, name string, r *harness.Result) {
	t.Helper()
	got := golden.Normalizer{}.Normalize(r.Events(), golden.Merged)
	reference.Lock()
	defer reference.Unlock()
	if reference.entries == nil {
		reference.name, reference.entries = name, got
		return
	}
	if d := cmp.Diff(reference.entries, got); d != "" {
		t.Errorf("merged events differ from those of %s (-%s +%s):\n%s", reference.name, reference.name, name, d)
	}
}

type agentFunc func(ctx context.Context, m parallel.Model, in agui.RunAgentInput, emit func(agui.Event) error) error

func agent(f agentFunc) harness.Agent {
	return harness.Func(func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		return f(ctx, env.Model, in, emit)
	})
}

var (
	streaming agentFunc = func(ctx context.Context, m parallel.Model, in agui.RunAgentInput, emit func(agui.Event) error) error {
		return parallel.Streaming{Model: m}.Run(ctx, in, emit)
	}
	buffering agentFunc = func(ctx context.Context, m parallel.Model, in agui.RunAgentInput, emit func(agui.Event) error) error {
		return parallel.Buffering{Model: m}.Run(ctx, in, emit)
	}
	mixedUp agentFunc = func(ctx context.Context, m parallel.Model, in agui.RunAgentInput, emit func(agui.Event) error) error {
		return parallel.MixedUp{Model: m}.Run(ctx, in, emit)
	}
)

// cases builds the table for one agent; wire checks the shape of its
// first run's tool-call events for a plan.
func cases(agent string, wire func(t harness.T, events []agui.Event, interleaved bool)) []harness.Case {
	var out []harness.Case
	for _, p := range plans {
		out = append(out, harness.Case{
			Name:   p.name,
			Input:  harness.User("Weather in Zürich and Tokyo, and 12.5 EUR in yen?"),
			Script: script(p.plan),
			Tools:  tools,
			Check: func(t harness.T, r *harness.Result) {
				sameAsReference(t, agent+"/"+p.name, r)
				if len(r.Runs) != 2 {
					t.Errorf("runs: got %d, want 2", len(r.Runs))
				}
				argsIntact(t, r)
				if got := r.LastText(); got != final {
					t.Errorf("last text: got %q, want %q", got, final)
				}
				wire(t, r.Runs[0].Events, p.interleaved)
			},
		})
	}
	return out
}

// argsIntact checks the arguments of the calls as the client assembled
// them: byte for byte what the model sent, in some order.
func argsIntact(t harness.T, r *harness.Result) {
	t.Helper()
	want := map[string]bool{}
	for _, c := range calls {
		want[c.Name+" "+c.Args] = true
	}
	got := map[string]bool{}
	for _, m := range r.Messages {
		for _, tc := range m.ToolCalls {
			got[tc.Function.Name+" "+tc.Function.Arguments] = true
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("call arguments (-want +got):\n%s", d)
	}
}

// callSwitches counts how often consecutive TOOL_CALL_ARGS change call.
func callSwitches(events []agui.Event) int {
	n, last := 0, ""
	for _, e := range events {
		if e.Type() == agui.ToolCallArgs {
			if last != "" && e.ToolCallID() != last {
				n++
			}
			last = e.ToolCallID()
		}
	}
	return n
}

func TestStreaming(t *testing.T) {
	harness.Run(t, agent(streaming), cases("streaming", func(t harness.T, events []agui.Event, interleaved bool) {
		// The provider's interleaving shows on the wire.
		if n := callSwitches(events); interleaved != (n > len(calls)-1) {
			t.Errorf("TOOL_CALL_ARGS switch call %d times; interleaved on the provider's stream: %v", n, interleaved)
		}
	}))
}

func TestBuffering(t *testing.T) {
	harness.Run(t, agent(buffering), cases("buffering", func(t harness.T, events []agui.Event, _ bool) {
		// Each call whole: START, one ARGS, END, back to back.
		var calls []agui.Event
		for _, e := range events {
			switch e.Type() {
			case agui.ToolCallStart, agui.ToolCallArgs, agui.ToolCallEnd:
				calls = append(calls, e)
			}
		}
		for i, e := range calls {
			want := []agui.EventType{agui.ToolCallStart, agui.ToolCallArgs, agui.ToolCallEnd}[i%3]
			if e.Type() != want || e.ToolCallID() != calls[i-i%3].ToolCallID() {
				t.Errorf("tool-call event %d: got %s for %s, want %s for %s", i, e.Type(), e.ToolCallID(), want, calls[i-i%3].ToolCallID())
			}
		}
	}))
}

// TestExplore: both agents give the client the same conversation under
// every plan exploration tries (splits, orders, id styles, the stream
// shapes of known integration bugs, seeded random plans), each checked
// for fidelity to what the model said.
func TestExplore(t *testing.T) {
	for _, a := range []struct {
		name  string
		agent agentFunc
	}{{"streaming", streaming}, {"buffering", buffering}} {
		t.Run(a.name, func(t *testing.T) {
			harness.Run(t, agent(a.agent), []harness.Case{{
				Name:     "three-calls",
				Input:    harness.User("Weather in Zürich and Tokyo, and 12.5 EUR in yen?"),
				Script:   script(plans[0].plan),
				Tools:    tools,
				NoGolden: true,
			}}, harness.Options{Explore: &harness.Explore{}})
		})
	}
}

// The merged goldens written for every plan and both agents are the same
// file, byte for byte.
func TestGoldensAgree(t *testing.T) {
	var files []string
	for _, test := range []string{"TestStreaming", "TestBuffering"} {
		for _, p := range plans {
			files = append(files, filepath.Join("testdata", test, p.name+".golden"))
		}
	}
	first, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files[1:] {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Error(err)
			continue
		}
		if d := cmp.Diff(string(first), string(b)); d != "" {
			t.Errorf("%s differs from %s (-want +got):\n%s", f, files[0], d)
		}
	}
	if !strings.Contains(string(first), `"note":"say \"こんにちは\"\tplease"`) {
		t.Errorf("%s lacks the arguments with escapes:\n%s", files[0], first)
	}
}

// The two agents on the wire, side by side, for one interleaved plan.
func TestWire(t *testing.T) {
	p := scripted.Plan{Split: scripted.Split{Size: 6}, Order: scripted.Order{By: scripted.Scheduled, Schedule: "text #1 #2 #1 #3 #2"}}
	for _, a := range []struct {
		name  string
		agent agentFunc
	}{{"streaming", streaming}, {"buffering", buffering}} {
		harness.Run(t, agent(a.agent), []harness.Case{{
			Name:   a.name,
			Input:  harness.User("Weather in Zürich and Tokyo, and 12.5 EUR in yen?"),
			Script: script(p),
			Tools:  tools,
			Golden: golden.Wire,
		}})
	}
}
