package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

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
func (s *shower) stream(in io.Reader, head string) error {
	// Blocks of the input are parsed on every core; events come in
	// stream order, as one Reader gives them.
	r := agui.NewParallelReader(in, s.name, 0)
	defer r.Close()
	// v also finds where the client stops: at the first violation its
	// Reference verifier would raise (Violation.Stops), which a Strict
	// verifier reports too.
	v := agui.NewVerifier(agui.Options{Profile: s.profile.Profile, Client: s.profile.Client})
	clientStopped := false
	var x agui.Expander
	var cur *runBuilder
	begun := false
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if !begun && r.Format() != "" {
			begun = true
			s.sink.begin(s.name, r.Format())
		}
		var fe *agui.FrameError
		if errors.As(err, &fe) {
			s.sink.problem(fe.Error())
			continue
		}
		if err != nil {
			return err
		}
		evRef := evRef{index: s.events, line: r.Line()}
		s.events++
		vs := v.Push(e)
		out, xerr := x.Push(e)
		if xerr != nil {
			out = []agui.Event{e} // the verifier reports it (rule "chunk")
		}
		for _, ex := range out {
			if cur == nil || ex.Type() == agui.RunStarted && cur.seq > 0 {
				if cur != nil {
					s.finish(cur)
				}
				cur = s.newRun(false, nil)
				cur.stopped = clientStopped
			}
			cur.event(ex, evRef)
		}
		if cur == nil {
			cur = s.newRun(false, nil)
		}
		cur.raw++
		if !clientStopped {
			if stops(vs, s.profile.Client) {
				clientStopped = true
				cur.stopped = true
			} else {
				cur.client(e, out)
			}
		}
		for _, vi := range vs {
			cur.violation(vi, s.name, evRef, false)
		}
		s.pending(cur)
	}
	if !begun {
		if r.Format() == "" {
			return fmt.Errorf("%s: no events: %s", s.name, head)
		}
		s.sink.begin(s.name, r.Format())
	}
	if cur == nil {
		cur = s.newRun(false, nil)
	}
	for _, vi := range v.Finish() {
		cur.violation(vi, s.name, cur.last, true)
	}
	s.finish(cur)
	s.sink.end(s.events, s.runs, s.viols)
	return nil
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
