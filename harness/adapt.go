package harness

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/aguitest/aguitest/golden"
)

// T is what Run and RunCase report on, and what a Case's Check is given:
// a *testing.T (or *testing.B) satisfies it, and so does testify's
// TestingT. The harness does not import package testing, so that the
// aguitest command, which runs cases through Test, links neither it nor
// its flags.
type T interface {
	Helper()
	Name() string
	Context() context.Context
	Log(args ...any)
	Logf(format string, args ...any)
	Error(args ...any)
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Fail()
	FailNow()
	Failed() bool
}

// TestingT is what Run needs of its t: T, and subtests. *testing.T is one:
// Run(t, ...) infers Sub as *testing.T.
type TestingT[Sub any] interface {
	T
	Run(name string, f func(t Sub)) bool
	Parallel()
}

// Run runs each case as a subtest of t against agent. opts holds the
// table's Options, at most one; none means the zero Options.
//
// For each case it serves the script from a fresh scripted LLM, starts the
// agent, posts the input, reads and verifies the event stream, and, as an
// AG-UI client does, runs the frontend tools the agent called and posts the
// next run (same thread, new run id) until the conversation settles. Then
// it checks that the script was used up, compares the golden file and runs
// the case's Check. Every problem is reported with the case, run, turn and
// event index; testing goes on wherever later checks still mean something.
//
// Run is Test for each case, reported on t (see RunCase), and then the
// case's Check, given the subtest's t; TestAll runs a table the same way
// without a testing.T.
func Run[Sub TestingT[Sub]](t Sub, agent Agent, cases []Case, opts ...Options) {
	t.Helper()
	if len(opts) > 1 {
		panic(fmt.Sprintf("harness: Run takes one Options, not %d", len(opts)))
	}
	var o Options
	if len(opts) == 1 {
		o = opts[0]
	}
	checkNames(cases)
	// A Command agent's programs are kept from case to case and stopped
	// when the last case is over: parallel cases end after Run returns.
	agent, stop := o.pool(agent, cases)
	var left atomic.Int64
	left.Store(int64(len(cases)))
	done := func() {
		if left.Add(-1) == 0 {
			stop()
		}
	}
	if len(cases) == 0 {
		stop()
	}
	for _, c := range cases {
		ran := false
		t.Run(c.Name, func(t Sub) {
			ran = true
			defer done()
			t.Helper()
			if o.Parallel {
				t.Parallel()
			}
			res := o.RunCase(t, agent, c)
			if c.Check != nil && res != nil {
				c.Check(t, res)
			}
		})
		if !ran {
			done() // left out by -run
		}
	}
}

// RunCase runs one case in t, without a subtest of its own, and returns
// its result; the case's Check is not called. Run uses it for each case;
// call it directly from a benchmark or a driver of your own. It returns nil
// when the case cannot run (a Tool without Run, a WantError whose Message
// is not a regular expression) or the agent could not be started; the
// failure is reported on t.
//
// It is Test reported on t: the case runs in t.Context(), its goldens are
// in a folder of Options.Dir named for the test (and its recording in one
// of RecordDir), "go test -update" rewrites them, and each problem is
// reported with t.Error when the case is over, on t's goroutine, at the
// line of the test that called Run: first what ended a run early (a
// RUN_ERROR the case does not expect, a request that failed), then the
// rest in the order found. An explored case logs what was explored
// (Exploration.String), which "go test -v" shows.
func (o Options) RunCase(t T, agent Agent, c Case) *Result {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	o.Dir = filepath.Join(o.dir(), top)
	if o.RecordDir != "" {
		o.RecordDir = filepath.Join(o.RecordDir, top)
	}
	o.Update = o.Update || golden.Update()
	c.Check = nil // Run calls it with t
	r := o.Test(t.Context(), agent, c)
	if x := r.Exploration; x != nil {
		t.Logf("explored: %v in %.2fs", x, x.Elapsed.Seconds())
	}
	for _, p := range r.Problems {
		t.Error(p.Text)
	}
	return r.Result
}
