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
	// first (about forty plans, fewer for a script that does not need
	// them all), then random ones; 0 means DefaultPlans.
	Plans int
	// Seed draws the random plans; 0 means 1.
	Seed uint64
	// Parallel is how many plans run at once; 0 means GOMAXPROCS. A URL
	// agent, and any agent under Options.ModelAddr, runs one plan at a
	// time.
	Parallel int
	// NoShrink reports the first failing plan as found, not shrunk.
	NoShrink bool
	// ShrinkRuns bounds the runs of the agent that shrinking makes; 0
	// means DefaultShrinkRuns.
	ShrinkRuns int
}

// The defaults of Explore.
const (
	DefaultPlans      = 100
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
	// Failure is the first of them, shrunk; nil when none failed.
	Failure *PlanFailure
	// Elapsed is how long running the plans took, and Shrinking how long
	// shrinking the failure took.
	Elapsed, Shrinking time.Duration
}

// PlanFailure is a plan under which a case fails, shrunk.
type PlanFailure struct {
	// Found is the plan as found, as scripted.Variant.String says it.
	Found string
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

// exploreOf returns the exploration the case asks for, or nil.
func (o Options) exploreOf(c Case) *Explore {
	x := c.Explore
	if x == nil {
		x = o.Explore
	}
	if x == nil {
		return nil
	}
	e := *x
	if e.Plans <= 0 {
		e.Plans = DefaultPlans
	}
	if e.Seed == 0 {
		e.Seed = 1
	}
	if n, ok := testflags.Plans(); ok && n > 0 {
		e.Plans = int(n)
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
	return &e
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
}

type memoRun struct {
	once sync.Once
	run  *planRun
}

// explore runs case c, whose own plan gave own, under the plans x asks
// for. It returns nil when the case has nothing to explore.
func (o Options) explore(ctx context.Context, agent Agent, c Case, own *Result, ownProblems []Problem, x Explore) (*Exploration, *Problem) {
	if len(c.Script.Turns) == 0 {
		return nil, nil
	}
	fail := func(format string, args ...any) (*Exploration, *Problem) {
		return nil, &Problem{Kind: ProblemExplore, Text: "explore: " + fmt.Sprintf(format, args...)}
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
	e := &explorer{o: o.forPlans(), ctx: ctx, agent: agent, c: c, x: x, memo: map[string]*memoRun{}}
	e.wires = wiresOf(own.Requests)
	e.layout = c.Script.Layout(e.wires)
	ownRun := &planRun{name: "the case's own plan", script: c.Script, res: own, entries: viewEntries(own, c.Scrubs)}
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
		jobs = append(jobs, func() { runs[i] = e.run(v.String(), v.Script) })
		if l := v.Script.Layout(e.wires); l != e.layout {
			if _, ok := refs[l]; !ok {
				refs[l] = v.Script.Plain(e.wires)
			}
		}
	}
	for l, s := range refs {
		jobs = append(jobs, func() { e.run("the plain plan of layout "+l, s) })
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
			failures = append(failures, failure{r, vd, v.String()})
		}
	}
	if len(failures) == 0 {
		return xp, nil
	}
	for _, f := range failures {
		xp.Failed = append(xp.Failed, f.name)
	}
	first := failures[0]
	start = time.Now()
	pf := &PlanFailure{Found: first.name, Script: first.run.script}
	final := first.v
	start0, own0 := first.run.script, c.Script
	if first.run.res != nil {
		// Calls generated from the agent's tools become the script's own,
		// so that shrinking can make their arguments smaller.
		if m := start0.Materialize(first.run.res.Requests); m.Key(e.wires) != start0.Key(e.wires) {
			mo := c.Script.PinGenerated(start0).Materialize(first.run.res.Requests)
			if vd := e.tryStep(scripted.Simplification{Script: m, Own: mo}); vd.failsAs(first.v) {
				start0, own0, final = m, mo, vd
				pf.Script = m
			}
		}
	}
	if !x.NoShrink {
		final = e.shrink(start0, own0, final, pf)
	}
	pf.shrunk = pf.Script.Key(e.wires) != first.run.script.Key(e.wires)
	pf.Script = pf.Script.Tidy(e.wires)
	pf.Problems = final.problems()
	xp.Failure = pf
	xp.Shrinking = time.Since(start)
	return xp, &Problem{Kind: ProblemExplore, Text: xp.describe(final)}
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
			r.entries = viewEntries(res, c.Scrubs)
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
	return e.run("the plain plan of layout "+s.Layout(e.wires), s.Plain(e.wires).PinGenerated(s))
}

// verdict is why a run fails: its own problems, or a view that differs
// from its reference's.
type verdict struct {
	run  *planRun
	ref  *planRun
	diff []golden.Difference
}

// kinds returns what the verdict finds wrong: the kinds of its run's
// problems, and ProblemExplore when the view differs.
func (v *verdict) kinds() map[ProblemKind]bool {
	out := map[ProblemKind]bool{}
	for _, p := range v.run.problems {
		out[p.Kind] = true
	}
	if len(v.diff) > 0 {
		out[ProblemExplore] = true
	}
	return out
}

// failsAs reports whether v fails as the failure being shrunk does: with
// no kind of problem that failure lacks. A step that fails otherwise (the
// agent's model request failed, a run timed out under load) is not the
// same failure made smaller, and shrinking does not follow it.
func (v *verdict) failsAs(failing *verdict) bool {
	if v == nil {
		return false
	}
	want := failing.kinds()
	for k := range v.kinds() {
		if !want[k] {
			return false
		}
	}
	return true
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
				if vd.failsAs(failing) {
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
		if vd := e.tryStep(scripted.Simplification{Script: v, Own: curOwn}); vd.failsAs(failing) {
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

// String says what was explored: "36 plans (30 of the matrix, 0 random
// from seed 1, 5 plain; 1 wire: OpenAI Chat Completions)", the case's own
// plan counted.
func (x *Exploration) String() string {
	wires := make([]string, len(x.Wires))
	for i, w := range x.Wires {
		wires[i] = w.String()
	}
	return fmt.Sprintf("%s (%d of the matrix, %d random from seed %d, %d plain; %s %s)",
		words.Count(1+x.Plans+x.References, "plan", "plans"), x.Matrix, x.Plans-x.Matrix, x.Seed, x.References,
		words.Count(len(wires), "wire:", "wires:"), strings.Join(wires, ", "))
}

// describe writes the exploration's failure as a problem's text.
func (x *Exploration) describe(final *verdict) string {
	var b strings.Builder
	wires := make([]string, len(x.Wires))
	for i, w := range x.Wires {
		wires[i] = w.String()
	}
	fmt.Fprintf(&b, "explore: the case fails under %d of %s (%d of the matrix, %d random from seed %d",
		len(x.Failed), words.Count(x.Plans+x.References, "plan", "plans"), x.Matrix, x.Plans-x.Matrix, x.Seed)
	if x.References > 0 {
		fmt.Fprintf(&b, ", %d plain to compare other layouts with", x.References)
	}
	fmt.Fprintf(&b, "; %s %s):", words.Count(len(wires), "wire:", "wires:"), strings.Join(wires, ", "))
	const shown = 5
	for i, name := range x.Failed {
		if i == shown {
			fmt.Fprintf(&b, "\n\t... and %d more", len(x.Failed)-shown)
			break
		}
		b.WriteString("\n\t" + name)
	}
	f := x.Failure
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

// indent puts prefix before every line of s.
func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
