package harness

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/internal/testflags"
	"github.com/aguitest/aguitest/internal/words"
	"github.com/aguitest/aguitest/scripted"
)

// Explore asks for a case to be explored (Case.Explore, or Options.Explore
// for every case of a table): run, besides its own plan, under many other
// plans of its script, which change only how the model's answers stream
// (see scripted.Explore): first a systematic matrix of splits, orders, id
// styles and the stream shapes of known integration bugs, then seeded
// random plans, as many as the budget allows, and only plans that every
// wire the agent used can express.
//
// What must hold under every plan: each run passes the case's verifier
// profile, the fidelity checks pass, and the client's view (the messages
// and state it assembles, ids as placeholders, parallel calls in a
// canonical order) is the one the case's own plan gives. Plans that start
// the text or reasoning of a turn elsewhere relative to its calls (text
// after the calls is another message after them) are compared with the
// plain plan of their layout instead: every stream whole, one after the
// other, in that order (scripted.Script.Plain). The golden file is
// compared once, for the case's own plan.
//
// The first plan under which the case fails is shrunk to the smallest
// script that still fails (fewest calls the script allows, simplest plan,
// fewest fragments, fewest interleavings; see scripted.Simplify) and
// reported as one problem (ProblemExplore) with what fails under it and
// the script as a Go literal and in the script file format, to paste into
// the case, with the seed: the same seed gives the same plans on every
// machine.
//
// In a test binary, two flags override the budget and seed of every
// explored case, so that CI runs a small budget and a nightly job a large
// one (see FlagPlans and FlagSeed):
//
//	go test -run TestAgent -args -aguitest.explore=500 -aguitest.seed=7
//
// Every test binary that links the harness has them (package
// internal/testflags registers them, in test binaries only).
type Explore struct {
	// Plans is how many plans to run besides the case's own: the matrix
	// first, the stream shapes of known integration bugs at its head
	// (about forty plans in all, fewer for a script that does not need
	// them all), then random ones; 0 means DefaultPlans.
	Plans int
	// Seed draws the random plans; 0 means 1.
	Seed uint64
	// Parallel is how many plans run at once; 0 means GOMAXPROCS. A URL
	// agent, and any agent under Options.ModelAddr, runs one plan at a
	// time.
	Parallel int
	// Off turns exploration off for the case (Case.Explore) or the table
	// (Options.Explore): only the case's own plan runs.
	Off bool
	// NoShrink reports the first failing plan as found, not shrunk.
	NoShrink bool
	// ShrinkRuns bounds the runs of the agent that shrinking makes; 0
	// means DefaultShrinkRuns.
	ShrinkRuns int
}

// The defaults of Explore. DefaultPlans is the small budget every case is
// explored with unless it says otherwise: the known bugs' shapes and the
// rest of the matrix for most scripts, a few milliseconds for a Func or
// Handler agent, a run of the program per plan for a Command agent.
const (
	DefaultPlans      = 30
	DefaultShrinkRuns = 300
)

// The flags of a test binary that override Explore.Plans and Explore.Seed
// of every explored case. They are registered in every test binary that
// links the harness, and in no other program.
const (
	FlagPlans = testflags.PlansName
	FlagSeed  = testflags.SeedName
)

// Exploration is what exploring a case found (Report.Exploration).
type Exploration struct {
	// Wires are the wires the agent used under the case's own plan;
	// scripted.Wire("") stands for the Go-native model. The plans run
	// are those every one of them can express.
	Wires []scripted.Wire
	// Seed is the seed of the random plans.
	Seed uint64
	// Plans is the number of plans run besides the case's own, Matrix
	// of them from the systematic matrix, and References the plain plans
	// run to compare plans of another layout with.
	Plans, Matrix, References int
	// Failed names the plans under which the case failed, as
	// scripted.Variant.String says them, in the order run.
	Failed []string
	// AsOwn is how many of them fail as the case's own plan does, with
	// no other problem: said once, not as a failure of their own.
	AsOwn int
	// Failures are the kinds of failure the other plans found, the first
	// plan of each shrunk, in the order found (at most four; the report
	// names the others).
	Failures []*PlanFailure
	// Failure is the first of Failures; nil when there is none.
	Failure *PlanFailure
	// Elapsed is how long running the plans took, and Shrinking how long
	// shrinking the failure took.
	Elapsed, Shrinking time.Duration
}

// PlanFailure is a plan under which a case fails, shrunk.
type PlanFailure struct {
	// Found is the plan as found, as scripted.Variant.String says it.
	Found string
	// What says in words what fails under it beyond the case's own
	// plan's problems: "the verifier's rule args-not-json", "the fidelity
	// check calls", "a client's view other than the reference's".
	What string
	// Plans names every plan that fails so, in the order run.
	Plans []string
	// Script is the smallest failing script the shrinking found: the
	// case's script (fewer calls when the case's own plan still passes
	// without them), each turn streamed as it fails. Script.GoString and
	// Script.YAML write it to paste into a case or a script file.
	Script scripted.Script
	// Steps are the simplifications that led from Found to Script.
	Steps []string
	// Runs is how many runs of the agent shrinking made.
	Runs int
	// Problems are what is wrong under Script: its own problems
	// (violations, fidelity, ...), and, when the client's view differs
	// from the reference's, one ProblemExplore saying how.
	Problems []Problem

	shrunk bool // Script streams otherwise than Found
}

// exploreOf returns the exploration of the case, or nil when it is off,
// and whether the case or the options asked for it (asked is false for
// the default exploration of a case that says nothing).
func (o Options) exploreOf(c Case) (x *Explore, asked bool) {
	x = c.Explore
	if x == nil {
		x = o.Explore
	}
	asked = x != nil
	if x == nil {
		x = &Explore{}
	}
	e := *x
	if e.Off {
		return nil, asked
	}
	if e.Plans <= 0 {
		e.Plans = DefaultPlans
	}
	if e.Seed == 0 {
		e.Seed = 1
	}
	if n, ok := testflags.Plans(); ok {
		if n == 0 {
			return nil, asked
		}
		e.Plans, asked = int(n), true
	}
	if n, ok := testflags.Seed(); ok && n > 0 {
		e.Seed = n
	}
	if e.ShrinkRuns <= 0 {
		e.ShrinkRuns = DefaultShrinkRuns
	}
	if e.Parallel <= 0 {
		e.Parallel = runtime.GOMAXPROCS(0)
	}
	return &e, asked
}

// planRun is one run of a case under a script.
type planRun struct {
	name     string
	script   scripted.Script
	problems []Problem
	res      *Result
	entries  []golden.Entry
}

// failed reports whether the run has problems of its own.
func (r *planRun) failed() bool { return len(r.problems) > 0 }

// explorer explores one case.
type explorer struct {
	o     Options
	ctx   context.Context
	agent Agent
	c     Case
	x     Explore
	wires []scripted.Wire
	runs  atomic.Int64

	mu     sync.Mutex
	memo   map[string]*memoRun // runs by script key
	layout string              // of the case's own script
	need   map[string]bool     // what the failure being shrunk must keep
	ignore [][]string          // the state left out of the comparisons
}

type memoRun struct {
	once sync.Once
	run  *planRun
}

// explore runs case c, whose own plan gave own, under the plans x asks
// for. It returns nil when the case has nothing to explore, and when the
// case cannot be explored and did not ask to be (asked: the exploration
// is the default's; it says nothing of a case it cannot do).
func (o Options) explore(ctx context.Context, agent Agent, c Case, own *Result, ownProblems []Problem, x Explore, asked bool) (*Exploration, []Problem) {
	if len(c.Script.Turns) == 0 {
		return nil, nil
	}
	fail := func(format string, args ...any) (*Exploration, []Problem) {
		if !asked {
			return nil, nil
		}
		return nil, []Problem{{Kind: ProblemExplore, Text: "explore: " + fmt.Sprintf(format, args...)}}
	}
	if own == nil {
		return nil, nil // the case could not run: reported already
	}
	if _, ok := agent.(urlAgent); ok && o.ModelAddr == "" {
		return fail("a URL agent's model is not the case's scripted LLM, so no plan of the script reaches it: start the agent with its LLM client pointed at a fixed address and set Options.ModelAddr to it")
	}
	if len(own.Requests) == 0 {
		return fail("the agent made no request to the scripted LLM under the case's own plan, so no plan can change what it is told")
	}
	if _, ok := agent.(urlAgent); ok || o.ModelAddr != "" {
		x.Parallel = 1 // one agent, one model address: one plan at a time
	}
	ignore, err := o.ignoreState(c)
	if err != nil {
		return nil, []Problem{{Kind: ProblemExplore, Text: "explore: Options." + err.Error()}}
	}
	// One program serves plan after plan, restarted only after a failed
	// run (a pooled agent is kept as it is).
	agent, stop := Pool(agent, x.Parallel)
	defer stop()
	e := &explorer{o: o.forPlans(), ctx: ctx, agent: agent, c: c, x: x, memo: map[string]*memoRun{}, ignore: ignore}
	e.wires = wiresOf(own.Requests)
	e.layout = c.Script.Layout(e.wires)
	ownRun := &planRun{name: "the case's own plan", script: c.Script, res: own, entries: viewEntries(own, c.Scrubs, ignore)}
	for _, p := range ownProblems {
		if p.Kind != ProblemGolden && p.Kind != ProblemRecording && p.Kind != ProblemCheck {
			ownRun.problems = append(ownRun.problems, p)
		}
	}
	e.memo[c.Script.Key(e.wires)] = &memoRun{run: ownRun}
	e.memo[c.Script.Key(e.wires)].once.Do(func() {})

	start := time.Now()
	variants := scripted.Explore(c.Script, e.wires, x.Seed, x.Plans)
	xp := &Exploration{Wires: e.wires, Seed: x.Seed, Plans: len(variants)}
	var jobs []func()
	runs := make([]*planRun, len(variants))
	refs := map[string]scripted.Script{}
	for i, v := range variants {
		if strings.HasPrefix(v.Name, "matrix") {
			xp.Matrix++
		}
		jobs = append(jobs, func() { runs[i] = e.run(planLabel(v), v.Script) })
		if l := v.Script.Layout(e.wires); l != e.layout {
			if _, ok := refs[l]; !ok {
				refs[l] = v.Script.Plain(e.wires)
			}
		}
	}
	for l, s := range refs {
		jobs = append(jobs, func() { e.run(referenceName(l), s) })
	}
	e.pool(jobs)
	xp.References = len(refs)
	xp.Elapsed = time.Since(start)

	type failure struct {
		run  *planRun
		v    *verdict
		name string
	}
	var failures []failure
	seenRef := map[string]bool{}
	for i, v := range variants {
		r := runs[i]
		ref := e.reference(v.Script, c.Script)
		if ref != nil && ref.failed() && ref != ownRun && !seenRef[ref.name] {
			seenRef[ref.name] = true
			failures = append(failures, failure{ref, &verdict{run: ref}, ref.name})
		}
		if vd := e.judge(r, ref); vd != nil {
			failures = append(failures, failure{r, vd, planLabel(v)})
		}
	}
	if len(failures) == 0 {
		return xp, nil
	}
	// Each kind of failure once: the plans that fail as the case's own
	// plan does are said together, the others grouped by what fails
	// (the rules, fidelity checks and kinds of problem beyond the own
	// plan's), each group's first failure shrunk.
	ownKeys := ownRun.keys()
	var groups []*failureGroup
	for _, f := range failures {
		xp.Failed = append(xp.Failed, f.name)
		extra := map[string]bool{}
		for k := range f.v.keys() {
			if !ownKeys[k] {
				extra[k] = true
			}
		}
		if len(extra) == 0 {
			xp.AsOwn++
			continue
		}
		key := keyString(extra)
		i := slices.IndexFunc(groups, func(g *failureGroup) bool { return g.key == key })
		if i < 0 {
			groups = append(groups, &failureGroup{key: key, extra: extra, run: f.run, v: f.v, name: f.name})
			i = len(groups) - 1
		}
		groups[i].names = append(groups[i].names, f.name)
	}
	var problems []Problem
	if xp.AsOwn > 0 {
		others := ""
		if len(groups) == 0 {
			others = "; no other failure"
		}
		problems = append(problems, Problem{Kind: ProblemExplore, Text: fmt.Sprintf("explore: the case's own plan fails (above), and %d of the %s %s as it does%s",
			xp.AsOwn, words.Count(xp.Plans+xp.References, "other plan", "other plans"), plural(xp.AsOwn, "fails", "fail"), others)})
	}
	start = time.Now()
	for i, g := range groups {
		if i == maxFailureKinds {
			problems = append(problems, Problem{Kind: ProblemExplore, Text: fmt.Sprintf("explore: and %s of failure, not shrunk: %s", words.Count(len(groups)-i, "other kind", "other kinds"), failureKinds(groups[i:]))})
			break
		}
		e.need = g.extra
		pf := e.shrinkFailure(g, c, x)
		xp.Failures = append(xp.Failures, pf)
		problems = append(problems, Problem{Kind: ProblemExplore, Text: xp.describe(pf)})
	}
	if len(xp.Failures) > 0 {
		xp.Failure = xp.Failures[0]
	}
	xp.Shrinking = time.Since(start)
	return xp, problems
}

// maxFailureKinds is how many kinds of failure an exploration shrinks and
// reports in full; the others are named.
const maxFailureKinds = 4

// failureGroup is the plans of an exploration that fail alike: with the
// same problems beyond the case's own plan's.
type failureGroup struct {
	key   string          // keyString(extra)
	extra map[string]bool // what fails beyond the own plan's problems
	run   *planRun        // the first of them
	v     *verdict
	name  string
	names []string // every one of them, in the order run
}

// failureKinds names the kinds of failure of groups.
func failureKinds(groups []*failureGroup) string {
	var out []string
	for _, g := range groups {
		out = append(out, fmt.Sprintf("%s (%s, the first %s)", kindWords(g.extra), words.Count(len(g.names), "plan", "plans"), g.name))
	}
	return strings.Join(out, "; ")
}

// shrinkFailure shrinks the first failure of group g.
func (e *explorer) shrinkFailure(g *failureGroup, c Case, x Explore) *PlanFailure {
	pf := &PlanFailure{Found: g.name, Script: g.run.script, What: kindWords(g.extra), Plans: slices.Clone(g.names)}
	final := g.v
	start0, own0 := g.run.script, c.Script
	if g.run.res != nil {
		// Calls generated from the agent's tools become the script's own,
		// so that shrinking can make their arguments smaller.
		if m := start0.Materialize(g.run.res.Requests); m.Key(e.wires) != start0.Key(e.wires) {
			mo := c.Script.PinGenerated(start0).Materialize(g.run.res.Requests)
			if vd := e.tryStep(scripted.Simplification{Script: m, Own: mo}); e.failsAs(vd, g.v) {
				start0, own0, final = m, mo, vd
				pf.Script = m
			}
		}
	}
	if !x.NoShrink {
		final = e.shrink(start0, own0, final, pf)
	}
	pf.shrunk = pf.Script.Key(e.wires) != g.run.script.Key(e.wires)
	pf.Script = pf.Script.Tidy(e.wires)
	pf.Problems = final.problems()
	return pf
}

// forPlans returns the options plan runs are made with: no golden, no
// recording, no live callbacks.
func (o Options) forPlans() Options {
	o.Update = false
	o.RecordDir = ""
	o.OnEvent = nil
	o.OnProblem = nil
	o.Explore = nil
	return o
}

// wiresOf returns the wires of the requests, each once, in order.
func wiresOf(reqs []scripted.Request) []scripted.Wire {
	var out []scripted.Wire
	for _, r := range reqs {
		if !slices.Contains(out, r.Wire) {
			out = append(out, r.Wire)
		}
	}
	return out
}

// pool runs the jobs, at most x.Parallel at once.
func (e *explorer) pool(jobs []func()) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(e.x.Parallel, 1))
	for _, job := range jobs {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			job()
		})
	}
	wg.Wait()
}

// run runs the case under script s, once per script: a script run before
// gives the same run.
func (e *explorer) run(name string, s scripted.Script) *planRun {
	key := s.Key(e.wires)
	e.mu.Lock()
	m, ok := e.memo[key]
	if !ok {
		m = &memoRun{}
		e.memo[key] = m
	}
	e.mu.Unlock()
	m.once.Do(func() {
		e.runs.Add(1)
		c := e.c
		c.Script = s
		c.NoGolden = true
		c.Explore = nil
		c.Check = nil
		o := e.o
		o.plan = fmt.Sprintf("seed %d, %s", e.x.Seed, key)
		rep := &report{}
		res := o.test(e.ctx, rep, e.agent, c)
		r := &planRun{name: name, script: s, res: res, problems: rep.problems()}
		if res != nil {
			r.entries = viewEntries(res, c.Scrubs, e.ignore)
		}
		m.run = r
	})
	return m.run
}

// reference returns the run the view of s is compared with: the run of
// own (the case's own script with the content of s) when s has its
// layout, the run of the plain plan of the layout of s otherwise. It runs
// what it needs.
//
// Calls generated from the agent's tools (scripted.Generate) are drawn
// from each plan's seed: the reference generates the same ones.
func (e *explorer) reference(s, own scripted.Script) *planRun {
	if s.Layout(e.wires) == own.Layout(e.wires) {
		return e.run("the case's own plan", own.PinGenerated(s))
	}
	return e.run(referenceName(s.Layout(e.wires)), s.Plain(e.wires).PinGenerated(s))
}

// planLabel names a plan of the exploration in words: "matrix plan 3
// (4-byte fragments, each call's arguments starting in its first chunk;
// calls interleaved)".
func planLabel(v scripted.Variant) string {
	kind, n, _ := strings.Cut(v.Name, " ")
	return kind + " plan " + n + " (" + v.Script.Words() + ")"
}

// referenceName names the plain plan of a layout, the reference of the
// plans of that layout.
func referenceName(layout string) string {
	return "the reference plan for " + layoutWords(layout) + " (each stream whole, one after the other)"
}

// verdict is why a run fails: its own problems, or a view that differs
// from its reference's.
type verdict struct {
	run  *planRun
	ref  *planRun
	diff []golden.Difference
}

// keys returns what the verdict finds wrong: the keys of its run's
// problems (see problemKey), and "view" when the view differs.
func (v *verdict) keys() map[string]bool {
	out := v.run.keys()
	if len(v.diff) > 0 {
		out["view"] = true
	}
	return out
}

// keys returns the keys of the run's problems (see problemKey).
func (r *planRun) keys() map[string]bool {
	out := map[string]bool{}
	for _, p := range r.problems {
		out[problemKey(p)] = true
	}
	return out
}

// problemKey says what kind of failure a problem is, finely enough to
// tell failures apart: the verifier's rule, the fidelity check, or the
// problem's kind.
func problemKey(p Problem) string {
	switch {
	case p.Kind == ProblemViolation && p.Violation != nil:
		return "rule " + string(p.Violation.Rule)
	case p.Kind == ProblemFidelity && p.Fidelity != "":
		return "fidelity " + string(p.Fidelity)
	}
	return string(p.Kind)
}

// keyString is a set of keys, sorted, as one string.
func keyString(keys map[string]bool) string {
	out := make([]string, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// kindWords says a set of keys in words, after "fail": "the verifier's
// rule args-not-json and the fidelity check calls".
func kindWords(keys map[string]bool) string {
	var rules, checks, other []string
	for _, k := range strings.Split(keyString(keys), ", ") {
		switch {
		case strings.HasPrefix(k, "rule "):
			rules = append(rules, strings.TrimPrefix(k, "rule "))
		case strings.HasPrefix(k, "fidelity "):
			checks = append(checks, strings.TrimPrefix(k, "fidelity "))
		case k == "view":
			other = append(other, "the comparison with the reference's view")
		default:
			other = append(other, "with "+kindPhrase(ProblemKind(k)))
		}
	}
	var out []string
	if len(rules) > 0 {
		out = append(out, "the verifier's "+plural(len(rules), "rule ", "rules ")+strings.Join(rules, ", "))
	}
	if len(checks) > 0 {
		out = append(out, "the fidelity "+plural(len(checks), "check ", "checks ")+strings.Join(checks, ", "))
	}
	return strings.Join(append(out, other...), " and ")
}

// kindPhrase says a kind of problem in words.
func kindPhrase(k ProblemKind) string {
	switch k {
	case ProblemRun:
		return "a run that could not complete"
	case ProblemRunError:
		return "a RUN_ERROR"
	case ProblemClient:
		return "the client's warnings"
	case ProblemModel:
		return "the scripted LLM not used as scripted"
	case ProblemSettle:
		return "a conversation that does not settle"
	case ProblemInterrupt:
		return "an interrupt left unanswered"
	case ProblemOutbound:
		return "a request to another host"
	case ProblemViolation:
		return "the verifier's findings"
	case ProblemFidelity:
		return "a fidelity check"
	}
	return "a problem of kind " + string(k)
}

// failsAs reports whether v fails as the failure being shrunk does: with
// no kind of failure that failure lacks, and with one at least of those
// that tell its group from the case's own plan (e.need). A step that
// fails otherwise (the agent's model request failed, a run timed out
// under load) is not the same failure made smaller, and shrinking does
// not follow it.
func (e *explorer) failsAs(v, failing *verdict) bool {
	if v == nil {
		return false
	}
	want := failing.keys()
	need := len(e.need) == 0
	for k := range v.keys() {
		if !want[k] {
			return false
		}
		need = need || e.need[k]
	}
	return need
}

// problems returns the verdict as problems: the run's, and one saying how
// the view differs.
func (v *verdict) problems() []Problem {
	out := slices.Clone(v.run.problems)
	if len(v.diff) > 0 {
		out = append(out, Problem{Kind: ProblemExplore, Text: v.diffText()})
	}
	return out
}

// diffText says how the view differs from the reference's.
func (v *verdict) diffText() string {
	var b strings.Builder
	verb := "differ"
	if len(v.diff) == 1 {
		verb = "differs"
	}
	fmt.Fprintf(&b, "the client's view differs from that of %s (-%s +this plan; %s of the view, numbered from 1, %s):", v.ref.name, v.ref.name, words.Count(len(v.diff), "entry", "entries"), verb)
	b.WriteString("\n" + indent(strings.TrimRight(golden.Report(v.diff[:1]), "\n"), "\t"))
	if len(v.diff) > 1 {
		fmt.Fprintf(&b, "\n\t(and %s more)", words.Count(len(v.diff)-1, "entry", "entries"))
	}
	return b.String()
}

// judge returns why r fails against its reference ref, or nil when it
// passes. A reference that fails itself is no measure of r's view.
func (e *explorer) judge(r, ref *planRun) *verdict {
	if r.failed() {
		return &verdict{run: r, ref: ref}
	}
	if e.c.WantError != nil {
		// A run the case expects to end with RUN_ERROR ends where its
		// error strikes, which the plan may move: only its verdict
		// counts.
		return nil
	}
	if ref == nil || ref.failed() || r.res == nil || ref.res == nil {
		return nil
	}
	if d := golden.Compare(ref.entries, r.entries); len(d) > 0 {
		return &verdict{run: r, ref: ref, diff: d}
	}
	return nil
}

// shrink makes the failing script s (own: the case's own script with its
// content) as simple as it can while it still fails, recording the steps
// in pf, and returns the verdict of the last failing script.
func (e *explorer) shrink(s, own scripted.Script, failing *verdict, pf *PlanFailure) *verdict {
	start := e.runs.Load()
	defer func() { pf.Runs = int(e.runs.Load() - start) }()
	cur, curOwn, curKey := s, own, s.Key(e.wires)
	for steps := 0; int(e.runs.Load()-start) < e.x.ShrinkRuns && steps < 4*e.x.ShrinkRuns; steps++ {
		var cands []scripted.Simplification
		for _, st := range scripted.Simplify(cur, curOwn) {
			if validOn(&st.Script, e.wires) && validOn(&st.Own, e.wires) {
				cands = append(cands, st)
			}
		}
		next := -1
		var found *verdict
		for i := 0; i < len(cands) && next < 0; {
			// The same stream written otherwise fails as it does; a
			// step that changes nothing is no step.
			if k := cands[i].Script.Key(e.wires); k == curKey {
				if cands[i].Rewrites {
					next, found = i, failing
					break
				}
				i++
				continue
			}
			n := min(shrinkBatch, len(cands)-i)
			verdicts := make([]*verdict, n)
			jobs := make([]func(), n)
			for j := range n {
				st := cands[i+j]
				jobs[j] = func() { verdicts[j] = e.tryStep(st) }
			}
			e.pool(jobs)
			for j, vd := range verdicts {
				if e.failsAs(vd, failing) {
					next, found = i+j, vd
					break
				}
			}
			i += n
			if int(e.runs.Load()-start) >= e.x.ShrinkRuns {
				break
			}
		}
		if next < 0 {
			break
		}
		st := cands[next]
		cur, curOwn, curKey, failing = st.Script, st.Own, st.Script.Key(e.wires), found
		if !st.Rewrites {
			pf.Steps = append(pf.Steps, st.What)
		}
	}
	// A turn the failure does not need streams as the case has it.
	for i := range cur.Turns {
		if int(e.runs.Load()-start) >= e.x.ShrinkRuns {
			break
		}
		v := cur.Clone()
		v.Turns[i] = curOwn.Turns[i]
		if v.Key(e.wires) == curKey || !validOn(&v, e.wires) {
			continue
		}
		if vd := e.tryStep(scripted.Simplification{Script: v, Own: curOwn}); e.failsAs(vd, failing) {
			cur, curKey, failing = v, v.Key(e.wires), vd
			// The steps that shaped the turn's plan are undone.
			prefix := fmt.Sprintf("turn %d: ", i+1)
			pf.Steps = slices.DeleteFunc(pf.Steps, func(st string) bool {
				return strings.HasPrefix(st, prefix) && !strings.HasPrefix(st, prefix+"without call")
			})
		}
	}
	pf.Script = cur
	return failing
}

// shrinkBatch is how many simplifications are tried at once. It is fixed,
// not the number of processors, so that a shrink makes the same runs, and
// reports the same figures, on every machine.
const shrinkBatch = 4

// tryStep returns why the script of a step fails, or nil when it passes
// or is not allowed (it drops a call the case's own plan cannot do
// without).
func (e *explorer) tryStep(st scripted.Simplification) *verdict {
	if st.DropsCall {
		if own := e.run("the case's own plan without a call", st.Own); own.failed() {
			return nil
		}
	}
	r := e.run("the shrunk plan", st.Script)
	return e.judge(r, e.reference(st.Script, st.Own))
}

// validOn reports whether s is valid and every wire can express it.
func validOn(s *scripted.Script, wires []scripted.Wire) bool {
	if s.Validate() != nil {
		return false
	}
	for _, w := range wires {
		if w != "" && s.ValidateWire(w, true) != nil {
			return false
		}
	}
	return true
}

// String says what was explored: "the case's own plan and 33 others (23
// from the matrix, 7 random from seed 1, 3 references for other layouts;
// wire: Go-native)".
func (x *Exploration) String() string {
	return fmt.Sprintf("the case's own plan and %d %s (%s)", x.Plans+x.References, plural(x.Plans+x.References, "other", "others"), x.counts())
}

// counts says where the other plans come from, and the wires.
func (x *Exploration) counts() string {
	wires := make([]string, len(x.Wires))
	for i, w := range x.Wires {
		wires[i] = w.String()
	}
	s := fmt.Sprintf("%d from the matrix, %d random from seed %d", x.Matrix, x.Plans-x.Matrix, x.Seed)
	if x.References > 0 {
		s += fmt.Sprintf(", %s for other layouts", words.Count(x.References, "reference", "references"))
	}
	return fmt.Sprintf("%s; %s %s", s, plural(len(wires), "wire:", "wires:"), strings.Join(wires, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// describe writes a kind of failure the exploration found as a problem's
// text.
func (x *Exploration) describe(f *PlanFailure) string {
	var b strings.Builder
	fmt.Fprintf(&b, "explore: %d of the %s (%s) %s %s:",
		len(f.Plans), words.Count(x.Plans+x.References, "other plan", "other plans"), x.counts(), plural(len(f.Plans), "fails", "fail"), f.What)
	const shown = 5
	for i, name := range f.Plans {
		if i == shown {
			fmt.Fprintf(&b, "\n\t... and %d more", len(f.Plans)-shown)
			break
		}
		b.WriteString("\n\t" + name)
	}
	switch {
	case f.Runs == 0:
		fmt.Fprintf(&b, "\nthe first, %s, fails so:", f.Found)
	case !f.shrunk:
		fmt.Fprintf(&b, "\nthe first, %s, is as simple as shrinking found (%s), and fails so:", f.Found, words.Count(f.Runs, "run", "runs"))
	default:
		fmt.Fprintf(&b, "\nthe first, %s, shrunk in %s", f.Found, words.Count(f.Runs, "run", "runs"))
		if len(f.Steps) > 0 {
			b.WriteString(":")
		}
		for _, s := range f.Steps {
			b.WriteString("\n\t" + s)
		}
		fmt.Fprintf(&b, "\nfails so, under %s:", f.Script.Plans())
	}
	for _, p := range f.Problems {
		b.WriteString("\n" + indent(p.Text, "\t"))
	}
	b.WriteString("\nthe smallest failing script, to paste into the case:\n")
	b.WriteString(indent(f.Script.GoString(), "\t"))
	b.WriteString("\nor into a script file:\n")
	b.WriteString(indent(strings.TrimRight(f.Script.YAML(), "\n"), "\t"))
	fmt.Fprintf(&b, "\nthe same plans again: seed %d, %d plans (go test -args -%s=%d -%s=%d; aguitest explore --seed %d --plans %d)", x.Seed, x.Plans, FlagSeed, x.Seed, FlagPlans, x.Plans, x.Seed, x.Plans)
	return b.String()
}

// layoutWords says a layout (scripted.Script.Layout) in words: "#1 #2
// (no index) | text" is "turn 1: call 1, then call 2, sent without their
// index; turn 2: text".
func layoutWords(l string) string {
	turns := strings.Split(l, " | ")
	for i, t := range turns {
		var parts []string
		noIndex := false
		for _, tok := range strings.Fields(strings.ReplaceAll(t, "(no index)", "(no-index)")) {
			switch {
			case tok == "(no-index)":
				noIndex = true
			case strings.HasPrefix(tok, "#"):
				parts = append(parts, "call "+tok[1:])
			default:
				parts = append(parts, tok)
			}
		}
		w := strings.Join(parts, ", then ")
		if noIndex {
			w += ", the calls sent without their index"
		}
		if len(turns) > 1 {
			w = fmt.Sprintf("turn %d: %s", i+1, w)
		}
		turns[i] = w
	}
	return strings.Join(turns, "; ")
}

// indent puts prefix before every line of s.
func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
