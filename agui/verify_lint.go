package agui

import "fmt"

// The opt-in rules, each enabled by name with Options.Enable.

// lint applies the opt-in rules that look at one event alone.
func (v *Verifier) lint(e *Event, report fail) {
	if v.enable == 0 {
		return
	}
	if v.enable.has(RuleEmptyDelta) && (e.code == cTextMessageContent || e.code == cReasoningMessageContent) {
		if d := e.f[fDelta]; d.Kind == kindString && d.End-d.Start == 2 {
			report(RuleEmptyDelta, fmt.Sprintf("%s with an empty delta; @ag-ui/core up to 0.0.49 rejects it (\"Delta must not be an empty string\") and fails the run", e.typ))
		}
	}
}

// lintResult applies the opt-in rules of TOOL_CALL_RESULT message ids.
func (v *Verifier) lintResult(e *Event, report fail) {
	if v.enable == 0 || e.f[fMessageID].Kind != kindString {
		return
	}
	id := v.key(e, fMessageID)
	call := string(v.key(e, fToolCallID))
	if v.enable.has(RuleSharedResultID) {
		if other, ok := v.resultIDs[string(id)]; ok && other != call {
			report(RuleSharedResultID, fmt.Sprintf("TOOL_CALL_RESULT message '%s' is also the result message of tool call '%s'; the client keeps one message per id and shows only one of the results", keyText(string(id)), keyText(other)))
		}
	}
	if v.enable.has(RuleReusedResultID) {
		if _, isResult := v.resultIDs[string(id)]; !isResult && v.messageIDs[string(id)] {
			report(RuleReusedResultID, fmt.Sprintf("TOOL_CALL_RESULT message '%s' reuses the id of another message of the run; the client then holds two messages under one id", keyText(string(id))))
		}
	}
	if _, ok := v.resultIDs[string(id)]; !ok {
		v.resultIDs[v.intern(id)] = v.intern([]byte(call))
	}
}

// noteMessageID remembers a message id of the run, for RuleReusedResultID.
func (v *Verifier) noteMessageID(id []byte) {
	if !v.enable.has(RuleReusedResultID) || string(id) == keyUndefined {
		return
	}
	if !v.messageIDs[string(id)] {
		v.messageIDs[v.intern(id)] = true
	}
}
