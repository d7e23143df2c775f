package agui

import (
	"fmt"
	"slices"
	"strings"
)

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

// state is what the ordering rules remember: per run unless noted.
type state struct {
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
	thinkingStep, thinkingMessage            bool // 0.0.59: a THINKING_* step or message is open
	seq                                      uint64
	uniq                                     int

	// strict state
	closedMessages, closedReasoningMsg, closedToolCalls map[string]bool
	endedCalls                                          map[string]bool // call key -> has a result
	args                                                map[string]*[]byte
	freeArgs                                            []*[]byte
	suppress                                            Rule // rule whose repeats are not reported until the next run
	scratch                                             []byte
	names                                               map[string]string // interned keys
	resultIDs                                           map[string]string // opt-in: result message id -> its call
	messageIDs                                          map[string]bool   // opt-in: message ids of the run
	lastName                                            string

	// The entity the previous content or arguments event went to, known
	// open: consecutive fragments of one message or call skip the lookup.
	lastMessage openCache
	lastCalls   [4]openCache // parallel calls interleave: remember a few
	nextCall    int
}

// cachedCall returns the cache entry of call id, or nil.
func (v *state) cachedCall(id []byte) *openCache {
	for i := range v.lastCalls {
		if v.lastCalls[i].hit(id) {
			return &v.lastCalls[i]
		}
	}
	return nil
}

// rememberCall caches call id (open) with its arguments buffer.
func (v *state) rememberCall(id []byte, args *[]byte) {
	v.lastCalls[v.nextCall].set(id, args)
	v.nextCall = (v.nextCall + 1) % len(v.lastCalls)
}

// forgetCalls empties the call cache.
func (v *state) forgetCalls() {
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
func (v *state) appendArgs(e *Event, b *[]byte) {
	if b == nil {
		return
	}
	if d := e.f[fDelta]; d.Kind == kindString {
		*b = appendUnescaped(*b, e.raw[d.Start:d.End])
	}
}

// maxNames bounds the table of interned keys; past it the table starts over.
const maxNames = 1 << 12

// intern returns b as a string, reusing the string made the last time the
// same bytes were seen, so that a stream whose ids recur costs no
// allocation.
func (v *state) intern(b []byte) string {
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

func (v *state) init() {
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
	v.resultIDs = map[string]string{}
	v.messageIDs = map[string]bool{}
}

// Open lists what the current run has open: text messages, tool calls,
// reasoning messages and spans, steps and subagents, each named with its
// id, in the order they opened.
func (v *state) Open() []string {
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

func (v *state) key(e *Event, f int) []byte { return v.keyOf(e, e.f[f]) }

// keyOf is key for a field found by name.
func (v *state) keyOf(e *Event, sp span) []byte {
	switch sp.Kind {
	case kindAbsent:
		return keyUndefinedBytes
	case kindString:
		if !sp.Escaped {
			return e.raw[sp.Start:sp.End]
		}
	}
	return keyBytes(e.raw, sp, v.nextUniq)
}

func (v *state) nextUniq() int { v.uniq++; return v.uniq }

func (v *state) insert(s orderedSet, k []byte) {
	if _, ok := s[string(k)]; !ok {
		v.seq++
		s[v.intern(k)] = v.seq
	}
}

func (v *state) resetRun() {
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
	clear(v.resultIDs)
	clear(v.messageIDs)
	for k, b := range v.args {
		v.freeArgs = append(v.freeArgs, b)
		delete(v.args, k)
	}
	v.runFinished = false
	v.runError = false
	v.runStarted = true
	v.thinkingStep, v.thinkingMessage = false, false
	v.suppress = ""
}
