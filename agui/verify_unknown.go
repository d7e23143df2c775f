package agui

import (
	"strconv"

	"github.com/aguitest/aguitest/internal/schema"
	iwords "github.com/aguitest/aguitest/internal/words"
)

// What the client drops in silence. HttpAgent's enforcement stage drops an
// event type the protocol does not describe and strips what an event's
// schema does not describe (an unknown field; an element or optional field
// that is a tagged-union member with an unknown tag; internal/schema finds
// them), with only a console warning. A producer's typo then never reaches the frontend. Strict reports
// each, with the path the client names in its warning and a did-you-mean
// for a near miss. The protocol's extension points are not findings: CUSTOM
// and RAW events, and the opaque fields (metadata, rawEvent, state, values)
// that the schema passes whole.

// unknownPassThrough reports whether an event type's extra material is
// the protocol's own extension point, never a finding.
func unknownPassThrough(t EventType) bool { return t == Custom || t == Raw }

// reportRemovals reports what the client strips from e (Strict), whose
// value is at sp.
func (v *Verifier) reportRemovals(e *Event, sp span) {
	if unknownPassThrough(e.typ) {
		return
	}
	for _, r := range schema.Removals(e.raw, sp, string(e.typ)) {
		v.report(e, RuleUnknownField, r.Text, r.Pointer)
	}
}

// reportUnknownEvent reports an event type the client drops (Strict).
func (v *Verifier) reportUnknownEvent(e *Event) {
	known := make([]string, 0, len(EventTypes)+len(LegacyEventTypes))
	for _, t := range EventTypes {
		known = append(known, string(t))
	}
	for _, t := range LegacyEventTypes {
		known = append(known, string(t))
	}
	msg := "the client drops events of type " + strconv.Quote(string(e.typ)) + ", which the protocol does not describe, and the frontend never sees it"
	if n := iwords.Nearest(string(e.typ), known); n != "" {
		msg = "the client drops events of type " + strconv.Quote(string(e.typ)) + " (did you mean " + n + "?), which the protocol does not describe, and the frontend never sees it"
	}
	v.report(e, RuleUnknownEvent, msg, "/type")
}
