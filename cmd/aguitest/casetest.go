package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/harness"
)

// testDefaults are test's defaults of the agent flags.
var testDefaults = agentDefaults{
	unit: "case",
	timeout: `each run's bound (default: the file's timeout:, or
` + conform.DefaultTimeout.String() + `): a run that takes longer hangs`,
	plans: fmt.Sprintf(`explore every case under N other plans of its script
(default: as the case's explore: says, or %d; 0: none)`, harness.DefaultPlans),
	record: "DIR/NAME, NAME the\nfile's name",
}

var testUsage = `usage: aguitest test FILE... --cmd "COMMAND" [flags]
       aguitest test FILE... --url URL [--llm ADDR] [flags]

Runs the cases of each file against an AG-UI agent, as "go test" runs the
harness's table-driven tests: for each case, the scripted LLM answers with
the case's script, the client posts the input, runs the client's tools
with their canned results, answers interrupts, sends the follow-ups, and
every run is verified (Strict by default). Then the script must be used
up, the client's messages and state must match the case's golden file and
the case's expectations must hold. The agent may be written in any
language.

With --cmd, COMMAND (run by the shell) is started once and serves case
after case (started again only after a run that failed), with
OPENAI_BASE_URL, OPENAI_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY,
GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY and PORT in its environment, and
must serve AG-UI on PORT (POST to --path). With --url, the agent is
already running, its model client's base URL set once to http://ADDR/v1:
the scripted LLM listens on --llm ADDR, each case's script in turn.

Goldens live in testdata/NAME/CASE.golden next to the file NAME.yaml;
--update writes them. "aguitest test --schema" prints the file format's
JSON Schema; the format, in short:

  timeout: 20s
  cases:
    - name: weather
      input: {user: "Weather in Paris?"}      # or messages:, state:, follow_ups:
      script:                                 # as "aguitest llm serve" reads it
        turns:
          - calls: [{name: get_weather, args: '{"city":"Paris"}'}]
          - text: It is 18°C in Paris.
      tools: [{name: show_on_map, result: shown}]   # the client's, canned
      answers: [{tool: delete_file, payload: {approved: true}}]
      expect:
        text: {matches: "18°C"}
        calls: [{name: get_weather, args: {city: Paris}, count: 1}]
        state: {/unit: C}
      want_error: {message: "rate limit"}     # a run must end in RUN_ERROR

` + agentHelp(testDefaults) + `
Flags:
  --run REGEXP        run only the cases whose names match
  --update            write the golden files instead of comparing them
  -v                  print each case as it starts and passes
  --schema            print the case file's JSON Schema and exit

--json writes a line per case (suite: the file, case, line, status,
reason, problems with their kind, run and rule, notes, exploration,
duration_ms), then a summary (pass, fail, skip, errors, error,
duration_ms). --junit writes a testsuite per file with a testcase per
case: a failure (or an error, for an agent that did not start) with
every problem at the case's file:line.

Example:
  aguitest test agent_cases.yaml --cmd "python server.py"
  aguitest test agent_cases.yaml --cmd "node server.mjs" --update
  aguitest test agent_cases.yaml --cmd "node server.mjs" --junit report.xml

Exit status: 0 every case passed, 1 one failed, 2 bad usage, a file with
mistakes (each named by file:line) or an agent that did not start.
`

func cmdTest(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	af := newAgentFlags(fs, testDefaults)
	runPattern := fs.String("run", "", "run only the cases whose names match")
	update := fs.Bool("update", false, "write the golden files")
	verbose := fs.Bool("v", false, "print each case as it starts and passes")
	schema := fs.Bool("schema", false, "print the JSON Schema")
	if code := parseFlags(fs, args, testUsage, stdout, stderr); code >= 0 {
		return code
	}
	files := fs.Args()
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "aguitest test: "+format+"\n", args...)
		return 2
	}
	if err := af.parsed(fs); err != nil {
		return fail("%v", err)
	}
	if *schema {
		stdout.Write(conform.Schema)
		return 0
	}
	if len(files) == 0 {
		return fail("name a case file\n\n%s", testUsage)
	}
	var sel *regexp.Regexp
	if *runPattern != "" {
		var err error
		if sel, err = regexp.Compile(*runPattern); err != nil {
			return fail("--run: %v", err)
		}
	}
	timeout, err := af.runTimeout()
	if err != nil {
		return fail("%v", err)
	}
	ch, err := af.checks()
	if err != nil {
		return fail("%v", err)
	}
	explore, err := af.exploration(-1)
	if err != nil {
		return fail("%v", err)
	}
	var loaded []*conform.CaseFile
	bad := false
	for _, name := range files {
		f, err := conform.LoadCases(name)
		if err != nil {
			fmt.Fprintf(stderr, "%v\n", err)
			bad = true
			continue
		}
		loaded = append(loaded, f)
	}
	if bad {
		return 2
	}
	agent, _, llm, err := af.agent()
	if err != nil {
		return fail("%v\n\n%s", err, testUsage)
	}
	// A --cmd program serves case after case, file after file, and an
	// explored case's plans, started again only after a failed run.
	agent, stopAgent := harness.Pool(agent, runtime.GOMAXPROCS(0))
	defer stopAgent()
	out, err := af.openReports(stdout)
	if err != nil {
		return fail("%v", err)
	}
	defer out.close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	w := stdout
	if out.quiet {
		w = io.Discard
	}
	pal := colorFor(w)
	exit := 0
	var suites []suite
	for _, f := range loaded {
		o := harness.Options{Dir: f.GoldenDir(), Update: *update, Timeout: f.Timeout, ModelAddr: llm, IgnoreState: af.ignoreState.values}
		if timeout > 0 {
			o.Timeout = timeout
		}
		if o.Timeout == 0 {
			o.Timeout = conform.DefaultTimeout
		}
		if af.record != "" {
			// One folder per file, as the goldens: case names are a file's own.
			o.RecordDir = filepath.Join(af.record, filepath.Base(f.GoldenDir()))
		}
		for i := range f.Cases {
			c := &f.Cases[i]
			switch {
			case explore != nil:
				c.Explore = explore
			case af.given["seed"]:
				var x harness.Explore
				if c.Explore != nil {
					x = *c.Explore
				}
				x.Seed = af.seed
				c.Explore = &x
			}
			if ch.profile != nil {
				c.Profile = *ch.profile
			}
			if ch.client != "" {
				c.Client = ch.client
			}
			c.Allow = append(c.Allow, ch.allow...)
			c.Enable = append(c.Enable, ch.enable...)
			if ch.frontend != "" {
				c.Frontend = ch.frontend
			}
		}
		s, code := testFile(ctx, w, pal, o, af, agent, f, sel, *verbose)
		suites = append(suites, s)
		exit = max(exit, code)
		if ctx.Err() != nil {
			break
		}
	}
	if err := out.write("aguitest test", suites); err != nil {
		return fail("%v", err)
	}
	if ctx.Err() != nil {
		return fail("interrupted")
	}
	return exit
}

// testFile runs a file's cases and prints their results as "go test"
// does: a "--- FAIL" line for each failing case with its problems under
// it, each at the case's file:line, and a last line for the file. It
// returns the file's suite for the machine reports, and the exit status:
// 0 all passed, 1 a case failed, 2 the agent did not start.
func testFile(ctx context.Context, w io.Writer, pal palette, o harness.Options, af *agentFlags, agent harness.Agent, f *conform.CaseFile, sel *regexp.Regexp, verbose bool) (suite, int) {
	start := time.Now()
	s := suite{Name: f.Path, class: "aguitest.test." + strings.TrimSuffix(filepath.Base(f.Path), filepath.Ext(f.Path)), Start: start}
	code, ran := 0, 0
	for i, c := range f.Cases {
		if sel != nil && !sel.MatchString(c.Name) {
			continue
		}
		ran++
		if verbose {
			fmt.Fprintf(w, "=== RUN   %s\n", c.Name)
		}
		caseStart := time.Now()
		rep := o.Test(ctx, agent, c)
		took := time.Since(caseStart)
		rep.Problems = af.withPathHint(rep.Problems)
		for j, p := range rep.Problems {
			// The golden's hint names the command's flag, not go test's.
			rep.Problems[j].Text = strings.ReplaceAll(p.Text, "run go test with -update", "run aguitest test with --update")
		}
		oc := outcomeOf(rep, took)
		oc.File, oc.Line = f.Path, f.Lines[i]
		s.Outcomes = append(s.Outcomes, oc)
		if verbose && rep.Exploration != nil {
			fmt.Fprintf(w, "    %s:%d: explored under %s\n", f.Path, f.Lines[i], rep.Exploration)
		}
		if !rep.Failed() {
			if verbose {
				fmt.Fprintf(w, "--- %s: %s (%.2fs)\n", pal.green("PASS"), c.Name, took.Seconds())
			}
			continue
		}
		fmt.Fprintf(w, "--- %s: %s (%.2fs)\n", pal.red("FAIL"), c.Name, took.Seconds())
		for _, p := range rep.Problems {
			fmt.Fprintf(w, "    %s:%d: %s\n", f.Path, f.Lines[i], strings.ReplaceAll(p.Text, "\n", "\n        "))
		}
		code = max(code, 1)
		if oc.Status == statusError {
			code = 2 // the agent did not start: the other cases would not either
			s.Err = rep.Problems[0].Text
			break
		}
		if ctx.Err() != nil {
			s.Err = "interrupted"
			break
		}
	}
	s.Duration = time.Since(start)
	took := s.Duration.Seconds()
	switch {
	case ran == 0:
		fmt.Fprintf(w, "ok  \t%s\t%.3fs [no cases to run]\n", f.Path, took)
	case code == 0:
		fmt.Fprintf(w, "%s  \t%s\t%.3fs\n", pal.green("ok"), f.Path, took)
	default:
		fmt.Fprintf(w, "%s\n%s\t%s\t%.3fs\n", pal.red("FAIL"), pal.red("FAIL"), f.Path, took)
	}
	return s, code
}
