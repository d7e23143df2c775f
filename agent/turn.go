package agent

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// CallDelta is a piece of a tool call as a provider streams it.
type CallDelta struct {
	// Index is the provider's index of the call in its answer (OpenAI's
	// index, a Responses output_index, an Anthropic content block index);
	// -1 when the delta has none.
	Index int
	// ID is the provider's call id, when the delta carries it.
	ID string
	// Name is the tool's name, on the call's first delta.
	Name string
	// Args is a fragment of the arguments' JSON text.
	Args string
}

// TurnOptions configures a Turn.
type TurnOptions struct {
	// Buffered keeps each call's arguments until the answer is complete,
	// then sends each call whole (TOOL_CALL_START, one TOOL_CALL_ARGS,
	// TOOL_CALL_END) in the provider's index order. The zero value streams:
	// each call opens at its first delta and each fragment goes out as it
	// arrives under the call's own id, so parallel calls interleave on the
	// wire as they did on the provider's stream.
	Buffered bool
	// KeepOpen leaves the calls open when the answer is complete, for the
	// agent to work while they are open (publish state, say) and end them
	// with ToolCall.Result or ToolCall.End.
	KeepOpen bool
	// MessageID is the id of the assistant message the answer's text goes
	// to and its calls belong to (their parentMessageId); "" allocates one.
	MessageID string
	// ProviderIDs gives each call the provider's call id (from its first
	// delta) instead of one the run allocates. The id must not have been
	// used in the run: the call then fails to open with an *Error.
	ProviderIDs bool
	// Gate, when set, is asked about each call's tool name before the call
	// opens; its error stops the turn (Call returns it) with nothing sent
	// for that call. An agent's own rule, such as refusing tools the client
	// did not offer, goes here.
	Gate func(name string) error
}

// Turn turns one answer of a model, as a provider streams it, into the
// run's events: text deltas into a text message, reasoning deltas into a
// reasoning message, call deltas into tool calls, streamed with distinct
// ids or buffered per call. Provider bridges feed it; it is the one place
// where provider deltas become AG-UI events.
//
// A call is complete only when the provider says so: CallDone for a
// provider that ends each call (Responses, Anthropic), End for one that
// ends them all with the answer (Chat Completions' finish_reason). Nothing
// else closes a call: a switch to another call's deltas says nothing about
// the first.
//
// A Turn belongs to one goroutine.
type Turn struct {
	r         *Run
	opt       TurnOptions
	msgID     string
	text      *Text
	textBuf   strings.Builder
	reasoning *Reasoning
	reasonBuf strings.Builder
	calls     []*turnCall
	byKey     map[string]*turnCall
	lastKey   string
	ended     bool
}

type turnCall struct {
	index, order int
	name, id     string
	args         strings.Builder // buffered arguments
	h            *ToolCall
	done         bool
}

// Answer is what a model answered in a turn, for the agent to act on and to
// send back to the model with the conversation.
type Answer struct {
	// MessageID is the assistant message's id (the calls' parent).
	MessageID string
	// Text is the answer's text; Reasoning its reasoning text.
	Text, Reasoning string
	// Calls are the answer's tool calls in the provider's index order
	// (the order of their first deltas where the provider gives no
	// index). They have ended unless TurnOptions.KeepOpen was set.
	Calls []*ToolCall
}

// Turn starts a model's answer. Nothing is sent until the first delta.
func (r *Run) Turn(opt TurnOptions) *Turn {
	t := &Turn{r: r, opt: opt, msgID: opt.MessageID, byKey: map[string]*turnCall{}}
	if t.msgID == "" {
		r.mu.Lock()
		t.msgID = r.newID(IDMessage)
		r.mu.Unlock()
	}
	return t
}

// MessageID returns the id of the answer's assistant message.
func (t *Turn) MessageID() string { return t.msgID }

// Text adds a delta of the answer's text; the text message starts with the
// first non-empty one.
func (t *Turn) Text(delta string) error {
	if delta == "" {
		return nil
	}
	if t.text == nil {
		text, err := t.r.TextWithID(t.msgID)
		if err != nil {
			return err
		}
		t.text = text
	}
	if err := t.text.Delta(delta); err != nil {
		return err
	}
	t.textBuf.WriteString(delta)
	return nil
}

// Reasoning adds a delta of the answer's reasoning; a reasoning message
// starts with the first non-empty one (and after ReasoningDone, a new one).
func (t *Turn) Reasoning(delta string) error {
	if delta == "" {
		return nil
	}
	if t.reasoning == nil {
		g, err := t.r.Reasoning()
		if err != nil {
			return err
		}
		t.reasoning = g
	}
	if err := t.reasoning.Delta(delta); err != nil {
		return err
	}
	t.reasonBuf.WriteString(delta)
	return nil
}

// ReasoningDone ends the reasoning message, when the provider says its
// reasoning is complete; encrypted, when not empty, is its opaque artefact
// (an Anthropic thinking signature, encrypted reasoning), sent as
// REASONING_ENCRYPTED_VALUE first.
func (t *Turn) ReasoningDone(encrypted string) error {
	g := t.reasoning
	if g == nil {
		return nil
	}
	if encrypted != "" {
		if err := g.EncryptedValue(encrypted); err != nil {
			return err
		}
	}
	t.reasoning = nil
	return g.End()
}

// key identifies the call a delta belongs to: by index when it has one,
// else by id, else the call of the previous delta.
func (t *Turn) key(d CallDelta) string {
	switch {
	case d.Index >= 0:
		return "#" + strconv.Itoa(d.Index)
	case d.ID != "":
		return "id:" + d.ID
	}
	return t.lastKey
}

// Call adds a delta of a tool call. The call opens at its first delta
// (streamed) or is kept for End (buffered).
func (t *Turn) Call(d CallDelta) error {
	k := t.key(d)
	c, ok := t.byKey[k]
	if !ok {
		if t.opt.Gate != nil {
			if err := t.opt.Gate(d.Name); err != nil {
				return err
			}
		}
		c = &turnCall{index: d.Index, order: len(t.calls), name: d.Name}
		if t.opt.ProviderIDs {
			c.id = d.ID
		}
		if !t.opt.Buffered {
			h, err := t.r.StartToolCall(ToolCallSpec{ID: c.id, Name: d.Name, ParentMessageID: t.msgID})
			if err != nil {
				return err
			}
			c.h = h
		}
		t.byKey[k] = c
		t.calls = append(t.calls, c)
	}
	t.lastKey = k
	if c.h != nil {
		return c.h.Args(d.Args)
	}
	c.args.WriteString(d.Args)
	return nil
}

// CallDone says the provider has completed the call d identifies: a
// streamed call ends now (unless KeepOpen), a buffered one waits for End.
func (t *Turn) CallDone(d CallDelta) error {
	c, ok := t.byKey[t.key(d)]
	if !ok || c.done {
		return nil
	}
	c.done = true
	if c.h != nil && !t.opt.KeepOpen {
		return c.h.End()
	}
	return nil
}

// End completes the answer, when the provider says it is complete: the
// reasoning and text messages end, then each call (buffered calls are sent
// whole, in index order), and it returns the answer. A stream that broke
// off is not complete: do not call End, fail the run instead.
func (t *Turn) End() (*Answer, error) {
	a := &Answer{MessageID: t.msgID, Text: t.textBuf.String(), Reasoning: t.reasonBuf.String()}
	if t.ended {
		return nil, errors.New("agent: Turn.End: the turn has already ended")
	}
	t.ended = true
	if err := t.ReasoningDone(""); err != nil {
		return nil, err
	}
	if t.text != nil {
		if err := t.text.End(); err != nil {
			return nil, err
		}
	}
	calls := slices.Clone(t.calls)
	slices.SortStableFunc(calls, func(a, b *turnCall) int {
		if a.index >= 0 && b.index >= 0 {
			return cmp.Compare(a.index, b.index)
		}
		return cmp.Compare(a.order, b.order)
	})
	for _, c := range calls {
		if c.h == nil {
			h, err := t.r.StartToolCall(ToolCallSpec{ID: c.id, Name: c.name, ParentMessageID: t.msgID})
			if err != nil {
				return nil, err
			}
			c.h = h
			args := c.args.String()
			if args == "" {
				args = "{}"
			}
			if err := h.Args(args); err != nil {
				return nil, err
			}
		}
		if !t.opt.KeepOpen {
			if err := c.h.End(); err != nil {
				return nil, err
			}
		}
		a.Calls = append(a.Calls, c.h)
	}
	return a, nil
}

// Stream is a provider's stream of events as the SDKs' ssestream.Stream
// reads it.
type Stream[E any] interface {
	Next() bool
	Current() E
	Err() error
}

// Consume reads a provider's stream into turn: feed takes each event and
// says whether it completed the answer, which completes the turn; the rest
// of the stream is read and dropped. A stream error before the answer is
// complete, or an error of feed, returns no answer (the turn is left
// incomplete: fail the run); a stream error after it returns the answer
// and the error. A stream that ends before the answer is complete returns
// incomplete. The provider bridges are built on it.
func Consume[E any](turn *Turn, s Stream[E], feed func(E) (done bool, err error), incomplete error) (*Answer, error) {
	var answer *Answer
	for s.Next() {
		if answer != nil {
			continue
		}
		done, err := feed(s.Current())
		if err != nil {
			return nil, err
		}
		if done {
			if answer, err = turn.End(); err != nil {
				return nil, err
			}
		}
	}
	if err := s.Err(); err != nil {
		return answer, err
	}
	if answer == nil {
		return nil, incomplete
	}
	return answer, nil
}
