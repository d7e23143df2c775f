package conform

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
)

// Expect is what a case's result must show, besides its golden and the
// verifier: declarative checks over what the client holds at the end (the
// client's view: messages with their tool calls, and state). Every check
// that fails is reported; the zero Expect checks nothing.
type Expect struct {
	// Text, when set, is what the text of the conversation's last
	// assistant message with text must be.
	Text *Value
	// Calls are tool calls the client must hold, or must not (Count 0).
	Calls []CallExpect
	// Order lists tool names the client's calls must come in: each call
	// to the first, then one to the second, and so on; other calls may
	// come between.
	Order []string
	// State holds values the client's final state must have, by path (a
	// JSON Pointer such as "/board/0/title", or a dotted path such as
	// "board[0].title").
	State []PathValue
}

// CallExpect is a tool call the client must hold: a call to the tool Name
// whose arguments have the values Args names.
type CallExpect struct {
	Name string
	// Args are values the call's arguments must have, by path.
	Args []PathValue
	// Count, when not nil, is how many of the client's calls must match
	// exactly (0: the tool is never called so); nil means at least one.
	Count *int
}

// PathValue is a value at a path of a JSON document.
type PathValue struct {
	Path  string
	Value Value
}

// Value is what a value must be: equal to a JSON value (Equals), or a
// string matching a regular expression (Matches; a value that is not a
// string is matched by its JSON text). With both, both must hold.
type Value struct {
	// Equals is a JSON value, compared as JSON (1 equals 1.0, keys in any
	// order).
	Equals json.RawMessage
	// Matches is a regular expression (package regexp); it matches
	// anywhere unless anchored with ^ and $.
	Matches string
}

// Equal returns a Value equal to v, which must marshal as JSON.
func Equal(v any) Value {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("conform.Equal: %v", err))
	}
	return Value{Equals: b}
}

// Matching returns a Value matching the regular expression re.
func Matching(re string) Value { return Value{Matches: re} }

// String describes the value, as in `"Seoul"` or `matching "^Se"`.
func (v Value) String() string {
	var parts []string
	if v.Equals != nil {
		parts = append(parts, compact(v.Equals))
	}
	if v.Matches != "" {
		parts = append(parts, "matching "+strconv.Quote(v.Matches))
	}
	return strings.Join(parts, " and ")
}

// validate reports a Value that cannot be checked.
func (v Value) validate() error {
	if v.Equals == nil && v.Matches == "" {
		return fmt.Errorf("a value needs equals or matches")
	}
	if v.Equals != nil && !json.Valid(v.Equals) {
		return fmt.Errorf("equals is not JSON: %s", v.Equals)
	}
	if v.Matches != "" {
		if _, err := regexp.Compile(v.Matches); err != nil {
			return fmt.Errorf("matches is not a regular expression: %v", err)
		}
	}
	return nil
}

// holds reports whether got (JSON) is the value.
func (v Value) holds(got json.RawMessage) bool {
	if v.Equals != nil && !jsonEqual(v.Equals, got) {
		return false
	}
	if v.Matches != "" {
		var s string
		if json.Unmarshal(got, &s) != nil {
			s = compact(got)
		}
		if !regexp.MustCompile(v.Matches).MatchString(s) {
			return false
		}
	}
	return true
}

// holdsText reports whether the text s is the value.
func (v Value) holdsText(s string) bool {
	b, _ := json.Marshal(s)
	return v.holds(b)
}

// Validate reports every expectation that cannot be checked: a path or a
// regular expression that does not compile, a value with nothing to
// compare, a call with no name or a negative count.
func (e Expect) Validate() error {
	var errs []string
	if e.Text != nil {
		if err := e.Text.validate(); err != nil {
			errs = append(errs, "text: "+err.Error())
		}
	}
	for i, c := range e.Calls {
		where := fmt.Sprintf("calls[%d]", i)
		if c.Name == "" {
			errs = append(errs, where+": a call needs the tool's name")
		}
		if c.Count != nil && *c.Count < 0 {
			errs = append(errs, fmt.Sprintf("%s: count %d is negative", where, *c.Count))
		}
		for _, a := range c.Args {
			if err := a.validate(); err != nil {
				errs = append(errs, where+": args: "+err.Error())
			}
		}
	}
	for _, s := range e.State {
		if err := s.validate(); err != nil {
			errs = append(errs, "state: "+err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

func (pv PathValue) validate() error {
	if _, err := parsePath(pv.Path); err != nil {
		return err
	}
	if err := pv.Value.validate(); err != nil {
		return fmt.Errorf("%s: %v", pv.Path, err)
	}
	return nil
}

// Check reports on t each expectation the result does not meet, saying what
// the client holds instead. It panics on an Expect that does not validate.
func (e Expect) Check(t harness.T, r *harness.Result) {
	t.Helper()
	if err := e.Validate(); err != nil {
		panic("conform: " + err.Error())
	}
	if e.Text != nil {
		if got := r.LastText(); !e.Text.holdsText(got) {
			t.Errorf("the last assistant text: got %q, want %s", got, e.Text)
		}
	}
	calls := viewCalls(r.Messages)
	for _, c := range e.Calls {
		n := 0
		for _, call := range calls {
			if call.name == c.Name && argsHold(call.args, c.Args) {
				n++
			}
		}
		switch {
		case c.Count == nil && n == 0:
			t.Errorf("want a call %s; the client holds %s", c, describeCalls(calls))
		case c.Count != nil && n != *c.Count:
			t.Errorf("calls %s: got %d, want %d; the client holds %s", c, n, *c.Count, describeCalls(calls))
		}
	}
	if len(e.Order) > 0 {
		next := 0
		for _, call := range calls {
			if next < len(e.Order) && call.name == e.Order[next] {
				next++
			}
		}
		if next < len(e.Order) {
			names := make([]string, len(calls))
			for i, c := range calls {
				names[i] = c.name
			}
			t.Errorf("want calls in the order %s; the client holds them in the order %s", strings.Join(e.Order, ", "), orNone(strings.Join(names, ", ")))
		}
	}
	for _, s := range e.State {
		p, _ := parsePath(s.Path)
		got, ok := p.lookup(r.State)
		switch {
		case !ok:
			t.Errorf("the state at %s: there is nothing there; want %s; the state is %s", s.Path, s.Value, compact(r.State))
		case !s.Value.holds(got):
			t.Errorf("the state at %s: got %s, want %s", s.Path, compact(got), s.Value)
		}
	}
}

// String describes the call, as in `get_weather with /city "Seoul"`.
func (c CallExpect) String() string {
	s := c.Name
	if len(c.Args) == 0 {
		return s
	}
	var parts []string
	for _, a := range c.Args {
		parts = append(parts, a.Path+" "+a.Value.String())
	}
	return s + " with " + strings.Join(parts, ", ")
}

// argsHold reports whether a call's arguments (JSON text; "" for none)
// have every value of want.
func argsHold(args string, want []PathValue) bool {
	doc := json.RawMessage(args)
	if strings.TrimSpace(args) == "" {
		doc = json.RawMessage("{}")
	}
	for _, a := range want {
		p, _ := parsePath(a.Path)
		got, ok := p.lookup(doc)
		if !ok || !a.Value.holds(got) {
			return false
		}
	}
	return true
}

// viewCall is a tool call as the client holds it.
type viewCall struct{ id, name, args string }

func (c viewCall) String() string {
	args := c.args
	if strings.TrimSpace(args) == "" {
		args = "no arguments"
	}
	return fmt.Sprintf("%s %s (id %s)", c.name, args, c.id)
}

// viewCalls returns the tool calls of the assistant messages, in order.
func viewCalls(msgs []agui.Message) []viewCall {
	var out []viewCall
	for _, m := range msgs {
		if m.Role != agui.RoleAssistant {
			continue
		}
		for _, tc := range m.ToolCalls {
			out = append(out, viewCall{id: tc.ID, name: tc.Function.Name, args: tc.Function.Arguments})
		}
	}
	return out
}

func describeCalls(calls []viewCall) string {
	if len(calls) == 0 {
		return "no calls"
	}
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = c.String()
	}
	return strings.Join(parts, ", ")
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// compact returns JSON text without insignificant space, or the text as it
// is when it is not JSON.
func compact(b []byte) string {
	var out strings.Builder
	if len(b) == 0 {
		return "nothing"
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(out.String(), "\n")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
