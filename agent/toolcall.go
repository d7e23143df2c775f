package agent

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/aguitest/aguitest/agui"
)

// ToolCallSpec describes a tool call to open with Run.StartToolCall.
type ToolCallSpec struct {
	// Name is the tool's name.
	Name string
	// ID is the call's id; "" allocates one.
	ID string
	// ParentMessageID is the assistant message the call belongs to; ""
	// leaves it out (the client then makes an assistant message for it).
	ParentMessageID string
	// ResultMessageID is the id of the tool message that will carry the
	// call's result; "" allocates one.
	ResultMessageID string
}

// ToolCall is a tool call being streamed: TOOL_CALL_START when it is made,
// TOOL_CALL_ARGS per fragment of its arguments, TOOL_CALL_END at End, and,
// for a call the agent answers itself, TOOL_CALL_RESULT at Result. A call
// the client executes (a frontend tool) ends with End: its result comes in
// the next run's messages.
//
// The id of the result's message is allocated when the call opens, so
// that Result needs nothing more from the run and the id is known before
// (ResultMessageID).
type ToolCall struct {
	r        *Run
	id, name string
	parent   string
	resultID string
	args     []byte // the arguments sent so far
	carry    carry
	ended    bool
	result   bool
}

// ToolCall opens a call of the named tool, with allocated ids and no parent
// message.
func (r *Run) ToolCall(name string) (*ToolCall, error) {
	return r.StartToolCall(ToolCallSpec{Name: name})
}

// StartToolCall opens a tool call as s describes. An id already used in
// the run is an *Error (RuleToolCallOpen while that call is open,
// RuleReopenedID after).
func (r *Run) StartToolCall(s ToolCallSpec) (*ToolCall, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	const op = "Run.ToolCall"
	if err := r.live(op, s.ID); err != nil {
		return nil, err
	}
	id, err := r.claim(op, s.ID, true)
	if err != nil {
		return nil, err
	}
	resultID, err := r.claim(op, s.ResultMessageID, false)
	if err != nil {
		delete(r.callIDs, id)
		return nil, err
	}
	if err := r.emit(op, id, agui.NewToolCallStart(id, s.Name, s.ParentMessageID)); err != nil {
		return nil, err
	}
	c := &ToolCall{r: r, id: id, name: s.Name, parent: s.ParentMessageID, resultID: resultID}
	r.opened(c)
	return c, nil
}

// ID returns the call's id.
func (c *ToolCall) ID() string { return c.id }

// Name returns the tool's name.
func (c *ToolCall) Name() string { return c.name }

// ParentMessageID returns the assistant message the call belongs to, or "".
func (c *ToolCall) ParentMessageID() string { return c.parent }

// ResultMessageID returns the id of the tool message Result sends.
func (c *ToolCall) ResultMessageID() string { return c.resultID }

func (c *ToolCall) describe() string { return "tool call " + c.id + " (" + c.name + ")" }

// Args sends a fragment of the arguments' JSON text, as a provider streams
// it: a fragment need not be JSON on its own. An empty fragment sends
// nothing; one that ends inside a multi-byte character waits for the rest,
// as Text.Delta does. After End it returns an *Error
// (RuleToolCallNotOpen).
func (c *ToolCall) Args(fragment string) error {
	r := c.r
	r.mu.Lock()
	defer r.mu.Unlock()
	return c.sendArgs("ToolCall.Args", fragment)
}

func (c *ToolCall) sendArgs(op, fragment string) error {
	r := c.r
	if err := r.live(op, c.id); err != nil {
		return err
	}
	if c.ended && r.enforced(agui.RuleToolCallNotOpen) {
		return &Error{Op: op, ID: c.id, Rule: agui.RuleToolCallNotOpen, Msg: "the call has ended"}
	}
	out, held := c.carry.split(fragment)
	if out != "" {
		if err := r.emit(op, c.id, agui.NewToolCallArgs(c.id, out)); err != nil {
			return err
		}
		c.args = append(c.args, out...)
	}
	c.carry.held = held
	return nil
}

// ArgsJSON sends v, encoded as JSON, as the call's whole arguments. After
// fragments were sent it returns an *Error (RuleArgsNotJSON): the joined
// arguments would not be one JSON value.
func (c *ToolCall) ArgsJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("agent: ToolCall.ArgsJSON %s: %w", c.id, err)
	}
	r := c.r
	r.mu.Lock()
	defer r.mu.Unlock()
	const op = "ToolCall.ArgsJSON"
	if (len(c.args) > 0 || c.carry.held != "") && !c.ended && r.enforced(agui.RuleArgsNotJSON) {
		return &Error{Op: op, ID: c.id, Rule: agui.RuleArgsNotJSON,
			Msg: "arguments were already streamed; ArgsJSON sends the whole value"}
	}
	return c.sendArgs(op, string(b))
}

// RawArgs returns the arguments sent so far, unparsed.
func (c *ToolCall) RawArgs() string {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	return string(c.args)
}

// ParseArgs decodes the arguments sent so far into v. While they are not
// yet one JSON value (a provider still streaming them) it returns an error
// wrapping ErrPartialArgs: call it once the provider has sent them all.
// A call with no arguments reads as {}, as the client reads it.
func (c *ToolCall) ParseArgs(v any) error {
	c.r.mu.Lock()
	data := slices.Clone(c.args)
	held := c.carry.held
	c.r.mu.Unlock()
	if held != "" {
		return fmt.Errorf("%w: call %s: a character is cut in two", ErrPartialArgs, c.id)
	}
	if len(data) == 0 {
		data = []byte("{}")
	}
	if !json.Valid(data) {
		var x any
		err := json.Unmarshal(data, &x)
		return fmt.Errorf("%w: call %s: %v", ErrPartialArgs, c.id, err)
	}
	return json.Unmarshal(data, v)
}

// End sends TOOL_CALL_END. The arguments sent must be one JSON value (or
// none at all): otherwise it returns an *Error (RuleArgsNotJSON) and the
// call stays open. End is idempotent and safe to defer: once the call or
// the run has ended it does nothing.
func (c *ToolCall) End() error {
	r := c.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.ended || r.ended == agui.RunError {
		return nil
	}
	return c.end("ToolCall.End")
}

func (c *ToolCall) end(op string) error {
	r := c.r
	if err := r.live(op, c.id); err != nil {
		return err
	}
	if rest := c.carry.held; rest != "" {
		// Bytes of a character never completed: the client gets what
		// JSON makes of them.
		if err := r.emit(op, c.id, agui.NewToolCallArgs(c.id, rest)); err != nil {
			return err
		}
		c.args = append(c.args, rest...)
		c.carry.held = ""
	}
	if len(c.args) > 0 && !json.Valid(c.args) && r.enforced(agui.RuleArgsNotJSON) {
		return &Error{Op: op, ID: c.id, Rule: agui.RuleArgsNotJSON,
			Msg: fmt.Sprintf("the arguments are not JSON: %.80q", c.args)}
	}
	if err := r.emit(op, c.id, agui.NewToolCallEnd(c.id)); err != nil {
		return err
	}
	c.ended = true
	r.closed(c)
	return nil
}

// Ended reports whether TOOL_CALL_END was sent.
func (c *ToolCall) Ended() bool {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	return c.ended
}

// Result sends the call's result, content as it is, after ending the call
// if it is still open, and returns the id of the tool message that carries
// it. A second result is an *Error (RuleDuplicateResult).
func (c *ToolCall) Result(content string) (string, error) {
	r := c.r
	r.mu.Lock()
	defer r.mu.Unlock()
	const op = "ToolCall.Result"
	if err := r.live(op, c.id); err != nil {
		return "", err
	}
	if c.result && r.enforced(agui.RuleDuplicateResult) {
		return "", &Error{Op: op, ID: c.id, Rule: agui.RuleDuplicateResult, Msg: "the call already has a result"}
	}
	if !c.ended {
		if err := c.end(op); err != nil {
			return "", err
		}
	}
	if err := r.emit(op, c.id, agui.NewToolCallResult(c.resultID, c.id, content)); err != nil {
		return "", err
	}
	c.result = true
	return c.resultID, nil
}

// ResultJSON sends v, encoded as JSON, as the call's result (see Result).
func (c *ToolCall) ResultJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("agent: ToolCall.ResultJSON %s: %w", c.id, err)
	}
	return c.Result(string(b))
}
