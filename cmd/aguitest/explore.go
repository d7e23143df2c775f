package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// exploreDefaults are explore's defaults of the agent flags.
var exploreDefaults = agentDefaults{
	unit:    "script",
	timeout: "how long one run may take (default 1m)",
	plans: fmt.Sprintf(`plans to run besides the script's own
(default %d; 0: its own alone)`, explorePlans),
	record: "DIR",
}

var exploreUsage = `usage: aguitest explore SCRIPT --cmd "COMMAND" [flags]
       aguitest explore SCRIPT --url URL [--llm ADDR] [flags]

Runs SCRIPT (a scripted LLM file, as "aguitest llm serve" reads it) against
an AG-UI agent in any language, as a harness case explored under many
plans: its own, a systematic matrix of splits, orders, id styles and the
stream shapes of known integration bugs, then seeded random plans, only
those the agent's provider wire can express. Every run must pass the
verifier, the model's text and calls must reach the client (fidelity), and
the client's messages and state must be the same under every plan. The
first plan under which the agent fails is shrunk to the smallest script
that still fails, printed as a script file and a Go literal, with the seed.

With --cmd, COMMAND (run by the shell) is started for each plan with
OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL and their API
keys pointing at the plan's scripted LLM, and PORT: it serves AG-UI on
that loopback port (POST to --path). With --url, the agent is already
running, its model client's base URL set once to http://ADDR/v1: the
scripted LLM listens on --llm ADDR, and the plans run one at a time.

` + agentHelp(exploreDefaults) + `
Flags:
  --user TEXT         the user's message (default "Hello")
  --tool NAME[=RESULT]
                      a frontend tool the client offers, and runs when the
                      agent leaves a call to it, answering RESULT (default
                      "ok"); repeatable
  --parallel N        plans at once (default: the number of CPUs)
  --relax CHECKS      fidelity checks to waive: ` + fidelityNames() + `
  --want-error RE     the agent must end a run with RUN_ERROR whose message
                      matches the regular expression RE (for a script with
                      a fault)

--json writes a line for the script (suite, case, status, problems with
their kind, run and rule, notes, exploration: plans, matrix, seed, wires,
the plans that failed and the shrunk script), then a summary. --junit
writes a testsuite with the script as its testcase.

Example:
  $ aguitest explore --cmd 'node server.js' --tool show_on_map weather.yaml
  $ aguitest explore --url http://127.0.0.1:8000/agent --llm 127.0.0.1:7788 --plans 500 --seed 7 weather.yaml

Exit codes: 0 the agent passes under every plan, 1 it fails under one (or
cannot be explored), 2 bad usage, an invalid script or an agent that cannot
be started.
`

// explorePlans is explore's budget when --plans does not say: larger
// than the harness's default, since exploring is what it is asked.
const explorePlans = 100

// fidelityNames lists the fidelity checks --relax takes.
func fidelityNames() string {
	names := make([]string, len(harness.Fidelities))
	for i, f := range harness.Fidelities {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// cmdExplore runs "aguitest explore"; SIGINT or SIGTERM stop it.
func cmdExplore(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runExplore(ctx, args, stdout, stderr)
}

// runExplore is cmdExplore with the context that bounds it.
func runExplore(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	af := newAgentFlags(fs, exploreDefaults)
	var (
		user, wantError string
		tools           listFlag
		relax           = commaList()
		parallel        int
	)
	fs.StringVar(&user, "user", "Hello", "")
	fs.Var(&tools, "tool", "")
	fs.IntVar(&parallel, "parallel", 0, "")
	fs.Var(&relax, "relax", "")
	fs.StringVar(&wantError, "want-error", "", "")
	if code := parseFlags(fs, args, exploreUsage, stdout, stderr); code >= 0 {
		return code
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "aguitest explore: "+format+"\n\n%s", append(a, exploreUsage)...)
		return 2
	}
	if err := af.parsed(fs); err != nil {
		return usageErr("%v", err)
	}
	if fs.NArg() != 1 {
		return usageErr("want one SCRIPT, got %d arguments", fs.NArg())
	}
	timeout, err := af.runTimeout()
	if err != nil {
		return usageErr("%v", err)
	}
	ch, err := af.checks()
	if err != nil {
		return usageErr("%v", err)
	}
	explore, err := af.exploration(explorePlans)
	if err != nil {
		return usageErr("%v", err)
	}
	agent, _, llm, err := af.agent()
	if err != nil {
		return usageErr("%v", err)
	}
	o := harness.Options{Timeout: timeout, ModelAddr: llm, RecordDir: af.record}
	var c harness.Case
	if c.Script, err = scripted.Load(fs.Arg(0)); err != nil {
		fmt.Fprintf(stderr, "aguitest explore: %v\n", err)
		return 2
	}
	c.Name = fs.Arg(0)
	c.Input = harness.User(user)
	c.NoGolden = true
	if ch.profile != nil {
		c.Profile = *ch.profile
	}
	c.Client = ch.client
	c.Allow, c.Enable, c.Frontend = ch.allow, ch.enable, ch.frontend
	c.IgnoreState = af.ignoreState.values
	for _, name := range relax.values {
		f := harness.Fidelity(name)
		if !slices.Contains(harness.Fidelities, f) {
			return usageErr("--relax: unknown check %q (the checks: %s)", name, fidelityNames())
		}
		c.Relax = append(c.Relax, f)
	}
	if wantError != "" {
		if _, err := regexp.Compile(wantError); err != nil {
			return usageErr("--want-error: %v", err)
		}
		c.WantError = &harness.WantError{Message: wantError}
	}
	for _, t := range tools.values {
		name, result, ok := strings.Cut(t, "=")
		if !ok {
			result = "ok"
		}
		if name == "" {
			return usageErr("--tool %q has no name", t)
		}
		c.Tools = append(c.Tools, harness.Tool{
			Name:       name,
			Parameters: json.RawMessage(`{"type":"object"}`),
			Run:        func(context.Context, json.RawMessage) (string, error) { return result, nil },
		})
	}
	explore.Parallel = parallel
	c.Explore = explore
	out, err := af.openReports(stdout)
	if err != nil {
		return usageErr("%v", err)
	}
	defer out.close()
	w := stdout
	if out.quiet {
		w = io.Discard
	}

	start := time.Now()
	// The case's own plan and the explored ones share a --cmd program.
	programs := parallel
	if programs <= 0 {
		programs = runtime.GOMAXPROCS(0)
	}
	agent, stopAgent := harness.Pool(agent, programs)
	defer stopAgent()
	r := o.Test(ctx, agent, c)
	r.Problems = af.withPathHint(r.Problems)
	s := suite{Name: "aguitest explore", class: "aguitest.explore", Start: start, Duration: time.Since(start)}
	s.Outcomes = []outcome{outcomeOf(r, s.Duration)}
	if s.Outcomes[0].Status == statusError {
		s.Err = r.Problems[0].Text
	}
	if err := out.write("aguitest explore", []suite{s}); err != nil {
		fmt.Fprintf(stderr, "aguitest explore: %v\n", err)
		return 2
	}
	for _, p := range r.Problems {
		if p.Kind == harness.ProblemCase {
			fmt.Fprintf(stderr, "aguitest explore: %s\n", p.Text)
			return 2
		}
	}
	for _, p := range r.Problems {
		fmt.Fprintln(w, p.Text)
	}
	switch x := r.Exploration; {
	case r.Failed():
	case c.Explore.Off:
		fmt.Fprintf(w, "ok: %s passed its own plan (--plans 0: no other plan)\n", c.Name)
	case x == nil || x.Plans == 0:
		// Said so, not passed off as an exploration.
		fmt.Fprintf(w, "ok: %s passed its own plan; no other plan streams it otherwise (each turn is a fault or streams nothing)\n", c.Name)
	default:
		fmt.Fprintf(w, "ok: %s passed %v in %.1fs\n", c.Name, x, time.Since(start).Seconds())
	}
	if r.Failed() {
		return 1
	}
	return 0
}
