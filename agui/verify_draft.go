package agui

import (
	"encoding/json"
	"fmt"
)

// The draft rules: what AG-UI's draft conformance (spec/draft/conformance
// in ag-ui-protocol/ag-ui) rejects and today's clients let through, each
// breaking a UI that keys on ids. Strict applies them.

// draft is what the draft rules remember: the ids of the open run, and the
// thread of the stream's first run.
type draft struct {
	runThread, runID string // the current run's RUN_STARTED ids
	thread           string // the first run's threadId
	threadSet        bool
}

// draftRunStarted checks a RUN_STARTED against the stream's first run and
// remembers its ids.
func (v *Verifier) draftRunStarted(e *Event, report fail) {
	if v.opt.Profile != Strict {
		return
	}
	thread, run := e.ThreadID(), e.RunID()
	if !v.draft.threadSet {
		v.draft.thread, v.draft.threadSet = thread, true
	} else if thread != v.draft.thread {
		report(RuleThreadIDMismatch, fmt.Sprintf("RUN_STARTED names threadId '%s', but the stream's first run is on thread '%s': the runs of one response are runs on one conversation, and a client keys its messages by thread", thread, v.draft.thread))
	}
	v.draft.runThread, v.draft.runID = thread, run
}

// draftRunFinished checks a RUN_FINISHED against its RUN_STARTED, and its
// interrupts' ids.
func (v *Verifier) draftRunFinished(e *Event, report fail) {
	if v.opt.Profile != Strict {
		return
	}
	if v.runStarted {
		if run := e.RunID(); run != v.draft.runID {
			report(RuleRunIDMismatch, fmt.Sprintf("RUN_FINISHED names runId '%s', but the run it closes started as '%s': a run's RUN_STARTED and RUN_FINISHED carry one runId", run, v.draft.runID))
		}
		if thread := e.ThreadID(); thread != v.draft.runThread {
			report(RuleThreadIDMismatch, fmt.Sprintf("RUN_FINISHED names threadId '%s', but the run it closes started on thread '%s': a run's RUN_STARTED and RUN_FINISHED carry one threadId", thread, v.draft.runThread))
		}
	}
	if id := duplicateInterrupt(e); id != "" {
		report(RuleDuplicateInterruptID, fmt.Sprintf("RUN_FINISHED's interrupt outcome has two interrupts with the id '%s': a resume answers an interrupt by its id, so one answer would cover both", id))
	}
}

// duplicateInterrupt returns the first id two interrupts of a RUN_FINISHED
// interrupt outcome share, or "".
func duplicateInterrupt(e *Event) string {
	sp := e.field("outcome")
	if sp.Kind != kindObject {
		return ""
	}
	var out struct {
		Type       string            `json:"type"`
		Interrupts []json.RawMessage `json:"interrupts"`
	}
	if json.Unmarshal(e.raw[sp.Start:sp.End], &out) != nil || out.Type != "interrupt" || len(out.Interrupts) < 2 {
		return ""
	}
	seen := make(map[string]bool, len(out.Interrupts))
	for _, it := range out.Interrupts {
		var x struct {
			ID *string `json:"id"`
		}
		if json.Unmarshal(it, &x) != nil || x.ID == nil {
			continue
		}
		if seen[*x.ID] {
			return *x.ID
		}
		seen[*x.ID] = true
	}
	return ""
}
