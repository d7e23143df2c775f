package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/internal/words"
	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/scripted"
)

// session is the client's side of one case: it posts the runs, reads and
// checks their streams, runs the frontend tools the agent left to the
// client and posts the next run, until the conversation settles.
type session struct {
	ctx  context.Context
	rep  *report
	o    Options
	c    Case
	r    runner
	rec  *recorder.Writer // nil when the case is not recorded
	llm  *llmProxy
	srv  *scripted.Server
	view *agui.View // what the client holds
	ids  *ids       // what the client names the thread, runs and messages
}

// run runs the conversation of the case and reports what goes wrong.
func (s *session) run() *Result {
	maxRuns := s.c.MaxRuns
	if maxRuns == 0 {
		maxRuns = 10
	}
	tools := make(map[string]Tool, len(s.c.Tools))
	for _, tool := range s.c.Tools {
		tools[tool.Name] = tool
	}
	frontend := s.c.Frontend
	if frontend == "" {
		frontend = s.o.Frontend
	}
	first := s.firstInput()
	s.view = agui.NewView(first)
	followUps := s.c.Input.FollowUps
	res := &Result{}

	input := first
	for n := 1; ; n++ {
		input.RunID = s.ids.run(n)
		run := s.post(n, input)
		res.Runs = append(res.Runs, run)
		if run.Err != nil {
			s.rep.causef(ProblemRun, n, "run %d: %v", n, run.Err)
			break
		}
		var pending []pendingCall
		var resumed []agui.ResumeEntry
		if !run.Left {
			pending = pendingCalls(run.Events, tools)
			if len(run.Interrupts) > 0 {
				var err error
				if resumed, err = resume(run.Interrupts, s.c.Answers, s.callName, time.Now()); err != nil {
					s.rep.errorf(ProblemInterrupt, n, "run %d ended with outcome interrupt: %v", n, err)
					break
				}
			}
		}
		var added []agui.Message
		failed := 0
		for _, call := range pending {
			content, err := tools[call.name].Run(s.ctx, call.arguments())
			text, errField := frontend.toolResult(content, err)
			msg := agui.ToolMessage(s.ids.message(), call.id, text)
			msg.Error = errField
			if err != nil {
				failed++
			}
			added = append(added, msg)
		}
		if !frontend.followsUp(len(pending), failed) && len(resumed) == 0 {
			// The results wait on the client for the user's next
			// message, as CopilotKit keeps a failed tool's.
			pending = nil
		}
		if len(pending) == 0 && len(resumed) == 0 && len(run.Interrupts) == 0 && len(s.c.Answers) > 0 && !run.Left && customInterrupt(run.Events) {
			s.rep.causef(ProblemInterrupt, n, "run %d finished without an interrupt outcome, although the case answers interrupts: %s", n, customInterruptText)
		}
		if len(pending) == 0 && len(resumed) == 0 {
			if len(followUps) == 0 {
				s.view.AddMessages(added...)
				break
			}
			added = append(added, agui.UserMessage(s.ids.message(), followUps[0]))
			followUps = followUps[1:]
		}
		s.view.AddMessages(added...)
		if n >= maxRuns {
			s.rep.errorf(ProblemSettle, n, "run %d: the conversation has not settled after %s (MaxRuns); %s", n, words.Count(maxRuns, "run", "runs"), unsettled(pending, run.Interrupts))
			break
		}
		input = agui.RunAgentInput{
			ThreadID:       first.ThreadID,
			State:          s.view.State(),
			Messages:       requestMessages(s.view),
			Tools:          first.Tools,
			Context:        first.Context,
			ForwardedProps: first.ForwardedProps,
			Resume:         resumed,
		}
	}
	res.Messages = s.view.Messages()
	res.State = s.view.State()
	return res
}

// callName returns the name of the tool call with that id the client
// holds, or "".
func (s *session) callName(id string) string {
	for _, m := range s.view.Messages() {
		for _, tc := range m.ToolCalls {
			if tc.ID == id {
				return tc.Function.Name
			}
		}
	}
	return ""
}

// unsettled says what keeps a conversation going.
func unsettled(pending []pendingCall, interrupts []Interrupt) string {
	var parts []string
	if len(pending) > 0 {
		parts = append(parts, fmt.Sprintf("pending frontend calls: %v", pending))
	}
	if len(interrupts) > 0 {
		ids := make([]string, len(interrupts))
		for i, in := range interrupts {
			ids[i] = in.ID
		}
		parts = append(parts, fmt.Sprintf("interrupts answered: %s", strings.Join(ids, ", ")))
	}
	if len(parts) == 0 {
		return "follow-ups left"
	}
	return strings.Join(parts, "; ")
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

// firstInput is what the first run is asked: the case's RunAgentInput, or
// one made of its Input with its frontend tools declared, its messages
// without an id given one.
func (s *session) firstInput() agui.RunAgentInput {
	in := s.c.Input
	if in.RunAgentInput != nil {
		return *in.RunAgentInput
	}
	var decl []agui.Tool
	for _, tool := range s.c.Tools {
		decl = append(decl, agui.Tool{Name: tool.Name, Description: tool.Description, Parameters: tool.Parameters})
	}
	return agui.RunAgentInput{
		ThreadID:       s.ids.thread,
		State:          in.State,
		Messages:       s.ids.fill(in.Messages),
		Tools:          decl,
		Context:        in.Context,
		ForwardedProps: in.ForwardedProps,
	}
}

// post posts run n and verifies its stream as it arrives.
func (s *session) post(n int, input agui.RunAgentInput) RunResult {
	timeout := s.o.Timeout
	if timeout == 0 {
		timeout = time.Minute
	}
	rs := &runStream{s: s, n: n, run: RunResult{Input: input},
		v: agui.NewVerifier(agui.Options{Profile: s.c.Profile, Client: s.c.Client, Allow: s.c.Allow, Enable: s.c.Enable, Input: &input})}
	if s.rec != nil {
		rs.sink = &recorder.Sink{Run: input.RunID, Writer: s.rec}
		s.llm.record(rs.sink)
		if err := rs.sink.Request(input, nil); err != nil {
			s.rep.errorf(ProblemRecording, n, "run %d: recording: %v", n, err)
		}
		defer func() {
			if err := rs.sink.Close(); err != nil {
				s.rep.errorf(ProblemRecording, n, "run %d: recording: %v", n, err)
			}
		}()
	}
	ctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	if l := s.c.Leave; l != nil && l.run() == n {
		rs.leave = l
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		rs.stop = stop
		if l.Wait > 0 {
			t := time.AfterFunc(l.Wait, rs.goAway)
			defer t.Stop()
		}
	}
	err := s.r.run(ctx, input, receiver{response: rs.response, losses: rs.losses, frame: rs.frame, event: rs.event})
	rs.mu.Lock()
	rs.done = true
	left := rs.run.Left
	rs.mu.Unlock()
	if left {
		// The client closed the connection: what came is what the run
		// is, and its end is not the agent's to answer for.
		return rs.run
	}
	if err != nil && !errors.Is(err, errStopped) {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && s.ctx.Err() == nil {
			err = fmt.Errorf("the run did not end within %v (Options.Timeout; %s): %w", timeout, s.stall(rs), err)
		}
		rs.run.Err = err
		return rs.run
	}
	rs.violations(rs.v.Finish(), 0)
	rs.run.Interrupts = interrupts(rs.run.Events)
	return rs.run
}

// stall says how far a run that did not end had come: the events that
// came, and how often the agent had asked the model for the script's
// turns, which tells a hung model client from a hung agent.
func (s *session) stall(rs *runStream) string {
	rs.mu.Lock()
	n := len(rs.run.Events)
	var last agui.EventType
	if n > 0 {
		last = rs.run.Events[n-1].Type()
	}
	rs.mu.Unlock()
	came := "no event came"
	if n > 0 {
		came = fmt.Sprintf("%s came, the last %s", words.Count(n, "event", "events"), last)
	}
	asked := len(s.srv.Requests())
	return fmt.Sprintf("%s; the model was asked %s in all, for the script's %s", came, words.Count(asked, "time", "times"), words.Count(len(s.c.Script.Turns), "turn", "turns"))
}

// goAway makes the client leave the run (Case.Leave).
func (rs *runStream) goAway() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.done {
		return
	}
	rs.done = true
	rs.run.Left = true
	rs.stop()
}

// runStream is one run as it arrives, checked as it comes.
type runStream struct {
	s           *session
	n           int
	run         RunResult
	v           *agui.Verifier
	sink        *recorder.Sink
	viewStopped bool // the client stopped applying events

	mu   sync.Mutex // a Func agent may emit from its own goroutines
	done bool       // the run is over: what still comes is refused

	leave   *Leave             // when the client leaves (Case.Leave); nil: it stays
	counted int                // the events received that count towards leaving
	stop    context.CancelFunc // closes the connection when the client leaves
}

// violations reports the verifier's findings, the event's line when known.
func (rs *runStream) violations(vs []agui.Violation, line int) {
	for _, vi := range vs {
		rs.run.Violations = append(rs.run.Violations, vi)
		rs.s.rep.violation(rs.n, vi, fmt.Sprintf("run %d: %s", rs.n, describe(vi, line)))
	}
}

func (rs *runStream) response(status int, contentType string) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.violations(rs.v.Response(status, contentType), 0)
	return nil
}

func (rs *runStream) losses(e agui.Event, ls []agui.Loss) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.violations(rs.v.PushLosses(e, ls), 0)
	return nil
}

func (rs *runStream) frame(fe *agui.FrameError) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.done {
		return errStopped
	}
	for _, vi := range rs.v.PushFrame(fe) {
		rs.run.Violations = append(rs.run.Violations, vi)
		where := fmt.Sprintf("line %d", fe.Line)
		if fe.Line == 0 { // a protobuf frame
			where = fmt.Sprintf("byte %d", fe.Offset)
		}
		rs.s.rep.violation(rs.n, vi, fmt.Sprintf("run %d: frame %d at %s: %s: %s", rs.n, fe.Frame, where, vi.Rule, vi.Message))
	}
	return nil
}

func (rs *runStream) event(e agui.Event, line int) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.done {
		return errStopped
	}
	i := len(rs.run.Events)
	rs.run.Events = append(rs.run.Events, e)
	if f := rs.s.o.OnEvent; f != nil {
		f(rs.n, e)
	}
	if rs.sink != nil {
		if err := rs.sink.Emit(e); err != nil {
			rs.s.rep.errorf(ProblemRecording, rs.n, "run %d: event %d: recording: %v", rs.n, i+1, err)
		}
	}
	vs := rs.v.Push(e)
	rs.violations(vs, line)
	// The client's view: what it warns about is a bug the verifier does
	// not see; where it stops, the verifier has mostly said why already.
	view := rs.s.view
	warned := len(view.Warnings())
	if err := view.Apply(e); err != nil && !rs.viewStopped {
		rs.viewStopped = true
		if len(vs) == 0 {
			rs.s.rep.errorf(ProblemClient, rs.n, "run %d: event %d (%s): the client stops here: %v", rs.n, i+1, e.Type(), err)
		}
	}
	for _, w := range view.Warnings()[warned:] {
		rs.s.rep.errorf(ProblemClient, rs.n, "run %d: event %d (%s): %s", rs.n, i+1, w.Type, w.Message)
	}
	if rs.leave != nil && rs.leave.counts(e) {
		rs.counted++
	}
	if rs.leave != nil && rs.counted >= rs.leave.after() {
		rs.done = true
		rs.run.Left = true
		rs.stop()
		return errStopped
	}
	return nil
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
