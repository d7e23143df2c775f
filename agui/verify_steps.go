package agui

import (
	"encoding/json"
	"fmt"
)

// The rules of steps and subagents.

func (v *state) stepKey(owner, name []byte) []byte {
	v.scratch = append(append(append(v.scratch[:0], owner...), 1), name...)
	return v.scratch
}

func (v *Verifier) step(e *Event, owner []byte, report fail) {
	name := v.key(e, fStepName)
	v.insert(v.stepOwners, owner) // stepsFor(owner) creates the owner's entry
	k := v.stepKey(owner, name)
	if e.typ == StepStarted {
		if v.steps.has(k) {
			in := ""
			if string(owner) != keyUndefined {
				in = fmt.Sprintf(" in subagent '%s'", keyText(string(owner)))
			}
			report(RuleStepActive, fmt.Sprintf("Step \"%s\" is already active for 'STEP_STARTED'%s", keyText(string(name)), in))
			return
		}
		v.insert(v.steps, k)
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
			report(RuleStepOwner, fmt.Sprintf("Cannot send 'STEP_FINISHED' for step \"%s\" attributed to %s: that step is open under %s. A step must be finished by whoever started it.",
				keyText(string(name)), who(string(owner)), who(o)))
			return
		}
		report(RuleStepNotStarted, fmt.Sprintf("Cannot send 'STEP_FINISHED' for step \"%s\" that was not started", keyText(string(name))))
		return
	}
	delete(v.steps, string(v.stepKey(owner, name)))
}

func (v *Verifier) subagentStarted(e *Event, report fail) {
	if e.f[fSubagentRunID].Kind != kindString {
		report(RuleSubagentLifecycle, "Cannot send 'SUBAGENT_STARTED' without a 'subagentRunId'.")
		return
	}
	if e.field("name").Kind != kindString {
		report(RuleSubagentLifecycle, "Cannot send 'SUBAGENT_STARTED' without a 'name'.")
		return
	}
	id := v.key(e, fSubagentRunID)
	if v.activeSubagents.has(id) {
		report(RuleSubagentActive, fmt.Sprintf("Cannot send 'SUBAGENT_STARTED': subagent '%s' is already active. Finish it with 'SUBAGENT_FINISHED' first.", keyText(string(id))))
		return
	}
	if v.closedSubagents[string(id)] {
		report(RuleSubagentReused, fmt.Sprintf("Cannot send 'SUBAGENT_STARTED': subagent '%s' has already finished in this run. Subagent IDs are per-invocation and cannot be reused.", keyText(string(id))))
		return
	}
	if ps := e.field("parentSubagentRunId"); ps.Present() {
		pk := keyBytes(e.raw, ps, v.nextUniq)
		if !v.activeSubagents.has(pk) && !v.closedSubagents[string(pk)] {
			report(RuleSubagentParent, fmt.Sprintf("Cannot send 'SUBAGENT_STARTED': parentSubagentRunId '%s' has not been started in this run.", keyText(string(pk))))
			return
		}
	}
	v.insert(v.activeSubagents, id)
}

func (v *Verifier) subagentEnd(e *Event, tag []byte, report fail) {
	t := e.typ
	if e.f[fSubagentRunID].Kind != kindString {
		report(RuleSubagentLifecycle, fmt.Sprintf("Cannot send '%s' without a 'subagentRunId'.", t))
		return
	}
	if e.code == cSubagentError && e.field("message").Kind != kindString {
		report(RuleSubagentLifecycle, "Cannot send 'SUBAGENT_ERROR' without a 'message'.")
		return
	}
	if !v.activeSubagents.has(tag) {
		report(RuleSubagentNotActive, fmt.Sprintf("Cannot send '%s': no active subagent found with ID '%s'. A 'SUBAGENT_STARTED' event must be sent first.", t, keyText(string(tag))))
		return
	}
	delete(v.activeSubagents, string(tag))
	v.closedSubagents[v.intern(tag)] = true
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

// subagentLifecycle checks the optional fields of SUBAGENT_* events that
// must be absent rather than null, and the outcome's shape.
func subagentLifecycle(e *Event) (rule Rule, msg string) {
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
		if e.field(f).Kind == kindNull {
			return RuleNullField, fmt.Sprintf("Cannot send '%s' with '%s: null'. The field is optional — omit it entirely.", e.typ, f)
		}
	}
	sp := e.field("outcome")
	if !sp.Present() || sp.Kind == kindNull {
		return "", ""
	}
	out := e.raw[sp.Start:sp.End]
	var typ []byte
	var interrupts []byte
	if sp.Kind == kindObject {
		typ = objectField(out, "type")
		interrupts = objectField(out, "interruptIds")
	}
	if string(typ) != `"success"` && string(typ) != `"suspended"` {
		text := "undefined"
		if typ != nil {
			text = keyText(string(rawKey(typ, func() int { return 0 })))
		}
		if sp.Kind == kindString || sp.Kind == kindNumber || sp.Kind == kindBool {
			text = "undefined" // a primitive has no "type" property
		}
		return RuleSubagentOutcome, fmt.Sprintf("Cannot send '%s' with outcome type '%s'. The outcome is either { type: \"success\" } or { type: \"suspended\" }.", e.typ, text)
	}
	if string(interrupts) == "null" {
		return RuleNullField, fmt.Sprintf("Cannot send '%s' with 'outcome.interruptIds: null'. The field is optional — omit it entirely.", e.typ)
	}
	if len(interrupts) > 0 && interrupts[0] == '[' {
		var ids []json.RawMessage
		if json.Unmarshal(interrupts, &ids) == nil {
			for _, id := range ids {
				if len(id) == 0 || id[0] != '"' {
					return RuleSubagentOutcome, fmt.Sprintf("Cannot send '%s' with a non-string entry in 'outcome.interruptIds'. Interrupt ids are strings.", e.typ)
				}
			}
		}
	}
	return "", ""
}
