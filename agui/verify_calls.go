package agui

import (
	"fmt"
	"unicode/utf8"

	"github.com/aguitest/aguitest/internal/jsonx"
)

// The rules of tool calls: the reference's (a call opens once, its
// arguments and end need it open, attribution follows its parent message)
// and Strict's (arguments parse at the end, results follow the end, one
// result per call, no id reopened).

func (v *Verifier) toolCallStart(e *Event, tag []byte, report fail) {
	id := v.key(e, fToolCallID)
	if v.activeToolCalls.has(id) {
		report(RuleToolCallOpen, fmt.Sprintf("Cannot send 'TOOL_CALL_START' event: A tool call with ID '%s' is already in progress. Complete it with 'TOOL_CALL_END' first.", keyText(string(id))))
		return
	}
	parent := v.key(e, fParentMessageID)
	var inherited string
	var hasInherited bool
	if string(parent) != keyUndefined {
		if po, ok := v.ownMessage[string(parent)]; ok {
			if string(tag) != keyUndefined && string(tag) != po {
				report(RuleSubagentAttribution, fmt.Sprintf("Cannot send 'TOOL_CALL_START': subagentRunId '%s' does not match its parent message '%s' owner '%s'. A tool call belongs to the message that carries it.",
					keyText(string(tag)), keyText(string(parent)), ownerText(po)))
				return
			}
			inherited, hasInherited = po, true
		}
	}
	existing, has := v.ownToolCall[string(id)]
	if has {
		if msg := tagError(ToolCallStart, tag, existing, true, "tool call", id); msg != "" {
			report(RuleSubagentAttribution, msg)
			return
		}
		if string(tag) == keyUndefined && hasInherited && inherited != existing {
			report(RuleSubagentAttribution, fmt.Sprintf("Cannot send 'TOOL_CALL_START': tool call '%s' is owned by '%s' but its parent message '%s' is owned by '%s'. A tool call belongs to the message that carries it.",
				keyText(string(id)), ownerText(existing), keyText(string(parent)), ownerText(inherited)))
			return
		}
	}
	if v.opt.Profile == Strict && v.closedToolCalls[string(id)] {
		report(RuleReopenedID, fmt.Sprintf("tool call '%s' is started again after its TOOL_CALL_END in the same run; clients append both calls' arguments to one call", keyText(string(id))))
	}
	v.insert(v.activeToolCalls, id)
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
	if string(parent) != keyUndefined {
		v.noteMessageID(parent)
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

func (v *Verifier) toolCallContinue(e *Event, tag []byte, report fail) {
	c := e.code
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
		report(RuleToolCallNotOpen, fmt.Sprintf("Cannot send '%s' event: No active tool call found with ID '%s'. %s", e.typ, keyText(string(id)), hint))
		return
	}
	if string(tag) != keyUndefined {
		owner, has := v.ownToolCall[string(id)]
		if msg := tagError(e.typ, tag, owner, has, "tool call", id); msg != "" {
			report(RuleSubagentAttribution, msg)
			return
		}
	}
	strict := v.opt.Profile == Strict
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
	if !strict {
		return
	}
	if b := v.args[string(id)]; b != nil {
		// No arguments streamed means none: the client reads "" as {}.
		if len(*b) > 0 {
			if err := validJSON(*b); err != nil {
				report(RuleArgsNotJSON, fmt.Sprintf("the arguments of tool call '%s' are not JSON at TOOL_CALL_END (%v): %s", keyText(string(id)), err, clip(*b)))
			}
		}
		v.freeArgs = append(v.freeArgs, b)
		delete(v.args, string(id))
	}
	v.closedToolCalls[v.intern(id)] = true
	if _, ok := v.endedCalls[string(id)]; !ok {
		v.endedCalls[v.intern(id)] = false
	}
}

func (v *Verifier) toolCallResult(e *Event, tag []byte, report fail) {
	if m := e.f[fMessageID]; m.Kind == kindString {
		v.ownMessage[v.intern(v.key(e, fMessageID))] = v.intern(tag)
	}
	v.lintResult(e, report)
	if v.opt.Profile != Strict {
		return
	}
	id := v.key(e, fToolCallID)
	name := func() string { return keyText(string(id)) }
	switch resulted, ended := v.endedCalls[string(id)]; {
	case v.activeToolCalls.has(id):
		report(RuleResultBeforeEnd, fmt.Sprintf("TOOL_CALL_RESULT for tool call '%s' arrives before its TOOL_CALL_END", name()))
	case !ended:
		report(RuleResultUnknownCall, fmt.Sprintf("TOOL_CALL_RESULT names tool call '%s', which no TOOL_CALL_START of this run and no message of its input history opened", name()))
	case resulted:
		report(RuleDuplicateResult, fmt.Sprintf("tool call '%s' already has a TOOL_CALL_RESULT", name()))
	default:
		v.endedCalls[v.intern(id)] = true
	}
}

// appendArgs adds an arguments fragment to a call's buffer (Strict only).
func (v *Verifier) appendArgs(e *Event, b *[]byte) {
	if b == nil {
		return
	}
	if d := e.f[fDelta]; d.Kind == kindString {
		*b = appendUnescaped(*b, e.raw[d.Start:d.End])
	}
}

// validJSON checks that b is exactly one JSON value.
func validJSON(b []byte) error {
	if skipSpace(b, 0) == len(b) {
		return fmt.Errorf("only white space was streamed")
	}
	return jsonx.Check(b)
}

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
