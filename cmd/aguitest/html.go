package main

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
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

// writeHTML writes the timeline page of src.
func writeHTML(w io.Writer, src *source) error {
	page := htmlPage{Title: "aguitest show " + src.name, Problems: src.problems}
	nev, nvio := 0, 0
	for _, r := range src.runs {
		nev += len(r.raw)
		nvio += len(r.violations)
	}
	page.Summary = fmt.Sprintf("%s, %s in %s, %s", src.format, plural(nev, "event"), plural(len(src.runs), "run"), plural(nvio, "violation"))
	page.Bad = nvio > 0 || len(src.problems) > 0
	for i, r := range src.runs {
		page.Runs = append(page.Runs, htmlRunOf(src, r, i))
	}
	return pageTmpl.Execute(w, page)
}

func htmlRunOf(src *source, r *runView, n int) htmlRun {
	out := htmlRun{Anchor: "run-" + strconv.Itoa(n+1), Head: "run " + orNone(r.id)}
	if r.thread != "" {
		out.Head += " (thread " + r.thread + ")"
	}
	if r.outcome != "" {
		out.Head += ", " + r.outcome
	}
	for _, l := range r.lines(src.name) {
		out.Lines = append(out.Lines, htmlLine{Text: l.text, Bad: l.bad})
	}

	// The axis: recorded offsets when the run has them, else event numbers.
	last := max(len(r.events)-1, 0)
	val := func(pos int) float64 {
		if len(r.events) == 0 {
			return 0
		}
		if pos >= len(r.events) {
			return float64(r.end)
		}
		return float64(r.events[pos].index)
	}
	label := func(v float64) string { return "#" + strconv.Itoa(int(v+0.5)) }
	if r.timed && len(r.events) > 0 {
		val = func(pos int) float64 { return float64(r.events[min(pos, last)].at.Microseconds()) }
		label = func(v float64) string { return fmtOffset(time.Duration(v) * time.Microsecond) }
	}
	lo, hi := val(0), val(len(r.events))
	if hi <= lo {
		hi = lo + 1
	}
	x := func(pos int) float64 {
		return round1(float64(labelW) + (val(pos)-lo)/(hi-lo)*float64(plotW))
	}

	lanes := r.lanes()
	out.Width = labelW + plotW + padR
	out.Height = axisH + rowH*(len(lanes)+1) + 8
	step := (hi - lo) / 5
	if !r.timed {
		step = float64(max(1, int((hi-lo+7)/8)))
	}
	for v := lo; v <= hi+step/1000; v += step {
		out.Axis = append(out.Axis, axisTick{
			X: round1(float64(labelW) + (v-lo)/(hi-lo)*float64(plotW)), Y1: axisH - 6, Y2: out.Height, Label: label(v),
		})
	}

	// Row 0 holds the run's own events: lifecycle, state, steps, custom.
	rowOf := map[string]int{}
	inLane := map[int]bool{}
	runLane := htmlLane{Class: "lane lane-run", ID: r.id, Label: clip("run "+orNone(r.id), 36), Top: axisH, H: rowH, TextY: axisH + 17}
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
		if t, ok := r.client.content(l.id); ok && l.kind != "call" {
			text = t
		}
		title := fmt.Sprintf("%s %s %s: %s", l.kind, l.id, l.name, clip(text, 400))
		for _, sp := range l.spans {
			end := sp[1]
			if end < 0 {
				end = len(r.events)
			} else {
				inLane[sp[1]] = true
			}
			inLane[sp[0]] = true
			x0, x1 := x(sp[0]), x(end)
			hl.Spans = append(hl.Spans, htmlSpan{X: x0, Y: float64(top + 6), W: max(round1(x1-x0), 3), H: rowH - 12, Title: title})
		}
		for _, t := range l.ticks {
			inLane[t] = true
			hl.Ticks = append(hl.Ticks, htmlMark{X: x(t), Y: float64(top + 3), Y2: float64(top + rowH - 3), Title: fmt.Sprintf("#%d %q", r.events[t].index+1, r.events[t].e.Delta())})
		}
		if l.result >= 0 {
			inLane[l.result] = true
			hl.Dots = append(hl.Dots, htmlMark{X: x(l.result), Y: float64(top + rowH/2), Class: "result", Title: fmt.Sprintf("#%d result: %s", r.events[l.result].index+1, clip(l.content, 400))})
		}
		out.Lanes = append(out.Lanes, hl)
	}
	for i, ev := range r.events {
		if inLane[i] {
			continue
		}
		switch ev.e.Type() {
		case agui.TextMessageContent, agui.ToolCallArgs, agui.ReasoningMessageContent:
			continue // a fragment of nothing open: its violation shows it
		}
		runLane.Dots = append(runLane.Dots, htmlMark{X: x(i), Y: float64(axisH + rowH/2), Class: "run-event", Title: fmt.Sprintf("#%d %s", ev.index+1, clip(string(ev.e.Raw()), 300))})
	}
	out.Lanes = append([]htmlLane{runLane}, out.Lanes...)
	for i := range out.Lanes {
		out.Lanes[i].W = out.Width
	}

	posOf := map[int]int{}
	for i, ev := range r.events {
		posOf[ev.index] = i
	}
	for _, v := range r.violations {
		pos, ok := posOf[v.Index]
		if !ok {
			pos = len(r.events)
		}
		row := 0
		for _, key := range []string{"call\x00" + v.ToolCallID, "message\x00" + v.MessageID, "reasoning\x00" + v.MessageID} {
			if rr, ok := rowOf[key]; ok && key[len(key)-1] != 0 {
				row = rr
				break
			}
		}
		cx, cy := x(pos), float64(axisH+row*rowH+rowH/2)
		out.Violations = append(out.Violations, htmlViolation{
			X: cx, Y: cy, TX: cx + 9, TY: cy + 4, Label: string(v.Rule),
			Title: v.Error(),
		})
	}
	return out
}

func round1(f float64) float64 { return float64(int(f*10+0.5)) / 10 }
