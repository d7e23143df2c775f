package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/scripted"
)

// Report is what running one case gave, as values: its result and every
// problem found. Test returns one; Run reports one on a testing.T.
type Report struct {
	// Case is the case's name.
	Case string
	// Result is what the case produced; nil when it could not run (a Tool
	// without Run, a WantError that does not compile) or the agent could
	// not be started.
	Result *Result
	// Problems are what is wrong, causes first (what ended a run early:
	// a RUN_ERROR the case does not expect, a request that failed), then
	// the rest in the order found. None means the case passed.
	Problems []Problem
	// Recording is the file of the case's recording, when
	// Options.RecordDir is set and the case ran.
	Recording string
	// Exploration is what exploring the case found, when it was explored
	// (Case.Explore, Options.Explore); a failing plan is also one of
	// Problems (ProblemExplore).
	Exploration *Exploration
}

// Failed reports whether the case has problems.
func (r *Report) Failed() bool { return len(r.Problems) > 0 }

// Err returns the problems as one error, one per line, or nil.
func (r *Report) Err() error {
	errs := make([]error, len(r.Problems))
	for i, p := range r.Problems {
		errs[i] = errors.New(p.Text)
	}
	return errors.Join(errs...)
}

// Problem is one thing wrong with a case.
type Problem struct {
	// Kind says what the problem is about.
	Kind ProblemKind
	// Run is the run it concerns, numbered from 1; 0 when it concerns
	// the case as a whole.
	Run int
	// Cause says it ended a run early or explains what follows it.
	Cause bool
	// Violation is the verifier's finding, for a ProblemViolation.
	Violation *agui.Violation
	// Fidelity is the check that failed, for a ProblemFidelity.
	Fidelity Fidelity
	// Text says what is wrong and where, as Run reports it: "run 1: event
	// 11 (TOOL_CALL_END) [toolCallId=c2]: args-not-json: ...".
	Text string
}

// String returns the problem's Text.
func (p Problem) String() string { return p.Text }

// ProblemKind says what a Problem is about.
type ProblemKind string

// The kinds of problems.
const (
	// ProblemCase: the case cannot run (a Tool without Run, a WantError
	// that does not compile) or its agent cannot be started.
	ProblemCase ProblemKind = "case"
	// ProblemRun: a run could not complete (the request failed, the
	// stream could not be read, the run timed out).
	ProblemRun ProblemKind = "run"
	// ProblemRunError: a run ended with a RUN_ERROR the case does not
	// expect, or not the one it expects, or none ended as it expects.
	ProblemRunError ProblemKind = "run-error"
	// ProblemViolation: the verifier's finding on the response, a frame
	// or an event (Problem.Violation).
	ProblemViolation ProblemKind = "violation"
	// ProblemClient: the client's view (agui.View) stops at an event no
	// rule named, or warns about one, as HttpAgent does (a delta for no
	// message, a patch that does not apply).
	ProblemClient ProblemKind = "client"
	// ProblemSettle: the conversation did not settle within MaxRuns.
	ProblemSettle ProblemKind = "settle"
	// ProblemInterrupt: a run finished with an interrupt the case does not
	// answer (Case.Answers), or one past its expiry that it would resolve;
	// a client cannot go on with the thread.
	ProblemInterrupt ProblemKind = "interrupt"
	// ProblemModel: the scripted LLM was not used as scripted (turns
	// left unused, unexpected requests, failed request expectations).
	ProblemModel ProblemKind = "model"
	// ProblemGolden: the golden file differs or is missing.
	ProblemGolden ProblemKind = "golden"
	// ProblemRecording: the case's recording could not be written.
	ProblemRecording ProblemKind = "recording"
	// ProblemCheck: the case's Check reported a failure (under Test; under
	// Run it reports on the test's t).
	ProblemCheck ProblemKind = "check"
	// ProblemFidelity: what the scripted model said did not reach the
	// client as it said it (see Fidelity).
	ProblemFidelity ProblemKind = "fidelity"
	// ProblemExplore: the case fails under a plan of its exploration, or
	// cannot be explored; in PlanFailure.Problems, the client's view under
	// a plan differs from the reference's.
	ProblemExplore ProblemKind = "explore"
	// ProblemOutbound: a program under test (a CommandAgent) tried to
	// reach a host other than this machine (a hard-coded base URL, a
	// second model client, telemetry); it was refused. Each host tried
	// is one problem; CommandAgent.AllowHosts waives hosts by name.
	ProblemOutbound ProblemKind = "outbound"
)

// Test runs case c against agent and returns what it produced and what is
// wrong with it, as values: the core under Run, for the aguitest command,
// examples and tests of the harness's own failure output. It does what
// Run does for a case: it serves the script from a fresh scripted LLM, starts the agent, posts the
// input, reads and verifies the event stream, runs the frontend tools the
// agent called and posts the next run until the conversation settles,
// checks that the script was used up, compares the golden file, in o.Dir
// itself (written when o.Update is set), and runs the case's Check, whose
// failures are problems too. ctx bounds the whole case.
//
// Test never stops at a problem where later checks still mean something,
// and never panics on what the agent does; it is safe to call from several
// goroutines.
func (o Options) Test(ctx context.Context, agent Agent, c Case) Report {
	rep := &report{on: o.OnProblem}
	res := o.test(ctx, rep, agent, c)
	r := Report{Case: c.Name, Result: res}
	if x, asked := o.exploreOf(c); x != nil && res != nil {
		xp, ps := o.explore(ctx, agent, c, res, rep.problems(), *x, asked)
		for _, p := range ps {
			rep.add(p)
		}
		r.Exploration = xp
	}
	r.Problems = rep.problems()
	if o.RecordDir != "" && res != nil {
		r.Recording = o.recording(c.Name)
	}
	return r
}

// recording is the file of a case's recording under RecordDir.
func (o Options) recording(name string) string {
	return filepath.Join(o.RecordDir, goldenName(name)+".jsonl")
}

// TestAll runs each case of a table as Test does and returns their reports
// in the table's order; with o.Parallel, cases run at once, as many as
// GOMAXPROCS. It panics, as Run does, on a case with no name or two cases
// with one name.
func (o Options) TestAll(ctx context.Context, agent Agent, cases []Case) []Report {
	checkNames(cases)
	agent, stop := o.pool(agent, cases)
	defer stop()
	out := make([]Report, len(cases))
	if !o.Parallel {
		for i, c := range cases {
			out[i] = o.Test(ctx, agent, c)
		}
		return out
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, c := range cases {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			out[i] = o.Test(ctx, agent, c)
		})
	}
	wg.Wait()
	return out
}

// checkNames panics on a table whose cases cannot be told apart.
func checkNames(cases []Case) {
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
}

// test runs a case, reporting into rep.
func (o Options) test(ctx context.Context, rep *report, agent Agent, c Case) *Result {
	want, err := c.validate()
	if _, ferr := ParseFrontend(string(o.Frontend)); ferr != nil {
		err = errors.Join(err, fmt.Errorf("harness: Options.Frontend: %w", ferr))
	}
	if err != nil {
		rep.errorf(ProblemCase, 0, "%v", err)
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ids := newIDs(c.Name, o.plan)
	if in := c.Input.RunAgentInput; in != nil {
		ids.thread = in.ThreadID
		if in.RunID != "" {
			ids.runs[1] = in.RunID
		}
	}
	srv := scripted.NewServer(ids.resolve(c.Script))
	defer srv.Close()
	base := srv.URL
	var llm *llmProxy
	if o.RecordDir != "" {
		llm = newLLMProxy(srv.URL) // the recording holds the model's side too
		defer llm.close()
		base = llm.URL()
	}
	if o.ModelAddr != "" {
		release, err := useRelay(o.ModelAddr, base)
		if err != nil {
			rep.errorf(ProblemCase, 0, "%v", err)
			return nil
		}
		defer release()
		base = "http://" + o.ModelAddr + "/v1"
	}
	env := Env{BaseURL: base, APIKey: "aguitest", Model: srv.Model(), Case: c.Name}
	r, err := agent.start(ctx, env)
	if err != nil {
		rep.errorf(ProblemCase, 0, "starting the agent: %v", err)
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
		if err := os.MkdirAll(o.RecordDir, 0o755); err != nil {
			rep.errorf(ProblemRecording, 0, "recording: %v", err)
		} else if rec, err = recorder.Create(o.recording(c.Name), recorder.Header{Source: "harness"}); err != nil {
			rep.errorf(ProblemRecording, 0, "recording: %v", err)
		} else {
			defer func() {
				if err := rec.Close(); err != nil {
					rep.errorf(ProblemRecording, 0, "recording: %v", err)
				}
			}()
		}
	}
	s := &session{ctx: ctx, rep: rep, o: o, c: c, r: r, rec: rec, llm: llm, srv: srv, ids: ids}
	res := s.run()
	want.check(rep, res)

	if err := srv.Check(); err != nil {
		rep.errorf(ProblemModel, 0, "scripted LLM: %v", err)
	}
	if g, ok := r.(interface{ outbound() []Outbound }); ok {
		reportOutbound(rep, g.outbound())
	}
	res.Requests = srv.Requests()
	if c.WantError == nil && !rep.hasCauses() {
		checkFidelity(rep, &c.Script, res, append(slices.Clone(c.Relax), o.Relax...))
	}

	if !c.NoGolden {
		runs := make([]golden.Run, len(res.Runs))
		for i := range res.Runs {
			runs[i] = golden.Run{Input: &res.Runs[i].Input, Events: res.Runs[i].Events}
		}
		entries := golden.Normalizer{Scrubs: c.Scrubs}.NormalizeRuns(runs, c.Golden)
		if err := golden.Check(o.dir(), goldenName(c.Name), golden.Marshal(entries), o.Update); err != nil {
			rep.errorf(ProblemGolden, 0, "%v", err)
		}
	}
	if c.Check != nil {
		runCheck(ctx, rep, c, res)
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
	if _, err := ParseFrontend(string(c.Frontend)); err != nil {
		errs = append(errs, fmt.Errorf("harness: case %q: Frontend: %w", c.Name, err))
	}
	for _, p := range c.IgnoreState {
		if _, err := parsePointer(p); err != nil {
			errs = append(errs, fmt.Errorf("harness: case %q: IgnoreState: %w", c.Name, err))
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
