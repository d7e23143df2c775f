package agui

import (
	"bytes"
	"errors"
	"fmt"
)

// Chunk events are a shorthand: TEXT_MESSAGE_CHUNK, TOOL_CALL_CHUNK and
// REASONING_MESSAGE_CHUNK open a message or call on their first appearance,
// carry content, and are closed by whatever comes next. Expansion turns
// them into the START/CONTENT/END (or START/ARGS/END) events they stand for,
// with the same results as transformChunks of @ag-ui/client 1.0.0: one open
// stream per "lane" (the subagent the chunks are attributed to, or the
// parent agent), continuations that may omit the id, metadata and rawEvent
// carried onto the content event, and the same errors.

// The fields each chunk shape describes; any other field of a chunk rides on
// the synthesized content event (or on the opener when there is none).
var (
	textChunkFields      = fieldSet("type", "timestamp", "rawEvent", "metadata", "subagentRunId", "messageId", "role", "delta", "name")
	toolChunkFields      = fieldSet("type", "timestamp", "rawEvent", "metadata", "subagentRunId", "toolCallId", "toolCallName", "parentMessageId", "delta")
	reasoningChunkFields = fieldSet("type", "timestamp", "rawEvent", "metadata", "subagentRunId", "messageId", "delta")
)

func fieldSet(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

type laneKind uint8

const (
	laneText laneKind = iota + 1
	laneTool
	laneReasoning
)

// jsField is a field value kept for synthesizing events: its raw JSON (nil
// when absent) and its key for comparisons.
type jsField struct {
	raw []byte
	key string
}

func (f jsField) present() bool { return f.raw != nil }

type lane struct {
	owner string // key of the subagentRunId, keyUndefined for the parent
	kind  laneKind
	id    jsField // messageId or toolCallId
	role  jsField // text: the established role
	name  jsField // text: name; tool: toolCallName
	pmid  jsField // tool: parentMessageId
	sub   jsField // the opener's subagentRunId as sent (may be null)
}

// own gives the lane copies of its values: a lane outlives the event that
// opened it, whose bytes a reader may reuse (ParallelReader.Recycle).
func (l *lane) own() {
	for _, f := range []*jsField{&l.id, &l.role, &l.name, &l.pmid, &l.sub} {
		if f.raw != nil {
			f.raw = bytes.Clone(f.raw)
		}
	}
}

// Expander expands chunk events as a client does before verifying. The
// zero value is ready to use. It is not safe for concurrent use.
type Expander struct {
	lanes []lane // in the order they opened, like a JavaScript Map
	uniq  int
	// v0059 expands as @ag-ui/client 0.0.59 does: no opener-agreement
	// checks, rawEvent and unknown fields not carried, THINKING_* events
	// close their lane.
	v0059 bool
	// out is what Push returned last, reused by the next call.
	out []Event
}

// NewClientExpander returns an Expander that expands chunks as client
// version c does; the zero Expander expands them as 1.0.0 does.
func NewClientExpander(c Client) *Expander { return &Expander{v0059: c == ClientV0059} }

// ExpandChunks expands the chunk events of a whole stream. On an error it
// returns the events expanded before the offending event and the error,
// which names that event's index.
func ExpandChunks(events []Event) ([]Event, error) {
	var x Expander
	var out []Event
	for i := range events {
		got, err := x.push(&events[i], nil)
		out = append(out, got...)
		if err != nil {
			return out, fmt.Errorf("event %d (%s): %w", i, events[i].typ, err)
		}
	}
	return out, nil
}

// Push expands one event. Events that are not chunks come back unchanged,
// preceded by the END of a chunk stream they close. The returned slice is
// only valid until the next call.
func (x *Expander) Push(e Event) ([]Event, error) {
	out, err := x.push(&e, x.out[:0])
	x.out = out
	return out, err
}

func (x *Expander) field(e *Event, sp span) jsField {
	if !sp.Present() {
		return jsField{key: keyUndefined}
	}
	return jsField{raw: e.raw[sp.Start:sp.End], key: string(keyBytes(e.raw, sp, func() int { x.uniq++; return x.uniq }))}
}

func (x *Expander) find(owner string) int {
	for i := range x.lanes {
		if x.lanes[i].owner == owner {
			return i
		}
	}
	return -1
}

// closeLane appends the END for what owner's lane has open and clears it.
func (x *Expander) closeLane(owner string, out []Event) []Event {
	i := x.find(owner)
	if i < 0 {
		return out
	}
	l := x.lanes[i]
	x.lanes = append(x.lanes[:i], x.lanes[i+1:]...)
	var b objBuilder
	switch l.kind {
	case laneText:
		b.str("type", string(TextMessageEnd)).raw("messageId", l.id.raw)
	case laneTool:
		b.str("type", string(ToolCallEnd)).raw("toolCallId", l.id.raw)
	case laneReasoning:
		b.str("type", string(ReasoningMessageEnd)).raw("messageId", l.id.raw)
	}
	if l.sub.present() {
		b.raw("subagentRunId", l.sub.raw)
	}
	return append(out, b.event())
}

func (x *Expander) closeAll(out []Event) []Event {
	for len(x.lanes) > 0 {
		out = x.closeLane(x.lanes[0].owner, out)
	}
	return out
}

func (x *Expander) push(e *Event, out []Event) ([]Event, error) {
	tagSp := e.f[fSubagentRunID]
	laneOf := func() string { // subagentRunId ?? undefined
		if tagSp.Kind == kindNull {
			return keyUndefined
		}
		return x.field(e, tagSp).key
	}
	switch e.typ {
	case TextMessageStart, TextMessageContent, TextMessageEnd,
		ToolCallStart, ToolCallArgs, ToolCallEnd, ToolCallResult,
		StateSnapshot, StateDelta, Custom, StepStarted, StepFinished,
		ReasoningStart, ReasoningMessageStart, ReasoningMessageContent,
		ReasoningMessageEnd, ReasoningEnd:
		return append(x.closeLane(laneOf(), out), *e), nil
	case ThinkingStart, ThinkingEnd, ThinkingTextMessageStart, ThinkingTextMessageContent, ThinkingTextMessageEnd:
		if x.v0059 {
			return append(x.closeLane(laneOf(), out), *e), nil
		}
	case RunStarted, RunFinished, RunError, MessagesSnapshot:
		return append(x.closeAll(out), *e), nil
	case SubagentFinished, SubagentError:
		if !tagSp.Present() || tagSp.Kind == kindNull {
			return append(out, *e), nil
		}
		return append(x.closeLane(laneOf(), out), *e), nil
	case TextMessageChunk:
		return x.chunk(e, laneText, out)
	case ToolCallChunk:
		return x.chunk(e, laneTool, out)
	case ReasoningMessageChunk:
		return x.chunk(e, laneReasoning, out)
	}
	return append(out, *e), nil
}

func kindNames(k laneKind) (chunkType EventType, entity, idField string, described map[string]bool) {
	switch k {
	case laneText:
		return TextMessageChunk, "text message", "messageId", textChunkFields
	case laneTool:
		return ToolCallChunk, "tool call", "toolCallId", toolChunkFields
	}
	return ReasoningMessageChunk, "reasoning message", "messageId", reasoningChunkFields
}

func (x *Expander) resolveLane(k laneKind, id jsField, tag string) (string, error) {
	chunkType, entity, idField, _ := kindNames(k)
	if id.present() {
		for _, l := range x.lanes {
			if l.kind == k && l.id.key == id.key {
				if tag != keyUndefined && tag != l.owner {
					return "", fmt.Errorf("Cannot continue %s '%s': chunk subagentRunId '%s' does not match the open stream's subagent '%s'.",
						entity, keyText(id.key), keyText(tag), ownerText(l.owner))
				}
				return l.owner, nil
			}
		}
		return tag, nil
	}
	if tag != keyUndefined {
		return tag, nil
	}
	if i := x.find(keyUndefined); i >= 0 && x.lanes[i].kind == k {
		return keyUndefined, nil
	}
	var cands []string
	for _, l := range x.lanes {
		if l.kind == k {
			cands = append(cands, l.owner)
		}
	}
	switch len(cands) {
	case 0:
		return keyUndefined, nil
	case 1:
		return cands[0], nil
	}
	return "", fmt.Errorf("Ambiguous %s: it carries neither a %s nor a subagentRunId, but %d lanes have an open %s. Attribute the chunk to the subagent it belongs to.",
		chunkType, idField, len(cands), entity)
}

func agreement(entity string, id jsField, field string, incoming, established jsField) error {
	if !incoming.present() || incoming.key == established.key {
		return nil
	}
	est := "(absent)"
	if established.present() {
		est = "'" + keyText(established.key) + "'"
	}
	return fmt.Errorf("Cannot continue %s '%s': chunk %s '%s' does not match the open stream's %s %s.",
		entity, keyText(id.key), field, keyText(incoming.key), field, est)
}

// chunk expands one chunk event. On an error nothing it synthesized is
// returned (the reference throws away its partial result), though a lane it
// closed stays closed.
func (x *Expander) chunk(e *Event, k laneKind, out []Event) ([]Event, error) {
	n := len(out)
	out, err := x.expandChunk(e, k, out)
	if err != nil {
		return out[:n], err
	}
	return out, nil
}

func (x *Expander) expandChunk(e *Event, k laneKind, out []Event) ([]Event, error) {
	chunkType, entity, idField, described := kindNames(k)
	idSp := e.f[fMessageID]
	if k == laneTool {
		idSp = e.f[fToolCallID]
	}
	id := x.field(e, idSp)
	tagRaw := x.field(e, e.f[fSubagentRunID]) // as sent, null included
	tag := tagRaw.key
	if e.f[fSubagentRunID].Kind == kindNull {
		tag = keyUndefined
	}
	laneKey, err := x.resolveLane(k, id, tag)
	if err != nil {
		return out, err
	}

	var remainder []Member
	for _, m := range e.Members() {
		if !described[m.Key] && !x.v0059 {
			remainder = append(remainder, m)
		}
	}
	metadata, _ := e.Field("metadata")
	rawEvent, _ := e.Field("rawEvent")
	if x.v0059 {
		rawEvent = nil
	}
	delta, hasDelta := e.Field("delta")

	start := len(out)
	var l lane
	if i := x.find(laneKey); i >= 0 && x.lanes[i].kind == k && (!id.present() || id.key == x.lanes[i].id.key) {
		l = x.lanes[i]
		switch {
		case x.v0059:
		case k == laneText:
			if err := agreement(entity, l.id, "role", x.field(e, e.field("role")), l.role); err != nil {
				return out, err
			}
			if err := agreement(entity, l.id, "name", x.field(e, e.field("name")), l.name); err != nil {
				return out, err
			}
		case k == laneTool:
			if err := agreement(entity, l.id, "toolCallName", x.field(e, e.field("toolCallName")), l.name); err != nil {
				return out, err
			}
			if err := agreement(entity, l.id, "parentMessageId", x.field(e, e.field("parentMessageId")), l.pmid); err != nil {
				return out, err
			}
		}
	} else {
		out = x.closeLane(laneKey, out)
		if !id.present() {
			return out, fmt.Errorf("First %s must have a %s", chunkType, idField)
		}
		l = lane{owner: laneKey, kind: k, id: id, sub: tagRaw}
		var b objBuilder
		switch k {
		case laneText:
			l.role = x.field(e, e.field("role"))
			if !l.role.present() {
				l.role = jsField{raw: []byte(`"assistant"`), key: `"assistant"`}
			}
			l.name = x.field(e, e.field("name"))
			b.str("type", string(TextMessageStart)).raw("messageId", id.raw).raw("role", l.role.raw)
			if l.name.present() {
				b.raw("name", l.name.raw)
			}
		case laneTool:
			l.name = x.field(e, e.field("toolCallName"))
			if !l.name.present() {
				return out, fmt.Errorf("First %s must have a toolCallName", chunkType)
			}
			l.pmid = x.field(e, e.field("parentMessageId"))
			b.str("type", string(ToolCallStart)).raw("toolCallId", id.raw).raw("toolCallName", l.name.raw)
			if l.pmid.present() {
				b.raw("parentMessageId", l.pmid.raw)
			}
		case laneReasoning:
			b.str("type", string(ReasoningMessageStart)).raw("messageId", id.raw).str("role", "reasoning")
		}
		if tagRaw.present() {
			b.raw("subagentRunId", tagRaw.raw)
		}
		if metadata != nil {
			b.raw("metadata", metadata)
		}
		l.own()
		x.lanes = append(x.lanes, l)
		out = append(out, b.event())
	}

	contentType := TextMessageContent
	switch k {
	case laneTool:
		contentType = ToolCallArgs
	case laneReasoning:
		contentType = ReasoningMessageContent
	}
	owner := tagRaw
	if !owner.present() {
		owner = l.sub
	}
	carried := false
	content := func(withDelta bool) {
		var b objBuilder
		for _, m := range remainder {
			b.raw(m.Key, m.Value)
		}
		b.str("type", string(contentType)).raw(idField, l.id.raw)
		if withDelta && hasDelta {
			b.raw("delta", delta)
		} else {
			b.str("delta", "")
		}
		if owner.present() {
			b.raw("subagentRunId", owner.raw)
		}
		if metadata != nil {
			b.raw("metadata", metadata)
		}
		if rawEvent != nil {
			b.raw("rawEvent", rawEvent)
		}
		out = append(out, b.event())
		carried = true
	}
	if hasDelta || rawEvent != nil {
		content(true)
	}
	if len(out) == start && (metadata != nil || rawEvent != nil || tagRaw.key == "null" || remainder != nil) {
		content(false)
	}
	if remainder != nil && !carried && len(out) > start {
		// The remainder rides on the opener; the opener's own fields win.
		last := out[len(out)-1]
		own := map[string]bool{}
		for _, m := range last.Members() {
			own[m.Key] = true
		}
		var b objBuilder
		for _, m := range remainder {
			if v, ok := last.Field(m.Key); ok && own[m.Key] {
				b.raw(m.Key, v)
			} else {
				b.raw(m.Key, m.Value)
			}
		}
		for _, m := range last.Members() {
			if !b.has(m.Key) {
				b.raw(m.Key, m.Value)
			}
		}
		out[len(out)-1] = b.event()
	}
	return out, nil
}

// objBuilder writes a JSON object member by member; a repeated key keeps
// its first position and takes the new value, as a JavaScript spread does.
type objBuilder struct {
	keys []string
	vals [][]byte
}

func (b *objBuilder) has(k string) bool {
	for _, x := range b.keys {
		if x == k {
			return true
		}
	}
	return false
}

func (b *objBuilder) raw(k string, v []byte) *objBuilder {
	for i, x := range b.keys {
		if x == k {
			b.vals[i] = v
			return b
		}
	}
	b.keys = append(b.keys, k)
	b.vals = append(b.vals, v)
	return b
}

func (b *objBuilder) str(k, v string) *objBuilder {
	return b.raw(k, quote(v))
}

// get returns the value of member k.
func (b *objBuilder) get(k string) ([]byte, bool) {
	for i, x := range b.keys {
		if x == k {
			return b.vals[i], true
		}
	}
	return nil, false
}

// del removes member k, as a JavaScript rest destructuring does.
func (b *objBuilder) del(k string) {
	for i, x := range b.keys {
		if x == k {
			b.keys = append(b.keys[:i], b.keys[i+1:]...)
			b.vals = append(b.vals[:i], b.vals[i+1:]...)
			return
		}
	}
}

// bytes returns the object's JSON.
func (b *objBuilder) bytes() []byte {
	buf := []byte{'{'}
	for i, k := range b.keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, quote(k)...)
		buf = append(buf, ':')
		buf = append(buf, b.vals[i]...)
	}
	return append(buf, '}')
}

func (b *objBuilder) event() Event {
	buf := b.bytes()
	e, err := ParseEvent(buf)
	if err != nil {
		panic(errors.Join(errors.New("agui: internal error: synthesized event does not parse"), err))
	}
	return e
}
