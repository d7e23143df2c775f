package recorder

import (
	"bytes"
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
	stream  *streamRedactor[sinkItem]
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

// sinkItem is what the Sink's stream redactor keeps with an event.
type sinkItem struct {
	off time.Duration
	rec *Record
	ev  agui.Event
}

// Emit records an event. An event whose text a later one may continue (a
// message's delta, a call's arguments) is kept back from Records and the
// Writer until that text is searched for credentials split between them:
// at most a few hundred bytes of its text later, at the end of its
// message or call, or at Close.
func (s *Sink) Emit(e agui.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return errClosed
	}
	s.begin(e.RunID())
	raw := e.Raw()
	s.events++
	s.bytes += int64(len(raw))
	s.last = e.Type()
	s.streamer().push(raw, sinkItem{off: s.now().Sub(s.start), ev: e})
	return s.err
}

// streamer returns the Sink's stream redactor; s.mu is held.
func (s *Sink) streamer() *streamRedactor[sinkItem] {
	if s.stream == nil {
		s.stream = newStreamRedactor(&s.Redact, s.record)
	}
	return s.stream
}

// record keeps what the stream redactor lets go; s.mu is held.
func (s *Sink) record(raw []byte, clean bool, it sinkItem) {
	if it.rec != nil {
		s.keep(*it.rec)
		return
	}
	if clean && bytes.Equal(raw, it.ev.Raw()) {
		s.keep(EventRecord(s.Run, it.off, it.ev))
		return
	}
	if !clean {
		red, err := s.Redact.JSON(raw)
		if err != nil {
			red = []byte(`{"type":"` + string(lastType(raw)) + `"}`)
		}
		raw = red
	}
	s.keep(Record{Kind: KindEvent, Run: s.Run, Offset: it.off, Event: raw})
}

// keep adds r, noting the first failure to write; s.mu is held.
func (s *Sink) keep(r Record) {
	if err := s.add(r); err != nil && s.err == nil {
		s.err = err
	}
}

// exchange records a provider exchange that started at start (see
// WithSink).
func (s *Sink) exchange(start time.Time, ex *Exchange) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return errClosed
	}
	s.begin("")
	s.streamer().pushOther(sinkItem{rec: &Record{Kind: KindProvider, Run: s.Run, Offset: max(start.Sub(s.start), 1), Exchange: ex}})
	return s.err
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
	s.streamer().finish()
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
