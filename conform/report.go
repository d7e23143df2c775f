package conform

import (
	"encoding/json"
	"io"
	"regexp"
	"strings"

	"github.com/aguitest/aguitest/harness"
)

// resultJSON is a scenario's line of the JSON report.
type resultJSON struct {
	Scenario   string        `json:"scenario"`
	Status     Status        `json:"status"`
	Reason     string        `json:"reason,omitempty"`
	Wire       string        `json:"wire,omitempty"`
	Problems   []problemJSON `json:"problems,omitempty"`
	Notes      []string      `json:"notes,omitempty"`
	DurationMS *int64        `json:"duration_ms,omitempty"`
	Doc        string        `json:"doc"`
}

type problemJSON struct {
	Kind harness.ProblemKind `json:"kind"`
	Run  int                 `json:"run,omitempty"`
	Rule string              `json:"rule,omitempty"`
	Text string              `json:"text"`
}

type summaryJSON struct {
	Summary struct {
		Profile    string `json:"profile"`
		Pass       int    `json:"pass"`
		Fail       int    `json:"fail"`
		Skip       int    `json:"skip"`
		Error      string `json:"error,omitempty"`
		DurationMS *int64 `json:"duration_ms,omitempty"`
	} `json:"summary"`
}

// Volatile values of problem texts: a loopback port, a UUID.
var (
	loopbackPort = regexp.MustCompile(`(127\.0\.0\.1|localhost|\[::1\]):\d+`)
	uuid         = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
)

// WriteJSON writes the report as JSON Lines: an object per scenario, in
// the battery's order (scenario, status, reason, wire, problems with their
// kind, run and rule, notes, duration_ms, doc), then one holding the
// summary (profile, the counts of each status, error, duration_ms).
// With stable set, it leaves out what changes from one run to the next,
// for a golden file: durations, loopback ports ("127.0.0.1:PORT") and
// UUIDs ("UUID") in the texts, and what a failed request quotes of the
// agent's output.
func (r *Report) WriteJSON(w io.Writer, stable bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	text := func(s string) string {
		if stable {
			// What the agent printed is its own logging, not the finding.
			s, _, _ = strings.Cut(s, "\nagent output:\n")
			s = strings.TrimSuffix(s, " (the agent printed nothing)")
			s = loopbackPort.ReplaceAllString(s, "$1:PORT")
			s = uuid.ReplaceAllString(s, "UUID")
		}
		return s
	}
	for _, res := range r.Results {
		line := resultJSON{Scenario: res.Name, Status: res.Status, Reason: text(res.Reason), Wire: string(res.Wire), Doc: res.Doc}
		for _, p := range res.Problems {
			pj := problemJSON{Kind: p.Kind, Run: p.Run, Text: text(p.Text)}
			if p.Violation != nil {
				pj.Rule = string(p.Violation.Rule)
			}
			line.Problems = append(line.Problems, pj)
		}
		for _, n := range res.Notes {
			line.Notes = append(line.Notes, text(n))
		}
		if !stable {
			ms := res.Duration.Milliseconds()
			line.DurationMS = &ms
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	var sum summaryJSON
	sum.Summary.Profile = r.Profile.String()
	sum.Summary.Pass, sum.Summary.Fail, sum.Summary.Skip = r.Count(Pass), r.Count(Fail), r.Count(Skip)
	if r.Err != nil {
		sum.Summary.Error = text(r.Err.Error())
	}
	if !stable {
		ms := r.Duration.Milliseconds()
		sum.Summary.DurationMS = &ms
	}
	return enc.Encode(sum)
}
