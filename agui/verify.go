package agui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Profile selects the rules the Verifier applies.
type Profile int

const (
	// Strict applies every rule of Reference and the rules a test wants on
	// top: the stream must end with RUN_FINISHED or RUN_ERROR, a
	// TOOL_CALL_RESULT must name a call that has ended and be its only
	// result, the concatenated TOOL_CALL_ARGS of a call must parse as JSON at
	// TOOL_CALL_END, and no message, reasoning message or tool-call id may be
	// reopened after its END within one run. It is the zero value.
	Strict Profile = iota
	// Reference accepts and rejects exactly what verifyEvents of
	// @ag-ui/client 1.0.0 does, and its first violation has the same
	// message text.
	Reference
)

// String returns "strict" or "reference".
func (p Profile) String() string {
	switch p {
	case Strict:
		return "strict"
	case Reference:
		return "reference"
	}
	return fmt.Sprintf("Profile(%d)", int(p))
}

// ParseProfile parses "strict" or "reference".
func ParseProfile(s string) (Profile, error) {
	switch strings.ToLower(s) {
	case "strict":
		return Strict, nil
	case "reference":
		return Reference, nil
	}
	return 0, fmt.Errorf("unknown profile %q (want strict or reference)", s)
}

// Options configures a Verifier. The zero value verifies with the Strict
// profile after expanding *_CHUNK events, as a client does.
type Options struct {
	Profile Profile
	// NoChunkExpansion verifies events as they come, without first
	// expanding TEXT_MESSAGE_CHUNK, TOOL_CALL_CHUNK and
	// REASONING_MESSAGE_CHUNK. The reference verifier alone, without the
	// client's transformChunks stage in front, behaves this way.
	NoChunkExpansion bool
}

// Violation is one broken ordering rule.
type Violation struct {
	// Index is the position of the offending event in the stream, from 0.
	// For what Finish reports, it is the number of events pushed.
	Index int `json:"index"`
	// Type is the type of the offending event ("" for Finish).
	Type EventType `json:"type,omitempty"`
	// Rule names the broken rule, e.g. "tool-call-not-open"; see the
	// package documentation for the list.
	Rule string `json:"rule"`
	// Message says what is wrong. For the reference rules it is the text of
	// the reference verifier's error.
	Message string `json:"message"`
	// The ids the event carries, where it has them.
	MessageID     string `json:"messageId,omitempty"`
	ToolCallID    string `json:"toolCallId,omitempty"`
	StepName      string `json:"stepName,omitempty"`
	SubagentRunID string `json:"subagentRunId,omitempty"`
	RunID         string `json:"runId,omitempty"`
}

// IDs returns the ids the violation carries, as "messageId=m1
// toolCallId=c1", in that order: messageId, toolCallId, stepName,
// subagentRunId, runId. It is "" when there are none.
func (v Violation) IDs() string {
	var b strings.Builder
	for _, f := range [...]struct{ k, v string }{
		{"messageId", v.MessageID}, {"toolCallId", v.ToolCallID}, {"stepName", v.StepName},
		{"subagentRunId", v.SubagentRunID}, {"runId", v.RunID},
	} {
		if f.v == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f.k + "=" + f.v)
	}
	return b.String()
}

// Error formats the violation as "event N (TYPE): rule: message".
func (v Violation) Error() string {
	var b strings.Builder
	if v.Type != "" {
		fmt.Fprintf(&b, "event %d (%s): ", v.Index, v.Type)
	} else {
		fmt.Fprintf(&b, "end of stream after %d events: ", v.Index)
	}
	fmt.Fprintf(&b, "%s: %s", v.Rule, v.Message)
	return b.String()
}

// orderedSet is a set that remembers insertion order, as JavaScript's Set
// and Map do; the order shows in the reference verifier's messages.
type orderedSet map[string]uint64

func (s orderedSet) has(k []byte) bool { _, ok := s[string(k)]; return ok }

func (s orderedSet) keys() []string {
	ks := make([]string, 0, len(s))
	for k := range s {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b string) int { return int(s[a]) - int(s[b]) })
	return ks
}

func joinText(keys []string) string {
	t := make([]string, len(keys))
	for i, k := range keys {
		t[i] = keyText(k)
	}
	return strings.Join(t, ", ")
}

// Verifier checks the ordering of an AG-UI event stream as it arrives. Push
// each event, then call Finish at the end of the stream. Its memory grows
// with what the current run has open or named, not with the length of the
// stream.
//
// A Verifier is not safe for concurrent use.
type Verifier struct {
	opt Options

	index      int
	violations []Violation
	expander   Expander
	expanded   []Event

	// reference state, per run unless noted
	activeMessages, activeToolCalls          orderedSet
	activeReasoningSpans, activeReasoningMsg orderedSet
	ownMessage, ownToolCall                  map[string]string
	ownActivity, ownReasoning                map[string]string
	stepOwners                               orderedSet // owner key -> first use
	steps                                    orderedSet // owner key \x01 name key
	activeSubagents                          orderedSet
	closedSubagents                          map[string]bool
	runFinished, runError, firstEvent        bool
	runStarted                               bool
	seq                                      uint64
	uniq                                     int

	// strict state
	closedMessages, closedReasoningMsg, closedToolCalls map[string]bool
	endedCalls                                          map[string]bool // call key -> has a result
	args                                                map[string]*[]byte
	freeArgs                                            []*[]byte
	suppress                                            string // rule whose repeats are not reported until the next run
	scratch                                             []byte
	names                                               map[string]string // interned keys
	lastName                                            string

	// The entity the previous content or arguments event went to, known
	// open: consecutive fragments of one message or call skip the lookup.
	lastMessage openCache
	lastCalls   [4]openCache // parallel calls interleave: remember a few
	nextCall    int
}

// cachedCall returns the cache entry of call id, or nil.
func (v *Verifier) cachedCall(id []byte) *openCache {
	for i := range v.lastCalls {
		if v.lastCalls[i].hit(id) {
			return &v.lastCalls[i]
		}
	}
	return nil
}

// rememberCall caches call id (open) with its arguments buffer.
func (v *Verifier) rememberCall(id []byte, args *[]byte) {
	v.lastCalls[v.nextCall].set(id, args)
	v.nextCall = (v.nextCall + 1) % len(v.lastCalls)
}

// forgetCalls empties the call cache.
func (v *Verifier) forgetCalls() {
	for i := range v.lastCalls {
		v.lastCalls[i].valid = false
	}
}

type openCache struct {
	id    []byte
	args  *[]byte
	valid bool
}

func (c *openCache) hit(id []byte) bool { return c.valid && string(c.id) == string(id) }

func (c *openCache) set(id []byte, args *[]byte) {
	c.id = append(c.id[:0], id...)
	c.args = args
	c.valid = true
}

// appendArgs adds an arguments fragment to a call's buffer (Strict only).
func (v *Verifier) appendArgs(e *Event, b *[]byte) {
	if b == nil {
		return
	}
	if d := e.f[fDelta]; d.kind == kindString {
		*b = appendUnquoted(*b, e.raw[d.start:d.end])
	}
}

// maxNames bounds the table of interned keys; past it the table starts over.
const maxNames = 1 << 12

// intern returns b as a string, reusing the string made the last time the
// same bytes were seen, so that a stream whose ids recur costs no
// allocation.
func (v *Verifier) intern(b []byte) string {
	switch {
	case string(b) == keyUndefined:
		return keyUndefined
	case v.lastName == string(b): // an entity's key is interned for several maps in a row
		return v.lastName
	}
	if s, ok := v.names[string(b)]; ok {
		v.lastName = s
		return s
	}
	if len(v.names) >= maxNames {
		clear(v.names)
	}
	s := string(b)
	v.names[s] = s
	v.lastName = s
	return s
}

// NewVerifier returns a Verifier with the given options.
func NewVerifier(opt Options) *Verifier {
	v := &Verifier{opt: opt}
	v.activeMessages = orderedSet{}
	v.activeToolCalls = orderedSet{}
	v.activeReasoningSpans = orderedSet{}
	v.activeReasoningMsg = orderedSet{}
	v.ownMessage = map[string]string{}
	v.ownToolCall = map[string]string{}
	v.ownActivity = map[string]string{}
	v.ownReasoning = map[string]string{}
	v.stepOwners = orderedSet{}
	v.steps = orderedSet{}
	v.activeSubagents = orderedSet{}
	v.closedSubagents = map[string]bool{}
	v.closedMessages = map[string]bool{}
	v.closedReasoningMsg = map[string]bool{}
	v.closedToolCalls = map[string]bool{}
	v.endedCalls = map[string]bool{}
	v.args = map[string]*[]byte{}
	v.names = map[string]string{}
	return v
}

// Verify checks a whole stream and returns every violation, in order,
// including what Finish reports. It returns nil for a conforming stream.
func Verify(events []Event, opt Options) []Violation {
	v := NewVerifier(opt)
	for i := range events {
		v.push(&events[i])
	}
	v.Finish()
	return v.Violations()
}

// Violations returns every violation found so far.
func (v *Verifier) Violations() []Violation { return v.violations }

// Push checks the next event and returns the violations it caused (nil when
// it conforms). The returned slice is only valid until the next call.
func (v *Verifier) Push(e Event) []Violation { return v.push(&e) }

func (v *Verifier) push(e *Event) []Violation {
	n := len(v.violations)
	if v.opt.NoChunkExpansion || !isChunkRelevant(e.code) && len(v.expander.lanes) == 0 {
		v.check(e, e)
	} else {
		out, err := v.expander.push(e, v.expanded[:0])
		v.expanded = out
		for i := range out {
			v.check(e, &out[i])
		}
		if err != nil {
			v.report(e, "chunk", err.Error())
		}
	}
	v.index++
	if len(v.violations) == n {
		return nil
	}
	return v.violations[n:]
}

// Finish ends the stream. In the Strict profile it reports a stream that
// did not end its run and everything still open; in the Reference profile
// it reports nothing, like the reference verifier. It returns the
// violations it added.
func (v *Verifier) Finish() []Violation {
	n := len(v.violations)
	if v.opt.Profile == Strict {
		end := func(rule, msg string) {
			v.violations = append(v.violations, Violation{Index: v.index, Rule: rule, Message: msg})
		}
		if !v.firstEvent {
			end("truncated", "the stream has no events; it must start with RUN_STARTED and end with RUN_FINISHED or RUN_ERROR")
		} else if !v.runFinished && !v.runError {
			end("truncated", "the stream ended without RUN_FINISHED or RUN_ERROR")
		}
		if !v.runFinished && !v.runError {
			for _, o := range v.Open() {
				end("unclosed", o+" was never closed")
			}
		}
	}
	return v.violations[n:]
}

// Open lists what the current run has open: text messages, tool calls,
// reasoning messages and spans, steps and subagents, each named with its
// id, in the order they opened.
func (v *Verifier) Open() []string {
	var out []string
	for _, k := range v.activeMessages.keys() {
		out = append(out, fmt.Sprintf("text message '%s'", keyText(k)))
	}
	for _, k := range v.activeToolCalls.keys() {
		out = append(out, fmt.Sprintf("tool call '%s'", keyText(k)))
	}
	for _, k := range v.activeReasoningMsg.keys() {
		out = append(out, fmt.Sprintf("reasoning message '%s'", keyText(k)))
	}
	for _, k := range v.activeReasoningSpans.keys() {
		out = append(out, fmt.Sprintf("reasoning span '%s'", keyText(k)))
	}
	for _, k := range v.steps.keys() {
		owner, name, _ := strings.Cut(k, "\x01")
		if owner == keyUndefined {
			out = append(out, fmt.Sprintf("step %q", keyText(name)))
		} else {
			out = append(out, fmt.Sprintf("step %q of subagent '%s'", keyText(name), keyText(owner)))
		}
	}
	for _, k := range v.activeSubagents.keys() {
		out = append(out, fmt.Sprintf("subagent '%s'", keyText(k)))
	}
	return out
}

func (v *Verifier) report(e *Event, rule, msg string) {
	if v.suppress != "" && v.suppress == rule {
		return
	}
	v.violations = append(v.violations, Violation{
		Index:         v.index,
		Type:          e.typ,
		Rule:          rule,
		Message:       msg,
		MessageID:     e.MessageID(),
		ToolCallID:    e.ToolCallID(),
		StepName:      e.StepName(),
		SubagentRunID: e.SubagentRunID(),
		RunID:         e.RunID(),
	})
}

func (v *Verifier) key(e *Event, f int) []byte { return v.keyOf(e, e.f[f]) }

// keyOf is key for a field found by name.
func (v *Verifier) keyOf(e *Event, sp span) []byte {
	switch sp.kind {
	case kindAbsent:
		return keyUndefinedBytes
	case kindString:
		if !sp.escaped {
			return e.raw[sp.start:sp.end]
		}
	}
	return keyBytes(e.raw, sp, v.nextUniq)
}

func (v *Verifier) nextUniq() int { v.uniq++; return v.uniq }

func (v *Verifier) add(s orderedSet, k []byte) {
	if _, ok := s[string(k)]; !ok {
		v.seq++
		s[v.intern(k)] = v.seq
	}
}

func (v *Verifier) resetRun() {
	v.lastMessage.valid = false
	v.forgetCalls()
	clear(v.activeMessages)
	clear(v.activeToolCalls)
	clear(v.activeReasoningSpans)
	clear(v.activeReasoningMsg)
	clear(v.ownMessage)
	clear(v.ownToolCall)
	clear(v.ownActivity)
	clear(v.ownReasoning)
	clear(v.stepOwners)
	clear(v.steps)
	clear(v.activeSubagents)
	clear(v.closedSubagents)
	clear(v.closedMessages)
	clear(v.closedReasoningMsg)
	clear(v.closedToolCalls)
	clear(v.endedCalls)
	for k, b := range v.args {
		v.freeArgs = append(v.freeArgs, b)
		delete(v.args, k)
	}
	v.runFinished = false
	v.runError = false
	v.runStarted = true
	v.suppress = ""
}

func ownerText(k string) string {
	if k == keyUndefined || k == "null" {
		return "(the parent agent)"
	}
	return keyText(k)
}

// tagError is the reference's subagent attribution check: a tagged
// continuation must agree with the recorded owner of its entity.
func tagError(t EventType, tag []byte, owner string, hasOwner bool, kind string, id []byte) string {
	if string(tag) == keyUndefined || !hasOwner || owner == string(tag) {
		return ""
	}
	return fmt.Sprintf("Cannot send '%s': subagentRunId '%s' does not match the %s '%s' opener's subagent '%s'.",
		t, keyText(string(tag)), kind, keyText(string(id)), ownerText(owner))
}

// check verifies one event. orig is the event as pushed (for the index and
// ids of a report); e is the event checked, which differs from orig when a
// chunk was expanded.
func (v *Verifier) check(orig, e *Event) {
	t, c := e.typ, e.code
	strict := v.opt.Profile == Strict
	fail := func(rule, msg string) { v.report(orig, rule, msg) }

	if v.runError && c != cRunStarted {
		rule := "after-run-error"
		if strict && c == cRunFinished {
			rule = "finished-after-error"
		}
		fail(rule, fmt.Sprintf("Cannot send event type '%s': The run has already errored with 'RUN_ERROR'. No further events can be sent.", t))
		v.suppress = rule
		return
	}
	if v.runFinished && c != cRunError && c != cRunStarted {
		fail("after-run-finished", fmt.Sprintf("Cannot send event type '%s': The run has already finished with 'RUN_FINISHED'. Start a new run with 'RUN_STARTED'.", t))
		v.suppress = "after-run-finished"
		return
	}
	if !v.firstEvent {
		v.firstEvent = true
		if c != cRunStarted && c != cRunError {
			fail("first-event", "First event must be 'RUN_STARTED'")
		}
	} else if c == cRunStarted {
		if v.runStarted && !v.runFinished && !v.runError {
			fail("run-active", "Cannot send 'RUN_STARTED' while a run is still active. The previous run must be finished with 'RUN_FINISHED' before starting a new run.")
			return
		}
		if v.runFinished || v.runError {
			v.resetRun()
		}
	}

	tagSpan := e.f[fSubagentRunID]
	if tagSpan.kind == kindNull {
		fail("null-field", fmt.Sprintf("Cannot send '%s' with 'subagentRunId: null'. The field is optional — omit it entirely.", t))
		return
	}
	if c == cSubagentStarted || c == cSubagentFinished || c == cSubagentError {
		if rule, msg := subagentLifecycle(e); msg != "" {
			fail(rule, msg)
			return
		}
	}
	if c == cRunFinished {
		if msg := interruptNulls(e); msg != "" {
			fail("null-field", msg)
			return
		}
	}

	tag := v.key(e, fSubagentRunID)
	switch c {
	case cTextMessageStart:
		id := v.key(e, fMessageID)
		if v.activeMessages.has(id) {
			fail("message-open", fmt.Sprintf("Cannot send 'TEXT_MESSAGE_START' event: A text message with ID '%s' is already in progress. Complete it with 'TEXT_MESSAGE_END' first.", keyText(string(id))))
			return
		}
		owner, has := v.ownMessage[string(id)]
		if has {
			if msg := tagError(t, tag, owner, true, "message", id); msg != "" {
				fail("subagent-attribution", msg)
				return
			}
		}
		if strict && v.closedMessages[string(id)] {
			fail("reopened-id", fmt.Sprintf("text message '%s' is opened again after its TEXT_MESSAGE_END in the same run; clients merge both into one message", keyText(string(id))))
		}
		v.add(v.activeMessages, id)
		if !has {
			v.ownMessage[v.intern(id)] = v.intern(tag)
		}

	case cTextMessageContent, cTextMessageEnd:
		id := v.key(e, fMessageID)
		if c == cTextMessageContent && string(tag) == keyUndefined && v.lastMessage.hit(id) {
			return // the message the previous content event went to: still open
		}
		if !v.activeMessages.has(id) {
			hint := "Start a text message with 'TEXT_MESSAGE_START' first."
			if c == cTextMessageEnd {
				hint = "A 'TEXT_MESSAGE_START' event must be sent first."
			}
			fail("message-not-open", fmt.Sprintf("Cannot send '%s' event: No active text message found with ID '%s'. %s", t, keyText(string(id)), hint))
			return
		}
		if string(tag) != keyUndefined {
			owner, has := v.ownMessage[string(id)]
			if msg := tagError(t, tag, owner, has, "message", id); msg != "" {
				fail("subagent-attribution", msg)
				return
			}
		}
		if c == cTextMessageContent {
			v.lastMessage.set(id, nil)
		}
		if c == cTextMessageEnd {
			v.lastMessage.valid = false
			delete(v.activeMessages, string(id))
			if strict {
				v.closedMessages[v.intern(id)] = true
			}
		}

	case cToolCallStart:
		v.toolCallStart(e, tag, fail)

	case cToolCallArgs, cToolCallEnd:
		id := v.key(e, fToolCallID)
		if c == cToolCallArgs && string(tag) == keyUndefined {
			if c := v.cachedCall(id); c != nil {
				v.appendArgs(e, c.args)
				return
			}
		}
		if !v.activeToolCalls.has(id) {
			hint := "Start a tool call with 'TOOL_CALL_START' first."
			if c == cToolCallEnd {
				hint = "A 'TOOL_CALL_START' event must be sent first."
			}
			fail("tool-call-not-open", fmt.Sprintf("Cannot send '%s' event: No active tool call found with ID '%s'. %s", t, keyText(string(id)), hint))
			return
		}
		if string(tag) != keyUndefined {
			owner, has := v.ownToolCall[string(id)]
			if msg := tagError(t, tag, owner, has, "tool call", id); msg != "" {
				fail("subagent-attribution", msg)
				return
			}
		}
		if c == cToolCallArgs {
			var b *[]byte
			if strict {
				b = v.args[string(id)]
				v.appendArgs(e, b)
			}
			v.rememberCall(id, b)
			return
		}
		v.forgetCalls()
		delete(v.activeToolCalls, string(id))
		if strict {
			if b := v.args[string(id)]; b != nil {
				if err := validJSON(*b); err != nil {
					fail("args-not-json", fmt.Sprintf("the arguments of tool call '%s' are not JSON at TOOL_CALL_END (%v): %s", keyText(string(id)), err, clip(*b)))
				}
				v.freeArgs = append(v.freeArgs, b)
				delete(v.args, string(id))
			}
			v.closedToolCalls[v.intern(id)] = true
			if _, ok := v.endedCalls[string(id)]; !ok {
				v.endedCalls[v.intern(id)] = false
			}
		}

	case cStepStarted, cStepFinished:
		v.step(e, tag, fail)

	case cActivitySnapshot:
		id := v.key(e, fMessageID)
		_, known := v.ownActivity[string(id)]
		if !known || !e.literalFalse("replace") {
			v.ownActivity[v.intern(id)] = v.intern(tag)
		}

	case cToolCallResult:
		if m := e.f[fMessageID]; m.kind == kindString {
			v.ownMessage[v.intern(v.key(e, fMessageID))] = v.intern(tag)
		}
		if strict {
			id := v.key(e, fToolCallID)
			name := func() string { return keyText(string(id)) }
			switch resulted, ended := v.endedCalls[string(id)]; {
			case v.activeToolCalls.has(id):
				fail("result-before-end", fmt.Sprintf("TOOL_CALL_RESULT for tool call '%s' arrives before its TOOL_CALL_END", name()))
			case !ended:
				fail("result-unknown-call", fmt.Sprintf("TOOL_CALL_RESULT names tool call '%s', which no TOOL_CALL_START of this run and no message of its input history opened", name()))
			case resulted:
				fail("duplicate-result", fmt.Sprintf("tool call '%s' already has a TOOL_CALL_RESULT", name()))
			default:
				v.endedCalls[v.intern(id)] = true
			}
		}

	case cReasoningStart, cReasoningMessageStart:
		id := v.key(e, fMessageID)
		span := c == cReasoningStart
		open := v.activeReasoningMsg
		if span {
			open = v.activeReasoningSpans
		}
		if open.has(id) {
			if span {
				fail("reasoning-open", fmt.Sprintf("Cannot send 'REASONING_START' event: A reasoning span with ID '%s' is already in progress. Complete it with 'REASONING_END' first.", keyText(string(id))))
			} else {
				fail("reasoning-open", fmt.Sprintf("Cannot send 'REASONING_MESSAGE_START' event: A reasoning message with ID '%s' is already in progress. Complete it with 'REASONING_MESSAGE_END' first.", keyText(string(id))))
			}
			return
		}
		owner, has := v.ownReasoning[string(id)]
		if has {
			if msg := tagError(t, tag, owner, true, "reasoning message", id); msg != "" {
				fail("subagent-attribution", msg)
				return
			}
		}
		if strict && !span && v.closedReasoningMsg[string(id)] {
			fail("reopened-id", fmt.Sprintf("reasoning message '%s' is opened again after its REASONING_MESSAGE_END in the same run", keyText(string(id))))
		}
		v.add(open, id)
		if !has {
			v.ownReasoning[v.intern(id)] = v.intern(tag)
		}

	case cReasoningMessageContent, cReasoningMessageEnd, cReasoningEnd:
		id := v.key(e, fMessageID)
		span := c == cReasoningEnd
		open := v.activeReasoningMsg
		if span {
			open = v.activeReasoningSpans
		}
		if !open.has(id) {
			if span {
				fail("reasoning-not-open", fmt.Sprintf("Cannot send 'REASONING_END' event: No active reasoning span found with ID '%s'. A 'REASONING_START' event must be sent first.", keyText(string(id))))
			} else {
				fail("reasoning-not-open", fmt.Sprintf("Cannot send '%s' event: No active reasoning message found with ID '%s'. Start a reasoning message with 'REASONING_MESSAGE_START' first.", t, keyText(string(id))))
			}
			return
		}
		if string(tag) != keyUndefined {
			owner, has := v.ownReasoning[string(id)]
			if msg := tagError(t, tag, owner, has, "reasoning message", id); msg != "" {
				fail("subagent-attribution", msg)
				return
			}
		}
		if c != cReasoningMessageContent {
			delete(open, string(id))
			if strict && c == cReasoningMessageEnd {
				v.closedReasoningMsg[v.intern(id)] = true
			}
		}

	case cReasoningEncryptedValue:
		id := v.keyOf(e, e.field("entityId"))
		sub := string(v.keyOf(e, e.field("subtype")))
		var owner string
		var has bool
		kind := "reasoning message"
		switch sub {
		case `"tool-call"`:
			owner, has = v.ownToolCall[string(id)]
			kind = "tool call"
		case `"message"`:
			owner, has = v.ownMessage[string(id)]
			if !has {
				owner, has = v.ownReasoning[string(id)]
			}
			kind = "message"
		default:
			owner, has = v.ownReasoning[string(id)]
		}
		if msg := tagError(t, tag, owner, has, kind, id); msg != "" {
			fail("subagent-attribution", msg)
		}

	case cActivityDelta:
		id := v.key(e, fMessageID)
		owner, has := v.ownActivity[string(id)]
		if msg := tagError(t, tag, owner, has, "activity", id); msg != "" {
			fail("subagent-attribution", msg)
		}

	case cSubagentStarted:
		v.subagentStarted(e, fail)

	case cSubagentFinished, cSubagentError:
		if tagSpan.kind != kindString {
			fail("subagent-lifecycle", fmt.Sprintf("Cannot send '%s' without a 'subagentRunId'.", t))
			return
		}
		if c == cSubagentError && e.field("message").kind != kindString {
			fail("subagent-lifecycle", "Cannot send 'SUBAGENT_ERROR' without a 'message'.")
			return
		}
		if !v.activeSubagents.has(tag) {
			fail("subagent-not-active", fmt.Sprintf("Cannot send '%s': no active subagent found with ID '%s'. A 'SUBAGENT_STARTED' event must be sent first.", t, keyText(string(tag))))
			return
		}
		delete(v.activeSubagents, string(tag))
		v.closedSubagents[v.intern(tag)] = true

	case cMessagesSnapshot:
		sp := e.field("messages")
		if msg := v.seedOwners(e.raw[sp.start:sp.end], sp.kind, true); msg != "" {
			fail("null-field", msg)
		}

	case cRunStarted:
		v.runStarted = true
		if in := e.field("input"); in.kind == kindObject {
			msgs := objectField(e.raw[in.start:in.end], "messages")
			kind := kindAbsent
			if len(msgs) > 0 && msgs[0] == '[' {
				kind = kindArray
			}
			if msg := v.seedOwners(msgs, kind, false); msg != "" {
				fail("null-field", msg)
			}
		}

	case cRunFinished:
		v.runFinishedCheck(e, fail)

	case cRunError:
		v.runError = true
	}
}

func (v *Verifier) toolCallStart(e *Event, tag []byte, fail func(rule, msg string)) {
	id := v.key(e, fToolCallID)
	if v.activeToolCalls.has(id) {
		fail("tool-call-open", fmt.Sprintf("Cannot send 'TOOL_CALL_START' event: A tool call with ID '%s' is already in progress. Complete it with 'TOOL_CALL_END' first.", keyText(string(id))))
		return
	}
	parent := v.key(e, fParentMessageID)
	var inherited string
	var hasInherited bool
	if string(parent) != keyUndefined {
		if po, ok := v.ownMessage[string(parent)]; ok {
			if string(tag) != keyUndefined && string(tag) != po {
				fail("subagent-attribution", fmt.Sprintf("Cannot send 'TOOL_CALL_START': subagentRunId '%s' does not match its parent message '%s' owner '%s'. A tool call belongs to the message that carries it.",
					keyText(string(tag)), keyText(string(parent)), ownerText(po)))
				return
			}
			inherited, hasInherited = po, true
		}
	}
	existing, has := v.ownToolCall[string(id)]
	if has {
		if msg := tagError(ToolCallStart, tag, existing, true, "tool call", id); msg != "" {
			fail("subagent-attribution", msg)
			return
		}
		if string(tag) == keyUndefined && hasInherited && inherited != existing {
			fail("subagent-attribution", fmt.Sprintf("Cannot send 'TOOL_CALL_START': tool call '%s' is owned by '%s' but its parent message '%s' is owned by '%s'. A tool call belongs to the message that carries it.",
				keyText(string(id)), ownerText(existing), keyText(string(parent)), ownerText(inherited)))
			return
		}
	}
	if v.opt.Profile == Strict && v.closedToolCalls[string(id)] {
		fail("reopened-id", fmt.Sprintf("tool call '%s' is started again after its TOOL_CALL_END in the same run; clients append both calls' arguments to one call", keyText(string(id))))
	}
	v.add(v.activeToolCalls, id)
	if !has {
		switch {
		case string(tag) != keyUndefined:
			v.ownToolCall[v.intern(id)] = v.intern(tag)
		case hasInherited:
			v.ownToolCall[v.intern(id)] = inherited
		default:
			v.ownToolCall[v.intern(id)] = keyUndefined
		}
	}
	if v.opt.Profile == Strict {
		// A call id started again in a later run is a new call: it has no
		// result yet.
		if _, ok := v.endedCalls[string(id)]; ok {
			delete(v.endedCalls, string(id))
		}
		var b *[]byte
		if n := len(v.freeArgs); n > 0 {
			b = v.freeArgs[n-1]
			v.freeArgs = v.freeArgs[:n-1]
		} else {
			b = new([]byte)
		}
		*b = (*b)[:0]
		v.args[v.intern(id)] = b
	}
}

func (v *Verifier) stepKey(owner, name []byte) []byte {
	v.scratch = append(append(append(v.scratch[:0], owner...), 1), name...)
	return v.scratch
}

func (v *Verifier) step(e *Event, owner []byte, fail func(rule, msg string)) {
	name := v.key(e, fStepName)
	v.add(v.stepOwners, owner) // stepsFor(owner) creates the owner's entry
	k := v.stepKey(owner, name)
	if e.typ == StepStarted {
		if v.steps.has(k) {
			in := ""
			if string(owner) != keyUndefined {
				in = fmt.Sprintf(" in subagent '%s'", keyText(string(owner)))
			}
			fail("step-active", fmt.Sprintf("Step \"%s\" is already active for 'STEP_STARTED'%s", keyText(string(name)), in))
			return
		}
		v.add(v.steps, k)
		return
	}
	if !v.steps.has(k) {
		for _, o := range v.stepOwners.keys() {
			if o == string(owner) || !v.steps.has(v.stepKey([]byte(o), name)) {
				continue
			}
			who := func(k string) string {
				if k == keyUndefined {
					return "the parent agent"
				}
				return fmt.Sprintf("subagent '%s'", keyText(k))
			}
			fail("step-owner", fmt.Sprintf("Cannot send 'STEP_FINISHED' for step \"%s\" attributed to %s: that step is open under %s. A step must be finished by whoever started it.",
				keyText(string(name)), who(string(owner)), who(o)))
			return
		}
		fail("step-not-started", fmt.Sprintf("Cannot send 'STEP_FINISHED' for step \"%s\" that was not started", keyText(string(name))))
		return
	}
	delete(v.steps, string(v.stepKey(owner, name)))
}

func (v *Verifier) subagentStarted(e *Event, fail func(rule, msg string)) {
	if e.f[fSubagentRunID].kind != kindString {
		fail("subagent-lifecycle", "Cannot send 'SUBAGENT_STARTED' without a 'subagentRunId'.")
		return
	}
	if e.field("name").kind != kindString {
		fail("subagent-lifecycle", "Cannot send 'SUBAGENT_STARTED' without a 'name'.")
		return
	}
	id := v.key(e, fSubagentRunID)
	if v.activeSubagents.has(id) {
		fail("subagent-active", fmt.Sprintf("Cannot send 'SUBAGENT_STARTED': subagent '%s' is already active. Finish it with 'SUBAGENT_FINISHED' first.", keyText(string(id))))
		return
	}
	if v.closedSubagents[string(id)] {
		fail("subagent-reused", fmt.Sprintf("Cannot send 'SUBAGENT_STARTED': subagent '%s' has already finished in this run. Subagent IDs are per-invocation and cannot be reused.", keyText(string(id))))
		return
	}
	if ps := e.field("parentSubagentRunId"); ps.present() {
		pk := keyBytes(e.raw, ps, v.nextUniq)
		if !v.activeSubagents.has(pk) && !v.closedSubagents[string(pk)] {
			fail("subagent-parent", fmt.Sprintf("Cannot send 'SUBAGENT_STARTED': parentSubagentRunId '%s' has not been started in this run.", keyText(string(pk))))
			return
		}
	}
	v.add(v.activeSubagents, id)
}

func (v *Verifier) runFinishedCheck(e *Event, fail func(rule, msg string)) {
	defer func() { v.runFinished = true }()
	if len(v.steps) > 0 {
		var parts []string
		for _, o := range v.stepOwners.keys() {
			for _, k := range v.steps.keys() {
				owner, name, _ := strings.Cut(k, "\x01")
				if owner != o {
					continue
				}
				if owner == keyUndefined {
					parts = append(parts, keyText(name))
				} else {
					parts = append(parts, fmt.Sprintf("%s (subagent '%s')", keyText(name), keyText(owner)))
				}
			}
		}
		fail("run-finished-open", "Cannot send 'RUN_FINISHED' while steps are still active: "+strings.Join(parts, ", "))
		return
	}
	for _, c := range []struct {
		set  orderedSet
		what string
	}{
		{v.activeMessages, "text messages"},
		{v.activeReasoningMsg, "reasoning messages"},
		{v.activeReasoningSpans, "reasoning spans"},
		{v.activeToolCalls, "tool calls"},
		{v.activeSubagents, "subagents"},
	} {
		if len(c.set) > 0 {
			fail("run-finished-open", fmt.Sprintf("Cannot send 'RUN_FINISHED' while %s are still active: %s", c.what, joinText(c.set.keys())))
			return
		}
	}
}

// seedOwners records the owners of messages replayed in a MESSAGES_SNAPSHOT
// (authoritative) or a RUN_STARTED input echo, as the reference does, and
// in the Strict profile the tool calls they carry as ended.
func (v *Verifier) seedOwners(raw []byte, kind valueKind, authoritative bool) string {
	if kind != kindArray || raw == nil {
		return ""
	}
	var msgs []json.RawMessage
	if json.Unmarshal(raw, &msgs) != nil {
		return ""
	}
	for _, m := range msgs {
		var obj map[string]json.RawMessage
		if json.Unmarshal(m, &obj) != nil {
			continue
		}
		idRaw, ok := obj["id"]
		if !ok || len(idRaw) == 0 || idRaw[0] != '"' {
			continue
		}
		id := []byte(`"` + unquote(idRaw) + `"`)
		sub := keyUndefined
		if s, ok := obj["subagentRunId"]; ok {
			if string(s) == "null" {
				return fmt.Sprintf("Cannot send a message (id '%s') with 'subagentRunId: null'. The field is optional — omit it entirely.", keyText(string(id)))
			}
			sub = string(rawKey(s, v.nextUniq))
		}
		bucket := v.ownMessage
		switch string(obj["role"]) {
		case `"reasoning"`:
			bucket = v.ownReasoning
		case `"activity"`:
			bucket = v.ownActivity
		}
		if _, has := bucket[string(id)]; authoritative || !has {
			bucket[string(id)] = sub
		}
		var calls []json.RawMessage
		if json.Unmarshal(obj["toolCalls"], &calls) != nil {
			continue
		}
		for _, c := range calls {
			var call map[string]json.RawMessage
			if json.Unmarshal(c, &call) != nil {
				continue
			}
			cid, ok := call["id"]
			if !ok || len(cid) == 0 || cid[0] != '"' {
				continue
			}
			ck := `"` + unquote(cid) + `"`
			if _, has := v.ownToolCall[ck]; authoritative || !has {
				v.ownToolCall[ck] = sub
			}
			if _, ok := v.endedCalls[ck]; !ok {
				v.endedCalls[ck] = false
			}
		}
	}
	return ""
}

// rawKey is keyBytes for a standalone JSON value.
func rawKey(raw []byte, uniq func() int) []byte {
	sp, _, err := scanValue(raw, 0)
	if err != nil {
		return []byte(keyUndefined)
	}
	return keyBytes(raw, sp, uniq)
}

// objectField returns the raw value of a member of a JSON object, or nil.
func objectField(obj []byte, name string) []byte {
	var out []byte
	_ = eachMember(obj, func(key []byte, escaped bool, v span) bool {
		k := key[1 : len(key)-1]
		if escaped {
			k = []byte(unquote(key))
		}
		if string(k) == name {
			out = obj[v.start:v.end]
		}
		return true
	})
	return out
}

// literalFalse reports whether a top-level field is the literal false.
func (e *Event) literalFalse(name string) bool {
	sp := e.field(name)
	return sp.kind == kindBool && e.raw[sp.start] == 'f'
}

// subagentLifecycle checks the optional fields of SUBAGENT_* events that
// must be absent rather than null, and the outcome's shape.
func subagentLifecycle(e *Event) (rule, msg string) {
	var fields []string
	switch e.typ {
	case SubagentStarted:
		fields = []string{"description", "parentSubagentRunId", "parentToolCallId", "parentMessageId"}
	case SubagentFinished:
		fields = []string{"outcome"}
	default:
		fields = []string{"code"}
	}
	for _, f := range fields {
		if e.field(f).kind == kindNull {
			return "null-field", fmt.Sprintf("Cannot send '%s' with '%s: null'. The field is optional — omit it entirely.", e.typ, f)
		}
	}
	sp := e.field("outcome")
	if !sp.present() || sp.kind == kindNull {
		return "", ""
	}
	out := e.raw[sp.start:sp.end]
	var typ []byte
	var interrupts []byte
	if sp.kind == kindObject {
		typ = objectField(out, "type")
		interrupts = objectField(out, "interruptIds")
	}
	if string(typ) != `"success"` && string(typ) != `"suspended"` {
		text := "undefined"
		if typ != nil {
			text = keyText(string(rawKey(typ, func() int { return 0 })))
		}
		if sp.kind == kindString || sp.kind == kindNumber || sp.kind == kindBool {
			text = "undefined" // a primitive has no "type" property
		}
		return "subagent-outcome", fmt.Sprintf("Cannot send '%s' with outcome type '%s'. The outcome is either { type: \"success\" } or { type: \"suspended\" }.", e.typ, text)
	}
	if string(interrupts) == "null" {
		return "null-field", fmt.Sprintf("Cannot send '%s' with 'outcome.interruptIds: null'. The field is optional — omit it entirely.", e.typ)
	}
	if len(interrupts) > 0 && interrupts[0] == '[' {
		var ids []json.RawMessage
		if json.Unmarshal(interrupts, &ids) == nil {
			for _, id := range ids {
				if len(id) == 0 || id[0] != '"' {
					return "subagent-outcome", fmt.Sprintf("Cannot send '%s' with a non-string entry in 'outcome.interruptIds'. Interrupt ids are strings.", e.typ)
				}
			}
		}
	}
	return "", ""
}

func interruptNulls(e *Event) string {
	sp := e.field("outcome")
	if sp.kind != kindObject {
		return ""
	}
	out := e.raw[sp.start:sp.end]
	if string(objectField(out, "type")) != `"interrupt"` {
		return ""
	}
	list := objectField(out, "interrupts")
	if len(list) == 0 || list[0] != '[' {
		return ""
	}
	var items []json.RawMessage
	if json.Unmarshal(list, &items) != nil {
		return ""
	}
	for _, it := range items {
		if len(it) == 0 || it[0] != '{' {
			continue
		}
		if string(objectField(it, "subagentRunId")) == "null" {
			id := objectField(it, "id")
			text := "undefined"
			if id != nil {
				text = keyText(string(rawKey(id, func() int { return 0 })))
			}
			return fmt.Sprintf("Cannot send 'RUN_FINISHED' with an interrupt (id '%s') carrying 'subagentRunId: null'. The field is optional — omit it entirely.", text)
		}
	}
	return ""
}

// appendUnquoted appends the decoded content of the JSON string s.
func appendUnquoted(dst, s []byte) []byte { return appendUnescaped(dst, s) }

// validJSON checks that b is exactly one JSON value.
func validJSON(b []byte) error {
	if len(skipSpaceBytes(b)) == 0 {
		return fmt.Errorf("no arguments were streamed; an empty string is not JSON, send {} for none")
	}
	_, end, err := scanValue(b, 0)
	if err != nil {
		return err
	}
	if end = skipSpace(b, end); end != len(b) {
		return syntaxErr(end, "unexpected data after the value")
	}
	return nil
}

func skipSpaceBytes(b []byte) []byte { return b[skipSpace(b, 0):] }

// clip quotes the start of b for a message, cut at a character boundary.
func clip(b []byte) string {
	const max = 80
	if len(b) <= max {
		return fmt.Sprintf("%q", b)
	}
	n := max
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return fmt.Sprintf("%q...", b[:n])
}

// isChunkRelevant reports whether expansion may change an event of type c
// when no chunk stream is open.
func isChunkRelevant(c typeCode) bool {
	return c == cTextMessageChunk || c == cToolCallChunk || c == cReasoningMessageChunk
}
