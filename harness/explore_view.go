package harness

import (
	"github.com/aguitest/aguitest/golden"
)

// viewEntries returns the client's view of a case's result, run by run,
// as entries of the merged golden view: the messages each run created or
// changed and its state, as the client holds them at the run's end (ids as
// placeholders, parallel calls in a canonical order), and a call's missing
// arguments as {} (the client hands {} to a tool for them). Two plans that
// give the client the same messages and state give the same entries.
func viewEntries(res *Result, scrubs []golden.Scrub) []golden.Entry {
	runs := make([]golden.Run, len(res.Runs))
	for i := range res.Runs {
		runs[i] = golden.Run{Input: &res.Runs[i].Input, Events: res.Runs[i].Events}
	}
	var out []golden.Entry
	for _, e := range (golden.Normalizer{Scrubs: scrubs}).NormalizeRuns(runs, golden.Merged) {
		switch e.Type() {
		case golden.Message, golden.MessageRemoved, golden.State:
			noArgs(e)
			out = append(out, e)
		}
	}
	return out
}

// noArgs writes the missing arguments of the calls of an entry as {}.
func noArgs(e golden.Entry) {
	calls, _ := e["toolCalls"].([]any)
	for _, c := range calls {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		if a, ok := m["args"]; !ok || a == nil || a == "" {
			m["args"] = map[string]any{}
		}
	}
}
