package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
)

// agentFlags are the flags by which explore, conform and test take the
// agent under test, say how to check it and where to report: one set,
// the same in the three commands, registered by newAgentFlags and
// documented by agentHelp from one list (flags). A flag for the three
// commands is a field and a line of that list; a test holds each
// command's usage to its flag set.
type agentFlags struct {
	cmd, url, llm, dir, path string
	startTimeout, timeout    time.Duration
	profile                  string
	client                   string
	allow, enable            listFlag
	allowHosts               listFlag
	plans                    int
	seed                     uint64
	ignoreState              listFlag
	record                   string
	json, junit              string

	def   agentDefaults
	given map[string]bool // the flags given, after parsing
}

// agentDefaults are what the commands' agent flags differ in: the word
// for what they run, and what the help says of --timeout, --plans and
// --record, whose defaults differ.
type agentDefaults struct {
	unit    string // "case", "scenario"
	timeout string // what the help says of --timeout
	plans   string // what the help says of --plans
	record  string // where --record DIR keeps recordings
}

// agentFlag is an entry of the set: name, the word for its value in the
// help, the variable it sets, and what the help says of it (lines after
// the first are indented by help).
type agentFlag struct {
	name, arg string
	value     flag.Value
	help      string
}

// flags lists the set, in the order of the help.
func (a *agentFlags) flags() []agentFlag {
	d := a.def
	return []agentFlag{
		{"cmd", "COMMAND", value(&a.cmd), "the agent to start (sh -c COMMAND): it serves AG-UI\non $PORT, its model client pointed at the scripted LLM"},
		{"url", "URL", value(&a.url), "or the AG-UI endpoint of an agent already running"},
		{"llm", "ADDR", value(&a.llm), "with --url: where the scripted LLM listens, for the\nagent's model client (default " + defaultModelAddr + ")"},
		{"dir", "DIR", value(&a.dir), "with --cmd: COMMAND's working directory"},
		{"path", "PATH", value(&a.path), "with --cmd: the AG-UI endpoint's path (default /)"},
		{"start-timeout", "D", value(&a.startTimeout), "with --cmd: how long COMMAND may take to listen\n(default " + harness.DefaultStartTimeout.String() + ")"},
		{"allow-host", "HOST", &a.allowHosts, "with --cmd: a host other than this machine COMMAND may\nreach; repeatable. Every other request it makes to one\n(through HTTP_PROXY, HTTPS_PROXY, or from Node) is\nrefused and fails the " + d.unit},
		{"timeout", "D", value(&a.timeout), d.timeout},
		{"profile", "P", value(&a.profile), "the verifier's profile: strict (default) or reference"},
		{"client", "VERSION", value(&a.client), "the @ag-ui/client version to check against: 1.0.0\nor 0.0.59 (pinned by CopilotKit 1.74/1.75); default:\nevery supported version under strict, 1.0.0 under\nreference"},
		{"allow", "RULE,...", &a.allow, "verifier rules to waive"},
		{"enable", "RULE,...", &a.enable, "opt-in verifier rules to turn on:\n" + optInRules()},
		{"plans", "N", value(&a.plans), d.plans},
		{"seed", "S", value(&a.seed), "the seed of the random plans (default 1)"},
		{"ignore-state", "POINTER", &a.ignoreState, "a part of the client's state, as a JSON Pointer\n(/messages), that may differ from plan to plan;\nrepeatable"},
		{"record", "DIR", value(&a.record), "keep each " + d.unit + "'s recording in " + d.record + "\n(for aguitest show)"},
		{"json", "FILE", value(&a.json), "also write the report to FILE as JSON Lines (\"-\":\nstandard output, which then shows nothing else)"},
		{"junit", "FILE", value(&a.junit), "also write the report to FILE as JUnit XML, for CI\n(\"-\": standard output)"},
	}
}

// newAgentFlags registers the set on fs.
func newAgentFlags(fs *flag.FlagSet, d agentDefaults) *agentFlags {
	a := &agentFlags{path: "/", allow: commaList(), enable: commaList(), def: d}
	for _, f := range a.flags() {
		fs.Var(f.value, f.name, f.help)
	}
	return a
}

// parsed notes which of the set's flags fs was given, and checks what
// can be checked of them alone; call it after parsing.
func (a *agentFlags) parsed(fs *flag.FlagSet) error {
	a.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { a.given[f.Name] = true })
	for _, f := range []struct{ flag, name string }{{"json", a.json}, {"junit", a.junit}} {
		if f.name != "-" && strings.HasPrefix(f.name, "-") {
			// "--json --only text" would write a file named --only.
			return fmt.Errorf("--%s takes a FILE (\"-\" for standard output), not %q", f.flag, f.name)
		}
	}
	for _, p := range a.ignoreState.values {
		if p != "" && !strings.HasPrefix(p, "/") {
			return fmt.Errorf("--ignore-state %q is not a JSON Pointer: it does not start with / (the state's member messages is /messages)", p)
		}
	}
	if a.json == "-" && a.junit == "-" {
		return fmt.Errorf("--json - and --junit -: only one of them can go to standard output")
	}
	return nil
}

// helpColumn is where the help of a flag starts in a usage.
const helpColumn = 22

// agentHelp is the usage's section of the set.
func agentHelp(d agentDefaults) string {
	var b strings.Builder
	b.WriteString("The agent, its checks and the reports (the same in explore, conform and test;\nflags go before or after the arguments):\n")
	for _, f := range (&agentFlags{def: d}).flags() {
		name := "--" + f.name
		if f.arg != "" {
			name += " " + f.arg
		}
		b.WriteString(helpLine(name, f.help))
	}
	return b.String()
}

// helpLine is a flag's entry in a usage: the flag, its help from
// helpColumn on (on the next line when the flag is too long for it).
func helpLine(flag, help string) string {
	indent := strings.Repeat(" ", helpColumn)
	if len(flag) > helpColumn-4 {
		flag += "\n" + indent // the help on a line of its own
	}
	return fmt.Sprintf("  %-*s%s\n", helpColumn-2, flag, strings.ReplaceAll(help, "\n", "\n"+indent))
}

// value is the flag.Value of a variable, as package flag registers one
// (so that a bool is a flag without a value).
func value[T string | int | uint64 | bool | time.Duration](p *T) flag.Value {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	switch p := any(p).(type) {
	case *string:
		fs.StringVar(p, "v", *p, "")
	case *int:
		fs.IntVar(p, "v", *p, "")
	case *uint64:
		fs.Uint64Var(p, "v", *p, "")
	case *bool:
		fs.BoolVar(p, "v", *p, "")
	case *time.Duration:
		fs.DurationVar(p, "v", *p, "")
	}
	return fs.Lookup("v").Value
}

// optInRules lists the verifier's opt-in rules.
func optInRules() string {
	var names []string
	for _, r := range agui.Rules() {
		if r.OptIn() {
			names = append(names, string(r))
		}
	}
	return strings.Join(names, ", ")
}

// defaultModelAddr is where the scripted LLM listens for an agent given
// by --url, when --llm does not say.
const defaultModelAddr = "127.0.0.1:4010"

// agent makes the agent of --cmd or --url (with --llm, --dir, --path and
// --start-timeout) and a name for it in reports; with --url, modelAddr
// is where the scripted LLM listens. An agent at --url that takes no
// connection is an error: every run would fail for it alone.
func (a *agentFlags) agent() (agent harness.Agent, name, modelAddr string, err error) {
	switch {
	case a.cmd == "" && a.url == "" && !a.given["cmd"]:
		return nil, "", "", fmt.Errorf(`say which agent to test: --cmd "COMMAND" or --url URL`)
	case a.given["cmd"] && a.given["url"]:
		return nil, "", "", fmt.Errorf("--cmd and --url: give one")
	case a.given["cmd"] && strings.TrimSpace(a.cmd) == "":
		return nil, "", "", fmt.Errorf("--cmd is empty")
	case a.url != "":
		for _, f := range []string{"dir", "path", "start-timeout", "allow-host"} {
			if a.given[f] {
				return nil, "", "", fmt.Errorf("--%s goes with --cmd (--url names the endpoint)", f)
			}
		}
		if !strings.HasPrefix(a.url, "http://") && !strings.HasPrefix(a.url, "https://") {
			return nil, "", "", fmt.Errorf("--url %q is not an http:// or https:// URL", a.url)
		}
		llm := a.llm
		if llm == "" {
			llm = defaultModelAddr
		}
		if _, _, err := net.SplitHostPort(llm); err != nil {
			return nil, "", "", fmt.Errorf("--llm %q: want host:port", llm)
		}
		if err := reachable(a.url); err != nil {
			return nil, "", "", err
		}
		return harness.URL(a.url), a.url, llm, nil
	case a.given["llm"]:
		return nil, "", "", fmt.Errorf("--llm goes with --url (with --cmd, the scripted LLM's URL is in the agent's environment)")
	}
	if a.startTimeout < 0 {
		return nil, "", "", fmt.Errorf("--start-timeout %v is negative", a.startTimeout)
	}
	c := shellCommand(a.cmd)
	c.Dir, c.Path, c.StartTimeout, c.AllowHosts = a.dir, a.path, a.startTimeout, a.allowHosts.values
	return c, a.cmd, "", nil
}

// checks are the verifier's settings of the set.
type checks struct {
	// profile is nil when --profile was not given.
	profile       *agui.Profile
	client        agui.Client // "" when --client was not given
	allow, enable []agui.Rule
}

// checks reads --profile, --allow and --enable.
func (a *agentFlags) checks() (checks, error) {
	var c checks
	if a.given["profile"] {
		p, err := agui.ParseProfile(a.profile)
		if err != nil {
			return c, fmt.Errorf("--profile: %v", err)
		}
		c.profile = &p
	}
	var err error
	if a.given["client"] {
		if c.client, err = agui.ParseClient(a.client); err != nil {
			return c, fmt.Errorf("--client: %v", err)
		}
	}
	if c.allow, err = agui.ParseRules(a.allow.String()); err != nil {
		return c, fmt.Errorf("--allow: %v", err)
	}
	if c.enable, err = agui.ParseRules(a.enable.String()); err != nil {
		return c, fmt.Errorf("--enable: %v", err)
	}
	for _, r := range c.enable {
		if !r.OptIn() {
			return c, fmt.Errorf("--enable: %s is not an opt-in rule; it applies already", r)
		}
	}
	return c, nil
}

// runTimeout reads --timeout: 0 when it was not given.
func (a *agentFlags) runTimeout() (time.Duration, error) {
	if a.timeout < 0 {
		return 0, fmt.Errorf("--timeout %v is negative", a.timeout)
	}
	return a.timeout, nil
}

// exploration reads --plans and --seed. Without --plans, def says what
// the command explores: def plans (def > 0), the harness's default
// exploration (0: nil, or its budget with --seed's seed), or what each
// case says (def < 0: nil). --plans 0 turns exploration off.
func (a *agentFlags) exploration(def int) (*harness.Explore, error) {
	if !a.given["plans"] {
		switch {
		case def > 0:
			return &harness.Explore{Plans: def, Seed: a.seed}, nil
		case def == 0 && a.given["seed"]:
			return &harness.Explore{Seed: a.seed}, nil
		}
		return nil, nil
	}
	switch {
	case a.plans < 0:
		return nil, fmt.Errorf("--plans %d is negative", a.plans)
	case a.plans == 0 && a.given["seed"]:
		return nil, fmt.Errorf("--seed goes with exploration, which --plans 0 turns off")
	case a.plans == 0:
		return &harness.Explore{Off: true}, nil
	}
	return &harness.Explore{Plans: a.plans, Seed: a.seed}, nil
}

// reports are the files of --json and --junit, open.
type reports struct {
	json, junit io.Writer
	// quiet says a report goes to standard output, where the command then
	// prints nothing else.
	quiet bool
	files []*os.File
}

// openReports creates the files of --json and --junit before the run,
// so that a file that cannot be written is said at once rather than
// after it. Call parsed first.
func (a *agentFlags) openReports(stdout io.Writer) (*reports, error) {
	r := &reports{}
	for _, f := range []struct {
		flag, name string
		to         *io.Writer
	}{{"json", a.json, &r.json}, {"junit", a.junit, &r.junit}} {
		switch {
		case f.name == "-":
			*f.to, r.quiet = stdout, true
		case f.name != "":
			file, err := os.Create(f.name)
			if err != nil {
				r.close()
				return nil, fmt.Errorf("--%s: %v", f.flag, err)
			}
			r.files = append(r.files, file)
			*f.to = file
		}
	}
	return r, nil
}

// close closes the report files, returning the first error.
func (r *reports) close() error {
	var first error
	for _, f := range r.files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	r.files = nil
	return first
}
