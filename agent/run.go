package agent

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aguitest/aguitest/agui"
)

// IDKind is the kind of id a Run allocates.
type IDKind string

// The kinds of ids a Run allocates.
const (
	IDMessage  IDKind = "msg"  // text, reasoning and tool-result messages
	IDToolCall IDKind = "call" // tool calls
)

// Options configures a Run. The zero value checks every event with the
// Strict profile of agui's Verifier and allocates ids from the run id.
type Options struct {
	// Verify configures the Verifier every event passes before it is
	// sent: the profile (Strict by default), rules waived (Allow) and
	// opt-in rules turned on (Enable). Its Input is set to the run's
	// input, so that results for calls of the history are known.
	// The checks the handles make themselves follow the same profile and
	// waivers.
	Verify agui.Options
	// NoVerify sends events without passing them through the Verifier.
	// The handles still refuse what they know to be wrong (arguments
	// after END, a second result, text after the run ended, ...); what
	// only the Verifier sees (a raw Emit out of order, an event that
	// breaks its schema) goes out unchecked. For measuring what the
	// Verifier costs, and for agents that trust their own tests.
	NoVerify bool
	// NewID allocates an id of a kind, n counting from 1 per kind within
	// the run. Nil means runID-kind-n ("run-1-msg-1", "run-1-call-1"),
	// the same on every run of the same input.
	NewID func(runID string, kind IDKind, n int) string
}

// Run is one AG-UI run as an agent emits it: RUN_STARTED when it starts,
// then messages, reasoning, tool calls, steps and state, each through a
// handle that emits only what the protocol allows, then RUN_FINISHED or
// RUN_ERROR. Every event passes the Verifier before it reaches the sink;
// a call that would emit a wrong event returns an *Error and sends
// nothing.
//
// A Run is safe for concurrent use: handles may be used from several
// goroutines, and the events reach the sink one at a time, in the order
// the calls took the run's lock.
type Run struct {
	mu    sync.Mutex
	in    agui.RunAgentInput
	sink  func(agui.Event) error
	v     *agui.Verifier
	opt   Options
	allow map[agui.Rule]bool

	nMsg, nCall int
	ended       agui.EventType // RUN_FINISHED or RUN_ERROR, once sent
	broken      error          // the Verifier refused an event
	gone        error          // the sink failed
	open        []handle       // handles not yet ended, in the order they opened
	msgIDs      map[string]bool
	callIDs     map[string]bool
	state       []byte // the state document the client holds, as JSON
}

// handle is something a run has open.
type handle interface{ describe() string }

// Start starts a run for in, sending RUN_STARTED to send, and returns it.
// send receives every event of the run, one at a time; an error from it
// means the client has gone, and every later call returns ErrGone.
func Start(in agui.RunAgentInput, send func(agui.Event) error, opt Options) (*Run, error) {
	r := &Run{in: in, sink: send, opt: opt, msgIDs: map[string]bool{}, callIDs: map[string]bool{}}
	if len(in.State) > 0 {
		r.state = slices.Clone([]byte(in.State))
	} else {
		r.state = []byte("{}") // what the client holds when it sent no state
	}
	if len(opt.Verify.Allow) > 0 {
		r.allow = map[agui.Rule]bool{}
		for _, rule := range opt.Verify.Allow {
			r.allow[rule] = true
		}
	}
	if !opt.NoVerify {
		vo := opt.Verify
		input := in
		vo.Input = &input
		r.v = agui.NewVerifier(vo)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.emit("Start", "", agui.NewRunStarted(in.ThreadID, in.RunID)); err != nil {
		return nil, err
	}
	return r, nil
}

// Input returns the run's input.
func (r *Run) Input() agui.RunAgentInput { return r.in }

// ThreadID returns the run's thread id.
func (r *Run) ThreadID() string { return r.in.ThreadID }

// RunID returns the run's id.
func (r *Run) RunID() string { return r.in.RunID }

// Tools returns the tools the client declared: what it can execute.
func (r *Run) Tools() []agui.Tool { return r.in.Tools }

// Offered reports whether the client declared a tool of that name. The
// tools list says what the client can run, not what the agent may call:
// the protocol lets an agent call tools no client offered (its own tools,
// render_a2ui). An agent that wants a stricter rule of its own checks
// Offered before it opens a call.
func (r *Run) Offered(name string) bool {
	_, ok := r.Tool(name)
	return ok
}

// Tool returns the declaration of the client's tool of that name.
func (r *Run) Tool(name string) (agui.Tool, bool) {
	for _, t := range r.in.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return agui.Tool{}, false
}

// Open lists what the run has open, each named with its id, in the order
// they opened.
func (r *Run) Open() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.openList()
}

func (r *Run) openList() []string {
	out := make([]string, len(r.open))
	for i, h := range r.open {
		out[i] = h.describe()
	}
	return out
}

// Emit sends an event the handles do not make (CUSTOM, RAW, ACTIVITY_*,
// MESSAGES_SNAPSHOT, or a stream shape of one's own). It passes the
// Verifier like every other event; since the handles do not follow it, a
// raw event that the Verifier refuses breaks the run (see ErrBroken).
func (r *Run) Emit(e agui.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.live("Run.Emit", ""); err != nil {
		return err
	}
	return r.emit("Run.Emit", "", e)
}

// Finish ends the run with RUN_FINISHED. Everything the run opened must
// have ended: with a message, reasoning, call or step still open it
// returns an *Error (RuleRunFinishedOpen) naming them and sends nothing.
func (r *Run) Finish() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.live("Run.Finish", ""); err != nil {
		return err
	}
	if len(r.open) > 0 && r.enforced(agui.RuleRunFinishedOpen) {
		return &Error{Op: "Run.Finish", Rule: agui.RuleRunFinishedOpen,
			Msg: "still open: " + strings.Join(r.openList(), ", ")}
	}
	return r.emit("Run.Finish", "", agui.NewRunFinished(r.in.ThreadID, r.in.RunID))
}

// Fail ends the run with RUN_ERROR; code may be "". It may be called with
// messages, calls or steps open (the client drops them), and after the
// Verifier refused an event. A run ends once: after RUN_FINISHED or
// RUN_ERROR it returns an *Error.
func (r *Run) Fail(message, code string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ending("Run.Fail"); err != nil {
		return err
	}
	return r.emit("Run.Fail", "", agui.NewRunError(message, code))
}

// End ends the run for an agent function's result: RUN_FINISHED for nil,
// RUN_ERROR otherwise, with a *Failure's message and code or the error's
// text. When Finish refuses (something is still open) End sends RUN_ERROR
// naming what is open, so that the stream still ends well, and returns
// Finish's error. A run already ended is left as it is.
func (r *Run) End(err error) error {
	r.mu.Lock()
	ended := r.ended != "" || r.gone != nil
	r.mu.Unlock()
	if ended {
		return nil
	}
	if err == nil {
		ferr := r.Finish()
		if ferr == nil || RuleOf(ferr) != agui.RuleRunFinishedOpen {
			return ferr
		}
		if fail := r.Fail("the agent ended its run with "+strings.Join(r.Open(), ", ")+" still open", "UNCLOSED"); fail != nil {
			return fail
		}
		return ferr
	}
	var f *Failure
	if !errors.As(err, &f) {
		f = &Failure{Message: err.Error()}
	}
	return r.Fail(f.Message, f.Code)
}

// Ended reports whether the run has sent RUN_FINISHED or RUN_ERROR.
func (r *Run) Ended() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended != ""
}

// ending checks that RUN_ERROR may be sent.
func (r *Run) ending(op string) error {
	if r.gone != nil {
		return r.gone
	}
	switch r.ended {
	case agui.RunFinished:
		return &Error{Op: op, Rule: agui.RuleAfterRunFinished, Msg: "the run has finished; it cannot fail after the client was told it succeeded"}
	case agui.RunError:
		return &Error{Op: op, Rule: agui.RuleAfterRunError, Msg: "the run has already ended with RUN_ERROR"}
	}
	return nil
}

// live checks that the run can still emit, before a handle builds its
// event. The caller holds r.mu.
func (r *Run) live(op, id string) error {
	if r.gone != nil {
		return r.gone
	}
	switch r.ended {
	case agui.RunFinished:
		return &Error{Op: op, ID: id, Rule: agui.RuleAfterRunFinished, Msg: "the run has finished"}
	case agui.RunError:
		return &Error{Op: op, ID: id, Rule: agui.RuleAfterRunError, Msg: "the run has ended with RUN_ERROR"}
	}
	return r.broken
}

// strictRules are the rules of the Strict profile the handles check
// themselves.
var strictRules = map[agui.Rule]bool{
	agui.RuleArgsNotJSON: true, agui.RuleDuplicateResult: true, agui.RuleReopenedID: true,
}

// enforced reports whether the handles refuse what breaks rule: the
// profile has it and it is not waived.
func (r *Run) enforced(rule agui.Rule) bool {
	if r.allow[rule] {
		return false
	}
	return !strictRules[rule] || r.opt.Verify.Profile == agui.Strict
}

// emit passes e through the Verifier and sends it. The caller holds r.mu
// and has checked live (or ending, for RUN_ERROR).
func (r *Run) emit(op, id string, e agui.Event) error {
	if r.v != nil {
		if vs := r.v.Push(e); len(vs) > 0 {
			err := &Error{Op: op, ID: id, Rule: vs[0].Rule, Msg: vs[0].Message, Violations: slices.Clone(vs)}
			if e.Type() != agui.RunError {
				r.broken = fmt.Errorf("%w: %w", ErrBroken, err)
			}
			return err
		}
	}
	if err := r.sink(e); err != nil {
		r.gone = fmt.Errorf("%w: %w", ErrGone, err)
		return r.gone
	}
	switch t := e.Type(); t {
	case agui.RunFinished, agui.RunError:
		r.ended = t
		r.open = nil
	}
	return nil
}

// newID allocates an id of a kind.
func (r *Run) newID(kind IDKind) string {
	var n int
	switch kind {
	case IDToolCall:
		r.nCall++
		n = r.nCall
	default:
		r.nMsg++
		n = r.nMsg
	}
	var id string
	if r.opt.NewID != nil {
		id = r.opt.NewID(r.in.RunID, kind, n)
	} else {
		id = r.in.RunID + "-" + string(kind) + "-" + strconv.Itoa(n)
	}
	return id
}

// claim takes an id for a new message (calls false) or call (calls true):
// allocated when id is "", else checked unused in the run.
func (r *Run) claim(op, id string, calls bool) (string, error) {
	ids, kind, rule := r.msgIDs, IDMessage, agui.RuleMessageOpen
	if calls {
		ids, kind, rule = r.callIDs, IDToolCall, agui.RuleToolCallOpen
	}
	if id == "" {
		for {
			id = r.newID(kind)
			if !ids[id] {
				break
			}
		}
	} else if ids[id] {
		if r.isOpen(id, calls) {
			return "", &Error{Op: op, ID: id, Rule: rule, Msg: "the id is already open"}
		}
		if r.enforced(agui.RuleReopenedID) {
			return "", &Error{Op: op, ID: id, Rule: agui.RuleReopenedID, Msg: "the id was used earlier in the run"}
		}
	}
	ids[id] = true
	return id, nil
}

func (r *Run) isOpen(id string, calls bool) bool {
	for _, h := range r.open {
		switch h := h.(type) {
		case *ToolCall:
			if calls && h.id == id {
				return true
			}
		case *Text:
			if !calls && h.id == id {
				return true
			}
		case *Reasoning:
			if !calls && h.id == id {
				return true
			}
		}
	}
	return false
}

func (r *Run) opened(h handle) { r.open = append(r.open, h) }

func (r *Run) closed(h handle) {
	if i := slices.Index(r.open, h); i >= 0 {
		r.open = slices.Delete(r.open, i, i+1)
	}
}

// ContentText returns a message's text: its text parts joined with
// newlines when it is made of parts. Bridges send it to models that take
// text.
func ContentText(c agui.Content) string {
	if !c.IsParts() {
		return c.Text
	}
	var parts []string
	for _, p := range c.Parts {
		if p.Type == "text" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}
