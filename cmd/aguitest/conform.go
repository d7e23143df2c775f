package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	neturl "net/url"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/harness"
)

const conformUsage = `usage: aguitest conform --cmd "COMMAND" [flags]
       aguitest conform --url URL [--llm ADDR] [flags]

Runs the conformance battery against an AG-UI server: scenarios any server
can take, since they use only what the protocol gives a client (text cut
mid-character, reasoning, the client's tools alone, in parallel, chained,
failing and without arguments, text between calls, state, follow-ups,
provider failures, a client that leaves mid-run; the server's own tools and
interrupts when --config names them). Every run is verified as the
reference client reads it, and what the model said must reach the client.

The server's LLM client is pointed at a scripted LLM that speaks every
provider wire (OpenAI Chat Completions and Responses, Anthropic Messages,
Gemini). With --cmd, COMMAND (run by the shell) is started for each
scenario with OPENAI_BASE_URL, OPENAI_API_KEY, ANTHROPIC_BASE_URL,
ANTHROPIC_API_KEY, GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY and PORT in its
environment, and must serve AG-UI on PORT (POST to --path). With --url,
the server is already running, its model client's base URL set once to
http://ADDR/v1 (OPENAI_BASE_URL and the like): the scripted LLM listens on
--llm ADDR, each scenario's script in turn.

Flags:
  --cmd COMMAND       the server to start for each scenario (sh -c COMMAND)
  --url URL           or the AG-UI endpoint of a server already running
  --llm ADDR          with --url: where the scripted LLM listens (default 127.0.0.1:4010)
  --dir DIR           COMMAND's working directory
  --path PATH         the AG-UI endpoint's path (default /)
  --allow-host HOST   a host other than this machine COMMAND may reach;
                      repeatable. Every other request it makes to one (through
                      HTTP_PROXY, HTTPS_PROXY, or from Node) is refused and
                      fails the scenario
  --config FILE       the server's own tools and interrupts, waivers (see below)
  --profile P         strict (default) or reference
  --allow RULE,...    verifier rules to waive
  --enable RULE,...   opt-in verifier rules to turn on
  --only NAME,...     run only these scenarios (names or patterns: provider-*)
  --skip NAME,...     leave these out
  --timeout D         each run's bound (default 20s): a run that takes longer hangs
  --plans N           also run each scenario that streams an answer under N other
                      plans of its script (exploration; default 0: none); every
                      plan must verify and leave the client with the same view
  --seed S            the seed of the random plans (default 1)
  --json              print JSON Lines (one object per scenario, then a summary)
  --html FILE         write a page with each failing scenario's timeline
  --record DIR        keep each scenario's recording in DIR (for aguitest show)
  --list              list the scenarios and exit

The configuration file (YAML or JSON):

  tools:                      # the server's own tools: a backend-tool scenario each
    - name: get_weather
      args: {city: Paris}     # what the model calls it with
      result: {matches: "18"} # what its TOOL_CALL_RESULT must hold (optional)
  interrupts:                 # tools it asks the user about: an interrupt scenario each
    - tool: delete_file
      args: {path: notes.txt}
      answer: {approved: true}  # the payload the client resumes with
      reason: approval          # answer by the interrupt's reason (optional)
  allow: [RULE]               # also: profile, enable, timeout, only, skip

Example:
  aguitest conform --cmd "node server.js"
  aguitest conform --cmd "npm start" --dir ./agent --path /agent --config conform.yaml --html report.html
  OPENAI_BASE_URL=http://127.0.0.1:4010/v1 python server.py &
  aguitest conform --url http://127.0.0.1:8000/agent

Exit status: 0 every scenario passed or was skipped, 1 one failed, 2 bad
usage, an unreadable configuration, or a server that did not start.
`

// listFlag collects comma-separated values of a repeated flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

func cmdConform(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	command := fs.String("cmd", "", "the server to start for each scenario")
	url := fs.String("url", "", "the AG-UI endpoint of a server already running")
	llmAddr := fs.String("llm", "", "with --url: where the scripted LLM listens")
	dir := fs.String("dir", "", "the command's working directory")
	path := fs.String("path", "/", "the AG-UI endpoint's path")
	configFile := fs.String("config", "", "configuration file")
	profile := fs.String("profile", "", "strict or reference")
	var allow, enable, only, skip listFlag
	var allowHosts listFlag
	fs.Var(&allowHosts, "allow-host", "hosts the server may reach")
	fs.Var(&allow, "allow", "rules to waive")
	fs.Var(&enable, "enable", "opt-in rules to turn on")
	fs.Var(&only, "only", "scenarios to run")
	fs.Var(&skip, "skip", "scenarios to leave out")
	timeout := fs.Duration("timeout", 0, "each run's bound")
	plans := fs.Int("plans", 0, "plans to explore each scenario under")
	seed := fs.Uint64("seed", 0, "the seed of the random plans")
	asJSON := fs.Bool("json", false, "print JSON Lines")
	htmlOut := fs.String("html", "", "write an HTML page")
	recordDir := fs.String("record", "", "keep recordings in this directory")
	list := fs.Bool("list", false, "list the scenarios")
	if code := parseFlags(fs, args, conformUsage, stdout, stderr); code >= 0 {
		return code
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "aguitest conform: "+format+"\n", args...)
		return 2
	}
	if fs.NArg() != 0 {
		return fail("unexpected arguments %q", fs.Args())
	}

	var cfg conform.Config
	if *configFile != "" {
		var err error
		if cfg, err = conform.LoadConfig(*configFile); err != nil {
			return fail("%v", err)
		}
	}
	if *profile != "" {
		p, err := agui.ParseProfile(*profile)
		if err != nil {
			return fail("%v", err)
		}
		cfg.Profile = p
	}
	for _, f := range []struct {
		names listFlag
		to    *[]agui.Rule
	}{{allow, &cfg.Allow}, {enable, &cfg.Enable}} {
		rules, err := agui.ParseRules(strings.Join(f.names, ","))
		if err != nil {
			return fail("%v", err)
		}
		*f.to = append(*f.to, rules...)
	}
	cfg.Only = append(cfg.Only, only...)
	cfg.Skip = append(cfg.Skip, skip...)
	if *timeout < 0 {
		return fail("--timeout %v is negative", *timeout)
	}
	if *timeout > 0 {
		cfg.Timeout = *timeout
	}
	if err := cfg.CheckPatterns(); err != nil {
		return fail("%v", err)
	}
	if x, err := exploreFlags(*plans, *seed); err != nil {
		return fail("%v", err)
	} else if x != nil {
		cfg.Explore = x
	}
	if *list {
		listScenarios(stdout, cfg)
		return 0
	}
	agent, server, msg := serverFlags(*command, *url, *llmAddr, *dir, *path, &cfg.ModelAddr)
	if c, ok := agent.(*harness.CommandAgent); ok {
		c.AllowHosts = allowHosts
	}
	if msg != "" {
		return fail("%s\n\n%s", msg, conformUsage)
	}
	if err := reachable(*url); err != nil {
		return fail("%v", err)
	}

	if *recordDir == "" && *htmlOut != "" {
		tmp, err := os.MkdirTemp("", "aguitest-conform-*")
		if err != nil {
			return fail("%v", err)
		}
		defer os.RemoveAll(tmp)
		cfg.RecordDir = tmp
	} else {
		cfg.RecordDir = *recordDir
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	pal := colorFor(stdout)
	var tab *conformTable
	if !*asJSON {
		tab = newConformTable(stdout, pal, cfg)
		tab.keep = *recordDir != ""
		fmt.Fprintf(stdout, "aguitest conform: %s, %s, profile %s\n\n", server, plural(tab.count, "scenario"), cfg.Profile)
		if cfg.ModelAddr != "" {
			fmt.Fprintf(stdout, "the scripted LLM: http://%s/v1 (the server's model client must use it)\n\n", cfg.ModelAddr)
		}
		tab.header()
		cfg.OnResult = tab.row
	}
	rep := conform.Run(ctx, agent, cfg)
	if *asJSON {
		if err := rep.WriteJSON(stdout, false); err != nil {
			return fail("%v", err)
		}
	} else {
		tab.end(&rep)
	}
	if *htmlOut != "" {
		if err := writeConformHTML(*htmlOut, server, &rep); err != nil {
			return fail("%v", err)
		}
		fmt.Fprintf(stderr, "aguitest conform: wrote %s\n", *htmlOut)
	}
	switch {
	case rep.Err != nil && errors.Is(rep.Err, context.Canceled):
		return fail("interrupted")
	case rep.Err != nil:
		return fail("the server could not be started: %v", rep.Err)
	case rep.Failed():
		return 1
	}
	return 0
}

// exploreFlags makes the exploration of --plans and --seed: nil when
// --plans is 0.
func exploreFlags(plans int, seed uint64) (*harness.Explore, error) {
	switch {
	case plans < 0:
		return nil, fmt.Errorf("--plans %d is negative", plans)
	case plans == 0 && seed != 0:
		return nil, fmt.Errorf("--seed goes with --plans N")
	case plans == 0:
		return nil, nil
	}
	return &harness.Explore{Plans: plans, Seed: seed}, nil
}

// defaultModelAddr is where the scripted LLM listens for a server given by
// --url, when --llm does not say.
const defaultModelAddr = "127.0.0.1:4010"

// serverFlags makes the agent of --cmd or --url (and --llm, --dir,
// --path), and a name for it in reports; with --url it sets *llm to the
// scripted LLM's address. msg says what is wrong with the flags.
func serverFlags(command, url, llmAddr, dir, path string, llm *string) (agent harness.Agent, server, msg string) {
	switch {
	case command == "" && url == "":
		return nil, "", `say which server to test: --cmd "COMMAND" or --url URL`
	case command != "" && url != "":
		return nil, "", "--cmd and --url: give one"
	case url != "":
		if dir != "" || path != "/" {
			return nil, "", "--dir and --path go with --cmd (--url names the endpoint)"
		}
		if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
			return nil, "", fmt.Sprintf("--url %q is not an http:// or https:// URL", url)
		}
		if llmAddr == "" {
			llmAddr = defaultModelAddr
		}
		if _, _, err := net.SplitHostPort(llmAddr); err != nil {
			return nil, "", fmt.Sprintf("--llm %q: want host:port", llmAddr)
		}
		*llm = llmAddr
		return harness.URL(url), url, ""
	case llmAddr != "":
		return nil, "", "--llm goes with --url (with --cmd, the scripted LLM's URL is in the server's environment)"
	}
	a := shellCommand(command)
	a.Dir = dir
	a.Path = path
	return a, command, ""
}

// reachable reports an agent at url ("" for none) that takes no
// connection: every case would fail for it alone.
func reachable(url string) error {
	if url == "" {
		return nil
	}
	u, err := neturl.Parse(url)
	if err != nil {
		return fmt.Errorf("--url: %v", err)
	}
	host := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	c, err := net.DialTimeout("tcp", host, 5*time.Second)
	if err != nil {
		return fmt.Errorf("the agent at %s takes no connection: %v", url, err)
	}
	c.Close()
	return nil
}

// shellCommand runs a command line through the shell, as a user typed it.
func shellCommand(line string) *harness.CommandAgent {
	if runtime.GOOS == "windows" {
		return harness.Command("cmd", "/C", line)
	}
	return harness.Command("sh", "-c", line)
}

// listScenarios prints the scenarios cfg selects, with what they check.
func listScenarios(w io.Writer, cfg conform.Config) {
	width := 0
	battery := conform.Battery(cfg)
	for _, s := range battery {
		width = max(width, len(s.Name))
	}
	for _, s := range battery {
		if !cfg.Selects(s.Name) {
			continue
		}
		line := fmt.Sprintf("%-*s  %s", width, s.Name, s.Doc)
		if s.Skip != "" {
			line += " (skipped: " + s.Skip + ")"
		}
		fmt.Fprintln(w, line)
	}
}

// conformTable prints the results as a table, a row as each comes, then
// each failure in full and a summary.
type conformTable struct {
	w     io.Writer
	pal   palette
	width int
	count int
	start time.Time
	keep  bool // the recordings are kept (--record)
}

// firstWidth is how much of a scenario's first problem its row shows.
const firstWidth = 110

func newConformTable(w io.Writer, pal palette, cfg conform.Config) *conformTable {
	t := &conformTable{w: w, pal: pal, width: len("SCENARIO"), start: time.Now()}
	for _, s := range conform.Battery(cfg) {
		t.width = max(t.width, len(s.Name))
	}
	for _, s := range conform.Battery(cfg) {
		if cfg.Selects(s.Name) {
			t.count++
		}
	}
	return t
}

func (t *conformTable) header() {
	fmt.Fprintln(t.w, t.pal.bold(fmt.Sprintf("%-*s  %-6s  %s", t.width, "SCENARIO", "RESULT", "FIRST PROBLEM")))
}

func (t *conformTable) row(r conform.Result) {
	status := string(r.Status)
	first := ""
	switch r.Status {
	case conform.Pass:
		status = t.pal.green(fmt.Sprintf("%-6s", "pass"))
		if len(r.Notes) > 0 {
			first = t.pal.dim(clip(r.Notes[0], firstWidth))
		}
	case conform.Fail:
		status = t.pal.red(fmt.Sprintf("%-6s", "FAIL"))
		if len(r.Problems) > 0 {
			line, _, _ := strings.Cut(r.Problems[0].Text, "\n")
			first = clip(line, firstWidth)
		}
	case conform.Skip:
		status = t.pal.dim(fmt.Sprintf("%-6s", "skip"))
		first = t.pal.dim(clip(r.Reason, firstWidth))
	}
	fmt.Fprintln(t.w, strings.TrimRight(fmt.Sprintf("%-*s  %s  %s", t.width, r.Name, status, first), " "))
}

func (t *conformTable) end(rep *conform.Report) {
	for _, r := range rep.Results {
		if r.Status != conform.Fail {
			continue
		}
		fmt.Fprintf(t.w, "\n%s %s\n", t.pal.red("FAIL"), r.Name)
		for _, p := range r.Problems {
			fmt.Fprintf(t.w, "    %s\n", strings.ReplaceAll(p.Text, "\n", "\n    "))
		}
		if r.Recording != "" && t.keep {
			fmt.Fprintf(t.w, "    %s\n", t.pal.dim("recording: "+r.Recording))
		}
	}
	var wires []string
	for _, r := range rep.Results {
		if r.Wire != "" && !slices.Contains(wires, r.Wire.String()) {
			wires = append(wires, r.Wire.String())
		}
	}
	summary := fmt.Sprintf("%s in %.1fs: %d passed, %d failed, %d skipped", plural(len(rep.Results), "scenario"), rep.Duration.Seconds(),
		rep.Count(conform.Pass), rep.Count(conform.Fail), rep.Count(conform.Skip))
	if len(wires) > 0 {
		summary += "; the server's model client spoke " + strings.Join(wires, ", ")
	}
	if rep.Failed() {
		summary = t.pal.red(summary)
	} else {
		summary = t.pal.green(summary)
	}
	fmt.Fprintf(t.w, "\n%s\n", summary)
}
