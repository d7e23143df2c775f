package agui

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The ordering rules, as verifyEvents of @ag-ui/client 1.0.0 applies them
// (with the Strict and opt-in rules beside them). check dispatches an event
// to the rules of its family: runs here, text and reasoning messages in
// verify_content.go, tool calls in verify_calls.go, steps and subagents in
// verify_steps.go.

// fail reports a violation of rule by the event being checked.
type fail func(rule Rule, msg string)

// check verifies one event. orig is the event as pushed (for the index and
// ids of a report); e is the event checked, which differs from orig when a
// chunk was expanded.
func (v *Verifier) check(orig, e *Event) {
	report := func(rule Rule, msg string) { v.report(orig, rule, msg, "") }
	if !v.lifecycle(e, report) {
		return
	}
	tag := v.key(e, fSubagentRunID)
	v.lint(e, report)
	switch e.code {
	case cTextMessageStart:
		v.textStart(e, tag, report)
	case cTextMessageContent, cTextMessageEnd:
		v.textContinue(e, tag, report)
	case cToolCallStart:
		v.toolCallStart(e, tag, report)
	case cToolCallArgs, cToolCallEnd:
		v.toolCallContinue(e, tag, report)
	case cToolCallResult:
		v.toolCallResult(e, tag, report)
	case cStepStarted, cStepFinished:
		v.step(e, tag, report)
	case cActivitySnapshot:
		id := v.key(e, fMessageID)
		_, known := v.ownActivity[string(id)]
		if !known || !e.literalFalse("replace") {
			v.ownActivity[v.intern(id)] = v.intern(tag)
		}
		v.noteMessageID(id)
	case cActivityDelta:
		id := v.key(e, fMessageID)
		owner, has := v.ownActivity[string(id)]
		if msg := tagError(e.typ, tag, owner, has, "activity", id); msg != "" {
			report(RuleSubagentAttribution, msg)
		}
	case cReasoningStart, cReasoningMessageStart:
		v.reasoningStart(e, tag, report)
	case cReasoningMessageContent, cReasoningMessageEnd, cReasoningEnd:
		v.reasoningContinue(e, tag, report)
	case cReasoningEncryptedValue:
		v.encryptedValue(e, tag, report)
	case cSubagentStarted:
		v.subagentStarted(e, report)
	case cSubagentFinished, cSubagentError:
		v.subagentEnd(e, tag, report)
	case cMessagesSnapshot:
		sp := e.field("messages")
		if msg := v.seedOwners(e.raw[sp.Start:sp.End], sp.Kind, true); msg != "" {
			report(RuleNullField, msg)
		}
	case cRunStarted:
		v.runStarted = true
		v.draftRunStarted(e, report)
		if in := e.field("input"); in.Kind == kindObject {
			msgs := objectField(e.raw[in.Start:in.End], "messages")
			kind := kindAbsent
			if len(msgs) > 0 && msgs[0] == '[' {
				kind = kindArray
			}
			if msg := v.seedOwners(msgs, kind, false); msg != "" {
				report(RuleNullField, msg)
			}
		}
	case cRunFinished:
		v.draftRunFinished(e, report)
		v.runFinishedCheck(report)
	case cRunError:
		v.runError = true
	case 0:
		if v.v0059() {
			v.thinking(e, report)
		}
	}
}

// lifecycle applies the run rules that come before an event's own: what
// may follow RUN_FINISHED or RUN_ERROR, the first event, RUN_STARTED
// while a run is active, and the null and shape checks of the run and
// subagent events. It reports whether the event's own rules apply next.
func (v *Verifier) lifecycle(e *Event, report fail) bool {
	t, c := e.typ, e.code
	strict := v.opt.Profile == Strict
	if v.runError && c != cRunStarted {
		rule := RuleAfterRunError
		if strict && c == cRunFinished {
			rule = RuleFinishedAfterError
		}
		report(rule, fmt.Sprintf("Cannot send event type '%s': The run has already errored with 'RUN_ERROR'. No further events can be sent.", t))
		v.suppress = rule
		return false
	}
	if v.runFinished && c != cRunError && c != cRunStarted {
		report(RuleAfterRunFinished, fmt.Sprintf("Cannot send event type '%s': The run has already finished with 'RUN_FINISHED'. Start a new run with 'RUN_STARTED'.", t))
		v.suppress = RuleAfterRunFinished
		return false
	}
	if !v.firstEvent {
		v.firstEvent = true
		if c != cRunStarted && c != cRunError {
			report(RuleFirstEvent, "First event must be 'RUN_STARTED'")
		}
		if c == cRunStarted {
			v.seedInput(v.input)
		}
	} else if c == cRunStarted {
		if v.runStarted && !v.runFinished && !v.runError {
			report(RuleRunActive, "Cannot send 'RUN_STARTED' while a run is still active. The previous run must be finished with 'RUN_FINISHED' before starting a new run.")
			return false
		}
		if v.runFinished || v.runError {
			v.resetRun()
			v.seedInput(v.input)
		}
	}
	if e.f[fSubagentRunID].Kind == kindNull {
		report(RuleNullField, fmt.Sprintf("Cannot send '%s' with 'subagentRunId: null'. The field is optional — omit it entirely.", t))
		return false
	}
	if c == cSubagentStarted || c == cSubagentFinished || c == cSubagentError {
		if rule, msg := subagentLifecycle(e); msg != "" {
			report(rule, msg)
			return false
		}
	}
	if c == cRunFinished {
		if msg := interruptNulls(e); msg != "" {
			report(RuleNullField, msg)
			return false
		}
	}
	return true
}

func (v *Verifier) runFinishedCheck(report fail) {
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
		report(RuleRunFinishedOpen, "Cannot send 'RUN_FINISHED' while steps are still active: "+strings.Join(parts, ", "))
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
			report(RuleRunFinishedOpen, fmt.Sprintf("Cannot send 'RUN_FINISHED' while %s are still active: %s", c.what, joinText(c.set.keys())))
			return
		}
	}
}

// seedInput makes the tool calls and message ids of a run's input history
// known, as if the run had replayed them (what seedOwners does for an
// echoed input, without a round trip through JSON).
func (v *Verifier) seedInput(in *RunAgentInput) {
	if in == nil {
		return
	}
	var scratch []byte
	key := func(s string) string {
		scratch = append(append(append(scratch[:0], '"'), s...), '"')
		return v.intern(scratch)
	}
	for i := range in.Messages {
		m := &in.Messages[i]
		id := key(m.ID)
		v.noteMessageID([]byte(id))
		sub := keyUndefined
		if m.SubagentRunID != "" {
			sub = key(m.SubagentRunID)
		}
		bucket := v.ownMessage
		switch m.Role {
		case RoleReasoning:
			bucket = v.ownReasoning
		case RoleActivity:
			bucket = v.ownActivity
		}
		if _, has := bucket[id]; !has {
			bucket[id] = sub
		}
		for j := range m.ToolCalls {
			ck := key(m.ToolCalls[j].ID)
			if _, has := v.ownToolCall[ck]; !has {
				v.ownToolCall[ck] = sub
			}
			if _, ok := v.endedCalls[ck]; !ok {
				v.endedCalls[ck] = false
			}
		}
	}
}

// seedOwners records the owners of messages replayed in a MESSAGES_SNAPSHOT
// (authoritative) or a run's input (RUN_STARTED's echo, or SetInput), as
// the reference does, and the tool calls they carry as ended.
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
		v.noteMessageID(id)
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
			out = obj[v.Start:v.End]
		}
		return true
	})
	return out
}

// literalFalse reports whether a top-level field is the literal false.
func (e *Event) literalFalse(name string) bool {
	sp := e.field(name)
	return sp.Kind == kindBool && e.raw[sp.Start] == 'f'
}

func interruptNulls(e *Event) string {
	sp := e.field("outcome")
	if sp.Kind != kindObject {
		return ""
	}
	out := e.raw[sp.Start:sp.End]
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

// isChunkRelevant reports whether expansion may change an event of type c
// when no chunk stream is open.
func isChunkRelevant(c typeCode) bool {
	return c == cTextMessageChunk || c == cToolCallChunk || c == cReasoningMessageChunk
}
