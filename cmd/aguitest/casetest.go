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
	"strings"
	"time"

	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/harness"
)

const testUsage = `usage: aguitest test FILE... --cmd "COMMAND" [flags]
       aguitest test FILE... --url URL [--llm ADDR] [flags]

Runs the cases of each file against an AG-UI agent, as "go test" runs the
harness's table-driven tests: for each case, the scripted LLM answers with
the case's script, the client posts the input, runs the client's tools
with their canned results, answers interrupts, sends the follow-ups, and
every run is verified (Strict by default). Then the script must be used
up, the client's messages and state must match the case's golden file and
the case's expectations must hold. The agent may be written in any
language.

With --cmd, COMMAND (run by the shell) is started for each case with
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

Flags:
  --cmd COMMAND     the agent to start for each case (sh -c COMMAND)
  --url URL         or the AG-UI endpoint of an agent already running
  --llm ADDR        with --url: where the scripted LLM listens (default 127.0.0.1:4010)
  --dir DIR         COMMAND's working directory
  --path PATH       the AG-UI endpoint's path (default /)
  --allow-host HOST a host other than this machine COMMAND may reach;
                    repeatable. Every other request it makes to one (through
                    HTTP_PROXY, HTTPS_PROXY, or from Node) is refused and
                    fails the case
  --run REGEXP      run only the cases whose names match
  --update          write the golden files instead of comparing them
  --plans N         explore every case under N other plans of its script
                    (default: as the case's explore: says, or none)
  --seed S          the seed of the random plans (default 1)
  --timeout D       each run's bound (default: the file's timeout:, or 20s)
  --record DIR      keep each case's recording in DIR/NAME (for aguitest show)
  -v                print each case as it starts and passes
  --schema          print the case file's JSON Schema and exit

Example:
  aguitest test agent_cases.yaml --cmd "python server.py"
  aguitest test agent_cases.yaml --cmd "node server.mjs" --update

Exit status: 0 every case passed, 1 one failed, 2 bad usage, a file with
mistakes (each named by file:line) or an agent that did not start.
`

func cmdTest(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	command := fs.String("cmd", "", "the agent to start for each case")
	url := fs.String("url", "", "the AG-UI endpoint of an agent already running")
	llmAddr := fs.String("llm", "", "with --url: where the scripted LLM listens")
	dir := fs.String("dir", "", "the command's working directory")
	path := fs.String("path", "/", "the AG-UI endpoint's path")
	var allowHosts listFlag
	fs.Var(&allowHosts, "allow-host", "hosts the agent may reach")
	runPattern := fs.String("run", "", "run only the cases whose names match")
	update := fs.Bool("update", false, "write the golden files")
	timeout := fs.Duration("timeout", 0, "each run's bound")
	plans := fs.Int("plans", 0, "plans to explore every case under")
	seed := fs.Uint64("seed", 0, "the seed of the random plans")
	recordDir := fs.String("record", "", "keep recordings in this directory")
	verbose := fs.Bool("v", false, "print each case as it starts and passes")
	schema := fs.Bool("schema", false, "print the JSON Schema")
	files, code := parseInterspersed(fs, args, testUsage, stdout, stderr)
	if code >= 0 {
		return code
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "aguitest test: "+format+"\n", args...)
		return 2
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
	if *timeout < 0 {
		return fail("--timeout %v is negative", *timeout)
	}
	explore, err := exploreFlags(*plans, *seed)
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
	var llm string
	agent, _, msg := serverFlags(*command, *url, *llmAddr, *dir, *path, &llm)
	if c, ok := agent.(*harness.CommandAgent); ok {
		c.AllowHosts = allowHosts
	}
	if msg != "" {
		return fail("%s\n\n%s", msg, testUsage)
	}
	if err := reachable(*url); err != nil {
		return fail("%v", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	pal := colorFor(stdout)
	exit := 0
	for _, f := range loaded {
		o := harness.Options{Dir: f.GoldenDir(), Update: *update, Timeout: f.Timeout, ModelAddr: llm}
		if *timeout > 0 {
			o.Timeout = *timeout
		}
		if o.Timeout == 0 {
			o.Timeout = conform.DefaultTimeout
		}
		if *recordDir != "" {
			// One folder per file, as the goldens: case names are a file's own.
			o.RecordDir = filepath.Join(*recordDir, filepath.Base(f.GoldenDir()))
		}
		if explore != nil {
			for i := range f.Cases {
				f.Cases[i].Explore = explore
			}
		}
		if code := testFile(ctx, stdout, pal, o, agent, f, sel, *verbose); code > exit {
			exit = code
		}
		if ctx.Err() != nil {
			return fail("interrupted")
		}
	}
	return exit
}

// testFile runs a file's cases and prints their results as "go test"
// does: a "--- FAIL" line for each failing case with its problems under
// it, each at the case's file:line, and a last line for the file. It
// returns the exit status: 0 all passed, 1 a case failed, 2 the agent did
// not start.
func testFile(ctx context.Context, w io.Writer, pal palette, o harness.Options, agent harness.Agent, f *conform.CaseFile, sel *regexp.Regexp, verbose bool) int {
	start := time.Now()
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
		took := time.Since(caseStart).Seconds()
		if verbose && rep.Exploration != nil {
			fmt.Fprintf(w, "    %s:%d: explored under %s\n", f.Path, f.Lines[i], rep.Exploration)
		}
		if !rep.Failed() {
			if verbose {
				fmt.Fprintf(w, "--- %s: %s (%.2fs)\n", pal.green("PASS"), c.Name, took)
			}
			continue
		}
		fmt.Fprintf(w, "--- %s: %s (%.2fs)\n", pal.red("FAIL"), c.Name, took)
		for _, p := range rep.Problems {
			// The golden's hint names the command's flag, not go test's.
			text := strings.ReplaceAll(p.Text, "run go test with -update", "run aguitest test with --update")
			fmt.Fprintf(w, "    %s:%d: %s\n", f.Path, f.Lines[i], strings.ReplaceAll(text, "\n", "\n        "))
		}
		code = max(code, 1)
		if rep.Result == nil && len(rep.Problems) > 0 && rep.Problems[0].Kind == harness.ProblemCase {
			code = 2 // the agent did not start: the other cases would not either
			break
		}
		if ctx.Err() != nil {
			break
		}
	}
	took := time.Since(start).Seconds()
	switch {
	case ran == 0:
		fmt.Fprintf(w, "ok  \t%s\t%.3fs [no cases to run]\n", f.Path, took)
	case code == 0:
		fmt.Fprintf(w, "%s  \t%s\t%.3fs\n", pal.green("ok"), f.Path, took)
	default:
		fmt.Fprintf(w, "%s\n%s\t%s\t%.3fs\n", pal.red("FAIL"), pal.red("FAIL"), f.Path, took)
	}
	return code
}

// parseInterspersed parses flags placed before, between and after the
// positional arguments ("aguitest test cases.yaml --cmd ..."), which
// package flag stops at, and returns the positional ones. The int is as
// parseFlags returns it.
func parseInterspersed(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) ([]string, int) {
	var pos []string
	for {
		if code := parseFlags(fs, args, usage, stdout, stderr); code >= 0 {
			return nil, code
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, -1
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
