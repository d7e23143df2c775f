package main

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// writePage runs "aguitest show --html" on in and returns the page's path.
func writePage(t *testing.T, dir, in string) string {
	t.Helper()
	out := filepath.Join(dir, "timeline.html")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"show", "--html", out, in}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("aguitest show --html: exit %d, stderr:\n%s", code, stderr.String())
	}
	return out
}

// TestHTMLPage checks the page's structure without a browser: one lane per
// message and call plus the run's own, labels, violation markers, and no
// external resources.
func TestHTMLPage(t *testing.T) {
	b, err := os.ReadFile(writePage(t, t.TempDir(), "testdata/show/faults.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, tc := range []struct {
		name, re string
		n        int
	}{
		{"lanes", `<g class="lane[ "]`, 6}, // run, reasoning, message, three calls
		{"parallel lanes", `<g class="lane lane-call parallel"`, 2},
		{"open lane", `<g class="lane lane-call open"`, 1},
		{"violation markers", `<g class="violation">`, 1},
		{"fragment ticks", `<line class="tick"`, 8},
		{"results", `<circle class="result"`, 2},
		{"external resources", `(src|href)="(https?:)?//`, 0},
		{"scripts", `<script`, 0},
	} {
		if got := len(regexp.MustCompile(tc.re).FindAllString(page, -1)); got != tc.n {
			t.Errorf("%s: got %d matches of %s, want %d", tc.name, got, tc.re, tc.n)
		}
	}
	for _, label := range []string{"∥ call-a · lookup", "∥ call-b · search", "call-c · lookup", "m1 · assistant", "r1 · reasoning", "⚠ result-before-end"} {
		if !strings.Contains(page, label) {
			t.Errorf("the page has no label %q", label)
		}
	}
}

// chromium finds a Chromium or Chrome to render pages with. Without one the
// browser test skips, except in CI (CI set), where .ci/run installs it.
func chromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the pages are rendered in a browser by the full run")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH; CI must have it (.ci/run installs Debian's chromium package)")
	}
	t.Skip("no chromium on PATH: install it (apt-get install chromium) to render the HTML timeline in a real browser")
	return ""
}

// browsePage runs headless Chromium on the page file with args
// (--dump-dom, --screenshot=FILE) and returns its standard output.
func browsePage(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	// Chromium may leave files behind in its profile after exiting, so
	// the profile is not under t.TempDir, whose cleanup would fail.
	profile, err := os.MkdirTemp("", "aguitest-chromium-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile, "--window-size=1400,900"}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// TestHTMLInBrowser renders the timeline in headless Chromium: the rendered
// DOM must hold the lanes and labels, and the screenshot must show the
// lanes' colours and the violation's red.
func TestHTMLInBrowser(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := writePage(t, dir, "testdata/show/faults.jsonl")

	browse := func(args ...string) []byte {
		t.Helper()
		return browsePage(t, bin, page, args...)
	}

	dom := string(browse("--dump-dom"))
	if n := strings.Count(dom, `<g class="lane `); n != 6 {
		t.Errorf("rendered DOM: got %d lanes, want 6", n)
	}
	for _, label := range []string{"∥ call-a · lookup", "∥ call-b · search", "m1 · assistant", "⚠ result-before-end", "run run-9"} {
		if !strings.Contains(dom, label) {
			t.Errorf("rendered DOM has no label %q", label)
		}
	}

	shot := filepath.Join(dir, "timeline.png")
	browse("--screenshot=" + shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 600 {
		t.Errorf("screenshot is %dx%d, want about 1400x900", b.Dx(), b.Dy())
	}
	// Count the pixels near the colours the page draws with.
	counts := map[string]int{}
	colours := map[string][3]int{
		"parallel call": {0xf3, 0xc2, 0x7a},
		"message":       {0xa8, 0xd5, 0xb5},
		"violation":     {0xc0, 0x26, 0x2d},
	}
	distinct := map[[3]int]bool{}
	eachPixel(img, func(r, g, b int) {
		if len(distinct) < 100 {
			distinct[[3]int{r, g, b}] = true
		}
		for name, c := range colours {
			if abs(r-c[0]) < 12 && abs(g-c[1]) < 12 && abs(b-c[2]) < 12 {
				counts[name]++
			}
		}
	})
	if len(distinct) < 10 {
		t.Errorf("screenshot has %d colours: the page did not render", len(distinct))
	}
	for name, min := range map[string]int{"parallel call": 2000, "message": 500, "violation": 50} {
		if counts[name] < min {
			t.Errorf("screenshot: %d pixels of the %s colour, want at least %d", counts[name], name, min)
		}
	}
	if t.Failed() {
		t.Logf("screenshot kept at %s", shot)
	}
}

func eachPixel(img image.Image, f func(r, g, b int)) {
	bb := img.Bounds()
	for y := bb.Min.Y; y < bb.Max.Y; y++ {
		for x := bb.Min.X; x < bb.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			f(int(r>>8), int(g>>8), int(b>>8))
		}
	}
}

// colourBands returns how many bands of consecutive rows of img hold a
// stretch of at least 4 pixels of colour c (each channel within 12).
func colourBands(img image.Image, c [3]int) int {
	bb := img.Bounds()
	bands, in := 0, false
	for y := bb.Min.Y; y < bb.Max.Y; y++ {
		n := 0
		for x := bb.Min.X; x < bb.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if abs(int(r>>8)-c[0]) < 12 && abs(int(g>>8)-c[1]) < 12 && abs(int(b>>8)-c[2]) < 12 {
				n++
			}
		}
		if n >= 4 && !in {
			bands++
		}
		in = n >= 4
	}
	return bands
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
