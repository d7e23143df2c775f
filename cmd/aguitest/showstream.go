package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/recorder"
)

// A runSink receives what show reads, as it reads it.
type runSink interface {
	// begin names the input and its format.
	begin(name, format string)
	// problem reports a line that cannot be read, or a frame the client
	// cannot read.
	problem(s string)
	// flush takes the run's lines waiting to be printed; final says the
	// run has ended.
	flush(b *runBuilder, final bool)
	// end closes the input: events, runs and violations in all.
	end(events, runs, violations int)
}

// showInput streams a stream or a recording ("-" is stdin) to sink, each
// run summarised as it comes (see runBuilder). Errors name the file and
// line.
func showInput(name string, stdin io.Reader, p agui.Options, sink runSink, budget *htmlBudget) error {
	var in io.Reader
	display := name
	if name == "-" {
		display = "<stdin>"
		in = stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	br := bufio.NewReaderSize(in, 64<<10)
	head, _ := br.Peek(4096)
	s := &shower{name: display, profile: p, sink: sink, budget: budget}
	if recorder.IsRecording(head) {
		return s.recording(br)
	}
	return s.stream(br, received(head))
}

// shower drives the run builders.
type shower struct {
	name     string
	profile  agui.Options // profile and client
	sink     runSink
	budget   *htmlBudget
	events   int
	runs     int
	viols    int
	problems int
}

func (s *shower) newRun(timed bool, in *agui.RunAgentInput) *runBuilder {
	b := newRunBuilder(timed, in)
	s.runs++
	if s.budget != nil {
		b.html = s.budget.run()
	}
	return b
}

// pending flushes a run whose lines pile up.
func (s *shower) pending(b *runBuilder) {
	if len(b.lines) > maxPending {
		b.feed.sync() // the lines show what the view holds
		s.sink.flush(b, false)
		b.continued = true
	}
}

func (s *shower) finish(b *runBuilder) {
	s.viols += b.violations
	b.feed.close()
	s.sink.flush(b, true)
	if s.budget != nil && b.html != nil {
		s.budget.done(b)
	}
}

// stream shows a stream: one verifier and one client for the whole
// response, the runs cut before each RUN_STARTED that follows other
// events. Each run's lanes show what the client holds after that run.
// The stream is read and verified on a goroutine of its own (readStream),
// while this one builds the runs and prints them, and each run's view is
// built on another (viewFeed).
func (s *shower) stream(in io.Reader, head string) error {
	items := make(chan *itemBatch, 4)
	free := make(chan *itemBatch, 6)
	go readStream(in, s.name, s.profile, items, free)
	clientStopped := false
	var cur *runBuilder
	for batch := range items {
		for i := range batch.items {
			it := &batch.items[i]
			switch it.kind {
			case itemBegin:
				s.sink.begin(s.name, it.text)
			case itemProblem:
				s.sink.problem(it.text)
			case itemErr:
				if cur != nil {
					cur.feed.close()
				}
				return it.err
			case itemEnd:
				s.events = it.ref.index
				if it.text == "" {
					if cur != nil {
						cur.feed.close()
					}
					return fmt.Errorf("%s: no events: %s", s.name, head)
				}
				if it.begin {
					s.sink.begin(s.name, it.text)
				}
				if cur == nil {
					cur = s.newRun(false, nil)
				}
				for _, vi := range it.vs {
					cur.violation(vi, s.name, cur.last, true)
				}
				s.finish(cur)
				s.sink.end(s.events, s.runs, s.viols)
				return nil
			case itemEvent:
				out := batch.events[it.out0:it.out1]
				for _, ex := range out {
					if cur == nil || ex.Type() == agui.RunStarted && cur.seq > 0 {
						if cur != nil {
							s.finish(cur)
						}
						cur = s.newRun(false, nil)
						cur.stopped = clientStopped
					}
					cur.event(ex, it.ref)
				}
				if cur == nil {
					cur = s.newRun(false, nil)
				}
				cur.raw++
				if !clientStopped {
					if it.stops {
						clientStopped = true
						cur.stopped = true
					} else {
						cur.client(it.e, out)
					}
				}
				for _, vi := range it.vs {
					cur.violation(vi, s.name, it.ref, false)
				}
				s.pending(cur)
			}
		}
		batch.reset()
		select {
		case free <- batch:
		default:
		}
	}
	return fmt.Errorf("%s: internal error: the reader stopped before the end", s.name)
}

// What the reading goroutine hands to show, in stream order.
const (
	itemEvent   = iota
	itemBegin   // the input's format is known (text)
	itemProblem // a frame the client cannot read (text)
	itemErr     // the input cannot be read on (err); the last item
	itemEnd     // the end (text: the format, "" when no events were read; vs: what Finish reports); the last item
)

// A streamItem is an event as read and verified, or what else the reader
// met.
type streamItem struct {
	kind       int
	e          agui.Event
	ref        evRef // for itemEnd, ref.index counts the events
	out0, out1 int   // the expanded events, in the batch's events
	vs         []agui.Violation
	stops      bool // the client stops at this event
	begin      bool // itemEnd: the format was not announced yet
	text       string
	err        error
}

// An itemBatch is items read in a row, with their expanded events.
type itemBatch struct {
	items  []streamItem
	events []agui.Event
}

func (b *itemBatch) reset() {
	clear(b.items)
	clear(b.events)
	b.items, b.events = b.items[:0], b.events[:0]
}

// batchItems is how many items go to show at a time.
const batchItems = 256

// readStream reads and verifies a stream for show, and sends what it
// reads on items: one verifier follows the whole response and also finds
// where the client stops (the first violation its Reference verifier
// would raise, Violation.Stops, which a Strict verifier reports too).
func readStream(in io.Reader, name string, p agui.Options, items chan<- *itemBatch, free chan *itemBatch) {
	defer close(items)
	// Blocks of the input are parsed on every core; events come in
	// stream order, as one Reader gives them.
	r := agui.NewParallelReader(in, name, 0)
	defer r.Close()
	v := agui.NewVerifier(agui.Options{Profile: p.Profile, Client: p.Client})
	var x agui.Expander
	var batch *itemBatch
	next := func() *streamItem {
		if batch == nil {
			select {
			case batch = <-free:
			default:
				batch = &itemBatch{items: make([]streamItem, 0, batchItems)}
			}
		}
		batch.items = append(batch.items, streamItem{})
		return &batch.items[len(batch.items)-1]
	}
	send := func() {
		if batch != nil && len(batch.items) > 0 {
			items <- batch
			batch = nil
		}
	}
	events := 0
	begun := false
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if !begun && r.Format() != "" {
			begun = true
			*next() = streamItem{kind: itemBegin, text: r.Format()}
		}
		var fe *agui.FrameError
		if errors.As(err, &fe) {
			*next() = streamItem{kind: itemProblem, text: fe.Error()}
			continue
		}
		if err != nil {
			*next() = streamItem{kind: itemErr, err: err}
			send()
			return
		}
		it := next()
		it.kind, it.e, it.ref = itemEvent, e, evRef{index: events, line: r.Line()}
		events++
		if vs := v.Push(e); len(vs) > 0 {
			it.vs = slices.Clone(vs)
			it.stops = stops(vs, p.Client)
		}
		out, xerr := x.Push(e)
		it.out0 = len(batch.events)
		if xerr != nil {
			batch.events = append(batch.events, e) // the verifier reports it (rule "chunk")
		} else {
			batch.events = append(batch.events, out...)
		}
		it.out1 = len(batch.events)
		if len(batch.items) == batchItems {
			send()
		}
	}
	end := streamItem{kind: itemEnd, ref: evRef{index: events}, text: r.Format(), begin: !begun}
	if end.text != "" {
		end.vs = slices.Clone(v.Finish())
	}
	*next() = end
	send()
}

// stops reports whether client c stops at one of vs.
func stops(vs []agui.Violation, c agui.Client) bool {
	for _, vi := range vs {
		if vi.Stops(c) {
			return true
		}
	}
	return false
}

// recordedShow is a run of a recording in progress.
type recordedShow struct {
	b        *runBuilder
	v        *agui.Verifier
	ref      *agui.Verifier
	x        agui.Expander
	lastType agui.EventType
}

// recording shows a recording run by run, each run verified on its own
// from its request; several runs may be in progress at once. A run whose
// recording is incomplete says so, and how it ended is not judged.
func (s *shower) recording(in io.Reader) error {
	rd := recorder.NewReader(in, s.name)
	s.sink.begin(s.name, "recording")
	open := map[string]*recordedShow{}
	var order []string
	start := func(run string, req *recorder.Request, line int) *recordedShow {
		var input *agui.RunAgentInput
		var in agui.RunAgentInput
		if req != nil && len(req.Input) > 0 && json.Unmarshal(req.Input, &in) == nil {
			input = &in
		}
		rs := &recordedShow{b: s.newRun(true, input), v: agui.NewVerifier(agui.Options{Profile: s.profile.Profile, Client: s.profile.Client}), ref: agui.NewVerifier(agui.Options{Profile: agui.Reference, Client: s.profile.Client})}
		if input != nil {
			rs.v.SetInput(*input)
		}
		rs.b.id, rs.b.line = run, line
		open[run] = rs
		order = append(order, run)
		return rs
	}
	get := func(rec recorder.Record) *recordedShow {
		if rs, ok := open[rec.Run]; ok {
			return rs
		}
		return start(rec.Run, nil, rec.Line)
	}
	end := func(run string, e *recorder.End) {
		rs, ok := open[run]
		if !ok {
			return
		}
		delete(open, run)
		for i, r := range order {
			if r == run {
				order = append(order[:i], order[i+1:]...)
				break
			}
		}
		b := rs.b
		switch {
		case e != nil:
			b.outcome = e.Outcome
			b.incomplete = e.Incomplete()
		case rs.lastType != agui.RunFinished && rs.lastType != agui.RunError:
			b.outcome = recorder.OutcomeTruncated
			b.incomplete = recorder.NoEndRecord
		default:
			b.outcome = recorder.OutcomeTruncated
		}
		if b.incomplete == "" && b.gapLine > 0 {
			b.incomplete = "response bytes are missing (a gap record)"
		}
		fin := rs.v.Finish()
		if b.incomplete == "" {
			for _, vi := range fin {
				b.violation(vi, s.name, b.last, true)
			}
		} else {
			text := "incomplete recording: " + b.incomplete
			if b.gapLine > 0 {
				text += fmt.Sprintf("; %s after the gap at line %d not verified", plural(b.unverified, "event"), b.gapLine)
			}
			b.lines = append(b.lines, tline{text: "! " + text + "; how the run ended is not judged", bad: true, end: true})
		}
		s.finish(b)
	}
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if rd.Err() != nil {
				for _, rs := range open {
					rs.b.feed.close()
				}
				return err
			}
			s.problems++
			s.sink.problem(err.Error())
			continue
		}
		switch rec.Kind {
		case recorder.KindRequest:
			if rs, ok := open[rec.Run]; ok && rs.b.raw > 0 {
				end(rec.Run, nil) // a reused id: the earlier run had no end record
			}
			if rs, ok := open[rec.Run]; ok && rs.b.raw == 0 {
				delete(open, rec.Run)
				for i, r := range order {
					if r == rec.Run {
						order = append(order[:i], order[i+1:]...)
						break
					}
				}
				s.runs--
			}
			start(rec.Run, rec.Request, rec.Line)
		case recorder.KindGap:
			if rs := get(rec); rs.b.gapLine == 0 {
				rs.b.gapLine = rec.Line
			}
		case recorder.KindEvent:
			rs := get(rec)
			e, err := rec.EventOf()
			if err != nil {
				s.problems++
				s.sink.problem(fmt.Sprintf("%s:%d: run %s: recorded data is not an AG-UI event", s.name, rec.Line, rec.Run))
				continue
			}
			b := rs.b
			ref := evRef{index: b.raw, line: rec.Line, at: rec.Offset}
			b.raw++
			s.events++
			rs.lastType = e.Type()
			out, xerr := rs.x.Push(e)
			if xerr != nil {
				out = []agui.Event{e}
			}
			for _, ex := range out {
				b.event(ex, ref)
			}
			if !b.stopped {
				if len(rs.ref.Push(e)) > 0 {
					b.stopped = true
				} else {
					b.client(e, out)
				}
			}
			if b.gapLine > 0 {
				b.unverified++
			} else {
				for _, vi := range rs.v.Push(e) {
					b.violation(vi, s.name, ref, false)
				}
			}
			s.pending(b)
		case recorder.KindEnd:
			get(rec)
			end(rec.Run, rec.End)
		}
	}
	for _, run := range append([]string(nil), order...) {
		end(run, nil)
	}
	if s.runs == 0 && s.problems == 0 {
		return fmt.Errorf("%s: the recording holds no runs", s.name)
	}
	s.sink.end(s.events, s.runs, s.viols)
	return nil
}
