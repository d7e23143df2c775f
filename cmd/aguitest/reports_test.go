package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
)

// junitSchema is the JUnit XML that CI systems read, as the schema
// Jenkins validates reports against (junit-10.xsd of its xunit plugin)
// says it: each element, the parents it may have, its attributes and
// those of them it must have. GitLab and GitHub's test reporters read
// the same elements and attributes.
var junitSchema = map[string]struct {
	parents, attrs, required []string
}{
	"testsuites": {[]string{""}, []string{"name", "time", "tests", "failures", "errors"}, nil},
	"testsuite": {[]string{"testsuites", "testsuite", ""},
		[]string{"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url"},
		[]string{"name", "tests", "failures", "errors"}},
	"properties": {[]string{"testsuite"}, nil, nil},
	"property":   {[]string{"properties"}, []string{"name", "value"}, []string{"name", "value"}},
	"testcase":   {[]string{"testsuite"}, []string{"name", "time", "classname", "group"}, []string{"name"}},
	"failure":    {[]string{"testcase"}, []string{"type", "message"}, nil},
	"error":      {[]string{"testcase"}, []string{"type", "message"}, nil},
	"skipped":    {[]string{"testcase"}, []string{"type", "message"}, nil},
	"system-out": {[]string{"testcase", "testsuite"}, nil, nil},
	"system-err": {[]string{"testcase", "testsuite"}, nil, nil},
}

// surefireTime is the form of a time attribute in the schema.
var surefireTime = regexp.MustCompile(`^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$`)

// The document as a CI system reads it back.
type (
	readSuites struct {
		XMLName  xml.Name    `xml:"testsuites"`
		Name     string      `xml:"name,attr"`
		Tests    *int        `xml:"tests,attr"` // optional here
		Failures *int        `xml:"failures,attr"`
		Errors   *int        `xml:"errors,attr"`
		Suites   []readSuite `xml:"testsuite"`
	}
	readSuite struct {
		Name      string     `xml:"name,attr"`
		Tests     int        `xml:"tests,attr"`
		Failures  int        `xml:"failures,attr"`
		Errors    int        `xml:"errors,attr"`
		Skipped   int        `xml:"skipped,attr"`
		Timestamp string     `xml:"timestamp,attr"`
		Cases     []readCase `xml:"testcase"`
	}
	readCase struct {
		Name      string       `xml:"name,attr"`
		Classname string       `xml:"classname,attr"`
		Time      string       `xml:"time,attr"`
		Failure   []readResult `xml:"failure"`
		Error     []readResult `xml:"error"`
		Skipped   []readResult `xml:"skipped"`
		SystemOut string       `xml:"system-out"`
	}
	readResult struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// checkJUnit checks a JUnit XML document against junitSchema, and its
// counts against its test cases, and returns it read back.
func checkJUnit(data []byte) (*readSuites, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var stack []string
	var errs []error
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			el, ok := junitSchema[t.Name.Local]
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("<%s> is not an element of the schema", t.Name.Local))
			case !slices.Contains(el.parents, parent):
				errs = append(errs, fmt.Errorf("<%s> in <%s>", t.Name.Local, parent))
			}
			var names []string
			for _, a := range t.Attr {
				names = append(names, a.Name.Local)
				if !slices.Contains(el.attrs, a.Name.Local) {
					errs = append(errs, fmt.Errorf("<%s %s=...>: no such attribute", t.Name.Local, a.Name.Local))
				}
				if a.Name.Local == "time" && !surefireTime.MatchString(a.Value) {
					errs = append(errs, fmt.Errorf("<%s time=%q>: not a time", t.Name.Local, a.Value))
				}
				if slices.Contains([]string{"tests", "failures", "errors", "skipped"}, a.Name.Local) {
					if _, err := strconv.Atoi(a.Value); err != nil {
						errs = append(errs, fmt.Errorf("<%s %s=%q>: not a count", t.Name.Local, a.Name.Local, a.Value))
					}
				}
			}
			for _, r := range el.required {
				if !slices.Contains(names, r) {
					errs = append(errs, fmt.Errorf("<%s> has no %s", t.Name.Local, r))
				}
			}
			stack = append(stack, t.Name.Local)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	var doc readSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	tests, failures, errors_ := 0, 0, 0
	for _, s := range doc.Suites {
		f, e, sk := 0, 0, 0
		for _, c := range s.Cases {
			n := len(c.Failure) + len(c.Error) + len(c.Skipped)
			if n > 1 {
				errs = append(errs, fmt.Errorf("testcase %q: %d outcomes, want one at most", c.Name, n))
			}
			f, e, sk = f+len(c.Failure), e+len(c.Error), sk+len(c.Skipped)
		}
		if s.Tests != len(s.Cases) || s.Failures != f || s.Errors != e || s.Skipped != sk {
			errs = append(errs, fmt.Errorf("testsuite %q counts tests=%d failures=%d errors=%d skipped=%d; its testcases: %d, %d, %d, %d",
				s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Cases), f, e, sk))
		}
		tests, failures, errors_ = tests+s.Tests, failures+s.Failures, errors_+s.Errors
	}
	for _, c := range []struct {
		name     string
		got      *int
		children int
	}{{"tests", doc.Tests, tests}, {"failures", doc.Failures, failures}, {"errors", doc.Errors, errors_}} {
		if c.got != nil && *c.got != c.children {
			errs = append(errs, fmt.Errorf("testsuites counts %s=%d; its testsuites: %d", c.name, *c.got, c.children))
		}
	}
	return &doc, errors.Join(errs...)
}

// The JUnit report holds each outcome as the schema says, and reads back:
// the counts, a failure with every problem at the case's file:line, an
// error for an agent that did not start, skipped with its reason, the
// notes as system-out; text no XML can carry is replaced, not written.
func TestJUnit(t *testing.T) {
	start := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	v := agui.Violation{Rule: agui.RuleArgsNotJSON}
	suites := []suite{
		{Name: "cases.yaml", class: "aguitest.test.cases", Start: start, Duration: 2500 * time.Millisecond, Outcomes: []outcome{
			{Name: "forecast", File: "cases.yaml", Line: 3, Status: statusPass, Notes: []string{"explored under 31 plans"}, Duration: 1200 * time.Millisecond},
			{Name: "map", File: "cases.yaml", Line: 12, Status: statusFail, Duration: 300 * time.Millisecond, Problems: []harness.Problem{
				{Kind: harness.ProblemViolation, Run: 1, Violation: &v, Text: "run 1: event 10 (TOOL_CALL_END): args-not-json: \"{\\\"a\\\"\" <&> ]]>\nsecond line"},
				{Kind: harness.ProblemFidelity, Text: "fidelity: agent printed \x1b[31mred\x1b[0m and \x00"},
			}},
		}},
		{Name: "aguitest conform node server.js", class: "aguitest.conform", Start: start, Duration: time.Second, Err: "starting the agent: exit status 3", Outcomes: []outcome{
			{Name: "backend-tool", Status: statusSkip, Reason: "the configuration names no tool of the server's (tools:)"},
			{Name: "text", Status: statusError, Problems: []harness.Problem{{Kind: harness.ProblemCase, Text: "starting the agent: exit status 3"}}},
		}},
	}
	var b bytes.Buffer
	require.NoError(t, writeJUnit(&b, "aguitest test", suites))
	doc, err := checkJUnit(b.Bytes())
	require.NoError(t, err, b.String())
	assert.True(t, strings.HasPrefix(b.String(), xml.Header), "an XML declaration first")
	assert.NotContains(t, b.String(), "\x1b")
	assert.NotContains(t, b.String(), "\x00")

	assert.Equal(t, "aguitest test", doc.Name)
	assert.Equal(t, []int{4, 1, 1}, []int{*doc.Tests, *doc.Failures, *doc.Errors})
	require.Len(t, doc.Suites, 2)
	test, conf := doc.Suites[0], doc.Suites[1]
	assert.Equal(t, "2026-12-01T09:30:00", test.Timestamp)
	assert.Equal(t, readCase{Name: "forecast", Classname: "aguitest.test.cases", Time: "1.200", SystemOut: "explored under 31 plans"}, test.Cases[0])
	m := test.Cases[1]
	require.Len(t, m.Failure, 1)
	assert.Equal(t, "0.300", m.Time)
	assert.Equal(t, `run 1: event 10 (TOOL_CALL_END): args-not-json: "{\"a\"" <&> ]]>`, m.Failure[0].Message)
	assert.Equal(t, "violation", m.Failure[0].Type)
	assert.Equal(t, "cases.yaml:12: run 1: event 10 (TOOL_CALL_END): args-not-json: \"{\\\"a\\\"\" <&> ]]>\nsecond line\n"+
		"cases.yaml:12: fidelity: agent printed \uFFFD[31mred\uFFFD[0m and \uFFFD\n", m.Failure[0].Text)
	assert.Equal(t, []readResult{{Message: "the configuration names no tool of the server's (tools:)"}}, conf.Cases[0].Skipped)
	require.Len(t, conf.Cases[1].Error, 1)
	assert.Equal(t, readResult{Message: "starting the agent: exit status 3", Type: "case", Text: "starting the agent: exit status 3\n"}, conf.Cases[1].Error[0])
}

// The checker finds what the schema does not allow.
func TestCheckJUnit(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase name="x"/></testsuite></testsuites>`, ""},
		{`<testsuites skipped="0"><testsuite name="a" tests="0" failures="0" errors="0"/></testsuites>`, "<testsuites skipped=...>: no such attribute"},
		{`<testsuites><testsuite name="a" tests="1" failures="0"><testcase name="x"/></testsuite></testsuites>`, "<testsuite> has no errors"},
		{`<testsuites><testsuite name="a" tests="2" failures="0" errors="0"><testcase name="x"/></testsuite></testsuites>`, `testsuite "a" counts tests=2`},
		{`<testsuites failures="1"><testsuite name="a" tests="1" failures="0" errors="0"><testcase name="x"/></testsuite></testsuites>`, `testsuites counts failures=1`},
		{`<testsuites><testsuite name="a" tests="1" failures="1" errors="0"><testcase name="x" file="a.go"><failure/></testcase></testsuite></testsuites>`, "<testcase file=...>: no such attribute"},
		{`<testsuites><testsuite name="a" tests="1" failures="0" errors="0" time="1s"><testcase name="x"/></testsuite></testsuites>`, `time="1s">: not a time`},
		{`<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase name="x"><skipped/><note/></testcase></testsuite></testsuites>`, "<note> is not an element"},
		{`<testsuites><testsuite name="a" tests="1" failures="1" errors="0"><testcase name="x"><failure/><failure/></testcase></testsuite></testsuites>`, "2 outcomes"},
	} {
		_, err := checkJUnit([]byte(tc.doc))
		if tc.want == "" {
			assert.NoError(t, err, tc.doc)
		} else if assert.Error(t, err, tc.doc) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
}

// The JSON report of test and explore: a line per case, then a summary
// of them all.
func TestWriteJSON(t *testing.T) {
	v := agui.Violation{Rule: agui.RuleArgsNotJSON}
	suites := []suite{{Name: "cases.yaml", Duration: time.Second, Outcomes: []outcome{
		{Name: "forecast", Line: 3, Status: statusPass, Notes: []string{"n"}, Duration: 5 * time.Millisecond},
		{Name: "map", Line: 12, Status: statusFail, Problems: []harness.Problem{{Kind: harness.ProblemViolation, Run: 2, Violation: &v, Text: "run 2: <x>"}}},
	}}, {Name: "more.yaml", Err: "interrupted", Outcomes: []outcome{{Name: "a", Status: statusError}}}}
	var b bytes.Buffer
	require.NoError(t, writeJSON(&b, suites))
	assert.Equal(t, `{"suite":"cases.yaml","case":"forecast","line":3,"status":"pass","notes":["n"],"duration_ms":5}
{"suite":"cases.yaml","case":"map","line":12,"status":"fail","problems":[{"kind":"violation","run":2,"rule":"args-not-json","text":"run 2: <x>"}],"duration_ms":0}
{"suite":"more.yaml","case":"a","status":"error","duration_ms":0}
{"summary":{"pass":1,"fail":1,"skip":0,"errors":1,"error":"interrupted","duration_ms":1000}}
`, b.String())
	sc := bufio.NewScanner(&b)
	for sc.Scan() {
		assert.True(t, json.Valid(sc.Bytes()), sc.Text())
	}
}

// junitcheck FILE checks a JUnit report a script wrote against the
// schema (for testscript).
func junitcheck(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: junitcheck FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	_, err = checkJUnit(data)
	switch {
	case err != nil && !neg:
		ts.Fatalf("%s: %v", args[0], err)
	case err == nil && neg:
		ts.Fatalf("%s: the schema holds", args[0])
	}
}

// Whatever text a report holds (an agent's output quoted in a problem,
// names, notes), the JUnit report is well-formed, holds to the schema and
// reads back as that text, what XML cannot carry replaced by U+FFFD.
func FuzzJUnit(f *testing.F) {
	f.Add("case", "run 1: <&> ]]> \"q\"\nline 2\r\n\ttab", "note\x1b[0m", "\x00\xff")
	f.Fuzz(func(t *testing.T, name, problem, note, reason string) {
		suites := []suite{{Name: name, class: name, Outcomes: []outcome{
			{Name: name, Status: statusFail, Problems: []harness.Problem{{Kind: harness.ProblemRun, Text: problem}}, Notes: []string{note}},
			{Name: name, Status: statusSkip, Reason: reason},
		}}}
		var b bytes.Buffer
		if err := writeJUnit(&b, name, suites); err != nil {
			t.Fatal(err)
		}
		doc, err := checkJUnit(b.Bytes())
		if err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		c := doc.Suites[0].Cases
		if got, want := c[0].Failure[0].Text, readable(problem+"\n"); got != want {
			t.Errorf("the failure reads back as %q, want %q", got, want)
		}
		if got, want := c[0].SystemOut, readable(note); got != want {
			t.Errorf("the notes read back as %q, want %q", got, want)
		}
		if got, want := doc.Suites[0].Name, readable(name); got != want && strings.ReplaceAll(got, "\n", " ") != strings.ReplaceAll(want, "\n", " ") {
			t.Errorf("the name reads back as %q, want %q", got, want)
		}
	})
}

// readable is s as an XML reader gets it back: what XML cannot carry
// replaced by U+FFFD, and line ends normalised to "\n" (XML's rule for
// text; "&#xD;" keeps a carriage return).
func readable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '\n' || r == '\t' || r == '\r' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF {
			b.WriteRune(r)
		} else {
			b.WriteRune('\uFFFD')
		}
	}
	return b.String()
}
