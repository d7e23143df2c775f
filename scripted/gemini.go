package scripted

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/internal/llmwire"
)

// The Gemini wire: POST …/models/{model}:streamGenerateContent and
// …:generateContent.
var geminiWire = &wireSpec{
	wire: WireGemini,
	decode: func(_ *Model, body []byte, r *http.Request) (Request, any, *llmwire.Error) {
		req, err := decodeGemini(body, r.URL.Path) // it checks the conversation too, as it knows the parts
		return req, nil, err
	},
	encoder:  func(a *answer) streamEncoder { return &geminiEncoder{} },
	complete: completeGemini,
}

type geminiRequest struct {
	Contents          []geminiContent `json:"contents"`
	SystemInstruction *geminiContent  `json:"systemInstruction"`
	SystemSnake       *geminiContent  `json:"system_instruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name                 string          `json:"name"`
			Description          string          `json:"description"`
			Parameters           json.RawMessage `json:"parameters"`
			ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

type geminiContent struct {
	Role  string `json:"role"`
	Parts []struct {
		Text         *string `json:"text"`
		Thought      bool    `json:"thought"`
		FunctionCall *struct {
			ID   string          `json:"id"`
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		} `json:"functionCall"`
		FunctionResponse *struct {
			ID       string          `json:"id"`
			Name     string          `json:"name"`
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	} `json:"parts"`
}

// counts returns the numbers of functionCall and functionResponse parts.
func (c *geminiContent) counts() (calls, responses int) {
	for _, p := range c.Parts {
		if p.FunctionCall != nil {
			calls++
		}
		if p.FunctionResponse != nil {
			responses++
		}
	}
	return calls, responses
}

func geminiInvalid(msg string) *llmwire.Error {
	return &llmwire.Error{Status: http.StatusBadRequest, Message: msg, Type: "INVALID_ARGUMENT"}
}

// decodeGemini reads a generateContent request and applies Gemini's rules
// on the conversation, with its error texts: roles are user or model; a
// function call turn follows a user turn or a function response turn; a
// function response turn follows the function call turn it answers, with
// as many responses as there were calls.
func decodeGemini(body []byte, path string) (Request, *llmwire.Error) {
	model, stream, _ := llmwire.GeminiModel(path)
	var w geminiRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, geminiInvalid(fmt.Sprintf("Invalid JSON payload received. %v", err))
	}
	req := Request{Wire: WireGemini, Model: model, Stream: stream, Body: body,
		Options: options(body, "contents", "systemInstruction", "system_instruction", "tools")}
	for _, t := range w.Tools {
		for _, f := range t.FunctionDeclarations {
			params := f.Parameters
			if len(params) == 0 {
				params = f.ParametersJSONSchema
			}
			req.Tools = append(req.Tools, Tool{Name: f.Name, Description: f.Description, Parameters: params})
		}
	}
	sys := w.SystemInstruction
	if sys == nil {
		sys = w.SystemSnake
	}
	if sys != nil {
		var parts []string
		for _, p := range sys.Parts {
			if p.Text != nil {
				parts = append(parts, *p.Text)
			}
		}
		req.System = strings.Join(parts, "\n\n")
		req.Messages = append(req.Messages, Message{Role: "system", Content: req.System})
	}
	if len(w.Contents) == 0 {
		return req, geminiInvalid("* GenerateContentRequest.contents: contents is not specified\n")
	}
	for i := range w.Contents {
		c := &w.Contents[i]
		switch c.Role {
		case "", "user", "model", "function":
		default:
			return req, geminiInvalid("Please use a valid role: user, model.")
		}
		req.Messages = append(req.Messages, geminiMessages(c)...)
	}
	for i := range w.Contents {
		c := &w.Contents[i]
		calls, responses := c.counts()
		if calls > 0 {
			ok := i > 0
			if ok {
				prev := &w.Contents[i-1]
				_, prevResponses := prev.counts()
				ok = prev.Role != "model" && (prevResponses > 0 || hasText(prev))
			}
			if !ok {
				return req, geminiInvalid("Please ensure that function call turn comes immediately after a user turn or after a function response turn.")
			}
			if i+1 < len(w.Contents) {
				if _, next := w.Contents[i+1].counts(); next != calls {
					if next == 0 {
						return req, geminiInvalid("Please ensure that function response turn comes immediately after a function call turn.")
					}
					return req, geminiInvalid("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.")
				}
			}
		}
		if responses > 0 {
			if i == 0 {
				return req, geminiInvalid("Please ensure that function response turn comes immediately after a function call turn.")
			}
			prevCalls, _ := w.Contents[i-1].counts()
			if prevCalls == 0 {
				return req, geminiInvalid("Please ensure that function response turn comes immediately after a function call turn.")
			}
			if prevCalls != responses {
				return req, geminiInvalid("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.")
			}
		}
	}
	return req, nil
}

func hasText(c *geminiContent) bool {
	for _, p := range c.Parts {
		if p.Text != nil {
			return true
		}
	}
	return false
}

// geminiMessages turns one content into neutral messages: a model content
// into an assistant message (text, thoughts, calls); a user content into
// a tool message per functionResponse and a user message per run of text.
func geminiMessages(c *geminiContent) []Message {
	if c.Role == "model" {
		m := Message{Role: "assistant"}
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				m.Calls = append(m.Calls, Call{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: compactJSON(p.FunctionCall.Args)})
			case p.Text != nil && p.Thought:
				m.Reasoning += *p.Text
			case p.Text != nil:
				m.Content += *p.Text
			}
		}
		return []Message{m}
	}
	var out []Message
	user := -1
	for _, p := range c.Parts {
		switch {
		case p.FunctionResponse != nil:
			out = append(out, Message{Role: "tool", ToolCallID: p.FunctionResponse.ID, Name: p.FunctionResponse.Name, Content: compactJSON(p.FunctionResponse.Response)})
			user = -1
		case p.Text != nil:
			if user < 0 {
				out = append(out, Message{Role: "user"})
				user = len(out) - 1
			}
			out[user].Content += *p.Text
		}
	}
	if len(out) == 0 {
		out = append(out, Message{Role: "user"})
	}
	return out
}

// geminiFinish maps a finish reason to Gemini's.
func geminiFinish(finish string) string {
	switch finish {
	case "stop", "tool_calls":
		return "STOP"
	case "length":
		return "MAX_TOKENS"
	case "content_filter":
		return "SAFETY"
	}
	return finish
}

func thoughtSignature(turn int) string {
	return base64.StdEncoding.EncodeToString([]byte("aguitest scripted thought signature, turn " + strconv.Itoa(turn+1)))
}

// appendCallPart appends the functionCall part of call n.
func appendCallPart(b []byte, a *answer, n int, signed bool) []byte {
	call := a.t.Calls[n]
	b = append(b, `{"functionCall":{"id":`...)
	b = appendString(b, call.wireID(WireGemini, a.turn, n))
	b = append(b, `,"name":`...)
	b = appendString(b, call.Name)
	b = append(b, `,"args":`...)
	b = append(b, compactJSON(json.RawMessage(call.args()))...)
	b = append(b, '}')
	if signed {
		b = append(b, `,"thoughtSignature":`...)
		b = appendString(b, thoughtSignature(a.turn))
	}
	return append(b, '}')
}

// appendGeminiTail appends what follows a candidate's content: the finish
// reason when given, usage, model version and response id.
func appendGeminiTail(b []byte, a *answer, finish string) []byte {
	b = append(b, `,"role":"model"},`...)
	if finish != "" {
		b = append(b, `"finishReason":`...)
		b = appendString(b, finish)
		b = append(b, ',')
	}
	u := a.usage
	b = append(b, `"index":0}],"usageMetadata":{"promptTokenCount":`...)
	b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
	b = append(b, `,"candidatesTokenCount":`...)
	b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
	b = append(b, `,"totalTokenCount":`...)
	b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
	b = append(b, `,"promptTokensDetails":[{"modality":"TEXT","tokenCount":`...)
	b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
	b = append(b, `}]},"modelVersion":`...)
	b = appendString(b, a.model)
	if a.req.Wire == WireVertex {
		b = append(b, `,"createTime":`...)
		b = appendString(b, createdAt)
	}
	b = append(b, `,"responseId":"scripted-`...)
	b = strconv.AppendInt(b, int64(a.turn+1), 10)
	return append(b, `"}`...)
}

// A geminiEncoder writes an answer as GenerateContentResponse chunks, one
// part each: server-sent events, or the elements of a JSON array when the
// client did not ask for alt=sse. A call is sent whole, at its last delta.
type geminiEncoder struct {
	carry
	array  bool
	n      int
	last   map[int]int
	signed bool
}

// open appends what precedes an event's JSON.
func (e *geminiEncoder) open(b []byte) []byte {
	e.n++
	switch {
	case !e.array:
		return append(b, "data: "...)
	case e.n == 1:
		return append(b, '[')
	}
	return append(b, ",\r\n"...)
}

// close appends what follows an event's JSON.
func (e *geminiEncoder) close(b []byte) []byte {
	if e.array {
		return b
	}
	return append(b, "\r\n\r\n"...)
}

func (e *geminiEncoder) chunk(b []byte, a *answer, i int) []byte {
	if e.last == nil {
		e.last = lastChunks(a)
	}
	c := &a.chunks[i]
	var part []byte
	finish := ""
	switch c.kind() {
	case kindUsage:
		return b
	case kindFinish:
		part = []byte(`{"text":""}`)
		finish = geminiFinish(c.Finish)
	case kindText:
		part = appendString(append(part, `{"text":`...), e.whole(carryKey{kind: kindText}, c.Text))
		part = append(part, '}')
	case kindReasoning:
		part = appendString(append(part, `{"text":`...), e.whole(carryKey{kind: kindReasoning}, c.Reasoning))
		part = append(part, `,"thought":true}`...)
	case kindCall:
		slot := chunkSlot(a.t, a.turn, c)
		if e.last[slot] != i {
			return b
		}
		part = appendCallPart(part, a, slot, a.t.Reasoning != "" && !e.signed)
		e.signed = true
	}
	b = e.open(b)
	b = append(b, `{"candidates":[{"content":{"parts":[`...)
	b = append(b, part...)
	b = append(b, ']')
	b = appendGeminiTail(b, a, finish)
	return e.close(b)
}

func (e *geminiEncoder) end(b []byte, _ *answer) []byte {
	if !e.array {
		return b
	}
	if e.n == 0 {
		return append(b, "[]"...)
	}
	return append(b, ']')
}

// fail sends the error object Gemini streams in place of a chunk.
func (e *geminiEncoder) fail(b []byte, a *answer, f *Fault) []byte {
	b = e.open(b)
	b = append(b, f.errorBody(WireGemini)...)
	b = e.close(b)
	return e.end(b, a)
}

func (e *geminiEncoder) malformed(b []byte, _ *answer, f *Fault) []byte {
	b = e.open(b)
	if f.Data != "" {
		b = append(b, f.Data...)
	} else {
		b = append(b, `{"candidates":[{"content":{"parts":[{"text":"`...)
	}
	return e.close(b)
}

// completeGemini renders the answer as one GenerateContentResponse.
func completeGemini(a *answer) []byte {
	var b []byte
	b = append(b, `{"candidates":[{"content":{"parts":[`...)
	signed := false
	for k, slot := range slotOrder(a) {
		if k > 0 {
			b = append(b, ',')
		}
		switch slot {
		case slotReasoning:
			b = append(b, `{"text":`...)
			b = appendString(b, a.t.Reasoning)
			b = append(b, `,"thought":true}`...)
		case slotText:
			b = append(b, `{"text":`...)
			b = appendString(b, a.t.text())
			b = append(b, '}')
		default:
			b = appendCallPart(b, a, slot, a.t.Reasoning != "" && !signed)
			signed = true
		}
	}
	b = append(b, ']')
	return appendGeminiTail(b, a, geminiFinish(a.t.finish()))
}
