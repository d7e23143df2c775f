package main

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/conform"
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
	for _, want := range []string{"aguitest conform: mixedup", "parallel-tools: fail", "⚠ args-not-json", "run run-1"} {
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
	for name, min := range map[string]int{"violation": 200, "parallel call": 2000} {
		if counts[name] < min {
			t.Errorf("screenshot: %d pixels of the %s colour, want at least %d", counts[name], name, min)
		}
	}
	if t.Failed() {
		t.Logf("screenshot kept at %s", shot)
	}
}
