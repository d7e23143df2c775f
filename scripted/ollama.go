package scripted

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aguitest/aguitest/clock"
	"github.com/aguitest/aguitest/internal/llmwire"
)

// The Ollama wire: POST …/api/chat, streaming newline-delimited JSON
// unless "stream": false. Calls carry no id: Ollama's clients and the
// agents on them match results to calls by position and tool name.
var ollamaWire = &wireSpec{
	wire: WireOllama,
	decode: func(m *Model, body []byte, _ *http.Request) (Request, any, *llmwire.Error) {
		req, err := decodeOllama(m, body)
		return req, nil, err
	},
	encoder:    func(a *answer) streamEncoder { return &ollamaEncoder{} },
	complete:   completeOllama,
	streamType: "application/x-ndjson",
	taken:      keepOllamaCalls,
}

type ollamaRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		Thinking  string `json:"thinking"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		ToolName   string `json:"tool_name"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
	Tools  []chatTool `json:"tools"`
	Stream *bool      `json:"stream"`
}

func ollamaInvalid(msg string) *llmwire.Error {
	return &llmwire.Error{Status: http.StatusBadRequest, Message: msg}
}

// An ollamaCall is a call the server made on the Ollama wire, by which
// the calls of a later request, which come back without ids, are known.
type ollamaCall struct {
	name, args, id string
}

// keepOllamaCalls remembers the calls of an answer.
func keepOllamaCalls(m *Model, a *answer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for n, c := range a.t.Calls {
		m.ollama = append(m.ollama, ollamaCall{c.Name, canonicalArgs(c.args()), c.wireID(WireOllama, a.turn, n)})
	}
}

// canonicalArgs re-encodes a JSON text with sorted keys, or returns it.
func canonicalArgs(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// decodeOllama reads a chat request. Ollama checks only that it is JSON
// and names a model: it renders any conversation into the model's
// template. The neutral form gives each call of an assistant message the
// id the server gave it (a call the server did not make has none), and
// each tool message the call it answers: its tool_call_id when sent, or
// the next unanswered call of the assistant message before it, of its
// tool_name when sent.
func decodeOllama(m *Model, body []byte) (Request, *llmwire.Error) {
	if len(body) == 0 {
		return Request{}, ollamaInvalid("missing request body")
	}
	var w ollamaRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, ollamaInvalid(err.Error())
	}
	req := Request{Wire: WireOllama, Model: w.Model, Stream: w.Stream == nil || *w.Stream, Body: body,
		Options: options(body, "model", "messages", "tools", "stream")}
	if w.Model == "" {
		return req, ollamaInvalid("model is required")
	}
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	m.mu.Lock()
	known := append([]ollamaCall(nil), m.ollama...)
	m.mu.Unlock()
	used := make([]bool, len(known))
	var system []string
	var open []Call // the calls of the last assistant message, not yet answered
	for _, wm := range w.Messages {
		msg := Message{Role: wm.Role, Content: wm.Content, Reasoning: wm.Thinking}
		switch wm.Role {
		case "system":
			system = append(system, wm.Content)
		case "assistant":
			open = nil
			for _, tc := range wm.ToolCalls {
				c := Call{ID: tc.ID, Name: tc.Function.Name, Args: compactJSON(tc.Function.Arguments)}
				if c.ID == "" {
					args := canonicalArgs(c.Args)
					for k, kc := range known {
						if !used[k] && kc.name == c.Name && kc.args == args {
							used[k], c.ID = true, kc.id
							break
						}
					}
				}
				msg.Calls = append(msg.Calls, c)
			}
			open = append(open, msg.Calls...)
		case "tool":
			msg.Name, msg.ToolCallID = wm.ToolName, wm.ToolCallID
			for k, c := range open {
				if msg.ToolCallID != "" && c.ID == msg.ToolCallID || msg.ToolCallID == "" && (msg.Name == "" || c.Name == msg.Name) {
					msg.ToolCallID = c.ID
					open = append(open[:k:k], open[k+1:]...)
					break
				}
			}
		}
		req.Messages = append(req.Messages, msg)
	}
	req.System = strings.Join(system, "\n\n")
	return req, nil
}

// ollamaDone maps a finish reason to Ollama's done_reason.
func ollamaDone(finish string) string {
	switch finish {
	case "stop", "tool_calls":
		return "stop"
	}
	return finish
}

// createdAt is the created_at of every line: the virtual clock's epoch.
var createdAt = clock.Epoch.UTC().Format(time.RFC3339Nano)

// appendOllamaHead appends the start of a line, up to the message's role.
func appendOllamaHead(b []byte, a *answer) []byte {
	b = append(b, `{"model":`...)
	b = appendString(b, a.model)
	b = append(b, `,"created_at":`...)
	b = appendString(b, createdAt)
	return append(b, `,"message":{"role":"assistant","content":`...)
}

// appendOllamaCalls appends the tool_calls field of the calls given.
func appendOllamaCalls(b []byte, a *answer, calls []int) []byte {
	b = append(b, `,"tool_calls":[`...)
	for k, n := range calls {
		if k > 0 {
			b = append(b, ',')
		}
		call := a.t.Calls[n]
		b = append(b, `{"function":{"index":`...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, `,"name":`...)
		b = appendString(b, call.Name)
		b = append(b, `,"arguments":`...)
		b = append(b, compactJSON(json.RawMessage(call.args()))...)
		b = append(b, "}}"...)
	}
	return append(b, ']')
}

// appendOllamaDone appends the end of the last line: the done reason and
// the counts and durations Ollama reports.
func appendOllamaDone(b []byte, a *answer, finish string) []byte {
	u := a.usage
	b = append(b, `,"done":true,"done_reason":`...)
	b = appendString(b, ollamaDone(finish))
	b = append(b, `,"total_duration":1000000,"load_duration":100000,"prompt_eval_count":`...)
	b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
	b = append(b, `,"prompt_eval_duration":200000,"eval_count":`...)
	b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
	return append(b, `,"eval_duration":700000}`...)
}

// An ollamaEncoder writes an answer as newline-delimited ChatResponse
// objects: a line per delta of text or thinking, a line per call, whole,
// at its last delta, and a last line with done true and the counts.
type ollamaEncoder struct {
	carry
	last   map[int]int
	finish string
}

func (e *ollamaEncoder) chunk(b []byte, a *answer, i int) []byte {
	if e.last == nil {
		e.last = lastChunks(a)
	}
	c := &a.chunks[i]
	switch c.kind() {
	case kindFinish:
		e.finish = c.Finish
		return b
	case kindUsage:
		b = appendOllamaHead(b, a)
		b = append(b, `""}`...)
		b = appendOllamaDone(b, a, e.finish)
		return append(b, '\n')
	case kindCall:
		slot := chunkSlot(a.t, a.turn, c)
		if e.last[slot] != i {
			return b
		}
		b = appendOllamaHead(b, a)
		b = append(b, `""`...)
		b = appendOllamaCalls(b, a, []int{slot})
	case kindReasoning:
		b = appendOllamaHead(b, a)
		b = append(b, `"","thinking":`...)
		b = appendString(b, e.whole(carryKey{kind: kindReasoning}, c.Reasoning))
	default:
		b = appendOllamaHead(b, a)
		b = appendString(b, e.whole(carryKey{kind: kindText}, c.Text))
	}
	return append(b, "},\"done\":false}\n"...)
}

func (e *ollamaEncoder) end(b []byte, _ *answer) []byte { return b }

// fail appends the error line Ollama ends a failing stream with.
func (e *ollamaEncoder) fail(b []byte, _ *answer, f *Fault) []byte {
	b = append(b, f.errorBody(WireOllama)...)
	return append(b, '\n')
}

func (e *ollamaEncoder) malformed(b []byte, a *answer, f *Fault) []byte {
	if f.Data != "" {
		b = append(b, f.Data...)
	} else {
		b = appendOllamaHead(b, a)
		b = append(b, '"')
	}
	return append(b, '\n')
}

// completeOllama renders the answer as one ChatResponse.
func completeOllama(a *answer) []byte {
	b := appendOllamaHead(nil, a)
	b = appendString(b, a.t.text())
	if a.t.Reasoning != "" {
		b = append(b, `,"thinking":`...)
		b = appendString(b, a.t.Reasoning)
	}
	var calls []int
	for _, slot := range slotOrder(a) {
		if slot >= 0 {
			calls = append(calls, slot)
		}
	}
	if len(calls) > 0 {
		b = appendOllamaCalls(b, a, calls)
	}
	b = append(b, '}')
	return appendOllamaDone(b, a, a.t.finish())
}
