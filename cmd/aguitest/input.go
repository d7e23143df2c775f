package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/replay"
)

// A source is a stream or a recording read whole, split into runs, chunk
// events expanded and verified: what show, the HTML timeline and diff read.
type source struct {
	name   string
	format string // "recording" or one of the agui formats
	runs   []*runView
	// problems are lines of a recording that could not be read, and
	// frames of a stream the client cannot read.
	problems []string
	// head describes the start of a stream's bytes, to say what was
	// received when it holds no events.
	head string
	// client is the @ag-ui/client version whose view and verifier show
	// --messages follows ("" for 1.0.0).
	client agui.Client
	// sink, when set, is handed each event as it is read, and no run keeps
	// its events (streamEvents).
	sink func(agui.Event)
	// sunk counts the events handed to sink.
	sunk int
}

// A runView is one run: its events as they came (for diff) and expanded
// (for the transcript), with what the verifier found.
type runView struct {
	id, thread string
	line       int
	// timed says the events carry offsets (a recording).
	timed bool
	// outcome is the recorded outcome; "" for a stream.
	outcome string
	raw     []agui.Event
	events  []evt
	// violations are indexed like evt.index.
	violations []agui.Violation
	// end is the index Finish reports at, one past the last event.
	end int
	// input is the recorded request of the run; nil when there is none.
	input *agui.RunAgentInput
	// client is what the client holds at the run's end (assemble).
	client *heldRun
}

// An evt is an event at its place: the index the verifier counts, the line
// in the file and the offset from the run's start.
type evt struct {
	index int
	line  int
	at    time.Duration
	e     agui.Event
}

// events returns the events of every run, as they came.
func (s *source) events() []agui.Event {
	if len(s.runs) == 1 {
		return s.runs[0].raw // a stream, not a copy of it
	}
	var n int
	for _, r := range s.runs {
		n += len(r.raw)
	}
	out := make([]agui.Event, 0, n)
	for _, r := range s.runs {
		out = append(out, r.raw...)
	}
	return out
}

// readSource reads a stream or a recording; "-" reads stdin. Errors name
// the file and line.
func readSource(name string, stdin io.Reader, p agui.Options) (*source, error) {
	return readInput(&source{name: name}, stdin, p, true)
}

// readEvents reads a stream or a recording as readSource does, keeping of
// each run only its events as they came (runView.raw): no verifier, no
// chunk expansion.
func readEvents(name string, stdin io.Reader) (*source, error) {
	return readInput(&source{name: name}, stdin, agui.Options{}, false)
}

// streamEvents reads a stream or a recording as readEvents does, and hands
// each event to f as it is read rather than keeping it: the source's runs
// hold no events, and its sunk field counts them.
func streamEvents(name string, stdin io.Reader, f func(agui.Event)) (*source, error) {
	return readInput(&source{name: name, sink: f}, stdin, agui.Options{}, false)
}

func readInput(src *source, stdin io.Reader, p agui.Options, views bool) (*source, error) {
	var in io.Reader
	name := src.name
	if name == "-" {
		src.name = "<stdin>"
		in = stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	br := bufio.NewReaderSize(in, 64<<10)
	head, _ := br.Peek(4096)
	if recorder.IsRecording(head) {
		return readRecording(src, br, p, views)
	}
	src.head = received(head)
	r := agui.NewReader(br, src.name)
	// One verifier for the whole stream, as verify does; the runs are
	// split after.
	b := newBuilder(src, p, views)
	n := 0
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var fe *agui.FrameError
			if errors.As(err, &fe) {
				// A frame the client cannot read: said, and read on.
				src.problems = append(src.problems, fe.Error())
				continue
			}
			return nil, err
		}
		b.add(evt{index: n, line: r.Line(), e: e})
		n++
	}
	src.format = r.Format()
	if src.format == "" {
		return nil, fmt.Errorf("%s: no events: %s", src.name, src.head)
	}
	src.runs = splitRuns(b.finish())
	return src, nil
}

func readRecording(src *source, in io.Reader, p agui.Options, views bool) (*source, error) {
	src.format = "recording"
	rd := recorder.NewReader(in, src.name)
	for run, err := range replay.Runs(rd) {
		if err != nil {
			if rd.Err() != nil {
				return nil, err
			}
			src.problems = append(src.problems, err.Error())
			continue
		}
		b := newBuilder(src, p, views)
		n := 0
		for _, re := range run.Events {
			if len(re.Event.Raw()) == 0 { // data or a protobuf frame that is no event
				src.problems = append(src.problems, fmt.Sprintf("%s:%d: run %s: recorded data is not an AG-UI event", src.name, re.Line, run.ID))
				continue
			}
			b.add(evt{index: n, line: re.Line, at: re.Offset, e: re.Event})
			n++
		}
		rv := b.finish()
		if run.Request != nil && len(run.Request.Input) > 0 {
			var in agui.RunAgentInput
			if json.Unmarshal(run.Request.Input, &in) == nil {
				rv.input = &in
			}
		}
		rv.id = run.ID
		rv.line = run.Line
		rv.timed = true
		rv.outcome = run.Outcome()
		src.runs = append(src.runs, rv)
	}
	if len(src.runs) == 0 && len(src.problems) == 0 {
		return nil, fmt.Errorf("%s: the recording holds no runs", src.name)
	}
	return src, nil
}

// builder verifies events as they come and expands their chunks into one
// runView; without views, it keeps the events only.
type builder struct {
	rv  *runView
	v   *agui.Verifier // nil: events only
	x   agui.Expander
	src *source
	n   int // events added
}

func newBuilder(src *source, p agui.Options, views bool) *builder {
	b := &builder{rv: &runView{}, src: src}
	if views {
		b.v = agui.NewVerifier(agui.Options{Profile: p.Profile, Client: p.Client})
	}
	return b
}

func (b *builder) add(ev evt) {
	rv := b.rv
	if b.n == 0 {
		rv.line = ev.line
	}
	b.n++
	if b.src.sink != nil {
		b.src.sink(ev.e)
		b.src.sunk++
		return
	}
	rv.raw = append(rv.raw, ev.e)
	if b.v == nil {
		return
	}
	rv.violations = append(rv.violations, b.v.Push(ev.e)...)
	out, err := b.x.Push(ev.e)
	if err != nil {
		// The verifier reports it (rule "chunk"); show the event as it is.
		rv.events = append(rv.events, ev)
		return
	}
	for _, e := range out {
		c := ev
		c.e = e
		rv.events = append(rv.events, c)
	}
}

func (b *builder) finish() *runView {
	rv := b.rv
	rv.end = len(rv.raw)
	if b.v == nil {
		return rv
	}
	rv.violations = append(rv.violations, b.v.Finish()...)
	for _, ev := range rv.events {
		if ev.e.Type() == agui.RunStarted {
			rv.id, rv.thread = ev.e.RunID(), ev.e.ThreadID()
			break
		}
	}
	return rv
}

// splitRuns cuts a stream's view before each RUN_STARTED that follows
// other events.
func splitRuns(all *runView) []*runView {
	// Each run's events are a part of the stream's, not a copy.
	var runs []*runView
	cur := &runView{line: all.line}
	from := 0
	for i, ev := range all.events {
		if ev.e.Type() == agui.RunStarted && i > from {
			cur.events = all.events[from:i:i]
			runs = append(runs, cur)
			cur = &runView{}
			from = i
		}
		if ev.e.Type() == agui.RunStarted && cur.id == "" {
			cur.id, cur.thread = ev.e.RunID(), ev.e.ThreadID()
		}
		if i == from {
			cur.line = ev.line
		}
	}
	cur.events = all.events[from:len(all.events):len(all.events)]
	runs = append(runs, cur)
	// Raw events and violations go to the run holding their index.
	for i, r := range runs {
		lo, hi := -1, all.end
		if len(r.events) > 0 {
			lo = r.events[0].index
		}
		if i+1 < len(runs) && len(runs[i+1].events) > 0 {
			hi = runs[i+1].events[0].index
		}
		if lo < 0 {
			lo = 0
		}
		r.raw = all.raw[lo:hi]
		r.end = hi
		for _, v := range all.violations {
			in := v.Index >= lo && v.Index < hi
			if i == len(runs)-1 && v.Index >= hi {
				in = true
			}
			if in {
				r.violations = append(r.violations, v)
			}
		}
	}
	return runs
}

// compactJSON returns b compacted, or b as it is when it is not JSON.
func compactJSON(b []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return string(b)
	}
	return buf.String()
}

// received describes the start of an input: its size, or its first bytes.
func received(head []byte) string {
	if len(strings.TrimSpace(string(head))) == 0 {
		if len(head) == 0 {
			return "the input is empty"
		}
		return "the input is only white space"
	}
	const max = 60
	if len(head) > max {
		return fmt.Sprintf("received %q...", head[:max])
	}
	return fmt.Sprintf("received %q", head)
}
