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

	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/harness"
)

// conformDefaults are conform's defaults of the agent flags.
var conformDefaults = agentDefaults{
	unit:    "scenario",
	timeout: "each run's bound (default " + conform.DefaultTimeout.String() + "): a run that takes\nlonger hangs",
	plans: fmt.Sprintf(`also run each scenario that streams an answer under N
other plans of its script (exploration; default %d, the
known bugs' shapes first; 0: none); every plan must
verify and leave the client with the same view`, harness.DefaultPlans),
	record: "DIR",
}

var conformUsage = `usage: aguitest conform --cmd "COMMAND" [flags]
       aguitest conform --url URL [--llm ADDR] [flags]

Runs the conformance battery against an AG-UI server: scenarios any server
can take, since they use only what the protocol gives a client (text cut
mid-character, reasoning, the client's tools alone, in parallel, chained,
failing and without arguments, text between calls, state, follow-ups,
provider failures, a client that leaves mid-run; the server's own tools and
interrupts when --config names them). Every run is verified as the
reference client reads it, and what the model said must reach the client.
A table shows each scenario as it ends (its first problem, and notes of
what the checks saw without finding fault), then each failure in full;
--json and --junit write the same report for machines in the same run.

The server's LLM client is pointed at a scripted LLM that speaks every
provider wire (OpenAI Chat Completions and Responses, Anthropic Messages,
Gemini). With --cmd, COMMAND (run by the shell) is started once and
serves scenario after scenario (started again only after a run that
failed), with OPENAI_BASE_URL, OPENAI_API_KEY, ANTHROPIC_BASE_URL,
ANTHROPIC_API_KEY, GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY and PORT in its
environment, and must serve AG-UI on PORT (POST to --path). With --url,
the server is already running, its model client's base URL set once to
http://ADDR/v1 (OPENAI_BASE_URL and the like): the scripted LLM listens on
--llm ADDR, each scenario's script in turn.

` + agentHelp(conformDefaults) + `
Flags:
  --config FILE       the server's own tools and interrupts, waivers (see below)
  --only NAME,...     run only these scenarios (names or patterns: provider-*)
  --skip NAME,...     leave these out
  --html FILE         write a page with each failing scenario's timeline
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

--json writes a line per scenario (scenario, status, reason, wire,
problems with their kind, run and rule, notes, duration_ms, doc), then a
summary (profile, pass, fail, skip, error, duration_ms). --junit writes a
testsuite with a testcase per scenario: a failure (or an error, for a
server that did not start) with every problem, skipped with its reason,
the notes as system-out.

Example:
  aguitest conform --cmd "node server.js"
  aguitest conform --cmd "npm start" --dir ./agent --path /agent --config conform.yaml --html report.html
  aguitest conform --cmd "node server.js" --json report.jsonl --junit report.xml
  OPENAI_BASE_URL=http://127.0.0.1:4010/v1 python server.py &
  aguitest conform --url http://127.0.0.1:8000/agent

Exit status: 0 every scenario passed or was skipped, 1 one failed, 2 bad
usage, an unreadable configuration, or a server that did not start.
`

func cmdConform(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	af := newAgentFlags(fs, conformDefaults)
	configFile := fs.String("config", "", "configuration file")
	only, skip := commaList(), commaList()
	fs.Var(&only, "only", "scenarios to run")
	fs.Var(&skip, "skip", "scenarios to leave out")
	htmlOut := fs.String("html", "", "write an HTML page")
	list := fs.Bool("list", false, "list the scenarios")
	if code := parseFlags(fs, args, conformUsage, stdout, stderr); code >= 0 {
		return code
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "aguitest conform: "+format+"\n", args...)
		return 2
	}
	if err := af.parsed(fs); err != nil {
		return fail("%v", err)
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
	ch, err := af.checks()
	if err != nil {
		return fail("%v", err)
	}
	if ch.profile != nil {
		cfg.Profile = *ch.profile
	}
	if ch.client != "" {
		cfg.Client = ch.client
	}
	cfg.Allow = append(cfg.Allow, ch.allow...)
	cfg.Enable = append(cfg.Enable, ch.enable...)
	if ch.frontend != "" {
		cfg.Frontend = ch.frontend
	}
	cfg.IgnoreState = append(cfg.IgnoreState, af.ignoreState.values...)
	cfg.Only = append(cfg.Only, only.values...)
	cfg.Skip = append(cfg.Skip, skip.values...)
	timeout, err := af.runTimeout()
	if err != nil {
		return fail("%v", err)
	}
	if timeout > 0 {
		cfg.Timeout = timeout
	}
	if err := cfg.CheckPatterns(); err != nil {
		return fail("%v", err)
	}
	if x, err := af.exploration(0); err != nil {
		return fail("%v", err)
	} else if x != nil {
		cfg.Explore = x
	}
	if *list {
		listScenarios(stdout, cfg)
		return 0
	}
	agent, server, llm, err := af.agent()
	if err != nil {
		return fail("%v\n\n%s", err, conformUsage)
	}
	cfg.ModelAddr = llm
	out, err := af.openReports(stdout)
	if err != nil {
		return fail("%v", err)
	}
	defer out.close()

	if af.record == "" && *htmlOut != "" {
		tmp, err := os.MkdirTemp("", "aguitest-conform-*")
		if err != nil {
			return fail("%v", err)
		}
		defer os.RemoveAll(tmp)
		cfg.RecordDir = tmp
	} else {
		cfg.RecordDir = af.record
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	pal := colorFor(stdout)
	var tab *conformTable
	if !out.quiet {
		tab = newConformTable(stdout, pal, cfg)
		tab.keep = af.record != ""
		fmt.Fprintf(stdout, "aguitest conform: %s, %s, profile %s\n\n", server, plural(tab.count, "scenario"), cfg.Profile)
		if cfg.ModelAddr != "" {
			fmt.Fprintf(stdout, "the scripted LLM: http://%s/v1 (the server's model client must use it)\n\n", cfg.ModelAddr)
		}
		tab.header()
	}
	cfg.OnResult = func(r conform.Result) {
		if tab != nil {
			r.Problems = af.withPathHint(r.Problems)
			tab.row(r)
		}
	}
	start := time.Now()
	rep := conform.Run(ctx, agent, cfg)
	for i := range rep.Results {
		rep.Results[i].Problems = af.withPathHint(rep.Results[i].Problems)
	}
	if tab != nil {
		tab.end(&rep)
	}
	if out.json != nil {
		if err := rep.WriteJSON(out.json, false); err != nil {
			return fail("--json: %v", err)
		}
		out.json = nil // written
	}
	s := suite{Name: "aguitest conform " + server, class: "aguitest.conform", Start: start, Duration: rep.Duration}
	for _, r := range rep.Results {
		s.Outcomes = append(s.Outcomes, scenarioOutcome(r))
	}
	if rep.Err != nil {
		s.Err = rep.Err.Error()
	}
	if err := out.write("aguitest conform", []suite{s}); err != nil {
		return fail("%v", err)
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

// The widths of a row: its first problem's first line shows up to
// problemWidth (the problems follow the table in full); the notes, on
// the rows of scenarios that passed or were skipped, start after
// notesAt and show up to notesWidth.
const (
	problemWidth = 110
	notesAt      = 40
	notesWidth   = 100
)

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
	fmt.Fprintln(t.w, t.pal.bold(fmt.Sprintf("%-*s  %-6s  %-*s  %s", t.width, "SCENARIO", "RESULT", notesAt, "PROBLEM", "NOTES")))
}

// row prints a scenario's row: its result and its first problem, or, in
// a column of their own, what the checks noted without finding fault (or
// why it was skipped), which is no problem. A failing scenario's notes
// follow its problems after the table.
func (t *conformTable) row(r conform.Result) {
	var line string
	switch r.Status {
	case conform.Fail:
		problem := ""
		if len(r.Problems) > 0 {
			problem, _, _ = strings.Cut(r.Problems[0].Text, "\n")
		}
		line = fmt.Sprintf("%-*s  %s  %s", t.width, r.Name, t.pal.red(fmt.Sprintf("%-6s", "FAIL")), clip(problem, problemWidth))
	default:
		status, notes := t.pal.green(fmt.Sprintf("%-6s", "pass")), strings.Join(r.Notes, "; ")
		if r.Status != conform.Pass {
			status, notes = t.pal.dim(fmt.Sprintf("%-6s", r.Status)), "skipped: "+r.Reason
		}
		line = fmt.Sprintf("%-*s  %s  %s", t.width, r.Name, status, strings.Repeat(" ", notesAt))
		if notes != "" {
			line += "  " + t.pal.dim(clip(notes, notesWidth))
		}
	}
	fmt.Fprintln(t.w, strings.TrimRight(line, " "))
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
		for _, n := range r.Notes {
			fmt.Fprintf(t.w, "    %s\n", t.pal.dim("note: "+n))
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
