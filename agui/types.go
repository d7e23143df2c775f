package agui

// EventType names an AG-UI event, as carried in the event's "type" field.
type EventType string

// The 31 event types of @ag-ui/core 1.0.0.
const (
	TextMessageStart        EventType = "TEXT_MESSAGE_START"
	TextMessageContent      EventType = "TEXT_MESSAGE_CONTENT"
	TextMessageEnd          EventType = "TEXT_MESSAGE_END"
	TextMessageChunk        EventType = "TEXT_MESSAGE_CHUNK"
	ToolCallStart           EventType = "TOOL_CALL_START"
	ToolCallArgs            EventType = "TOOL_CALL_ARGS"
	ToolCallEnd             EventType = "TOOL_CALL_END"
	ToolCallChunk           EventType = "TOOL_CALL_CHUNK"
	ToolCallResult          EventType = "TOOL_CALL_RESULT"
	StateSnapshot           EventType = "STATE_SNAPSHOT"
	StateDelta              EventType = "STATE_DELTA"
	MessagesSnapshot        EventType = "MESSAGES_SNAPSHOT"
	ActivitySnapshot        EventType = "ACTIVITY_SNAPSHOT"
	ActivityDelta           EventType = "ACTIVITY_DELTA"
	Raw                     EventType = "RAW"
	Custom                  EventType = "CUSTOM"
	RunStarted              EventType = "RUN_STARTED"
	RunFinished             EventType = "RUN_FINISHED"
	RunError                EventType = "RUN_ERROR"
	StepStarted             EventType = "STEP_STARTED"
	StepFinished            EventType = "STEP_FINISHED"
	ReasoningStart          EventType = "REASONING_START"
	ReasoningMessageStart   EventType = "REASONING_MESSAGE_START"
	ReasoningMessageContent EventType = "REASONING_MESSAGE_CONTENT"
	ReasoningMessageEnd     EventType = "REASONING_MESSAGE_END"
	ReasoningMessageChunk   EventType = "REASONING_MESSAGE_CHUNK"
	ReasoningEnd            EventType = "REASONING_END"
	ReasoningEncryptedValue EventType = "REASONING_ENCRYPTED_VALUE"
	SubagentStarted         EventType = "SUBAGENT_STARTED"
	SubagentFinished        EventType = "SUBAGENT_FINISHED"
	SubagentError           EventType = "SUBAGENT_ERROR"
)

// Legacy event types, removed from @ag-ui/core in 1.0.0 (replaced by the
// REASONING_* family). They are still accepted on input: the reference
// verifier lets them through untouched, and so do we.
const (
	ThinkingStart              EventType = "THINKING_START"
	ThinkingEnd                EventType = "THINKING_END"
	ThinkingTextMessageStart   EventType = "THINKING_TEXT_MESSAGE_START"
	ThinkingTextMessageContent EventType = "THINKING_TEXT_MESSAGE_CONTENT"
	ThinkingTextMessageEnd     EventType = "THINKING_TEXT_MESSAGE_END"
)

// EventTypes lists the 31 event types of @ag-ui/core 1.0.0 in the order of
// its EventType enum.
var EventTypes = []EventType{
	TextMessageStart, TextMessageContent, TextMessageEnd, TextMessageChunk,
	ToolCallStart, ToolCallArgs, ToolCallEnd, ToolCallChunk, ToolCallResult,
	StateSnapshot, StateDelta, MessagesSnapshot, ActivitySnapshot, ActivityDelta,
	Raw, Custom, RunStarted, RunFinished, RunError, StepStarted, StepFinished,
	ReasoningStart, ReasoningMessageStart, ReasoningMessageContent,
	ReasoningMessageEnd, ReasoningMessageChunk, ReasoningEnd,
	ReasoningEncryptedValue, SubagentStarted, SubagentFinished, SubagentError,
}

// LegacyEventTypes lists the THINKING_* types removed in @ag-ui/core 1.0.0.
var LegacyEventTypes = []EventType{
	ThinkingStart, ThinkingEnd, ThinkingTextMessageStart,
	ThinkingTextMessageContent, ThinkingTextMessageEnd,
}

// Known reports whether t is one of the 31 event types of @ag-ui/core 1.0.0.
func (t EventType) Known() bool { return internType([]byte(t)) != "" }

// Legacy reports whether t is one of the removed THINKING_* types.
func (t EventType) Legacy() bool {
	switch t {
	case ThinkingStart, ThinkingEnd, ThinkingTextMessageStart,
		ThinkingTextMessageContent, ThinkingTextMessageEnd:
		return true
	}
	return false
}

// internType returns the constant for a known type name without allocating,
// or "" when the name is not one of the 31.
func internType(b []byte) EventType {
	switch string(b) {
	case "TEXT_MESSAGE_START":
		return TextMessageStart
	case "TEXT_MESSAGE_CONTENT":
		return TextMessageContent
	case "TEXT_MESSAGE_END":
		return TextMessageEnd
	case "TEXT_MESSAGE_CHUNK":
		return TextMessageChunk
	case "TOOL_CALL_START":
		return ToolCallStart
	case "TOOL_CALL_ARGS":
		return ToolCallArgs
	case "TOOL_CALL_END":
		return ToolCallEnd
	case "TOOL_CALL_CHUNK":
		return ToolCallChunk
	case "TOOL_CALL_RESULT":
		return ToolCallResult
	case "STATE_SNAPSHOT":
		return StateSnapshot
	case "STATE_DELTA":
		return StateDelta
	case "MESSAGES_SNAPSHOT":
		return MessagesSnapshot
	case "ACTIVITY_SNAPSHOT":
		return ActivitySnapshot
	case "ACTIVITY_DELTA":
		return ActivityDelta
	case "RAW":
		return Raw
	case "CUSTOM":
		return Custom
	case "RUN_STARTED":
		return RunStarted
	case "RUN_FINISHED":
		return RunFinished
	case "RUN_ERROR":
		return RunError
	case "STEP_STARTED":
		return StepStarted
	case "STEP_FINISHED":
		return StepFinished
	case "REASONING_START":
		return ReasoningStart
	case "REASONING_MESSAGE_START":
		return ReasoningMessageStart
	case "REASONING_MESSAGE_CONTENT":
		return ReasoningMessageContent
	case "REASONING_MESSAGE_END":
		return ReasoningMessageEnd
	case "REASONING_MESSAGE_CHUNK":
		return ReasoningMessageChunk
	case "REASONING_END":
		return ReasoningEnd
	case "REASONING_ENCRYPTED_VALUE":
		return ReasoningEncryptedValue
	case "SUBAGENT_STARTED":
		return SubagentStarted
	case "SUBAGENT_FINISHED":
		return SubagentFinished
	case "SUBAGENT_ERROR":
		return SubagentError
	}
	return ""
}
