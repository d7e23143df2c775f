package replay

import (
	"encoding/json"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/agui"
)

// Diff compares a re-run's events with the recorded ones, event by event as
// decoded JSON (so spacing and member order do not count), ignoring the
// "timestamp" field. It returns "" when they agree, else a diff (-want
// +got). Ids must be stable between the runs for them to agree; the golden
// package normalises them when they are not.
func Diff(want, got []agui.Event) string {
	return cmp.Diff(decodeAll(want), decodeAll(got))
}

func decodeAll(evs []agui.Event) []map[string]any {
	out := make([]map[string]any, 0, len(evs))
	for _, e := range evs {
		var m map[string]any
		if err := json.Unmarshal(e.Raw(), &m); err != nil {
			m = map[string]any{"raw": e.String()}
		}
		delete(m, "timestamp")
		out = append(out, m)
	}
	return out
}
