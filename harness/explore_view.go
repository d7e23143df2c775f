package harness

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/internal/jsonpointer"
)

// viewEntries returns the client's view of a case's result, run by run,
// as entries of the merged golden view: the messages each run created or
// changed and its state, as the client holds them at the run's end (ids as
// placeholders, parallel calls in a canonical order), and a call's missing
// arguments as {} (the client hands {} to a tool for them). Two plans that
// give the client the same messages and state give the same entries.
//
// In the state, ids are placeholders too (see stateIDs), and the parts
// named by ignore (JSON Pointers into the state, split into tokens; see
// Case.IgnoreState) are left out.
func viewEntries(res *Result, scrubs []golden.Scrub, ignore [][]string) []golden.Entry {
	runs := make([]golden.Run, len(res.Runs))
	for i := range res.Runs {
		runs[i] = golden.Run{Input: &res.Runs[i].Input, Events: res.Runs[i].Events}
	}
	var ids *stateIDs
	var out []golden.Entry
	for _, e := range (golden.Normalizer{Scrubs: scrubs}).NormalizeRuns(runs, golden.Merged) {
		switch e.Type() {
		case golden.Message, golden.MessageRemoved:
			noArgs(e)
			out = append(out, e)
		case golden.State:
			if ids == nil {
				ids = newStateIDs(res)
			}
			s := e["snapshot"]
			for _, p := range ignore {
				s = leaveOut(s, p)
			}
			e["snapshot"] = ids.replace(s)
			out = append(out, e)
		}
	}
	return out
}

// noArgs writes the missing arguments of the calls of an entry as {}.
func noArgs(e golden.Entry) {
	calls, _ := e["toolCalls"].([]any)
	for _, c := range calls {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		if a, ok := m["args"]; !ok || a == nil || a == "" {
			m["args"] = map[string]any{}
		}
	}
}

// ignored stands for a part of the state an exploration leaves out.
const ignored = "(ignored)"

// leaveOut returns state v without the part the pointer's tokens name:
// a member of an object is removed, an element of an array (or the whole
// state, for the empty pointer) becomes "(ignored)", so that the elements
// after it keep their places. A pointer to nothing leaves v as it is.
func leaveOut(v any, toks []string) any {
	if len(toks) == 0 {
		return ignored
	}
	switch x := v.(type) {
	case map[string]any:
		if len(toks) == 1 {
			delete(x, toks[0])
			return x
		}
		if c, ok := x[toks[0]]; ok {
			x[toks[0]] = leaveOut(c, toks[1:])
		}
	case []any:
		i, err := strconv.Atoi(toks[0])
		if err != nil || i < 0 || i >= len(x) || toks[0] != strconv.Itoa(i) {
			if toks[0] != "*" {
				return x
			}
			// "*" names every element, for state keyed by position.
			for j := range x {
				x[j] = leaveOut(x[j], toks[1:])
			}
			return x
		}
		x[i] = leaveOut(x[i], toks[1:])
	}
	return v
}

// parsePointer splits a JSON Pointer (RFC 6901) into its tokens.
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("%q is not a JSON Pointer: it does not start with / (the whole state is \"\", its member messages \"/messages\")", p)
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		if strings.Contains(strings.ReplaceAll(strings.ReplaceAll(t, "~0", ""), "~1", ""), "~") {
			return nil, fmt.Errorf("%q is not a JSON Pointer: ~ must be followed by 0 or 1 (~0 is ~, ~1 is /)", p)
		}
		toks[i] = jsonpointer.Unescape(t)
	}
	return toks, nil
}

// ignoreState returns the pointers of a case's IgnoreState and the
// options', split into tokens, or the first that is not a JSON Pointer.
func (o Options) ignoreState(c Case) ([][]string, error) {
	var out [][]string
	for _, p := range slices.Concat(c.IgnoreState, o.IgnoreState) {
		toks, err := parsePointer(p)
		if err != nil {
			return nil, fmt.Errorf("IgnoreState: %w", err)
		}
		out = append(out, toks)
	}
	return out, nil
}

// stateIDs makes the ids in a client's state placeholders, as the
// messages' are: an agent that copies its messages into its state
// (LangGraph does) or keeps the run's id there mints them per run, and no
// two plans get the same. A string of the state that is an id of the
// case's runs (a thread, run, message or call id of their inputs and
// events) becomes "id-N", one that holds such an id (of 8 characters or
// more) has it replaced so, and every UUID in a string becomes "uuid-N":
// N numbered by first appearance in the state (members in key order), so
// that the same id is the same placeholder wherever it appears.
type stateIDs struct {
	known map[string]bool
	long  []string // known ids of 8 characters or more, longest first
	ph    map[string]string
	n     map[string]int
}

// uuidRE matches a UUID, in any case.
var uuidRE = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

func newStateIDs(res *Result) *stateIDs {
	s := &stateIDs{known: map[string]bool{}, ph: map[string]string{}, n: map[string]int{}}
	add := func(id string) {
		if id != "" {
			s.known[id] = true
		}
	}
	for _, r := range res.Runs {
		add(r.Input.ThreadID)
		add(r.Input.RunID)
		for _, m := range r.Input.Messages {
			add(m.ID)
			add(m.ToolCallID)
			for _, c := range m.ToolCalls {
				add(c.ID)
			}
		}
		for _, e := range r.Events {
			add(e.MessageID())
			add(e.ToolCallID())
			add(e.ParentMessageID())
			add(e.RunID())
			add(e.ThreadID())
		}
	}
	for _, m := range res.Messages {
		add(m.ID)
		add(m.ToolCallID)
		for _, c := range m.ToolCalls {
			add(c.ID)
		}
	}
	for id := range s.known {
		if len(id) >= 8 {
			s.long = append(s.long, id)
		}
	}
	slices.SortFunc(s.long, func(a, b string) int {
		if d := len(b) - len(a); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return s
}

// placeholder returns the placeholder of id, of kind "id" or "uuid".
func (s *stateIDs) placeholder(kind, id string) string {
	if p, ok := s.ph[id]; ok {
		return p
	}
	s.n[kind]++
	p := kind + "-" + strconv.Itoa(s.n[kind])
	s.ph[id] = p
	return p
}

// replace returns v with its ids made placeholders, changing it in place.
func (s *stateIDs) replace(v any) any {
	switch x := v.(type) {
	case string:
		return s.str(x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			x[k] = s.replace(x[k])
		}
	case []any:
		for i := range x {
			x[i] = s.replace(x[i])
		}
	}
	return v
}

// str returns a string of the state with its ids made placeholders.
func (s *stateIDs) str(v string) string {
	if s.known[v] {
		return s.placeholder("id", v)
	}
	for _, id := range s.long {
		if strings.Contains(v, id) {
			v = strings.ReplaceAll(v, id, s.placeholder("id", id))
		}
	}
	if !strings.Contains(v, "-") {
		return v
	}
	return uuidRE.ReplaceAllStringFunc(v, func(u string) string { return s.placeholder("uuid", strings.ToLower(u)) })
}
