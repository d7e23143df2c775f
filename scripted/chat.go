package scripted

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/clock"
	"github.com/aguitest/aguitest/internal/llmwire"
)

// The OpenAI Chat Completions wire: POST …/chat/completions.
var chatWire = &wireSpec{
	wire: WireChat,
	decode: func(_ *Model, body []byte, _ *http.Request) (Request, any, *llmwire.Error) {
		req, err := decodeChat(body)
		return req, nil, err
	},
	check:    checkChat,
	encoder:  func(a *answer) streamEncoder { return newChatEncoder(a) },
	complete: completeChat,
	header: func(h http.Header, a *answer) {
		h.Set("X-Request-Id", "req_scripted_"+strconv.Itoa(a.turn))
	},
}

// chatRequest is the part of a chat completions request we read.
type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []chatMessage `json:"messages"`
	Tools         []chatTool    `json:"tools"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type chatMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	ToolCallID       string          `json:"tool_call_id"`
	Name             string          `json:"name"`
	ToolCalls        []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type chatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func badRequest(msg string) *llmwire.Error {
	return &llmwire.Error{Status: http.StatusBadRequest, Message: msg, Type: "invalid_request_error", Code: "invalid_request"}
}

// decodeChat reads a chat completions request body.
func decodeChat(body []byte) (Request, *llmwire.Error) {
	var w chatRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, badRequest(fmt.Sprintf("request body is not a valid chat completions request: %v", err))
	}
	if len(w.Messages) == 0 {
		return Request{}, badRequest("'messages' must be a non-empty array")
	}
	req := Request{Wire: WireChat, Model: w.Model, Stream: w.Stream, Body: body, Options: options(body, "model", "messages", "tools", "stream", "stream_options")}
	if w.StreamOptions != nil {
		req.IncludeUsage = w.StreamOptions.IncludeUsage
	}
	var system []string
	for i, m := range w.Messages {
		if m.Role == "" {
			return Request{}, badRequest(fmt.Sprintf("messages[%d]: 'role' is missing", i))
		}
		content, err := contentText(m.Content)
		if err != nil {
			return Request{}, badRequest(fmt.Sprintf("messages[%d].content: %v", i, err))
		}
		msg := Message{Role: m.Role, Content: content, Reasoning: m.ReasoningContent, ToolCallID: m.ToolCallID}
		if m.Role == "function" {
			msg.Name = m.Name
		}
		for _, tc := range m.ToolCalls {
			msg.Calls = append(msg.Calls, Call{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
		}
		if m.Role == "system" || m.Role == "developer" {
			system = append(system, content)
		}
		req.Messages = append(req.Messages, msg)
	}
	req.System = strings.Join(system, "\n\n")
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return req, nil
}

// options returns the top-level fields of body but those named.
func options(body []byte, read ...string) map[string]json.RawMessage {
	var all map[string]json.RawMessage
	if json.Unmarshal(body, &all) != nil {
		return nil
	}
	for _, k := range read {
		delete(all, k)
	}
	if len(all) == 0 {
		return nil
	}
	return all
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
		switch p.Type {
		case "text", "input_text", "output_text":
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// checkChat applies OpenAI's rules on a conversation's shape, with its
// error texts: known roles; a tool message answers a call of the assistant
// message before it (or follows another tool message answering it); every
// call of an assistant message is answered by the tool messages right
// after it.
func checkChat(req *Request) *llmwire.Error {
	invalid := func(msg, param, code string) *llmwire.Error {
		return &llmwire.Error{Status: http.StatusBadRequest, Message: msg, Type: "invalid_request_error", Param: param, Code: code}
	}
	ms := req.Messages
	for i, m := range ms {
		switch m.Role {
		case "system", "developer", "user", "assistant", "tool", "function":
		default:
			return invalid(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", m.Role),
				fmt.Sprintf("messages[%d].role", i), "invalid_value")
		}
	}
	// A tool message must follow the assistant message with the calls, or
	// another tool message after it.
	for i, m := range ms {
		if m.Role != "tool" {
			continue
		}
		j := i - 1
		for j >= 0 && ms[j].Role == "tool" {
			j--
		}
		if j < 0 || ms[j].Role != "assistant" || len(ms[j].Calls) == 0 {
			return invalid("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", fmt.Sprintf("messages.[%d].role", i), "")
		}
		found := false
		for _, c := range ms[j].Calls {
			found = found || c.ID == m.ToolCallID
		}
		if !found {
			return invalid(fmt.Sprintf("Invalid parameter: 'tool_call_id' of '%s' not found in 'tool_calls' of previous message.", m.ToolCallID), fmt.Sprintf("messages.[%d].tool_call_id", i), "")
		}
	}
	// Every call must be answered by the tool messages that follow.
	for i, m := range ms {
		if m.Role != "assistant" || len(m.Calls) == 0 {
			continue
		}
		answered := map[string]bool{}
		k := i + 1
		for ; k < len(ms) && ms[k].Role == "tool"; k++ {
			answered[ms[k].ToolCallID] = true
		}
		var missing []string
		for _, c := range m.Calls {
			if !answered[c.ID] {
				missing = append(missing, c.ID)
			}
		}
		if len(missing) > 0 {
			return invalid("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: "+strings.Join(missing, ", "),
				fmt.Sprintf("messages.[%d].role", k), "")
		}
	}
	return nil
}

// A chatEncoder writes the chunks of one answer as chat.completion.chunk
// server-sent events, appending to a reused buffer.
type chatEncoder struct {
	choices      []byte // `data: {...,"choices":[`
	head         []byte // `data: {...,"choices":[{"index":0,"delta":`
	usageHead    []byte // `data: {...,"choices":[],"usage":`
	tail         []byte // `,"logprobs":null,"finish_reason":null}]...}` + "\n\n"
	includeUsage bool
	sentRole     bool
	// azure adds Azure OpenAI's content filter results: a first chunk
	// with no choices and the prompt's, and each choice's.
	azure, sentPrompt bool
	carry
}

func newChatEncoder(a *answer) *chatEncoder {
	e := newChatEncoderOf("chatcmpl-scripted-"+strconv.Itoa(a.turn), a.model, clock.Epoch.Unix(), a.req.IncludeUsage)
	e.azure = a.req.Wire == WireAzureChat
	return e
}

// Azure's content filter results: none given, all safe, filtered.
var (
	filterNone     = []byte(`{}`)
	filterSafe, _  = json.Marshal(llmwire.ContentFilterResult(false))
	filterBlock, _ = json.Marshal(llmwire.ContentFilterResult(true))
)

// azureHead appends the start of a chunk's choice with its content filter
// results.
func (e *chatEncoder) azureHead(b []byte, filter []byte) []byte {
	if !e.sentPrompt {
		e.sentPrompt = true
		b = append(b, `data: {"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":`...)
		b = append(b, filterSafe...)
		b = append(b, "}]}\n\n"...)
	}
	b = append(b, e.choices...)
	b = append(b, `{"index":0,"content_filter_results":`...)
	b = append(b, filter...)
	return append(b, `,"delta":`...)
}

func newChatEncoderOf(id, model string, created int64, includeUsage bool) *chatEncoder {
	var h []byte
	h = append(h, `data: {"id":`...)
	h = appendString(h, id)
	h = append(h, `,"object":"chat.completion.chunk","created":`...)
	h = strconv.AppendInt(h, created, 10)
	h = append(h, `,"model":`...)
	h = appendString(h, model)
	h = append(h, `,"system_fingerprint":"fp_scripted","choices":[`...)
	e := &chatEncoder{includeUsage: includeUsage}
	e.choices = append([]byte(nil), h...)
	e.usageHead = append(append([]byte(nil), h...), `],"usage":`...)
	e.head = append(h, `{"index":0,"delta":`...)
	e.tail = []byte(`,"logprobs":null,"finish_reason":null}]`)
	if includeUsage {
		e.tail = append(e.tail, `,"usage":null`...)
	}
	e.tail = append(e.tail, "}\n\n"...)
	return e
}

func (e *chatEncoder) chunk(b []byte, a *answer, i int) []byte { return e.appendChunk(b, &a.chunks[i]) }

func (e *chatEncoder) end(b []byte, _ *answer) []byte { return append(b, "data: [DONE]\n\n"...) }

// fail writes the error object OpenAI sends in place of a chunk.
func (e *chatEncoder) fail(b []byte, _ *answer, f *Fault) []byte {
	b = append(b, "data: "...)
	b = append(b, f.errorBody(WireChat)...)
	return append(b, "\n\n"...)
}

func (e *chatEncoder) malformed(b []byte, a *answer, f *Fault) []byte {
	b = append(b, "data: "...)
	if f.Data != "" {
		b = append(b, f.Data...)
	} else {
		b = append(b, `{"id":"chatcmpl-scripted-`...)
		b = strconv.AppendInt(b, int64(a.turn), 10)
		b = append(b, `","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"`...)
	}
	return append(b, "\n\n"...)
}

// appendChunk appends the event of c, or nothing for a usage chunk when
// usage was not asked for.
func (e *chatEncoder) appendChunk(b []byte, c *Chunk) []byte {
	switch c.kind() {
	case kindUsage:
		if !e.includeUsage {
			return b
		}
		b = append(b, e.usageHead...)
		b = appendUsage(b, c.Usage)
		return append(b, "}\n\n"...)
	case kindFinish:
		if e.azure {
			filter := filterNone
			if c.Finish == "content_filter" {
				filter = filterBlock
			}
			b = e.azureHead(b, filter)
		} else {
			b = append(b, e.head...)
		}
		b = append(b, '{')
		b = e.role(b, false)
		b = append(b, `},"logprobs":null,"finish_reason":`...)
		b = appendString(b, c.Finish)
		b = append(b, "}]"...)
		if e.includeUsage {
			b = append(b, `,"usage":null`...)
		}
		return append(b, "}\n\n"...)
	}
	switch {
	case !e.azure:
		b = append(b, e.head...)
	case c.kind() == kindText && c.Text != "":
		b = e.azureHead(b, filterSafe)
	default:
		b = e.azureHead(b, filterNone)
	}
	b = append(b, '{')
	b = e.role(b, true)
	switch c.kind() {
	case kindText:
		b = append(b, `"content":`...)
		b = appendString(b, e.whole(carryKey{kind: kindText}, c.Text))
	case kindReasoning:
		b = append(b, `"reasoning_content":`...)
		b = appendString(b, e.whole(carryKey{kind: kindReasoning}, c.Reasoning))
	case kindCall:
		d := c.Call
		b = append(b, `"tool_calls":[{`...)
		if d.Index >= 0 {
			b = append(b, `"index":`...)
			b = strconv.AppendInt(b, int64(d.Index), 10)
			b = append(b, ',')
		}
		if d.ID != "" {
			b = append(b, `"id":`...)
			b = appendString(b, d.ID)
			b = append(b, ',')
		}
		if d.Name != "" {
			b = append(b, `"type":"function","function":{"name":`...)
			b = appendString(b, d.Name)
			b = append(b, `,"arguments":`...)
		} else {
			b = append(b, `"function":{"arguments":`...)
		}
		k := carryKey{kind: kindCall, idx: d.Index}
		if d.Index < 0 {
			k.id = d.ID
		}
		b = appendString(b, e.whole(k, d.Args))
		b = append(b, "}}]"...)
	}
	b = append(b, '}')
	return append(b, e.tail...)
}

// role adds the assistant role to the first delta, as OpenAI does.
func (e *chatEncoder) role(b []byte, comma bool) []byte {
	if e.sentRole {
		return b
	}
	e.sentRole = true
	b = append(b, `"role":"assistant"`...)
	if comma {
		b = append(b, ',')
	}
	return b
}

// completeChat renders the answer as one chat.completion object.
func completeChat(a *answer) []byte {
	type function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type toolCall struct {
		ID       string   `json:"id"`
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	type message struct {
		Role      string     `json:"role"`
		Content   *string    `json:"content"`
		Reasoning string     `json:"reasoning_content,omitempty"`
		ToolCalls []toolCall `json:"tool_calls,omitempty"`
	}
	msg := message{Role: "assistant", Reasoning: a.t.Reasoning}
	// Calls in index order, whatever the plan's interleaving.
	for n, c := range a.t.Calls {
		msg.ToolCalls = append(msg.ToolCalls, toolCall{c.callID(a.turn, n), "function", function{c.Name, c.args()}})
	}
	if text := a.t.text(); text != "" || len(msg.ToolCalls) == 0 {
		msg.Content = &text
	}
	type choice struct {
		Index        int             `json:"index"`
		Filter       json.RawMessage `json:"content_filter_results,omitempty"`
		Message      message         `json:"message"`
		Logprobs     *int            `json:"logprobs"`
		FinishReason string          `json:"finish_reason"`
	}
	type promptFilter struct {
		Index  int             `json:"prompt_index"`
		Filter json.RawMessage `json:"content_filter_results"`
	}
	ch := choice{0, nil, msg, nil, a.t.finish()}
	var prompt []promptFilter
	if a.req.Wire == WireAzureChat {
		ch.Filter = filterSafe
		if ch.FinishReason == "content_filter" {
			ch.Filter = filterBlock
		}
		prompt = []promptFilter{{0, filterSafe}}
	}
	b, _ := json.Marshal(struct {
		ID                string         `json:"id"`
		Object            string         `json:"object"`
		Created           int64          `json:"created"`
		Model             string         `json:"model"`
		PromptFilter      []promptFilter `json:"prompt_filter_results,omitempty"`
		SystemFingerprint string         `json:"system_fingerprint"`
		Choices           []choice       `json:"choices"`
		Usage             Usage          `json:"usage"`
	}{"chatcmpl-scripted-" + strconv.Itoa(a.turn), "chat.completion", clock.Epoch.Unix(), a.model, prompt, "fp_scripted", []choice{ch}, a.usage})
	return b
}
