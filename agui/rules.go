package agui

import (
	"fmt"
	"strings"
)

// Rule names a check of the Verifier. Every rule is one of the constants
// below, listed in Rules; a Violation carries the rule it broke, and
// Options.Allow waives rules by name.
type Rule string

// The response rules: there must be a stream at all. They apply in every
// profile. The reference client accepts an empty body or an error page
// without a complaint; a testing tool must not.
const (
	// RuleNoEvents: the stream has no events (an empty body, or a body
	// with no event in it).
	RuleNoEvents Rule = "no-events"
	// RuleHTTPStatus: the response's HTTP status is not 2xx.
	RuleHTTPStatus Rule = "http-status"
	// RuleContentType: the response's Content-Type is not an AG-UI event
	// stream (text/event-stream, or the protobuf media type).
	RuleContentType Rule = "content-type"
)

// The rules of the reference profile: what HttpAgent of @ag-ui/client
// 1.0.0 rejects, stage by stage.
const (
	// RuleFrameJSON: an SSE frame's data is not JSON (the client's
	// JSON.parse throws). Frames the client splits only on "\n\n", so
	// CR-only or CRLF framing runs events together into one frame.
	RuleFrameJSON Rule = "frame-json"
	// RuleFrameObject: an SSE frame's data is JSON but not an object.
	RuleFrameObject Rule = "frame-object"
	// RuleFrameType: an SSE frame's object has no non-empty string "type".
	RuleFrameType Rule = "frame-type"
	// RuleFrameSize: a frame grows past the client's 10 MiB buffer limit
	// before its blank line.
	RuleFrameSize Rule = "frame-size"
	// RuleFrameProto: a protobuf frame does not decode (the client's
	// decode throws), or the stream ends inside one.
	RuleFrameProto Rule = "frame-proto"
	// RuleSchema: an event breaks its schema in @ag-ui/core 1.0.0 (a
	// missing or wrong-typed field, a null where the field must be absent,
	// a STATE_DELTA that is not an array of patch operations, ...).
	// Violation.Field names the field.
	RuleSchema Rule = "schema"

	RuleChunk               Rule = "chunk"                // a chunk event that cannot be expanded
	RuleFirstEvent          Rule = "first-event"          // the first event is not RUN_STARTED (or RUN_ERROR)
	RuleRunActive           Rule = "run-active"           // RUN_STARTED while a run is active
	RuleAfterRunFinished    Rule = "after-run-finished"   // an event after RUN_FINISHED other than RUN_STARTED or RUN_ERROR
	RuleAfterRunError       Rule = "after-run-error"      // an event after RUN_ERROR other than RUN_STARTED
	RuleRunFinishedOpen     Rule = "run-finished-open"    // RUN_FINISHED while steps, messages, reasoning, calls or subagents are open
	RuleNullField           Rule = "null-field"           // an optional field sent as null where the client's verifier forbids it
	RuleMessageOpen         Rule = "message-open"         // TEXT_MESSAGE_START for a message already open
	RuleMessageNotOpen      Rule = "message-not-open"     // TEXT_MESSAGE_CONTENT or _END for no open message
	RuleToolCallOpen        Rule = "tool-call-open"       // TOOL_CALL_START for a call already open
	RuleToolCallNotOpen     Rule = "tool-call-not-open"   // TOOL_CALL_ARGS or _END for no open call
	RuleReasoningOpen       Rule = "reasoning-open"       // REASONING_START or REASONING_MESSAGE_START for one already open
	RuleReasoningNotOpen    Rule = "reasoning-not-open"   // a reasoning continuation or end for nothing open
	RuleStepActive          Rule = "step-active"          // STEP_STARTED for a step already open (per owner)
	RuleStepNotStarted      Rule = "step-not-started"     // STEP_FINISHED for a step never started
	RuleStepOwner           Rule = "step-owner"           // STEP_FINISHED under another owner than the step's
	RuleSubagentAttribution Rule = "subagent-attribution" // a subagentRunId disagreeing with the owner of its message or call
	RuleSubagentLifecycle   Rule = "subagent-lifecycle"   // SUBAGENT_* without its required subagentRunId, name or message
	RuleSubagentOutcome     Rule = "subagent-outcome"     // a SUBAGENT_* outcome of an unknown type or with non-string interrupt ids
	RuleSubagentActive      Rule = "subagent-active"      // SUBAGENT_STARTED for an active subagent
	RuleSubagentReused      Rule = "subagent-reused"      // SUBAGENT_STARTED for a subagent id already finished in the run
	RuleSubagentParent      Rule = "subagent-parent"      // a parentSubagentRunId never started in the run
	RuleSubagentNotActive   Rule = "subagent-not-active"  // SUBAGENT_FINISHED or _ERROR for no active subagent
	RuleThinking            Rule = "thinking"             // a THINKING_* event out of order (@ag-ui/client 0.0.59, which still knows them)
)

// The rules the Strict profile adds: what a test of an agent wants beyond
// what the client rejects.
const (
	RuleTruncated          Rule = "truncated"            // the stream ended without RUN_FINISHED or RUN_ERROR (Finish)
	RuleUnclosed           Rule = "unclosed"             // something still open at the end of a truncated stream (Finish)
	RuleFinishedAfterError Rule = "finished-after-error" // RUN_FINISHED after RUN_ERROR in the same run
	RuleResultBeforeEnd    Rule = "result-before-end"    // TOOL_CALL_RESULT while its call is still open
	RuleResultUnknownCall  Rule = "result-unknown-call"  // TOOL_CALL_RESULT for a call not started in the run nor in its input history
	RuleDuplicateResult    Rule = "duplicate-result"     // a second TOOL_CALL_RESULT for one call in a run
	RuleArgsNotJSON        Rule = "args-not-json"        // streamed TOOL_CALL_ARGS that are not one JSON value at TOOL_CALL_END
	RuleReopenedID         Rule = "reopened-id"          // a message, reasoning message or call id opened again after its END in one run (text continued by chunks aside)
	// RuleUnknownEvent: an event of a type the protocol does not describe,
	// which the client drops with only a console warning. Violation.Field
	// is "/type"; the message names a near miss ("TEXT_MESSAGE_CHUNKS":
	// did you mean TEXT_MESSAGE_CHUNK?).
	RuleUnknownEvent Rule = "unknown-event"
	// RuleUnknownField: material the client strips from an event with only
	// a console warning: a field its schema does not describe (top level
	// or nested: a message of MESSAGES_SNAPSHOT, RUN_STARTED's input), or
	// an element or optional field of a tagged union with an unknown tag
	// (a content part of an unknown type). Violation.Field is its JSON
	// Pointer; the message names a near miss (parentMessageID: did you mean
	// parentMessageId?) or the event type the field belongs to. CUSTOM and
	// RAW events and the opaque fields (metadata, rawEvent, state, values)
	// are the protocol's extension points and never reported.
	RuleUnknownField Rule = "unknown-field"
	// RuleRunIDMismatch: a RUN_FINISHED whose runId differs from its
	// RUN_STARTED's (AG-UI draft conformance: run-finished-wrong-run-id-fatal).
	RuleRunIDMismatch Rule = "run-id-mismatch"
	// RuleThreadIDMismatch: a RUN_FINISHED whose threadId differs from its
	// RUN_STARTED's, or a later RUN_STARTED of the stream on another thread
	// than its first (AG-UI draft conformance:
	// run-finished-wrong-thread-id-fatal, second-run-on-another-thread-fatal).
	RuleThreadIDMismatch Rule = "thread-id-mismatch"
	// RuleDuplicateInterruptID: two interrupts with one id in a
	// RUN_FINISHED interrupt outcome; a resume answers an interrupt by its
	// id (AG-UI draft conformance: duplicate-interrupt-id-fatal).
	RuleDuplicateInterruptID Rule = "duplicate-interrupt-id"
	// RuleProtoLoss: a protobuf frame holds what the client's decoder
	// drops without a word (unknown fields, values of no kind, invalid
	// UTF-8, an event of a later protocol version); see Loss.
	RuleProtoLoss Rule = "proto-loss"
)

// Opt-in rules, enabled by name with Options.Enable in any profile. Each
// catches a bug reported against real AG-UI integrations.
const (
	// RuleEmptyDelta: a TEXT_MESSAGE_CONTENT or REASONING_MESSAGE_CONTENT
	// event with an empty delta. @ag-ui/core up to 0.0.49 rejects them
	// ("Delta must not be an empty string") and fails the whole run, so a
	// frontend still on such a client breaks on an agent that forwards a
	// provider's empty deltas.
	RuleEmptyDelta Rule = "empty-delta"
	// RuleSharedResultID: one TOOL_CALL_RESULT messageId for several
	// results (results of parallel calls sharing one message id, as
	// Microsoft Agent Framework did): the client keeps one tool message per
	// id and renders only one of the results.
	RuleSharedResultID Rule = "shared-result-id"
	// RuleReusedResultID: a TOOL_CALL_RESULT messageId equal to the id of
	// another message of the run (the assistant message of its call, say):
	// the client then holds two messages under one id.
	RuleReusedResultID Rule = "reused-result-id"
)

// ruleInfo is one entry of the rule table.
type ruleInfo struct {
	rule  Rule
	group string // "response", "reference", "strict", "opt-in"
	what  string
}

// rules is the one list of rules, in the order of the documentation.
var rules = []ruleInfo{
	{RuleNoEvents, "response", "the stream has no events"},
	{RuleHTTPStatus, "response", "the HTTP status is not 2xx"},
	{RuleContentType, "response", "the Content-Type is not an AG-UI event stream"},
	{RuleFrameJSON, "reference", "an SSE frame's data is not JSON"},
	{RuleFrameObject, "reference", "an SSE frame's data is not a JSON object"},
	{RuleFrameType, "reference", "an SSE frame's object has no non-empty string type"},
	{RuleFrameSize, "reference", "a frame exceeds the client's 10 MiB buffer"},
	{RuleFrameProto, "reference", "a protobuf frame does not decode, or is cut"},
	{RuleSchema, "reference", "an event breaks its @ag-ui/core schema"},
	{RuleChunk, "reference", "a chunk event that cannot be expanded"},
	{RuleFirstEvent, "reference", "the first event is not RUN_STARTED (or RUN_ERROR)"},
	{RuleRunActive, "reference", "RUN_STARTED while a run is active"},
	{RuleAfterRunFinished, "reference", "an event after RUN_FINISHED other than RUN_STARTED or RUN_ERROR"},
	{RuleAfterRunError, "reference", "an event after RUN_ERROR other than RUN_STARTED"},
	{RuleRunFinishedOpen, "reference", "RUN_FINISHED while steps, messages, reasoning, calls or subagents are open"},
	{RuleNullField, "reference", "an optional field sent as null where the verifier forbids it"},
	{RuleMessageOpen, "reference", "TEXT_MESSAGE_START for a message already open"},
	{RuleMessageNotOpen, "reference", "TEXT_MESSAGE_CONTENT or _END for no open message"},
	{RuleToolCallOpen, "reference", "TOOL_CALL_START for a call already open"},
	{RuleToolCallNotOpen, "reference", "TOOL_CALL_ARGS or _END for no open call"},
	{RuleReasoningOpen, "reference", "REASONING_START or REASONING_MESSAGE_START for one already open"},
	{RuleReasoningNotOpen, "reference", "a reasoning continuation or end for nothing open"},
	{RuleStepActive, "reference", "STEP_STARTED for a step already open (per owner)"},
	{RuleStepNotStarted, "reference", "STEP_FINISHED for a step never started"},
	{RuleStepOwner, "reference", "STEP_FINISHED under another owner than the step's"},
	{RuleSubagentAttribution, "reference", "a subagentRunId disagreeing with the owner of its message or call"},
	{RuleSubagentLifecycle, "reference", "SUBAGENT_* without its required subagentRunId, name or message"},
	{RuleSubagentOutcome, "reference", "a SUBAGENT_* outcome of an unknown type or with non-string interrupt ids"},
	{RuleSubagentActive, "reference", "SUBAGENT_STARTED for an active subagent"},
	{RuleSubagentReused, "reference", "SUBAGENT_STARTED for a subagent id already finished in the run"},
	{RuleSubagentParent, "reference", "a parentSubagentRunId never started in the run"},
	{RuleSubagentNotActive, "reference", "SUBAGENT_FINISHED or _ERROR for no active subagent"},
	{RuleThinking, "reference", "a THINKING_* event out of order (@ag-ui/client 0.0.59)"},
	{RuleTruncated, "strict", "the stream ended without RUN_FINISHED or RUN_ERROR"},
	{RuleUnclosed, "strict", "something still open at the end of a truncated stream"},
	{RuleFinishedAfterError, "strict", "RUN_FINISHED after RUN_ERROR in the same run"},
	{RuleResultBeforeEnd, "strict", "TOOL_CALL_RESULT while its call is still open"},
	{RuleResultUnknownCall, "strict", "TOOL_CALL_RESULT for a call not started in the run nor in its input history"},
	{RuleDuplicateResult, "strict", "a second TOOL_CALL_RESULT for one call in a run"},
	{RuleArgsNotJSON, "strict", "streamed TOOL_CALL_ARGS that are not one JSON value at TOOL_CALL_END"},
	{RuleReopenedID, "strict", "a message, reasoning message or call id opened again after its END in one run"},
	{RuleProtoLoss, "strict", "a protobuf frame holds what the client's decoder drops"},
	{RuleUnknownEvent, "strict", "an event type the client drops (did you mean ...)"},
	{RuleUnknownField, "strict", "a field or union member the client strips (did you mean ...)"},
	{RuleRunIDMismatch, "strict", "a RUN_FINISHED whose runId differs from its RUN_STARTED's (draft)"},
	{RuleThreadIDMismatch, "strict", "a RUN_FINISHED or later RUN_STARTED on another thread than its run's or the stream's (draft)"},
	{RuleDuplicateInterruptID, "strict", "two interrupts with one id in a RUN_FINISHED outcome (draft)"},
	{RuleEmptyDelta, "opt-in", "an empty text or reasoning delta"},
	{RuleSharedResultID, "opt-in", "one TOOL_CALL_RESULT messageId for several results"},
	{RuleReusedResultID, "opt-in", "a TOOL_CALL_RESULT messageId equal to another message's id"},
}

// Rules returns every rule, in the order of the package documentation:
// the response rules, the reference profile's, Strict's, then the opt-in
// rules.
func Rules() []Rule {
	out := make([]Rule, len(rules))
	for i, r := range rules {
		out[i] = r.rule
	}
	return out
}

// Known reports whether r is one of the rules of Rules.
func (r Rule) Known() bool {
	for _, ri := range rules {
		if ri.rule == r {
			return true
		}
	}
	return false
}

// OptIn reports whether r is an opt-in rule, checked only when
// Options.Enable names it.
func (r Rule) OptIn() bool {
	for _, ri := range rules {
		if ri.rule == r {
			return ri.group == "opt-in"
		}
	}
	return false
}

// ParseRules parses a comma-separated list of rule names, as the command
// line's --allow and --enable take. Unknown names are an error listing the
// known ones.
func ParseRules(s string) ([]Rule, error) {
	var out []Rule
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		r := Rule(name)
		if !r.Known() {
			return nil, fmt.Errorf("unknown rule %q (the rules: %s)", name, strings.Join(ruleNames(), ", "))
		}
		out = append(out, r)
	}
	return out, nil
}

func ruleNames() []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = string(r.rule)
	}
	return out
}

// ruleSet is a set of rules, small enough to test by bit.
type ruleSet uint64

func (s ruleSet) has(r Rule) bool {
	i := ruleIndex(r)
	return i >= 0 && s&(1<<i) != 0
}

func ruleIndex(r Rule) int {
	for i, ri := range rules {
		if ri.rule == r {
			return i
		}
	}
	return -1
}

func makeRuleSet(rs []Rule) ruleSet {
	var s ruleSet
	for _, r := range rs {
		if i := ruleIndex(r); i >= 0 {
			s |= 1 << i
		}
	}
	return s
}
