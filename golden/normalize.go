package golden

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/internal/jsonpointer"
)

// View selects how a stream becomes entries.
type View uint8

const (
	// Merged shows, run by run, the messages and state a frontend ends
	// up with (as HttpAgent of @ag-ui/client assembles them), concurrent
	// calls in a canonical order, and the other events as they are: for
	// tests that should not depend on how a provider fragments or
	// interleaves. It is the zero value, as in harness.Case.
	Merged View = iota
	// Wire keeps every event, fragments included, in the order received:
	// for tests of streaming itself.
	Wire
)

// String returns "merged" or "wire".
func (v View) String() string {
	switch v {
	case Merged:
		return "merged"
	case Wire:
		return "wire"
	}
	return "View(" + strconv.Itoa(int(v)) + ")"
}

// Scrub replaces a volatile value that id placeholders and dropped
// timestamps do not cover. Set exactly one of Pointer and Pattern.
type Scrub struct {
	// Pointer is an RFC 6901 JSON pointer into each entry, such as
	// "/snapshot/updatedAt" ("~1" stands for "/" and "~0" for "~" in a
	// key). The value there, whatever its type, becomes the string
	// Replace; an entry without that value is left alone. In an array,
	// "-" names no element (RFC 6901: the one past the end), so it matches
	// nothing; in an object it is the key "-".
	Pointer string
	// Pattern is matched against every string value of each entry, at
	// any depth, except the top-level "type"; matches are replaced with
	// Replace, which may refer to groups as in Regexp.ReplaceAllString.
	Pattern *regexp.Regexp
	// Replace is the replacement text.
	Replace string
}

// Normalizer turns streams into golden entries. The zero value replaces
// ids with placeholders and drops timestamps. A Normalizer is not modified
// by use and may be shared between goroutines.
type Normalizer struct {
	// Scrubs are applied to each entry in order, after ids have become
	// placeholders: a pointer addresses the normalised entry (in the merged
	// view, a merged entry such as "/args/date"), and a pattern sees
	// placeholders, not the original ids.
	Scrubs []Scrub
	// KeepTimestamps keeps the events' "timestamp" fields.
	KeepTimestamps bool
	// Client is the @ag-ui/client version whose view the merged view
	// follows (its chunk expansion and pipeline, agui.NewClientView); the
	// zero Client is 1.0.0.
	Client agui.Client
}

// Normalize returns the entries of events in view v with the zero
// Normalizer.
func Normalize(events []agui.Event, v View) []Entry {
	return Normalizer{}.Normalize(events, v)
}

// Run is one request of a stream: the input that started it, when known,
// and the events it was answered with (one run or more).
type Run struct {
	// Input is the request; nil when it is not known. The merged view
	// starts the run from its messages and state, as the client that sent
	// it did; without it, from what the view held after the previous run
	// (nothing at first), and patches of a state it has not seen are
	// shown as they came.
	Input  *agui.RunAgentInput
	Events []agui.Event
}

// Normalize returns the entries of events in view v. It panics on a Scrub
// that sets neither or both of Pointer and Pattern, or whose Pointer is not
// a JSON pointer: those are programming errors.
//
// Ids become placeholders kind-N, numbered from 1 for each kind in the
// order they first appear reading the golden text (entries in order, keys
// in golden order): the first run is run-1, the second message msg-2. The
// same id always gets the same placeholder, even under another kind, whose
// first kind then names it.
func (n Normalizer) Normalize(events []agui.Event, v View) []Entry {
	return n.NormalizeRuns([]Run{{Events: events}}, v)
}

// NormalizeRuns is Normalize for a stream whose requests are known, such
// as a recording or a harness case: in the merged view each run starts
// from its request's messages and state.
func (n Normalizer) NormalizeRuns(runs []Run, v View) []Entry {
	s := n.NewStream(v)
	for _, r := range runs {
		s.Request(r.Input)
		for _, e := range r.Events {
			s.Push(e)
		}
	}
	return s.Entries()
}

// A Stream normalises a stream as its events are read, for a stream too
// long to hold: it keeps the entries and, in the merged view, the
// client's view, not the events. Its entries are those NormalizeRuns
// returns for the same requests and events.
type Stream struct {
	n        Normalizer
	pointers [][]string
	wire     []Entry
	m        *merger // nil in the wire view
}

// NewStream returns a Stream of view v. It panics where Normalize does.
func (n Normalizer) NewStream(v View) *Stream {
	s := &Stream{n: n, pointers: n.compile()}
	switch v {
	case Wire:
	case Merged:
		s.m = newMerger(n.Client, n.decode)
	default:
		panic(fmt.Sprintf("golden: unknown view %d", v))
	}
	return s
}

// Request starts a request, as a Run of NormalizeRuns does: in is its
// input, nil when not known. Events pushed before the first Request are
// one request with no input.
func (s *Stream) Request(in *agui.RunAgentInput) {
	if s.m != nil {
		s.m.request(in)
	}
}

// Push adds the request's next event.
func (s *Stream) Push(e agui.Event) {
	if s.m != nil {
		s.m.push(e)
		return
	}
	s.wire = append(s.wire, s.n.decode(e))
}

// Entries returns the entries of all that was pushed, ids as
// placeholders. Nothing may be pushed after.
func (s *Stream) Entries() []Entry {
	entries := s.wire
	if s.m != nil {
		entries = s.m.end()
	}
	ids := placeholders{m: make(map[string]string), n: make(map[string]int)}
	for _, e := range entries {
		ids.entry(e)
	}
	for _, e := range entries {
		s.n.scrub(e, s.pointers)
	}
	return entries
}

// decode turns an event into an entry, without its timestamp unless asked.
func (n Normalizer) decode(e agui.Event) Entry {
	v, err := decodeJSON(e.Raw())
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		// Only a zero Event gets here: agui parses nothing else.
		return Entry{"type": string(e.Type())}
	}
	if !n.KeepTimestamps {
		delete(m, "timestamp")
	}
	return Entry(m)
}

// Id kinds, the prefixes of placeholders.
const (
	kindThread   = "thread"
	kindRun      = "run"
	kindMessage  = "msg"
	kindCall     = "call"
	kindSubagent = "subagent"
)

// topIDKind returns the kind of id a top-level field carries, or "".
func topIDKind(e map[string]any, key string) string {
	switch key {
	case "threadId":
		return kindThread
	case "runId", "parentRunId":
		return kindRun
	case "messageId", "parentMessageId":
		return kindMessage
	case "toolCallId", "parentToolCallId":
		return kindCall
	case "subagentRunId", "parentSubagentRunId":
		return kindSubagent
	case "entityId":
		// REASONING_ENCRYPTED_VALUE names a call or a (reasoning) message.
		if e["subtype"] == "tool-call" {
			return kindCall
		}
		return kindMessage
	}
	return ""
}

// placeholders maps ids to placeholders, with a counter per kind.
type placeholders struct {
	m map[string]string
	n map[string]int
}

func (p *placeholders) id(kind string, v any) any {
	s, ok := v.(string)
	if !ok || s == "" {
		return v
	}
	if ph, ok := p.m[s]; ok {
		return ph
	}
	p.n[kind]++
	ph := kind + "-" + strconv.Itoa(p.n[kind])
	p.m[s] = ph
	return ph
}

// entry replaces the ids of one entry, visiting keys in golden order.
func (p *placeholders) entry(e Entry) {
	typ := e.Type()
	for _, k := range orderedKeys(e, true) {
		if kind := topIDKind(e, k); kind != "" {
			e[k] = p.id(kind, e[k])
			continue
		}
		switch {
		case k == "input" && typ == string(agui.RunStarted):
			p.input(e[k])
		case k == "messages" && typ == string(agui.MessagesSnapshot):
			p.messages(e[k])
		case k == "toolCalls" && typ == Message:
			p.calls(e[k])
		}
	}
}

// input replaces the ids of a RunAgentInput.
func (p *placeholders) input(v any) {
	in, ok := v.(map[string]any)
	if !ok {
		return
	}
	for _, k := range orderedKeys(in, false) {
		switch k {
		case "threadId":
			in[k] = p.id(kindThread, in[k])
		case "runId", "parentRunId":
			in[k] = p.id(kindRun, in[k])
		case "messages":
			p.messages(in[k])
		}
	}
}

// messages replaces the ids of a list of messages.
func (p *placeholders) messages(v any) {
	list, _ := v.([]any)
	for _, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			continue
		}
		for _, k := range orderedKeys(m, false) {
			switch k {
			case "id":
				m[k] = p.id(kindMessage, m[k])
			case "toolCallId":
				m[k] = p.id(kindCall, m[k])
			case "subagentRunId":
				m[k] = p.id(kindSubagent, m[k])
			case "toolCalls":
				p.calls(m[k])
			}
		}
	}
}

// calls replaces the ids of a list of tool calls.
func (p *placeholders) calls(v any) {
	calls, _ := v.([]any)
	for _, c := range calls {
		if c, ok := c.(map[string]any); ok {
			if _, has := c["id"]; has {
				c["id"] = p.id(kindCall, c["id"])
			}
		}
	}
}

// compile checks the scrubs and splits their pointers into tokens.
func (n Normalizer) compile() [][]string {
	ptrs := make([][]string, len(n.Scrubs))
	for i, s := range n.Scrubs {
		switch {
		case s.Pointer != "" && s.Pattern != nil:
			panic(fmt.Sprintf("golden: Scrub %d sets both Pointer and Pattern", i))
		case s.Pattern != nil:
		case s.Pointer == "":
			panic(fmt.Sprintf("golden: Scrub %d sets neither Pointer nor Pattern", i))
		case s.Pointer[0] != '/':
			panic(fmt.Sprintf("golden: Scrub %d: JSON pointer %q does not start with /", i, s.Pointer))
		default:
			ptrs[i] = jsonpointer.Split(s.Pointer)
		}
	}
	return ptrs
}

func (n Normalizer) scrub(e Entry, pointers [][]string) {
	for i, s := range n.Scrubs {
		if s.Pattern != nil {
			for k, v := range e {
				if k != "type" {
					e[k] = replacePattern(v, s.Pattern, s.Replace)
				}
			}
			continue
		}
		setPointer(map[string]any(e), pointers[i], s.Replace)
	}
}

// setPointer sets the value at the pointer toks to repl when it exists.
func setPointer(v any, toks []string, repl string) {
	for len(toks) > 0 {
		t := toks[0]
		last := len(toks) == 1
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[t]
			if !ok {
				return
			}
			if last {
				x[t] = repl
				return
			}
			v = next
		case []any:
			i, ok := arrayIndex(t, len(x))
			if !ok {
				return
			}
			if last {
				x[i] = repl
				return
			}
			v = x[i]
		default:
			return
		}
		toks = toks[1:]
	}
}

// arrayIndex parses an RFC 6901 array index: decimal, no leading zeros.
func arrayIndex(t string, n int) (int, bool) {
	if t == "" || (len(t) > 1 && t[0] == '0') {
		return 0, false
	}
	for _, c := range []byte(t) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(t)
	if err != nil || i >= n {
		return 0, false
	}
	return i, true
}

func replacePattern(v any, re *regexp.Regexp, repl string) any {
	switch x := v.(type) {
	case string:
		return re.ReplaceAllString(x, repl)
	case map[string]any:
		for k, y := range x {
			x[k] = replacePattern(y, re, repl)
		}
	case []any:
		for i, y := range x {
			x[i] = replacePattern(y, re, repl)
		}
	}
	return v
}

// parseArgs returns a call's concatenated arguments as a JSON value, or the
// text itself when it is not one JSON value.
func parseArgs(s string) any {
	if v, err := decodeJSON([]byte(s)); err == nil {
		return v
	}
	return s
}
