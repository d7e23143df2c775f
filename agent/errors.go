package agent

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aguitest/aguitest/agui"
)

// Error is a call that would have put a wrong event on the wire. The event
// was not sent. Rule names the protocol rule it would have broken, as the
// agui Verifier names it; Violations holds what the Verifier found, when
// it was the Verifier that refused the event rather than the handle.
type Error struct {
	// Op is the method called, e.g. "ToolCall.Args".
	Op string
	// ID is the message, tool call or step concerned, when there is one.
	ID string
	// Rule is the rule the event would have broken.
	Rule agui.Rule
	// Msg says what is wrong.
	Msg string
	// Violations are the Verifier's findings, when it refused the event.
	Violations []agui.Violation
}

// Error returns "agent: Op ID: rule: message".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("agent: ")
	b.WriteString(e.Op)
	if e.ID != "" {
		b.WriteString(" " + e.ID)
	}
	fmt.Fprintf(&b, ": %s: %s", e.Rule, e.Msg)
	for _, v := range e.Violations[min(1, len(e.Violations)):] {
		fmt.Fprintf(&b, "; %s: %s", v.Rule, v.Message)
	}
	return b.String()
}

// ErrBroken is returned (wrapped) by every call that would emit an event
// after the Verifier refused one: what the Verifier follows and what the
// client got have parted, so only RUN_ERROR may still be sent (Run.Fail).
var ErrBroken = errors.New("agent: the run was broken by an event the verifier refused")

// ErrGone is returned (wrapped, with the sink's error) by every call after
// the sink failed: the client has gone, and nothing more can reach it.
var ErrGone = errors.New("agent: the client has gone")

// ErrPartialArgs is returned (wrapped, with the JSON error) by
// ToolCall.ParseArgs while the arguments streamed so far are not yet one
// JSON value.
var ErrPartialArgs = errors.New("agent: the arguments are not complete JSON")

// RuleOf returns the rule an error from this package names, or "".
func RuleOf(err error) agui.Rule {
	var e *Error
	if errors.As(err, &e) {
		return e.Rule
	}
	return ""
}

// Failure is an error an agent returns to end its run with RUN_ERROR
// carrying Message and Code (Handler, Run.End). Any other error ends the run
// with its text as the message and no code.
type Failure struct {
	Message string
	Code    string
}

// Error returns the message, and the code in parentheses when there is one.
func (f *Failure) Error() string {
	if f.Code == "" {
		return f.Message
	}
	return f.Message + " (" + f.Code + ")"
}
