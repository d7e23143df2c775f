package recorder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/internal/bytearena"
	"github.com/aguitest/aguitest/internal/jsonx"
)

// Format is the value of the header's "format" field: what marks a file as
// a recording.
const Format = "aguitest-recording"

// Version is the version of the recording format this package writes and
// the newest it reads.
const Version = 1

// Kind names what a record holds.
type Kind string

// The record kinds of format version 1. A reader keeps records of other
// kinds (with their line in Record.Raw) instead of failing on them.
const (
	KindHeader   Kind = "header"
	KindRequest  Kind = "request"
	KindEvent    Kind = "event"
	KindProvider Kind = "provider"
	KindEnd      Kind = "end"
	// KindGap marks where bytes of the response are missing from the
	// recording: storage fell behind and they were dropped.
	KindGap Kind = "gap"
)

// Known reports whether k is one of the kinds of format version 1.
func (k Kind) Known() bool {
	switch k {
	case KindHeader, KindRequest, KindEvent, KindProvider, KindEnd, KindGap:
		return true
	}
	return false
}

// Outcomes of a run, as written in its end record.
const (
	OutcomeFinished   = "finished"    // the last event was RUN_FINISHED
	OutcomeError      = "error"       // the last event was RUN_ERROR
	OutcomeTruncated  = "truncated"   // the stream ended without either
	OutcomeClientGone = "client_gone" // the client went away mid-stream
)

// Record is one line of a recording. Kind says which of the kind-specific
// fields is set; every record but the header names its Run.
type Record struct {
	Kind Kind
	// Run names the run the record belongs to; "" for the header.
	Run string
	// Offset is the time since the run's request record (microsecond
	// precision on disk).
	Offset time.Duration

	// Header is set for KindHeader.
	Header *Header
	// Request is set for KindRequest.
	Request *Request
	// Event is the event's JSON exactly as the agent sent it (after
	// redaction) for KindEvent. It is nil when the stream carried data that
	// is not an event; Data then holds that text.
	Event json.RawMessage
	// Data is the text of a server-sent event whose data is not an AG-UI
	// event, or of an event whose bytes hold a line break (KindEvent).
	Data string
	// Frame is the protobuf message of a frame of a protobuf response
	// (agui.MediaTypeProto, without its length prefix) when Event does not
	// hold all of it: the event's JSON form loses part of it, or the frame
	// holds no event the client would see (Event is then nil). Replaying in
	// protobuf sends it as it came. On disk it is base64 ("frame").
	Frame []byte
	// Exchange is set for KindProvider.
	Exchange *Exchange
	// End is set for KindEnd.
	End *End
	// Gap is set for KindGap.
	Gap *Gap

	// Line is the 1-based line the record was read from (0 when written).
	Line int
	// Raw is the record's whole line as read, for records of unknown kinds.
	Raw json.RawMessage

	ev    agui.Event // Event parsed, when the reader did it
	hasEv bool
	valid bool // Event is known to be one line of valid JSON
}

// Header is the first line of a recording.
type Header struct {
	Format  string    `json:"format"`
	Version int       `json:"version"`
	Created time.Time `json:"created,omitzero"`
	// Source says what wrote the recording ("middleware", "proxy", "sink").
	Source string `json:"source,omitempty"`
}

// Request is the request that started a run.
type Request struct {
	// Time is when the request arrived.
	Time   time.Time `json:"time,omitzero"`
	Method string    `json:"method,omitempty"`
	Path   string    `json:"path,omitempty"`
	// Header holds the request headers kept after redaction.
	Header http.Header `json:"headers,omitempty"`
	// Input is the body when it is JSON (a RunAgentInput), after redaction.
	Input json.RawMessage `json:"input,omitempty"`
	// Body is the body when it is not JSON.
	Body string `json:"body,omitempty"`
}

// Exchange is one request to an LLM provider and its streamed response.
type Exchange struct {
	Method string      `json:"method"`
	URL    string      `json:"url"`
	Header http.Header `json:"headers,omitempty"`
	// Body is the request body when it is JSON, after redaction; BodyText
	// otherwise.
	Body     json.RawMessage `json:"body,omitempty"`
	BodyText string          `json:"bodyText,omitempty"`
	Status   int             `json:"status"`
	// ResponseHeader holds the response headers kept after redaction.
	ResponseHeader http.Header `json:"responseHeaders,omitempty"`
	// Chunks are the response body as the caller read it, read by read.
	Chunks []Chunk `json:"chunks"`
	// Error is the transport or body read error, if any.
	Error string `json:"error,omitempty"`
}

// Chunk is one piece of a streamed response body with its offset from the
// start of the exchange.
type Chunk struct {
	Offset time.Duration
	Data   []byte
	// Event holds the headers of one message of a binary event stream
	// (application/vnd.amazon.eventstream, Bedrock's ConverseStream),
	// whose payload is Data: such a body is recorded a message a chunk,
	// decoded, so that its JSON can be read and redacted, and is framed
	// again when replayed. Nil for the chunks of other bodies, which are
	// recorded as read.
	Event map[string]string
}

type chunkJSON struct {
	US    int64             `json:"us"`
	Event map[string]string `json:"event,omitempty"`
	Data  string            `json:"data,omitempty"`
	B64   []byte            `json:"b64,omitempty"`
}

// MarshalJSON writes the offset in microseconds, the headers of an event
// stream message ("event") and the data as a string, or base64 ("b64")
// when it is not UTF-8.
func (c Chunk) MarshalJSON() ([]byte, error) {
	j := chunkJSON{US: c.Offset.Microseconds(), Event: c.Event}
	if utf8.Valid(c.Data) {
		j.Data = string(c.Data)
	} else {
		j.B64 = c.Data
	}
	return marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *Chunk) UnmarshalJSON(b []byte) error {
	var j chunkJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	c.Offset = time.Duration(j.US) * time.Microsecond
	c.Event = j.Event
	c.Data = j.B64
	if j.Data != "" {
		c.Data = []byte(j.Data)
	}
	return nil
}

// Gap says how many response bytes are missing from a run's recording at
// the place of its record: the client got them, storage had no room.
type Gap struct {
	Bytes int64 `json:"bytes"`
}

// End closes a run.
type End struct {
	// Outcome is one of the Outcome constants.
	Outcome string `json:"outcome"`
	// Status is the HTTP status sent to the client (0 in-process).
	Status int `json:"status,omitempty"`
	// ContentType is the response's Content-Type as the client got it
	// ("" in-process, and in recordings made before it was recorded).
	ContentType string `json:"contentType,omitempty"`
	// ContentEncoding is the response's Content-Encoding, when it has
	// one: the events are recorded as the client decodes them.
	ContentEncoding string `json:"contentEncoding,omitempty"`
	// Bytes is the number of response bytes sent to the client.
	Bytes int64 `json:"bytes"`
	// Events is the number of events the stream carried.
	Events int64 `json:"events"`
	// Dropped is the number of response bytes not recorded because storage
	// fell behind; the events they held are missing from the recording.
	Dropped int64 `json:"dropped,omitempty"`
	// Limited says recording stopped at the per-run size limit.
	Limited bool `json:"limited,omitempty"`
	// Undecoded says why the response's events are not recorded (a
	// Content-Encoding the recorder does not decode, a compressed stream
	// that could not be decoded), "" when they are.
	Undecoded string `json:"undecoded,omitempty"`
	// Error says what went wrong (a handler panic, a failing store).
	Error string `json:"error,omitempty"`
}

// Incomplete says why the run's recording does not hold the whole
// response the client got, or "" when it does: bytes dropped because
// storage fell behind, the per-run size limit, a response the recorder
// could not decode. An incomplete recording is no evidence about the
// agent: what is missing may hold the run's end.
func (e *End) Incomplete() string {
	var why []string
	if e.Dropped > 0 {
		why = append(why, fmt.Sprintf("%d bytes of the response were dropped (storage fell behind)", e.Dropped))
	}
	if e.Limited {
		why = append(why, "recording stopped at the per-run size limit")
	}
	if e.Undecoded != "" {
		why = append(why, e.Undecoded)
	}
	return strings.Join(why, "; ")
}

// NoEndRecord says why a run with no end record whose last event does not
// end it is an incomplete recording (see replay.Run.Incomplete).
const NoEndRecord = "the recording has no end record for the run, and its last event does not end it: the recorder stopped first (storage failed, it was killed, or the file is still being written)"

// line is the on-disk shape of a record.
type line struct {
	Kind   Kind            `json:"kind"`
	Run    string          `json:"run,omitempty"`
	US     int64           `json:"us,omitempty"`
	Event  json.RawMessage `json:"event,omitempty"`
	Data   *string         `json:"data,omitempty"`
	Frame  []byte          `json:"frame,omitempty"`
	Format string          `json:"format,omitempty"`
	// header fields
	Version int       `json:"version,omitempty"`
	Created time.Time `json:"created,omitzero"`
	Source  string    `json:"source,omitempty"`

	Request  *Request  `json:"request,omitempty"`
	Exchange *Exchange `json:"provider,omitempty"`
	End      *End      `json:"end,omitempty"`
	Gap      *Gap      `json:"gap,omitempty"`
}

// appendRecord appends r as one line of JSON ending in "\n".
//
// A record whose line would be longer than a Reader reads by default
// (DefaultMaxLineSize) is written without its bulk, saying so: whatever a
// Writer writes, a Reader reads.
func appendRecord(b []byte, r Record) ([]byte, error) {
	start := len(b)
	b, err := appendLine(b, r)
	if err != nil || len(b)-start <= maxRecordLine {
		return b, err
	}
	return appendLine(b[:start], shrink(r, len(b)-start))
}

// maxRecordLine is the longest line a Writer writes.
var maxRecordLine = DefaultMaxLineSize

// shrink returns r without what makes its line n bytes long.
func shrink(r Record, n int) Record {
	note := fmt.Sprintf("(not kept: the record would be a line of %d bytes, over the %d a recording line may have)", n, maxRecordLine)
	switch r.Kind {
	case KindEvent:
		r.Event, r.Frame, r.Data = nil, nil, note
		r.valid, r.hasEv = false, false
	case KindRequest:
		q := *r.Request
		q.Input, q.Body = nil, note
		r.Request = &q
	case KindProvider:
		ex := *r.Exchange
		ex.Body, ex.BodyText, ex.Chunks = nil, "", []Chunk{}
		ex.Error = strings.TrimPrefix(ex.Error+"; request and response "+note, "; ")
		r.Exchange = &ex
	case KindEnd:
		e := *r.End
		e.Error, e.Undecoded = note, ""
		r.End = &e
	default:
		r.Raw = nil
	}
	return r
}

// appendLine appends r as one line of JSON ending in "\n".
func appendLine(b []byte, r Record) ([]byte, error) {
	if r.Kind == KindEvent && r.Event != nil && r.Data == "" && r.Frame == nil && (r.valid || oneLine(r.Event) && (r.hasEv || isEvent(r.Event))) {
		// The common case, written by hand to keep the event's bytes as
		// they are (encoding/json would compact and re-escape them).
		return appendEventLine(b, r.Run, r.Offset, r.Event), nil
	}
	if !r.Kind.Known() && r.Raw != nil {
		var c bytes.Buffer
		if err := json.Compact(&c, r.Raw); err != nil {
			return b, err
		}
		b = append(b, c.Bytes()...)
		return append(b, '\n'), nil
	}
	l := line{Kind: r.Kind, Run: r.Run, US: r.Offset.Microseconds(), Request: r.Request, Exchange: r.Exchange, End: r.End, Gap: r.Gap}
	if r.Kind == KindEvent {
		l.Frame = r.Frame
		if r.Frame != nil && r.Data == "" && (r.Event == nil || oneLine(r.Event) && isEvent(r.Event)) {
			l.Event = r.Event
		} else {
			// An event with line breaks, or data that is not an event:
			// kept as text.
			d := r.Data
			if d == "" {
				d = string(r.Event)
			}
			l.Data = &d
		}
	}
	if h := r.Header; h != nil {
		l.Format, l.Version, l.Created, l.Source = h.Format, h.Version, h.Created, h.Source
	}
	j, err := marshal(l)
	if err != nil {
		return b, err
	}
	b = append(b, j...)
	return append(b, '\n'), nil
}

// isEvent reports whether b is an event the Reader reads back: what
// agui.ParseEvent accepts (a JSON object with a string "type", valid
// UTF-8). Anything else is written as data.
func isEvent(b []byte) bool {
	_, err := agui.ParseEvent(b)
	return err == nil
}

// appendEventLine appends the line of an event record; raw must be one
// line of valid JSON.
func appendEventLine(b []byte, run string, off time.Duration, raw []byte) []byte {
	b = append(b, `{"kind":"event","run":`...)
	b = appendString(b, run)
	b = append(b, `,"us":`...)
	b = strconv.AppendInt(b, off.Microseconds(), 10)
	b = append(b, `,"event":`...)
	b = append(b, raw...)
	return append(b, "}\n"...)
}

// oneLine reports whether b holds no line break.
func oneLine(b []byte) bool {
	return bytes.IndexByte(b, '\n') < 0 && bytes.IndexByte(b, '\r') < 0
}

// marshal is json.Marshal without HTML escaping.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// appendString appends s as a JSON string, the module's one way
// (jsonx.AppendQuote).
func appendString(b []byte, s string) []byte { return jsonx.AppendQuote(b, s) }

// eventPrefix starts every event record this package writes.
var eventPrefix = []byte(`{"kind":"event","run":"`)

// recordParser decodes the lines of one recording. It cuts the events'
// bytes from an arena and keeps the last run id, so that a run's records
// share one string: reading an event record costs no allocation of its
// own.
type recordParser struct {
	arena bytearena.Arena
	run   string
}

// runOf returns b as a string, the previous record's when they are equal.
func (p *recordParser) runOf(b []byte) string {
	if string(b) != p.run {
		p.run = string(b)
	}
	return p.run
}

// parseEventFast reads an event record in the exact layout appendRecord
// writes without encoding/json, which is several times slower. It reports
// false for anything else, which parseRecord then reads the slow way.
func (p *recordParser) parseEventFast(b []byte) (Record, bool) {
	rest, ok := bytes.CutPrefix(b, eventPrefix)
	if !ok {
		return Record{}, false
	}
	i := bytes.IndexByte(rest, '"')
	if i < 0 {
		return Record{}, false
	}
	run := rest[:i]
	for _, c := range run {
		if c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
			return Record{}, false
		}
	}
	rest, ok = bytes.CutPrefix(rest[i+1:], []byte(`,"us":`))
	if !ok {
		return Record{}, false
	}
	j := 0
	if j < len(rest) && rest[j] == '-' {
		j++
	}
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	us, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	if err != nil {
		return Record{}, false
	}
	rest, ok = bytes.CutPrefix(rest[j:], []byte(`,"event":`))
	if !ok {
		return Record{}, false
	}
	rest = bytes.TrimRight(rest, " \t\r")
	if len(rest) < 2 || rest[len(rest)-1] != '}' || rest[0] != '{' {
		return Record{}, false
	}
	// The copy is made first, for the event to point into; a line that
	// then fails only leaves some bytes of the arena unused.
	raw := json.RawMessage(p.arena.Copy(rest[:len(rest)-1]))
	e, err := agui.ParseEvent(raw)
	if err != nil || !bytes.Equal(e.Raw(), raw) {
		return Record{}, false
	}
	return Record{Kind: KindEvent, Run: p.runOf(run), Offset: time.Duration(us) * time.Microsecond, Event: raw, ev: e, hasEv: true}, true
}

// parseRecord decodes one line.
func parseRecord(b []byte) (Record, error) {
	var p recordParser
	return p.parse(b)
}

// parse decodes one line.
func (p *recordParser) parse(b []byte) (Record, error) {
	if r, ok := p.parseEventFast(b); ok {
		return r, nil
	}
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		return Record{}, err
	}
	r := Record{Kind: l.Kind, Run: l.Run, Offset: time.Duration(l.US) * time.Microsecond}
	switch l.Kind {
	case KindHeader:
		r.Header = &Header{Format: l.Format, Version: l.Version, Created: l.Created, Source: l.Source}
	case KindRequest:
		if l.Request == nil {
			return r, errMissing("request")
		}
		r.Request = l.Request
	case KindEvent:
		switch {
		case l.Event != nil:
			if _, err := agui.ParseEvent(l.Event); err != nil {
				return r, err
			}
			r.Event = l.Event
		case l.Data != nil:
			r.Data = *l.Data
		case l.Frame == nil:
			return r, errMissing("event")
		}
		r.Frame = l.Frame
	case KindProvider:
		if l.Exchange == nil {
			return r, errMissing("provider")
		}
		r.Exchange = l.Exchange
	case KindEnd:
		if l.End == nil {
			return r, errMissing("end")
		}
		r.End = l.End
	case KindGap:
		if l.Gap == nil {
			return r, errMissing("gap")
		}
		r.Gap = l.Gap
	case "":
		return r, errMissing("kind")
	default:
		r.Raw = append(json.RawMessage(nil), b...)
	}
	return r, nil
}

var errNoEvent = errors.New("a protobuf frame that holds no event the client would see")

type errMissing string

// Error names the missing field.
func (e errMissing) Error() string { return "record has no " + strconv.Quote(string(e)) + " field" }

// EventRecord returns the record of event e of a run at offset from the
// run's start. It keeps e parsed, which spares the Writer validating it.
func EventRecord(run string, offset time.Duration, e agui.Event) Record {
	return Record{Kind: KindEvent, Run: run, Offset: offset, Event: e.Raw(), ev: e, hasEv: true}
}

// EventOf returns the record's event, parsed. It fails for an event record
// holding data that is not an event.
func (r Record) EventOf() (agui.Event, error) {
	if r.hasEv {
		return r.ev, nil
	}
	if r.Event == nil && r.Data == "" && r.Frame != nil {
		return agui.Event{}, errNoEvent
	}
	if r.Event == nil {
		return agui.ParseEvent([]byte(r.Data))
	}
	return agui.ParseEvent(r.Event)
}
