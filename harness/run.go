package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/internal/words"
	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/scripted"
)

// Case is one row of a table-driven agent test.
type Case struct {
	// Name names the subtest and the golden file.
	Name string
	// Input is what the first run is asked.
	Input Input
	// Script is what the scripted LLM answers, turn by turn. Every turn
	// must be used.
	Script scripted.Script
	// Tools are the frontend tools: declared to the agent in the input's
	// tools and run by the harness, as a client would, when a run ends with
	// calls to them that got no TOOL_CALL_RESULT. Each must have a Run.
	Tools []Tool
	// Golden is the view the case's golden file keeps: golden.Merged (the
	// zero value), run by run the messages and state the client ends up
	// with and the other events, so that the golden does not depend on
	// how the provider fragments; golden.Wire keeps every event, fragments
	// included, in order.
	Golden golden.View
	// NoGolden keeps no golden file for the case.
	NoGolden bool
	// Scrubs replace volatile values before the golden comparison.
	Scrubs []golden.Scrub
	// Profile is the verifier profile every run is checked with (Strict
	// by default). Each run is verified with its RunAgentInput, so results
	// for calls of the message history are known.
	Profile agui.Profile
	// Allow waives verifier rules by name (agui.Options.Allow): accept one
	// framework quirk and keep every other rule.
	Allow []agui.Rule
	// Enable turns on opt-in verifier rules by name (agui.Options.Enable).
	Enable []agui.Rule
	// WantError, when set, says the agent must end a run of the case with
	// RUN_ERROR, as WantError describes: an error the test expects (the
	// provider failed, a call was refused). Without it, a run that ends
	// with RUN_ERROR fails the case, and its message and code are reported
	// first, as the cause of what follows (turns left unused, a golden
	// that differs).
	WantError *WantError
	// Check runs extra checks over the result.
	Check func(t *testing.T, r *Result)
	// MaxRuns bounds the runs of the case (frontend tool round trips and
	// follow-ups); 0 means 10.
	MaxRuns int
	// Accept, when set, replaces Options.Accept for this case.
	Accept string
}

// Input is what a case sends. Messages, State, Context and ForwardedProps
// fill a RunAgentInput whose ids the harness assigns; RunAgentInput, when
// set, is sent as it is for the first run instead.
type Input struct {
	// Messages is the conversation so far, ending with the user's message.
	Messages []agui.Message
	// State is the client's state; nil sends {}.
	State json.RawMessage
	// Context is the ambient context.
	Context []agui.Context
	// ForwardedProps are passed through to the agent; nil sends {}.
	ForwardedProps json.RawMessage
	// RunAgentInput replaces all of the above for the first run.
	RunAgentInput *agui.RunAgentInput
	// FollowUps are further user messages, each sent once the
	// conversation has settled (no frontend tool calls pending).
	FollowUps []string
}

// User is shorthand for an Input holding one user message.
func User(text string) Input {
	return Input{Messages: []agui.Message{agui.UserMessage("user-1", text)}}
}

// Tool is a frontend tool: declared to the agent in the input's tools, and
// run by the harness, as a client runs it, when a run ends with a call to
// it that got no TOOL_CALL_RESULT.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments.
	Parameters json.RawMessage
	// Run executes a call. ctx is the case's: it is cancelled when the
	// case ends. args are the call's TOOL_CALL_ARGS deltas joined, or {}
	// when none were streamed, as the reference client hands a call to a
	// frontend tool; the assistant message posted back keeps the call's
	// arguments as streamed, as the reference client does. The result is
	// sent back as a tool message's content; an error becomes the tool
	// message's error.
	//
	// Run is required: a case with a Tool without Run fails at its start.
	// For a tool the agent must answer itself, return an error: if the
	// agent ever leaves the call to the client, the error reaches it.
	Run func(ctx context.Context, args json.RawMessage) (string, error)
}

// Result is what a case produced, as a check sees it.
type Result struct {
	// Runs are the case's runs, in order.
	Runs []RunResult
	// Messages is the conversation at the end as the client holds it
	// (agui.View: assembled as HttpAgent of @ag-ui/client does), with the
	// frontend tools' results and the follow-ups the harness added.
	Messages []agui.Message
	// State is the client's state at the end, as HttpAgent holds it.
	State json.RawMessage
	// Requests are the requests the scripted LLM received.
	Requests []scripted.Request
}

// RunResult is one AG-UI run of a case.
type RunResult struct {
	// Input is what the run was asked.
	Input agui.RunAgentInput
	// Events are the events the agent sent, as it sent them.
	Events []agui.Event
	// Violations are the verifier's findings.
	Violations []agui.Violation
	// Err is why the run failed to complete (transport, stream syntax,
	// agent error), or nil.
	Err error
}

// Events returns the events of every run, in order.
func (r *Result) Events() []agui.Event {
	var out []agui.Event
	for _, run := range r.Runs {
		out = append(out, run.Events...)
	}
	return out
}

// LastText returns the text of the conversation's last assistant message
// that has text.
func (r *Result) LastText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if m := r.Messages[i]; m.Role == agui.RoleAssistant && m.Content.Text != "" {
			return m.Content.Text
		}
	}
	return ""
}

// Options configures Run. The zero value runs cases one after another and
// keeps goldens under testdata.
type Options struct {
	// Parallel runs the cases in parallel (t.Parallel).
	Parallel bool
	// Dir is where golden files live; "" means "testdata". Each test's
	// goldens are in a folder named for the test.
	Dir string
	// Timeout bounds each run; 0 means one minute.
	Timeout time.Duration
	// RecordDir, when set, keeps a recording of each case, all its runs
	// in one file: RecordDir/<TestName>/<case>.jsonl. "aguitest show" and
	// "aguitest verify" read them. The agent's requests to the scripted
	// LLM go through a recording proxy (Env.BaseURL points at it), so each
	// run's provider exchanges, on every wire, are recorded with it:
	// replay.NewProvider and "aguitest llm replay" serve them back. (A Go
	// agent calling Env.Model directly makes no exchange to record.)
	RecordDir string
	// Accept is the Accept header of the requests to an HTTP agent
	// (Handler, URL, Command); "" sends text/event-stream, as HttpAgent
	// does. agui.MediaTypeProto tests the agent's protobuf path: the agent
	// must then answer with Content-Type agui.MediaTypeProto, and what the
	// client's decoder drops of a frame is a proto-loss violation (Strict).
	// Func agents ignore it.
	Accept string
}

// Run runs each case as a subtest of t against agent, with the zero
// Options.
func Run(t *testing.T, agent Agent, cases []Case) {
	t.Helper()
	Options{}.Run(t, agent, cases)
}

// Run runs each case as a subtest of t against agent.
//
// For each case it serves the script from a fresh scripted LLM, starts the
// agent, posts the input, reads and verifies the event stream, and, as an
// AG-UI client does, runs the frontend tools the agent called and posts the
// next run (same thread, new run id) until the conversation settles. Then
// it checks that the script was used up, compares the golden file and runs
// the case's Check. Every problem is reported with the case, run, turn and
// event index; testing goes on wherever later checks still mean something.
func (o Options) Run(t *testing.T, agent Agent, cases []Case) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range cases {
		if c.Name == "" {
			panic("harness: a case has no name")
		}
		if seen[c.Name] {
			panic(fmt.Sprintf("harness: two cases are named %q", c.Name))
		}
		seen[c.Name] = true
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Helper()
			if o.Parallel {
				t.Parallel()
			}
			res := o.RunCase(t, agent, c)
			if c.Check != nil && res != nil {
				c.Check(t, res)
			}
		})
	}
}

// RunCase runs one case in t, without a subtest of its own, and returns
// its result; the case's Check is not called. Run uses it for each case;
// call it directly from a benchmark or a driver of your own. It returns nil
// when the case cannot run (a Tool without Run, a WantError whose Message
// is not a regular expression) or the agent could not be started; the
// failure is reported on t.
//
// Failures are reported when the case is over, on t's goroutine: first
// what ended a run early (a RUN_ERROR the case does not expect, a request
// that failed), then the rest in the order found.
func (o Options) RunCase(t testing.TB, agent Agent, c Case) *Result {
	t.Helper()
	rep := &report{}
	defer rep.flush(t)
	want, err := c.validate()
	if err != nil {
		rep.errorf("%v", err)
		return nil
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	srv := scripted.NewServer(c.Script)
	defer srv.Close()
	base := srv.URL
	var llm *llmProxy
	if o.RecordDir != "" {
		llm = newLLMProxy(srv.URL) // the recording holds the model's side too
		defer llm.close()
		base = llm.URL()
	}
	env := Env{BaseURL: base, APIKey: "aguitest", Model: srv.Model(), Case: c.Name}
	r, err := agent.start(t, env)
	if err != nil {
		rep.errorf("starting the agent: %v", err)
		return nil
	}
	defer r.stop()
	accept := c.Accept
	if accept == "" {
		accept = o.Accept
	}
	setAccept(r, accept)

	var rec *recorder.Writer
	if o.RecordDir != "" {
		top, _, _ := strings.Cut(t.Name(), "/")
		dir := filepath.Join(o.RecordDir, top)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			rep.errorf("recording: %v", err)
		} else if rec, err = recorder.Create(filepath.Join(dir, goldenName(c.Name)+".jsonl"), recorder.Header{Source: "harness"}); err != nil {
			rep.errorf("recording: %v", err)
		} else {
			defer func() {
				if err := rec.Close(); err != nil {
					rep.errorf("recording: %v", err)
				}
			}()
		}
	}
	res := execute(ctx, rep, o, c, r, rec, llm)
	want.check(rep, res)

	if err := srv.Check(); err != nil {
		rep.errorf("scripted LLM: %v", err)
	}
	res.Requests = srv.Requests()

	if !c.NoGolden {
		runs := make([]golden.Run, len(res.Runs))
		for i := range res.Runs {
			runs[i] = golden.Run{Input: &res.Runs[i].Input, Events: res.Runs[i].Events}
		}
		entries := golden.Normalizer{Scrubs: c.Scrubs}.NormalizeRuns(runs, c.Golden)
		dir := o.Dir
		if dir == "" {
			dir = "testdata"
		}
		top, _, _ := strings.Cut(t.Name(), "/")
		if err := golden.Check(filepath.Join(dir, top), goldenName(c.Name), golden.Marshal(entries), golden.Update()); err != nil {
			rep.errorf("%v", err)
		}
	}
	return res
}

// validate reports what makes a case impossible to run, before it starts,
// and returns its compiled WantError.
func (c *Case) validate() (*wantError, error) {
	var errs []error
	for _, tool := range c.Tools {
		if tool.Run == nil {
			errs = append(errs, fmt.Errorf("harness: case %q: tool %q has no Run; "+
				"the harness runs a frontend tool when the agent leaves a call to the client: "+
				"set Tool.Run (to a func returning an error if the agent must answer the call itself)", c.Name, tool.Name))
		}
	}
	want, err := c.WantError.compile()
	if err != nil {
		errs = append(errs, fmt.Errorf("harness: case %q: %w", c.Name, err))
	}
	return want, errors.Join(errs...)
}

// goldenName makes a case name safe as a file name.
func goldenName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, name)
}

// execute runs the conversation of a case and reports what goes wrong.
func execute(ctx context.Context, rep *report, o Options, c Case, r runner, rec *recorder.Writer, llm *llmProxy) *Result {
	maxRuns := c.MaxRuns
	if maxRuns == 0 {
		maxRuns = 10
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = time.Minute
	}
	tools := make(map[string]Tool, len(c.Tools))
	var decl []agui.Tool
	for _, tool := range c.Tools {
		tools[tool.Name] = tool
		decl = append(decl, agui.Tool{Name: tool.Name, Description: tool.Description, Parameters: tool.Parameters})
	}

	in := c.Input
	var first agui.RunAgentInput
	if in.RunAgentInput != nil {
		first = *in.RunAgentInput
	} else {
		first = agui.RunAgentInput{
			ThreadID:       "thread-1",
			State:          in.State,
			Messages:       in.Messages,
			Tools:          decl,
			Context:        in.Context,
			ForwardedProps: in.ForwardedProps,
		}
	}
	view := agui.NewView(first)
	followUps := in.FollowUps
	res := &Result{}

	input := first
	for n := 1; ; n++ {
		if input.RunID == "" || n > 1 {
			input.RunID = fmt.Sprintf("run-%d", n)
		}
		opts := agui.Options{Profile: c.Profile, Allow: c.Allow, Enable: c.Enable, Input: &input}
		run := runOnce(ctx, rep, n, input, opts, r, view, timeout, rec, llm)
		res.Runs = append(res.Runs, run)
		if run.Err != nil {
			rep.causef("run %d: %v", n, run.Err)
			break
		}
		pending := pendingCalls(run.Events, tools)
		var added []agui.Message
		if len(pending) == 0 {
			if len(followUps) == 0 {
				break
			}
			added = append(added, agui.UserMessage(fmt.Sprintf("user-%d", n+1), followUps[0]))
			followUps = followUps[1:]
		}
		for _, call := range pending {
			content, err := tools[call.name].Run(ctx, call.arguments())
			msg := agui.ToolMessage(call.id+"-result", call.id, content)
			if err != nil {
				msg.Error = err.Error()
			}
			added = append(added, msg)
		}
		view.AddMessages(added...)
		if n >= maxRuns {
			rep.errorf("run %d: the conversation has not settled after %s (MaxRuns); pending frontend calls: %v", n, words.Count(maxRuns, "run", "runs"), pending)
			break
		}
		input = agui.RunAgentInput{
			ThreadID:       first.ThreadID,
			State:          view.State(),
			Messages:       requestMessages(view),
			Tools:          first.Tools,
			Context:        first.Context,
			ForwardedProps: first.ForwardedProps,
		}
	}
	res.Messages = view.Messages()
	res.State = view.State()
	return res
}

// requestMessages are the messages the client sends with its next request:
// all it holds but its activity messages, which stay on the client.
func requestMessages(v *agui.View) []agui.Message {
	var out []agui.Message
	for _, m := range v.Messages() {
		if m.Role != agui.RoleActivity {
			out = append(out, m)
		}
	}
	return out
}

// runOnce posts one run and verifies its stream as it arrives.
func runOnce(ctx context.Context, rep *report, n int, input agui.RunAgentInput, opts agui.Options, r runner, view *agui.View, timeout time.Duration, rec *recorder.Writer, llm *llmProxy) RunResult {
	run := RunResult{Input: input}
	var sink *recorder.Sink
	if rec != nil {
		sink = &recorder.Sink{Run: input.RunID, Writer: rec}
		llm.record(sink)
		if err := sink.Request(input, nil); err != nil {
			rep.errorf("run %d: recording: %v", n, err)
		}
		defer func() {
			if err := sink.Close(); err != nil {
				rep.errorf("run %d: recording: %v", n, err)
			}
		}()
	}
	v := agui.NewVerifier(opts)
	viewStopped := false
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var mu sync.Mutex // a Func agent may emit from its own goroutines
	done := false
	report := func(vs []agui.Violation, line int) {
		for _, vi := range vs {
			run.Violations = append(run.Violations, vi)
			rep.errorf("run %d: %s", n, describe(vi, line))
		}
	}
	err := r.run(ctx, input, receiver{
		response: func(status int, contentType string) error {
			mu.Lock()
			defer mu.Unlock()
			report(v.Response(status, contentType), 0)
			return nil
		},
		losses: func(e agui.Event, ls []agui.Loss) error {
			mu.Lock()
			defer mu.Unlock()
			report(v.PushLosses(e, ls), 0)
			return nil
		},
		frame: func(fe *agui.FrameError) error {
			mu.Lock()
			defer mu.Unlock()
			if done {
				return errStopped
			}
			for _, vi := range v.PushFrame(fe) {
				run.Violations = append(run.Violations, vi)
				where := fmt.Sprintf("line %d", fe.Line)
				if fe.Line == 0 { // a protobuf frame
					where = fmt.Sprintf("byte %d", fe.Offset)
				}
				rep.errorf("run %d: frame %d at %s: %s: %s", n, fe.Frame, where, vi.Rule, vi.Message)
			}
			return nil
		},
		event: func(e agui.Event, line int) error {
			mu.Lock()
			defer mu.Unlock()
			if done {
				return errStopped
			}
			i := len(run.Events)
			run.Events = append(run.Events, e)
			if sink != nil {
				if err := sink.Emit(e); err != nil {
					rep.errorf("run %d: event %d: recording: %v", n, i+1, err)
				}
			}
			vs := v.Push(e)
			report(vs, line)
			// The client's view: what it warns about is a bug the
			// verifier does not see; where it stops, the verifier has
			// mostly said why already.
			warned := len(view.Warnings())
			if err := view.Apply(e); err != nil && !viewStopped {
				viewStopped = true
				if len(vs) == 0 {
					rep.errorf("run %d: event %d (%s): the client stops here: %v", n, i+1, e.Type(), err)
				}
			}
			for _, w := range view.Warnings()[warned:] {
				rep.errorf("run %d: event %d (%s): %s", n, i+1, w.Type, w.Message)
			}
			return nil
		},
	})
	mu.Lock()
	done = true
	mu.Unlock()
	if err != nil && !errors.Is(err, errStopped) {
		run.Err = err
		return run
	}
	report(v.Finish(), 0)
	return run
}

// describe says what a violation is and where, numbering events from 1.
func describe(v agui.Violation, line int) string {
	where := fmt.Sprintf("event %d (%s)", v.Index+1, v.Type)
	switch {
	case v.Rule == agui.RuleHTTPStatus || v.Rule == agui.RuleContentType:
		where = "response"
	case v.Type == "":
		where = "end of stream after " + words.Count(v.Index, "event", "events")
	}
	if line > 0 {
		where += fmt.Sprintf(" at line %d", line)
	}
	if ids := v.IDs(); ids != "" {
		where += " [" + ids + "]"
	}
	return fmt.Sprintf("%s: %s: %s", where, v.Rule, v.Message)
}

type pendingCall struct{ id, name, args string }

func (p pendingCall) String() string { return p.name + "(" + p.id + ")" }

// arguments are what a frontend tool gets: the streamed arguments, or {}
// when there are none (the reference client parses "" as no arguments).
func (p pendingCall) arguments() json.RawMessage {
	if strings.TrimSpace(p.args) == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(p.args)
}

// pendingCalls returns the calls of a run to offered frontend tools that
// ended without a TOOL_CALL_RESULT, in the order they started.
func pendingCalls(events []agui.Event, tools map[string]Tool) []pendingCall {
	expanded, _ := agui.ExpandChunks(events)
	var order []string
	calls := map[string]*pendingCall{}
	ended := map[string]bool{}
	resulted := map[string]bool{}
	for _, e := range expanded {
		switch e.Type() {
		case agui.ToolCallStart:
			if _, ok := tools[e.ToolCallName()]; ok {
				if _, seen := calls[e.ToolCallID()]; !seen {
					order = append(order, e.ToolCallID())
				}
				calls[e.ToolCallID()] = &pendingCall{id: e.ToolCallID(), name: e.ToolCallName()}
			}
		case agui.ToolCallArgs:
			if c, ok := calls[e.ToolCallID()]; ok {
				c.args += e.Delta()
			}
		case agui.ToolCallEnd:
			ended[e.ToolCallID()] = true
		case agui.ToolCallResult:
			resulted[e.ToolCallID()] = true
		}
	}
	var out []pendingCall
	for _, id := range order {
		if ended[id] && !resulted[id] {
			out = append(out, *calls[id])
		}
	}
	return out
}
