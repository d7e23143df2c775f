package golden

import (
	"cmp"
	"slices"
	"strings"

	"github.com/aguitest/aguitest/agui"
)

// The types of the entries the merged view makes of fragmented events.
const (
	// TextMessage is a TEXT_MESSAGE_START..END span: the start's fields
	// and "text", the deltas joined.
	TextMessage = "TEXT_MESSAGE"
	// ReasoningMessage is a REASONING_MESSAGE_START..END span, like
	// TextMessage.
	ReasoningMessage = "REASONING_MESSAGE"
	// ToolCall is a TOOL_CALL_START..END span: the start's fields and
	// "args", the argument fragments joined and parsed as JSON (kept as a
	// string when they are not one JSON value).
	ToolCall = "TOOL_CALL"
)

// pending is a merged entry still collecting fragments.
type pending struct {
	idx  int // in the output
	call bool
	buf  strings.Builder
}

// merge builds the merged view of events: chunks expanded, each message and
// call one entry at the position of its start, sibling calls and their
// results in a canonical order. Ids are still the original ones.
func merge(events []agui.Event, decode func(agui.Event) Entry) []Entry {
	var (
		x    agui.Expander
		out  []Entry
		open = make(map[string]*pending)
	)
	finish := func(key string, p *pending, complete bool) {
		e := out[p.idx]
		if p.call {
			e["args"] = parseArgs(p.buf.String())
		} else {
			e["text"] = p.buf.String()
		}
		if !complete {
			e["incomplete"] = true
		}
		delete(open, key)
	}
	handle := func(e agui.Event) {
		var key, merged string
		switch e.Type() {
		case agui.TextMessageStart, agui.TextMessageContent, agui.TextMessageEnd:
			key, merged = "m\x00"+e.MessageID(), TextMessage
		case agui.ReasoningMessageStart, agui.ReasoningMessageContent, agui.ReasoningMessageEnd:
			key, merged = "r\x00"+e.MessageID(), ReasoningMessage
		case agui.ToolCallStart, agui.ToolCallArgs, agui.ToolCallEnd:
			key, merged = "c\x00"+e.ToolCallID(), ToolCall
		default:
			out = append(out, decode(e))
			return
		}
		p := open[key]
		switch e.Type() {
		case agui.TextMessageStart, agui.ReasoningMessageStart, agui.ToolCallStart:
			if p != nil || len(key) == 2 {
				break // an id reopened or missing: keep the event as it is
			}
			entry := decode(e)
			entry["type"] = merged
			open[key] = &pending{idx: len(out), call: merged == ToolCall}
			out = append(out, entry)
			return
		case agui.TextMessageContent, agui.ReasoningMessageContent, agui.ToolCallArgs:
			if p != nil {
				p.buf.WriteString(e.Delta())
				return
			}
		default: // the ENDs
			if p != nil {
				finish(key, p, true)
				return
			}
		}
		out = append(out, decode(e))
	}
	for _, e := range events {
		expanded, err := x.Push(e)
		for _, y := range expanded {
			handle(y)
		}
		if err != nil {
			// A chunk that cannot be expanded stays as it is.
			out = append(out, decode(e))
		}
	}
	// What never ended is kept, marked incomplete, in start order.
	left := make([]string, 0, len(open))
	for k := range open {
		left = append(left, k)
	}
	slices.SortFunc(left, func(a, b string) int { return open[a].idx - open[b].idx })
	for _, k := range left {
		finish(k, open[k], false)
	}
	canonicalOrder(out)
	return out
}

// canonicalOrder sorts each run of consecutive TOOL_CALL entries, and then
// each run of consecutive TOOL_CALL_RESULT entries, into an order that does
// not depend on how the calls were interleaved or which ids they got: calls
// by the first appearance of their parent message, then tool name, then
// arguments and other fields; results by the position of their call.
func canonicalOrder(entries []Entry) {
	firstSeen := make(map[string]int)
	for i, e := range entries {
		for _, k := range []string{"messageId", "parentMessageId"} {
			if s, ok := e[k].(string); ok {
				if _, seen := firstSeen[s]; !seen {
					firstSeen[s] = i
				}
			}
		}
	}
	type keyed struct {
		e      Entry
		parent int
		name   string
		rest   string
	}
	eachRun(entries, ToolCall, func(run []Entry) {
		ks := make([]keyed, len(run))
		for i, e := range run {
			parent, _ := e["parentMessageId"].(string)
			name, _ := e["toolCallName"].(string)
			rank, ok := firstSeen[parent]
			if !ok {
				rank = len(entries)
			}
			ks[i] = keyed{e: e, parent: rank, name: name, rest: withoutIDs(e)}
		}
		slices.SortStableFunc(ks, func(a, b keyed) int {
			return cmp.Or(cmp.Compare(a.parent, b.parent), cmp.Compare(a.name, b.name), cmp.Compare(a.rest, b.rest))
		})
		for i := range ks {
			run[i] = ks[i].e
		}
	})
	callAt := make(map[string]int)
	for i, e := range entries {
		if e.Type() == ToolCall {
			if s, ok := e["toolCallId"].(string); ok {
				callAt[s] = i
			}
		}
	}
	eachRun(entries, string(agui.ToolCallResult), func(run []Entry) {
		pos := func(e Entry) int {
			s, _ := e["toolCallId"].(string)
			if i, ok := callAt[s]; ok {
				return i
			}
			return len(entries)
		}
		slices.SortStableFunc(run, func(a, b Entry) int { return cmp.Compare(pos(a), pos(b)) })
	})
}

// eachRun calls fn on each maximal run of two or more consecutive entries
// of type typ.
func eachRun(entries []Entry, typ string, fn func([]Entry)) {
	for i := 0; i < len(entries); {
		if entries[i].Type() != typ {
			i++
			continue
		}
		j := i + 1
		for j < len(entries) && entries[j].Type() == typ {
			j++
		}
		if j-i > 1 {
			fn(entries[i:j])
		}
		i = j
	}
}

// withoutIDs returns the golden text of e without its id fields.
func withoutIDs(e Entry) string {
	c := make(Entry, len(e))
	for k, v := range e {
		if topIDKind(e, k) == "" {
			c[k] = v
		}
	}
	return string(Marshal([]Entry{c}))
}
