package sdktest_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/examples/bugs"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// agentKind makes the examples/bugs agent with a bug as one kind of
// harness agent, and the options it runs under.
type agentKind struct {
	name  string
	agent func(t *testing.T, b bugs.Bug) (harness.Agent, harness.Options)
	wire  scripted.Wire
}

var agentKinds = []agentKind{
	{"Func", func(_ *testing.T, b bugs.Bug) (harness.Agent, harness.Options) {
		return harness.Func(func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
			return bugs.Agent{Model: env.Model, Tools: bugs.Weather(), Bug: b}.Run(ctx, in, emit)
		}), harness.Options{}
	}, ""},
	{"Handler", func(_ *testing.T, b bugs.Bug) (harness.Agent, harness.Options) {
		return harness.Handler(func(env harness.Env) http.Handler {
			return bugs.Agent{Model: bugs.NewChatModel(env.BaseURL, env.APIKey), Tools: bugs.Weather(), Bug: b}
		}), harness.Options{}
	}, scripted.WireChat},
	{"URL", func(t *testing.T, b bugs.Bug) (harness.Agent, harness.Options) {
		port, release, err := harness.FreePort()
		require.NoError(t, err)
		t.Cleanup(release)
		addr := "127.0.0.1:" + strconv.Itoa(port)
		srv := httptest.NewServer(bugs.Agent{Model: bugs.NewChatModel("http://"+addr+"/v1", "k"), Tools: bugs.Weather(), Bug: b})
		t.Cleanup(srv.Close)
		return harness.URL(srv.URL), harness.Options{ModelAddr: addr}
	}, scripted.WireChat},
	{"Command", func(_ *testing.T, b bugs.Bug) (harness.Agent, harness.Options) {
		return &harness.CommandAgent{
			Name: os.Args[0],
			Args: []string{"-test.run", "^TestChildBugAgent$"},
			Env:  []string{"AGUITEST_BUG_AGENT=" + bugName(b)},
		}, harness.Options{}
	}, scripted.WireChat},
}

// bugName names a bug for TestChildBugAgent.
func bugName(b bugs.Bug) string {
	if b == bugs.None {
		return "none"
	}
	return string(b)
}

// TestChildBugAgent serves the examples/bugs agent named by
// AGUITEST_BUG_AGENT as a program (bugs.Main), for the Command kind of
// TestExploreAgentKinds.
func TestChildBugAgent(t *testing.T) {
	name := os.Getenv("AGUITEST_BUG_AGENT")
	if name == "" {
		t.Skip("runs only as TestExploreAgentKinds' agent")
	}
	b := bugs.Bug(name)
	if name == "none" {
		b = bugs.None
	}
	if log := os.Getenv("AGUITEST_START_LOG"); log != "" {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		require.NoError(t, err)
		fmt.Fprintln(f, os.Getpid())
		require.NoError(t, f.Close())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if n, _ := strconv.Atoi(os.Getenv("AGUITEST_EXIT_AFTER")); n > 0 {
		// A program that crashes: it serves n runs, then exits in the
		// middle of its next one, however fast the runs go.
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", os.Getenv("PORT")))
		require.NoError(t, err)
		agent := bugs.Agent{Model: bugs.NewChatModel(os.Getenv("OPENAI_BASE_URL"), os.Getenv("OPENAI_API_KEY")), Tools: bugs.Weather(), Bug: b}
		var served atomic.Int32
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if served.Add(1) > int32(n) {
				os.Exit(3)
			}
			agent.ServeHTTP(w, r)
		})}
		go func() {
			<-ctx.Done()
			_ = srv.Close()
		}()
		_ = srv.Serve(ln)
		return
	}
	if err := bugs.Main(ctx, b); err != nil {
		t.Fatal(err)
	}
}

// TestCommandAgentServesEveryPlan: exploring a case against a program
// starts it once for the case's own plan and once for each plan run at
// once, not once per plan; a program that crashes is started again, and
// the plans after it run.
func TestCommandAgentServesEveryPlan(t *testing.T) {
	starts := func(t *testing.T, env ...string) (int, harness.Report) {
		log := filepath.Join(t.TempDir(), "starts")
		a := &harness.CommandAgent{
			Name: os.Args[0],
			Args: []string{"-test.run", "^TestChildBugAgent$"},
			Env:  append([]string{"AGUITEST_BUG_AGENT=none", "AGUITEST_START_LOG=" + log}, env...),
		}
		c := showBoth()
		c.Explore = &harness.Explore{Plans: 12, Parallel: 2, NoShrink: true}
		r := harness.Options{}.Test(t.Context(), a, c)
		b, err := os.ReadFile(log)
		require.NoError(t, err)
		return strings.Count(string(b), "\n"), r
	}
	n, r := starts(t)
	require.False(t, r.Failed(), "%v", r.Err())
	assert.LessOrEqual(t, n, 3, "starts: the case's own plan's, and one per plan at once")
	assert.Equal(t, 12, r.Exploration.Plans)

	n, r = starts(t, "AGUITEST_EXIT_AFTER=5")
	require.NotNil(t, r.Exploration)
	assert.Equal(t, 12, r.Exploration.Plans, "every plan ran")
	assert.Greater(t, n, 3, "the program that crashed was started again")
}

// TestCommandAgentServesTheTable: a table of cases run by Run or TestAll
// against a program starts it once for cases that run one after another,
// and stops it once they are over; Pool does the same for cases run one
// by one through Test. A program that crashed is started again, and the
// cases after it pass.
func TestCommandAgentServesTheTable(t *testing.T) {
	agent := func(t *testing.T, env ...string) (*harness.CommandAgent, func() []int) {
		log := filepath.Join(t.TempDir(), "starts")
		a := &harness.CommandAgent{
			Name: os.Args[0],
			Args: []string{"-test.run", "^TestChildBugAgent$"},
			Env:  append([]string{"AGUITEST_BUG_AGENT=none", "AGUITEST_START_LOG=" + log}, env...),
		}
		return a, func() []int {
			b, err := os.ReadFile(log)
			require.NoError(t, err)
			var pids []int
			for _, f := range strings.Fields(string(b)) {
				pid, err := strconv.Atoi(f)
				require.NoError(t, err)
				pids = append(pids, pid)
			}
			return pids
		}
	}
	var cases []harness.Case
	for i := range 4 {
		c := showBoth()
		c.Name = fmt.Sprintf("case-%d", i)
		c.Explore = &harness.Explore{Off: true}
		cases = append(cases, c)
	}
	gone := func(t *testing.T, pids []int) {
		t.Helper()
		for _, pid := range pids {
			// Stopped before the table's run returned; a zombie nobody
			// reaps counts as gone.
			stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			if err == nil {
				_, after, _ := strings.Cut(string(stat), ") ")
				assert.True(t, strings.HasPrefix(after, "Z"), "program %d outlived its table", pid)
			}
		}
	}

	t.Run("TestAll", func(t *testing.T) {
		a, started := agent(t)
		for _, r := range (harness.Options{}).TestAll(t.Context(), a, cases) {
			assert.False(t, r.Failed(), "%s: %v", r.Case, r.Err())
		}
		pids := started()
		assert.Len(t, pids, 1, "one program for the table")
		gone(t, pids)
	})
	t.Run("Run", func(t *testing.T) {
		a, started := agent(t)
		t.Run("table", func(t *testing.T) { harness.Run(t, a, cases) })
		pids := started()
		assert.Len(t, pids, 1, "one program for the table")
		gone(t, pids)
	})
	t.Run("Run in parallel", func(t *testing.T) {
		// The cases run after Run returns; the last to end stops the
		// programs, at most one per case at once.
		a, started := agent(t)
		t.Run("table", func(t *testing.T) { harness.Run(t, a, cases, harness.Options{Parallel: true}) })
		pids := started()
		assert.NotEmpty(t, pids)
		assert.LessOrEqual(t, len(pids), min(len(cases), runtime.GOMAXPROCS(0)), "programs kept between cases")
		gone(t, pids)
	})
	t.Run("Pool", func(t *testing.T) {
		a, started := agent(t)
		pooled, stop := harness.Pool(a, 1)
		for _, c := range cases {
			r := harness.Options{}.Test(t.Context(), pooled, c)
			assert.False(t, r.Failed(), "%s: %v", r.Case, r.Err())
		}
		stop()
		pids := started()
		assert.Len(t, pids, 1, "one program for the cases")
		gone(t, pids)
	})
	t.Run("crash", func(t *testing.T) {
		// Each run of showBoth is two requests to the agent; the program
		// exits in the middle of its fifth, the first of case 2's.
		a, started := agent(t, "AGUITEST_EXIT_AFTER=4")
		reps := harness.Options{}.TestAll(t.Context(), a, cases)
		var failed []string
		for _, r := range reps {
			if r.Failed() {
				failed = append(failed, r.Case)
			}
		}
		assert.Equal(t, []string{"case-2"}, failed, "only the case the program crashed in fails")
		pids := started()
		assert.Len(t, pids, 2, "the program that crashed was started again")
		gone(t, pids)
	})
}

// TestExploreAgentKinds: exploration works for every kind of agent. The
// correct agent passes every plan its wire can express; the agent whose
// parallel calls' arguments go under the call that started last
// (ag-ui #1016) fails, and the smallest failing script it reports, as a
// value and written in the script file format, fails again when run as a
// case's own plan.
func TestExploreAgentKinds(t *testing.T) {
	for _, k := range agentKinds {
		t.Run(k.name, func(t *testing.T) {
			const plans = 20
			c := showBoth()
			c.Explore = &harness.Explore{Plans: plans, Seed: 3}

			agent, o := k.agent(t, bugs.None)
			r := o.Test(t.Context(), agent, c)
			require.False(t, r.Failed(), "%v", r.Err())
			require.NotNil(t, r.Exploration)
			assert.Equal(t, plans, r.Exploration.Plans)
			assert.Equal(t, []scripted.Wire{k.wire}, r.Exploration.Wires)
			assert.Empty(t, r.Exploration.Failed)

			agent, o = k.agent(t, bugs.WrongID)
			r = o.Test(t.Context(), agent, c)
			require.True(t, r.Failed())
			require.NotNil(t, r.Exploration)
			f := r.Exploration.Failure
			require.NotNil(t, f, "%v", r.Err())
			assert.NotEmpty(t, f.Problems)
			last := r.Problems[len(r.Problems)-1]
			assert.Equal(t, harness.ProblemExplore, last.Kind)
			assert.Contains(t, last.Text, "the smallest failing script, to paste into the case:")
			assert.Contains(t, last.Text, fmt.Sprintf("-aguitest.seed=3 -aguitest.explore=%d", plans))

			parsed, err := scripted.Parse("shrunk.yaml", []byte(f.Script.YAML()))
			require.NoError(t, err, "the script file syntax of the shrunk script:\n%s", f.Script.YAML())
			for name, s := range map[string]scripted.Script{"value": f.Script, "script file": parsed} {
				again := c
				again.Script, again.Explore = s, nil
				agent, o := k.agent(t, bugs.WrongID)
				r := o.Test(t.Context(), agent, again)
				assert.True(t, r.Failed(), "the shrunk script (%s) passes as the case's own plan:\n%s", name, f.Script.GoString())
			}
		})
	}
}

// TestShrinkFollowsTheSameFailure: an agent that also fails now and then
// for another reason (here a RUN_ERROR on every third run once the search
// has found its failure, as a framework's model request may fail under
// load) does not lead shrinking astray: the steps it takes fail as the
// failure found does, and the smallest script still shows that failure,
// not the other.
func TestShrinkFollowsTheSameFailure(t *testing.T) {
	var runs atomic.Int64
	var flakyAfter atomic.Int64 // runs before the flaky ones; -1: none flaky
	flakyAfter.Store(-1)
	flaky := harness.Func(func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		n, after := runs.Add(1), flakyAfter.Load()
		if after >= 0 && n > after && n%3 == 0 {
			if err := emit(agui.NewRunStarted(in.ThreadID, in.RunID)); err != nil {
				return err
			}
			return emit(agui.NewRunError("AI_APICallError: Failed to process successful response", ""))
		}
		return bugs.Agent{Model: env.Model, Tools: bugs.Weather(), Bug: bugs.WrongID}.Run(ctx, in, emit)
	})
	// The search alone (no shrinking), one plan at a time, counts its runs.
	c := showBoth()
	c.Explore = &harness.Explore{Plans: 30, Parallel: 1, NoShrink: true}
	first := harness.Options{}.Test(t.Context(), flaky, c)
	require.NotNil(t, first.Exploration.Failure, "exploration found nothing")
	flakyAfter.Store(runs.Load())
	runs.Store(0)

	c.Explore = &harness.Explore{Plans: 30, Parallel: 1}
	r := harness.Options{}.Test(t.Context(), flaky, c)
	require.NotNil(t, r.Exploration)
	require.NotNil(t, r.Exploration.Failure, "exploration found nothing")
	f := r.Exploration.Failure
	for _, p := range f.Problems {
		assert.NotEqual(t, harness.ProblemRunError, p.Kind, "the shrunk failure is the other one: %s", p.Text)
	}
	assert.NotEmpty(t, f.Steps, "shrinking took no step")
}
