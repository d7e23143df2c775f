package main

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/aguitest/aguitest/agui"
)

// The page is one self-contained file: inline CSS and SVG, no scripts, no
// external resources, so it opens from disk or an attachment anywhere.
//
//go:embed show.html.tmpl
var pageText string

var pageTmpl = template.Must(template.New("page").Parse(pageText))

// Geometry of a run's timeline, in pixels.
const (
	labelW = 280 // the lane labels
	plotW  = 960 // the time axis
	padR   = 140 // room for violation labels at the right end
	axisH  = 28
	rowH   = 26
)

type htmlPage struct {
	Title, Summary string
	Bad            bool
	Problems       []string
	Runs           []htmlRun
	// LeftOut says what the page does not show, when it is bounded.
	LeftOut string
}

type htmlRun struct {
	Anchor, Head  string
	Width, Height int
	Axis          []axisTick
	Lanes         []htmlLane
	Violations    []htmlViolation
	Lines         []htmlLine
}

type axisTick struct {
	X      float64
	Y1, Y2 int
	Label  string
}

type htmlLane struct {
	Class, ID, Label string
	Parallel         bool
	Top, H, TextY, W int
	Spans            []htmlSpan
	Ticks            []htmlMark
	Dots             []htmlMark
}

type htmlSpan struct {
	X, Y, W, H float64
	Title      string
}

type htmlMark struct {
	X, Y, Y2 float64
	Class    string
	Title    string
}

type htmlViolation struct {
	X, Y, TX, TY float64
	Label, Title string
}

type htmlLine struct {
	Text string
	Bad  bool
}

// The page is bounded, whatever the input's size: it draws at most
// maxHTMLRuns runs, maxHTMLLanes lanes a run, maxHTMLMarks fragments,
// results, events and violations in all, and maxHTMLLines transcript
// lines, and says what it leaves out.
const (
	maxHTMLRuns  = 50
	maxHTMLLanes = 300
	maxHTMLMarks = 20000
	maxHTMLLines = 5000
)

// htmlBudget builds the page as show reads its input.
type htmlBudget struct {
	out  string
	page htmlPage
	name string
	bad  bool
	// what is left out
	runsOut, lanesOut, marksOut, linesOut int
	marks, lines                          int
	runsIn                                int
	// the inputs shown: how many, the first's name, their format, and
	// their totals
	inputs              int
	first, format       string
	events, runs, viols int
}

func newHTMLBudget(out string) *htmlBudget { return &htmlBudget{out: out} }

// htmlRunBuilder collects what a run draws, within the budget. Positions
// are the run's axis values until the run ends.
type htmlRunBuilder struct {
	page    *htmlBudget
	runDots []htmlMark
	viols   []pendingViolation
	ticks   map[*lane][]htmlMark
	results map[*lane]htmlMark
	lines   []htmlLine
}

type pendingViolation struct {
	row          string // the lane key, or "" for the run's row
	pos          float64
	label, title string
}

// run returns the builder of the next run, or nil when the page has room
// for no more runs.
func (p *htmlBudget) run() *htmlRunBuilder {
	if p.runsIn >= maxHTMLRuns {
		p.runsOut++
		return nil
	}
	p.runsIn++
	return &htmlRunBuilder{page: p, ticks: map[*lane][]htmlMark{}, results: map[*lane]htmlMark{}}
}

// spend takes one mark from the budget.
func (p *htmlBudget) spend() bool {
	if p.marks >= maxHTMLMarks {
		p.marksOut++
		return false
	}
	p.marks++
	return true
}

func (h *htmlRunBuilder) tick(l *lane, pos float64, title string) {
	if h.page.spend() {
		h.ticks[l] = append(h.ticks[l], htmlMark{X: pos, Title: title})
	}
}

func (h *htmlRunBuilder) result(l *lane, pos float64, title string) {
	if h.page.spend() {
		h.results[l] = htmlMark{X: pos, Class: "result", Title: title}
	}
}

func (h *htmlRunBuilder) runDot(pos float64, title string) {
	if h.page.spend() {
		h.runDots = append(h.runDots, htmlMark{X: pos, Class: "run-event", Title: title})
	}
}

func (h *htmlRunBuilder) violation(row string, pos float64, label, title string) {
	if h.page.spend() {
		h.viols = append(h.viols, pendingViolation{row, pos, label, title})
	}
}

// begin starts an input: the page is of the first, or of several.
func (p *htmlBudget) begin(name, format string) {
	p.name = name
	p.inputs++
	if p.inputs == 1 {
		p.first, p.format = name, format
		p.page.Title = "aguitest show " + name
	} else {
		p.page.Title = fmt.Sprintf("aguitest show %s and %s", p.first, plural(p.inputs-1, "more file"))
		if format != p.format {
			p.format = "several formats"
		}
	}
}

func (p *htmlBudget) problem(s string) {
	p.bad = true
	if len(p.page.Problems) < 100 {
		p.page.Problems = append(p.page.Problems, s)
	}
}

// keepLines keeps a run's transcript lines for the page.
func (p *htmlBudget) keepLines(b *runBuilder, lines []printed) {
	if b.html == nil {
		return
	}
	for _, l := range lines {
		if p.lines >= maxHTMLLines {
			p.linesOut++
			continue
		}
		p.lines++
		b.html.lines = append(b.html.lines, htmlLine{Text: l.prefix + l.text, Bad: l.bad})
	}
}

// done draws a run that has ended.
func (p *htmlBudget) done(b *runBuilder) {
	h := b.html
	n := len(p.page.Runs)
	out := htmlRun{Anchor: "run-" + strconv.Itoa(n+1), Head: b.head(true), Lines: h.lines}
	if b.violations > 0 {
		p.bad = true
	}
	lo, hi := b.first, b.endPos
	if hi <= lo {
		hi = lo + 1
	}
	x := func(v float64) float64 { return round1(float64(labelW) + (v-lo)/(hi-lo)*float64(plotW)) }
	label := func(v float64) string { return "#" + strconv.Itoa(int(v+0.5)) }
	if b.timed {
		label = func(v float64) string { return fmtOffset(time.Duration(v) * time.Microsecond) }
	}
	lanes := b.lanes
	if len(lanes) > maxHTMLLanes {
		p.lanesOut += len(lanes) - maxHTMLLanes
		lanes = lanes[:maxHTMLLanes]
	}
	out.Width = labelW + plotW + padR
	out.Height = axisH + rowH*(len(lanes)+1) + 8
	step := (hi - lo) / 5
	if !b.timed {
		step = float64(max(1, int((hi-lo+7)/8)))
	}
	for v := lo; v <= hi+step/1000; v += step {
		out.Axis = append(out.Axis, axisTick{X: x(v), Y1: axisH - 6, Y2: out.Height, Label: label(v)})
	}
	held := heldRun{view: b.view}
	rowOf := map[string]int{}
	runLane := htmlLane{Class: "lane lane-run", ID: b.id, Label: clip("run "+orNone(b.id), 36), Top: axisH, H: rowH, TextY: axisH + 17}
	for _, d := range h.runDots {
		d.X, d.Y = x(d.X), float64(axisH+rowH/2)
		runLane.Dots = append(runLane.Dots, d)
	}
	out.Lanes = append(out.Lanes, runLane)
	for i, l := range lanes {
		row := i + 1
		top := axisH + row*rowH
		key := l.kind + "\x00" + l.id
		if _, ok := rowOf[key]; !ok {
			rowOf[key] = row
		}
		hl := htmlLane{Class: "lane lane-" + l.kind, ID: l.id, Top: top, H: rowH, TextY: top + 17, Parallel: len(l.parallel) > 1}
		name := l.name
		if l.kind == "reasoning" {
			name = "reasoning"
		}
		hl.Label = clip(l.id+" · "+name, 36)
		if hl.Parallel {
			hl.Class += " parallel"
			hl.Label = clip("∥ "+l.id+" · "+name, 36)
		}
		if l.end < 0 {
			hl.Class += " open"
		}
		text := l.text.String()
		if t, ok := held.content(l.id); ok && l.kind != "call" {
			text = t
		}
		title := fmt.Sprintf("%s %s %s: %s", l.kind, l.id, l.name, clip(text, 400))
		for _, sp := range l.spans {
			x1 := x(hi)
			if sp.end >= 0 {
				x1 = x(b.pos(sp.endRef))
				if !b.timed {
					x1 = x(float64(sp.endRef.index))
				}
			}
			x0 := x(b.pos(sp.startRef))
			hl.Spans = append(hl.Spans, htmlSpan{X: x0, Y: float64(top + 6), W: max(round1(x1-x0), 3), H: rowH - 12, Title: title})
		}
		for _, t := range h.ticks[l] {
			t.X, t.Y, t.Y2 = x(t.X), float64(top+3), float64(top+rowH-3)
			hl.Ticks = append(hl.Ticks, t)
		}
		if r, ok := h.results[l]; ok {
			r.X, r.Y = x(r.X), float64(top+rowH/2)
			hl.Dots = append(hl.Dots, r)
		}
		out.Lanes = append(out.Lanes, hl)
	}
	for i := range out.Lanes {
		out.Lanes[i].W = out.Width
	}
	for _, v := range h.viols {
		row := rowOf[v.row]
		cx, cy := x(v.pos), float64(axisH+row*rowH+rowH/2)
		out.Violations = append(out.Violations, htmlViolation{X: cx, Y: cy, TX: cx + 9, TY: cy + 4, Label: v.label, Title: v.title})
	}
	p.page.Runs = append(p.page.Runs, out)
	b.html = nil
}

// end ends an input; the summary counts them all.
func (p *htmlBudget) end(events, runs, violations int) {
	p.events, p.runs, p.viols = p.events+events, p.runs+runs, p.viols+violations
	p.page.Summary = fmt.Sprintf("%s, %s in %s, %s", p.format, plural(p.events, "event"), plural(p.runs, "run"), plural(p.viols, "violation"))
	if p.inputs > 1 {
		p.page.Summary = plural(p.inputs, "file") + ": " + p.page.Summary
	}
	p.page.Bad = p.bad
	if s := p.leftOut(); s != "" {
		p.page.LeftOut = "This page is bounded" + s + ". aguitest show prints the whole transcript."
	}
}

// leftOut says what the page leaves out, or "".
func (p *htmlBudget) leftOut() string {
	var parts []string
	if p.runsOut > 0 {
		parts = append(parts, fmt.Sprintf("%s after the first %d", plural(p.runsOut, "run"), maxHTMLRuns))
	}
	if p.lanesOut > 0 {
		parts = append(parts, fmt.Sprintf("%s beyond %d a run", plural(p.lanesOut, "lane"), maxHTMLLanes))
	}
	if p.marksOut > 0 {
		parts = append(parts, fmt.Sprintf("%s (fragments, results, events, violations) after the first %d", plural(p.marksOut, "mark"), maxHTMLMarks))
	}
	if p.linesOut > 0 {
		parts = append(parts, fmt.Sprintf("%s after the first %d", plural(p.linesOut, "transcript line"), maxHTMLLines))
	}
	if len(parts) == 0 {
		return ""
	}
	return ": it leaves out " + strings.Join(parts, ", ")
}

// pageOnly is a runSink drawing the page and printing nothing (show
// --messages --html).
type pageOnly struct{ *htmlBudget }

func (p pageOnly) flush(b *runBuilder, final bool) { p.keepLines(b, b.render(p.name)) }

// htmlRunsOf draws the runs of a stream or recording as show --html does,
// within the same bounds.
func htmlRunsOf(path string, p agui.Profile) ([]htmlRun, error) {
	budget := newHTMLBudget("")
	if err := showInput(path, nil, agui.Options{Profile: p}, pageOnly{budget}, budget); err != nil {
		return nil, err
	}
	return budget.page.Runs, nil
}

// write writes the page.
func (p *htmlBudget) write(w io.Writer) error { return pageTmpl.Execute(w, p.page) }

func round1(f float64) float64 { return float64(int(f*10+0.5)) / 10 }
