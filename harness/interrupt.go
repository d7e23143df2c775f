package harness

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aguitest/aguitest/agui"
)

// Interrupt is one interrupt of a run that finished with the outcome
// "interrupt": something the run needs from outside (an approval, a value)
// before the thread can go on. The fields are those of @ag-ui/core's
// Interrupt.
type Interrupt struct {
	ID         string `json:"id"`
	Reason     string `json:"reason"`
	Message    string `json:"message,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
	// ResponseSchema is the JSON Schema of the payload the agent wants.
	ResponseSchema json.RawMessage `json:"responseSchema,omitempty"`
	// ExpiresAt is when the interrupt can no longer be answered (an ISO
	// 8601 time), or "".
	ExpiresAt string          `json:"expiresAt,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

// Answer is how the client answers interrupts (Case.Answers): it resolves
// them with a payload, or cancels them.
type Answer struct {
	// Reason, when not "", answers only the interrupts with this reason.
	Reason string
	// Tool, when not "", answers only the interrupts whose toolCallId is a
	// call to this tool (a call the client holds).
	Tool string
	// Cancel cancels the interrupt (resume status "cancelled") instead of
	// resolving it.
	Cancel bool
	// Payload is the resolved interrupt's payload, JSON; nil sends none.
	Payload json.RawMessage
}

// String describes the answer, as in `resolve (reason "approval") with {"ok":true}`.
func (a Answer) String() string {
	var b strings.Builder
	if a.Cancel {
		b.WriteString("cancel")
	} else {
		b.WriteString("resolve")
	}
	var sel []string
	if a.Reason != "" {
		sel = append(sel, fmt.Sprintf("reason %q", a.Reason))
	}
	if a.Tool != "" {
		sel = append(sel, fmt.Sprintf("tool %q", a.Tool))
	}
	if len(sel) > 0 {
		b.WriteString(" (" + strings.Join(sel, ", ") + ")")
	}
	if !a.Cancel && a.Payload != nil {
		b.WriteString(" with " + string(a.Payload))
	}
	return b.String()
}

// interrupts returns the interrupts of a run's last RUN_FINISHED, when its
// outcome is "interrupt".
func interrupts(events []agui.Event) []Interrupt {
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		if e.Type() != agui.RunFinished {
			continue
		}
		var f struct {
			Outcome *struct {
				Type       string      `json:"type"`
				Interrupts []Interrupt `json:"interrupts"`
			} `json:"outcome"`
		}
		if err := json.Unmarshal(e.Raw(), &f); err != nil || f.Outcome == nil || f.Outcome.Type != "interrupt" {
			return nil
		}
		return f.Outcome.Interrupts
	}
	return nil
}

// resume answers each interrupt with the first of answers that matches it,
// as the client must before it lets the thread go on: HttpAgent refuses a
// run that leaves a pending interrupt unanswered, and one that resolves an
// interrupt past its expiry. callName names the calls the client holds.
func resume(list []Interrupt, answers []Answer, callName func(id string) string, now time.Time) ([]agui.ResumeEntry, error) {
	var out []agui.ResumeEntry
	var unanswered []string
	for _, in := range list {
		a, ok := answerFor(in, answers, callName)
		if !ok {
			unanswered = append(unanswered, describeInterrupt(in, callName))
			continue
		}
		if !a.Cancel && in.ExpiresAt != "" {
			if t, err := time.Parse(time.RFC3339Nano, in.ExpiresAt); err == nil && !t.After(now) {
				return nil, fmt.Errorf("interrupt %q expired at %s: a client can only cancel it (the case would %s)", in.ID, in.ExpiresAt, a)
			}
		}
		entry := agui.ResumeEntry{InterruptID: in.ID, Status: "resolved", Payload: a.Payload}
		if a.Cancel {
			entry = agui.ResumeEntry{InterruptID: in.ID, Status: "cancelled"}
		}
		out = append(out, entry)
	}
	if len(unanswered) > 0 {
		return nil, fmt.Errorf("no answer of the case (Case.Answers) matches %s; a client cannot go on with the thread before answering every interrupt", strings.Join(unanswered, ", "))
	}
	return out, nil
}

// answerFor returns the first answer that matches the interrupt.
func answerFor(in Interrupt, answers []Answer, callName func(id string) string) (Answer, bool) {
	for _, a := range answers {
		if a.Reason != "" && a.Reason != in.Reason {
			continue
		}
		if a.Tool != "" && (in.ToolCallID == "" || callName(in.ToolCallID) != a.Tool) {
			continue
		}
		return a, true
	}
	return Answer{}, false
}

// describeInterrupt names an interrupt for a message.
func describeInterrupt(in Interrupt, callName func(id string) string) string {
	s := fmt.Sprintf("interrupt %q (reason %q", in.ID, in.Reason)
	if in.ToolCallID != "" {
		s += fmt.Sprintf(", tool call %q", in.ToolCallID)
		if name := callName(in.ToolCallID); name != "" {
			s += " to " + name
		}
	}
	return s + ")"
}

// customInterrupt reports whether events ask the user only the way
// @ag-ui/langgraph does by default: a CUSTOM event named on_interrupt, with
// a plain RUN_FINISHED.
func customInterrupt(events []agui.Event) bool {
	for _, e := range events {
		if e.Type() == agui.Custom && e.Name() == "on_interrupt" {
			return true
		}
	}
	return false
}

// customInterruptText says what a CUSTOM on_interrupt event is, and the
// setting that sends the protocol's outcome instead.
const customInterruptText = "the agent asked the user only in a CUSTOM event named on_interrupt, which a client reading RUN_FINISHED's outcome " +
	"(the protocol's interrupts, which HttpAgent and CopilotKit answer with a resume) never sees as a question. " +
	"It is @ag-ui/langgraph's default; LangGraphAgent's emitInterruptOutcome: true (or enableLegacyOnInterruptEvent: false) sends the outcome"
