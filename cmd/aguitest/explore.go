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
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

const exploreUsage = `usage: aguitest explore (--cmd 'PROGRAM ARG...' | --url URL --llm ADDR) [flags] SCRIPT

Runs SCRIPT (a scripted LLM file, as "aguitest llm serve" reads it) against
an AG-UI agent in any language, as a harness case explored under many
plans: its own, a systematic matrix of splits, orders, id styles and the
stream shapes of known integration bugs, then seeded random plans, only
those the agent's provider wire can express. Every run must pass the
verifier, the model's text and calls must reach the client (fidelity), and
the client's messages and state must be the same under every plan. The
first plan under which the agent fails is shrunk to the smallest script
that still fails, printed as a script file and a Go literal, with the seed.

The agent:
  --cmd 'PROGRAM ARG...'  a program started for each plan (its words split
                          at spaces), with OPENAI_BASE_URL, ANTHROPIC_BASE_URL,
                          GOOGLE_GEMINI_BASE_URL and their API keys pointing at
                          the plan's scripted LLM, and PORT: it serves AG-UI
                          on that loopback port (POST to --path)
  --url URL               an AG-UI endpoint already running, its LLM client
                          pointed at http://ADDR/v1 (ADDR is --llm); plans
                          run one at a time
  --llm ADDR              (with --url) where the scripted LLM is served, e.g.
                          127.0.0.1:7788

Flags:
  --user TEXT             the user's message (default "Hello")
  --tool NAME[=RESULT]    a frontend tool the client offers, and runs when
                          the agent leaves a call to it, answering RESULT
                          (default "ok"); repeatable
  --plans N               plans to run besides the script's own (default 100)
  --seed S                the seed of the random plans (default 1)
  --parallel N            plans at once (default: the number of CPUs)
  --profile P             strict (default) or reference
  --allow RULES           verifier rules to waive, comma-separated
  --enable RULES          opt-in verifier rules to turn on, comma-separated
  --relax CHECKS          fidelity checks to waive: text, calls, ids
  --want-error RE         the agent must end a run with RUN_ERROR whose message
                          matches the regular expression RE (for a script
                          with a fault)
  --path PATH             (with --cmd) the AG-UI endpoint's path (default /)
  --dir DIR               (with --cmd) the program's working directory
  --start-timeout D       (with --cmd) how long the program may take to
                          listen (default 30s)
  --allow-host HOST       (with --cmd) a host other than this machine the
                          program may reach; repeatable. Every other request
                          it makes to one (through HTTP_PROXY, HTTPS_PROXY, or
                          from Node) is refused and fails the plan
  --timeout D             how long one run may take (default 1m)

Example:
  $ aguitest explore --cmd 'node server.js' --tool show_on_map weather.yaml
  $ aguitest explore --url http://127.0.0.1:8000/agent --llm 127.0.0.1:7788 --plans 500 --seed 7 weather.yaml

Exit codes: 0 the agent passes under every plan, 1 it fails under one (or
cannot be explored), 2 bad usage, an invalid script or an agent that cannot
be started.
`

// fidelityNames lists the fidelity checks --relax takes.
func fidelityNames() string {
	names := make([]string, len(harness.Fidelities))
	for i, f := range harness.Fidelities {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ", ") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

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
	var (
		cmdLine, url, llm, user, profile, allow, enable, relax, path, dir, wantError string
		tools, allowHosts                                                            repeated
		plans, parallel                                                              int
		seed                                                                         uint64
		startTimeout, timeout                                                        time.Duration
	)
	fs.StringVar(&cmdLine, "cmd", "", "")
	fs.StringVar(&url, "url", "", "")
	fs.StringVar(&llm, "llm", "", "")
	fs.StringVar(&user, "user", "Hello", "")
	fs.Var(&tools, "tool", "")
	fs.Var(&allowHosts, "allow-host", "")
	fs.IntVar(&plans, "plans", harness.DefaultPlans, "")
	fs.Uint64Var(&seed, "seed", 1, "")
	fs.IntVar(&parallel, "parallel", 0, "")
	fs.StringVar(&profile, "profile", "strict", "")
	fs.StringVar(&allow, "allow", "", "")
	fs.StringVar(&enable, "enable", "", "")
	fs.StringVar(&relax, "relax", "", "")
	fs.StringVar(&wantError, "want-error", "", "")
	fs.StringVar(&path, "path", "/", "")
	fs.StringVar(&dir, "dir", "", "")
	fs.DurationVar(&startTimeout, "start-timeout", 0, "")
	fs.DurationVar(&timeout, "timeout", 0, "")
	if code := parseFlags(fs, args, exploreUsage, stdout, stderr); code >= 0 {
		return code
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "aguitest explore: "+format+"\n\n%s", append(a, exploreUsage)...)
		return 2
	}
	if fs.NArg() != 1 {
		return usageErr("want one SCRIPT, got %d arguments", fs.NArg())
	}
	var agent harness.Agent
	o := harness.Options{Timeout: timeout}
	switch {
	case cmdLine != "" && url != "":
		return usageErr("--cmd and --url exclude each other")
	case cmdLine != "":
		if llm != "" {
			return usageErr("--llm goes with --url: a --cmd program is told its LLM's address")
		}
		argv := strings.Fields(cmdLine)
		if len(argv) == 0 {
			return usageErr("--cmd is empty")
		}
		c := harness.Command(argv[0], argv[1:]...)
		c.Path, c.Dir, c.StartTimeout, c.AllowHosts = path, dir, startTimeout, allowHosts
		agent = c
	case url != "":
		if llm == "" {
			return usageErr("--url needs --llm, the address the agent's LLM client points at")
		}
		agent, o.ModelAddr = harness.URL(url), llm
	default:
		return usageErr("want the agent: --cmd or --url")
	}
	var err error
	var c harness.Case
	if c.Script, err = scripted.Load(fs.Arg(0)); err != nil {
		fmt.Fprintf(stderr, "aguitest explore: %v\n", err)
		return 2
	}
	c.Name = fs.Arg(0)
	c.Input = harness.User(user)
	c.NoGolden = true
	if c.Profile, err = agui.ParseProfile(profile); err != nil {
		return usageErr("--profile: %v", err)
	}
	if c.Allow, err = agui.ParseRules(allow); err != nil {
		return usageErr("--allow: %v", err)
	}
	if c.Enable, err = agui.ParseRules(enable); err != nil {
		return usageErr("--enable: %v", err)
	}
	for _, name := range strings.Split(relax, ",") {
		f := harness.Fidelity(strings.TrimSpace(name))
		switch {
		case f == "":
		case slices.Contains(harness.Fidelities, f):
			c.Relax = append(c.Relax, f)
		default:
			return usageErr("--relax: unknown check %q (the checks: %s)", name, fidelityNames())
		}
	}
	if wantError != "" {
		if _, err := regexp.Compile(wantError); err != nil {
			return usageErr("--want-error: %v", err)
		}
		c.WantError = &harness.WantError{Message: wantError}
	}
	for _, t := range tools {
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
	c.Explore = &harness.Explore{Plans: plans, Seed: seed, Parallel: parallel}

	start := time.Now()
	r := o.Test(ctx, agent, c)
	for _, p := range r.Problems {
		if p.Kind == harness.ProblemCase {
			fmt.Fprintf(stderr, "aguitest explore: %s\n", p.Text)
			return 2
		}
	}
	for _, p := range r.Problems {
		fmt.Fprintln(stdout, p.Text)
	}
	switch x := r.Exploration; {
	case r.Failed():
	case x == nil || x.Plans == 0:
		// Said so, not passed off as an exploration.
		fmt.Fprintf(stdout, "ok: %s passed its own plan; no other plan streams it otherwise (each turn is a fault or streams nothing)\n", c.Name)
	default:
		fmt.Fprintf(stdout, "ok: %s passed %v in %.1fs\n", c.Name, x, time.Since(start).Seconds())
	}
	if r.Failed() {
		return 1
	}
	return 0
}
