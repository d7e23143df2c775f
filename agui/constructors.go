package agui

// Constructors for the events an agent (or a test standing in for one)
// emits most. Each writes "type" first and then the fields in the order the
// protocol documents them; optional fields given as "" are left out.

func build(t EventType, kv ...string) Event {
	b := make([]byte, 0, 64)
	b = append(b, `{"type":`...)
	b = append(b, quote(string(t))...)
	for i := 0; i+1 < len(kv); i += 2 {
		b = append(b, ',')
		b = append(b, quote(kv[i])...)
		b = append(b, ':')
		b = append(b, quote(kv[i+1])...)
	}
	b = append(b, '}')
	e, err := ParseEvent(b)
	if err != nil {
		panic("agui: internal error: " + err.Error())
	}
	e.valid = true
	return e
}

func optional(kv []string, k, v string) []string {
	if v == "" {
		return kv
	}
	return append(kv, k, v)
}

// NewRunStarted returns a RUN_STARTED event.
func NewRunStarted(threadID, runID string) Event {
	return build(RunStarted, "threadId", threadID, "runId", runID)
}

// NewRunFinished returns a RUN_FINISHED event.
func NewRunFinished(threadID, runID string) Event {
	return build(RunFinished, "threadId", threadID, "runId", runID)
}

// NewRunError returns a RUN_ERROR event; code may be "".
func NewRunError(message, code string) Event {
	return build(RunError, optional([]string{"message", message}, "code", code)...)
}

// NewTextMessageStart returns a TEXT_MESSAGE_START event for an assistant
// message.
func NewTextMessageStart(messageID string) Event {
	return build(TextMessageStart, "messageId", messageID, "role", "assistant")
}

// NewTextMessageContent returns a TEXT_MESSAGE_CONTENT event.
func NewTextMessageContent(messageID, delta string) Event {
	return build(TextMessageContent, "messageId", messageID, "delta", delta)
}

// NewTextMessageEnd returns a TEXT_MESSAGE_END event.
func NewTextMessageEnd(messageID string) Event {
	return build(TextMessageEnd, "messageId", messageID)
}

// NewToolCallStart returns a TOOL_CALL_START event; parentMessageID may be
// "".
func NewToolCallStart(toolCallID, toolCallName, parentMessageID string) Event {
	return build(ToolCallStart, optional([]string{"toolCallId", toolCallID, "toolCallName", toolCallName}, "parentMessageId", parentMessageID)...)
}

// NewToolCallArgs returns a TOOL_CALL_ARGS event carrying a fragment of the
// call's JSON arguments.
func NewToolCallArgs(toolCallID, delta string) Event {
	return build(ToolCallArgs, "toolCallId", toolCallID, "delta", delta)
}

// NewToolCallEnd returns a TOOL_CALL_END event.
func NewToolCallEnd(toolCallID string) Event {
	return build(ToolCallEnd, "toolCallId", toolCallID)
}

// NewToolCallResult returns a TOOL_CALL_RESULT event: messageID names the
// tool message that carries the result.
func NewToolCallResult(messageID, toolCallID, content string) Event {
	return build(ToolCallResult, "messageId", messageID, "toolCallId", toolCallID, "content", content, "role", "tool")
}

// NewStepStarted returns a STEP_STARTED event.
func NewStepStarted(stepName string) Event { return build(StepStarted, "stepName", stepName) }

// NewStepFinished returns a STEP_FINISHED event.
func NewStepFinished(stepName string) Event { return build(StepFinished, "stepName", stepName) }

// NewReasoningMessageStart returns a REASONING_MESSAGE_START event.
func NewReasoningMessageStart(messageID string) Event {
	return build(ReasoningMessageStart, "messageId", messageID, "role", "reasoning")
}

// NewReasoningMessageContent returns a REASONING_MESSAGE_CONTENT event.
func NewReasoningMessageContent(messageID, delta string) Event {
	return build(ReasoningMessageContent, "messageId", messageID, "delta", delta)
}

// NewReasoningMessageEnd returns a REASONING_MESSAGE_END event.
func NewReasoningMessageEnd(messageID string) Event {
	return build(ReasoningMessageEnd, "messageId", messageID)
}

// NewStateSnapshot returns a STATE_SNAPSHOT event; snapshot is encoded with
// encoding/json (a json.RawMessage is written as is).
func NewStateSnapshot(snapshot any) Event { return NewEvent(StateSnapshot, "snapshot", snapshot) }

// NewStateDelta returns a STATE_DELTA event; ops is a JSON Patch (RFC 6902)
// operation list, encoded with encoding/json.
func NewStateDelta(ops any) Event { return NewEvent(StateDelta, "delta", ops) }

// NewCustom returns a CUSTOM event.
func NewCustom(name string, value any) Event { return NewEvent(Custom, "name", name, "value", value) }
