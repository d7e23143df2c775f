package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/aguitest/aguitest/internal/jsonpatch"
	"github.com/aguitest/aguitest/internal/jsonx"
	"github.com/aguitest/aguitest/internal/jsvalue"
	"github.com/aguitest/aguitest/internal/schema"
)

// View is what a frontend holds: the messages and state that HttpAgent of
// @ag-ui/client 1.0.0 assembles from the events of a run
// (defaultApplyEvents), starting from the conversation and state it sent.
// Text reopened under one id is joined into one message; a tool call joins
// the assistant message it names (or one the client creates for it); a
// result is placed after its call's message and the tool messages already
// there; MESSAGES_SNAPSHOT merges as the client merges it (keeping its own
// activity and reasoning messages unless the snapshot owns them);
// STATE_SNAPSHOT replaces the state, STATE_DELTA and ACTIVITY_DELTA patch
// it as fast-json-patch 3.1.1 does, a failing patch leaving it
// unchanged; ACTIVITY_SNAPSHOT, REASONING_* and REASONING_ENCRYPTED_VALUE
// build their messages; metadata merges key by key.
//
// Apply takes events as the client receives them and runs them through
// the client's stages before its reducer: the compatibility boundary
// (legacy THINKING_* translated, with ids minted here as the client mints
// its own; tolerated nulls dropped), the schema (unknown event types
// dropped, unknown fields stripped; an event that breaks its schema stops
// the request, as it fails the client's run), and chunk expansion. It does
// not check the order of events: the client's verifier rejects a stream
// at its first ordering mistake, while a View applies what it can. Verify
// the stream (Verifier, Reference profile) to know whether and where the
// client would have stopped.
//
// The zero View is not ready; use [NewView] or [Assemble]. A View belongs
// to one goroutine at a time.
type View struct {
	msgs  []*jsvalue.Object
	state any // what the reducer holds
	// agent is agent.state: the last state the reducer published. They
	// differ only after a patch that leaves no document.
	agent   any
	x       Expander
	compat  compat
	checker schema.Checker
	err     error // why the current request stopped
	applied int   // events given to Apply
	warns   []Warning
	// texts are the strings being streamed into messages and calls, so
	// that appending a delta costs the delta, not the whole text.
	texts map[*jsvalue.Object]*textBuf
	index viewIndex
	// client is the @ag-ui/client version whose pipeline Apply follows
	// ("" for 1.0.0); see NewClientView.
	client Client
}

// textBuf builds a streamed string; last is the string it gave out last.
type textBuf struct {
	b    strings.Builder
	last string
}

// appendText returns old+delta as JavaScript joins them, for the text
// that holder (a message, a call's function) streams. While old is the
// string this builds, the delta is appended to it in place.
func (v *View) appendText(holder *jsvalue.Object, old, delta string) string {
	if len(old) >= 3 && len(delta) >= 3 {
		if _, ok := jsonx.Surrogate(old, len(old)-3); ok {
			delete(v.texts, holder)
			return jsvalue.Concat(old, delta) // may join a surrogate pair
		}
	}
	if v.texts == nil {
		v.texts = map[*jsvalue.Object]*textBuf{}
	}
	tb := v.texts[holder]
	if tb == nil || tb.last != old { // equal strings compare in O(1) when they share bytes
		tb = &textBuf{}
		tb.b.Grow(2*len(old) + len(delta))
		tb.b.WriteString(old)
		v.texts[holder] = tb
	}
	tb.b.WriteString(delta)
	tb.last = tb.b.String()
	return tb.last
}

// NewView returns the view of a frontend that sent in: its messages (as
// the agent's history) and its state. Nil state is {}, the client's
// default.
func NewView(in RunAgentInput) *View {
	v := &View{}
	for _, m := range in.Messages {
		v.msgs = append(v.msgs, messageJS(m))
	}
	v.state = jsvalue.NewObject()
	if s := bytes.TrimSpace(in.State); len(s) > 0 && string(s) != "null" {
		if st, err := jsvalue.Parse(s); err == nil {
			v.state = st
		}
	}
	v.agent = v.state
	return v
}

// Assemble returns the view after events, applied to the view of in.
// The error, when the client's pipeline would have stopped (see
// [View.Apply]), names the event, counting from 1; the view holds what
// came before it.
func Assemble(in RunAgentInput, events []Event) (*View, error) {
	v := NewView(in)
	for i, e := range events {
		if err := v.Apply(e); err != nil {
			return v, fmt.Errorf("event %d (%s): %w", i+1, e.Type(), err)
		}
	}
	return v, nil
}

// messageJS converts a message to the value the client holds after
// JSON.parse of its JSON.
func messageJS(m Message) *jsvalue.Object {
	b, err := m.MarshalJSON()
	var parts []byte
	if err != nil {
		// Parts on a text-only role: the client would hold them as they
		// came; encode the rest and put the parts back.
		parts, _ = json.Marshal(m.Content.Parts)
		m.Content = Content{}
		b, _ = m.MarshalJSON()
	}
	v, _ := jsvalue.Parse(b)
	o, ok := v.(*jsvalue.Object)
	if !ok {
		o = jsvalue.NewObject()
	}
	if parts != nil {
		p, _ := jsvalue.Parse(parts)
		o.Set("content", p)
	}
	return o
}

// Apply applies one event. It returns an error where the client's
// pipeline fails the run: an event that breaks its schema, a chunk it
// cannot expand, a state it cannot copy (a patch copied an inherited
// method into it); and where the view cannot follow the client (a patch
// that makes a document contain itself). The view then holds what it held
// before the event, and Apply returns the same error for every further
// event until AddMessages starts a new request.
func (v *View) Apply(e Event) error {
	v.applied++
	if v.err != nil {
		return v.err
	}
	if v.client == ClientV0059 {
		return v.apply0059(e)
	}
	e = *v.compat.apply(&e)
	if !e.typ.Known() {
		return nil // the client drops types it does not know
	}
	if !fastValid(&e) {
		s := schema.Event(string(e.typ))
		if issues := v.checker.Check(e.raw, s); len(issues) > 0 {
			v.err = fmt.Errorf("schema: %s", schemaText(e.typ, issues))
			return v.err
		}
		if sp, _, err := scanValue(e.raw, 0); err == nil && schema.NeedsStrip(e.raw, sp, s) {
			if t, err := ParseEvent(schema.AppendStripped(nil, e.raw, sp, s)); err == nil {
				e = t
			}
		}
	}
	return v.reduce(e)
}

// reduce expands chunks and applies what comes out to the view.
func (v *View) reduce(e Event) error {
	out, err := v.x.Push(e)
	for _, ex := range out {
		// The reducer keeps the index of ids up to date: messages
		// appended at the end and calls added are indexed as they come
		// (a long run would otherwise rebuild it for every message, in
		// time quadratic in its messages), and only what moves or
		// replaces messages rebuilds it.
		if ferr := v.apply(ex); ferr != nil {
			v.err = ferr
			return ferr
		}
	}
	if err != nil {
		v.err = err
		return err
	}
	return nil
}

// AddMessages adds messages on the client's side, as a frontend does
// between requests (a frontend tool's result, the user's next message),
// and starts a new request: its events apply to what the client then
// holds.
func (v *View) AddMessages(msgs ...Message) {
	for _, m := range msgs {
		v.msgs = append(v.msgs, messageJS(m))
	}
	v.state = v.agent
	v.x = Expander{}
	v.compat = compat{minted: v.compat.minted} // minted ids stay unique
	v.err = nil
	v.texts = nil
}

// Messages returns the messages as typed values. The typed form loses a
// few distinctions of the JSON (an assistant message's content "" reads
// as none, an empty toolCalls list as none); MessagesJSON keeps them.
// A lone UTF-16 surrogate in a string reads as U+FFFD.
func (v *View) Messages() []Message {
	out := make([]Message, 0, len(v.msgs))
	for _, m := range v.msgs {
		var msg Message
		if err := json.Unmarshal(jsvalue.Stringify(m), &msg); err != nil {
			msg = Message{ID: jsvalue.WellFormed(jsvalue.ToString(m.Get("id"))), Role: Role(jsvalue.WellFormed(jsvalue.ToString(m.Get("role"))))}
		}
		out = append(out, msg)
	}
	return out
}

// MessagesJSON returns the messages as JSON.stringify writes the client's
// agent.messages.
func (v *View) MessagesJSON() json.RawMessage {
	arr := &jsvalue.Array{Elems: make([]any, len(v.msgs))}
	for i, m := range v.msgs {
		arr.Elems[i] = m
	}
	return jsvalue.Stringify(arr)
}

// State returns the state as JSON.stringify writes the client's
// agent.state.
func (v *View) State() json.RawMessage {
	if b := jsvalue.Stringify(v.agent); b != nil {
		return b
	}
	return json.RawMessage("null")
}

// MarshalJSON writes {"messages": [...], "state": ...}.
func (v *View) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"messages":`)
	b.Write(v.MessagesJSON())
	b.WriteString(`,"state":`)
	b.Write(v.State())
	b.WriteByte('}')
	return b.Bytes(), nil
}

// String returns the view's JSON.
func (v *View) String() string {
	b, _ := v.MarshalJSON()
	return string(b)
}

// field reads a top-level field of an event as a value; absent is
// undefined.
func viewField(e Event, name string) any {
	raw, ok := e.Field(name)
	if !ok {
		return jsvalue.Undef
	}
	x, err := jsvalue.Parse(raw)
	if err != nil {
		return jsvalue.Undef
	}
	return x
}

// Warning is something the client does other than what the event asks,
// most often with a warning in its console: a patch that does not apply (the client
// keeps its state or the activity's content), text streamed into an
// activity message's id, a call attached to a message that is not an
// assistant's, a call started again under another name, a delta for an
// activity message that is not there.
type Warning struct {
	// Index is the event's position among those given to Apply, from 0.
	Index int
	// Type is the event's type.
	Type EventType
	// Message says what the client did.
	Message string
}

// Error returns "event N (TYPE): message", counting events from 1.
func (w Warning) Error() string {
	return fmt.Sprintf("event %d (%s): %s", w.Index+1, w.Type, w.Message)
}

// Warnings returns what the client warned about so far, in order.
func (v *View) Warnings() []Warning { return v.warns }

func (v *View) warn(t EventType, format string, args ...any) {
	v.warns = append(v.warns, Warning{Index: v.applied - 1, Type: t, Message: fmt.Sprintf(format, args...)})
}

// idText quotes an id for a warning.
func idText(id any) string {
	if s, ok := id.(string); ok {
		return "'" + jsvalue.WellFormed(s) + "'"
	}
	return string(jsvalue.Stringify(id))
}

// viewIndex finds messages and calls by id without scanning: the first
// message with each id, the first message holding each call id, and the
// first assistant message holding it. Messages appended at the end are
// indexed when it is next read (grow), calls added to an indexed message
// as they are added (addCall); it is rebuilt after any other change to
// the list of messages or their calls (changed).
type viewIndex struct {
	valid      bool
	n          int // v.msgs[:n] are indexed
	msgs       idMap[int]
	calls      idMap[callRef]
	assistants idMap[callRef]
}

// idMap maps ids (idKey) to V; string ids, the usual ones, hash as
// strings, not as interfaces.
type idMap[V any] struct {
	str   map[string]V
	other map[any]V
}

func (m *idMap[V]) get(k any) (V, bool) {
	var v V
	var ok bool
	if s, isStr := k.(string); isStr {
		v, ok = m.str[s]
	} else {
		v, ok = m.other[k]
	}
	return v, ok
}

// add maps k to v unless k is mapped already.
func (m *idMap[V]) add(k any, v V) {
	if s, isStr := k.(string); isStr {
		if m.str == nil {
			m.str = map[string]V{}
		}
		if _, ok := m.str[s]; !ok {
			m.str[s] = v
		}
		return
	}
	if m.other == nil {
		m.other = map[any]V{}
	}
	if _, ok := m.other[k]; !ok {
		m.other[k] = v
	}
}

type callRef struct {
	at   int
	call *jsvalue.Object
}

// idKey is a map key that is equal for ids JavaScript finds ===.
func idKey(v any) any {
	if f, ok := v.(float64); ok && f == 0 {
		return 0.0 // -0 === 0
	}
	return v
}

func (v *View) changed() { v.index.valid = false }

// grow brings a valid index up to date with the messages appended since
// it was built, and their calls.
func (v *View) grow() {
	ix := &v.index
	if !ix.valid {
		return
	}
	for i := ix.n; i < len(v.msgs); i++ {
		ix.add(i, v.msgs[i])
	}
	ix.n = len(v.msgs)
}

// add indexes message m at i, and its calls, unless earlier messages hold
// their ids.
func (ix *viewIndex) add(i int, m *jsvalue.Object) {
	ix.msgs.add(idKey(m.Get("id")), i)
	for _, c := range callsOf(m) {
		if co, ok := c.(*jsvalue.Object); ok {
			ix.addCall(i, m, co)
		}
	}
}

// addCall indexes call co of message m at i, unless an earlier message
// holds its id.
func (ix *viewIndex) addCall(i int, m, co *jsvalue.Object) {
	ck := idKey(co.Get("id"))
	ix.calls.add(ck, callRef{i, co})
	if isRole(m, "assistant") {
		ix.assistants.add(ck, callRef{i, co})
	}
}

func (v *View) indexed() *viewIndex {
	ix := &v.index
	if ix.valid {
		v.grow()
		return ix
	}
	*ix = viewIndex{valid: true}
	for i, m := range v.msgs {
		ix.add(i, m)
	}
	ix.n = len(v.msgs)
	return ix
}

// find returns the first message whose id is id, and its index.
func (v *View) find(id any) (*jsvalue.Object, int) {
	if f, ok := id.(float64); ok && f != f {
		return nil, -1 // NaN is not === to itself
	}
	if i, ok := v.indexed().msgs.get(idKey(id)); ok {
		return v.msgs[i], i
	}
	return nil, -1
}

func role(m *jsvalue.Object) any { return m.Get("role") }

func isRole(m *jsvalue.Object, r string) bool {
	s, ok := role(m).(string)
	return ok && s == r
}

// callsOf returns a message's tool calls when it has a list of them.
func callsOf(m *jsvalue.Object) []any {
	if a, ok := m.Get("toolCalls").(*jsvalue.Array); ok {
		return a.Elems
	}
	return nil
}

// findCall returns the first message holding a call with id (the first
// assistant message when assistantOnly), its index, and the call.
func (v *View) findCall(id any, assistantOnly bool) (*jsvalue.Object, int, *jsvalue.Object) {
	if f, ok := id.(float64); ok && f != f {
		return nil, -1, nil
	}
	ix := v.indexed()
	refs := &ix.calls
	if assistantOnly {
		refs = &ix.assistants
	}
	if r, ok := refs.get(idKey(id)); ok {
		return v.msgs[r.at], r.at, r.call
	}
	return nil, -1, nil
}

// mergeMetadataInto folds an event's metadata into target, as the client's
// applyEventMetadata does: key by key, the event's keys winning.
func mergeMetadataInto(target *jsvalue.Object, e Event) {
	if target == nil {
		return
	}
	in := viewField(e, "metadata")
	if _, ok := in.(jsvalue.Undefined); ok {
		return
	}
	merged := jsvalue.NewObject()
	if old, ok := target.Own("metadata"); ok {
		if _, undef := old.(jsvalue.Undefined); !undef {
			jsvalue.SpreadInto(merged, old)
		}
	}
	jsvalue.SpreadInto(merged, in)
	target.Set("metadata", merged)
}

// apply is the reducer for one expanded event.
func (v *View) apply(e Event) error {
	switch e.Type() {
	case TextMessageStart, ReasoningMessageStart:
		id := viewField(e, "messageId")
		existing, _ := v.find(id)
		if existing != nil && isRole(existing, "activity") {
			v.warn(e.Type(), "message %s is an activity message; the client leaves it and drops the text", idText(id))
			return nil
		}
		if existing == nil {
			existing = jsvalue.NewObject()
			existing.Set("id", id)
			if e.Type() == TextMessageStart {
				r := viewField(e, "role")
				if _, ok := r.(jsvalue.Undefined); ok {
					r = "assistant"
				}
				existing.Set("role", r)
				existing.Set("content", "")
				if name := viewField(e, "name"); !isUndefined(name) {
					existing.Set("name", name)
				}
			} else {
				existing.Set("role", "reasoning")
				existing.Set("content", "")
			}
			if sub := viewField(e, "subagentRunId"); !jsvalue.Nullish(sub) {
				existing.Set("subagentRunId", sub)
			}
			v.msgs = append(v.msgs, existing)
		}
		mergeMetadataInto(existing, e)

	case TextMessageContent, ReasoningMessageContent:
		m, _ := v.find(viewField(e, "messageId"))
		if m == nil || isRole(m, "activity") {
			return nil
		}
		old, _ := m.Get("content").(string)
		m.Set("content", v.appendText(m, old, jsvalue.ToString(viewField(e, "delta"))))
		mergeMetadataInto(m, e)

	case TextMessageEnd, ReasoningMessageEnd:
		m, _ := v.find(viewField(e, "messageId"))
		if m == nil || isRole(m, "activity") {
			return nil
		}
		mergeMetadataInto(m, e)

	case ToolCallStart:
		v.toolCallStart(e)

	case ToolCallArgs, ToolCallEnd:
		_, _, call := v.findCall(viewField(e, "toolCallId"), false)
		if call == nil {
			return nil
		}
		if e.Type() == ToolCallArgs {
			fn := call.Get("function")
			args, err := jsvalue.Get(fn, "arguments")
			if err != nil {
				return err
			}
			delta := jsvalue.ToString(viewField(e, "delta"))
			var joined string
			if fo, ok := fn.(*jsvalue.Object); ok {
				joined = v.appendText(fo, jsvalue.ToString(args), delta)
			} else {
				joined = jsvalue.Concat(jsvalue.ToString(args), delta)
			}
			if err := jsvalue.Set(fn, "arguments", joined); err != nil {
				return err
			}
		}
		mergeMetadataInto(call, e)

	case ToolCallResult:
		v.toolCallResult(e)

	case StateSnapshot:
		v.state = viewField(e, "snapshot")
		if !isUndefined(v.state) && (v.client != ClientV0059 || jsvalue.Truthy(v.state)) {
			v.agent = v.state
		}

	case StateDelta:
		next, err := jsonpatch.ApplyValue(v.state, viewField(e, "delta"))
		if err != nil {
			v.warn(e.Type(), "the patch does not apply to the state, which the client keeps as it was: %v", err)
			return nil
		}
		if jsvalue.HasCycle(next) {
			return errCycle
		}
		v.state = next
		if !isUndefined(next) && (v.client != ClientV0059 || jsvalue.Truthy(next)) {
			if _, err := jsvalue.StructuredClone(next); err != nil {
				return fmt.Errorf("STATE_DELTA: the client cannot copy the patched state: %w", err)
			}
			v.agent = next
		}

	case MessagesSnapshot:
		v.messagesSnapshot(e)

	case ActivitySnapshot:
		v.activitySnapshot(e)

	case ActivityDelta:
		return v.activityDelta(e)

	case RunStarted:
		in, ok := viewField(e, "input").(*jsvalue.Object)
		if !ok {
			return nil
		}
		list, ok := in.Get("messages").(*jsvalue.Array)
		if !ok {
			return nil
		}
		for _, x := range list.Elems {
			m, ok := x.(*jsvalue.Object)
			if !ok {
				continue
			}
			m = withoutNullTag(m)
			if found, _ := v.find(m.Get("id")); found == nil {
				v.msgs = append(v.msgs, m)
			}
		}

	case ReasoningEncryptedValue:
		entity, value := viewField(e, "entityId"), viewField(e, "encryptedValue")
		if s, _ := viewField(e, "subtype").(string); s == "tool-call" {
			if _, _, call := v.findCall(entity, true); call != nil {
				call.Set("encryptedValue", value)
			}
			return nil
		}
		if m, _ := v.find(entity); m != nil && !isRole(m, "activity") {
			m.Set("encryptedValue", value)
		}
	}
	return nil
}

func isUndefined(x any) bool {
	_, ok := x.(jsvalue.Undefined)
	return ok
}

// withoutNullTag returns m without a null subagentRunId (a copy when it
// has one): the client reads a null tag as absent.
func withoutNullTag(m *jsvalue.Object) *jsvalue.Object {
	if t, ok := m.Own("subagentRunId"); ok && t == nil {
		c := m.Spread()
		c.Del("subagentRunId")
		return c
	}
	return m
}

func (v *View) toolCallStart(e Event) {
	id := viewField(e, "toolCallId")
	name := viewField(e, "toolCallName")
	if _, _, call := v.findCall(id, false); call != nil {
		// A start applied twice updates the call instead of adding one.
		if fn := call.Get("function"); !jsvalue.StrictEqual(mustGet(fn, "name"), name) {
			v.warn(ToolCallStart, "tool call %s already exists as %s; the client renames it %s", idText(id), idText(mustGet(fn, "name")), idText(name))
			_ = jsvalue.Set(fn, "name", name)
		}
		mergeMetadataInto(call, e)
		return
	}
	n := len(v.msgs)
	ix := v.indexed() // v.msgs[:n]
	target := v.resolveAssistant(viewField(e, "parentMessageId"), id)
	// created: no message held the target's id before (SameValueZero,
	// which is === but for NaN).
	created := true
	if tid, ok := target.Get("id").(float64); ok && tid != tid {
		for _, m := range v.msgs[:n] {
			if jsvalue.SameValueZero(m.Get("id"), tid) {
				created = false
				break
			}
		}
	} else if _, ok := ix.msgs.get(idKey(target.Get("id"))); ok {
		created = false
	}
	if sub := viewField(e, "subagentRunId"); created && !jsvalue.Nullish(sub) && isUndefined(target.Get("subagentRunId")) {
		target.Set("subagentRunId", sub)
	}
	if jsvalue.Nullish(target.Get("toolCalls")) {
		target.Set("toolCalls", &jsvalue.Array{})
	}
	call := jsvalue.NewObject()
	call.Set("id", id)
	call.Set("type", "function")
	fn := jsvalue.NewObject()
	fn.Set("name", name)
	fn.Set("arguments", "")
	call.Set("function", fn)
	if list, ok := target.Get("toolCalls").(*jsvalue.Array); ok {
		list.Elems = append(list.Elems, call)
		if len(v.msgs) == n {
			// A message already indexed: its new call is indexed here;
			// a new message is, with its calls, by grow.
			if _, at := v.find(target.Get("id")); at >= 0 && v.msgs[at] == target {
				v.index.addCall(at, target, call)
			} else {
				v.changed()
			}
		}
	}
	mergeMetadataInto(call, e)
}

func mustGet(v any, k string) any {
	x, err := jsvalue.Get(v, k)
	if err != nil {
		return jsvalue.Undef
	}
	return x
}

// resolveAssistant finds or creates the assistant message a call joins:
// the assistant message named parent; else a new one under parent's id,
// or under the call's id when parent names another kind of message or is
// not given.
func (v *View) resolveAssistant(parent, callID any) *jsvalue.Object {
	newMsg := func(id any) *jsvalue.Object {
		m := jsvalue.NewObject()
		m.Set("id", id)
		m.Set("role", "assistant")
		m.Set("toolCalls", &jsvalue.Array{})
		v.msgs = append(v.msgs, m)
		return m
	}
	if !jsvalue.Truthy(parent) {
		return newMsg(callID)
	}
	existing, _ := v.find(parent)
	if existing != nil && isRole(existing, "assistant") {
		return existing
	}
	if existing != nil {
		v.warn(ToolCallStart, "parentMessageId %s names a %s message, not an assistant's; the client puts the call in a new assistant message %s", idText(parent), jsvalue.WellFormed(jsvalue.ToString(role(existing))), idText(callID))
		return newMsg(callID)
	}
	return newMsg(parent)
}

func (v *View) toolCallResult(e Event) {
	callID := viewField(e, "toolCallId")
	m := jsvalue.NewObject()
	m.Set("id", viewField(e, "messageId"))
	m.Set("toolCallId", callID)
	r := viewField(e, "role")
	if !jsvalue.Truthy(r) {
		r = "tool"
	}
	m.Set("role", r)
	m.Set("content", viewField(e, "content"))
	if sub := viewField(e, "subagentRunId"); !jsvalue.Nullish(sub) {
		m.Set("subagentRunId", sub)
	}
	mergeMetadataInto(m, e)
	_, owner, _ := v.findCall(callID, true)
	if owner < 0 {
		v.msgs = append(v.msgs, m)
		return
	}
	at := owner + 1
	for at < len(v.msgs) && isRole(v.msgs[at], "tool") {
		at++
	}
	if at < len(v.msgs) {
		v.changed() // the messages after it move
	}
	v.msgs = append(v.msgs, nil)
	copy(v.msgs[at+1:], v.msgs[at:])
	v.msgs[at] = m
}

// activityScope is what a MESSAGES_SNAPSHOT's metadata says about the
// activity types it owns (activity-history.ts): unset (absent), all
// (null), or a list.
type activityScope struct {
	set, all bool
	types    []string
}

func scopeOf(e Event) activityScope {
	md, ok := viewField(e, "metadata").(*jsvalue.Object)
	if !ok {
		return activityScope{}
	}
	t, ok := md.Own("@ag-ui/client")
	if !ok {
		return activityScope{}
	}
	to, ok := t.(*jsvalue.Object)
	if !ok {
		return activityScope{set: true} // no types owned
	}
	a, ok := to.Own("authoritativeActivityTypes")
	if !ok {
		return activityScope{}
	}
	if a == nil {
		return activityScope{set: true, all: true}
	}
	arr, ok := a.(*jsvalue.Array)
	if !ok {
		return activityScope{set: true}
	}
	var types []string
	for _, x := range arr.Elems {
		s, ok := x.(string)
		if !ok {
			return activityScope{set: true}
		}
		types = append(types, s)
	}
	return activityScope{set: true, types: types}
}

func (v *View) messagesSnapshot(e Event) {
	list, ok := viewField(e, "messages").(*jsvalue.Array)
	if !ok {
		return
	}
	var incoming []*jsvalue.Object
	for _, x := range list.Elems {
		if m, ok := x.(*jsvalue.Object); ok {
			incoming = append(incoming, withoutNullTag(m))
		}
	}
	last := map[any]*jsvalue.Object{} // by id, the last one wins
	for _, m := range incoming {
		last[idKey(m.Get("id"))] = m
	}
	byID := func(id any) *jsvalue.Object { return last[idKey(id)] }
	scope := scopeOf(e)
	hasActivity, hasReasoning := false, false
	for _, m := range incoming {
		hasActivity = hasActivity || isRole(m, "activity")
		hasReasoning = hasReasoning || isRole(m, "reasoning")
	}
	preserved := func(m *jsvalue.Object) bool {
		if isRole(m, "activity") {
			switch {
			case scope.all:
				return false
			case scope.set:
				for _, t := range scope.types {
					if s, ok := m.Get("activityType").(string); ok && s == t {
						return false
					}
				}
				return true
			}
			return !hasActivity
		}
		return isRole(m, "reasoning") && !hasReasoning
	}
	var kept []*jsvalue.Object
	for _, m := range v.msgs {
		if r := byID(m.Get("id")); r != nil {
			kept = append(kept, r)
		} else if preserved(m) {
			kept = append(kept, m)
		}
	}
	ids := map[any]bool{}
	for _, m := range kept {
		ids[idKey(m.Get("id"))] = true
	}
	for _, m := range incoming {
		if !ids[idKey(m.Get("id"))] { // not updated as it goes: duplicates are all added
			kept = append(kept, m)
		}
	}
	v.msgs = kept
	v.changed()
}

func (v *View) activitySnapshot(e Event) {
	id := viewField(e, "messageId")
	existing, at := v.find(id)
	var activity *jsvalue.Object
	if existing != nil && isRole(existing, "activity") {
		activity = existing
	}
	replace := viewField(e, "replace")
	if jsvalue.Nullish(replace) {
		replace = true
	}
	sub := viewField(e, "subagentRunId")
	content := viewField(e, "content") // parsed afresh: already the client's copy
	var target *jsvalue.Object
	switch {
	case at < 0 || (activity == nil && jsvalue.Truthy(replace)):
		m := jsvalue.NewObject()
		m.Set("id", id)
		m.Set("role", "activity")
		m.Set("activityType", viewField(e, "activityType"))
		m.Set("content", content)
		if !jsvalue.Nullish(sub) {
			m.Set("subagentRunId", sub)
		}
		if at < 0 {
			v.msgs = append(v.msgs, m)
		} else {
			if callsOf(v.msgs[at]) != nil {
				v.changed() // the calls it held are gone
			}
			v.msgs[at] = m
		}
		target = m
	case activity != nil:
		if jsvalue.Truthy(replace) {
			m := activity.Spread()
			m.Set("activityType", viewField(e, "activityType"))
			m.Set("content", content)
			m.Set("subagentRunId", sub)
			if jsvalue.Nullish(sub) {
				m.Del("subagentRunId")
			}
			v.msgs[at] = m
		}
		target = v.msgs[at]
	}
	mergeMetadataInto(target, e)
}

func (v *View) activityDelta(e Event) error {
	id := viewField(e, "messageId")
	m, at := v.find(id)
	switch {
	case m == nil:
		v.warn(e.Type(), "no message %s; the client ignores the delta", idText(id))
		return nil
	case !isRole(m, "activity"):
		v.warn(e.Type(), "message %s is not an activity message; the client ignores the delta", idText(id))
		return nil
	}
	mergeMetadataInto(m, e)
	base := m.Get("content")
	if jsvalue.Nullish(base) {
		base = jsvalue.NewObject()
	}
	base, err := jsvalue.StructuredClone(base)
	if err != nil {
		return nil
	}
	patch := viewField(e, "patch")
	if jsvalue.Nullish(patch) {
		patch = &jsvalue.Array{}
	}
	next, err := jsonpatch.ApplyValue(base, patch)
	if err != nil {
		v.warn(e.Type(), "the patch does not apply to the content of activity %s, which the client keeps as it was: %v", idText(id), err)
		return nil
	}
	if jsvalue.HasCycle(next) {
		return errCycle
	}
	next, err = jsvalue.StructuredClone(next)
	if err != nil {
		return nil
	}
	c := m.Spread()
	c.Set("content", next)
	c.Set("activityType", viewField(e, "activityType"))
	v.msgs[at] = c
	return nil
}

// errCycle stops the view where the client would go on holding a value
// that contains itself (a patch that moved the whole document into
// itself): the client can neither print it nor send it in its next
// request, and no JSON can say what the view holds.
var errCycle = errors.New("a patch moved the whole document into itself; the client holds a value that contains itself, which no JSON can write")

// The lookups below read what MessagesJSON writes, decoded, without
// writing it: a transcript asks them for each message and call it prints,
// in time that does not grow with the messages. Ids are strings; the id
// "" stands for every id that is not a string, as it does for a program
// that decodes the JSON into strings.

// findByString returns the first message whose id, read as a string, is
// id.
func (v *View) findByString(id string) *jsvalue.Object {
	if id == "" || strings.Contains(id, "\uFFFD") || !utf8.ValidString(id) {
		// Ids a Go program reads from the JSON alike: scan.
		for _, m := range v.msgs {
			s, ok := ownString(m, "id")
			if !ok {
				s = ""
			}
			if goString(s) == id {
				return m
			}
		}
		return nil
	}
	m, _ := v.find(id)
	return m
}

// goString returns s as a Go program reads it from the view's JSON: a lone
// surrogate, or a byte that is not UTF-8, as U+FFFD.
func goString(s string) string {
	if utf8.ValidString(s) && !strings.Contains(s, "\xED") {
		return s
	}
	var out string
	_ = json.Unmarshal(jsonx.AppendQuote(nil, s), &out)
	return out
}

// ownString returns o's own property k when it is a string.
func ownString(o *jsvalue.Object, k string) (string, bool) {
	x, _ := o.Own(k)
	s, ok := x.(string)
	return s, ok
}

// MessageContent returns the content of the first message with id when
// it is a string.
func (v *View) MessageContent(id string) (string, bool) {
	m := v.findByString(id)
	if m == nil {
		return "", false
	}
	s, ok := ownString(m, "content")
	return goString(s), ok
}

// MessageCallIDs returns the ids of the calls, those that are strings, of
// the first message with id.
func (v *View) MessageCallIDs(id string) []string {
	m := v.findByString(id)
	if m == nil {
		return nil
	}
	var ids []string
	for _, c := range ownCalls(m) {
		if co, ok := c.(*jsvalue.Object); ok {
			if s, ok := ownString(co, "id"); ok {
				ids = append(ids, goString(s))
			}
		}
	}
	return ids
}

func ownCalls(m *jsvalue.Object) []any {
	x, _ := m.Own("toolCalls")
	if a, ok := x.(*jsvalue.Array); ok {
		return a.Elems
	}
	return nil
}

// CallOwner returns the id of the first message holding call id ("" when
// that id is not a string), and whether one does.
func (v *View) CallOwner(id string) (string, bool) {
	if id == "" || !utf8.ValidString(id) || strings.Contains(id, "\uFFFD") {
		// Ids a Go program reads from the JSON alike: scan.
		for _, m := range v.msgs {
			for _, c := range ownCalls(m) {
				if co, ok := c.(*jsvalue.Object); ok {
					if s, ok := ownString(co, "id"); ok && goString(s) == id {
						s, _ := ownString(m, "id")
						return goString(s), true
					}
				}
			}
		}
		return "", false
	}
	m, _, _ := v.findCall(id, false)
	if m == nil {
		return "", false
	}
	s, _ := ownString(m, "id")
	return goString(s), true
}

// CallArguments returns the arguments of call id as the first message
// with its owner's id ([View.CallOwner]) holds them.
func (v *View) CallArguments(id string) (string, bool) {
	owner, ok := v.CallOwner(id)
	if !ok {
		return "", false
	}
	m := v.findByString(owner)
	if m == nil {
		return "", false
	}
	for _, c := range ownCalls(m) {
		co, ok := c.(*jsvalue.Object)
		if !ok {
			continue
		}
		if s, ok := ownString(co, "id"); ok && goString(s) == id {
			fn, ok := co.Own("function")
			if fo, isObj := fn.(*jsvalue.Object); ok && isObj {
				s, ok := ownString(fo, "arguments")
				return goString(s), ok
			}
			return "", false
		}
	}
	return "", false
}
