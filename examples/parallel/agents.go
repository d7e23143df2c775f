package parallel

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/scripted"
)

// Model is the LLM the agents ask: a streaming chat model. *scripted.Model
// is one.
type Model interface {
	Stream(ctx context.Context, req scripted.Request) (iter.Seq2[scripted.Chunk, error], error)
}

// Streaming forwards the model's answer as it arrives: each text delta as
// TEXT_MESSAGE_CONTENT, each call's first delta as TOOL_CALL_START and every
// argument fragment as TOOL_CALL_ARGS under that call's own id, so parallel
// calls interleave on the wire as they did on the provider's stream. The
// calls end when the stream does. Every call is left for the client to run.
type Streaming struct{ Model Model }

// Buffering keeps each call's fragments until the provider's stream ends,
// then emits each call whole: TOOL_CALL_START, one TOOL_CALL_ARGS,
// TOOL_CALL_END, in the order of the provider's indexes. Text is still
// forwarded as it arrives.
type Buffering struct{ Model Model }

// Run runs the agent once for in, handing each event to emit.
func (a Streaming) Run(ctx context.Context, in agui.RunAgentInput, emit func(agui.Event) error) error {
	return run(ctx, a.Model, in, emit, &streamCalls{})
}

// Run runs the agent once for in, handing each event to emit.
func (a Buffering) Run(ctx context.Context, in agui.RunAgentInput, emit func(agui.Event) error) error {
	return run(ctx, a.Model, in, emit, &bufferCalls{})
}

// calls is how an agent turns the call deltas of one model answer into
// events.
type calls interface {
	// delta handles one call delta; c is the call it belongs to, new
	// when first says so.
	delta(c *call, first bool, args string, emit func(agui.Event) error) error
	// end is called once the provider's stream has ended.
	end(all []*call, emit func(agui.Event) error) error
}

// call is one tool call of the model's answer.
type call struct {
	id, name string
	parent   string // the assistant message the call belongs to
	index    int    // the provider's index, or -1 when it gave none
	order    int    // position of its first delta among the calls
	args     strings.Builder
	carry    carry
}

func run(ctx context.Context, m Model, in agui.RunAgentInput, emit func(agui.Event) error, cs calls) error {
	if err := emit(agui.NewRunStarted(in.ThreadID, in.RunID)); err != nil {
		return err
	}
	stream, err := m.Stream(ctx, toRequest(in))
	if err != nil {
		return emit(agui.NewRunError("the model could not answer: "+err.Error(), "PROVIDER_ERROR"))
	}
	msgID := in.RunID + "-msg"
	textOpen := false
	var text carry
	var all []*call
	byKey := map[string]*call{}
	lastKey := ""
	for chunk, err := range stream {
		if err != nil {
			return emit(agui.NewRunError("the model's answer broke off: "+err.Error(), "PROVIDER_ERROR"))
		}
		switch {
		case chunk.Text != "":
			// Empty deltas are skipped: TEXT_MESSAGE_CONTENT must
			// carry text.
			delta := text.next(chunk.Text)
			if delta == "" {
				continue
			}
			if !textOpen {
				textOpen = true
				if err := emit(agui.NewTextMessageStart(msgID)); err != nil {
					return err
				}
			}
			if err := emit(agui.NewTextMessageContent(msgID, delta)); err != nil {
				return err
			}
		case chunk.Call != nil:
			d := chunk.Call
			// OpenAI keys a call's deltas by index; providers that
			// omit it repeat the id on every delta instead.
			key := "id:" + d.ID
			if d.Index >= 0 {
				key = fmt.Sprint(d.Index)
			} else if d.ID == "" {
				key = lastKey
			}
			lastKey = key
			c, ok := byKey[key]
			if !ok {
				c = &call{
					id:     fmt.Sprintf("%s-call-%d", in.RunID, len(all)),
					name:   d.Name,
					parent: msgID,
					index:  d.Index,
					order:  len(all),
				}
				byKey[key] = c
				all = append(all, c)
			}
			if err := cs.delta(c, !ok, d.Args, emit); err != nil {
				return err
			}
		}
	}
	if textOpen {
		if err := emit(agui.NewTextMessageEnd(msgID)); err != nil {
			return err
		}
	}
	if err := cs.end(all, emit); err != nil {
		return err
	}
	return emit(agui.NewRunFinished(in.ThreadID, in.RunID))
}

type streamCalls struct{}

func (s *streamCalls) delta(c *call, first bool, args string, emit func(agui.Event) error) error {
	if first {
		if err := emit(agui.NewToolCallStart(c.id, c.name, c.parent)); err != nil {
			return err
		}
	}
	// A provider may cut inside a character (the Go-native stream passes
	// such cuts on); an event is JSON and cannot carry half a character,
	// so the leading bytes wait for the rest.
	if delta := c.carry.next(args); delta != "" {
		c.args.WriteString(delta)
		return emit(agui.NewToolCallArgs(c.id, delta))
	}
	return nil
}

func (s *streamCalls) end(all []*call, emit func(agui.Event) error) error {
	for _, c := range all {
		if rest := c.carry.flush(); rest != "" {
			if err := emit(agui.NewToolCallArgs(c.id, rest)); err != nil {
				return err
			}
		}
		if err := emit(agui.NewToolCallEnd(c.id)); err != nil {
			return err
		}
	}
	return nil
}

type bufferCalls struct{}

func (bufferCalls) delta(c *call, _ bool, args string, _ func(agui.Event) error) error {
	c.args.WriteString(args)
	return nil
}

func (bufferCalls) end(all []*call, emit func(agui.Event) error) error {
	all = slices.Clone(all)
	slices.SortStableFunc(all, func(a, b *call) int {
		if a.index >= 0 && b.index >= 0 {
			return a.index - b.index
		}
		return a.order - b.order
	})
	for _, c := range all {
		args := c.args.String()
		if args == "" {
			args = "{}"
		}
		for _, e := range []agui.Event{
			agui.NewToolCallStart(c.id, c.name, c.parent),
			agui.NewToolCallArgs(c.id, args),
			agui.NewToolCallEnd(c.id),
		} {
			if err := emit(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// carry holds back the bytes of a character a fragment cut in two, so that
// every delta forwarded is whole UTF-8.
type carry struct{ held string }

// next returns what of held+frag can be forwarded and keeps the rest.
func (c *carry) next(frag string) string {
	s := c.held + frag
	cut := len(s)
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				cut = i
			}
			break
		}
	}
	c.held = s[cut:]
	return s[:cut]
}

// flush returns what is still held: bytes of a character the stream never
// finished.
func (c *carry) flush() string {
	s := c.held
	c.held = ""
	return s
}

// toRequest turns a run's input into what the model is asked: the
// conversation and the client's tools. A failed tool reaches the model as a
// result saying so.
func toRequest(in agui.RunAgentInput) scripted.Request {
	var req scripted.Request
	for _, m := range in.Messages {
		sm := scripted.Message{Role: string(m.Role), Content: m.Content.Text, ToolCallID: m.ToolCallID}
		if m.Role == agui.RoleTool && m.Error != "" {
			sm.Content = "error: " + m.Error
		}
		for _, tc := range m.ToolCalls {
			sm.Calls = append(sm.Calls, scripted.Call{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, sm)
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, scripted.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return req
}
