package scripted

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/internal/llmwire"
)

// The Anthropic Messages wire: POST …/messages.
var anthropicWire = &wireSpec{
	wire: WireAnthropic,
	decode: func(_ *Model, body []byte, _ *http.Request) (Request, any, *llmwire.Error) {
		req, err := decodeAnthropic(body) // it checks the conversation too, as it knows the blocks
		return req, nil, err
	},
	encoder:  func(a *answer) streamEncoder { return newAnthropicEncoder(a) },
	complete: completeAnthropic,
	header: func(h http.Header, a *answer) {
		h.Set("Request-Id", anthropicRequestID(a.turn))
	},
}

func anthropicRequestID(turn int) string { return "req_scripted_" + strconv.Itoa(turn+1) }

type anthropicRequest struct {
	Model    string          `json:"model"`
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	Stream   bool `json:"stream"`
	Thinking *struct {
		Type string `json:"type"`
	} `json:"thinking"`
}

// anthropicBlock is a content block of a request message.
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	Thinking  string          `json:"thinking"`
}

func anthropicInvalid(msg string) *llmwire.Error {
	return &llmwire.Error{Status: http.StatusBadRequest, Message: msg, Type: "invalid_request_error"}
}

// blocks reads a message's content: a string is one text block.
func anthropicBlocks(raw json.RawMessage) ([]anthropicBlock, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return nil, nil
		}
		return []anthropicBlock{{Type: "text", Text: s}}, nil
	}
	var bs []anthropicBlock
	if err := json.Unmarshal(raw, &bs); err != nil {
		return nil, fmt.Errorf("want a string or an array of content blocks")
	}
	return bs, nil
}

// decodeAnthropic reads a Messages request and applies Anthropic's rules
// on the conversation, with its error texts: roles are user or assistant;
// messages have content; consecutive turns of one role are combined; the
// tool_use blocks of an assistant turn are answered by tool_result blocks
// in the next user turn, and a tool_result answers a tool_use of the turn
// before it; with thinking on, the assistant turn whose calls the request
// answers starts with its thinking block.
func decodeAnthropic(body []byte) (Request, *llmwire.Error) {
	var w anthropicRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, anthropicInvalid(fmt.Sprintf("request body is not a valid Messages request: %v", err))
	}
	req := Request{Wire: WireAnthropic, Model: w.Model, Stream: w.Stream, Body: body,
		Options: options(body, "model", "system", "messages", "tools", "stream")}
	if len(w.System) > 0 && string(w.System) != "null" {
		bs, err := anthropicBlocks(w.System)
		if err != nil {
			return req, anthropicInvalid("system: " + err.Error())
		}
		var parts []string
		for _, b := range bs {
			if b.Type == "text" {
				parts = append(parts, b.Text)
			}
		}
		req.System = strings.Join(parts, "\n\n")
		req.Messages = append(req.Messages, Message{Role: "system", Content: req.System})
	}
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	if len(w.Messages) == 0 {
		return req, anthropicInvalid("messages: at least one message is required")
	}

	// Read every message, then check the turns.
	type turn struct {
		role  string
		first int   // index of its first message
		msgs  []int // indexes of its messages
		uses  []string
	}
	all := make([][]anthropicBlock, len(w.Messages))
	var turns []*turn
	for i, m := range w.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return req, anthropicInvalid(fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i))
		}
		bs, err := anthropicBlocks(m.Content)
		if err != nil {
			return req, anthropicInvalid(fmt.Sprintf("messages.%d.content: %v", i, err))
		}
		if len(bs) == 0 && !(i == len(w.Messages)-1 && m.Role == "assistant") {
			return req, anthropicInvalid(fmt.Sprintf("messages.%d: all messages must have non-empty content except for the optional final assistant message", i))
		}
		all[i] = bs
		if len(turns) == 0 || turns[len(turns)-1].role != m.Role {
			turns = append(turns, &turn{role: m.Role, first: i})
		}
		t := turns[len(turns)-1]
		t.msgs = append(t.msgs, i)
		for _, b := range bs {
			if b.Type == "tool_use" {
				t.uses = append(t.uses, b.ID)
			}
		}
		req.Messages = append(req.Messages, anthropicMessages(m.Role, bs)...)
	}
	for k, t := range turns {
		switch t.role {
		case "user":
			var prev []string
			if k > 0 {
				prev = turns[k-1].uses
			}
			for _, i := range t.msgs {
				for j, b := range all[i] {
					if b.Type == "tool_result" && !contains(prev, b.ToolUseID) {
						return req, anthropicInvalid(fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID))
					}
				}
			}
		case "assistant":
			if len(t.uses) == 0 {
				continue
			}
			answered := map[string]bool{}
			if k+1 < len(turns) {
				for _, i := range turns[k+1].msgs {
					for _, b := range all[i] {
						if b.Type == "tool_result" {
							answered[b.ToolUseID] = true
						}
					}
				}
			}
			var missing []string
			for _, id := range t.uses {
				if !answered[id] {
					missing = append(missing, id)
				}
			}
			if len(missing) > 0 {
				return req, anthropicInvalid(fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", t.msgs[len(t.msgs)-1], strings.Join(missing, ", ")))
			}
		}
	}
	// With thinking on, the final assistant turn answered by tool results
	// must start with its thinking block, as the model wrote it.
	if th := w.Thinking; th != nil && (th.Type == "enabled" || th.Type == "adaptive") && len(turns) >= 2 {
		last, prev := turns[len(turns)-1], turns[len(turns)-2]
		if last.role == "user" && prev.role == "assistant" && len(prev.uses) > 0 {
			i := prev.first
			if bs := all[i]; len(bs) > 0 && bs[0].Type != "thinking" && bs[0].Type != "redacted_thinking" {
				return req, anthropicInvalid(fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). To avoid this requirement, disable `thinking`.", i, bs[0].Type))
			}
		}
	}
	return req, nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// anthropicMessages turns one wire message into neutral messages: an
// assistant message with its text, thinking and calls; or, for a user
// message, a tool message per tool_result and a user message per run of
// other blocks, in their order.
func anthropicMessages(role string, bs []anthropicBlock) []Message {
	if role == "assistant" {
		m := Message{Role: "assistant"}
		for _, b := range bs {
			switch b.Type {
			case "text":
				m.Content += b.Text
			case "thinking":
				m.Reasoning += b.Thinking
			case "tool_use":
				m.Calls = append(m.Calls, Call{ID: b.ID, Name: b.Name, Args: compactJSON(b.Input)})
			}
		}
		return []Message{m}
	}
	var out []Message
	user := -1
	for _, b := range bs {
		switch b.Type {
		case "tool_result":
			text, _ := anthropicText(b.Content)
			out = append(out, Message{Role: "tool", ToolCallID: b.ToolUseID, Content: text})
			user = -1
		case "text":
			if user < 0 {
				out = append(out, Message{Role: "user"})
				user = len(out) - 1
			}
			out[user].Content += b.Text
		}
	}
	if len(out) == 0 {
		out = append(out, Message{Role: "user"})
	}
	return out
}

// anthropicText returns the text of a tool_result's content.
func anthropicText(raw json.RawMessage) (string, error) {
	bs, err := anthropicBlocks(raw)
	var b strings.Builder
	for _, x := range bs {
		if x.Type == "text" {
			b.WriteString(x.Text)
		}
	}
	return b.String(), err
}

// compactJSON returns raw compacted, or as it is when it is not JSON.
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// anthropicStop maps a finish reason to a stop_reason.
func anthropicStop(finish string) string {
	switch finish {
	case "stop":
		return "end_turn"
	case "tool_calls":
		return "tool_use"
	case "length":
		return "max_tokens"
	}
	return finish
}

// signature is the (opaque) signature of a turn's thinking block.
func signature(turn int) string {
	return base64.StdEncoding.EncodeToString([]byte("aguitest scripted thinking, turn " + strconv.Itoa(turn+1)))
}

// An anthropicEncoder writes an answer as Messages stream events: each
// stream of the plan (thinking, text, each call) is a content block,
// started at its first delta and stopped after its last, numbered in the
// order they start.
type anthropicEncoder struct {
	carry
	index map[int]int // content block index by slot
	last  map[int]int // last chunk by slot
	next  int         // the next block index
	ping  bool
}

func newAnthropicEncoder(a *answer) *anthropicEncoder {
	return &anthropicEncoder{index: map[int]int{}, last: lastChunks(a)}
}

func appendEvent(b []byte, name string) []byte {
	b = append(b, "event: "...)
	b = append(b, name...)
	return append(b, "\ndata: "...)
}

func (e *anthropicEncoder) chunk(b []byte, a *answer, i int) []byte {
	if i == 0 {
		b = appendEvent(b, "message_start")
		b = append(b, `{"type":"message_start","message":{"id":`...)
		b = appendString(b, "msg_scripted_"+strconv.Itoa(a.turn+1))
		b = append(b, `,"type":"message","role":"assistant","model":`...)
		b = appendString(b, a.model)
		b = append(b, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`...)
		b = strconv.AppendInt(b, int64(a.usage.PromptTokens), 10)
		b = append(b, `,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}}`+"\n\n"...)
	}
	c := &a.chunks[i]
	switch c.kind() {
	case kindFinish:
		b = appendEvent(b, "message_delta")
		b = append(b, `{"type":"message_delta","delta":{"stop_reason":`...)
		b = appendString(b, anthropicStop(c.Finish))
		b = append(b, `,"stop_sequence":null},"usage":{"input_tokens":`...)
		b = strconv.AppendInt(b, int64(a.usage.PromptTokens), 10)
		b = append(b, `,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":`...)
		b = strconv.AppendInt(b, int64(a.usage.CompletionTokens), 10)
		return append(b, "}}\n\n"...)
	case kindUsage:
		b = appendEvent(b, "message_stop")
		return append(b, `{"type":"message_stop"}`+"\n\n"...)
	}
	slot := chunkSlot(a.t, a.turn, c)
	idx, open := e.index[slot]
	if !open {
		idx = e.next
		e.next++
		e.index[slot] = idx
		b = appendEvent(b, "content_block_start")
		b = append(b, `{"type":"content_block_start","index":`...)
		b = strconv.AppendInt(b, int64(idx), 10)
		switch c.kind() {
		case kindReasoning:
			b = append(b, `,"content_block":{"type":"thinking","thinking":"","signature":""}}`...)
		case kindText:
			b = append(b, `,"content_block":{"type":"text","text":""}}`...)
		case kindCall:
			call := a.t.Calls[slot]
			b = append(b, `,"content_block":{"type":"tool_use","id":`...)
			b = appendString(b, call.wireID(WireAnthropic, a.turn, slot))
			b = append(b, `,"name":`...)
			b = appendString(b, call.Name)
			b = append(b, `,"input":{}}}`...)
		}
		b = append(b, "\n\n"...)
		if !e.ping {
			e.ping = true
			b = appendEvent(b, "ping")
			b = append(b, `{"type": "ping"}`+"\n\n"...)
		}
	}
	delta := func(typ, field, s string) {
		b = appendEvent(b, "content_block_delta")
		b = append(b, `{"type":"content_block_delta","index":`...)
		b = strconv.AppendInt(b, int64(idx), 10)
		b = append(b, `,"delta":{"type":"`...)
		b = append(b, typ...)
		b = append(b, `","`...)
		b = append(b, field...)
		b = append(b, `":`...)
		b = appendString(b, s)
		b = append(b, "}}\n\n"...)
	}
	switch c.kind() {
	case kindReasoning:
		delta("thinking_delta", "thinking", e.whole(carryKey{kind: kindReasoning}, c.Reasoning))
	case kindText:
		delta("text_delta", "text", e.whole(carryKey{kind: kindText}, c.Text))
	case kindCall:
		if c.Call.Name == "" { // the first delta of a call only names it
			frag := c.Call.Args
			if a.t.Calls[slot].args() == "{}" && frag == "{}" {
				frag = "" // Anthropic streams no input of a call without arguments
			}
			delta("input_json_delta", "partial_json", e.whole(carryKey{kind: kindCall, idx: slot}, frag))
		}
	}
	if e.last[slot] == i {
		if c.kind() == kindReasoning {
			delta("signature_delta", "signature", signature(a.turn))
		}
		b = appendEvent(b, "content_block_stop")
		b = append(b, `{"type":"content_block_stop","index":`...)
		b = strconv.AppendInt(b, int64(idx), 10)
		b = append(b, "}\n\n"...)
	}
	return b
}

func (e *anthropicEncoder) end(b []byte, _ *answer) []byte { return b }

func (e *anthropicEncoder) fail(b []byte, a *answer, f *Fault) []byte {
	ae := f.wireError(WireAnthropic)
	ae.RequestID = anthropicRequestID(a.turn)
	b = appendEvent(b, "error")
	if f.Body != "" {
		b = append(b, f.Body...)
	} else {
		b = append(b, ae.Body(llmwire.Anthropic)...)
	}
	return append(b, "\n\n"...)
}

func (e *anthropicEncoder) malformed(b []byte, a *answer, f *Fault) []byte {
	b = appendEvent(b, "content_block_delta")
	if f.Data != "" {
		b = append(b, f.Data...)
	} else {
		b = append(b, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`...)
	}
	return append(b, "\n\n"...)
}

// completeAnthropic renders the answer as one Message object, its blocks
// in the order the plan starts them.
func completeAnthropic(a *answer) []byte {
	var b []byte
	b = append(b, `{"id":`...)
	b = appendString(b, "msg_scripted_"+strconv.Itoa(a.turn+1))
	b = append(b, `,"type":"message","role":"assistant","model":`...)
	b = appendString(b, a.model)
	b = append(b, `,"content":[`...)
	for k, slot := range slotOrder(a) {
		if k > 0 {
			b = append(b, ',')
		}
		switch slot {
		case slotReasoning:
			b = append(b, `{"type":"thinking","thinking":`...)
			b = appendString(b, a.t.Reasoning)
			b = append(b, `,"signature":`...)
			b = appendString(b, signature(a.turn))
			b = append(b, '}')
		case slotText:
			b = append(b, `{"type":"text","text":`...)
			b = appendString(b, a.t.text())
			b = append(b, '}')
		default:
			call := a.t.Calls[slot]
			b = append(b, `{"type":"tool_use","id":`...)
			b = appendString(b, call.wireID(WireAnthropic, a.turn, slot))
			b = append(b, `,"name":`...)
			b = appendString(b, call.Name)
			b = append(b, `,"input":`...)
			b = append(b, compactJSON(json.RawMessage(call.args()))...)
			b = append(b, '}')
		}
	}
	b = append(b, `],"stop_reason":`...)
	b = appendString(b, anthropicStop(a.t.finish()))
	b = append(b, `,"stop_sequence":null,"usage":{"input_tokens":`...)
	b = strconv.AppendInt(b, int64(a.usage.PromptTokens), 10)
	b = append(b, `,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":`...)
	b = strconv.AppendInt(b, int64(a.usage.CompletionTokens), 10)
	return append(b, `,"service_tier":"standard"}}`...)
}
