package recorder

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/clock"
)

// Sink records one run in process: a Go agent, or a harness driving one,
// emits events into it and the Sink keeps them in order with their offsets
// from the run's start, and writes them to Writer when one is set.
//
// The zero value needs only Run. A Sink is safe for concurrent use; events
// emitted concurrently are kept in the order Emit took them.
type Sink struct {
	// Run names the run in the records; "" takes the runId of the first
	// RUN_STARTED or of the request, else "run".
	Run string
	// Writer receives every record as it is made; nil keeps them in
	// memory only.
	Writer *Writer
	// Clock stamps the records' offsets; nil means the real clock.
	Clock clock.Clock
	// Redact is applied to the request and to each event before it is
	// kept or written.
	Redact Redact

	mu      sync.Mutex
	start   time.Time
	started bool
	records []Record
	last    agui.EventType
	events  int64
	bytes   int64
	ended   bool
	err     error
}

func (s *Sink) now() time.Time { return clock.Or(s.Clock).Now() }

// begin sets the run's start time and name; s.mu is held.
func (s *Sink) begin(runID string) {
	if s.started {
		return
	}
	s.started = true
	s.start = s.now()
	if s.Run == "" {
		s.Run = runID
	}
	if s.Run == "" {
		s.Run = "run"
	}
}

// Request records the input that starts the run, and the headers (redacted;
// may be nil). Call it before the first Emit, or not at all.
func (s *Sink) Request(in agui.RunAgentInput, h http.Header) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.begin(in.RunID)
	if body, err = s.Redact.JSON(body); err != nil {
		return err
	}
	return s.add(Record{Kind: KindRequest, Run: s.Run, Request: &Request{
		Time: s.start, Method: http.MethodPost, Header: s.Redact.header(h, nil), Input: body,
	}})
}

// Emit records an event.
func (s *Sink) Emit(e agui.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.begin(e.RunID())
	raw := e.Raw()
	s.events++
	s.bytes += int64(len(raw))
	s.last = e.Type()
	off := s.now().Sub(s.start)
	if s.Redact.clean(raw) {
		return s.add(EventRecord(s.Run, off, e))
	}
	red, err := s.Redact.JSON(raw)
	if err != nil {
		return err
	}
	return s.add(Record{Kind: KindEvent, Run: s.Run, Offset: off, Event: red})
}

// exchange records a provider exchange that started at start (see
// WithSink).
func (s *Sink) exchange(start time.Time, ex *Exchange) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.begin("")
	return s.add(Record{Kind: KindProvider, Run: s.Run, Offset: max(start.Sub(s.start), 1), Exchange: ex})
}

// add keeps r and writes it; s.mu is held.
func (s *Sink) add(r Record) error {
	if s.ended {
		return errClosed
	}
	s.records = append(s.records, r)
	if s.Writer != nil && s.err == nil {
		s.err = s.Writer.Write(r)
		return s.err
	}
	return nil
}

// Close writes the run's end record; the outcome follows from the last
// event (finished, error or truncated). Emit fails after Close.
func (s *Sink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil
	}
	s.begin("")
	end := &End{Outcome: outcomeOf(s.last, false), Events: s.events, Bytes: s.bytes}
	err := s.add(Record{Kind: KindEnd, Run: s.Run, Offset: s.now().Sub(s.start), End: end})
	s.ended = true
	return err
}

// Records returns a copy of the records made so far.
func (s *Sink) Records() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Record(nil), s.records...)
}

// Events returns the events emitted so far, as recorded (after redaction).
func (s *Sink) Events() []agui.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []agui.Event
	for _, r := range s.records {
		if r.Kind == KindEvent {
			if e, err := r.EventOf(); err == nil {
				out = append(out, e)
			}
		}
	}
	return out
}

func outcomeOf(last agui.EventType, clientGone bool) string {
	switch {
	case last == agui.RunFinished:
		return OutcomeFinished
	case last == agui.RunError:
		return OutcomeError
	case clientGone:
		return OutcomeClientGone
	}
	return OutcomeTruncated
}
