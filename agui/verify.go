package agui

import (
	"fmt"
	"mime"
	"strings"

	"github.com/aguitest/aguitest/internal/schema"
)

// Profile selects the rules the Verifier applies.
type Profile int

const (
	// Strict applies every rule of Reference and the rules a test wants on
	// top: the stream must end with RUN_FINISHED or RUN_ERROR, a
	// TOOL_CALL_RESULT must name a call that has ended (in the run or in
	// its input history) and be its only result, streamed TOOL_CALL_ARGS
	// must parse as JSON at TOOL_CALL_END, and no message, reasoning
	// message or tool-call id may be reopened after its END within one
	// run. It is the zero value.
	Strict Profile = iota
	// Reference accepts and rejects what HttpAgent of @ag-ui/client 1.0.0
	// does to a response: its compatibility boundary, its schema checks
	// (unknown event types dropped, unknown fields stripped), chunk
	// expansion and verifyEvents' ordering rules. The first ordering
	// violation has the verifier's message text; a schema violation names
	// the field and says what was expected, as the client's validator does.
	Reference
)

// String returns "strict" or "reference".
func (p Profile) String() string {
	switch p {
	case Strict:
		return "strict"
	case Reference:
		return "reference"
	}
	return fmt.Sprintf("Profile(%d)", int(p))
}

// ParseProfile parses "strict" or "reference".
func ParseProfile(s string) (Profile, error) {
	switch strings.ToLower(s) {
	case "strict":
		return Strict, nil
	case "reference":
		return Reference, nil
	}
	return 0, fmt.Errorf("unknown profile %q (want strict or reference)", s)
}

// Options configures a Verifier. The zero value verifies with the Strict
// profile after expanding *_CHUNK events, as a client does.
type Options struct {
	Profile Profile
	// Client names the client version whose pipeline the Reference
	// profile follows (ClientV100 when zero). Under Strict, the zero
	// value requires a stream every supported client accepts, and a
	// violation only one client raises names that client; a version
	// checks that client alone (with Strict's own rules on top).
	Client Client
	// NoChunkExpansion verifies events as they come, without first
	// expanding TEXT_MESSAGE_CHUNK, TOOL_CALL_CHUNK and
	// REASONING_MESSAGE_CHUNK. The reference verifier alone, without the
	// client's transformChunks stage in front, behaves this way.
	NoChunkExpansion bool
	// Allow waives rules: violations of them are not reported (their
	// events are still followed, so later rules judge the stream as the
	// client would). Waive a framework's known quirk and keep every other
	// rule.
	Allow []Rule
	// Enable turns on opt-in rules (RuleEmptyDelta, RuleSharedResultID,
	// RuleReusedResultID) in any profile, and Strict's RuleUnknownEvent
	// and RuleUnknownField in Reference: what @ag-ui/client 1.0.0 drops or
	// strips with a console warning, reported without Strict's other
	// rules.
	Enable []Rule
	// Input is the RunAgentInput the stream answers: the tool calls of its
	// message history are known, so that a TOOL_CALL_RESULT for one of
	// them is not reported as naming an unknown call. SetInput gives the
	// input of each later run of the stream.
	Input *RunAgentInput

	// orderingOnly skips the compatibility boundary and the schema stage:
	// what verifyEvents alone checks. For the differential tests of the
	// ordering rules.
	orderingOnly bool
}

// Violation is one broken rule.
type Violation struct {
	// Index is the position of the offending event in the stream, from 0.
	// For what Finish reports, it is the number of events pushed; for an
	// SSE frame that holds no event, the number of events before it.
	Index int `json:"index"`
	// Type is the type of the offending event ("" for Finish, for the
	// response rules and for a frame that holds no event).
	Type EventType `json:"type,omitempty"`
	// Rule names the broken rule; Rules lists them all.
	Rule Rule `json:"rule"`
	// Message says what is wrong. For the reference ordering rules it is
	// the text of the reference verifier's error; for schema violations,
	// the field and the validator's message.
	Message string `json:"message"`
	// Field is the JSON Pointer of the offending field of the event, for
	// schema violations ("/toolCallName", "/delta/0/path").
	Field string `json:"field,omitempty"`
	// The ids the event carries, where it has them.
	MessageID     string `json:"messageId,omitempty"`
	ToolCallID    string `json:"toolCallId,omitempty"`
	StepName      string `json:"stepName,omitempty"`
	SubagentRunID string `json:"subagentRunId,omitempty"`
	RunID         string `json:"runId,omitempty"`
	// Client names the one supported client that raises this violation,
	// under Strict when the others accept the event ("" when every client
	// does, or for Strict's own rules). Message then begins "rejected by
	// <client>: ".
	Client Client `json:"client,omitempty"`
}

// Stops reports whether the pipeline of client c stops at this violation
// of an event or frame: c's verifier (the Reference profile) raises it, so
// that c stops reading the stream there. It reads what a Verifier of
// either profile following c reports (Options.Client c, or no Client
// under Strict, which follows every client and names the one that alone
// rejects). Strict's own rules stop no client, but finished-after-error,
// which the client raises as after-run-error; a violation another client
// alone raises does not stop c. The zero Client is 1.0.0.
func (v Violation) Stops(c Client) bool {
	if c == "" {
		c = ClientV100
	}
	if v.Client != "" && v.Client != c {
		return false
	}
	return ruleGroup(v.Rule) == "reference" || v.Rule == RuleFinishedAfterError
}

// IDs returns the ids the violation carries, as "messageId=m1
// toolCallId=c1", in that order: messageId, toolCallId, stepName,
// subagentRunId, runId. It is "" when there are none.
func (v Violation) IDs() string {
	var b strings.Builder
	for _, f := range [...]struct{ k, v string }{
		{"messageId", v.MessageID}, {"toolCallId", v.ToolCallID}, {"stepName", v.StepName},
		{"subagentRunId", v.SubagentRunID}, {"runId", v.RunID},
	} {
		if f.v == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f.k + "=" + f.v)
	}
	return b.String()
}

// Error formats the violation as "event N (TYPE): rule: message", N
// counted from 1; "end of stream after N events: rule: message" for what
// Finish reports and for a frame with no event; "response: rule:
// message" for the response rules.
func (v Violation) Error() string {
	var b strings.Builder
	switch {
	case v.Type != "":
		fmt.Fprintf(&b, "event %d (%s): ", v.Index+1, v.Type)
	case v.Rule == RuleHTTPStatus || v.Rule == RuleContentType:
		b.WriteString("response: ")
	default:
		fmt.Fprintf(&b, "end of stream after %s: ", plural(v.Index, "event"))
	}
	fmt.Fprintf(&b, "%s: %s", v.Rule, v.Message)
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Verifier checks an AG-UI event stream as it arrives, stage by stage as
// the reference client reads it: the compatibility boundary, the schema
// of each event, chunk expansion, then the ordering rules. Push each
// event, then call Finish at the end of the stream. Its memory grows with
// what the current run has open or named, not with the length of the
// stream.
//
// A Verifier is not safe for concurrent use.
type Verifier struct {
	opt     Options
	allow   ruleSet
	enable  ruleSet
	index   int
	pushed  int // events and frames seen, dropped ones included
	compat  compat
	checker schema.Checker
	quiet   bool // the current event broke its schema: its ordering is followed, not reported
	// expanding says the event checked was synthesized by chunk expansion.
	expanding bool
	input     *RunAgentInput

	violations []Violation
	expander   Expander
	draft      draft
	expanded   []Event
	// also follows the other supported clients' pipelines, under Strict
	// with no Client named: a stream must pass every one.
	also *Verifier

	state
}

// NewVerifier returns a Verifier with the given options.
func NewVerifier(opt Options) *Verifier {
	v := &Verifier{opt: opt, allow: makeRuleSet(opt.Allow), enable: makeRuleSet(opt.Enable), input: opt.Input}
	v.state.init()
	v.expander.v0059 = opt.Client == ClientV0059
	if opt.Profile == Strict && opt.Client == "" {
		v.also = NewVerifier(Options{Profile: Reference, Client: ClientV0059, NoChunkExpansion: opt.NoChunkExpansion,
			Allow: opt.Allow, Input: opt.Input, orderingOnly: opt.orderingOnly})
	}
	return v
}

// Verify checks a whole stream and returns every violation, in order,
// including what Finish reports. It returns nil for a conforming stream.
func Verify(events []Event, opt Options) []Violation {
	v := NewVerifier(opt)
	for i := range events {
		v.push(&events[i])
	}
	v.Finish()
	return v.Violations()
}

// Violations returns every violation found so far.
func (v *Verifier) Violations() []Violation { return v.violations }

// SetInput gives the RunAgentInput of the run that starts next (or of the
// run in progress, when one is): the tool calls of its history are known
// to the result rules. A recording's request, or the input a test posts,
// goes here; RUN_STARTED's own input field is read as well.
func (v *Verifier) SetInput(in RunAgentInput) {
	v.input = &in
	if v.also != nil {
		v.also.SetInput(in)
	}
	if v.runStarted && !v.runFinished && !v.runError {
		v.seedInput(&in)
	}
}

// Response checks the HTTP response a stream came in: its status must be
// 2xx and its Content-Type an AG-UI event stream (text/event-stream, or
// the protobuf media type). It returns the violations it added; call it
// before pushing the body's events.
func (v *Verifier) Response(status int, contentType string) []Violation {
	n := len(v.violations)
	if status < 200 || status > 299 {
		v.add(Violation{Index: v.index, Rule: RuleHTTPStatus,
			Message: fmt.Sprintf("the response's HTTP status is %d; an AG-UI stream comes with a 2xx status", status)})
	}
	if !IsEventStream(contentType) {
		got := "no Content-Type"
		if contentType != "" {
			got = fmt.Sprintf("Content-Type %q", contentType)
		}
		v.add(Violation{Index: v.index, Rule: RuleContentType,
			Message: fmt.Sprintf("the response has %s; an AG-UI stream is %s or %s", got, MediaTypeSSE, MediaTypeProto)})
	}
	return v.violations[n:]
}

// Media types of the two AG-UI encodings.
const (
	MediaTypeSSE   = "text/event-stream"
	MediaTypeProto = "application/vnd.ag-ui.event+proto"
)

// IsEventStream reports whether a Content-Type names an AG-UI event
// stream: text/event-stream or the protobuf media type, parameters aside.
func IsEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == MediaTypeSSE || mt == MediaTypeProto
}

// PushFrame records a frame of the stream that holds no event the client
// can read (a *FrameError from Reader.Next) and returns its violation.
func (v *Verifier) PushFrame(fe *FrameError) []Violation {
	n := len(v.violations)
	v.pushed++
	if v.v0059() && fe.data != nil {
		// 0.0.59's transport hands the frame to its schema.
		if issues := schema.Check0059(fe.data); len(issues) > 0 {
			v.add(Violation{Index: v.index, Rule: RuleSchema, Message: schemaText("", issues)[1:], Field: issues[0].Path})
		}
	} else {
		v.add(Violation{Index: v.index, Rule: fe.Rule, Message: fe.Msg})
	}
	if v.also != nil {
		v.merge(n, v.also.PushFrame(fe))
	}
	return v.violations[n:]
}

// Push checks the next event and returns the violations it caused (nil when
// it conforms). The returned slice is only valid until the next call.
func (v *Verifier) Push(e Event) []Violation { return v.push(&e) }

func (v *Verifier) push(e *Event) []Violation {
	n := len(v.violations)
	v.pushed++
	v.stage(e)
	v.index++
	v.quiet = false
	if v.also != nil {
		v.merge(n, v.also.push(e))
	}
	if len(v.violations) == n {
		return nil
	}
	return v.violations[n:]
}

// stage runs one event through the client's stages.
func (v *Verifier) stage(e *Event) {
	if v.v0059() {
		if e, ok := v.stage0059(e); ok {
			v.expand(e)
		}
		return
	}
	if !v.opt.orderingOnly && !e.valid {
		e = v.compat.apply(e)
		if !e.typ.Known() {
			if v.opt.Profile == Strict || v.enable.has(RuleUnknownEvent) {
				v.reportUnknownEvent(e)
			}
			return // the client drops event types it does not know
		}
		if !fastValid(e) {
			s := schema.Event(string(e.typ))
			sp, _, err := scanValue(e.raw, 0)
			strip := err == nil && schema.NeedsStrip(e.raw, sp, s)
			if strip && (v.opt.Profile == Strict || v.enable.has(RuleUnknownField)) {
				v.reportRemovals(e, sp)
			}
			if issues := v.checker.Check(e.raw, s); len(issues) > 0 {
				v.report(e, RuleSchema, schemaText(e.typ, issues), issues[0].Path)
				v.quiet = true
			}
			if strip {
				if t, err := ParseEvent(schema.AppendStripped(nil, e.raw, sp, s)); err == nil {
					e = &t
				}
			}
		}
	}
	v.expand(e)
}

// expand runs the chunk stage and checks what comes out of it.
func (v *Verifier) expand(e *Event) {
	if v.opt.NoChunkExpansion || !isChunkRelevant(e.code) && len(v.expander.lanes) == 0 {
		v.check(e, e)
		return
	}
	out, err := v.expander.push(e, v.expanded[:0])
	v.expanded = out
	for i := range out {
		v.expanding = out[i].raw == nil || &out[i].raw[0] != &e.raw[0] // synthesized from a chunk
		v.check(e, &out[i])
	}
	v.expanding = false
	if err != nil {
		v.report(e, RuleChunk, err.Error(), "")
	}
}

// schemaText formats a schema violation's issues as
// "TYPE /field: message; /other: message".
func schemaText(t EventType, issues []schema.Issue) string {
	var b strings.Builder
	b.WriteString(string(t))
	for i, is := range issues {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(issues)-i)
			break
		}
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteByte(' ')
		if is.Path != "" {
			b.WriteString(is.Path)
			b.WriteString(": ")
		}
		b.WriteString(is.Msg)
	}
	return b.String()
}

// Finish ends the stream. It reports a stream with no events in every
// profile; in the Strict profile it also reports a stream that did not end
// its run and everything still open. It returns the violations it added.
func (v *Verifier) Finish() []Violation {
	n := len(v.violations)
	end := func(rule Rule, msg string) { v.add(Violation{Index: v.index, Rule: rule, Message: msg}) }
	if v.pushed == 0 {
		end(RuleNoEvents, "the stream has no events; an AG-UI stream starts with RUN_STARTED and ends with RUN_FINISHED or RUN_ERROR")
		return v.violations[n:]
	}
	if v.opt.Profile == Strict {
		if v.firstEvent && !v.runFinished && !v.runError {
			end(RuleTruncated, "the stream ended without RUN_FINISHED or RUN_ERROR")
			for _, o := range v.Open() {
				end(RuleUnclosed, o+" was never closed")
			}
		}
	}
	return v.violations[n:]
}

// add records a violation unless its rule is waived.
func (v *Verifier) add(vi Violation) {
	if v.allow.has(vi.Rule) {
		return
	}
	v.violations = append(v.violations, vi)
}

// report records a violation of rule by event e.
func (v *Verifier) report(e *Event, rule Rule, msg, field string) {
	if v.quiet || v.suppress != "" && v.suppress == rule {
		return
	}
	v.add(Violation{
		Index:         v.index,
		Type:          e.typ,
		Rule:          rule,
		Message:       msg,
		Field:         field,
		MessageID:     e.MessageID(),
		ToolCallID:    e.ToolCallID(),
		StepName:      e.StepName(),
		SubagentRunID: e.SubagentRunID(),
		RunID:         e.RunID(),
	})
}
