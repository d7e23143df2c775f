package conform

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/yamlfile"
	"github.com/aguitest/aguitest/scripted"
)

// CaseFile is a file of cases for "aguitest test": the harness's
// table-driven tests written in YAML (or JSON), for agents in any language.
// LoadCases reads one.
type CaseFile struct {
	// Path is the file, as it was named to LoadCases.
	Path string
	// Cases are the file's cases, in order; each case's Check holds the
	// expectations written under its expect: key.
	Cases []harness.Case
	// Lines are the line of each case in the file.
	Lines []int
	// Timeout bounds each run (timeout:); 0 when the file does not say.
	Timeout time.Duration
}

// GoldenDir is where the goldens of the file's cases live: testdata/NAME
// next to the file, NAME being the file's name without its extension.
func (f *CaseFile) GoldenDir() string {
	base := filepath.Base(f.Path)
	return filepath.Join(filepath.Dir(f.Path), "testdata", strings.TrimSuffix(base, filepath.Ext(base)))
}

// Schema is the JSON Schema (draft 2020-12) of case files: editors that
// read a "# yaml-language-server: $schema=" comment check a file with it
// as it is typed. "aguitest test --schema" prints it.
//
//go:embed cases.schema.json
var Schema []byte

// LoadCases reads a case file. Every error names the file and line, and
// every error of the file is reported, not only the first:
//
//	timeout: 20s                    # each run's bound (optional)
//	cases:
//	  - name: weather               # the case, and its golden file
//	    input:
//	      user: Weather in Paris?   # or messages: [AG-UI messages]
//	      state: {unit: C}          # also context, forwarded_props
//	      follow_ups: ["And Rome?"] # user messages sent once it settles
//	    script:                     # the scripted LLM, as "aguitest llm serve" reads it
//	      turns:
//	        - calls: [{name: get_weather, args: '{"city":"Paris"}'}]
//	        - text: It is 18°C in Paris.
//	    tools:                      # the client's tools, with canned results
//	      - name: show_on_map
//	        parameters: {type: object}
//	        result: shown           # or error: map offline
//	    answers:                    # how the client answers interrupts
//	      - {tool: delete_file, payload: {approved: true}}   # or reason:, cancel: true
//	    profile: strict             # or reference; also allow: and enable: [RULE]
//	    client: 0.0.59              # the @ag-ui/client checked against (default: every one under strict)
//	    golden: merged              # wire, or none
//	    explore: {plans: 50, seed: 7}   # run it under 50 other plans of its script (0: none)
//	    ignore_state: [/messages]       # state that may differ from plan to plan
//	    want_error: {message: "rate limit"}   # a run must end in RUN_ERROR (true: any)
//	    expect:
//	      text: {matches: "18°C"}   # the last assistant text; a plain value must be equal
//	      calls:
//	        - {name: get_weather, args: {city: Paris}, count: 1}
//	        - {name: delete_file, count: 0}   # never called
//	      order: [get_weather, show_on_map]
//	      state: {/unit: C}         # a JSON Pointer or a dotted path, and its value
//
// Paths are JSON Pointers ("/items/0/name") or dotted paths
// ("items[0].name"); a value is a JSON value the value there must equal,
// or {matches: REGEXP}, {equals: VALUE}, or both. Schema is the format's
// JSON Schema.
func LoadCases(file string) (*CaseFile, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return ParseCases(file, data)
}

// ParseCases reads a case file from data, named name in errors, as
// LoadCases does.
func ParseCases(name string, data []byte) (*CaseFile, error) {
	var f casesFile
	doc, err := yamlfile.Decode(name, "case file", data, &f)
	if err != nil {
		return nil, errors.New(typeNames.Replace(err.Error()))
	}
	out := &CaseFile{Path: name, Timeout: time.Duration(f.Timeout)}
	lines := yamlfile.ItemLines(doc, "cases")
	if len(f.Cases) == 0 {
		return nil, fmt.Errorf("%s:%d: the file has no cases (cases:)", name, doc.Line)
	}
	var errs []error
	seen := map[string]int{}
	var caseNodes []*yaml.Node
	if n := yamlfile.Field(doc, "cases"); n != nil {
		caseNodes = n.Content
	}
	for i, fc := range f.Cases {
		line := lineAt(lines, i, doc.Line)
		at := func(n *yaml.Node) int {
			if n != nil {
				return n.Line
			}
			return line
		}
		var node *yaml.Node
		if i < len(caseNodes) {
			node = caseNodes[i]
		}
		bad := func(n *yaml.Node, format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s:%d: case %q: %s", name, at(n), fc.Name, fmt.Sprintf(format, args...)))
		}
		if fc.Name == "" {
			errs = append(errs, fmt.Errorf("%s:%d: a case needs a name", name, line))
		} else if first, ok := seen[fc.Name]; ok {
			bad(yamlfile.Field(node, "name"), "the name is taken by the case at line %d", first)
		} else {
			seen[fc.Name] = line
		}
		c := harness.Case{
			Name:     fc.Name,
			Script:   fc.Script,
			Profile:  fc.Profile.p,
			Client:   fc.Client.c,
			Allow:    rules(fc.Allow),
			Enable:   rules(fc.Enable),
			MaxRuns:  fc.MaxRuns,
			Golden:   fc.Golden.view,
			NoGolden: fc.Golden.none,
		}
		if fc.Frontend != "" {
			if c.Frontend, err = harness.ParseFrontend(fc.Frontend); err != nil {
				bad(yamlfile.Field(node, "frontend"), "frontend: %v", err)
			}
		}
		in, err := fc.Input.input()
		if err != nil {
			bad(yamlfile.Field(node, "input"), "input: %v", err)
		}
		c.Input = in
		toolLines := yamlfile.ItemLines(node, "tools")
		for j, ft := range fc.Tools {
			tool, err := ft.tool()
			if err != nil {
				errs = append(errs, fmt.Errorf("%s:%d: case %q: tool %q: %v", name, lineAt(toolLines, j, line), fc.Name, ft.Name, err))
			}
			c.Tools = append(c.Tools, tool)
		}
		answerLines := yamlfile.ItemLines(node, "answers")
		for j, a := range fc.Answers {
			if a.Cancel && a.Payload.v != nil {
				errs = append(errs, fmt.Errorf("%s:%d: case %q: an answer cancels or resolves with a payload, not both", name, lineAt(answerLines, j, line), fc.Name))
			}
			c.Answers = append(c.Answers, harness.Answer{Reason: a.Reason, Tool: a.Tool, Cancel: a.Cancel, Payload: a.Payload.v})
		}
		if len(fc.Script.Turns) == 0 {
			bad(node, "a case needs a script with turns (script: {turns: [...]}), what the model answers")
		} else {
			c.Script.Locate(name, yamlfile.ItemLines(yamlfile.Field(node, "script"), "turns"))
			if err := c.Script.Validate(); err != nil {
				errs = append(errs, err)
			}
		}
		if x := fc.Explore; x != nil {
			c.Explore = &harness.Explore{Seed: x.Seed}
			switch {
			case x.Plans == nil:
			case *x.Plans < 0:
				bad(yamlfile.Field(node, "explore"), "explore: plans %d is negative", *x.Plans)
			case *x.Plans == 0:
				c.Explore.Off = true // as --plans 0
			default:
				c.Explore.Plans = *x.Plans
			}
		}
		for _, p := range fc.Ignore {
			if p != "" && !strings.HasPrefix(p, "/") {
				bad(yamlfile.Field(node, "ignore_state"), "ignore_state: %q is not a JSON Pointer: it does not start with / (the state's member messages is /messages)", p)
			}
		}
		c.IgnoreState = fc.Ignore
		if fc.WantError != nil && fc.WantError.want != nil {
			c.WantError = fc.WantError.want
		}
		if fc.Expect != nil {
			e := fc.Expect.expect()
			if err := e.Validate(); err != nil {
				bad(yamlfile.Field(node, "expect"), "expect: %v", err)
			} else {
				c.Check = func(t harness.T, r *harness.Result) {
					t.Helper()
					e.Check(t, r)
				}
			}
		}
		out.Cases = append(out.Cases, c)
		out.Lines = append(out.Lines, line)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// typeNames says in the reader's messages what the file's types are.
var typeNames = strings.NewReplacer(
	"in casesFile", "in the file", "in fileCase", "in a case", "in fileInput", "in input",
	"in fileTool", "in a tool", "in fileAnswer", "in an answer", "in fileExpect", "in expect",
	"in fileCall", "in a call", "in fileExplore", "in explore", "in fileCtx", "in a context",
	"in configFile", "in the configuration", "in configTool", "in a tool", "in configInterrupt", "in an interrupt",
	"in scripted.Script", "in script", "in Script", "in script", "in Turn", "in a turn",
)

// lineAt returns lines[i], or line when the file's nodes do not say (an
// alias stands for the item).
func lineAt(lines []int, i, line int) int {
	if i < len(lines) {
		return lines[i]
	}
	return line
}

func rules(names []ruleName) []agui.Rule {
	var out []agui.Rule
	for _, r := range names {
		out = append(out, agui.Rule(r))
	}
	return out
}

// casesFile is a case file as it is written.
type casesFile struct {
	Timeout scripted.Duration `yaml:"timeout"`
	Cases   []fileCase        `yaml:"cases"`
}

type fileCase struct {
	Name      string          `yaml:"name"`
	Input     fileInput       `yaml:"input"`
	Script    scripted.Script `yaml:"script"`
	Tools     []fileTool      `yaml:"tools"`
	Answers   []fileAnswer    `yaml:"answers"`
	Profile   profileName     `yaml:"profile"`
	Client    clientName      `yaml:"client"`
	Allow     []ruleName      `yaml:"allow"`
	Enable    []ruleName      `yaml:"enable"`
	Golden    goldenView      `yaml:"golden"`
	WantError *wantError      `yaml:"want_error"`
	MaxRuns   int             `yaml:"max_runs"`
	Frontend  string          `yaml:"frontend"`
	Explore   *fileExplore    `yaml:"explore"`
	Ignore    []string        `yaml:"ignore_state"`
	Expect    *fileExpect     `yaml:"expect"`
}

// fileExplore is explore: the budget and seed of the case's exploration.
type fileExplore struct {
	Plans *int   `yaml:"plans"`
	Seed  uint64 `yaml:"seed"`
}

type fileInput struct {
	User           string    `yaml:"user"`
	Messages       jsonValue `yaml:"messages"`
	State          jsonValue `yaml:"state"`
	Context        []fileCtx `yaml:"context"`
	ForwardedProps jsonValue `yaml:"forwarded_props"`
	FollowUps      []string  `yaml:"follow_ups"`
}

type fileCtx struct {
	Description string `yaml:"description"`
	Value       string `yaml:"value"`
}

// input makes the harness's input of what the file says.
func (fi fileInput) input() (harness.Input, error) {
	in := harness.Input{State: fi.State.v, ForwardedProps: fi.ForwardedProps.v, FollowUps: fi.FollowUps}
	for _, c := range fi.Context {
		in.Context = append(in.Context, agui.Context{Description: c.Description, Value: c.Value})
	}
	switch {
	case fi.User != "" && fi.Messages.v != nil:
		return in, fmt.Errorf("user or messages, not both")
	case fi.User != "":
		in.Messages = harness.User(fi.User).Messages
	case fi.Messages.v != nil:
		if err := json.Unmarshal(fi.Messages.v, &in.Messages); err != nil {
			return in, fmt.Errorf("messages: %v", err)
		}
		// A message without an id gets one from the harness when it is
		// sent, a UUID as a frontend mints it.
		if len(in.Messages) == 0 {
			return in, fmt.Errorf("messages: none")
		}
	default:
		return in, fmt.Errorf("say what the user asks: user: TEXT, or messages: [...]")
	}
	if fi.State.v != nil && !strings.HasPrefix(strings.TrimSpace(string(fi.State.v)), "{") {
		return in, fmt.Errorf("state: want an object, got %s", fi.State.v)
	}
	return in, nil
}

type fileTool struct {
	Name        string    `yaml:"name"`
	Description string    `yaml:"description"`
	Parameters  jsonValue `yaml:"parameters"`
	Result      jsonValue `yaml:"result"`
	Error       string    `yaml:"error"`
}

// tool makes a frontend tool that answers every call with the canned
// result or error.
func (ft fileTool) tool() (harness.Tool, error) {
	t := harness.Tool{Name: ft.Name, Description: ft.Description, Parameters: ft.Parameters.v}
	var errs []string
	if ft.Name == "" {
		errs = append(errs, "a tool needs its name")
	}
	if t.Parameters == nil {
		t.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if ft.Error != "" && ft.Result.v != nil {
		errs = append(errs, "result or error, not both")
	}
	if ft.Error == "" && ft.Result.v == nil {
		errs = append(errs, "say what the client's tool returns: result: VALUE, or error: TEXT")
	}
	result := ""
	if ft.Result.v != nil {
		// A string is the result's text; any other value, its JSON.
		if json.Unmarshal(ft.Result.v, &result) != nil {
			result = string(ft.Result.v)
		}
	}
	msg := ft.Error
	t.Run = func(context.Context, json.RawMessage) (string, error) {
		if msg != "" {
			return "", errors.New(msg)
		}
		return result, nil
	}
	if len(errs) > 0 {
		return t, errors.New(strings.Join(errs, "; "))
	}
	return t, nil
}

type fileAnswer struct {
	Reason  string    `yaml:"reason"`
	Tool    string    `yaml:"tool"`
	Cancel  bool      `yaml:"cancel"`
	Payload jsonValue `yaml:"payload"`
}

// goldenView is golden: merged, wire or none.
type goldenView struct {
	view golden.View
	none bool
}

func (g *goldenView) UnmarshalYAML(n *yaml.Node) error {
	switch n.Value {
	case "merged":
		g.view = golden.Merged
	case "wire":
		g.view = golden.Wire
	case "none":
		g.none = true
	default:
		return yamlfile.Errorf(n, "golden: want merged, wire or none, got %q", n.Value)
	}
	return nil
}

// wantError is want_error: true, or the RUN_ERROR's message and code.
type wantError struct{ want *harness.WantError }

func (w *wantError) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var b bool
		if err := n.Decode(&b); err != nil {
			return yamlfile.Errorf(n, "want_error: want true or {message: REGEXP, code: CODE}, got %q", n.Value)
		}
		if b {
			w.want = &harness.WantError{}
		}
		return nil
	}
	var v struct {
		Message string `yaml:"message"`
		Code    string `yaml:"code"`
	}
	if err := n.Decode(&v); err != nil {
		return err
	}
	w.want = &harness.WantError{Message: v.Message, Code: v.Code}
	return nil
}

type fileExpect struct {
	Text  *Value     `yaml:"text"`
	Calls []fileCall `yaml:"calls"`
	Order []string   `yaml:"order"`
	State pathValues `yaml:"state"`
}

type fileCall struct {
	Name  string     `yaml:"name"`
	Args  pathValues `yaml:"args"`
	Count *int       `yaml:"count"`
}

func (fe *fileExpect) expect() Expect {
	e := Expect{Text: fe.Text, Order: fe.Order, State: fe.State}
	for _, c := range fe.Calls {
		e.Calls = append(e.Calls, CallExpect{Name: c.Name, Args: c.Args, Count: c.Count})
	}
	return e
}

// pathValues is a mapping of paths to values, in the file's order.
type pathValues []PathValue

func (p *pathValues) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return yamlfile.Errorf(n, "want a mapping of paths to values, not a %s", yamlfile.KindName(n))
	}
	var errs []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if _, err := parsePath(k.Value); err != nil {
			errs = append(errs, fmt.Sprintf("line %d: %v", k.Line, err))
			continue
		}
		var val Value
		if err := val.UnmarshalYAML(v); err != nil {
			var te *yaml.TypeError
			if errors.As(err, &te) {
				errs = append(errs, te.Errors...)
				continue
			}
			return err
		}
		*p = append(*p, PathValue{Path: k.Value, Value: val})
	}
	if len(errs) > 0 {
		return &yaml.TypeError{Errors: errs}
	}
	return nil
}
