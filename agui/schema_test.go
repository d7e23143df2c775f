package agui

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/aguitest/aguitest/internal/schema"
)

// TestFastPathAgreesWithChecker: whenever the one-pass fast path calls an
// event valid, the full checker finds no issue and nothing to strip.
func TestFastPathAgreesWithChecker(t *testing.T) {
	var c schema.Checker
	fast, checked := 0, 0
	n := 3000
	if testing.Short() {
		n = 1000
	}
	for i := range n {
		body, _ := genBody(clientSeed+1, i)
		r := NewReader(bytes.NewReader(body), "b")
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			var fe *FrameError
			if errors.As(err, &fe) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			s := schema.Event(string(e.typ))
			if s == nil {
				continue
			}
			checked++
			if !fastValid(&e) {
				continue
			}
			fast++
			issues := c.Check(e.raw, s)
			sp, _, _ := scanValue(e.raw, 0)
			if len(issues) > 0 || schema.NeedsStrip(e.raw, sp, s) {
				t.Fatalf("fast path accepts %s; the checker says %v (strip %v)", e.raw, issues, schema.NeedsStrip(e.raw, sp, s))
			}
		}
	}
	if fast < checked/2 {
		t.Errorf("the fast path took only %d of %d events", fast, checked)
	}
}

// TestConstructorsValid: what the typed constructors build passes the
// full schema checker with nothing to strip, so the Verifier may skip the
// schema stage for it (Event.valid).
func TestConstructorsValid(t *testing.T) {
	evs := []Event{
		NewRunStarted("t", "r"), NewRunFinished("t", "r"), NewRunError("boom", ""), NewRunError("boom", "E1"),
		NewTextMessageStart("m"), NewTextMessageContent("m", ""), NewTextMessageContent("m", "x\"\\\u2028"), NewTextMessageEnd("m"),
		NewToolCallStart("c", "f", ""), NewToolCallStart("c", "f", "m"), NewToolCallArgs("c", "{"), NewToolCallEnd("c"),
		NewToolCallResult("r", "c", "ok"), NewStepStarted("s"), NewStepFinished("s"),
		NewReasoningMessageStart("rm"), NewReasoningMessageContent("rm", "x"), NewReasoningMessageEnd("rm"),
	}
	var c schema.Checker
	for _, e := range evs {
		if !e.valid {
			t.Errorf("%s: built by a typed constructor but not marked valid", e.Raw())
			continue
		}
		s := schema.Event(string(e.typ))
		issues := c.Check(e.raw, s)
		sp, _, _ := scanValue(e.raw, 0)
		if len(issues) > 0 || schema.NeedsStrip(e.raw, sp, s) {
			t.Errorf("%s: %v (strip %v)", e.Raw(), issues, schema.NeedsStrip(e.raw, sp, s))
		}
	}
	// Parsing never marks an event valid.
	if e, _ := ParseEvent([]byte(`{"type":"TOOL_CALL_START","toolCallId":"c"}`)); e.valid {
		t.Error("a parsed event is marked valid")
	}
}
