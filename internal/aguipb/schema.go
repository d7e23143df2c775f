// Package aguipb is the protobuf wire form of AG-UI events, as
// @ag-ui/proto 1.0.0 encodes and decodes it: the message table, the
// decoder of a frame into the JSON object the reference decoder produces
// (with what that object cannot carry listed as losses), and the encoder of
// an event object. agui's ProtoEncoder, ProtoDecoder, MarshalProto and
// UnmarshalProto are the API over it; the fast path for flat events stays
// in agui, beside the event index it builds on.
package aguipb

// MaxSafeInt is JavaScript's Number.MAX_SAFE_INTEGER.
const MaxSafeInt = 9007199254740991

// A Loss is a place in an event that the other form cannot carry, as a
// JSON Pointer into the event's JSON, and what happens to it.
type Loss struct {
	Path   string
	Reason string
}

// The messages of @ag-ui/proto 1.0.0 (package ag_ui: events.proto,
// types.proto, patch.proto, and google/protobuf/struct.proto). The package
// ships no .proto files, only the code generated from them; this table was
// read from that code: each message's fields in declaration order (which
// is the order its decoder creates them in, and so the order of the JSON
// keys it produces), with their numbers and kinds.

// Kind is how a field's value is encoded on the wire and read back.
type Kind uint8

const (
	KindString Kind = iota
	KindBool
	KindInt64 // a JavaScript number, within ±(2^53-1)
	KindEnum  // int32
	KindValue // google.protobuf.Value: any JSON value
	KindStruct
	KindMessage
)

// Field is one field of a message: its number, its JSON name, its kind,
// and how an absent or null value reads.
type Field struct {
	Num  int
	Name string
	Kind Kind
	Msg  *MessageType // KindMessage
	// Opt: proto3 optional (absent reads as undefined); a non-optional
	// scalar reads as its zero value when absent.
	Opt bool
	Rep bool
	// NullOK: JSON null is dropped before encoding (the field is optional
	// in @ag-ui/core's omitOptionalNulls); otherwise a Value field encodes
	// null as NULL_VALUE.
	NullOK bool
	// Oneof: the field is an arm of the message's oneof.
	Oneof bool
}

// MessageType is a message's fields in declaration order, and indexed by
// number and by name.
type MessageType struct {
	Name   string
	Fields []Field
	ByNum  map[int]*Field
	ByName map[string]*Field
}

func pbMsg(name string, fields ...Field) *MessageType {
	m := &MessageType{Name: name, Fields: fields, ByNum: map[int]*Field{}, ByName: map[string]*Field{}}
	for i := range m.Fields {
		f := &m.Fields[i]
		m.ByNum[f.Num] = f
		m.ByName[f.Name] = f
	}
	return m
}

func str(num int, name string) Field { return Field{Num: num, Name: name, Kind: KindString} }
func optStr(num int, name string) Field {
	return Field{Num: num, Name: name, Kind: KindString, Opt: true, NullOK: true}
}
func repStr(num int, name string) Field {
	return Field{Num: num, Name: name, Kind: KindString, Rep: true}
}
func value(num int, name string, nullOK bool) Field {
	return Field{Num: num, Name: name, Kind: KindValue, NullOK: nullOK}
}
func structField(num int, name string) Field {
	return Field{Num: num, Name: name, Kind: KindStruct, NullOK: true}
}
func msgField(num int, name string, m *MessageType) Field {
	return Field{Num: num, Name: name, Kind: KindMessage, Msg: m, NullOK: true}
}
func repMsg(num int, name string, m *MessageType) Field {
	return Field{Num: num, Name: name, Kind: KindMessage, Msg: m, Rep: true, NullOK: true}
}
func arm(num int, name string, m *MessageType) Field {
	return Field{Num: num, Name: name, Kind: KindMessage, Msg: m, Oneof: true}
}
func optInt64(num int, name string) Field {
	return Field{Num: num, Name: name, Kind: KindInt64, Opt: true, NullOK: true}
}

var (
	pbBaseEvent = pbMsg("BaseEvent",
		Field{Num: 1, Name: "type", Kind: KindEnum},
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
		Field{Num: 1, Name: "op", Kind: KindEnum},
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
	pbMediaPart = func(name string) *MessageType {
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
func pbEvent(name string, fields ...Field) *MessageType {
	return pbMsg(name, append([]Field{msgField(1, "baseEvent", pbBaseEvent)}, fields...)...)
}

// Arm is one arm of the Event envelope.
type Arm struct {
	Num int
	Typ string
	Msg *MessageType
}

// Arms lists the envelope's arms; Arms[i] has field number i+1, and
// the BaseEvent's type enum numbers them differently (EnumTypes).
var Arms = []Arm{
	{1, "TEXT_MESSAGE_START", pbEvent("TextMessageStartEvent", str(2, "messageId"), optStr(3, "role"), optStr(4, "name"), optStr(5, "subagentRunId"))},
	{2, "TEXT_MESSAGE_CONTENT", pbEvent("TextMessageContentEvent", str(2, "messageId"), str(3, "delta"), optStr(4, "subagentRunId"))},
	{3, "TEXT_MESSAGE_END", pbEvent("TextMessageEndEvent", str(2, "messageId"), optStr(3, "subagentRunId"))},
	{4, "TOOL_CALL_START", pbEvent("ToolCallStartEvent", str(2, "toolCallId"), str(3, "toolCallName"), optStr(4, "parentMessageId"), optStr(5, "subagentRunId"))},
	{5, "TOOL_CALL_ARGS", pbEvent("ToolCallArgsEvent", str(2, "toolCallId"), str(3, "delta"), optStr(4, "subagentRunId"))},
	{6, "TOOL_CALL_END", pbEvent("ToolCallEndEvent", str(2, "toolCallId"), optStr(3, "subagentRunId"))},
	{7, "STATE_SNAPSHOT", pbEvent("StateSnapshotEvent", value(2, "snapshot", false), optStr(3, "subagentRunId"))},
	{8, "STATE_DELTA", pbEvent("StateDeltaEvent", repMsg(2, "delta", pbPatchOp), optStr(3, "subagentRunId"))},
	{9, "MESSAGES_SNAPSHOT", pbEvent("MessagesSnapshotEvent", repMsg(2, "messages", pbMessageMsg))},
	{10, "RAW", pbEvent("RawEvent", value(2, "event", false), optStr(3, "source"), optStr(4, "subagentRunId"))},
	{11, "CUSTOM", pbEvent("CustomEvent", str(2, "name"), value(3, "value", false), optStr(4, "subagentRunId"))},
	{12, "RUN_STARTED", pbEvent("RunStartedEvent", str(2, "threadId"), str(3, "runId"), optStr(4, "parentRunId"), msgField(5, "input", pbRunAgentInput), optStr(6, "protocolVersion"))},
	{13, "RUN_FINISHED", pbEvent("RunFinishedEvent", str(2, "threadId"), str(3, "runId"), value(4, "result", true), str(5, "outcome"), repMsg(6, "interrupts", pbInterrupt), repMsg(7, "usage", pbUsage), repStr(8, "pendingToolCallIds"))},
	{14, "RUN_ERROR", pbEvent("RunErrorEvent", optStr(2, "code"), str(3, "message"), repMsg(4, "usage", pbUsage))},
	{15, "STEP_STARTED", pbEvent("StepStartedEvent", str(2, "stepName"), optStr(3, "subagentRunId"))},
	{16, "STEP_FINISHED", pbEvent("StepFinishedEvent", str(2, "stepName"), optStr(3, "subagentRunId"))},
	{17, "TEXT_MESSAGE_CHUNK", pbEvent("TextMessageChunkEvent", optStr(2, "messageId"), optStr(3, "role"), optStr(4, "delta"), optStr(5, "name"), optStr(6, "subagentRunId"))},
	{18, "TOOL_CALL_CHUNK", pbEvent("ToolCallChunkEvent", optStr(2, "toolCallId"), optStr(3, "toolCallName"), optStr(4, "parentMessageId"), optStr(5, "delta"), optStr(6, "subagentRunId"))},
	{19, "SUBAGENT_STARTED", pbEvent("SubagentStartedEvent", str(2, "subagentRunId"), str(3, "name"), optStr(4, "description"), optStr(5, "parentSubagentRunId"), optStr(6, "parentToolCallId"), optStr(7, "parentMessageId"))},
	{20, "SUBAGENT_FINISHED", pbEvent("SubagentFinishedEvent", str(2, "subagentRunId"), value(3, "result", true), str(4, "outcome"), repStr(5, "interruptIds"))},
	{21, "SUBAGENT_ERROR", pbEvent("SubagentErrorEvent", str(2, "subagentRunId"), str(3, "message"), optStr(4, "code"))},
	{22, "TOOL_CALL_RESULT", pbEvent("ToolCallResultEvent", optStr(2, "subagentRunId"), str(3, "messageId"), str(4, "toolCallId"), optStr(5, "content"), optStr(6, "role"), repMsg(7, "contentParts", pbInputContent))},
	{23, "ACTIVITY_SNAPSHOT", pbEvent("ActivitySnapshotEvent", optStr(2, "subagentRunId"), str(3, "messageId"), str(4, "activityType"), structField(5, "content"), Field{Num: 6, Name: "replace", Kind: KindBool, Opt: true, NullOK: true})},
	{24, "ACTIVITY_DELTA", pbEvent("ActivityDeltaEvent", optStr(2, "subagentRunId"), str(3, "messageId"), str(4, "activityType"), repMsg(5, "patch", pbPatchOp))},
	{25, "REASONING_START", pbEvent("ReasoningStartEvent", optStr(2, "subagentRunId"), str(3, "messageId"))},
	{26, "REASONING_MESSAGE_START", pbEvent("ReasoningMessageStartEvent", optStr(2, "subagentRunId"), str(3, "messageId"), str(4, "role"))},
	{27, "REASONING_MESSAGE_CONTENT", pbEvent("ReasoningMessageContentEvent", optStr(2, "subagentRunId"), str(3, "messageId"), str(4, "delta"))},
	{28, "REASONING_MESSAGE_END", pbEvent("ReasoningMessageEndEvent", optStr(2, "subagentRunId"), str(3, "messageId"))},
	{29, "REASONING_MESSAGE_CHUNK", pbEvent("ReasoningMessageChunkEvent", optStr(2, "subagentRunId"), optStr(3, "messageId"), optStr(4, "delta"))},
	{30, "REASONING_END", pbEvent("ReasoningEndEvent", optStr(2, "subagentRunId"), str(3, "messageId"))},
	{31, "REASONING_ENCRYPTED_VALUE", pbEvent("ReasoningEncryptedValueEvent", optStr(2, "subagentRunId"), str(3, "subtype"), str(4, "entityId"), str(5, "encryptedValue"))},
}

// EnumTypes is the BaseEvent.type enum: value i names EnumTypes[i].
var EnumTypes = []string{
	"TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END",
	"STATE_SNAPSHOT", "STATE_DELTA", "MESSAGES_SNAPSHOT", "RAW", "CUSTOM", "RUN_STARTED", "RUN_FINISHED", "RUN_ERROR",
	"STEP_STARTED", "STEP_FINISHED", "SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR", "TEXT_MESSAGE_CHUNK",
	"TOOL_CALL_CHUNK", "TOOL_CALL_RESULT", "ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA", "REASONING_START",
	"REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END", "REASONING_MESSAGE_CHUNK",
	"REASONING_END", "REASONING_ENCRYPTED_VALUE",
}

// pbPatchOps is the JsonPatchOperationType enum.
var pbPatchOps = []string{"add", "remove", "replace", "move", "copy", "test"}

var (
	ArmByType  = map[string]*Arm{}
	EnumByType = map[string]int{}
)

func init() {
	for i := range Arms {
		ArmByType[Arms[i].Typ] = &Arms[i]
	}
	for i, t := range EnumTypes {
		EnumByType[t] = i
	}
}
