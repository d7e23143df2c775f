package replay

import (
	"io"
	"iter"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/recorder"
)

// Event is one recorded event of a run.
type Event struct {
	// Offset is the time from the run's request to the event.
	Offset time.Duration
	// Line is the event record's line in the recording.
	Line int
	// Event is the event; its zero value when Data is set.
	Event agui.Event
	// Data is the text of a recorded server-sent event that is not an
	// AG-UI event, served as it was.
	Data string
	// Frame is the recorded protobuf message of a frame (see
	// recorder.Record.Frame): served as it came when replaying in
	// protobuf. With no Event and no Data, the frame held no event.
	Frame []byte
}

// Exchange is one recorded provider exchange of a run.
type Exchange struct {
	// Offset is the time from the run's request to the exchange.
	Offset time.Duration
	// Line is the exchange record's line in the recording.
	Line int
	*recorder.Exchange
}

// Run is one recorded run.
type Run struct {
	// ID is the run's name in the recording.
	ID string
	// File is the recording's name.
	File string
	// Request is the request that started the run; nil when the recording
	// has none for it.
	Request *recorder.Request
	// Line is the line of the run's first record.
	Line      int
	Events    []Event
	Exchanges []Exchange
	// Gaps are the places where response bytes are missing from the
	// recording (storage had no room for them), in order.
	Gaps []Gap
	// End closes the run; nil when the recording stops before it (a
	// crash, storage failing, or a file still being written).
	End *recorder.End

	// at is where a run of Index is in its file; its events are read
	// from there as they are served.
	at *runPlace
}

// Gap is a place in a run where response bytes are missing.
type Gap struct {
	// Index is the number of the run's Events recorded before it.
	Index int
	// Line is the gap record's line in the recording.
	Line int
	// Bytes is how many bytes are missing.
	Bytes int64
}

// Incomplete says why the recording of the run does not hold the whole
// response the client got, or "" when it does: bytes dropped (storage fell
// behind), the per-run size limit, an encoding the recorder could not
// decode, or no end record while the last event recorded does not end the
// run (storage failed, the recorder was killed, the file is still being
// written). What such a run's events show of the agent is true as far as
// they go; how its stream ended is unknown.
func (r *Run) Incomplete() string {
	if r.End != nil {
		return r.End.Incomplete()
	}
	var last agui.EventType
	for i := len(r.Events) - 1; i >= 0 && last == ""; i-- {
		last = r.Events[i].Event.Type() // "" for data that is no event
	}
	if last == agui.RunFinished || last == agui.RunError {
		return ""
	}
	return recorder.NoEndRecord
}

// Outcome returns the outcome of the end record, or "truncated" when the
// run has none.
func (r *Run) Outcome() string {
	if r.End == nil {
		return recorder.OutcomeTruncated
	}
	return r.End.Outcome
}

// AGUIEvents returns the run's events that are AG-UI events.
func (r *Run) AGUIEvents() []agui.Event {
	out := make([]agui.Event, 0, len(r.Events))
	for _, e := range r.Events {
		if e.Data == "" && len(e.Event.Raw()) > 0 {
			out = append(out, e.Event)
		}
	}
	return out
}

// Runs reads a recording run by run. A run is yielded when its end record
// is read, so memory holds only the runs in progress, however long the
// file; runs still open at the end of the file are yielded then, in the
// order they started. A corrupt line, or a cut last line, is yielded as an
// error (a *recorder.Error naming the line) and reading goes on; an error
// that stops the Reader (not a recording, a newer format version) is
// yielded last.
func Runs(r *recorder.Reader) iter.Seq2[*Run, error] { return runs(r, nil) }

// runs is Runs; with file set, the runs hold no events, exchanges or gaps
// but where they are in the file (Index).
func runs(r *recorder.Reader, file *indexedFile) iter.Seq2[*Run, error] {
	return func(yield func(*Run, error) bool) {
		open := map[string]*Run{}
		var order []*Run
		// before and beforeLine are where the record being read starts:
		// the end of the last line read, and that line's number.
		var before int64
		var beforeLine int
		get := func(rec recorder.Record) *Run {
			if run, ok := open[rec.Run]; ok {
				if run.at != nil {
					run.at.end = r.Offset()
				}
				return run
			}
			run := &Run{ID: rec.Run, File: r.Name(), Line: rec.Line}
			if file != nil {
				run.at = &runPlace{file: file, start: before, end: r.Offset(), line: beforeLine}
			}
			open[rec.Run] = run
			order = append(order, run)
			return run
		}
		remove := func(run *Run) {
			delete(open, run.ID)
			for i, x := range order {
				if x == run {
					order = append(order[:i], order[i+1:]...)
					break
				}
			}
		}
		for {
			before, beforeLine = r.Offset(), r.Line()
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if !yield(nil, err) || r.Err() != nil {
					return
				}
				continue
			}
			if file != nil && file.header == 0 && rec.Kind == recorder.KindHeader {
				file.header = r.Offset()
			}
			switch rec.Kind {
			case recorder.KindRequest:
				if run, ok := open[rec.Run]; ok && (run.Request != nil || len(run.Events) > 0 || run.at != nil && run.at.events > 0) {
					// The id is reused: the earlier run ended without
					// an end record.
					remove(run)
					if !yield(run, nil) {
						return
					}
				}
				get(rec).Request = rec.Request
			case recorder.KindEvent:
				run := get(rec)
				if file != nil {
					run.at.events++
					continue
				}
				ev := Event{Offset: rec.Offset, Line: rec.Line, Frame: rec.Frame}
				e, err := rec.EventOf()
				if err != nil {
					ev.Data = rec.Data
				} else {
					ev.Event = e
				}
				run.Events = append(run.Events, ev)
			case recorder.KindProvider:
				run := get(rec)
				if file != nil {
					continue
				}
				run.Exchanges = append(run.Exchanges, Exchange{Offset: rec.Offset, Line: rec.Line, Exchange: rec.Exchange})
			case recorder.KindGap:
				run := get(rec)
				if file != nil {
					continue
				}
				run.Gaps = append(run.Gaps, Gap{Index: len(run.Events), Line: rec.Line, Bytes: rec.Gap.Bytes})
			case recorder.KindEnd:
				run := get(rec)
				run.End = rec.End
				remove(run)
				if !yield(run, nil) {
					return
				}
			}
		}
		for _, run := range order {
			if !yield(run, nil) {
				return
			}
		}
	}
}

// Recording is a whole recording in memory.
type Recording struct {
	Name string
	Runs []*Run
	// Truncated says the last line was cut short.
	Truncated bool
	// Problems lists the lines that could not be read (corrupt, too long,
	// cut short); the runs hold everything else.
	Problems []error
}

// Load reads the recording at path. It fails only when the file cannot be
// read as a recording at all; bad lines are listed in Problems.
func Load(path string) (*Recording, error) {
	r, err := recorder.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return Read(r)
}

// Read reads a whole recording from r; see Load.
func Read(r *recorder.Reader) (*Recording, error) {
	rec := &Recording{Name: r.Name()}
	for run, err := range Runs(r) {
		if err != nil {
			if r.Err() != nil {
				return nil, err
			}
			rec.Problems = append(rec.Problems, err)
			continue
		}
		rec.Runs = append(rec.Runs, run)
	}
	rec.Truncated = r.Truncated()
	return rec, nil
}

// Exchanges returns the provider exchanges of every run, in order.
func (rec *Recording) Exchanges() []Exchange {
	var out []Exchange
	for _, run := range rec.Runs {
		out = append(out, run.Exchanges...)
	}
	return out
}
