package agui

import "github.com/aguitest/aguitest/internal/schema"

// The pipeline of @ag-ui/client 0.0.59, as a table of differences from
// 1.0.0's (see client.go). Read from the client's own sources (its source
// map) and held to its HttpAgent by TestClientConformance0059:
//
//   - transport: every frame is parsed with EventSchemas of @ag-ui/core
//     0.0.59 (zod 3) before anything else runs: a frame that is not an
//     object, or has no known type, fails as a schema error ("Invalid
//     discriminator value"); unknown top-level fields are kept and unknown
//     nested fields stripped silently; THINKING_* events are events.
//   - no compatibility boundary and no enforcement stage.
//   - chunk expansion without the opener-agreement checks (a continuation
//     chunk may change role, name, toolCallName or parentMessageId), and
//     without carrying rawEvent or unknown fields onto synthesized events.
//   - verifyEvents: one set of open reasoning ids, which nothing checks (no
//     reasoning-open, reasoning-not-open or reasoning at RUN_FINISHED), and
//     the THINKING_* step rules.

// client returns the client whose pipeline this verifier follows.
func (v *Verifier) client() Client {
	if v.opt.Client == "" {
		return ClientV100
	}
	return v.opt.Client
}

func (v *Verifier) v0059() bool { return v.opt.Client == ClientV0059 }

// stage0059 runs one event through 0.0.59's transport parse.
func (v *Verifier) stage0059(e *Event) (*Event, bool) {
	if v.opt.orderingOnly {
		return e, true
	}
	var issues []schema.Issue
	if !fastValid0059(e) {
		issues = schema.Check0059(e.raw)
	}
	if len(issues) > 0 {
		t := e.typ
		v.report(e, RuleSchema, schemaText(t, issues), issues[0].Path)
		v.quiet = true
		if !schema.Known0059(string(e.typ)) {
			return e, false // the discriminator failed: no event to follow
		}
	}
	return transform0059(e), true
}

// transform0059 applies the schema's transforms: a null parentMessageId
// or outcome is read as absent.
func transform0059(e *Event) *Event {
	if e.code == cToolCallStart || e.code == cToolCallChunk || e.code == cRunFinished {
		name := "parentMessageId"
		if e.code == cRunFinished {
			name = "outcome"
		}
		if sp := e.field(name); sp.Kind == kindNull {
			var b objBuilder
			for _, m := range e.Members() {
				if m.Key != name {
					b.raw(m.Key, m.Value)
				}
			}
			t := b.event()
			e = &t
		}
	}
	return e
}

// merge weighs what the other clients' pipelines (also) said of the event
// or frame against the violations this one added from index n on: a
// reference violation only one side raises names its client.
func (v *Verifier) merge(n int, other []Violation) {
	mine := false
	for _, vi := range v.violations[n:] {
		if ruleGroup(vi.Rule) == "reference" || vi.Rule == RuleFinishedAfterError {
			mine = true
			break
		}
	}
	switch {
	case mine && len(other) == 0:
		for i := n; i < len(v.violations); i++ {
			if ruleGroup(v.violations[i].Rule) == "reference" {
				v.violations[i].Client = v.client()
				v.violations[i].Message = "rejected by " + v.client().String() + ": " + v.violations[i].Message
			}
		}
	case !mine:
		for _, vi := range other {
			if ruleGroup(vi.Rule) != "reference" {
				continue
			}
			c := v.also.client()
			vi.Client = c
			vi.Message = "rejected by " + c.String() + ": " + vi.Message
			v.add(vi)
		}
	}
}

// ruleGroup returns the rule's group: "response", "reference", "strict"
// or "opt-in".
func ruleGroup(r Rule) string {
	for _, ri := range rules {
		if ri.rule == r {
			return ri.group
		}
	}
	return ""
}

// thinking applies 0.0.59's rules for the THINKING_* events.
func (v *Verifier) thinking(e *Event, report fail) {
	switch e.typ {
	case ThinkingTextMessageStart:
		if !v.thinkingStep {
			report(RuleThinking, "Cannot send 'THINKING_TEXT_MESSAGE_START' event: A thinking step is not in progress. Create one with 'THINKING_START' first.")
			return
		}
		if v.thinkingMessage {
			report(RuleThinking, "Cannot send 'THINKING_TEXT_MESSAGE_START' event: A thinking message is already in progress. Complete it with 'THINKING_TEXT_MESSAGE_END' first.")
			return
		}
		v.thinkingMessage = true
	case ThinkingTextMessageContent:
		if !v.thinkingMessage {
			report(RuleThinking, "Cannot send 'THINKING_TEXT_MESSAGE_CONTENT' event: No active thinking message found. Start a message with 'THINKING_TEXT_MESSAGE_START' first.")
		}
	case ThinkingTextMessageEnd:
		if !v.thinkingMessage {
			report(RuleThinking, "Cannot send 'THINKING_TEXT_MESSAGE_END' event: No active thinking message found. A 'THINKING_TEXT_MESSAGE_START' event must be sent first.")
			return
		}
		v.thinkingMessage = false
	case ThinkingStart:
		if v.thinkingStep {
			report(RuleThinking, "Cannot send 'THINKING_START' event: A thinking step is already in progress. End it with 'THINKING_END' first.")
			return
		}
		v.thinkingStep = true
	case ThinkingEnd:
		if !v.thinkingStep {
			report(RuleThinking, "Cannot send 'THINKING_END' event: No active thinking step found. A 'THINKING_START' event must be sent first.")
			return
		}
		v.thinkingStep = false
	}
}
