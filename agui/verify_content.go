package agui

import "fmt"

// The rules of text messages, reasoning and encrypted reasoning values.

func (v *Verifier) textStart(e *Event, tag []byte, report fail) {
	id := v.key(e, fMessageID)
	if v.activeMessages.has(id) {
		report(RuleMessageOpen, fmt.Sprintf("Cannot send 'TEXT_MESSAGE_START' event: A text message with ID '%s' is already in progress. Complete it with 'TEXT_MESSAGE_END' first.", keyText(string(id))))
		return
	}
	owner, has := v.ownMessage[string(id)]
	if has {
		if msg := tagError(e.typ, tag, owner, true, "message", id); msg != "" {
			report(RuleSubagentAttribution, msg)
			return
		}
	}
	// A text chunk continuing a message after something else closed it is
	// how chunks work (the producer cannot know where the message ends),
	// and the client joins the parts: only an explicit reopen is reported.
	if v.opt.Profile == Strict && v.closedMessages[string(id)] && !v.expanding {
		report(RuleReopenedID, fmt.Sprintf("text message '%s' is opened again after its TEXT_MESSAGE_END in the same run; clients merge both into one message", keyText(string(id))))
	}
	v.insert(v.activeMessages, id)
	if !has {
		v.ownMessage[v.intern(id)] = v.intern(tag)
	}
	v.noteMessageID(id)
}

func (v *Verifier) textContinue(e *Event, tag []byte, report fail) {
	c := e.code
	id := v.key(e, fMessageID)
	if c == cTextMessageContent && string(tag) == keyUndefined && v.lastMessage.hit(id) {
		return // the message the previous content event went to: still open
	}
	if !v.activeMessages.has(id) {
		hint := "Start a text message with 'TEXT_MESSAGE_START' first."
		if c == cTextMessageEnd {
			hint = "A 'TEXT_MESSAGE_START' event must be sent first."
		}
		report(RuleMessageNotOpen, fmt.Sprintf("Cannot send '%s' event: No active text message found with ID '%s'. %s", e.typ, keyText(string(id)), hint))
		return
	}
	if string(tag) != keyUndefined {
		owner, has := v.ownMessage[string(id)]
		if msg := tagError(e.typ, tag, owner, has, "message", id); msg != "" {
			report(RuleSubagentAttribution, msg)
			return
		}
	}
	if c == cTextMessageContent {
		v.lastMessage.set(id, nil)
		return
	}
	v.lastMessage.valid = false
	delete(v.activeMessages, string(id))
	if v.opt.Profile == Strict {
		v.closedMessages[v.intern(id)] = true
	}
}

func (v *Verifier) reasoningStart(e *Event, tag []byte, report fail) {
	id := v.key(e, fMessageID)
	if v.v0059() {
		// One set of open reasoning ids, which nothing reads: only the
		// owner is checked.
		owner, has := v.ownReasoning[string(id)]
		if has {
			if msg := tagError(e.typ, tag, owner, true, "reasoning message", id); msg != "" {
				report(RuleSubagentAttribution, msg)
				return
			}
		} else {
			v.ownReasoning[v.intern(id)] = v.intern(tag)
		}
		return
	}
	span := e.code == cReasoningStart
	open := v.activeReasoningMsg
	if span {
		open = v.activeReasoningSpans
	}
	if open.has(id) {
		if span {
			report(RuleReasoningOpen, fmt.Sprintf("Cannot send 'REASONING_START' event: A reasoning span with ID '%s' is already in progress. Complete it with 'REASONING_END' first.", keyText(string(id))))
		} else {
			report(RuleReasoningOpen, fmt.Sprintf("Cannot send 'REASONING_MESSAGE_START' event: A reasoning message with ID '%s' is already in progress. Complete it with 'REASONING_MESSAGE_END' first.", keyText(string(id))))
		}
		return
	}
	owner, has := v.ownReasoning[string(id)]
	if has {
		if msg := tagError(e.typ, tag, owner, true, "reasoning message", id); msg != "" {
			report(RuleSubagentAttribution, msg)
			return
		}
	}
	if v.opt.Profile == Strict && !span && v.closedReasoningMsg[string(id)] && !v.expanding {
		report(RuleReopenedID, fmt.Sprintf("reasoning message '%s' is opened again after its REASONING_MESSAGE_END in the same run", keyText(string(id))))
	}
	v.insert(open, id)
	if !has {
		v.ownReasoning[v.intern(id)] = v.intern(tag)
	}
	if !span {
		v.noteMessageID(id)
	}
}

func (v *Verifier) reasoningContinue(e *Event, tag []byte, report fail) {
	c := e.code
	id := v.key(e, fMessageID)
	if v.v0059() {
		owner, has := v.ownReasoning[string(id)]
		if msg := tagError(e.typ, tag, owner, has, "reasoning message", id); string(tag) != keyUndefined && msg != "" {
			report(RuleSubagentAttribution, msg)
		}
		return
	}
	span := c == cReasoningEnd
	open := v.activeReasoningMsg
	if span {
		open = v.activeReasoningSpans
	}
	if !open.has(id) {
		if span {
			report(RuleReasoningNotOpen, fmt.Sprintf("Cannot send 'REASONING_END' event: No active reasoning span found with ID '%s'. A 'REASONING_START' event must be sent first.", keyText(string(id))))
		} else {
			report(RuleReasoningNotOpen, fmt.Sprintf("Cannot send '%s' event: No active reasoning message found with ID '%s'. Start a reasoning message with 'REASONING_MESSAGE_START' first.", e.typ, keyText(string(id))))
		}
		return
	}
	if string(tag) != keyUndefined {
		owner, has := v.ownReasoning[string(id)]
		if msg := tagError(e.typ, tag, owner, has, "reasoning message", id); msg != "" {
			report(RuleSubagentAttribution, msg)
			return
		}
	}
	if c != cReasoningMessageContent {
		delete(open, string(id))
		if v.opt.Profile == Strict && c == cReasoningMessageEnd {
			v.closedReasoningMsg[v.intern(id)] = true
		}
	}
}

func (v *Verifier) encryptedValue(e *Event, tag []byte, report fail) {
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
	if msg := tagError(e.typ, tag, owner, has, kind, id); msg != "" {
		report(RuleSubagentAttribution, msg)
	}
}
