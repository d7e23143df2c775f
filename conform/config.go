package conform

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/yamlfile"
	"github.com/aguitest/aguitest/scripted"
)

// Config says what the battery needs to know of a server and how to judge
// it. The zero Config runs every scenario that needs no configuration under
// the Strict profile.
type Config struct {
	// Tools are tools of the server's own, which it runs itself: a
	// BackendTool scenario each.
	Tools []ServerTool
	// Interrupts are tools the server asks the user about before it runs
	// them (RUN_FINISHED with the outcome "interrupt"): an Interrupt
	// scenario each.
	Interrupts []InterruptTool
	// Profile is the verifier profile every run is checked with.
	Profile agui.Profile
	// Client names the @ag-ui/client version runs are checked against
	// (agui.Options.Client; every supported version by default).
	Client agui.Client
	// Allow waives verifier rules; Enable turns on opt-in ones.
	Allow, Enable []agui.Rule
	// Only, when not empty, runs only the scenarios these patterns
	// select; Skip leaves out those they select. A pattern is a name,
	// or a pattern of path.Match ("provider-*"); "backend-tool" selects
	// every backend-tool/… scenario.
	Only, Skip []string
	// Timeout bounds each run of a scenario; 0 means DefaultTimeout.
	Timeout time.Duration
	// Frontend is the client the battery plays (harness.Options.Frontend):
	// CopilotKit's by default, whose failed tool reaches the model as a
	// tool message "Error: <message>" with the user's next message; the
	// ToolError scenario follows it, and ToolErrorField posts the error
	// field @ag-ui/core's ToolMessage also allows.
	Frontend harness.Frontend
	// Explore says how each scenario that streams a model's answer (not
	// the provider failures, nor client-disconnect, whose point is a
	// stream cut where it is) runs under other plans of its script
	// (harness.Explore): every plan must verify, pass the fidelity checks
	// and leave the client with the same view. nil explores them within
	// the harness's default budget (harness.DefaultPlans); Off turns it
	// off.
	Explore *harness.Explore
	// IgnoreState leaves parts of the client's state, as JSON Pointers
	// into it, out of the comparisons of every explored scenario
	// (harness.Options.IgnoreState).
	IgnoreState []string
	// RecordDir, when set, keeps a recording of each scenario, its runs
	// and the model's exchanges, in RecordDir (harness.Options.RecordDir;
	// Result.Recording names the file), for "aguitest show".
	RecordDir string
	// ModelAddr, when set, is where the scripted LLM listens, scenario after
	// scenario (harness.Options.ModelAddr), for a server already running
	// (harness.URL) whose model client was given http://ModelAddr/v1.
	ModelAddr string
	// OnResult, when set, is told of each scenario's result as it comes.
	OnResult func(Result)
	// Declared are the tools the server declares to its model, each a
	// GeneratedCall scenario. Run fills it from the model's requests of
	// the scenarios before (the server's own tools: those no scenario's
	// client offered); set it to run those scenarios from Cases.
	Declared []scripted.Tool
}

// DefaultTimeout is how long a run of a scenario may take when
// Config.Timeout is 0: a run that takes longer hangs.
const DefaultTimeout = 20 * time.Second

// ServerTool is a tool of the server's own, and how the model calls it.
type ServerTool struct {
	// Name is the tool's name, as the server gives it to the model.
	Name string
	// Args are the arguments the model calls it with, a JSON object.
	Args json.RawMessage
	// Prompt is the user's message; "" means "Use the tool NAME.".
	Prompt string
	// Result, when set, is what the call's result (TOOL_CALL_RESULT) must
	// hold.
	Result *Value
}

func (t ServerTool) prompt() string {
	if t.Prompt != "" {
		return t.Prompt
	}
	return "Use the tool " + t.Name + "."
}

// InterruptTool is a tool the server asks the user about before it runs
// it, how the model calls it, and what the user answers.
type InterruptTool struct {
	// Tool is the tool's name.
	Tool string
	// Args are the arguments the model calls it with, a JSON object.
	Args json.RawMessage
	// Prompt is the user's message; "" means "Use the tool TOOL.".
	Prompt string
	// Payload is the answer's payload (the resume entry resolves the
	// interrupt with it), JSON; nil sends none.
	Payload json.RawMessage
	// Reason, when set, answers the interrupts with this reason instead of
	// those whose toolCallId is a call to Tool the client holds (for a
	// server whose interrupt names a call it never streamed).
	Reason string
}

// answer is how the client answers the interrupt.
func (t InterruptTool) answer() harness.Answer {
	if t.Reason != "" {
		return harness.Answer{Reason: t.Reason, Payload: t.Payload}
	}
	return harness.Answer{Tool: t.Tool, Payload: t.Payload}
}

func (t InterruptTool) prompt() string {
	if t.Prompt != "" {
		return t.Prompt
	}
	return "Use the tool " + t.Tool + "."
}

// Selects reports whether Only and Skip let the scenario named name run.
func (c Config) Selects(name string) bool {
	if len(c.Only) > 0 && !matchAny(c.Only, name) {
		return false
	}
	return !matchAny(c.Skip, name)
}

func matchAny(patterns []string, name string) bool {
	base, _, _ := strings.Cut(name, "/")
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
		if ok, _ := path.Match(p, base); ok && !strings.Contains(p, "/") {
			return true
		}
	}
	return false
}

// CheckPatterns returns an error naming each pattern of Only and Skip that
// selects no scenario of the battery (a typo would select nothing and
// run nothing), or that is not a valid pattern.
func (c Config) CheckPatterns() error {
	var names []string
	for _, s := range Battery(c) {
		names = append(names, s.Name)
	}
	var bad []string
	for _, p := range append(append([]string(nil), c.Only...), c.Skip...) {
		if _, err := path.Match(p, ""); err != nil {
			bad = append(bad, fmt.Sprintf("%q is not a pattern: %v", p, err))
			continue
		}
		hit := false
		for _, n := range names {
			if matchAny([]string{p}, n) {
				hit = true
			}
		}
		if !hit {
			bad = append(bad, fmt.Sprintf("%q selects no scenario", p))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s (the scenarios: %s)", strings.Join(bad, "; "), strings.Join(names, ", "))
	}
	return nil
}

// LoadConfig reads a configuration file, YAML or JSON; every error names
// the file and line:
//
//	# the server's own tools: a backend-tool scenario each
//	tools:
//	  - name: get_weather
//	    args: {city: Paris}          # what the model calls it with
//	    prompt: Weather in Paris?    # the user's message (optional)
//	    result: {matches: "18"}      # what its result must hold (optional)
//	# tools the server asks the user about first: an interrupt scenario each
//	interrupts:
//	  - tool: delete_file
//	    args: {path: notes.txt}
//	    answer: {approved: true}     # the payload the client resumes with
//	    reason: approval             # answer the interrupts of this reason (optional)
//	profile: strict                  # or reference
//	client: 0.0.59                   # the @ag-ui/client checked against (optional)
//	allow: [rule, ...]               # verifier rules waived
//	enable: [rule, ...]              # opt-in rules turned on
//	timeout: 20s                     # each run's bound
//	only: [text, frontend-*]         # scenarios to run (optional)
//	skip: [provider-429]             # scenarios to leave out (optional)
//	ignore_state: [/messages]        # state that may differ from plan to plan (optional)
func LoadConfig(file string) (Config, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return Config{}, err
	}
	var f configFile
	doc, err := yamlfile.Decode(file, "configuration", data, &f)
	if err != nil {
		return Config{}, errors.New(typeNames.Replace(err.Error()))
	}
	var errs []string
	where := func(key string, i int) string {
		lines := yamlfile.ItemLines(doc, key)
		if i < len(lines) {
			return fmt.Sprintf("%s:%d", file, lines[i])
		}
		return file
	}
	cfg := Config{Profile: f.Profile.p, Client: f.Client.c, Timeout: time.Duration(f.Timeout), Only: f.Only, Skip: f.Skip, IgnoreState: f.IgnoreState}
	for i, p := range f.IgnoreState {
		if p != "" && !strings.HasPrefix(p, "/") {
			errs = append(errs, fmt.Sprintf("%s: ignore_state: %q is not a JSON Pointer: it does not start with / (the state's member messages is /messages)", where("ignore_state", i), p))
		}
	}
	for _, r := range f.Allow {
		cfg.Allow = append(cfg.Allow, agui.Rule(r))
	}
	for _, r := range f.Enable {
		cfg.Enable = append(cfg.Enable, agui.Rule(r))
	}
	for i, t := range f.Tools {
		if t.Name == "" {
			errs = append(errs, where("tools", i)+": a tool needs its name")
		}
		if err := objectArgs(t.Args.v); err != nil {
			errs = append(errs, where("tools", i)+": args: "+err.Error())
		}
		cfg.Tools = append(cfg.Tools, ServerTool{Name: t.Name, Args: t.Args.v, Prompt: t.Prompt, Result: t.Result})
	}
	for i, t := range f.Interrupts {
		if t.Tool == "" {
			errs = append(errs, where("interrupts", i)+": an interrupt needs the tool's name (tool:)")
		}
		if err := objectArgs(t.Args.v); err != nil {
			errs = append(errs, where("interrupts", i)+": args: "+err.Error())
		}
		cfg.Interrupts = append(cfg.Interrupts, InterruptTool{Tool: t.Tool, Reason: t.Reason, Args: t.Args.v, Prompt: t.Prompt, Payload: t.Answer.v})
	}
	if len(errs) > 0 {
		return Config{}, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	if err := cfg.CheckPatterns(); err != nil {
		return Config{}, fmt.Errorf("%s: %v", file, err)
	}
	return cfg, nil
}

// objectArgs reports arguments that are not a JSON object; none is {}.
func objectArgs(args json.RawMessage) error {
	if args == nil {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || m == nil {
		return fmt.Errorf("want an object, got %s", args)
	}
	return nil
}

// configFile is the configuration as the file has it.
type configFile struct {
	Tools       []configTool      `yaml:"tools"`
	Interrupts  []configInterrupt `yaml:"interrupts"`
	Profile     profileName       `yaml:"profile"`
	Client      clientName        `yaml:"client"`
	Allow       []ruleName        `yaml:"allow"`
	Enable      []ruleName        `yaml:"enable"`
	Timeout     scripted.Duration `yaml:"timeout"`
	Only        []string          `yaml:"only"`
	Skip        []string          `yaml:"skip"`
	IgnoreState []string          `yaml:"ignore_state"`
}

type configTool struct {
	Name   string    `yaml:"name"`
	Args   jsonValue `yaml:"args"`
	Prompt string    `yaml:"prompt"`
	Result *Value    `yaml:"result"`
}

type configInterrupt struct {
	Tool   string    `yaml:"tool"`
	Reason string    `yaml:"reason"`
	Args   jsonValue `yaml:"args"`
	Prompt string    `yaml:"prompt"`
	Answer jsonValue `yaml:"answer"`
}

// jsonValue is any YAML value, kept as JSON.
type jsonValue struct{ v json.RawMessage }

func (j *jsonValue) UnmarshalYAML(n *yaml.Node) error {
	v, err := yamlfile.JSON(n)
	j.v = v
	return err
}

// profileName is a verifier profile by name.
type profileName struct{ p agui.Profile }

func (p *profileName) UnmarshalYAML(n *yaml.Node) error {
	v, err := agui.ParseProfile(n.Value)
	if err != nil {
		return yamlfile.Errorf(n, "%v", err)
	}
	p.p = v
	return nil
}

// clientName is an @ag-ui/client version by name ("1.0.0", "0.0.59").
type clientName struct{ c agui.Client }

func (c *clientName) UnmarshalYAML(n *yaml.Node) error {
	v, err := agui.ParseClient(n.Value)
	if err != nil {
		return yamlfile.Errorf(n, "%v", err)
	}
	c.c = v
	return nil
}

// ruleName is a verifier rule by name.
type ruleName agui.Rule

func (r *ruleName) UnmarshalYAML(n *yaml.Node) error {
	rules, err := agui.ParseRules(n.Value)
	if err != nil || len(rules) != 1 {
		return yamlfile.Errorf(n, "%v", err)
	}
	*r = ruleName(rules[0])
	return nil
}

// UnmarshalYAML reads a value from a file: a mapping of equals and
// matches, or any other value, which the value must equal.
func (v *Value) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode && len(n.Content) > 0 {
		special := true
		for i := 0; i < len(n.Content); i += 2 {
			if k := n.Content[i].Value; k != "equals" && k != "matches" {
				special = false
			}
		}
		if special {
			*v = Value{}
			if e := yamlfile.Field(n, "equals"); e != nil {
				b, err := yamlfile.JSON(e)
				if err != nil {
					return err
				}
				v.Equals = b
			}
			if m := yamlfile.Field(n, "matches"); m != nil {
				if m.Kind != yaml.ScalarNode {
					return yamlfile.Errorf(m, "matches takes a regular expression, not a %s", yamlfile.KindName(m))
				}
				v.Matches = m.Value
			}
			if err := v.validate(); err != nil {
				return yamlfile.Errorf(n, "%v", err)
			}
			return nil
		}
	}
	b, err := yamlfile.JSON(n)
	if err != nil {
		return err
	}
	*v = Value{Equals: b}
	return nil
}
