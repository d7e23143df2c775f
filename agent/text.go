package agent

import (
	"unicode/utf8"

	"github.com/aguitest/aguitest/agui"
)

// Text is an assistant text message being streamed: TEXT_MESSAGE_START
// when it is made, TEXT_MESSAGE_CONTENT per Delta, TEXT_MESSAGE_END at End.
type Text struct {
	r     *Run
	id    string
	ended bool
	carry carry
}

// Text starts an assistant text message with an allocated id.
func (r *Run) Text() (*Text, error) { return r.TextWithID("") }

// TextWithID starts an assistant text message with the given id, which must
// not have been used by another message of the run; "" allocates one.
func (r *Run) TextWithID(id string) (*Text, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	const op = "Run.Text"
	if err := r.live(op, id); err != nil {
		return nil, err
	}
	id, err := r.claim(op, id, false)
	if err != nil {
		return nil, err
	}
	if err := r.emit(op, id, agui.NewTextMessageStart(id)); err != nil {
		return nil, err
	}
	t := &Text{r: r, id: id}
	r.opened(t)
	return t, nil
}

// ID returns the message id.
func (t *Text) ID() string { return t.id }

func (t *Text) describe() string { return "text message " + t.id }

// Delta sends a piece of the text. An empty delta sends nothing (clients
// before @ag-ui/core 0.0.50 reject empty deltas). A delta that ends inside
// a multi-byte character sends the character once the rest has come: an
// event is JSON and cannot carry half a character. After End it returns an
// *Error (RuleMessageNotOpen).
func (t *Text) Delta(s string) error {
	r := t.r
	r.mu.Lock()
	defer r.mu.Unlock()
	const op = "Text.Delta"
	if err := r.live(op, t.id); err != nil {
		return err
	}
	if t.ended && r.enforced(agui.RuleMessageNotOpen) {
		return &Error{Op: op, ID: t.id, Rule: agui.RuleMessageNotOpen, Msg: "the message has ended"}
	}
	out, held := t.carry.split(s)
	if out != "" {
		if err := r.emit(op, t.id, agui.NewTextMessageContent(t.id, out)); err != nil {
			return err
		}
	}
	t.carry.held = held
	return nil
}

// End sends TEXT_MESSAGE_END. It is idempotent and safe to defer: once the
// message or the run has ended it does nothing (a message open when the run
// failed stays as RUN_ERROR left it).
func (t *Text) End() error {
	r := t.r
	r.mu.Lock()
	defer r.mu.Unlock()
	const op = "Text.End"
	if t.ended || r.ended == agui.RunError {
		return nil
	}
	if err := r.live(op, t.id); err != nil {
		return err
	}
	if rest := t.carry.held; rest != "" {
		if err := r.emit(op, t.id, agui.NewTextMessageContent(t.id, rest)); err != nil {
			return err
		}
		t.carry.held = ""
	}
	if err := r.emit(op, t.id, agui.NewTextMessageEnd(t.id)); err != nil {
		return err
	}
	t.ended = true
	r.closed(t)
	return nil
}

// Reasoning is a reasoning message being streamed: REASONING_START and
// REASONING_MESSAGE_START when it is made, REASONING_MESSAGE_CONTENT per
// Delta, REASONING_MESSAGE_END and REASONING_END at End. The span and its
// message share the id.
type Reasoning struct {
	r     *Run
	id    string
	ended bool
	carry carry
}

// Reasoning starts a reasoning message with an allocated id.
func (r *Run) Reasoning() (*Reasoning, error) { return r.ReasoningWithID("") }

// ReasoningWithID starts a reasoning message with the given id, which must
// not have been used by another message of the run; "" allocates one.
func (r *Run) ReasoningWithID(id string) (*Reasoning, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	const op = "Run.Reasoning"
	if err := r.live(op, id); err != nil {
		return nil, err
	}
	id, err := r.claim(op, id, false)
	if err != nil {
		return nil, err
	}
	if err := r.emit(op, id, agui.NewEvent(agui.ReasoningStart, "messageId", id)); err != nil {
		return nil, err
	}
	g := &Reasoning{r: r, id: id}
	r.opened(g) // the span is open: a refused message start leaves it for End
	if err := r.emit(op, id, agui.NewReasoningMessageStart(id)); err != nil {
		return nil, err
	}
	return g, nil
}

// ID returns the reasoning message's id.
func (g *Reasoning) ID() string { return g.id }

func (g *Reasoning) describe() string { return "reasoning message " + g.id }

// Delta sends a piece of the reasoning text, as Text.Delta does. After End
// it returns an *Error (RuleReasoningNotOpen).
func (g *Reasoning) Delta(s string) error {
	r := g.r
	r.mu.Lock()
	defer r.mu.Unlock()
	const op = "Reasoning.Delta"
	if err := r.live(op, g.id); err != nil {
		return err
	}
	if g.ended && r.enforced(agui.RuleReasoningNotOpen) {
		return &Error{Op: op, ID: g.id, Rule: agui.RuleReasoningNotOpen, Msg: "the reasoning message has ended"}
	}
	out, held := g.carry.split(s)
	if out != "" {
		if err := r.emit(op, g.id, agui.NewReasoningMessageContent(g.id, out)); err != nil {
			return err
		}
	}
	g.carry.held = held
	return nil
}

// EncryptedValue sends a provider's opaque artefact for the reasoning
// message (a signature, encrypted reasoning) as REASONING_ENCRYPTED_VALUE,
// for the client to send back with the conversation.
func (g *Reasoning) EncryptedValue(v string) error {
	r := g.r
	r.mu.Lock()
	defer r.mu.Unlock()
	const op = "Reasoning.EncryptedValue"
	if err := r.live(op, g.id); err != nil {
		return err
	}
	return r.emit(op, g.id, agui.NewEvent(agui.ReasoningEncryptedValue, "subtype", "message", "entityId", g.id, "encryptedValue", v))
}

// End sends REASONING_MESSAGE_END and REASONING_END. Like Text.End it is
// idempotent and safe to defer.
func (g *Reasoning) End() error {
	r := g.r
	r.mu.Lock()
	defer r.mu.Unlock()
	const op = "Reasoning.End"
	if g.ended || r.ended == agui.RunError {
		return nil
	}
	if err := r.live(op, g.id); err != nil {
		return err
	}
	if rest := g.carry.held; rest != "" {
		if err := r.emit(op, g.id, agui.NewReasoningMessageContent(g.id, rest)); err != nil {
			return err
		}
		g.carry.held = ""
	}
	if err := r.emit(op, g.id, agui.NewReasoningMessageEnd(g.id)); err != nil {
		return err
	}
	if err := r.emit(op, g.id, agui.NewEvent(agui.ReasoningEnd, "messageId", g.id)); err != nil {
		return err
	}
	g.ended = true
	r.closed(g)
	return nil
}

// carry holds back the leading bytes of a character a fragment cut in two,
// so that every delta sent is whole UTF-8.
type carry struct{ held string }

// split returns what of held+frag can be sent and what must wait.
func (c *carry) split(frag string) (out, held string) {
	s := frag
	if c.held != "" {
		s = c.held + frag
	}
	cut := len(s)
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				cut = i
			}
			break
		}
	}
	return s[:cut], s[cut:]
}
