package scripted

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/internal/eventstream"
	"github.com/aguitest/aguitest/internal/llmwire"
)

// The Bedrock Converse wire: POST …/model/{modelId}/converse-stream and
// …/converse.
var bedrockWire = &wireSpec{
	wire: WireBedrock,
	decode: func(_ *Model, body []byte, r *http.Request) (Request, any, *llmwire.Error) {
		req, err := decodeBedrock(body, r.URL.EscapedPath()) // it checks the conversation too, as it knows the blocks
		return req, nil, err
	},
	encoder:    func(a *answer) streamEncoder { return newBedrockEncoder(a) },
	complete:   completeBedrock,
	streamType: eventstream.ContentType,
	header: func(h http.Header, a *answer) {
		h.Set("X-Amzn-Requestid", bedrockRequestID(a.turn))
	},
}

func bedrockRequestID(turn int) string {
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", turn+1)
}

type bedrockRequest struct {
	Messages []struct {
		Role    string         `json:"role"`
		Content []bedrockBlock `json:"content"`
	} `json:"messages"`
	System []struct {
		Text *string `json:"text"`
	} `json:"system"`
	ToolConfig *struct {
		Tools []struct {
			ToolSpec *struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				InputSchema struct {
					JSON json.RawMessage `json:"json"`
				} `json:"inputSchema"`
			} `json:"toolSpec"`
		} `json:"tools"`
	} `json:"toolConfig"`
}

type bedrockBlock struct {
	Text    *string `json:"text"`
	ToolUse *struct {
		ToolUseID string          `json:"toolUseId"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"toolUse"`
	ToolResult *struct {
		ToolUseID string `json:"toolUseId"`
		Content   []struct {
			Text *string         `json:"text"`
			JSON json.RawMessage `json:"json"`
		} `json:"content"`
		Status string `json:"status"`
	} `json:"toolResult"`
	ReasoningContent *struct {
		ReasoningText *struct {
			Text string `json:"text"`
		} `json:"reasoningText"`
	} `json:"reasoningContent"`
}

func bedrockInvalid(msg string) *llmwire.Error {
	return &llmwire.Error{Status: http.StatusBadRequest, Message: msg, Type: "ValidationException"}
}

// decodeBedrock reads a Converse request and applies Bedrock's rules on
// the conversation, with its error texts: it starts with a user message
// and alternates roles; no message is empty; toolUse and toolResult blocks
// need a toolConfig; the toolUse blocks of an assistant message are
// answered by the toolResult blocks of the next, no more and no fewer.
func decodeBedrock(body []byte, path string) (Request, *llmwire.Error) {
	model, stream, _ := llmwire.BedrockModel(path)
	if m, err := url.PathUnescape(model); err == nil {
		model = m
	}
	var w bedrockRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, &llmwire.Error{Status: http.StatusBadRequest, Message: "Malformed input request, please reformat your input and try again.", Type: "ValidationException"}
	}
	req := Request{Wire: WireBedrock, Model: model, Stream: stream, Body: body,
		Options: options(body, "messages", "system", "toolConfig")}
	if w.ToolConfig != nil {
		for _, t := range w.ToolConfig.Tools {
			if s := t.ToolSpec; s != nil {
				req.Tools = append(req.Tools, Tool{Name: s.Name, Description: s.Description, Parameters: s.InputSchema.JSON})
			}
		}
	}
	if len(w.System) > 0 {
		var parts []string
		for _, s := range w.System {
			if s.Text != nil {
				parts = append(parts, *s.Text)
			}
		}
		req.System = strings.Join(parts, "\n\n")
		req.Messages = append(req.Messages, Message{Role: "system", Content: req.System})
	}
	if len(w.Messages) == 0 || w.Messages[0].Role != "user" {
		return req, bedrockInvalid("A conversation must start with a user message. Try again with a conversation that starts with a user message.")
	}
	tools := false
	for i, m := range w.Messages {
		switch m.Role {
		case "user", "assistant":
		default:
			return req, bedrockInvalid(fmt.Sprintf("1 validation error detected: Value '%s' at 'messages.%d.member.role' failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]", m.Role, i+1))
		}
		if i > 0 && w.Messages[i-1].Role == m.Role {
			return req, bedrockInvalid("A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.")
		}
		if len(m.Content) == 0 {
			return req, bedrockInvalid(fmt.Sprintf("The content field in the Message object at messages.%d is empty. Add a ContentBlock object to the content field and try again.", i))
		}
		for k, b := range m.Content {
			tools = tools || b.ToolUse != nil || b.ToolResult != nil
			if r := b.ToolResult; r != nil && r.Status == "error" && len(r.Content) == 0 {
				return req, bedrockInvalid(fmt.Sprintf("The content field at messages.%d.content.%d.toolResult cannot be empty when status value is error.", i, k))
			}
		}
		req.Messages = append(req.Messages, bedrockMessages(m.Role, m.Content)...)
	}
	if tools && (w.ToolConfig == nil || len(w.ToolConfig.Tools) == 0) {
		return req, bedrockInvalid("The toolConfig field must be defined when using toolUse and toolResult content blocks.")
	}
	for i, m := range w.Messages {
		var uses, results []string
		for _, b := range m.Content {
			if b.ToolUse != nil {
				uses = append(uses, b.ToolUse.ToolUseID)
			}
		}
		if i+1 < len(w.Messages) {
			for _, b := range w.Messages[i+1].Content {
				if b.ToolResult != nil {
					results = append(results, b.ToolResult.ToolUseID)
				}
			}
		}
		if m.Role == "assistant" && i+1 < len(w.Messages) {
			if len(results) > len(uses) {
				return req, bedrockInvalid(fmt.Sprintf("The number of toolResult blocks at messages.%d.content exceeds the number of toolUse blocks of previous turn.", i+1))
			}
			var missing []string
			for _, id := range uses {
				if !contains(results, id) {
					missing = append(missing, id)
				}
			}
			if len(missing) > 0 {
				return req, bedrockInvalid(fmt.Sprintf("Expected toolResult blocks at messages.%d.content for the following Ids: %s", i+1, strings.Join(missing, ", ")))
			}
		}
		if m.Role == "user" {
			n := 0
			for _, b := range m.Content {
				if b.ToolResult != nil {
					n++
				}
			}
			if n > 0 && (i == 0 || !hasToolUse(w.Messages[i-1].Content)) {
				return req, bedrockInvalid(fmt.Sprintf("The number of toolResult blocks at messages.%d.content exceeds the number of toolUse blocks of previous turn.", i))
			}
		}
	}
	return req, nil
}

func hasToolUse(bs []bedrockBlock) bool {
	for _, b := range bs {
		if b.ToolUse != nil {
			return true
		}
	}
	return false
}

// bedrockMessages turns one wire message into neutral messages, as
// anthropicMessages does.
func bedrockMessages(role string, bs []bedrockBlock) []Message {
	if role == "assistant" {
		m := Message{Role: "assistant"}
		for _, b := range bs {
			switch {
			case b.Text != nil:
				m.Content += *b.Text
			case b.ReasoningContent != nil && b.ReasoningContent.ReasoningText != nil:
				m.Reasoning += b.ReasoningContent.ReasoningText.Text
			case b.ToolUse != nil:
				m.Calls = append(m.Calls, Call{ID: b.ToolUse.ToolUseID, Name: b.ToolUse.Name, Args: compactJSON(b.ToolUse.Input)})
			}
		}
		return []Message{m}
	}
	var out []Message
	user := -1
	for _, b := range bs {
		switch {
		case b.ToolResult != nil:
			var text strings.Builder
			for _, c := range b.ToolResult.Content {
				switch {
				case c.Text != nil:
					text.WriteString(*c.Text)
				case len(c.JSON) > 0:
					text.WriteString(compactJSON(c.JSON))
				}
			}
			out = append(out, Message{Role: "tool", ToolCallID: b.ToolResult.ToolUseID, Content: text.String()})
			user = -1
		case b.Text != nil:
			if user < 0 {
				out = append(out, Message{Role: "user"})
				user = len(out) - 1
			}
			out[user].Content += *b.Text
		}
	}
	if len(out) == 0 {
		out = append(out, Message{Role: "user"})
	}
	return out
}

// bedrockStop maps a finish reason to a Converse stopReason.
func bedrockStop(finish string) string {
	switch finish {
	case "stop":
		return "end_turn"
	case "tool_calls":
		return "tool_use"
	case "length":
		return "max_tokens"
	case "content_filter":
		return "content_filtered"
	}
	return finish
}

// bedrockException is the exception member of a ConverseStream error of
// status s, as the stream names it.
func bedrockException(s int) string {
	switch s {
	case 400:
		return "validationException"
	case 424:
		return "modelStreamErrorException"
	case 429:
		return "throttlingException"
	case 503:
		return "serviceUnavailableException"
	}
	return "internalServerException"
}

// bedrockPadding is the "p" field Bedrock adds to every event, of varying
// length, so that the sizes of events do not tell their content.
const bedrockPadding = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// A bedrockEncoder writes an answer as ConverseStream events in the
// eventstream framing: each stream of the plan (reasoning, text, each
// call) is a content block numbered in the order they start; a toolUse
// block opens with contentBlockStart, as Bedrock's do.
type bedrockEncoder struct {
	carry
	index   map[int]int
	last    map[int]int
	next    int
	payload []byte
}

func newBedrockEncoder(a *answer) *bedrockEncoder {
	return &bedrockEncoder{index: map[int]int{}, last: lastChunks(a)}
}

// event appends one event message whose JSON payload is p, padded.
func (e *bedrockEncoder) event(b []byte, typ string, p []byte) []byte {
	p = append(p[:len(p)-1], `,"p":`...)
	p = appendString(p, bedrockPadding[:(len(p)*7)%len(bedrockPadding)+1])
	p = append(p, '}')
	e.payload = p
	return eventstream.Append(b, p, ":event-type", typ, ":content-type", "application/json", ":message-type", "event")
}

func (e *bedrockEncoder) chunk(b []byte, a *answer, i int) []byte {
	p := e.payload[:0]
	if i == 0 {
		b = e.event(b, "messageStart", append(p, `{"role":"assistant"}`...))
		p = e.payload[:0]
	}
	c := &a.chunks[i]
	switch c.kind() {
	case kindFinish:
		p = append(p, `{"stopReason":`...)
		p = appendString(p, bedrockStop(c.Finish))
		return e.event(b, "messageStop", append(p, '}'))
	case kindUsage:
		u := a.usage
		p = append(p, `{"usage":{"inputTokens":`...)
		p = strconv.AppendInt(p, int64(u.PromptTokens), 10)
		p = append(p, `,"outputTokens":`...)
		p = strconv.AppendInt(p, int64(u.CompletionTokens), 10)
		p = append(p, `,"totalTokens":`...)
		p = strconv.AppendInt(p, int64(u.TotalTokens), 10)
		p = append(p, `},"metrics":{"latencyMs":`...)
		p = strconv.AppendInt(p, int64(len(a.chunks)), 10)
		return e.event(b, "metadata", append(p, "}}"...))
	}
	slot := chunkSlot(a.t, a.turn, c)
	idx, open := e.index[slot]
	if !open {
		idx = e.next
		e.next++
		e.index[slot] = idx
		if c.kind() == kindCall {
			call := a.t.Calls[slot]
			p = append(p, `{"contentBlockIndex":`...)
			p = strconv.AppendInt(p, int64(idx), 10)
			p = append(p, `,"start":{"toolUse":{"toolUseId":`...)
			p = appendString(p, call.wireID(WireBedrock, a.turn, slot))
			p = append(p, `,"name":`...)
			p = appendString(p, call.Name)
			b = e.event(b, "contentBlockStart", append(p, "}}}"...))
			p = e.payload[:0]
		}
	}
	delta := func(field, s string) {
		p = append(p[:0], `{"contentBlockIndex":`...)
		p = strconv.AppendInt(p, int64(idx), 10)
		p = append(p, `,"delta":{`...)
		p = append(p, field...)
		p = appendString(p, s)
		p = append(p, "}}"...)
		if strings.HasPrefix(field, `"reasoningContent"`) || strings.HasPrefix(field, `"toolUse"`) {
			p = append(p, '}')
		}
		b = e.event(b, "contentBlockDelta", p)
		p = e.payload[:0]
	}
	switch c.kind() {
	case kindReasoning:
		delta(`"reasoningContent":{"text":`, e.whole(carryKey{kind: kindReasoning}, c.Reasoning))
	case kindText:
		delta(`"text":`, e.whole(carryKey{kind: kindText}, c.Text))
	case kindCall:
		if c.Call.Name == "" { // the first delta of a call only names it
			delta(`"toolUse":{"input":`, e.whole(carryKey{kind: kindCall, idx: slot}, c.Call.Args))
		}
	}
	if e.last[slot] == i {
		if c.kind() == kindReasoning {
			delta(`"reasoningContent":{"signature":`, signature(a.turn))
		}
		p = append(p[:0], `{"contentBlockIndex":`...)
		p = strconv.AppendInt(p, int64(idx), 10)
		b = e.event(b, "contentBlockStop", append(p, '}'))
	}
	return b
}

func (e *bedrockEncoder) end(b []byte, _ *answer) []byte { return b }

// fail appends the exception message Bedrock ends a failing stream with.
func (e *bedrockEncoder) fail(b []byte, _ *answer, f *Fault) []byte {
	we := f.wireError(WireBedrock)
	return eventstream.Append(b, f.errorBody(WireBedrock), ":exception-type", bedrockException(we.Status), ":content-type", "application/json", ":message-type", "exception")
}

// malformed appends an event whose payload is not JSON, in a valid frame.
func (e *bedrockEncoder) malformed(b []byte, _ *answer, f *Fault) []byte {
	p := []byte(f.Data)
	if f.Data == "" {
		p = []byte(`{"contentBlockIndex":0,"delta":{"text":"`)
	}
	return eventstream.Append(b, p, ":event-type", "contentBlockDelta", ":content-type", "application/json", ":message-type", "event")
}

// completeBedrock renders the answer as one Converse response, its blocks
// in the order the plan starts them.
func completeBedrock(a *answer) []byte {
	var b []byte
	b = append(b, `{"output":{"message":{"role":"assistant","content":[`...)
	for k, slot := range slotOrder(a) {
		if k > 0 {
			b = append(b, ',')
		}
		switch slot {
		case slotReasoning:
			b = append(b, `{"reasoningContent":{"reasoningText":{"text":`...)
			b = appendString(b, a.t.Reasoning)
			b = append(b, `,"signature":`...)
			b = appendString(b, signature(a.turn))
			b = append(b, "}}}"...)
		case slotText:
			b = append(b, `{"text":`...)
			b = appendString(b, a.t.text())
			b = append(b, '}')
		default:
			call := a.t.Calls[slot]
			b = append(b, `{"toolUse":{"toolUseId":`...)
			b = appendString(b, call.wireID(WireBedrock, a.turn, slot))
			b = append(b, `,"name":`...)
			b = appendString(b, call.Name)
			b = append(b, `,"input":`...)
			b = append(b, compactJSON(json.RawMessage(call.args()))...)
			b = append(b, "}}"...)
		}
	}
	b = append(b, `]}},"stopReason":`...)
	b = appendString(b, bedrockStop(a.t.finish()))
	u := a.usage
	b = append(b, `,"usage":{"inputTokens":`...)
	b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
	b = append(b, `,"outputTokens":`...)
	b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
	b = append(b, `,"totalTokens":`...)
	b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
	return append(b, `},"metrics":{"latencyMs":1}}`...)
}
