package scripted

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/internal/llmwire"
)

// A Wire is a provider protocol the [Server] speaks. The server tells them
// apart by the request path, so one base URL serves them all.
type Wire string

// The wires. A [Request] of the Go-native [Model] has no wire ("").
const (
	// WireChat is OpenAI Chat Completions: POST …/chat/completions.
	WireChat Wire = Wire(llmwire.Chat)
	// WireResponses is OpenAI Responses: POST …/responses.
	WireResponses Wire = Wire(llmwire.Responses)
	// WireAnthropic is Anthropic Messages: POST …/messages.
	WireAnthropic Wire = Wire(llmwire.Anthropic)
	// WireGemini is Gemini: POST …/models/{model}:streamGenerateContent
	// (?alt=sse for server-sent events) and …:generateContent, under
	// /v1beta or /v1.
	WireGemini Wire = Wire(llmwire.Gemini)
	// WireAzureChat is Chat Completions on Azure OpenAI: POST
	// …/openai/deployments/{deployment}/chat/completions?api-version=…
	// and …/openai/v1/chat/completions, with Azure's content filter
	// results and error shapes.
	WireAzureChat Wire = Wire(llmwire.AzureChat)
	// WireAzureResponses is Responses on Azure OpenAI: POST
	// …/openai/responses?api-version=…, …/openai/v1/responses and
	// …/openai/deployments/{deployment}/responses.
	WireAzureResponses Wire = Wire(llmwire.AzureResponses)
	// WireVertex is Gemini on Vertex AI: POST
	// …/projects/{p}/locations/{l}/publishers/google/models/{model}:streamGenerateContent
	// and …:generateContent.
	WireVertex Wire = Wire(llmwire.Vertex)
	// WireBedrock is Bedrock's Converse API: POST
	// …/model/{modelId}/converse-stream (events in the
	// application/vnd.amazon.eventstream framing) and …/converse.
	WireBedrock Wire = Wire(llmwire.Bedrock)
	// WireOllama is Ollama's native chat API: POST …/api/chat
	// (newline-delimited JSON; calls without ids).
	WireOllama Wire = Wire(llmwire.Ollama)
)

// Wires lists the wires the Server speaks.
var Wires = []Wire{WireChat, WireResponses, WireAnthropic, WireGemini, WireAzureChat, WireAzureResponses, WireVertex, WireBedrock, WireOllama}

// base returns the wire whose messages w speaks (Chat Completions for
// Azure's, Gemini for Vertex AI's), or w.
func (w Wire) base() Wire { return Wire(llmwire.Wire(w).Base()) }

// wholeCalls reports whether w sends each call whole, its arguments an
// object in one part (Gemini, Vertex AI, Ollama).
func (w Wire) wholeCalls() bool {
	b := w.base()
	return b == WireGemini || b == WireOllama
}

// String returns the wire's name as its provider calls it, e.g.
// "Anthropic Messages".
func (w Wire) String() string {
	if w == "" {
		return "Go-native"
	}
	return llmwire.Wire(w).String()
}

// wireID returns the id call n of turn t has on wire w: its own ID, or a
// default in the wire's style (call_<t>_<n>, toolu_<t>_<n> on Anthropic,
// counted from 1).
func (c Call) wireID(w Wire, t, n int) string {
	if c.ID != "" {
		return c.ID
	}
	switch w {
	case WireAnthropic:
		return fmt.Sprintf("toolu_%d_%d", t+1, n+1)
	case WireBedrock:
		return fmt.Sprintf("tooluse_%d_%d", t+1, n+1)
	}
	return c.callID(t, n)
}

// sameCallID reports whether got names the scripted call id want on wire
// w: the id itself, or its default form on the wire.
func sameCallID(w Wire, want, got string) bool {
	if want == got {
		return true
	}
	if w == WireAnthropic || w == WireBedrock {
		if rest, ok := strings.CutPrefix(want, "call_"); ok && isDefaultSuffix(rest) {
			return got == strings.TrimSuffix(Call{}.wireID(w, 0, 0), "1_1")+rest
		}
	}
	return false
}

// isDefaultSuffix reports whether s reads "<digits>_<digits>".
func isDefaultSuffix(s string) bool {
	a, b, ok := strings.Cut(s, "_")
	return ok && digits(a) && digits(b)
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ValidateWire reports every turn of s whose plan or calls wire w cannot
// express, naming the wire and the turn. The server answers such a turn
// with an error instead of a stream; ValidateWire finds them before any
// request is made. stream says whether the requests will ask for a stream
// (a few things only a stream can express).
func (s *Script) ValidateWire(w Wire, stream bool) error {
	var errs []error
	for i := range s.Turns {
		t := &s.Turns[i]
		if err := t.expressible(w, t.Plan.over(s.Plan), i, stream); err != nil {
			errs = append(errs, fmt.Errorf("%sturn %d: %w", s.where(i), i+1, err))
		}
	}
	return errors.Join(errs...)
}

// expressible returns why wire w cannot carry turn t under plan p, or nil.
func (t *Turn) expressible(w Wire, p Plan, ti int, stream bool) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("the %s wire cannot express "+format, append([]any{w}, args...)...)
	}
	if g := t.Generate; g != nil {
		// The calls to be generated, as far as they are known before any
		// request: objects, as many as the tools named (two when all are).
		gt := *t
		gt.Generate = nil
		gt.Calls = slices.Clone(t.Calls)
		n := max(len(g.Tools), 2)
		if len(g.Tools) == 1 {
			n = 1
		}
		for k := range n {
			gt.Calls = append(gt.Calls, Call{Name: "generated", Args: `{"generated":` + strconv.Itoa(k) + `}`})
		}
		t = &gt
	}
	noArgs := false
	for _, c := range t.Calls {
		noArgs = noArgs || c.noArgs()
	}
	switch w.base() {
	case WireResponses:
		if p.IDs == IDsNoIndex {
			return fail("ids=%s: every Responses event names its item by output_index and item_id", p.IDs)
		}
		if p.Split.WithName && len(t.Calls) > 0 {
			return fail("split with_name: a function_call item is added with no arguments, which follow in their own events")
		}
		if p.Split.NoArgs && noArgs {
			return fail("split no_args: response.function_call_arguments.done carries the arguments whole")
		}
	case WireAnthropic:
		if t.Reasoning != "" {
			if c := planChunks(t, ti, p, nil, false); len(c) > 0 && c[0].Reasoning == "" {
				return fail("reasoning after another block: an Anthropic message starts with its thinking block, and the API refuses the message sent back otherwise")
			}
		}
		if p.IDs != IDsFirst {
			return fail("ids=%s: a content_block_delta names its block by index only", p.IDs)
		}
		if p.Split.WithName && len(t.Calls) > 0 {
			return fail("split with_name: a tool_use block starts with input {}, and its arguments follow as input_json_delta")
		}
		if !stream {
			for n, c := range t.Calls {
				if !isObject(c.args()) {
					return fail("call %d (%s): a non-streamed tool_use carries its input as a JSON object, and the args are not one", n+1, c.Name)
				}
			}
		}
	case WireBedrock:
		if t.Reasoning != "" {
			if c := planChunks(t, ti, p, nil, false); len(c) > 0 && c[0].Reasoning == "" {
				return fail("reasoning after another block: a Converse message starts with its reasoningContent block, and the models that reason refuse the message sent back otherwise")
			}
		}
		if p.IDs != IDsFirst {
			return fail("ids=%s: a contentBlockDelta names its block by contentBlockIndex only", p.IDs)
		}
		if p.Split.WithName && len(t.Calls) > 0 {
			return fail("split with_name: a contentBlockStart names the tool and carries no input, which follows in contentBlockDelta events")
		}
		if !stream {
			for n, c := range t.Calls {
				if !isObject(c.args()) {
					return fail("call %d (%s): a Converse toolUse carries its input as a JSON object, and the args are not one", n+1, c.Name)
				}
			}
		}
	case WireGemini, WireOllama:
		part, args := "functionCall part", "functionCall args"
		if w == WireOllama {
			part, args = "tool call", "Ollama's tool call arguments"
		}
		if p.Split.NoArgs && noArgs {
			if w == WireGemini {
				return fail("split no_args: a functionCall part carries its args object whole")
			}
			return fail("split no_args: a tool call carries its arguments object whole")
		}
		for n, c := range t.Calls {
			if len(c.Fragments) > 1 {
				return fail("the fragments of call %d (%s): a %s arrives whole", n+1, c.Name, part)
			}
			if !isObject(c.args()) {
				return fail("call %d (%s): %s are a JSON object, and the args are not one", n+1, c.Name, args)
			}
		}
		if len(t.Calls) > 1 {
			switch p.Order.By {
			case RoundRobin, Shuffle:
				return fail("order=%s: each %s arrives whole, so calls cannot interleave (use sequential, reverse or a schedule naming each call once)", p.Order.By, part)
			case Scheduled:
				seen := map[int]bool{}
				for _, e := range strings.Fields(p.Order.Schedule) {
					slot, err := resolve(e, t.Calls, ti)
					if err == nil && slot >= 0 {
						if seen[slot] {
							return fail("schedule %q: it names call %q twice, and a %s arrives whole", p.Order.Schedule, e, part)
						}
						seen[slot] = true
					}
				}
			}
		}
	}
	return nil
}

func isObject(s string) bool {
	var v map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &v) == nil && v != nil
}

// CallID returns the id call n of turn t (both counted from 0) has on
// wire w: its own ID, or the default in the wire's style (call_<t>_<n>,
// toolu_<t>_<n> on Anthropic, counted from 1). Wire "" is the Go-native
// model's.
func (s *Script) CallID(w Wire, t, n int) string { return s.Turns[t].Calls[n].wireID(w, t, n) }
