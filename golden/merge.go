package golden

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/aguitest/aguitest/agui"
)

// The types of the entries the merged view makes.
const (
	// Message is a message as the client holds it at the end of a run
	// that created or changed it (agui.View): its fields as the client
	// has them, "id" as "messageId", and its tool calls as
	// {"id", "name", "args"} with the arguments parsed as JSON (kept as
	// a string when they are not one JSON value). A message or a call
	// started and never ended is marked "incomplete": true.
	Message = "MESSAGE"
	// MessageRemoved is a message the client held at the start of a run
	// and no longer holds at its end (a MESSAGES_SNAPSHOT left it out).
	MessageRemoved = "MESSAGE_REMOVED"
	// State is the client's state at the end of a run that sent
	// STATE_SNAPSHOT or STATE_DELTA, under "snapshot".
	State = "STATE"
)

// folded reports whether an event builds the client's messages or state,
// and so appears in the merged view only through them.
func folded(t agui.EventType) bool {
	switch t {
	case agui.TextMessageStart, agui.TextMessageContent, agui.TextMessageEnd,
		agui.ToolCallStart, agui.ToolCallArgs, agui.ToolCallEnd, agui.ToolCallResult,
		agui.ReasoningMessageStart, agui.ReasoningMessageContent, agui.ReasoningMessageEnd,
		agui.ReasoningEncryptedValue, agui.ActivitySnapshot, agui.ActivityDelta,
		agui.MessagesSnapshot, agui.StateSnapshot, agui.StateDelta:
		return true
	}
	return false
}

// placed is an entry at its place: the position of the event it stands
// for, and among entries at one position, their order.
type placed struct {
	pos, order int
	e          Entry
}

// msgRec is one message of the client's list: its id (as a key) and, in
// the list a run starts from, its canonical text.
type msgRec struct {
	id   string
	text string
	m    map[string]any
}

// The merged view of runs: the client's view (agui.View) as each run
// leaves it becomes a Message entry per message the run created or
// changed, at the place where the run first touched it, in the order the
// client holds them (canonical where only the interleaving of parallel
// calls decides), and a State entry before the run's end; other events
// stay as they are. Ids are still the original ones.

// A merger builds the merged view of requests whose events are pushed one
// at a time: it holds the client's view and the entries, not the events.
type merger struct {
	c          agui.Client
	decode     func(agui.Event) Entry
	v          *agui.View
	stateKnown bool
	// x expands the request's chunks; a chunk that cannot is kept as it
	// is.
	x *agui.Expander
	// openMsgs and openCalls are the messages and calls the request has
	// started and not ended: the entries of all its runs mark them, so
	// its runs are emitted when it ends.
	openMsgs, openCalls map[string]bool
	started             bool
	run                 *runMerge
	ended               []*runMerge
	out                 []Entry
}

func newMerger(c agui.Client, decode func(agui.Event) Entry) *merger {
	return &merger{c: c, decode: decode}
}

// request ends the request in progress, if any, and starts one: from its
// input's messages and state when known; without it, from what the view
// held after the previous request (nothing at first).
func (m *merger) request(in *agui.RunAgentInput) {
	m.endRequest()
	switch {
	case in != nil:
		m.v, m.stateKnown = agui.NewClientView(m.c, *in), true
	case m.v == nil:
		m.v = agui.NewClientView(m.c, agui.RunAgentInput{})
	default:
		m.v.AddMessages() // a request of its own
	}
	m.x = agui.NewClientExpander(m.c)
	m.openMsgs, m.openCalls = map[string]bool{}, map[string]bool{}
	m.started = true
}

// push merges the request's next event.
func (m *merger) push(e agui.Event) {
	if !m.started {
		m.request(nil)
	}
	out, err := m.x.Push(e)
	for _, y := range out {
		switch y.Type() {
		case agui.TextMessageStart, agui.ReasoningMessageStart:
			m.openMsgs[y.MessageID()] = true
		case agui.TextMessageEnd, agui.ReasoningMessageEnd:
			delete(m.openMsgs, y.MessageID())
		case agui.ToolCallStart:
			m.openCalls[y.ToolCallID()] = true
		case agui.ToolCallEnd:
			delete(m.openCalls, y.ToolCallID())
		}
		m.item(y, false)
	}
	if err != nil {
		m.item(e, true)
	}
}

// item merges one expanded event; raw says an event kept as it came.
func (m *merger) item(e agui.Event, raw bool) {
	if m.run != nil && e.Type() == agui.RunStarted {
		m.run.end()
		m.ended = append(m.ended, m.run)
		m.run = nil
	}
	if m.run == nil {
		m.run = startRun(m.v, &m.stateKnown, m.decode, e, raw)
		return
	}
	m.run.push(e, raw)
}

// endRequest ends the request in progress: its runs' entries go out.
func (m *merger) endRequest() {
	if m.run != nil {
		m.run.end()
		m.ended = append(m.ended, m.run)
		m.run = nil
	}
	for _, r := range m.ended {
		m.out = r.emit(m.out, m.openMsgs, m.openCalls)
	}
	m.ended = nil
	m.started = false
}

// end ends the last request and returns the entries.
func (m *merger) end() []Entry {
	m.endRequest()
	return m.out
}

// runMerge merges one run, its events pushed one at a time: each event
// either becomes an entry (kept) or builds the client's view, whose
// messages and state become entries when the run ends.
type runMerge struct {
	v          *agui.View
	stateKnown *bool
	decode     func(agui.Event) Entry
	entries    []placed
	// before is the client's list of messages as the run starts.
	before []msgRec
	// refs and callRefs map a message id and a call id to the first
	// position that names it.
	refs, callRefs map[string]int
	stopped        bool
	stateTouched   bool
	// endAt is the position of the run's terminal event, -1 before it.
	endAt int
	// n is the number of events pushed.
	n int
	// changed and slots are, once the run has ended, the messages it
	// created or changed, in the client's order, and the position of each.
	changed []map[string]any
	slots   []int
}

// startRun starts merging a run at its first event.
func startRun(v *agui.View, stateKnown *bool, decode func(agui.Event) Entry, first agui.Event, raw bool) *runMerge {
	r := &runMerge{v: v, stateKnown: stateKnown, decode: decode, refs: map[string]int{}, callRefs: map[string]int{}, endAt: -1}
	if first.Type() == agui.RunStarted && !raw {
		// RUN_STARTED's input messages are the run's starting point.
		_ = v.Apply(first)
		r.keep(0, first)
		r.n = 1
		r.before = records(v, true)
		return r
	}
	r.before = records(v, true)
	r.push(first, raw)
	return r
}

func (r *runMerge) keep(i int, e agui.Event) {
	r.entries = append(r.entries, placed{pos: i, e: r.decode(e)})
}

func ref(m map[string]int, id string, i int) {
	if _, ok := m[id]; !ok && id != "" {
		m[id] = i
	}
}

// push merges the run's next event.
func (r *runMerge) push(e agui.Event, raw bool) {
	i := r.n
	r.n++
	t := e.Type()
	if (t == agui.RunFinished || t == agui.RunError) && !raw {
		r.endAt = i
	}
	if r.stopped || raw {
		// The client stops at a chunk it cannot expand too.
		r.stopped = true
		r.keep(i, e)
		return
	}
	if t == agui.StateDelta && !*r.stateKnown {
		// Patches of a state the view does not know (no request, no
		// snapshot yet) are shown as they came.
		r.keep(i, e)
		return
	}
	if !folded(t) {
		if err := r.v.Apply(e); err != nil {
			r.stopped = true
		}
		r.keep(i, e)
		return
	}
	switch t {
	case agui.ToolCallStart, agui.ToolCallArgs, agui.ToolCallEnd:
		ref(r.callRefs, e.ToolCallID(), i)
		ref(r.refs, e.ParentMessageID(), i)
	case agui.ReasoningEncryptedValue:
		id := stringField(e, "entityId")
		if stringField(e, "subtype") == "tool-call" {
			ref(r.callRefs, id, i)
		} else {
			ref(r.refs, id, i)
		}
	case agui.MessagesSnapshot:
		for _, id := range snapshotIDs(e) {
			ref(r.refs, id, i)
		}
	case agui.StateSnapshot, agui.StateDelta:
		r.stateTouched, *r.stateKnown = true, true
	default:
		ref(r.refs, e.MessageID(), i)
	}
	if err := r.v.Apply(e); err != nil {
		// The client stops here: what follows is shown as it came.
		r.stopped = true
		r.keep(i, e)
	}
}

// end ends the run, reading what the client's view holds now: the
// messages the run created or changed, each at the first place that
// named it, the messages it removed, and the state if the run touched it.
func (r *runMerge) end() {
	v, refs := r.v, r.refs
	if r.endAt < 0 {
		r.endAt = r.n
	}
	after := records(v, false)
	seen := map[string]int{}
	old := map[string][]string{}
	for _, m := range r.before {
		old[m.id] = append(old[m.id], m.text)
	}
	owner := map[string]string{}
	for _, m := range after {
		for _, c := range callsOf(m.m) {
			if id, ok := c["id"].(string); ok {
				if _, dup := owner[id]; !dup {
					owner[id] = m.id
				}
			}
		}
	}
	for id, i := range r.callRefs {
		if m, ok := owner[id]; ok {
			if j, ok := refs[m]; !ok || i < j {
				refs[m] = i
			}
		}
	}
	for _, m := range after {
		n := seen[m.id]
		seen[m.id]++
		if n < len(old[m.id]) && old[m.id][n] == canonicalText(m.m) {
			continue
		}
		slot, ok := refs[m.id]
		if !ok {
			slot = r.endAt
		}
		r.changed = append(r.changed, m.m)
		r.slots = append(r.slots, slot)
	}
	n := len(r.changed)
	for _, m := range r.before {
		if seen[m.id] == 0 {
			seen[m.id] = -1 // once
			r.entries = append(r.entries, placed{pos: r.endAt, order: n, e: Entry{"type": MessageRemoved, "messageId": m.m["id"]}})
			n++
		}
	}
	if r.stateTouched {
		s, err := decodeJSON(v.State())
		if err == nil {
			r.entries = append(r.entries, placed{pos: r.endAt, order: n, e: Entry{"type": State, "snapshot": s}})
		}
	}
	r.before, r.refs, r.callRefs = nil, nil, nil
}

// emit appends the ended run's entries to out, in order; openMsgs and
// openCalls are the messages and calls still open at the request's end.
func (r *runMerge) emit(out []Entry, openMsgs, openCalls map[string]bool) []Entry {
	entries, end := r.entries, r.endAt
	msgs := make([]Entry, len(r.changed))
	for i, m := range r.changed {
		msgs[i] = messageEntry(m, openMsgs, openCalls)
	}
	msgs = canonicalOrder(msgs, r.slots)
	slices.Sort(r.slots)
	for k, e := range msgs {
		entries = append(entries, placed{pos: r.slots[k], order: k, e: e})
	}
	// Entries for the run's end come after what is placed before it.
	slices.SortStableFunc(entries, func(a, b placed) int {
		return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(kind(a, end), kind(b, end)), cmp.Compare(a.order, b.order))
	})
	for _, p := range entries {
		out = append(out, p.e)
	}
	return out
}

// kind orders entries at one position: at the run's end, what the merged
// view adds goes before the terminal event.
func kind(p placed, end int) int {
	switch p.e.Type() {
	case Message, MessageRemoved, State:
		return 0
	}
	return 1
}

// records returns the client's messages, with their canonical text when
// text is set.
func records(v *agui.View, text bool) []msgRec {
	all, err := decodeJSON(v.MessagesJSON())
	if err != nil {
		return nil
	}
	list, _ := all.([]any)
	out := make([]msgRec, 0, len(list))
	for _, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			continue
		}
		r := msgRec{id: idText(m["id"]), m: m}
		if text {
			r.text = canonicalText(m)
		}
		out = append(out, r)
	}
	return out
}

// canonicalText is a message as a golden line, to tell whether a run
// changed it.
func canonicalText(m map[string]any) string { return string(Marshal([]Entry{m})) }

// idText is an id as a map key: a string as it is, anything else as JSON.
func idText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return "\x00" + string(Marshal([]Entry{{"id": v}}))
}

func stringField(e agui.Event, name string) string {
	raw, ok := e.Field(name)
	if !ok {
		return ""
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return ""
	}
	s, _ := v.(string)
	return s
}

// snapshotIDs returns the ids of a MESSAGES_SNAPSHOT's messages.
func snapshotIDs(e agui.Event) []string {
	raw, ok := e.Field("messages")
	if !ok {
		return nil
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil
	}
	list, _ := v.([]any)
	var ids []string
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			ids = append(ids, idText(m["id"]))
		}
	}
	return ids
}

func callsOf(m map[string]any) []map[string]any {
	list, _ := m["toolCalls"].([]any)
	var out []map[string]any
	for _, c := range list {
		if cm, ok := c.(map[string]any); ok {
			out = append(out, cm)
		}
	}
	return out
}

// messageEntry turns a message of the client's into a Message entry.
func messageEntry(m map[string]any, openMsgs, openCalls map[string]bool) Entry {
	e := Entry{"type": Message}
	for k, v := range m {
		switch k {
		case "id":
			e["messageId"] = v
		case "toolCalls":
			list, ok := v.([]any)
			if !ok {
				e[k] = v
				continue
			}
			calls := make([]any, len(list))
			for i, c := range list {
				calls[i] = callEntry(c, openCalls)
			}
			e[k] = calls
		case "type":
			e["messageType"] = v // "type" names the entry
		default:
			e[k] = v
		}
	}
	if id, ok := m["id"].(string); ok && openMsgs[id] {
		e["incomplete"] = true
	}
	return e
}

// callEntry turns a tool call into {"id", "name", "args", ...}.
func callEntry(c any, openCalls map[string]bool) any {
	cm, ok := c.(map[string]any)
	if !ok {
		return c
	}
	out := map[string]any{}
	for k, v := range cm {
		switch k {
		case "function":
			fn, ok := v.(map[string]any)
			if !ok {
				out[k] = v
				continue
			}
			rest := map[string]any{}
			for fk, fv := range fn {
				switch fk {
				case "name":
					out["name"] = fv
				case "arguments":
					if s, ok := fv.(string); ok {
						out["args"] = parseArgs(s)
					} else {
						out["args"] = fv
					}
				default:
					rest[fk] = fv
				}
			}
			if len(rest) > 0 {
				out["function"] = rest
			}
		case "type":
			if v != "function" {
				out[k] = v
			}
		default:
			out[k] = v
		}
	}
	if id, ok := cm["id"].(string); ok && openCalls[id] {
		out["incomplete"] = true
	}
	return out
}

// canonicalOrder puts what only the interleaving of parallel calls decides
// into an order that does not depend on it, nor on the ids: the calls of
// one message by name, arguments and other fields; the results after a
// message in the order of its calls; and runs of messages that only hold
// calls (one per call, when the agent names no parent) and were started
// before any of them got a result, by their content. slots are the
// messages' first positions in the stream, in the same order.
func canonicalOrder(msgs []Entry, slots []int) []Entry {
	for _, m := range msgs {
		if calls, ok := m["toolCalls"].([]any); ok {
			slices.SortStableFunc(calls, func(a, b any) int {
				return cmp.Compare(callKey(a), callKey(b))
			})
		}
	}
	// Groups: a message with calls and the results after it.
	type group struct {
		msgs          []Entry
		start, result int
		callsOnly     bool
	}
	var groups []group
	for i := 0; i < len(msgs); {
		g := group{msgs: msgs[i : i+1], start: slots[i], result: math.MaxInt}
		calls := callIndex(msgs[i])
		j := i + 1
		if len(calls) > 0 {
			for j < len(msgs) && msgs[j]["role"] == "tool" {
				if _, ok := calls[idText(msgs[j]["toolCallId"])]; !ok {
					break
				}
				g.result = min(g.result, slots[j])
				j++
			}
			results := slices.Clone(msgs[i+1 : j])
			slices.SortStableFunc(results, func(a, b Entry) int {
				return cmp.Compare(calls[idText(a["toolCallId"])], calls[idText(b["toolCallId"])])
			})
			g.msgs = append([]Entry{msgs[i]}, results...)
			c, _ := msgs[i]["content"].(string)
			g.callsOnly = msgs[i]["role"] == "assistant" && c == ""
		}
		groups = append(groups, g)
		i = j
	}
	// Runs of call-only groups started before any of them had a result.
	for i := 0; i < len(groups); {
		if !groups[i].callsOnly {
			i++
			continue
		}
		j, firstResult := i+1, groups[i].result
		for j < len(groups) && groups[j].callsOnly && groups[j].start < firstResult {
			firstResult = min(firstResult, groups[j].result)
			j++
		}
		slices.SortStableFunc(groups[i:j], func(a, b group) int {
			return cmp.Compare(groupKey(a.msgs), groupKey(b.msgs))
		})
		i = j
	}
	out := make([]Entry, 0, len(msgs))
	for _, g := range groups {
		out = append(out, g.msgs...)
	}
	return out
}

// callIndex maps the ids of a message's calls to their positions.
func callIndex(m Entry) map[string]int {
	calls, _ := m["toolCalls"].([]any)
	idx := map[string]int{}
	for i, c := range calls {
		if cm, ok := c.(map[string]any); ok {
			idx[idText(cm["id"])] = i
		}
	}
	return idx
}

// callKey is a call's golden text without its id.
func callKey(c any) string {
	cm, ok := c.(map[string]any)
	if !ok {
		return ""
	}
	k := map[string]any{}
	for f, v := range cm {
		if f != "id" {
			k[f] = v
		}
	}
	// name first: calls sort by tool name, then arguments, then the rest.
	return strconv.Quote(stringOf(cm["name"])) + string(Marshal([]Entry{k}))
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}

// groupKey is the golden text of a group without ids.
func groupKey(msgs []Entry) string {
	var s string
	for _, m := range msgs {
		c := Entry{}
		for k, v := range m {
			switch k {
			case "messageId", "toolCallId":
			case "toolCalls":
				calls, _ := v.([]any)
				stripped := make([]any, len(calls))
				for i, x := range calls {
					if cm, ok := x.(map[string]any); ok {
						y := map[string]any{}
						for f, fv := range cm {
							if f != "id" {
								y[f] = fv
							}
						}
						stripped[i] = y
					}
				}
				c[k] = stripped
			default:
				c[k] = v
			}
		}
		s += string(Marshal([]Entry{c}))
	}
	return s
}

// withoutIDs returns the golden text of e without its top-level id fields.
func withoutIDs(e Entry) string {
	c := make(Entry, len(e))
	for k, v := range e {
		if topIDKind(e, k) == "" {
			c[k] = v
		}
	}
	return string(Marshal([]Entry{c}))
}
