package harness

import (
	"context"
	"encoding/json"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/golden"
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
	// Client names the @ag-ui/client version the verifier checks against
	// (agui.Options.Client): by default Strict requires every supported
	// version, Reference follows 1.0.0.
	Client agui.Client
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
	// Check runs extra checks over the result. Under Run, t is the case's
	// *testing.T; under Test, failures reported on t are the report's
	// problems (ProblemCheck).
	Check func(t T, r *Result)
	// MaxRuns bounds the runs of the case (frontend tool round trips and
	// follow-ups); 0 means 10.
	MaxRuns int
	// Accept, when set, replaces Options.Accept for this case.
	Accept string
	// Answers answer the interrupts of a run that finishes with the
	// outcome "interrupt", as a client must before the thread goes on:
	// the harness posts the next run with a resume entry for each
	// interrupt, from the first answer that matches it. An interrupt no
	// answer matches fails the case (ProblemInterrupt).
	Answers []Answer
	// Leave, when set, makes the client leave a run part way through, as
	// a user who closes the tab; the case goes on with its follow-ups.
	Leave *Leave
	// Explore, when set, also runs the case under many other plans of its
	// script and reports the first under which it fails, shrunk (see
	// Explore); nil leaves it to Options.Explore.
	Explore *Explore
	// Relax waives fidelity checks by name (FidelityText, FidelityCalls,
	// FidelityIDs), for an agent that legitimately rewrites the model's
	// text or keeps calls from the client; Options.Relax adds to it.
	Relax []Fidelity
	// IgnoreState names parts of the client's state, as JSON Pointers
	// into it ("/messages", "/steps/0/startedAt"; "*" for every element
	// of an array, "" for the whole state), that exploring the case
	// leaves out when it compares the client's view under each plan with
	// its reference: state the agent fills with what differs from one run
	// to the next (a timestamp, a framework's own copy of the messages).
	// Ids in the state are placeholders without it (see Explore).
	// Options.IgnoreState adds to it.
	IgnoreState []string
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
	// An explored case (Case.Explore) runs it for each plan, several
	// plans at once: it must be safe for concurrent use.
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
	// agent error, the timeout), or nil.
	Err error
	// Interrupts are the interrupts of the run's RUN_FINISHED, when it
	// finished with the outcome "interrupt"; the next run's Input.Resume
	// answers them.
	Interrupts []Interrupt
	// Left says the client left the run part way through (Case.Leave):
	// Events are what came before, and the end of the stream is not
	// verified.
	Left bool
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

// Options configures Run and Test. The zero value runs cases one after
// another and keeps goldens under testdata.
type Options struct {
	// Parallel runs the cases in parallel (t.Parallel under Run).
	Parallel bool
	// Dir is where golden files live; "" means "testdata". Run keeps each
	// test's goldens in a folder of Dir named for the test; Test keeps
	// them in Dir itself.
	Dir string
	// Update writes each case's golden file instead of comparing it.
	// Under Run, "go test -update" sets it too.
	Update bool
	// Timeout bounds each run; 0 means one minute.
	Timeout time.Duration
	// RecordDir, when set, keeps a recording of each case, all its runs
	// in one file: RecordDir/<TestName>/<case>.jsonl under Run,
	// RecordDir/<case>.jsonl under Test. "aguitest show" and
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

	// Explore explores every case of the table whose own Explore is nil
	// (see Explore).
	Explore *Explore
	// Relax waives fidelity checks by name for every case, as Case.Relax.
	Relax []Fidelity
	// IgnoreState leaves parts of the state out of every explored case's
	// comparisons, as Case.IgnoreState.
	IgnoreState []string
	// ModelAddr, when set, is a fixed loopback address ("127.0.0.1:7788")
	// on which the harness serves each case's scripted LLM, for a URL
	// agent started beforehand with its LLM client pointed at it
	// (http://ADDR/v1, or http://ADDR for clients that add the version).
	// Cases, and the plans of an explored case, then run one at a time.
	ModelAddr string

	// OnEvent, when set, is told of each event of each run (numbered
	// from 1) as the harness receives it, before it is checked: a live
	// view of the case, as "aguitest demo" prints it. Calls come one at a
	// time, in order, from the goroutine that reads the stream (or the
	// Func agent's); they must not block.
	OnEvent func(run int, e agui.Event)
	// OnProblem, when set, is told of each problem as it is found, in
	// the order found (a Report puts causes first), as OnEvent is called.
	OnProblem func(Problem)

	// thread is the thread id of the case's runs; "" means "thread-1".
	// Each plan of an exploration has its own, so that an agent that
	// keeps threads apart does not see one plan's conversation in
	// another's.
	thread string
}

// dir is the folder of the goldens.
func (o Options) dir() string {
	if o.Dir == "" {
		return "testdata"
	}
	return o.Dir
}
