package main

import (
	"bytes"
	"context"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/examples/claude"
	"github.com/aguitest/aguitest/examples/parallel"
	"github.com/aguitest/aguitest/harness"
)

// mixedUpReport takes examples/parallel's MixedUp agent, which sends every
// fragment under the id of the call that started last, through two
// scenarios; parallel-tools fails, with violations, and is recorded.
func mixedUpReport(t *testing.T) *conform.Report {
	t.Helper()
	agent := harness.Func(func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		return parallel.MixedUp{Model: env.Model}.Run(ctx, in, emit)
	})
	rep := conform.Run(t.Context(), agent, conform.Config{Only: []string{"parallel-tools", "tool-no-args"}, RecordDir: t.TempDir()})
	if rep.Count(conform.Fail) != 1 {
		t.Fatalf("want parallel-tools to fail alone, got %+v", rep.Results)
	}
	return &rep
}

// TestConformHTMLPage checks the page's structure without a browser: every
// scenario's row, and the failing one's section with its problems and the
// timeline of its runs.
func TestConformHTMLPage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.html")
	if err := writeConformHTML(out, "mixedup", mixedUpReport(t)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		`<td><a href="#scenario-1">parallel-tools</a></td><td class="fail">fail</td>`,
		`<td>tool-no-args</td><td class="pass">pass</td>`,
		`<section class="scenario" id="scenario-1">`,
		`<h2>parallel-tools: fail</h2>`,
		`args-not-json`,
		`<section class="run" id="scenario-1-run-1">`,
		`<g class="violation">`,
		`<g class="lane lane-call`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %q", want)
		}
	}
	for _, bad := range []string{"<script", `src="http`, `href="http`} {
		if strings.Contains(page, bad) {
			t.Errorf("the page has %q: it must be self-contained", bad)
		}
	}
	if strings.Count(page, `<section class="scenario"`) != 1 {
		t.Errorf("want a section for the failing scenario only")
	}
}

// TestConformHTMLInBrowser renders the page in headless Chromium: the DOM
// holds the table and the failing scenario's timeline, and the screenshot
// shows the failure's and the violations' red and the parallel calls' lanes.
func TestConformHTMLInBrowser(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "report.html")
	if err := writeConformHTML(out, "mixedup", mixedUpReport(t)); err != nil {
		t.Fatal(err)
	}
	dom := string(browsePage(t, bin, out, "--dump-dom", "--window-size=1400,2000"))
	for _, want := range []string{"aguitest conform: mixedup", "parallel-tools: fail", "⚠ args-not-json", "lane lane-run"} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered DOM has no %q", want)
		}
	}
	shot := filepath.Join(dir, "report.png")
	browsePage(t, bin, out, "--screenshot="+shot, "--window-size=1400,2000")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	colours := map[string][3]int{"violation": {0xc0, 0x26, 0x2d}, "parallel call": {0xf3, 0xc2, 0x7a}}
	counts := map[string]int{}
	eachPixel(img, func(r, g, b int) {
		for name, c := range colours {
			if abs(r-c[0]) < 12 && abs(g-c[1]) < 12 && abs(b-c[2]) < 12 {
				counts[name]++
			}
		}
	})
	if counts["violation"] < 200 {
		t.Errorf("screenshot: %d pixels of the violation colour, want at least 200", counts["violation"])
	}
	// The parallel calls' bars are as wide as their time in the run, which
	// the machine's load decides: what must show is the legend's swatch
	// and a lane for each of the three calls, apart.
	if n := colourBands(img, colours["parallel call"]); n < 4 {
		t.Errorf("screenshot: %d bands of rows in the parallel call colour (the legend's and the lanes'), want at least 4", n)
	}
	if t.Failed() {
		kept, err := os.MkdirTemp("", "aguitest-conform-html-*")
		if err == nil && os.Rename(shot, filepath.Join(kept, "report.png")) == nil {
			t.Logf("screenshot kept at %s", filepath.Join(kept, "report.png"))
		}
	}
}

// --url: the server is already running, its model client pointed once at
// the scripted LLM that conform (and test) serve on --llm, case after case.
// A server whose model client is pointed elsewhere fails with the likely
// cause first; a URL that takes no connection is bad usage.
func TestURL(t *testing.T) {
	t.Parallel() // it waits out the agent's retries of provider-500
	llm := freeAddr(t)
	desk := httptest.NewServer(claude.New(claude.Options{BaseURL: "http://" + llm + "/v1", APIKey: "k", Model: "claude-test"}))
	defer desk.Close()
	elsewhere := httptest.NewServer(claude.New(claude.Options{BaseURL: "http://" + freeAddr(t) + "/v1", APIKey: "k", Model: "claude-test", MaxRetries: -1}))
	defer elsewhere.Close()
	cases := filepath.Join(t.TempDir(), "desk.yaml")
	if err := os.WriteFile(cases, []byte(`cases:
  - name: forecast
    input: {user: "Weather in Paris?"}
    script:
      turns:
        - calls: [{name: get_forecast, args: '{"city":"Paris"}'}]
        - text: "Paris: 18°C."
    golden: none
    expect:
      calls: [{name: get_forecast, args: {city: Paris}}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		code int
		out  []string
		err  string
	}{
		{"conform", []string{"conform", "--url", desk.URL, "--llm", llm, "--only", "text,frontend-tool,tool-error,provider-500"}, 0,
			[]string{"aguitest conform: " + desk.URL + ", 4 scenarios", "the scripted LLM: http://" + llm + "/v1", "4 scenarios in"}, ""},
		{"test", []string{"test", cases, "--url", desk.URL, "--llm", llm, "-v"}, 0, []string{"--- PASS: forecast"}, ""},
		{"model elsewhere", []string{"conform", "--url", elsewhere.URL, "--llm", llm, "--only", "text"}, 1,
			[]string{"FAIL    the server asked the scripted LLM nothing: is its model client's base URL http://" + llm + "/v1?"}, ""},
		{"no server", []string{"conform", "--url", "http://" + freeAddr(t) + "/", "--only", "text"}, 2, nil, "takes no connection"},
		{"both", []string{"conform", "--url", desk.URL, "--cmd", "x"}, 2, nil, "--cmd and --url: give one"},
		{"llm without url", []string{"test", cases, "--cmd", "x", "--llm", llm}, 2, nil, "--llm goes with --url"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, nil, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout.String(), stderr.String())
			}
			for _, want := range tt.out {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout has no %q:\n%s", want, stdout.String())
				}
			}
			if !strings.Contains(stderr.String(), tt.err) {
				t.Errorf("stderr has no %q:\n%s", tt.err, stderr.String())
			}
		})
	}
}

// The table's rows: a failing scenario shows its first problem; the notes
// of one that passed (and the reason one was skipped) stand in a column
// of their own, under NOTES, apart from the problems; a failing one's
// notes follow its problems after the table.
func TestConformTableRows(t *testing.T) {
	var b strings.Builder
	cfg := conform.Config{Only: []string{"text", "tool-error", "backend-tool"}}
	tab := newConformTable(&b, palette{}, cfg)
	tab.header()
	tab.row(conform.Result{Name: "text", Status: conform.Pass})
	tab.row(conform.Result{Name: "provider-disconnect", Status: conform.Pass, Notes: []string{"the agent asked the model once"}})
	tab.row(conform.Result{Name: "tool-error", Status: conform.Fail, Notes: []string{"explored under 4 plans"},
		Problems: []harness.Problem{{Kind: harness.ProblemCheck, Text: "request 2 to the model: no tool result holds \"offline\"\nmore"}}})
	tab.row(conform.Result{Name: "backend-tool", Status: conform.Skip, Reason: "no tools"})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("want a header and 4 rows, got:\n%s", b.String())
	}
	notes := strings.Index(lines[0], "NOTES")
	if !strings.HasPrefix(lines[0], "SCENARIO") || strings.Index(lines[0], "PROBLEM") >= notes {
		t.Fatalf("header %q", lines[0])
	}
	for _, tc := range []struct{ line, want string }{
		{lines[1], "text"},
		{lines[2], "provider-disconnect  pass"},
		{lines[3], `tool-error           FAIL    request 2 to the model: no tool result holds "offline"`},
		{lines[4], "backend-tool         skip"},
	} {
		if !strings.HasPrefix(tc.line, tc.want) {
			t.Errorf("row %q, want it to start %q", tc.line, tc.want)
		}
	}
	if got := lines[2][notes:]; got != "the agent asked the model once" {
		t.Errorf("the note is under NOTES as %q, want it there alone:\n%s", got, b.String())
	}
	if got := strings.TrimSpace(lines[2][:notes]); got != "provider-disconnect  pass" {
		t.Errorf("the passing row has %q before its notes", got)
	}
	if got := lines[4][notes:]; got != "skipped: no tools" {
		t.Errorf("the skipped row has %q under NOTES", got)
	}
	if strings.Contains(lines[3], "explored") {
		t.Errorf("a failing row shows its notes: %q", lines[3])
	}
	b.Reset()
	tab.end(&conform.Report{Results: []conform.Result{{Name: "tool-error", Status: conform.Fail, Notes: []string{"explored under 4 plans"},
		Problems: []harness.Problem{{Kind: harness.ProblemCheck, Text: "request 2"}}}}})
	if !strings.Contains(b.String(), "FAIL tool-error\n    request 2\n    note: explored under 4 plans\n") {
		t.Errorf("the failure in full:\n%s", b.String())
	}
}
