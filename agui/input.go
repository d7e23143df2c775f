package agui

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// RunAgentInput is the body of a request to run an agent, as defined by
// @ag-ui/core 1.0.0. It also appears as RUN_STARTED's "input".
//
// Encoding follows what the reference client sends and its schema accepts:
// nil Messages, Tools and Context encode as [], never null; nil (or null)
// State and ForwardedProps encode as {}, the reference client's defaults
// (the schema rejects a null forwardedProps, and some agent SDKs require
// both keys); ProtocolVersion, ParentRunID and Resume are omitted when
// empty. Decoding ignores unknown fields.
type RunAgentInput struct {
	ThreadID        string          `json:"threadId"`
	RunID           string          `json:"runId"`
	ProtocolVersion string          `json:"protocolVersion,omitempty"`
	ParentRunID     string          `json:"parentRunId,omitempty"`
	State           json.RawMessage `json:"state"`
	Messages        []Message       `json:"messages"`
	Tools           []Tool          `json:"tools"`
	Context         []Context       `json:"context"`
	ForwardedProps  json.RawMessage `json:"forwardedProps"`
	Resume          []ResumeEntry   `json:"resume,omitempty"`
}

// MarshalJSON encodes the input with empty lists as [] and absent state and
// forwarded properties as {}.
func (in RunAgentInput) MarshalJSON() ([]byte, error) {
	type plain RunAgentInput // without this method
	p := plain(in)
	if p.Messages == nil {
		p.Messages = []Message{}
	}
	if p.Tools == nil {
		p.Tools = []Tool{}
	}
	if p.Context == nil {
		p.Context = []Context{}
	}
	p.State = objectOrEmpty(p.State)
	p.ForwardedProps = objectOrEmpty(p.ForwardedProps)
	return json.Marshal(p)
}

func objectOrEmpty(v json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(v); len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}")
	}
	return v
}

// Tool declares a tool the client can execute (a frontend tool).
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the JSON Schema of the arguments; omitted when nil.
	Parameters json.RawMessage `json:"parameters,omitempty"`
	// Metadata is a JSON object; omitted when nil.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// Context is a named piece of ambient information given to the agent.
type Context struct {
	Description string `json:"description"`
	Value       string `json:"value"`
}

// ResumeEntry answers one interrupt that ended a previous run.
type ResumeEntry struct {
	InterruptID string `json:"interruptId"`
	// Status is "resolved" or "cancelled".
	Status   string          `json:"status"`
	Payload  json.RawMessage `json:"payload,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// Role is a message's role, the discriminator of the Message union.
type Role string

// The message roles of @ag-ui/core 1.0.0.
const (
	RoleDeveloper Role = "developer"
	RoleSystem    Role = "system"
	RoleAssistant Role = "assistant"
	RoleUser      Role = "user"
	RoleTool      Role = "tool"
	RoleActivity  Role = "activity"
	RoleReasoning Role = "reasoning"
)

// Message is one message of a conversation: the union of the seven message
// kinds of @ag-ui/core 1.0.0, discriminated by Role. Fields a role does not
// have stay empty. On encoding, the fields the role requires are always
// written (content, toolCallId for tool, activityType for activity) and
// optional ones only when set; an assistant message's empty content and
// empty toolCalls are omitted.
type Message struct {
	ID   string
	Role Role
	// Content is the text, or for user and tool messages text or parts.
	Content Content
	// Activity is the content object of an activity message; nil encodes
	// as {}.
	Activity json.RawMessage
	// ActivityType is the kind of an activity message.
	ActivityType string
	// Name is an optional display name (developer, system, assistant, user).
	Name string
	// ToolCalls are an assistant message's tool calls.
	ToolCalls []ToolCall
	// ToolCallID is the call a tool message answers.
	ToolCallID string
	// Error says why the tool failed (tool messages).
	Error string
	// EncryptedValue is a provider's opaque artefact.
	EncryptedValue string
	// SubagentRunID names the subagent invocation the message belongs to.
	SubagentRunID string
	// Metadata is a JSON object; omitted when nil.
	Metadata json.RawMessage
}

// Content is a message's content: plain text, or an ordered list of parts
// when Parts is not nil.
type Content struct {
	Text  string
	Parts []ContentPart
}

// TextContent returns content holding text.
func TextContent(text string) Content { return Content{Text: text} }

// PartsContent returns content made of parts. With no parts it is still a
// parts list, encoded as [].
func PartsContent(parts ...ContentPart) Content {
	if parts == nil {
		parts = []ContentPart{}
	}
	return Content{Parts: parts}
}

// IsParts reports whether the content is a list of parts.
func (c Content) IsParts() bool { return c.Parts != nil }

// MarshalJSON encodes the content as a string, or as an array of parts.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Parts != nil {
		return json.Marshal(c.Parts)
	}
	return json.Marshal(c.Text)
}

// UnmarshalJSON accepts a string or an array of parts.
func (c *Content) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) > 0 && data[0] == '[':
		var parts []ContentPart
		if err := json.Unmarshal(data, &parts); err != nil {
			return err
		}
		if parts == nil {
			parts = []ContentPart{}
		}
		*c = Content{Parts: parts}
		return nil
	case string(data) == "null":
		*c = Content{}
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("message content is neither a string nor an array of parts: %w", err)
	}
	*c = Content{Text: s}
	return nil
}

// ContentPart is one part of a multimodal message: Type "text" carries
// Text; "image", "audio", "video" and "document" carry a Source.
type ContentPart struct {
	Type     string
	ID       string
	Text     string
	Source   *PartSource
	Metadata json.RawMessage
	// Raw is a part of a type the fields above do not describe, as it
	// came: a legacy "binary" part ({"type":"binary","mimeType",...,"url"
	// or "data"}), or a type of a later protocol version. MarshalJSON
	// writes it back whole, as HttpAgent keeps such a part in the history
	// it holds (its compatibility layer converts a binary part only in the
	// request it sends).
	Raw json.RawMessage
}

// TextPart returns a text part.
func TextPart(text string) ContentPart { return ContentPart{Type: "text", Text: text} }

// MarshalJSON writes Raw when it is set; otherwise text for text parts
// (even when empty) and source for media parts.
func (p ContentPart) MarshalJSON() ([]byte, error) {
	if len(p.Raw) > 0 {
		return p.Raw, nil
	}
	var o jsonObject
	o.str("type", p.Type)
	o.optStr("id", p.ID)
	if p.Type == "text" {
		o.str("text", p.Text)
	} else {
		o.optStr("text", p.Text)
	}
	if p.Source != nil {
		o.value("source", p.Source)
	}
	o.optRaw("metadata", p.Metadata)
	return o.finish()
}

// UnmarshalJSON decodes a part, ignoring unknown fields.
func (p *ContentPart) UnmarshalJSON(data []byte) error {
	var v struct {
		Type     string          `json:"type"`
		ID       string          `json:"id"`
		Text     string          `json:"text"`
		Source   *PartSource     `json:"source"`
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*p = ContentPart{Type: v.Type, ID: v.ID, Text: v.Text, Source: v.Source, Metadata: v.Metadata}
	switch v.Type {
	case "text", "image", "audio", "video", "document":
	default:
		p.Raw = append(json.RawMessage(nil), bytes.TrimSpace(data)...)
	}
	return nil
}

// PartSource says where a media part's bytes are: Type "data" (Value is
// base64, MimeType required), "url" (Value is a URL) or "file" (Value is a
// provider's handle, Provider optionally names it).
type PartSource struct {
	Type     string
	Value    string
	MimeType string
	Provider string
}

// MarshalJSON writes mimeType always for data sources, and otherwise only
// when set.
func (s PartSource) MarshalJSON() ([]byte, error) {
	var o jsonObject
	o.str("type", s.Type)
	o.str("value", s.Value)
	if s.Type == "data" {
		o.str("mimeType", s.MimeType)
	} else {
		o.optStr("mimeType", s.MimeType)
	}
	o.optStr("provider", s.Provider)
	return o.finish()
}

// UnmarshalJSON decodes a source, ignoring unknown fields.
func (s *PartSource) UnmarshalJSON(data []byte) error {
	var v struct {
		Type     string `json:"type"`
		Value    string `json:"value"`
		MimeType string `json:"mimeType"`
		Provider string `json:"provider"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*s = PartSource(v)
	return nil
}

// ToolCall is a call an assistant message made.
type ToolCall struct {
	ID string `json:"id"`
	// Type is always "function"; empty encodes as "function".
	Type           string          `json:"type"`
	Function       FunctionCall    `json:"function"`
	EncryptedValue string          `json:"encryptedValue,omitempty"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
}

// MarshalJSON fills in the type "function" when it is empty.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	if c.Type == "" {
		c.Type = "function"
	}
	return json.Marshal(plain(c))
}

// FunctionCall is the name and arguments of a tool call. Arguments is JSON
// text, kept as written even when it is not valid JSON.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// NewToolCall returns a function call with its arguments as JSON text.
func NewToolCall(id, name, arguments string) ToolCall {
	return ToolCall{ID: id, Type: "function", Function: FunctionCall{Name: name, Arguments: arguments}}
}

// UserMessage returns a user message holding text.
func UserMessage(id, text string) Message {
	return Message{ID: id, Role: RoleUser, Content: TextContent(text)}
}

// AssistantMessage returns an assistant message with text (may be empty)
// and tool calls.
func AssistantMessage(id, text string, calls ...ToolCall) Message {
	return Message{ID: id, Role: RoleAssistant, Content: TextContent(text), ToolCalls: calls}
}

// ToolMessage returns the tool message answering a call with text.
func ToolMessage(id, toolCallID, content string) Message {
	return Message{ID: id, Role: RoleTool, ToolCallID: toolCallID, Content: TextContent(content)}
}

// SystemMessage returns a system message.
func SystemMessage(id, text string) Message {
	return Message{ID: id, Role: RoleSystem, Content: TextContent(text)}
}

// DeveloperMessage returns a developer message.
func DeveloperMessage(id, text string) Message {
	return Message{ID: id, Role: RoleDeveloper, Content: TextContent(text)}
}

// MarshalJSON encodes the message with the fields its role defines. Parts
// content on a role that only takes text is an error.
func (m Message) MarshalJSON() ([]byte, error) {
	var o jsonObject
	o.str("id", m.ID)
	o.str("role", string(m.Role))
	switch m.Role {
	case RoleDeveloper, RoleSystem, RoleReasoning, RoleAssistant:
		if m.Content.IsParts() {
			return nil, fmt.Errorf("agui: %s message %q: content must be text, not parts", m.Role, m.ID)
		}
		if m.Role != RoleAssistant || m.Content.Text != "" {
			o.str("content", m.Content.Text)
		}
	case RoleActivity:
		o.str("activityType", m.ActivityType)
		if len(m.Activity) == 0 {
			o.rawValue("content", json.RawMessage("{}"))
		} else {
			o.rawValue("content", m.Activity)
		}
	case RoleTool:
		o.str("toolCallId", m.ToolCallID)
		o.value("content", m.Content)
	default: // user, and roles this version does not know
		if len(m.Activity) > 0 {
			o.rawValue("content", m.Activity)
		} else {
			o.value("content", m.Content)
		}
	}
	if m.Role != RoleActivity {
		o.optStr("activityType", m.ActivityType)
	}
	if m.Role != RoleTool {
		o.optStr("toolCallId", m.ToolCallID)
	}
	o.optStr("name", m.Name)
	if len(m.ToolCalls) > 0 {
		o.value("toolCalls", m.ToolCalls)
	}
	o.optStr("error", m.Error)
	o.optStr("encryptedValue", m.EncryptedValue)
	o.optStr("subagentRunId", m.SubagentRunID)
	o.optRaw("metadata", m.Metadata)
	return o.finish()
}

// UnmarshalJSON decodes any message kind, ignoring unknown fields. Object
// content goes to Activity.
func (m *Message) UnmarshalJSON(data []byte) error {
	var v struct {
		ID             string          `json:"id"`
		Role           Role            `json:"role"`
		Content        json.RawMessage `json:"content"`
		ActivityType   string          `json:"activityType"`
		Name           string          `json:"name"`
		ToolCalls      []ToolCall      `json:"toolCalls"`
		ToolCallID     string          `json:"toolCallId"`
		Error          string          `json:"error"`
		EncryptedValue string          `json:"encryptedValue"`
		SubagentRunID  string          `json:"subagentRunId"`
		Metadata       json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*m = Message{
		ID: v.ID, Role: v.Role, ActivityType: v.ActivityType, Name: v.Name,
		ToolCalls: v.ToolCalls, ToolCallID: v.ToolCallID, Error: v.Error,
		EncryptedValue: v.EncryptedValue, SubagentRunID: v.SubagentRunID,
		Metadata: v.Metadata,
	}
	if c := bytes.TrimSpace(v.Content); len(c) > 0 && c[0] == '{' {
		m.Activity = v.Content
		return nil
	}
	if len(v.Content) > 0 {
		if err := m.Content.UnmarshalJSON(v.Content); err != nil {
			return fmt.Errorf("message %q: %w", v.ID, err)
		}
	}
	return nil
}

// jsonObject writes a JSON object member by member, in order.
type jsonObject struct {
	b   []byte
	err error
}

func (o *jsonObject) key(k string) {
	if len(o.b) == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.b = appendQuoted(o.b, k)
	o.b = append(o.b, ':')
}

func (o *jsonObject) str(k, v string) {
	o.key(k)
	o.b = appendQuoted(o.b, v)
}

func (o *jsonObject) optStr(k, v string) {
	if v != "" {
		o.str(k, v)
	}
}

func (o *jsonObject) value(k string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		if o.err == nil {
			o.err = err
		}
		return
	}
	o.key(k)
	o.b = append(o.b, b...)
}

func (o *jsonObject) rawValue(k string, v json.RawMessage) { o.value(k, v) }

func (o *jsonObject) optRaw(k string, v json.RawMessage) {
	if len(v) > 0 {
		o.value(k, v)
	}
}

func (o *jsonObject) finish() ([]byte, error) {
	if o.err != nil {
		return nil, o.err
	}
	if len(o.b) == 0 {
		return []byte("{}"), nil
	}
	return append(o.b, '}'), nil
}
