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
func (t EventType) Known() bool { _, c := internType([]byte(t)); return c != 0 }

// Legacy reports whether t is one of the removed THINKING_* types.
func (t EventType) Legacy() bool {
	switch t {
	case ThinkingStart, ThinkingEnd, ThinkingTextMessageStart,
		ThinkingTextMessageContent, ThinkingTextMessageEnd:
		return true
	}
	return false
}

// typeCode numbers the 31 known types in the order of EventTypes, from 1;
// 0 stands for any other type. The verifier switches on it rather than on
// the type's name.
type typeCode uint8

const (
	cTextMessageStart typeCode = iota + 1
	cTextMessageContent
	cTextMessageEnd
	cTextMessageChunk
	cToolCallStart
	cToolCallArgs
	cToolCallEnd
	cToolCallChunk
	cToolCallResult
	cStateSnapshot
	cStateDelta
	cMessagesSnapshot
	cActivitySnapshot
	cActivityDelta
	cRaw
	cCustom
	cRunStarted
	cRunFinished
	cRunError
	cStepStarted
	cStepFinished
	cReasoningStart
	cReasoningMessageStart
	cReasoningMessageContent
	cReasoningMessageEnd
	cReasoningMessageChunk
	cReasoningEnd
	cReasoningEncryptedValue
	cSubagentStarted
	cSubagentFinished
	cSubagentError
)

// codeOf returns the code of a known type, or 0.
func codeOf(t EventType) typeCode { _, c := internType([]byte(t)); return c }

// internType returns the constant for a known type name without allocating,
// or "" when the name is not one of the 31.
func internType(b []byte) (EventType, typeCode) {
	switch string(b) {
	case "TEXT_MESSAGE_START":
		return TextMessageStart, cTextMessageStart
	case "TEXT_MESSAGE_CONTENT":
		return TextMessageContent, cTextMessageContent
	case "TEXT_MESSAGE_END":
		return TextMessageEnd, cTextMessageEnd
	case "TEXT_MESSAGE_CHUNK":
		return TextMessageChunk, cTextMessageChunk
	case "TOOL_CALL_START":
		return ToolCallStart, cToolCallStart
	case "TOOL_CALL_ARGS":
		return ToolCallArgs, cToolCallArgs
	case "TOOL_CALL_END":
		return ToolCallEnd, cToolCallEnd
	case "TOOL_CALL_CHUNK":
		return ToolCallChunk, cToolCallChunk
	case "TOOL_CALL_RESULT":
		return ToolCallResult, cToolCallResult
	case "STATE_SNAPSHOT":
		return StateSnapshot, cStateSnapshot
	case "STATE_DELTA":
		return StateDelta, cStateDelta
	case "MESSAGES_SNAPSHOT":
		return MessagesSnapshot, cMessagesSnapshot
	case "ACTIVITY_SNAPSHOT":
		return ActivitySnapshot, cActivitySnapshot
	case "ACTIVITY_DELTA":
		return ActivityDelta, cActivityDelta
	case "RAW":
		return Raw, cRaw
	case "CUSTOM":
		return Custom, cCustom
	case "RUN_STARTED":
		return RunStarted, cRunStarted
	case "RUN_FINISHED":
		return RunFinished, cRunFinished
	case "RUN_ERROR":
		return RunError, cRunError
	case "STEP_STARTED":
		return StepStarted, cStepStarted
	case "STEP_FINISHED":
		return StepFinished, cStepFinished
	case "REASONING_START":
		return ReasoningStart, cReasoningStart
	case "REASONING_MESSAGE_START":
		return ReasoningMessageStart, cReasoningMessageStart
	case "REASONING_MESSAGE_CONTENT":
		return ReasoningMessageContent, cReasoningMessageContent
	case "REASONING_MESSAGE_END":
		return ReasoningMessageEnd, cReasoningMessageEnd
	case "REASONING_MESSAGE_CHUNK":
		return ReasoningMessageChunk, cReasoningMessageChunk
	case "REASONING_END":
		return ReasoningEnd, cReasoningEnd
	case "REASONING_ENCRYPTED_VALUE":
		return ReasoningEncryptedValue, cReasoningEncryptedValue
	case "SUBAGENT_STARTED":
		return SubagentStarted, cSubagentStarted
	case "SUBAGENT_FINISHED":
		return SubagentFinished, cSubagentFinished
	case "SUBAGENT_ERROR":
		return SubagentError, cSubagentError
	}
	return "", 0
}
