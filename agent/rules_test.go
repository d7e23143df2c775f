package agent_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/internal/jsonpatch"
)

// recorder is a sink that keeps what it is sent.
type recorder struct{ events []agui.Event }

func (r *recorder) send(e agui.Event) error { r.events = append(r.events, e); return nil }

func (r *recorder) types() []agui.EventType {
	var out []agui.EventType
	for _, e := range r.events {
		out = append(out, e.Type())
	}
	return out
}

func start(t *testing.T, opt agent.Options) (*agent.Run, *recorder) {
	t.Helper()
	rec := &recorder{}
	run, err := agent.Start(agui.RunAgentInput{ThreadID: "t", RunID: "r"}, rec.send, opt)
	if err != nil {
		t.Fatal(err)
	}
	return run, rec
}

func must[T any](t *testing.T) func(v T, err error) T {
	t.Helper()
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestMisuse runs each misuse of a handle: the call returns an *Error
// naming the rule and sends nothing; the stream sent stays valid.
func TestMisuse(t *testing.T) {
	call := func(t *testing.T, run *agent.Run) *agent.ToolCall {
		return must[*agent.ToolCall](t)(run.ToolCall("get_weather"))
	}
	text := func(t *testing.T, run *agent.Run) *agent.Text { return must[*agent.Text](t)(run.Text()) }
	result := func(_ string, err error) error { return err }
	cases := []struct {
		name string
		opt  agent.Options
		// setup does what is fine; misuse returns the error of the call
		// that is not.
		setup  func(t *testing.T, run *agent.Run) any
		misuse func(run *agent.Run, h any) error
		want   agui.Rule
	}{
		{
			name:   "args after end",
			setup:  func(t *testing.T, run *agent.Run) any { c := call(t, run); ok(t, c.End()); return c },
			misuse: func(_ *agent.Run, h any) error { return h.(*agent.ToolCall).Args(`{}`) },
			want:   agui.RuleToolCallNotOpen,
		},
		{
			name:   "args after result",
			setup:  func(t *testing.T, run *agent.Run) any { c := call(t, run); ok(t, result(c.Result("ok"))); return c },
			misuse: func(_ *agent.Run, h any) error { return h.(*agent.ToolCall).ArgsJSON(1) },
			want:   agui.RuleToolCallNotOpen,
		},
		{
			name:  "a value after fragments",
			setup: func(t *testing.T, run *agent.Run) any { c := call(t, run); ok(t, c.Args(`{"city":`)); return c },
			misuse: func(_ *agent.Run, h any) error {
				return h.(*agent.ToolCall).ArgsJSON(map[string]string{"city": "Seoul"})
			},
			want: agui.RuleArgsNotJSON,
		},
		{
			name:   "end with partial arguments",
			setup:  func(t *testing.T, run *agent.Run) any { c := call(t, run); ok(t, c.Args(`{"city":`)); return c },
			misuse: func(_ *agent.Run, h any) error { return h.(*agent.ToolCall).End() },
			want:   agui.RuleArgsNotJSON,
		},
		{
			name:   "result with partial arguments",
			setup:  func(t *testing.T, run *agent.Run) any { c := call(t, run); ok(t, c.Args(`{"city":`)); return c },
			misuse: func(_ *agent.Run, h any) error { return result(h.(*agent.ToolCall).Result("ok")) },
			want:   agui.RuleArgsNotJSON,
		},
		{
			name:   "a result twice",
			setup:  func(t *testing.T, run *agent.Run) any { c := call(t, run); ok(t, result(c.Result("ok"))); return c },
			misuse: func(_ *agent.Run, h any) error { return result(h.(*agent.ToolCall).ResultJSON(2)) },
			want:   agui.RuleDuplicateResult,
		},
		{
			name: "a call id open",
			setup: func(t *testing.T, run *agent.Run) any {
				return must[*agent.ToolCall](t)(run.StartToolCall(agent.ToolCallSpec{ID: "c", Name: "a"}))
			},
			misuse: func(run *agent.Run, _ any) error {
				_, err := run.StartToolCall(agent.ToolCallSpec{ID: "c", Name: "b"})
				return err
			},
			want: agui.RuleToolCallOpen,
		},
		{
			name: "a call closed and reopened",
			setup: func(t *testing.T, run *agent.Run) any {
				c := must[*agent.ToolCall](t)(run.StartToolCall(agent.ToolCallSpec{ID: "c", Name: "a"}))
				ok(t, c.End())
				return c
			},
			misuse: func(run *agent.Run, _ any) error {
				_, err := run.StartToolCall(agent.ToolCallSpec{ID: "c", Name: "a"})
				return err
			},
			want: agui.RuleReopenedID,
		},
		{
			name: "text after end",
			setup: func(t *testing.T, run *agent.Run) any {
				x := text(t, run)
				ok(t, x.Delta("hi"))
				ok(t, x.End())
				return x
			},
			misuse: func(_ *agent.Run, h any) error { return h.(*agent.Text).Delta("again") },
			want:   agui.RuleMessageNotOpen,
		},
		{
			name:   "a message id open",
			setup:  func(t *testing.T, run *agent.Run) any { return must[*agent.Text](t)(run.TextWithID("m")) },
			misuse: func(run *agent.Run, _ any) error { _, err := run.TextWithID("m"); return err },
			want:   agui.RuleMessageOpen,
		},
		{
			name: "a message id reused",
			setup: func(t *testing.T, run *agent.Run) any {
				ok(t, must[*agent.Text](t)(run.TextWithID("m")).End())
				return nil
			},
			misuse: func(run *agent.Run, _ any) error { _, err := run.ReasoningWithID("m"); return err },
			want:   agui.RuleReopenedID,
		},
		{
			name: "reasoning after end",
			setup: func(t *testing.T, run *agent.Run) any {
				g := must[*agent.Reasoning](t)(run.Reasoning())
				ok(t, g.Delta("hmm"))
				ok(t, g.End())
				return g
			},
			misuse: func(_ *agent.Run, h any) error { return h.(*agent.Reasoning).Delta("more") },
			want:   agui.RuleReasoningNotOpen,
		},
		{
			name:   "a step started twice",
			setup:  func(t *testing.T, run *agent.Run) any { return must[*agent.Step](t)(run.Step("plan")) },
			misuse: func(run *agent.Run, _ any) error { _, err := run.Step("plan"); return err },
			want:   agui.RuleStepActive,
		},
		{
			name:   "finish with a call open",
			setup:  func(t *testing.T, run *agent.Run) any { return call(t, run) },
			misuse: func(run *agent.Run, _ any) error { return run.Finish() },
			want:   agui.RuleRunFinishedOpen,
		},
		{
			name:   "text after the run finished",
			setup:  func(t *testing.T, run *agent.Run) any { ok(t, run.Finish()); return nil },
			misuse: func(run *agent.Run, _ any) error { _, err := run.Text(); return err },
			want:   agui.RuleAfterRunFinished,
		},
		{
			name: "a result after the run finished",
			setup: func(t *testing.T, run *agent.Run) any {
				c := call(t, run)
				ok(t, c.End())
				ok(t, run.Finish())
				return c
			},
			misuse: func(_ *agent.Run, h any) error { return result(h.(*agent.ToolCall).Result("late")) },
			want:   agui.RuleAfterRunFinished,
		},
		{
			name:   "arguments after RUN_ERROR",
			setup:  func(t *testing.T, run *agent.Run) any { c := call(t, run); ok(t, run.Fail("boom", "")); return c },
			misuse: func(_ *agent.Run, h any) error { return h.(*agent.ToolCall).Args(`{}`) },
			want:   agui.RuleAfterRunError,
		},
		{
			name:   "failing twice",
			setup:  func(t *testing.T, run *agent.Run) any { ok(t, run.Fail("boom", "")); return nil },
			misuse: func(run *agent.Run, _ any) error { return run.Fail("again", "") },
			want:   agui.RuleAfterRunError,
		},
		{
			name:   "failing after finishing",
			setup:  func(t *testing.T, run *agent.Run) any { ok(t, run.Finish()); return nil },
			misuse: func(run *agent.Run, _ any) error { return run.Fail("late", "") },
			want:   agui.RuleAfterRunFinished,
		},
		{
			// The handles do not follow raw events: the Verifier does.
			name:   "a raw end of a call never opened",
			setup:  func(t *testing.T, run *agent.Run) any { return nil },
			misuse: func(run *agent.Run, _ any) error { return run.Emit(agui.NewToolCallEnd("nobody")) },
			want:   agui.RuleToolCallNotOpen,
		},
		{
			name:   "a raw end of a call already closed",
			setup:  func(t *testing.T, run *agent.Run) any { c := call(t, run); ok(t, c.End()); return c },
			misuse: func(run *agent.Run, h any) error { return run.Emit(agui.NewToolCallEnd(h.(*agent.ToolCall).ID())) },
			want:   agui.RuleToolCallNotOpen,
		},
		{
			name:  "a raw event that breaks its schema",
			setup: func(t *testing.T, run *agent.Run) any { return nil },
			misuse: func(run *agent.Run, _ any) error {
				return run.Emit(agui.NewEvent(agui.TextMessageStart, "role", "assistant"))
			},
			want: agui.RuleSchema,
		},
		{
			name:  "an empty delta, when the opt-in rule is on",
			opt:   agent.Options{Verify: agui.Options{Enable: []agui.Rule{agui.RuleEmptyDelta}}},
			setup: func(t *testing.T, run *agent.Run) any { return text(t, run) },
			misuse: func(run *agent.Run, h any) error {
				return run.Emit(agui.NewTextMessageContent(h.(*agent.Text).ID(), ""))
			},
			want: agui.RuleEmptyDelta,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run, rec := start(t, tc.opt)
			h := tc.setup(t, run)
			before := len(rec.events)
			err := tc.misuse(run, h)
			var ae *agent.Error
			if !errors.As(err, &ae) {
				t.Fatalf("got %v, want an *agent.Error naming %s", err, tc.want)
			}
			if ae.Rule != tc.want {
				t.Errorf("rule: got %s, want %s (%v)", ae.Rule, tc.want, err)
			}
			if got := rec.events[before:]; len(got) > 0 {
				t.Errorf("the misuse sent %v", got)
			}
			// Whatever was sent, ended with RUN_ERROR, is a valid stream.
			_ = run.Fail("end of test", "")
			if vs := agui.Verify(rec.events, agui.Options{}); len(vs) > 0 {
				t.Errorf("the stream sent does not verify: %v", vs)
			}
		})
	}
}

// TestEndIdempotent: End, repeated or deferred, sends one END; End after
// Result sends nothing more.
func TestEndIdempotent(t *testing.T) {
	run, rec := start(t, agent.Options{})
	c := must[*agent.ToolCall](t)(run.ToolCall("a"))
	ok(t, c.End())
	ok(t, c.End())
	d := must[*agent.ToolCall](t)(run.ToolCall("b"))
	must[string](t)(d.Result("ok"))
	ok(t, d.End())
	x := must[*agent.Text](t)(run.Text())
	ok(t, x.End())
	ok(t, x.End())
	s := must[*agent.Step](t)(run.Step("s"))
	ok(t, s.End())
	ok(t, s.End())
	g := must[*agent.Reasoning](t)(run.Reasoning())
	ok(t, g.End())
	ok(t, g.End())
	ok(t, run.Finish())
	want := []agui.EventType{
		agui.RunStarted,
		agui.ToolCallStart, agui.ToolCallEnd,
		agui.ToolCallStart, agui.ToolCallEnd, agui.ToolCallResult,
		agui.TextMessageStart, agui.TextMessageEnd,
		agui.StepStarted, agui.StepFinished,
		agui.ReasoningStart, agui.ReasoningMessageStart, agui.ReasoningMessageEnd, agui.ReasoningEnd,
		agui.RunFinished,
	}
	if d := cmp.Diff(want, rec.types()); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
}

// TestBroken: after the Verifier refused a raw event, nothing but RUN_ERROR
// goes out.
func TestBroken(t *testing.T) {
	run, rec := start(t, agent.Options{})
	if err := run.Emit(agui.NewToolCallArgs("nobody", "{}")); err == nil {
		t.Fatal("a raw ARGS for no call was sent")
	}
	_, err := run.Text()
	if !errors.Is(err, agent.ErrBroken) {
		t.Errorf("Text after a refused event: got %v, want ErrBroken", err)
	}
	ok(t, run.Fail("broken", "BROKEN"))
	if d := cmp.Diff([]agui.EventType{agui.RunStarted, agui.RunError}, rec.types()); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
}

// TestWaivers: a rule waived or outside the profile is not enforced by the
// handles either.
func TestWaivers(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  agent.Options
	}{
		{"allow args-not-json and duplicate-result", agent.Options{Verify: agui.Options{Allow: []agui.Rule{agui.RuleArgsNotJSON, agui.RuleDuplicateResult}}}},
		{"reference profile", agent.Options{Verify: agui.Options{Profile: agui.Reference}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, rec := start(t, tc.opt)
			c := must[*agent.ToolCall](t)(run.ToolCall("a"))
			ok(t, c.Args(`{"cut`))
			ok(t, c.End())
			must[string](t)(c.Result("one"))
			must[string](t)(c.Result("two"))
			ok(t, run.Finish())
			want := []agui.EventType{agui.RunStarted, agui.ToolCallStart, agui.ToolCallArgs, agui.ToolCallEnd, agui.ToolCallResult, agui.ToolCallResult, agui.RunFinished}
			if d := cmp.Diff(want, rec.types()); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	}
}

// TestNoVerify: without the Verifier the handles still refuse what they
// know, and raw events go out unchecked.
func TestNoVerify(t *testing.T) {
	run, rec := start(t, agent.Options{NoVerify: true})
	c := must[*agent.ToolCall](t)(run.ToolCall("a"))
	ok(t, c.End())
	if got := agent.RuleOf(c.Args("{}")); got != agui.RuleToolCallNotOpen {
		t.Errorf("Args after End: got rule %q, want %s", got, agui.RuleToolCallNotOpen)
	}
	ok(t, run.Emit(agui.NewToolCallEnd("nobody")))
	if n := len(rec.events); n != 4 {
		t.Errorf("events: got %d, want 4", n)
	}
}

// TestGone: once the sink fails, every call says the client has gone.
func TestGone(t *testing.T) {
	gone := errors.New("broken pipe")
	n := 0
	run, err := agent.Start(agui.RunAgentInput{RunID: "r"}, func(agui.Event) error {
		n++
		if n > 1 {
			return gone
		}
		return nil
	}, agent.Options{})
	ok(t, err)
	_, err = run.Text()
	if !errors.Is(err, agent.ErrGone) || !errors.Is(err, gone) {
		t.Errorf("got %v, want ErrGone wrapping the sink's error", err)
	}
	if err := run.Finish(); !errors.Is(err, agent.ErrGone) {
		t.Errorf("Finish: got %v, want ErrGone", err)
	}
}

// TestCutCharacters: a delta cut inside a character waits for the rest.
func TestCutCharacters(t *testing.T) {
	run, rec := start(t, agent.Options{})
	x := must[*agent.Text](t)(run.Text())
	c := must[*agent.ToolCall](t)(run.ToolCall("a"))
	s := "東京"
	ok(t, x.Delta(s[:1]))
	ok(t, c.Args(`{"city":"`+s[:4]))
	ok(t, x.Delta(s[1:]))
	ok(t, c.Args(s[4:]+`"}`))
	ok(t, x.End())
	ok(t, c.End())
	ok(t, run.Finish())
	var text, args string
	for _, e := range rec.events {
		switch e.Type() {
		case agui.TextMessageContent:
			text += e.Delta()
		case agui.ToolCallArgs:
			args += e.Delta()
		}
	}
	if text != s || args != `{"city":"東京"}` {
		t.Errorf("got text %q and arguments %q", text, args)
	}
	if got := c.RawArgs(); got != args {
		t.Errorf("RawArgs: got %q, want %q", got, args)
	}
}

func TestStatePatch(t *testing.T) {
	rec := &recorder{}
	run, err := agent.Start(agui.RunAgentInput{RunID: "r", State: []byte(`{"n":1,"list":[]}`)}, rec.send, agent.Options{})
	ok(t, err)
	ok(t, run.StatePatch([]map[string]any{{"op": "add", "path": "/list/-", "value": "a"}}))
	if err := run.StatePatch([]map[string]any{{"op": "remove", "path": "/missing"}}); !errors.Is(err, agent.ErrPatch) {
		t.Errorf("a patch that does not apply: got %v, want ErrPatch", err)
	}
	ok(t, run.StateDelta(map[string]any{"n": 2, "list": []string{"a"}}))
	ok(t, run.StateDelta(map[string]any{"n": 2, "list": []string{"a"}})) // no change: nothing sent
	if got, want := string(run.State()), `{"list":["a"],"n":2}`; got != want {
		t.Errorf("state: got %s, want %s", got, want)
	}
	want := []string{
		`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/list/-","value":"a"}]}`,
		`{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2}]}`,
	}
	var got []string
	for _, e := range rec.events[1:] {
		got = append(got, e.String())
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
}

// TestStateDeltaApplies: every computed delta, applied as the client
// applies it (jsonpatch.Apply) to what the client held, gives the document
// published.
func TestStateDeltaApplies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var gen func(depth int) any
	gen = func(depth int) any {
		switch k := rng.IntN(6); {
		case depth > 3 || k == 0:
			return rng.IntN(4)
		case k == 1:
			return []string{"a", "b", "c", ""}[rng.IntN(4)]
		case k == 2:
			return nil
		case k < 5:
			var a []any
			for range rng.IntN(5) {
				a = append(a, gen(depth+1))
			}
			return a
		default:
			m := map[string]any{}
			for range rng.IntN(4) {
				m[[]string{"x", "y", "z", "w"}[rng.IntN(4)]] = gen(depth + 1)
			}
			return m
		}
	}
	for i := range 500 {
		rec := &recorder{}
		run, err := agent.Start(agui.RunAgentInput{RunID: "r"}, rec.send, agent.Options{})
		ok(t, err)
		held := []byte("{}")
		for range 4 {
			doc := map[string]any{"doc": gen(0)}
			n := len(rec.events)
			ok(t, run.StateDelta(doc))
			want, _ := json.Marshal(doc)
			for _, e := range rec.events[n:] {
				ops, _ := e.Field("delta")
				var err error
				if held, err = jsonpatch.Apply(held, ops); err != nil {
					t.Fatalf("doc %d: the delta %s does not apply: %v", i, ops, err)
				}
			}
			var g, w any
			_ = json.Unmarshal(held, &g)
			_ = json.Unmarshal(want, &w)
			if d := cmp.Diff(w, g); d != "" {
				t.Fatalf("doc %d: applying the deltas gives %s, want %s\n%v", i, held, want, rec.events[1:])
			}
		}
	}
}

// TestStatePatchNullElement: StatePatch applies patches as the client does
// (jsonpatch.Apply), so a "test" of the empty state and of an array holding
// null succeed, where github.com/evanphx/json-patch/v5 panics
// (internal/sdktest's TestJSONPatchNullPanics keeps that bug).
func TestStatePatchNullElement(t *testing.T) {
	run, _ := start(t, agent.Options{})
	if err := run.StatePatch([]map[string]any{{"op": "test", "path": "", "value": map[string]any{}}}); err != nil {
		t.Errorf("a test of the empty state: %v", err)
	}
	if err := run.StatePatch([]map[string]any{{"op": "add", "path": "/a", "value": []any{nil}}}); err != nil {
		t.Fatal(err)
	}
	if err := run.StatePatch([]map[string]any{{"op": "test", "path": "/a", "value": []any{nil}}}); err != nil {
		t.Errorf("StatePatch where the library panics: %v", err)
	}
}
