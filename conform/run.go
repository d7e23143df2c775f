package conform

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// Status says how a scenario went.
type Status string

// The statuses.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip" // not run, or run on a wire that cannot carry it; Result.Reason says why
)

// Result is how one scenario went.
type Result struct {
	// Name and Doc are the scenario's.
	Name, Doc string
	Status    Status
	// Reason says why a scenario was skipped.
	Reason string
	// Problems are what is wrong, as the harness reports them (causes
	// first), then what the scenario's checks found (harness.ProblemCheck).
	Problems []harness.Problem
	// Notes are what the checks saw without finding fault, such as "the
	// client was shown no reasoning".
	Notes []string
	// Wire is the provider wire the server's model client spoke, as the
	// scripted LLM saw it ("" when it asked nothing).
	Wire scripted.Wire
	// Duration is how long the scenario took, the server's start included.
	Duration time.Duration
	// Harness is the harness's report of the case: its runs and events.
	Harness harness.Report
	// Recording is the file holding the scenario's recording, when
	// Config.RecordDir is set and it ran.
	Recording string

	declared   []scripted.Tool // the server's own tools, as it declared them to the model
	unselected bool            // a place in the battery's order for a scenario cfg does not select
	ctxErr     error           // Run's context had ended when the scenario did
}

// Report is how a server took the battery.
type Report struct {
	// Profile is the verifier profile the runs were checked with.
	Profile agui.Profile
	// Results are the scenarios run or skipped, in the battery's order.
	Results []Result
	// Err, when not nil, is why the battery stopped: the server could not
	// be started. Results then ends with the scenario that could not run.
	Err error
	// Duration is how long the battery took.
	Duration time.Duration
}

// Failed reports whether a scenario failed or the battery could not run.
func (r *Report) Failed() bool {
	if r.Err != nil {
		return true
	}
	for _, res := range r.Results {
		if res.Status == Fail {
			return true
		}
	}
	return false
}

// Count returns how many scenarios ended with the status.
func (r *Report) Count(s Status) int {
	n := 0
	for _, res := range r.Results {
		if res.Status == s {
			n++
		}
	}
	return n
}

// Run runs the battery cfg selects against agent and reports how each
// scenario went, in the battery's order. Each scenario has its own
// scripted LLM and thread; a harness.Command agent's program is kept from
// one scenario to the next (see harness.Pool) and started afresh only
// after a run of it failed. Each run must end within cfg.Timeout. A
// scenario fails when the harness finds a problem (the verifier under
// cfg.Profile, a request left unanswered, a run that hangs, a RUN_ERROR it
// does not expect or the lack of one it does) or its checks do.
//
// Scenarios run one after another, but for those whose run is mostly a
// wait on the model client's retries (provider-500, provider-429): they
// run at the same time as the others, on a program of their own for a
// Command agent, unless cfg.ModelAddr is set or cfg.Explore.Parallel is 1.
// cfg.OnResult is still told of the results in the battery's order.
func Run(ctx context.Context, agent harness.Agent, cfg Config) Report {
	start := time.Now()
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	o := harness.Options{Timeout: timeout, RecordDir: cfg.RecordDir, ModelAddr: cfg.ModelAddr, IgnoreState: cfg.IgnoreState, Frontend: cfg.Frontend}
	battery := Battery(cfg)
	parallel := runtime.GOMAXPROCS(0) // an explored scenario's plans at once
	if x := cfg.Explore; x != nil && x.Off {
		parallel = 1
	} else if x != nil && x.Parallel > 0 {
		parallel = x.Parallel
	}
	_, command := agent.(*harness.CommandAgent)
	found := cfg.Declared != nil
	var aside []int // the scenarios run aside, by index in the battery
	if cfg.ModelAddr == "" && (cfg.Explore == nil || cfg.Explore.Parallel != 1) {
		for i, s := range battery {
			if base, _, _ := strings.Cut(s.Name, "/"); base == string(GeneratedCall) && !found {
				break // the battery after it is made anew when it is reached
			}
			if s.waits && s.Skip == "" && cfg.Selects(s.Name) {
				aside = append(aside, i)
			}
		}
	}
	programs := parallel
	if command && len(aside) > 0 {
		programs++ // one program serves the scenarios run aside, in turn
	}
	agent, stop := harness.Pool(agent, programs)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	explicit := cfg.Explore != nil && !cfg.Explore.Off

	b := &batteryRun{cfg: cfg, done: map[int]Result{}, rep: Report{Profile: cfg.Profile}}
	finished := make(chan indexed, len(aside))
	var wg sync.WaitGroup
	// The battery made anew at generated-call is a new slice: first keeps
	// the scenarios run aside, which all come before it.
	first := battery
	run := func(i int) { finished <- indexed{i, b.scenario(ctx, o, agent, first[i], explicit)} }
	if command {
		wg.Go(func() {
			for _, i := range aside {
				run(i)
			}
		})
	} else {
		for _, i := range aside {
			wg.Go(func() { run(i) })
		}
	}
	isAside := func(i int) bool { return slices.Contains(aside, i) }

	for i := 0; i < len(battery) && !b.stopped; i++ {
		s := battery[i]
		if base, _, _ := strings.Cut(s.Name, "/"); base == string(GeneratedCall) && !found {
			// The server's own tools are known now, from what it asked in
			// the scenarios run so far (not those run aside, so that what
			// is generated does not hang on which of them has ended).
			found = true
			cfg.Declared = []scripted.Tool{}
			for j := range i {
				r, ok := b.done[j]
				if !ok || isAside(j) || r.Harness.Result == nil {
					continue
				}
				for _, t := range r.declared {
					if !slices.ContainsFunc(cfg.Declared, func(d scripted.Tool) bool { return d.Name == t.Name }) {
						cfg.Declared = append(cfg.Declared, t)
					}
				}
			}
			gen := Battery(cfg)
			battery = append(battery[:i:i], gen[i:]...)
			s = battery[i]
		}
		if !cfg.Selects(s.Name) {
			b.done[i] = Result{Name: s.Name, unselected: true}
		} else if !isAside(i) {
			b.done[i] = b.scenario(ctx, o, agent, s, explicit)
		}
	ready:
		for {
			select {
			case r := <-finished:
				b.done[r.i] = r.res
			default:
				break ready
			}
		}
		b.emit(i + 1)
	}
	if b.stopped {
		cancel() // what still runs aside is not reported
	}
	wg.Wait()
	close(finished)
	for r := range finished {
		b.done[r.i] = r.res
	}
	b.emit(len(battery))
	b.rep.Duration = time.Since(start)
	return b.rep
}

// indexed is a scenario's result and its index in the battery.
type indexed struct {
	i   int
	res Result
}

// batteryRun keeps the results of a battery under way and hands them to
// the report, and to Config.OnResult, in the battery's order.
type batteryRun struct {
	cfg     Config
	done    map[int]Result // by index in the battery
	next    int            // the index of the next result to report
	stopped bool           // the battery stopped: the server could not be started, or ctx ended
	rep     Report
}

// scenario runs a scenario and adds the likely cause of a failure to run.
func (b *batteryRun) scenario(ctx context.Context, o harness.Options, agent harness.Agent, s Scenario, explicit bool) Result {
	res := runScenario(ctx, o, agent, s, explicit)
	res.ctxErr = ctx.Err()
	if b.cfg.ModelAddr != "" && res.Status == Fail && res.Harness.Result != nil && len(res.Harness.Result.Requests) == 0 {
		// The likely cause comes first.
		res.Problems = append([]harness.Problem{{Kind: harness.ProblemModel, Text: fmt.Sprintf(
			"the server asked the scripted LLM nothing: is its model client's base URL http://%s/v1?", b.cfg.ModelAddr)}}, res.Problems...)
	}
	return res
}

// emit reports the results ready in order, up to index until; it stops
// the battery at a scenario whose server could not be started, or when
// ctx has ended.
func (b *batteryRun) emit(until int) {
	for ; b.next < until && !b.stopped; b.next++ {
		res, ok := b.done[b.next]
		if !ok {
			return // run aside, not ended yet
		}
		if res.unselected {
			continue
		}
		b.rep.Results = append(b.rep.Results, res)
		if b.cfg.OnResult != nil {
			b.cfg.OnResult(res)
		}
		if res.Harness.Result == nil && len(res.Problems) > 0 && res.Problems[0].Kind == harness.ProblemCase {
			b.rep.Err = errors.New(res.Problems[0].Text)
			b.stopped = true
		} else if res.ctxErr != nil {
			b.rep.Err = res.ctxErr
			b.stopped = true
		}
	}
}

// runScenario runs one scenario: the harness's case, then its checks.
func runScenario(ctx context.Context, o harness.Options, agent harness.Agent, s Scenario, explicit bool) Result {
	res := Result{Name: s.Name, Doc: s.Doc}
	if s.Skip != "" {
		res.Status, res.Reason = Skip, s.Skip
		return res
	}
	start := time.Now()
	c := s.Case
	check := c.Check
	c.Check = nil // run below, where its notes are kept
	res.Harness = o.Test(ctx, agent, c)
	if r := res.Harness.Result; r != nil {
		res.declared = declaredTools(c, r.Requests)
	}
	res.Recording = res.Harness.Recording
	res.Problems = res.Harness.Problems
	if r := res.Harness.Result; r != nil {
		if len(r.Requests) > 0 {
			res.Wire = r.Requests[0].Wire
			if res.Wire != "" {
				if err := c.Script.ValidateWire(res.Wire, r.Requests[0].Stream); err != nil {
					res.Status = Skip
					res.Reason = fmt.Sprintf("the server's model client speaks %s, which cannot carry this scenario: %v", res.Wire, err)
					res.Duration = time.Since(start)
					return res
				}
			}
		}
		if check != nil {
			t := &collectT{ctx: ctx, name: s.Name}
			t.run(check, r)
			for _, e := range t.errors {
				res.Problems = append(res.Problems, harness.Problem{Kind: harness.ProblemCheck, Text: e})
			}
			res.Notes = t.notes
		}
	}
	if x := res.Harness.Exploration; x != nil && explicit {
		// The default exploration of every scenario goes without saying.
		res.Notes = append(res.Notes, "explored under "+x.String())
	}
	res.Status = Pass
	if len(res.Problems) > 0 {
		res.Status = Fail
	}
	res.Duration = time.Since(start)
	return res
}

// collectT is the harness.T a scenario's checks run on under Run: it keeps
// their failures and their notes (Log).
type collectT struct {
	ctx  context.Context
	name string

	mu     sync.Mutex
	errors []string
	notes  []string
	failed bool
}

// stop ends a check that called FailNow.
type stop struct{}

func (t *collectT) run(check func(harness.T, *harness.Result), r *harness.Result) {
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(stop); !ok {
				panic(p)
			}
		}
	}()
	check(t, r)
}

func (t *collectT) Helper()                  {}
func (t *collectT) Name() string             { return t.name }
func (t *collectT) Context() context.Context { return t.ctx }
func (t *collectT) Log(args ...any)          { t.note(fmt.Sprintln(args...)) }
func (t *collectT) Logf(f string, args ...any) {
	t.note(fmt.Sprintf(f, args...))
}
func (t *collectT) Error(args ...any) { t.fail(fmt.Sprintln(args...)) }
func (t *collectT) Errorf(f string, args ...any) {
	t.fail(fmt.Sprintf(f, args...))
}
func (t *collectT) Fatal(args ...any) {
	t.Error(args...)
	t.FailNow()
}
func (t *collectT) Fatalf(f string, args ...any) {
	t.Errorf(f, args...)
	t.FailNow()
}
func (t *collectT) Fail() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = true
}
func (t *collectT) FailNow() {
	t.Fail()
	panic(stop{})
}
func (t *collectT) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

func (t *collectT) note(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.notes = append(t.notes, strings.TrimSuffix(s, "\n"))
}

func (t *collectT) fail(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = true
	t.errors = append(t.errors, strings.TrimSuffix(s, "\n"))
}
