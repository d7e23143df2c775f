package scripted

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A Request is what an agent asks the model: the conversation so far and
// the tools it offers. A Go agent fills it; the [Server] decodes it from
// the OpenAI chat completions request body.
type Request struct {
	Model    string
	Messages []Message
	Tools    []Tool
	// Stream and IncludeUsage mirror "stream" and
	// "stream_options.include_usage". The Go-native stream ignores them.
	Stream       bool
	IncludeUsage bool
	// Body is the raw request body, when the request came over HTTP.
	Body json.RawMessage
}

// A Message is one message of the conversation.
type Message struct {
	// Role is system, developer, user, assistant or tool.
	Role string
	// Content is the text; for content given as parts, the text parts
	// joined.
	Content string
	// ToolCallID is the call a tool message answers.
	ToolCallID string
	// Calls are the tool calls of an assistant message.
	Calls []Call
}

// A Tool is a tool offered to the model.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON schema of the arguments, as sent.
	Parameters json.RawMessage
}

// Expect states what a request must contain for a turn to answer it. The
// zero Expect accepts any request.
type Expect struct {
	// Messages is the number of messages; 0 means any.
	Messages int `yaml:"messages,omitempty" json:"messages,omitempty"`
	// LastUser must occur in the content of the last user message.
	LastUser string `yaml:"last_user,omitempty" json:"last_user,omitempty"`
	// ToolResults are call ids each answered by a tool message.
	ToolResults []string `yaml:"tool_results,omitempty" json:"tool_results,omitempty"`
	// Tools are tool names that must be offered.
	Tools []string `yaml:"tools,omitempty" json:"tools,omitempty"`
}

func (e *Expect) isZero() bool {
	return e.Messages == 0 && e.LastUser == "" && len(e.ToolResults) == 0 && len(e.Tools) == 0
}

func (e *Expect) validate() error {
	if e.Messages < 0 {
		return fmt.Errorf("messages %d is negative", e.Messages)
	}
	return nil
}

// match returns nil if req meets e, or an error whose text has one line
// per field that does not match, "name: got X, want Y", named as in script
// files.
func (e *Expect) match(req *Request) error {
	if e.isZero() {
		return nil
	}
	var diffs []string
	if e.Messages != 0 && e.Messages != len(req.Messages) {
		diffs = append(diffs, fmt.Sprintf("messages: got %d, want %d", len(req.Messages), e.Messages))
	}
	if e.LastUser != "" {
		last, found := "", false
		for _, m := range slices.Backward(req.Messages) {
			if m.Role == "user" {
				last, found = m.Content, true
				break
			}
		}
		switch {
		case !found:
			diffs = append(diffs, fmt.Sprintf("last_user: got no user message, want one containing %q", e.LastUser))
		case !strings.Contains(last, e.LastUser):
			diffs = append(diffs, fmt.Sprintf("last_user: got %q, want one containing %q", last, e.LastUser))
		}
	}
	if len(e.ToolResults) > 0 {
		ids := []string{}
		for _, m := range req.Messages {
			if m.Role == "tool" {
				ids = append(ids, m.ToolCallID)
			}
		}
		if !subset(e.ToolResults, ids) {
			diffs = append(diffs, fmt.Sprintf("tool_results: got %s, want %s among them", jsonList(ids), jsonList(e.ToolResults)))
		}
	}
	if len(e.Tools) > 0 {
		names := []string{}
		for _, t := range req.Tools {
			names = append(names, t.Name)
		}
		if !subset(e.Tools, names) {
			diffs = append(diffs, fmt.Sprintf("tools: got %s, want %s among them", jsonList(names), jsonList(e.Tools)))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("the request does not match the turn's expect:\n\t%s", strings.Join(diffs, "\n\t"))
}

// jsonList writes a list of strings as JSON, as scripts write them.
func jsonList(ss []string) string {
	b, _ := json.Marshal(ss)
	return string(b)
}

func subset(want, got []string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}

// wireRequest is the part of an OpenAI chat completions request we read.
type wireRequest struct {
	Model         string        `json:"model"`
	Messages      []wireMessage `json:"messages"`
	Tools         []wireTool    `json:"tools"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// decodeRequest reads an OpenAI chat completions request body.
func decodeRequest(body []byte) (Request, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, fmt.Errorf("request body is not a valid chat completions request: %v", err)
	}
	if len(w.Messages) == 0 {
		return Request{}, errors.New("'messages' must be a non-empty array")
	}
	req := Request{Model: w.Model, Stream: w.Stream, Body: body}
	if w.StreamOptions != nil {
		req.IncludeUsage = w.StreamOptions.IncludeUsage
	}
	for i, m := range w.Messages {
		if m.Role == "" {
			return Request{}, fmt.Errorf("messages[%d]: 'role' is missing", i)
		}
		content, err := contentText(m.Content)
		if err != nil {
			return Request{}, fmt.Errorf("messages[%d].content: %v", i, err)
		}
		msg := Message{Role: m.Role, Content: content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			msg.Calls = append(msg.Calls, Call{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return req, nil
}

// contentText accepts a string, null, or an array of content parts.
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("want a string or an array of content parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}
