package scripted

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/clock"
	"github.com/aguitest/aguitest/internal/llmwire"
)

// The OpenAI Responses wire: POST …/responses.
var responsesWire = &wireSpec{
	wire:     WireResponses,
	decode:   decodeResponses, // it checks the conversation too, as it knows the items
	encoder:  func(a *answer) streamEncoder { return newResponsesEncoder(a) },
	complete: completeResponses,
	header: func(h http.Header, a *answer) {
		h.Set("X-Request-Id", "req_scripted_"+strconv.Itoa(a.turn+1))
	},
	taken: storeResponse,
}

// A responseStore keeps what the server answered on the Responses wire, as
// OpenAI stores responses: output items by id, for the item_reference
// items clients send back (the AI SDK does, by default), and each
// response's input and output by id, for previous_response_id.
type responseStore struct {
	items     map[string]json.RawMessage
	responses map[string][]json.RawMessage
}

func responseID(turn int) string { return "resp_scripted_" + strconv.Itoa(turn+1) }

// storeResponse keeps the output items of an answer and its conversation.
func storeResponse(m *Model, a *answer) {
	items := responseItems(a)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.store.items == nil {
		m.store.items = map[string]json.RawMessage{}
		m.store.responses = map[string][]json.RawMessage{}
	}
	input, _ := a.extra.([]json.RawMessage)
	conv := append([]json.RawMessage(nil), input...)
	for _, it := range items {
		var id struct{ ID string }
		_ = json.Unmarshal(it, &id)
		m.store.items[id.ID] = it
		conv = append(conv, it)
	}
	m.store.responses[responseID(a.turn)] = conv
}

type responsesRequest struct {
	Model              string          `json:"model"`
	Instructions       string          `json:"instructions"`
	Input              json.RawMessage `json:"input"`
	PreviousResponseID string          `json:"previous_response_id"`
	Tools              []struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

type responsesItem struct {
	Type      string          `json:"type"`
	Role      *string         `json:"role"`
	Content   json.RawMessage `json:"content"`
	ID        string          `json:"id"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

func responsesInvalid(msg, param, code string) *llmwire.Error {
	return &llmwire.Error{Status: http.StatusBadRequest, Message: msg, Type: "invalid_request_error", Param: param, Code: code}
}

// decodeResponses reads a Responses request, resolving item_reference
// items and previous_response_id from what the server answered before,
// and applies OpenAI's rules, with its error texts: message roles are
// known; a function_call_output answers a function_call before it; every
// function_call has its output.
func decodeResponses(m *Model, body []byte, _ *http.Request) (Request, any, *llmwire.Error) {
	req, items, err := readResponses(m, body)
	return req, items, err
}

func readResponses(m *Model, body []byte) (Request, []json.RawMessage, *llmwire.Error) {
	var w responsesRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, nil, responsesInvalid(fmt.Sprintf("request body is not a valid Responses request: %v", err), "", "")
	}
	req := Request{Wire: WireResponses, Model: w.Model, Stream: w.Stream, Body: body,
		Options: options(body, "model", "instructions", "input", "tools", "stream")}
	for _, t := range w.Tools {
		if t.Type == "function" {
			req.Tools = append(req.Tools, Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
		}
	}

	// The items: those of the previous response, then the input's.
	var raw []json.RawMessage
	var s string
	switch {
	case len(w.Input) == 0 || string(w.Input) == "null":
		return req, nil, responsesInvalid("Missing required parameter: 'input'.", "input", "missing_required_parameter")
	case json.Unmarshal(w.Input, &s) == nil:
		b, _ := json.Marshal(map[string]string{"role": "user", "content": s})
		raw = []json.RawMessage{b}
	default:
		if err := json.Unmarshal(w.Input, &raw); err != nil {
			return req, nil, responsesInvalid("Invalid type for 'input': expected a string or an array of input items.", "input", "invalid_type")
		}
	}
	m.mu.Lock()
	var prev []json.RawMessage
	if w.PreviousResponseID != "" {
		var ok bool
		if prev, ok = m.store.responses[w.PreviousResponseID]; !ok {
			m.mu.Unlock()
			return req, nil, &llmwire.Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("Previous response with id '%s' not found.", w.PreviousResponseID), Type: "invalid_request_error", Param: "previous_response_id", Code: "previous_response_not_found"}
		}
	}
	items := make([]json.RawMessage, 0, len(prev)+len(raw))
	items = append(items, prev...)
	for i, it := range raw {
		var ref struct{ Type, ID string }
		if json.Unmarshal(it, &ref) == nil && ref.Type == "item_reference" {
			stored, ok := m.store.items[ref.ID]
			if !ok {
				m.mu.Unlock()
				return req, nil, responsesInvalid(fmt.Sprintf("Item with id '%s' not found.", ref.ID), fmt.Sprintf("input[%d]", i), "")
			}
			it = stored
		}
		items = append(items, it)
	}
	m.mu.Unlock()

	if w.Instructions != "" {
		req.System = w.Instructions
		req.Messages = append(req.Messages, Message{Role: "system", Content: w.Instructions})
	}
	var system []string
	if req.System != "" {
		system = append(system, req.System)
	}
	var cur *Message // the assistant message being gathered
	calls := map[string]bool{}
	var order []string
	answered := map[string]bool{}
	for i, it := range items {
		n := i - len(prev) // the index in the request's input
		var x responsesItem
		if err := json.Unmarshal(it, &x); err != nil {
			return req, nil, responsesInvalid(fmt.Sprintf("Invalid input item at index %d.", n), fmt.Sprintf("input[%d]", n), "invalid_type")
		}
		if x.Type == "" && x.Role != nil || x.Type == "message" {
			role := ""
			if x.Role != nil {
				role = *x.Role
			}
			switch role {
			case "user", "assistant", "system", "developer":
			default:
				return req, nil, responsesInvalid(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", role), fmt.Sprintf("input[%d]", n), "invalid_value")
			}
			text, err := contentText(x.Content)
			if err != nil {
				return req, nil, responsesInvalid(fmt.Sprintf("Invalid content at input[%d]: %v.", n, err), fmt.Sprintf("input[%d].content", n), "invalid_type")
			}
			if role == "assistant" {
				if cur == nil {
					req.Messages = append(req.Messages, Message{Role: "assistant"})
					cur = &req.Messages[len(req.Messages)-1]
				}
				cur.Content += text
				continue
			}
			cur = nil
			if role == "system" || role == "developer" {
				system = append(system, text)
			}
			req.Messages = append(req.Messages, Message{Role: role, Content: text})
			continue
		}
		switch x.Type {
		case "reasoning", "function_call":
			if cur == nil {
				req.Messages = append(req.Messages, Message{Role: "assistant"})
				cur = &req.Messages[len(req.Messages)-1]
			}
			if x.Type == "reasoning" {
				for _, sm := range x.Summary {
					cur.Reasoning += sm.Text
				}
				continue
			}
			cur.Calls = append(cur.Calls, Call{ID: x.CallID, Name: x.Name, Args: x.Arguments})
			if !calls[x.CallID] {
				order = append(order, x.CallID)
			}
			calls[x.CallID] = true
		case "function_call_output":
			cur = nil
			if !calls[x.CallID] {
				return req, nil, responsesInvalid(fmt.Sprintf("No tool call found for function call output with call_id %s.", x.CallID), "input", "")
			}
			answered[x.CallID] = true
			out, _ := contentText(x.Output)
			req.Messages = append(req.Messages, Message{Role: "tool", ToolCallID: x.CallID, Content: out})
		default:
			cur = nil // an item of a built-in tool: not part of the neutral form
		}
	}
	req.System = strings.Join(system, "\n\n")
	for _, id := range order {
		if !answered[id] {
			return req, items, responsesInvalid(fmt.Sprintf("No tool output found for function call %s.", id), "input", "")
		}
	}
	return req, items, nil
}

// Item ids of a turn's output, the turn and the call counted from 1.
func messageItemID(turn int) string   { return "msg_scripted_" + strconv.Itoa(turn+1) }
func reasoningItemID(turn int) string { return "rs_scripted_" + strconv.Itoa(turn+1) }
func callItemID(turn, n int) string {
	return "fc_scripted_" + strconv.Itoa(turn+1) + "_" + strconv.Itoa(n+1)
}

// responseItems returns the finished output items of an answer, in the
// order the plan starts them.
func responseItems(a *answer) []json.RawMessage {
	var out []json.RawMessage
	for _, slot := range slotOrder(a) {
		out = append(out, appendItem(nil, a, slot, true))
	}
	return out
}

// appendItem appends the output item of a stream, finished or as added.
func appendItem(b []byte, a *answer, slot int, done bool) []byte {
	switch slot {
	case slotReasoning:
		b = append(b, `{"id":`...)
		b = appendString(b, reasoningItemID(a.turn))
		b = append(b, `,"type":"reasoning","summary":[`...)
		if done {
			b = append(b, `{"type":"summary_text","text":`...)
			b = appendString(b, a.t.Reasoning)
			b = append(b, '}')
		}
		return append(b, "]}"...)
	case slotText:
		b = append(b, `{"id":`...)
		b = appendString(b, messageItemID(a.turn))
		if !done {
			return append(b, `,"type":"message","status":"in_progress","content":[],"role":"assistant"}`...)
		}
		b = append(b, `,"type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":`...)
		b = appendString(b, a.t.text())
		return append(b, `}],"role":"assistant"}`...)
	}
	call := a.t.Calls[slot]
	b = append(b, `{"id":`...)
	b = appendString(b, callItemID(a.turn, slot))
	b = append(b, `,"type":"function_call","status":`...)
	args := ""
	if done {
		b = append(b, `"completed"`...)
		args = call.args()
	} else {
		b = append(b, `"in_progress"`...)
	}
	b = append(b, `,"arguments":`...)
	b = appendString(b, args)
	b = append(b, `,"call_id":`...)
	b = appendString(b, call.wireID(WireResponses, a.turn, slot))
	b = append(b, `,"name":`...)
	b = appendString(b, call.Name)
	return append(b, '}')
}

// responseStatus returns the status of a finished response and the reason
// it is incomplete, if it is.
func responseStatus(finish string) (status, reason string) {
	switch finish {
	case "length":
		return "incomplete", "max_output_tokens"
	case "content_filter":
		return "incomplete", "content_filter"
	}
	return "completed", ""
}

// appendResponse appends the response object in a state: in_progress
// (no output, no usage), or finished with its output.
func appendResponse(b []byte, a *answer, status, reason string, output []json.RawMessage, errJSON []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, responseID(a.turn))
	b = append(b, `,"object":"response","created_at":`...)
	b = strconv.AppendInt(b, clock.Epoch.Unix(), 10)
	b = append(b, `,"status":`...)
	b = appendString(b, status)
	b = append(b, `,"background":false,"error":`...)
	if errJSON != nil {
		b = append(b, errJSON...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"incomplete_details":`...)
	if reason != "" {
		b = append(b, `{"reason":`...)
		b = appendString(b, reason)
		b = append(b, '}')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"instructions":null,"max_output_tokens":null,"model":`...)
	b = appendString(b, a.model)
	b = append(b, `,"output":[`...)
	for i, it := range output {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	b = append(b, `],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"service_tier":"default","store":true,"temperature":1,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":1,"truncation":"disabled","usage":`...)
	if status == "in_progress" || status == "failed" {
		b = append(b, "null"...)
	} else {
		u := a.usage
		b = append(b, `{"input_tokens":`...)
		b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
		b = append(b, `,"input_tokens_details":{"cached_tokens":0},"output_tokens":`...)
		b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
		b = append(b, `,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":`...)
		b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
		b = append(b, '}')
	}
	return append(b, `,"user":null,"metadata":{}}`...)
}

// completeResponses renders the answer as one response object.
func completeResponses(a *answer) []byte {
	status, reason := responseStatus(a.t.finish())
	return appendResponse(nil, a, status, reason, responseItems(a), nil)
}

// A responsesEncoder writes an answer as Responses stream events: each
// stream of the plan (reasoning, text, each call) is an output item,
// added at its first delta and done after its last, numbered in the order
// they are added.
type responsesEncoder struct {
	carry
	seq   int
	index map[int]int // output_index by slot
	last  map[int]int
	next  int
	done  []json.RawMessage // finished items, for response.completed
}

func newResponsesEncoder(a *answer) *responsesEncoder {
	return &responsesEncoder{index: map[int]int{}, last: lastChunks(a)}
}

// event appends the start of an event of type typ, up to its
// sequence_number; the caller adds the rest of the object.
func (e *responsesEncoder) event(b []byte, typ string) []byte {
	b = appendEvent(b, typ)
	b = append(b, `{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","sequence_number":`...)
	b = strconv.AppendInt(b, int64(e.seq), 10)
	e.seq++
	return b
}

// itemFields appends "item_id" and "output_index" (and content_index or
// summary_index) of a stream's events.
func (e *responsesEncoder) itemFields(b []byte, a *answer, slot, idx int) []byte {
	b = append(b, `,"item_id":`...)
	switch slot {
	case slotReasoning:
		b = appendString(b, reasoningItemID(a.turn))
	case slotText:
		b = appendString(b, messageItemID(a.turn))
	default:
		b = appendString(b, callItemID(a.turn, slot))
	}
	b = append(b, `,"output_index":`...)
	b = strconv.AppendInt(b, int64(idx), 10)
	switch slot {
	case slotReasoning:
		b = append(b, `,"summary_index":0`...)
	case slotText:
		b = append(b, `,"content_index":0`...)
	}
	return b
}

func (e *responsesEncoder) chunk(b []byte, a *answer, i int) []byte {
	if i == 0 {
		for _, typ := range []string{"response.created", "response.in_progress"} {
			b = e.event(b, typ)
			b = append(b, `,"response":`...)
			b = appendResponse(b, a, "in_progress", "", nil, nil)
			b = append(b, "}\n\n"...)
		}
	}
	c := &a.chunks[i]
	switch c.kind() {
	case kindFinish:
		status, reason := responseStatus(c.Finish)
		typ := "response.completed"
		if status == "incomplete" {
			typ = "response.incomplete"
		}
		b = e.event(b, typ)
		b = append(b, `,"response":`...)
		b = appendResponse(b, a, status, reason, e.done, nil)
		return append(b, "}\n\n"...)
	case kindUsage:
		return b
	}
	slot := chunkSlot(a.t, a.turn, c)
	idx, open := e.index[slot]
	if !open {
		idx = e.next
		e.next++
		e.index[slot] = idx
		b = e.event(b, "response.output_item.added")
		b = append(b, `,"output_index":`...)
		b = strconv.AppendInt(b, int64(idx), 10)
		b = append(b, `,"item":`...)
		b = appendItem(b, a, slot, false)
		b = append(b, "}\n\n"...)
		switch slot {
		case slotReasoning:
			b = e.event(b, "response.reasoning_summary_part.added")
			b = e.itemFields(b, a, slot, idx)
			b = append(b, `,"part":{"type":"summary_text","text":""}}`+"\n\n"...)
		case slotText:
			b = e.event(b, "response.content_part.added")
			b = e.itemFields(b, a, slot, idx)
			b = append(b, `,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}}`+"\n\n"...)
		}
	}
	switch c.kind() {
	case kindReasoning:
		b = e.event(b, "response.reasoning_summary_text.delta")
		b = e.itemFields(b, a, slot, idx)
		b = append(b, `,"delta":`...)
		b = appendString(b, e.whole(carryKey{kind: kindReasoning}, c.Reasoning))
		b = append(b, "}\n\n"...)
	case kindText:
		b = e.event(b, "response.output_text.delta")
		b = e.itemFields(b, a, slot, idx)
		b = append(b, `,"delta":`...)
		b = appendString(b, e.whole(carryKey{kind: kindText}, c.Text))
		b = append(b, `,"logprobs":[]}`+"\n\n"...)
	case kindCall:
		if c.Call.Name == "" {
			b = e.event(b, "response.function_call_arguments.delta")
			b = e.itemFields(b, a, slot, idx)
			b = append(b, `,"delta":`...)
			b = appendString(b, e.whole(carryKey{kind: kindCall, idx: slot}, c.Call.Args))
			b = append(b, "}\n\n"...)
		}
	}
	if e.last[slot] != i {
		return b
	}
	switch slot {
	case slotReasoning:
		b = e.event(b, "response.reasoning_summary_text.done")
		b = e.itemFields(b, a, slot, idx)
		b = append(b, `,"text":`...)
		b = appendString(b, a.t.Reasoning)
		b = append(b, "}\n\n"...)
		b = e.event(b, "response.reasoning_summary_part.done")
		b = e.itemFields(b, a, slot, idx)
		b = append(b, `,"part":{"type":"summary_text","text":`...)
		b = appendString(b, a.t.Reasoning)
		b = append(b, "}}\n\n"...)
	case slotText:
		b = e.event(b, "response.output_text.done")
		b = e.itemFields(b, a, slot, idx)
		b = append(b, `,"text":`...)
		b = appendString(b, a.t.text())
		b = append(b, `,"logprobs":[]}`+"\n\n"...)
		b = e.event(b, "response.content_part.done")
		b = e.itemFields(b, a, slot, idx)
		b = append(b, `,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":`...)
		b = appendString(b, a.t.text())
		b = append(b, "}}\n\n"...)
	default:
		b = e.event(b, "response.function_call_arguments.done")
		b = e.itemFields(b, a, slot, idx)
		b = append(b, `,"arguments":`...)
		b = appendString(b, a.t.Calls[slot].args())
		b = append(b, "}\n\n"...)
	}
	item := appendItem(nil, a, slot, true)
	e.done = append(e.done, item)
	b = e.event(b, "response.output_item.done")
	b = append(b, `,"output_index":`...)
	b = strconv.AppendInt(b, int64(idx), 10)
	b = append(b, `,"item":`...)
	b = append(b, item...)
	return append(b, "}\n\n"...)
}

func (e *responsesEncoder) end(b []byte, _ *answer) []byte { return b }

// fail writes the "error" event and "response.failed", as OpenAI does
// when a response fails part way.
func (e *responsesEncoder) fail(b []byte, a *answer, f *Fault) []byte {
	oe := f.wireError(WireResponses)
	code := oe.Code
	if code == "" {
		code = oe.Type
	}
	b = e.event(b, "error")
	b = append(b, `,"error":`...)
	if f.Body != "" {
		b = append(b, f.Body...)
	} else {
		b = append(b, `{"type":`...)
		b = appendString(b, oe.Type)
		b = append(b, `,"code":`...)
		b = appendString(b, code)
		b = append(b, `,"message":`...)
		b = appendString(b, oe.Message)
		b = append(b, `,"param":null}`...)
	}
	b = append(b, "}\n\n"...)
	var ej []byte
	ej = append(ej, `{"code":`...)
	ej = appendString(ej, code)
	ej = append(ej, `,"message":`...)
	ej = appendString(ej, oe.Message)
	ej = append(ej, '}')
	b = e.event(b, "response.failed")
	b = append(b, `,"response":`...)
	b = appendResponse(b, a, "failed", "", e.done, ej)
	return append(b, "}\n\n"...)
}

func (e *responsesEncoder) malformed(b []byte, a *answer, f *Fault) []byte {
	b = appendEvent(b, "response.output_text.delta")
	if f.Data != "" {
		b = append(b, f.Data...)
	} else {
		b = append(b, `{"type":"response.output_text.delta","sequence_number":`...)
		b = strconv.AppendInt(b, int64(e.seq), 10)
		b = append(b, `,"item_id":"msg_`...)
	}
	return append(b, "\n\n"...)
}
