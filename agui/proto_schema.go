package agui

// The messages of @ag-ui/proto 1.0.0 (package ag_ui: events.proto,
// types.proto, patch.proto, and google/protobuf/struct.proto). The package
// ships no .proto files, only the code generated from them; this table was
// read from that code: each message's fields in declaration order (which
// is the order its decoder creates them in, and so the order of the JSON
// keys it produces), with their numbers and kinds.

type pbKind uint8

const (
	pbString pbKind = iota
	pbBool
	pbInt64 // a JavaScript number, within ±(2^53-1)
	pbEnum  // int32
	pbValue // google.protobuf.Value: any JSON value
	pbStruct
	pbMessage
)

type pbField struct {
	num  int
	name string
	kind pbKind
	msg  *pbMessageType // pbMessage
	// opt: proto3 optional (absent reads as undefined); a non-optional
	// scalar reads as its zero value when absent.
	opt bool
	rep bool
	// nullOK: JSON null is dropped before encoding (the field is optional
	// in @ag-ui/core's omitOptionalNulls); otherwise a Value field encodes
	// null as NULL_VALUE.
	nullOK bool
	// oneof: the field is an arm of the message's oneof.
	oneof bool
}

type pbMessageType struct {
	name   string
	fields []pbField
	byNum  map[int]*pbField
	byName map[string]*pbField
}

func pbMsg(name string, fields ...pbField) *pbMessageType {
	m := &pbMessageType{name: name, fields: fields, byNum: map[int]*pbField{}, byName: map[string]*pbField{}}
	for i := range m.fields {
		f := &m.fields[i]
		m.byNum[f.num] = f
		m.byName[f.name] = f
	}
	return m
}

func str(num int, name string) pbField { return pbField{num: num, name: name, kind: pbString} }
func optStr(num int, name string) pbField {
	return pbField{num: num, name: name, kind: pbString, opt: true, nullOK: true}
}
func repStr(num int, name string) pbField {
	return pbField{num: num, name: name, kind: pbString, rep: true}
}
func value(num int, name string, nullOK bool) pbField {
	return pbField{num: num, name: name, kind: pbValue, nullOK: nullOK}
}
func structField(num int, name string) pbField {
	return pbField{num: num, name: name, kind: pbStruct, nullOK: true}
}
func msgField(num int, name string, m *pbMessageType) pbField {
	return pbField{num: num, name: name, kind: pbMessage, msg: m, nullOK: true}
}
func repMsg(num int, name string, m *pbMessageType) pbField {
	return pbField{num: num, name: name, kind: pbMessage, msg: m, rep: true, nullOK: true}
}
func arm(num int, name string, m *pbMessageType) pbField {
	return pbField{num: num, name: name, kind: pbMessage, msg: m, oneof: true}
}
func optInt64(num int, name string) pbField {
	return pbField{num: num, name: name, kind: pbInt64, opt: true, nullOK: true}
}

var (
	pbBaseEvent = pbMsg("BaseEvent",
		pbField{num: 1, name: "type", kind: pbEnum},
		optInt64(2, "timestamp"),
		value(3, "rawEvent", true),
		structField(4, "metadata"),
	)

	pbUsage = pbMsg("Usage",
		optStr(1, "provider"), optStr(2, "model"),
		optInt64(3, "inputTokens"), optInt64(4, "outputTokens"), optInt64(5, "totalTokens"),
		optInt64(6, "reasoningTokens"), optInt64(7, "cachedInputTokens"), optInt64(8, "cacheWriteInputTokens"),
	)

	pbPatchOp = pbMsg("JsonPatchOperation",
		pbField{num: 1, name: "op", kind: pbEnum},
		str(2, "path"),
		optStr(3, "from"),
		value(4, "value", false),
	)

	pbDataSource = pbMsg("InputContentDataSource", str(1, "value"), str(2, "mimeType"))
	pbURLSource  = pbMsg("InputContentUrlSource", str(1, "value"), optStr(2, "mimeType"))
	pbFileSource = pbMsg("InputContentFileSource", str(1, "value"), optStr(2, "provider"), optStr(3, "mimeType"))
	pbSource     = pbMsg("InputContentSource",
		arm(1, "data", pbDataSource), arm(2, "url", pbURLSource), arm(3, "file", pbFileSource))

	pbTextPart  = pbMsg("TextInputPart", str(1, "text"), optStr(2, "id"), value(3, "metadata", true))
	pbMediaPart = func(name string) *pbMessageType {
		return pbMsg(name, msgField(1, "source", pbSource), value(2, "metadata", true), optStr(3, "id"))
	}
	pbInputContent = pbMsg("InputContent",
		arm(1, "text", pbTextPart),
		arm(2, "image", pbMediaPart("ImageInputPart")),
		arm(3, "audio", pbMediaPart("AudioInputPart")),
		arm(4, "video", pbMediaPart("VideoInputPart")),
		arm(5, "document", pbMediaPart("DocumentInputPart")),
	)

	pbFunction = pbMsg("ToolCall_Function", str(1, "name"), str(2, "arguments"))
	pbToolCall = pbMsg("ToolCall",
		str(1, "id"), str(2, "type"), msgField(3, "function", pbFunction),
		structField(4, "metadata"), optStr(5, "encryptedValue"))
	pbMessageMsg = pbMsg("Message",
		str(1, "id"), str(2, "role"), optStr(3, "content"), optStr(4, "name"),
		repMsg(5, "toolCalls", pbToolCall), optStr(6, "toolCallId"), optStr(7, "error"),
		repMsg(8, "contentParts", pbInputContent), structField(9, "metadata"),
		optStr(10, "subagentRunId"), optStr(11, "encryptedValue"), optStr(12, "activityType"),
		structField(13, "activityContent"),
	)
	pbTool = pbMsg("Tool",
		str(1, "name"), str(2, "description"), value(3, "parameters", true), structField(4, "metadata"))
	pbContext = pbMsg("Context", str(1, "description"), str(2, "value"))
	pbResume  = pbMsg("ResumeEntry",
		str(1, "interruptId"), str(2, "status"), value(3, "payload", true), structField(4, "metadata"))
	pbRunAgentInput = pbMsg("RunAgentInput",
		str(1, "threadId"), str(2, "runId"), optStr(3, "parentRunId"), value(4, "state", true),
		repMsg(5, "messages", pbMessageMsg), repMsg(6, "tools", pbTool), repMsg(7, "context", pbContext),
		value(8, "forwardedProps", true), repMsg(9, "resume", pbResume), optStr(10, "protocolVersion"),
	)
	pbInterrupt = pbMsg("Interrupt",
		str(1, "id"), str(2, "reason"), optStr(3, "message"), optStr(4, "toolCallId"),
		value(5, "responseSchema", true), optStr(6, "expiresAt"), value(7, "metadata", true),
		optStr(8, "subagentRunId"),
	)
)

// pbEvent makes an event message: field 1 is the BaseEvent.
func pbEvent(name string, fields ...pbField) *pbMessageType {
	return pbMsg(name, append([]pbField{msgField(1, "baseEvent", pbBaseEvent)}, fields...)...)
}

// pbArm is one arm of the Event envelope.
type pbArm struct {
	num int
	typ EventType
	msg *pbMessageType
}

// pbArms lists the envelope's arms; pbArms[i] has field number i+1, and
// the BaseEvent's type enum numbers them differently (pbEnumTypes).
var pbArms = []pbArm{
	{1, TextMessageStart, pbEvent("TextMessageStartEvent", str(2, "messageId"), optStr(3, "role"), optStr(4, "name"), optStr(5, "subagentRunId"))},
	{2, TextMessageContent, pbEvent("TextMessageContentEvent", str(2, "messageId"), str(3, "delta"), optStr(4, "subagentRunId"))},
	{3, TextMessageEnd, pbEvent("TextMessageEndEvent", str(2, "messageId"), optStr(3, "subagentRunId"))},
	{4, ToolCallStart, pbEvent("ToolCallStartEvent", str(2, "toolCallId"), str(3, "toolCallName"), optStr(4, "parentMessageId"), optStr(5, "subagentRunId"))},
	{5, ToolCallArgs, pbEvent("ToolCallArgsEvent", str(2, "toolCallId"), str(3, "delta"), optStr(4, "subagentRunId"))},
	{6, ToolCallEnd, pbEvent("ToolCallEndEvent", str(2, "toolCallId"), optStr(3, "subagentRunId"))},
	{7, StateSnapshot, pbEvent("StateSnapshotEvent", value(2, "snapshot", false), optStr(3, "subagentRunId"))},
	{8, StateDelta, pbEvent("StateDeltaEvent", repMsg(2, "delta", pbPatchOp), optStr(3, "subagentRunId"))},
	{9, MessagesSnapshot, pbEvent("MessagesSnapshotEvent", repMsg(2, "messages", pbMessageMsg))},
	{10, Raw, pbEvent("RawEvent", value(2, "event", false), optStr(3, "source"), optStr(4, "subagentRunId"))},
	{11, Custom, pbEvent("CustomEvent", str(2, "name"), value(3, "value", false), optStr(4, "subagentRunId"))},
	{12, RunStarted, pbEvent("RunStartedEvent", str(2, "threadId"), str(3, "runId"), optStr(4, "parentRunId"), msgField(5, "input", pbRunAgentInput), optStr(6, "protocolVersion"))},
	{13, RunFinished, pbEvent("RunFinishedEvent", str(2, "threadId"), str(3, "runId"), value(4, "result", true), str(5, "outcome"), repMsg(6, "interrupts", pbInterrupt), repMsg(7, "usage", pbUsage), repStr(8, "pendingToolCallIds"))},
	{14, RunError, pbEvent("RunErrorEvent", optStr(2, "code"), str(3, "message"), repMsg(4, "usage", pbUsage))},
	{15, StepStarted, pbEvent("StepStartedEvent", str(2, "stepName"), optStr(3, "subagentRunId"))},
	{16, StepFinished, pbEvent("StepFinishedEvent", str(2, "stepName"), optStr(3, "subagentRunId"))},
	{17, TextMessageChunk, pbEvent("TextMessageChunkEvent", optStr(2, "messageId"), optStr(3, "role"), optStr(4, "delta"), optStr(5, "name"), optStr(6, "subagentRunId"))},
	{18, ToolCallChunk, pbEvent("ToolCallChunkEvent", optStr(2, "toolCallId"), optStr(3, "toolCallName"), optStr(4, "parentMessageId"), optStr(5, "delta"), optStr(6, "subagentRunId"))},
	{19, SubagentStarted, pbEvent("SubagentStartedEvent", str(2, "subagentRunId"), str(3, "name"), optStr(4, "description"), optStr(5, "parentSubagentRunId"), optStr(6, "parentToolCallId"), optStr(7, "parentMessageId"))},
	{20, SubagentFinished, pbEvent("SubagentFinishedEvent", str(2, "subagentRunId"), value(3, "result", true), str(4, "outcome"), repStr(5, "interruptIds"))},
	{21, SubagentError, pbEvent("SubagentErrorEvent", str(2, "subagentRunId"), str(3, "message"), optStr(4, "code"))},
	{22, ToolCallResult, pbEvent("ToolCallResultEvent", optStr(2, "subagentRunId"), str(3, "messageId"), str(4, "toolCallId"), optStr(5, "content"), optStr(6, "role"), repMsg(7, "contentParts", pbInputContent))},
	{23, ActivitySnapshot, pbEvent("ActivitySnapshotEvent", optStr(2, "subagentRunId"), str(3, "messageId"), str(4, "activityType"), structField(5, "content"), pbField{num: 6, name: "replace", kind: pbBool, opt: true, nullOK: true})},
	{24, ActivityDelta, pbEvent("ActivityDeltaEvent", optStr(2, "subagentRunId"), str(3, "messageId"), str(4, "activityType"), repMsg(5, "patch", pbPatchOp))},
	{25, ReasoningStart, pbEvent("ReasoningStartEvent", optStr(2, "subagentRunId"), str(3, "messageId"))},
	{26, ReasoningMessageStart, pbEvent("ReasoningMessageStartEvent", optStr(2, "subagentRunId"), str(3, "messageId"), str(4, "role"))},
	{27, ReasoningMessageContent, pbEvent("ReasoningMessageContentEvent", optStr(2, "subagentRunId"), str(3, "messageId"), str(4, "delta"))},
	{28, ReasoningMessageEnd, pbEvent("ReasoningMessageEndEvent", optStr(2, "subagentRunId"), str(3, "messageId"))},
	{29, ReasoningMessageChunk, pbEvent("ReasoningMessageChunkEvent", optStr(2, "subagentRunId"), optStr(3, "messageId"), optStr(4, "delta"))},
	{30, ReasoningEnd, pbEvent("ReasoningEndEvent", optStr(2, "subagentRunId"), str(3, "messageId"))},
	{31, ReasoningEncryptedValue, pbEvent("ReasoningEncryptedValueEvent", optStr(2, "subagentRunId"), str(3, "subtype"), str(4, "entityId"), str(5, "encryptedValue"))},
}

// pbEnumTypes is the BaseEvent.type enum: value i names pbEnumTypes[i].
var pbEnumTypes = []EventType{
	TextMessageStart, TextMessageContent, TextMessageEnd, ToolCallStart, ToolCallArgs, ToolCallEnd,
	StateSnapshot, StateDelta, MessagesSnapshot, Raw, Custom, RunStarted, RunFinished, RunError,
	StepStarted, StepFinished, SubagentStarted, SubagentFinished, SubagentError, TextMessageChunk,
	ToolCallChunk, ToolCallResult, ActivitySnapshot, ActivityDelta, ReasoningStart,
	ReasoningMessageStart, ReasoningMessageContent, ReasoningMessageEnd, ReasoningMessageChunk,
	ReasoningEnd, ReasoningEncryptedValue,
}

// pbPatchOps is the JsonPatchOperationType enum.
var pbPatchOps = []string{"add", "remove", "replace", "move", "copy", "test"}

var (
	pbArmByType  = map[EventType]*pbArm{}
	pbEnumByType = map[EventType]int{}
)

func init() {
	for i := range pbArms {
		pbArmByType[pbArms[i].typ] = &pbArms[i]
	}
	for i, t := range pbEnumTypes {
		pbEnumByType[t] = i
	}
}
