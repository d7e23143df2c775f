package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aguitest/aguitest/agui"
)

// show streams its input: a run is summarised as its events come (its
// messages and calls, bounded; its transcript lines; what the timeline
// draws, within the page's budget) and printed when it ends, so that
// memory holds what the runs in progress hold for the client, not the
// input. The bounds:
const (
	// maxLaneText is the text or arguments kept of one message or call;
	// the client's view is fed no more of it either. A transcript shows
	// the first 300 bytes.
	maxLaneText = 64 << 10
	// maxPending is how many transcript lines of a run wait for the run's
	// end (a lane's line shows its text at the run's end); past it they
	// are printed as they stand.
	maxPending = 4096
)

// evRef is an event as show refers to it: its number (from 0, as the
// verifier counts), its line and its offset from the run's start.
type evRef struct {
	index int
	line  int
	at    time.Duration
}

// A lane is one message, reasoning message or tool call of a run: a row of
// the timeline, a line of the transcript. A message the run streams in
// several spans under one id (reopened after its END) is one lane, as it
// is one message to the client.
type lane struct {
	kind  string // "message", "reasoning" or "call"
	id    string
	name  string // the tool's name, or the message's role
	start int    // the first START, numbered in the run's expanded events
	end   int    // the last END; -1 while open
	ref   evRef  // the first START
	spans []laneSpan
	ticks int        // fragments
	marks []htmlMark // the fragments drawn (within the page's budget)
	text  strings.Builder
	size  int // bytes of text or arguments streamed, kept or not
	// result is the call's TOOL_CALL_RESULT: its position, or -1.
	result    int
	resultRef evRef
	content   string
	parallel  []string // the calls streamed at the same time, itself included
	printed   bool     // its transcript line was printed
	open      bool     // a START..END of it is open
}

// laneKey is what a run keeps its lanes under: kind and id.
type laneKey struct{ kind, id string }

// String is the key of the lane's row on the page.
func (k laneKey) String() string { return k.kind + "\x00" + k.id }

// laneSpan is one START..END of a lane; end is -1 while open.
type laneSpan struct {
	start, end       int
	startRef, endRef evRef
}

// keep adds streamed text within maxLaneText.
func (l *lane) keep(s string) {
	l.size += len(s)
	if room := maxLaneText - l.text.Len(); room > 0 {
		l.text.WriteString(s[:min(len(s), room)])
	}
}

// whole reports whether the lane kept all its text.
func (l *lane) whole() bool { return l.size <= maxLaneText }

// A tline is a line of the transcript: at an expanded event (pos), or at
// the run's end (pos -1); a lane's line is rendered when it is printed.
type tline struct {
	pos  int
	ref  evRef
	text string
	lane *lane
	bad  bool
	end  bool // after the run's events
}

// A runBuilder summarises one run as its events come.
type runBuilder struct {
	id, thread string
	line       int
	timed      bool
	outcome    string // the recorded outcome
	incomplete string // why a recording of the run is incomplete
	gapLine    int    // the first gap record: events after it are not verified
	unverified int

	raw  int // events of the run as they came
	seq  int // expanded events
	last evRef
	// first and end are the timeline's bounds: the first event's position
	// and the position after the last.
	first, endPos float64
	started       bool

	lanes   []*lane
	printed int               // lanes[:printed] are printed
	all     map[laneKey]*lane // the last lane of each kind and id
	calls   map[string]*lane

	lines      []tline // waiting to be printed
	continued  bool    // some lines were printed before the run's end
	violations int
	firstViol  int // line numbers of the first violations, for the page

	// The client: a run of a recording starts from its request; its
	// pipeline stops at its verifier's first rejection (stopped), and the
	// view then holds what it held.
	view    *agui.View
	feed    *viewFeed // applies events to view; sync before reading view
	stopped bool

	html       *htmlRunBuilder // nil when the page leaves the run out
	shownGroup map[string]bool
}

func newRunBuilder(timed bool, in *agui.RunAgentInput) *runBuilder {
	b := &runBuilder{timed: timed, all: map[laneKey]*lane{}, calls: map[string]*lane{}}
	if in != nil {
		b.view = agui.NewView(*in)
	} else {
		b.view = agui.NewView(agui.RunAgentInput{})
	}
	b.feed = newViewFeed(b.view)
	return b
}

// pos is where an event sits on the run's time axis: its offset when the
// run is timed, else its number.
func (b *runBuilder) pos(r evRef) float64 {
	if b.timed {
		return float64(r.at.Microseconds())
	}
	return float64(r.index)
}

// event adds one expanded event at ref.
func (b *runBuilder) event(e agui.Event, ref evRef) {
	i := b.seq
	b.seq++
	b.last = ref
	if !b.started {
		b.started = true
		b.first = b.pos(ref)
		if b.line == 0 {
			b.line = ref.line
		}
	}
	b.endPos = b.pos(ref)
	if !b.timed {
		b.endPos = float64(ref.index + 1)
	}
	if e.Type() == agui.RunStarted && b.thread == "" {
		b.thread = e.ThreadID()
		if b.id == "" {
			b.id = e.RunID()
		}
	}
	t := e.Type()
	switch t {
	case agui.TextMessageStart, agui.ReasoningMessageStart, agui.ToolCallStart:
		key := laneOf(e)
		kind, id := key.kind, key.id
		name := e.Role()
		if kind == "call" {
			name = e.ToolCallName()
		}
		l := b.all[key]
		if l != nil && l.open {
			return // a START for what is open: its violation shows it
		}
		if l == nil || kind == "call" {
			// A call started again is a call of its own to read.
			l = &lane{kind: kind, id: id, name: name, start: i, end: -1, ref: ref, result: -1}
			if l.name == "" && kind == "message" {
				l.name = "assistant"
			}
			b.all[key] = l
			if kind == "call" {
				b.calls[id] = l
			}
			b.lanes = append(b.lanes, l)
			b.lines = append(b.lines, tline{pos: i, ref: ref, lane: l})
		}
		l.end = -1
		l.spans = append(l.spans, laneSpan{start: i, end: -1, startRef: ref})
		l.open = true
	case agui.TextMessageContent, agui.ReasoningMessageContent, agui.ToolCallArgs:
		l := b.all[laneOf(e)]
		if l == nil || !l.open {
			b.htmlRunEvent(i, ref, e, true)
			return
		}
		l.ticks++
		l.keep(e.Delta())
		if b.html != nil {
			b.html.tick(l, b.pos(ref), fmt.Sprintf("#%d %q", ref.index+1, clip(e.Delta(), 200)))
		}
	case agui.TextMessageEnd, agui.ReasoningMessageEnd, agui.ToolCallEnd:
		l := b.all[laneOf(e)]
		if l == nil || !l.open {
			b.htmlRunEvent(i, ref, e, false)
			return
		}
		l.end = i
		l.spans[len(l.spans)-1].end, l.spans[len(l.spans)-1].endRef = i, ref
		l.open = false
	case agui.ToolCallResult:
		name := ""
		content := stringField(e, "content")
		if l, ok := b.calls[e.ToolCallID()]; ok {
			name = " (" + l.name + ")"
			if l.result < 0 {
				l.result, l.resultRef = i, ref
				l.content = clip(content, 400)
				if b.html != nil {
					b.html.result(l, b.pos(ref), fmt.Sprintf("#%d result: %s", ref.index+1, l.content))
				}
			}
		} else {
			b.htmlRunEvent(i, ref, e, false)
		}
		b.line1(i, ref, "result "+e.ToolCallID()+name+": "+clip(content, 200), false)
	default:
		b.htmlRunEvent(i, ref, e, false)
		for _, s := range eventLines(e) {
			b.line1(i, ref, s, t == agui.RunError)
		}
	}
}

// htmlRunEvent draws an event on the run's own row of the timeline.
func (b *runBuilder) htmlRunEvent(i int, ref evRef, e agui.Event, fragment bool) {
	if b.html != nil && !fragment {
		b.html.runDot(b.pos(ref), fmt.Sprintf("#%d %s", ref.index+1, clip(string(e.Raw()), 300)))
	}
}

func (b *runBuilder) line1(i int, ref evRef, text string, bad bool) {
	b.lines = append(b.lines, tline{pos: i, ref: ref, text: text, bad: bad})
}

// eventLines are the transcript lines of an event that is not part of a
// lane.
func eventLines(e agui.Event) []string {
	switch e.Type() {
	case agui.StateDelta:
		raw, _ := e.Field("delta")
		var ops []struct {
			Op    string          `json:"op"`
			Path  string          `json:"path"`
			From  string          `json:"from"`
			Value json.RawMessage `json:"value"`
		}
		if json.Unmarshal(raw, &ops) != nil {
			return []string{"state delta: " + clip(compactJSON(raw), 200)}
		}
		var out []string
		for _, op := range ops {
			s := "state " + op.Op + " " + op.Path
			if op.From != "" {
				s += " from " + op.From
			}
			if len(op.Value) > 0 {
				s += " " + clip(compactJSON(op.Value), 160)
			}
			out = append(out, s)
		}
		return out
	case agui.StateSnapshot:
		raw, _ := e.Field("snapshot")
		return []string{"state snapshot " + clip(compactJSON(raw), 200)}
	case agui.MessagesSnapshot:
		raw, _ := e.Field("messages")
		var msgs []json.RawMessage
		_ = json.Unmarshal(raw, &msgs)
		return []string{"messages snapshot: " + plural(len(msgs), "message")}
	case agui.RunStarted:
		return []string{"RUN_STARTED " + e.RunID()}
	case agui.RunFinished:
		s := "RUN_FINISHED " + e.RunID()
		if raw, ok := e.Field("result"); ok {
			s += " result " + clip(compactJSON(raw), 160)
		}
		return []string{s}
	case agui.RunError:
		s := "RUN_ERROR"
		if c := stringField(e, "code"); c != "" {
			s += " " + c
		}
		return []string{s + ": " + stringField(e, "message")}
	case agui.StepStarted:
		return []string{"step " + e.StepName() + " started"}
	case agui.StepFinished:
		return []string{"step " + e.StepName() + " finished"}
	case agui.Custom:
		raw, _ := e.Field("value")
		return []string{"custom " + e.Name() + " " + clip(compactJSON(raw), 160)}
	}
	return []string{clip(string(e.Raw()), 200)}
}

// violation adds a violation after the lines of its event; end says it
// was found at the end of the stream.
func (b *runBuilder) violation(v agui.Violation, file string, ref evRef, end bool) {
	b.violations++
	where := file
	if ref.line > 0 && !end {
		where = fmt.Sprintf("%s:%d", file, ref.line)
	}
	b.lines = append(b.lines, tline{pos: b.seq - 1, ref: ref, text: fmt.Sprintf("! %s: %s", where, violationText(v)), bad: true, end: end})
	if b.html != nil {
		row := ""
		for _, key := range []laneKey{{"call", v.ToolCallID}, {"message", v.MessageID}, {"reasoning", v.MessageID}} {
			if _, ok := b.all[key]; ok && key.id != "" {
				row = key.String()
				break
			}
		}
		p := b.endPos
		if !end {
			p = b.pos(ref)
		}
		b.html.violation(row, p, string(v.Rule), v.Error())
	}
}

// client feeds a raw event to the client's view, within the lanes'
// bounds: a fragment of text a lane no longer keeps is not applied (a
// chunk loses its delta), so that the view holds at most maxLaneText of
// each message and call.
func (b *runBuilder) client(e agui.Event, expanded []agui.Event) {
	if b.stopped {
		return
	}
	over := false
	for _, x := range expanded {
		switch x.Type() {
		case agui.TextMessageContent, agui.ReasoningMessageContent, agui.ToolCallArgs:
		default:
			continue
		}
		if l := b.all[laneOf(x)]; l != nil && !l.whole() {
			over = true
		}
	}
	if over {
		switch e.Type() {
		case agui.TextMessageContent, agui.ReasoningMessageContent, agui.ToolCallArgs:
			return
		default:
			e = withoutDelta(e)
		}
	}
	b.feed.apply(e) // where the view fails, the client stops: it holds what it held
}

// withoutDelta returns e without its "delta" member.
func withoutDelta(e agui.Event) agui.Event {
	var kv []any
	for _, m := range e.Members() {
		if m.Key != "delta" && m.Key != "type" {
			kv = append(kv, m.Key, m.Value)
		}
	}
	return agui.NewEvent(e.Type(), kv...)
}

// laneOf returns the lane an event of a text message, reasoning message or
// tool call belongs to: its kind ("message", "reasoning" or "call") and
// its id.
func laneOf(e agui.Event) laneKey {
	switch e.Type() {
	case agui.ReasoningMessageStart, agui.ReasoningMessageContent, agui.ReasoningMessageEnd:
		return laneKey{"reasoning", e.MessageID()}
	case agui.ToolCallStart, agui.ToolCallArgs, agui.ToolCallEnd:
		return laneKey{"call", e.ToolCallID()}
	}
	return laneKey{"message", e.MessageID()}
}
