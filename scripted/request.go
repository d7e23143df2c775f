package scripted

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// A Request is what an agent asks the model, in one neutral form whatever
// the wire: the conversation so far and the tools it offers. A Go agent
// fills it; the [Server] reads it from the request body of each wire, so
// that an [Expect] and a test's checks read the same on every wire.
type Request struct {
	// Wire is the wire the request came on; "" for the Go-native model.
	Wire Wire
	// Model is the model asked for (from the body, or from the path on
	// Gemini).
	Model string
	// System is the system prompt: the text of the system and developer
	// messages (Chat Completions, Responses), "instructions" (Responses),
	// "system" (Anthropic) or "systemInstruction" (Gemini), joined by blank
	// lines. On the wires that carry it outside the messages, it is also
	// the first of Messages, with the role "system", so that messages are
	// counted alike on every wire.
	System string
	// Messages is the conversation: system, user, assistant (text, its
	// reasoning and its tool calls) and tool messages (one per tool
	// result, whatever the wire groups them in).
	Messages []Message
	// Tools are the tools offered.
	Tools []Tool
	// Stream and IncludeUsage mirror "stream" and
	// "stream_options.include_usage" (Gemini: the streamGenerateContent
	// method). The Go-native stream ignores them.
	Stream       bool
	IncludeUsage bool
	// Options holds the body's other top-level fields as sent
	// (temperature, max_tokens, thinking, tool_choice, generationConfig, ...).
	Options map[string]json.RawMessage
	// Body is the raw request body, when the request came over HTTP.
	Body json.RawMessage
	// Error says why the server refused the request as the provider
	// would (a 400 with the provider's own error text), or is empty.
	Error string
	// Generated are the calls a turn with Generate made for this request,
	// from the tools it declares, with their ids; nil for other turns.
	Generated []Call
	// Turn is the turn that answered the request, counted from 1; 0 when
	// none did (the request was refused, came after the last turn, failed
	// its turn's Expect, or asked for what its wire cannot express). A
	// turn with a Fault answers each request it meets. It is not written
	// by MarshalJSON.
	Turn int
}

// A Message is one message of the conversation.
type Message struct {
	// Role is system, developer, user, assistant or tool.
	Role string
	// Content is the text; for content given as parts or blocks, the
	// text parts joined.
	Content string
	// Reasoning is the reasoning an assistant message carries back
	// (Anthropic thinking, Responses reasoning summaries, Gemini
	// thoughts).
	Reasoning string
	// ToolCallID is the call a tool message answers.
	ToolCallID string
	// Name is the tool's name of a tool message, when the wire says it
	// (Gemini's functionResponse).
	Name string
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

// requestJSON is the JSON shape of a Request (see MarshalJSON).
type requestJSON struct {
	Wire         Wire                       `json:"wire,omitempty"`
	Model        string                     `json:"model,omitempty"`
	System       string                     `json:"system,omitempty"`
	Messages     []messageJSON              `json:"messages"`
	Tools        []toolJSON                 `json:"tools,omitempty"`
	Stream       bool                       `json:"stream,omitempty"`
	IncludeUsage bool                       `json:"include_usage,omitempty"`
	Options      map[string]json.RawMessage `json:"options,omitempty"`
	Error        string                     `json:"error,omitempty"`
	Generated    []callJSON                 `json:"generated,omitempty"`
	Raw          json.RawMessage            `json:"raw,omitempty"`
	RawText      string                     `json:"raw_text,omitempty"`
}

type messageJSON struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	Reasoning  string     `json:"reasoning,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
	Calls      []callJSON `json:"calls,omitempty"`
}

type callJSON struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	Args string `json:"args"`
}

type toolJSON struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// MarshalJSON writes the request as one JSON object: "wire", "model",
// "system", "messages" (role, content, reasoning, tool_call_id, name,
// calls with id, name and args), "tools", "stream", "options", "error",
// the calls generated for it ("generated"), and the body as "raw" (or
// "raw_text" when it is not JSON). This is the
// line "aguitest llm serve --requests" and [Model.LogRequests] write.
func (r Request) MarshalJSON() ([]byte, error) {
	j := requestJSON{Wire: r.Wire, Model: r.Model, System: r.System, Messages: []messageJSON{},
		Stream: r.Stream, IncludeUsage: r.IncludeUsage, Options: r.Options, Error: r.Error}
	for _, m := range r.Messages {
		mj := messageJSON{Role: m.Role, Content: m.Content, Reasoning: m.Reasoning, ToolCallID: m.ToolCallID, Name: m.Name}
		for _, c := range m.Calls {
			mj.Calls = append(mj.Calls, callJSON{c.ID, c.Name, c.Args})
		}
		j.Messages = append(j.Messages, mj)
	}
	for _, c := range r.Generated {
		j.Generated = append(j.Generated, callJSON{c.ID, c.Name, c.Args})
	}
	for _, t := range r.Tools {
		tj := toolJSON{Name: t.Name, Description: t.Description}
		if json.Valid(t.Parameters) {
			tj.Parameters = t.Parameters
		}
		j.Tools = append(j.Tools, tj)
	}
	if len(r.Body) > 0 {
		if json.Valid(r.Body) {
			j.Raw = r.Body
		} else {
			j.RawText = string(r.Body)
		}
	}
	return json.Marshal(j)
}

// Expect states what a request must contain for a turn to answer it. The
// zero Expect accepts any request.
type Expect struct {
	// Messages is the number of messages; 0 means any.
	Messages int `yaml:"messages,omitempty" json:"messages,omitempty"`
	// LastUser must occur in the content of the last user message.
	LastUser string `yaml:"last_user,omitempty" json:"last_user,omitempty"`
	// ToolResults are call ids each answered by a tool message. A default
	// id (call_<turn>_<n>) also matches its form on the request's wire
	// (toolu_<turn>_<n> on Anthropic).
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
		if !subsetFunc(e.ToolResults, ids, func(want, got string) bool { return sameCallID(req.Wire, want, got) }) {
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

// subsetFunc is subset with an equality of its own.
func subsetFunc(want, got []string, eq func(want, got string) bool) bool {
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return eq(w, g) }) {
			return false
		}
	}
	return true
}

func subset(want, got []string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}
