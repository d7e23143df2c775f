package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	neturl "net/url"
	"regexp"
	"strings"
	"time"

	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/harness"
)

// outcome is how a case, a scenario or an explored script went, as the
// machine reports (--json, --junit) of explore, conform and test say it.
type outcome struct {
	Name string
	// File and Line are where a case is written; "" for a scenario.
	File string
	Line int
	// Status is pass, fail, skip or error (the case could not run: its
	// agent did not start).
	Status string
	// Reason says why it was skipped.
	Reason      string
	Problems    []harness.Problem
	Notes       []string
	Exploration *harness.Exploration
	Duration    time.Duration
}

// The statuses of an outcome.
const (
	statusPass  = "pass"
	statusFail  = "fail"
	statusSkip  = "skip"
	statusError = "error"
)

// suite is what one command ran: a battery, a case file, a script.
type suite struct {
	// Name names it in the JUnit report; class is the classname of its
	// test cases there.
	Name, class string
	Outcomes    []outcome
	// Err is why it stopped early ("" when it did not).
	Err      string
	Start    time.Time
	Duration time.Duration
}

// outcomeOf is the outcome of a case run by the harness.
func outcomeOf(rep harness.Report, took time.Duration) outcome {
	o := outcome{Name: rep.Case, Status: statusPass, Problems: rep.Problems, Exploration: rep.Exploration, Duration: took}
	if x := rep.Exploration; x != nil && x.Plans > 0 {
		o.Notes = append(o.Notes, "explored under "+x.String())
	}
	switch {
	case notStarted(rep.Result, rep.Problems):
		o.Status = statusError
	case rep.Failed():
		o.Status = statusFail
	}
	return o
}

// notStarted reports whether a case's problems say it could not run at
// all (its agent did not start): an error in the reports, not a failure.
func notStarted(res *harness.Result, problems []harness.Problem) bool {
	return res == nil && len(problems) > 0 && problems[0].Kind == harness.ProblemCase
}

// scenarioOutcome is the outcome of a conform scenario.
func scenarioOutcome(r conform.Result) outcome {
	o := outcome{Name: r.Name, Status: string(r.Status), Reason: r.Reason, Problems: r.Problems, Notes: r.Notes, Duration: r.Duration}
	if r.Status == conform.Fail && notStarted(r.Harness.Result, r.Problems) {
		o.Status = statusError
	}
	return o
}

// count returns how many outcomes have the status.
func (s *suite) count(status string) int {
	n := 0
	for _, o := range s.Outcomes {
		if o.Status == status {
			n++
		}
	}
	return n
}

// The JSON Lines of --json (explore and test; conform writes its
// conform.Report): an object per case, then the summary.
type (
	outcomeJSON struct {
		Suite       string           `json:"suite"`
		Case        string           `json:"case"`
		Line        int              `json:"line,omitempty"`
		Status      string           `json:"status"`
		Reason      string           `json:"reason,omitempty"`
		Problems    []problemJSON    `json:"problems,omitempty"`
		Notes       []string         `json:"notes,omitempty"`
		Exploration *explorationJSON `json:"exploration,omitempty"`
		DurationMS  int64            `json:"duration_ms"`
	}
	problemJSON struct {
		Kind harness.ProblemKind `json:"kind"`
		Run  int                 `json:"run,omitempty"`
		Rule string              `json:"rule,omitempty"`
		Text string              `json:"text"`
	}
	explorationJSON struct {
		Plans  int      `json:"plans"`
		Matrix int      `json:"matrix"`
		Seed   uint64   `json:"seed"`
		Wires  []string `json:"wires"`
		Failed []string `json:"failed,omitempty"`
		// Shrunk is the smallest failing script, as a script file says it.
		Shrunk string `json:"shrunk,omitempty"`
	}
	summaryJSON struct {
		Summary struct {
			Pass       int    `json:"pass"`
			Fail       int    `json:"fail"`
			Skip       int    `json:"skip"`
			Errors     int    `json:"errors"`
			Error      string `json:"error,omitempty"`
			DurationMS int64  `json:"duration_ms"`
		} `json:"summary"`
	}
)

// writeJSON writes the suites as JSON Lines: an object per case (suite,
// case, line, status, reason, problems with their kind, run and rule,
// notes, exploration, duration_ms), then one summary of them all.
func writeJSON(w io.Writer, suites []suite) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var sum summaryJSON
	for _, s := range suites {
		for _, o := range s.Outcomes {
			line := outcomeJSON{Suite: s.Name, Case: o.Name, Line: o.Line, Status: o.Status, Reason: o.Reason, Notes: o.Notes, DurationMS: o.Duration.Milliseconds()}
			for _, p := range o.Problems {
				pj := problemJSON{Kind: p.Kind, Run: p.Run, Text: p.Text}
				if p.Violation != nil {
					pj.Rule = string(p.Violation.Rule)
				}
				line.Problems = append(line.Problems, pj)
			}
			if x := o.Exploration; x != nil {
				xj := &explorationJSON{Plans: x.Plans, Matrix: x.Matrix, Seed: x.Seed, Wires: []string{}, Failed: x.Failed}
				for _, wire := range x.Wires {
					xj.Wires = append(xj.Wires, string(wire))
				}
				if x.Failure != nil {
					xj.Shrunk = x.Failure.Script.YAML()
				}
				line.Exploration = xj
			}
			if err := enc.Encode(line); err != nil {
				return err
			}
		}
		sum.Summary.Pass += s.count(statusPass)
		sum.Summary.Fail += s.count(statusFail)
		sum.Summary.Skip += s.count(statusSkip)
		sum.Summary.Errors += s.count(statusError)
		sum.Summary.DurationMS += s.Duration.Milliseconds()
		if s.Err != "" && sum.Summary.Error == "" {
			sum.Summary.Error = s.Err
		}
	}
	return enc.Encode(sum)
}

// The JUnit XML of --junit, as CI systems read it (Jenkins, GitLab,
// GitHub's test reporters): testsuites, a testsuite per suite with its
// counts, a testcase per outcome with a failure, error or skipped child,
// and the notes as its system-out. Times are in seconds.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name      string      `xml:"name,attr"`
		Tests     int         `xml:"tests,attr"`
		Failures  int         `xml:"failures,attr"`
		Errors    int         `xml:"errors,attr"`
		Skipped   int         `xml:"skipped,attr"`
		Time      string      `xml:"time,attr"`
		Timestamp string      `xml:"timestamp,attr,omitempty"`
		Cases     []junitCase `xml:"testcase"`
		SystemErr *junitText  `xml:"system-err,omitempty"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitOutcome `xml:"failure,omitempty"`
		Error     *junitOutcome `xml:"error,omitempty"`
		Skipped   *junitOutcome `xml:"skipped,omitempty"`
		SystemOut *junitText    `xml:"system-out,omitempty"`
	}
	junitOutcome struct {
		Message string `xml:"message,attr,omitempty"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",innerxml"` // escaped by xmlText
	}
	junitText struct {
		Text string `xml:",innerxml"` // escaped by xmlText
	}
)

// textOf is the element holding s, nil when s is "".
func textOf(s string) *junitText {
	if s == "" {
		return nil
	}
	return &junitText{xmlText(s)}
}

// xmlText escapes s as XML character data. It keeps line breaks and tabs
// as they are (package xml writes them as character references, which
// make a report of many lines one long line), and replaces what XML
// cannot carry (control characters, invalid UTF-8) with U+FFFD.
func xmlText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '\r':
			b.WriteString("&#xD;")
		case r == '\n' || r == '\t' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF:
			b.WriteRune(r)
		default:
			b.WriteRune('\uFFFD')
		}
	}
	return b.String()
}

// seconds says a duration as JUnit's time attributes do.
func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// writeJUnit writes the suites as a JUnit XML document named name.
func writeJUnit(w io.Writer, name string, suites []suite) error {
	doc := junitSuites{Name: name}
	var total time.Duration
	for _, s := range suites {
		js := junitSuite{Name: s.Name, Tests: len(s.Outcomes), Failures: s.count(statusFail), Errors: s.count(statusError),
			Skipped: s.count(statusSkip), Time: seconds(s.Duration), SystemErr: textOf(s.Err)}
		if !s.Start.IsZero() {
			js.Timestamp = s.Start.UTC().Format("2006-01-02T15:04:05")
		}
		for _, o := range s.Outcomes {
			jc := junitCase{Name: o.Name, Classname: s.class, Time: seconds(o.Duration), SystemOut: textOf(strings.Join(o.Notes, "\n"))}
			switch o.Status {
			case statusFail, statusError:
				jo := &junitOutcome{Text: xmlText(problemsText(o))}
				if len(o.Problems) > 0 {
					jo.Message, _, _ = strings.Cut(o.Problems[0].Text, "\n")
					jo.Type = string(o.Problems[0].Kind)
				}
				if o.Status == statusFail {
					jc.Failure = jo
				} else {
					jc.Error = jo
				}
			case statusSkip:
				jc.Skipped = &junitOutcome{Message: o.Reason}
			}
			js.Cases = append(js.Cases, jc)
		}
		doc.Suites = append(doc.Suites, js)
		doc.Tests += js.Tests
		doc.Failures += js.Failures
		doc.Errors += js.Errors
		total += s.Duration
	}
	doc.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// problemsText says an outcome's problems, each at the case's file:line
// when it has one, as the terminal report does.
func problemsText(o outcome) string {
	var b strings.Builder
	for _, p := range o.Problems {
		if o.File != "" {
			fmt.Fprintf(&b, "%s:%d: ", o.File, o.Line)
		}
		b.WriteString(p.Text)
		b.WriteString("\n")
	}
	return b.String()
}

// writeReports writes the suites to the files of --json and --junit.
func (r *reports) write(name string, suites []suite) error {
	if r.json != nil {
		if err := writeJSON(r.json, suites); err != nil {
			return fmt.Errorf("--json: %v", err)
		}
	}
	if r.junit != nil {
		if err := writeJUnit(r.junit, name, suites); err != nil {
			return fmt.Errorf("--junit: %v", err)
		}
	}
	return r.close()
}

// notFound finds a request the agent answered 404 in a run's problem.
var notFound = regexp.MustCompile(`POST (\S+): status 404 `)

// withPathHint puts first among problems, when a request was answered
// 404, what the user can do about it: the endpoint's path is most likely
// not the agent's. It returns problems unchanged otherwise.
func (a *agentFlags) withPathHint(problems []harness.Problem) []harness.Problem {
	for _, p := range problems {
		if p.Kind != harness.ProblemRun {
			continue
		}
		m := notFound.FindStringSubmatch(p.Text)
		if m == nil {
			continue
		}
		hint := fmt.Sprintf("the agent answered 404 Not Found to POST %s: check the path of --url, its AG-UI endpoint", m[1])
		if a.url == "" {
			path := m[1]
			if u, err := neturl.Parse(m[1]); err == nil {
				path = u.Path
			}
			hint = fmt.Sprintf("the agent answered 404 Not Found to POST %s: check --path, the path of its AG-UI endpoint", path)
		}
		return append([]harness.Problem{{Kind: harness.ProblemRun, Run: p.Run, Cause: true, Text: hint}}, problems...)
	}
	return problems
}
