package agui

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/aguitest/aguitest/internal/bytearena"
)

// DefaultMaxLineSize is the longest line an SSEDecoder or a Reader accepts
// when its MaxLineSize is zero.
const DefaultMaxLineSize = 16 << 20

// ErrLineTooLong is returned (wrapped, with the line number and the limit)
// when a line, or the data of one server-sent event, exceeds MaxLineSize.
var ErrLineTooLong = errors.New("line too long")

var bom = []byte("\xEF\xBB\xBF")

// SSEMessage is one dispatched server-sent event.
type SSEMessage struct {
	// Event is the event name set by an "event:" field; "" when absent
	// (a browser would report "message").
	Event string
	// ID is the stream's last event id at dispatch time. As in the
	// specification it persists across events until an "id:" field
	// changes it.
	ID string
	// Data is the event's data lines joined with "\n". The decoder reuses
	// its memory: it is valid only until the next call to Next.
	Data []byte
	// Retry is the reconnection time in milliseconds set by a "retry:"
	// field within this event's lines, or -1 when there was none.
	Retry int
	// Line is the 1-based line number of the event's first field line.
	Line int
}

// SSEDecoder reads server-sent events from a stream, following the parsing
// rules of the WHATWG HTML standard ("event stream interpretation"), with
// two deliberate departures:
//
//   - An event whose data is not followed by a blank line before the end of
//     the stream is delivered, where the standard discards it. Agents that
//     close the stream right after the last "data:" line are common, and
//     losing their final event would hide a RUN_FINISHED.
//   - Bytes are passed through as they are instead of being decoded as
//     UTF-8 with replacement characters; invalid UTF-8 in an event's data
//     is left for ParseEvent to report.
//
// The decoder reads in large blocks and never holds more than about
// MaxLineSize bytes of a line or of one event's data. It pulls the stream
// from a reader; [SSEParser] takes one pushed in pieces, by the same rules
// and the same code.
type SSEDecoder struct {
	arena bytearena.Arena

	// MaxLineSize bounds the length of a line and of the joined data of one
	// event; zero means DefaultMaxLineSize. Set it before the first call
	// to Next.
	MaxLineSize int

	p     sseParser
	r     io.Reader
	buf   []byte
	start int // unread data is buf[start:end]
	end   int
	rerr  error // error from r, reported once buffered data is used up
	err   error
	cut   bool // the last message was ended by the end of the input
}

// NewSSEDecoder returns a decoder reading from r.
func NewSSEDecoder(r io.Reader) *SSEDecoder {
	return &SSEDecoder{r: r, p: newSSEParser()}
}

func maxLineOr(n int) int {
	if n > 0 {
		return n
	}
	return DefaultMaxLineSize
}

// Retry returns the stream's reconnection time in milliseconds as last set
// by a "retry:" field, or -1 when none was seen. Unlike SSEMessage.Retry it
// also counts fields in blocks that dispatched no event.
func (d *SSEDecoder) Retry() int { return d.p.lastRetry }

// Line returns the number of lines read so far.
func (d *SSEDecoder) Line() int { return d.p.line }

// fill reads more data into the empty buffer. It reports false when
// nothing more can be read (d.rerr is then set).
func (d *SSEDecoder) fill() bool {
	if d.rerr != nil {
		return false
	}
	if d.buf == nil {
		d.buf = make([]byte, min(64<<10, d.p.max+1))
	}
	d.start, d.end = 0, 0
	for range 100 {
		n, err := d.r.Read(d.buf)
		if n < 0 || n > len(d.buf) {
			d.rerr = errors.New("agui: reader returned an invalid count")
			return false
		}
		d.end = n
		if err != nil {
			d.rerr = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	d.rerr = io.ErrNoProgress
	return false
}

// Next returns the next event, or io.EOF at the end of the stream. The
// returned Data is valid until the next call. After an error other than
// io.EOF, Next keeps returning that error.
func (d *SSEDecoder) Next() (SSEMessage, error) {
	if d.err != nil {
		return SSEMessage{}, d.err
	}
	d.p.max = maxLineOr(d.MaxLineSize)
	for {
		if d.start < d.end {
			n, ready, err := d.p.feed(d.buf[d.start:d.end])
			d.start += n
			if err != nil {
				d.err = err
				return SSEMessage{}, err
			}
			if ready {
				d.cut = false
				return d.p.dispatch(), nil
			}
			continue
		}
		if d.fill() {
			continue
		}
		// The end of the input: a last line without its end counts.
		if err := d.p.end(); err != nil {
			d.err = err
			return SSEMessage{}, err
		}
		if d.rerr == io.EOF && d.p.hasData {
			d.cut = true
			return d.p.dispatch(), nil
		}
		d.err = d.rerr
		return SSEMessage{}, d.err
	}
}

// SSEParser parses server-sent events pushed to it in pieces of any size,
// as a proxy or a recording middleware sees them go by, by the rules of
// [SSEDecoder], which pulls them from a reader. Where the decoder stops
// with an error, the parser reads on: a line or an event's data over
// MaxLineSize is skipped with the rest of its event, as is what was being
// read when Gap says bytes are missing. The zero value is ready to use.
type SSEParser struct {
	// MaxLineSize bounds the length of a line and of the joined data of one
	// event; zero means DefaultMaxLineSize.
	MaxLineSize int

	p    sseParser
	init bool
}

// Feed parses the next piece of the stream and hands emit each event it
// completes. The message's Data is valid only during the call.
func (s *SSEParser) Feed(b []byte, emit func(SSEMessage)) {
	s.start()
	for len(b) > 0 {
		n, ready, err := s.p.feed(b)
		b = b[n:]
		if err != nil {
			s.Gap()
			continue
		}
		if ready {
			emit(s.p.dispatch())
		}
	}
}

// Gap tells the parser that bytes are missing before the next piece: the
// event being read is dropped, and so is what follows up to the next
// blank line.
func (s *SSEParser) Gap() {
	s.start()
	s.p.carry = s.p.carry[:0]
	s.p.bomSeen = 0
	s.p.pendingCR = false
	s.p.reset()
	s.p.skip = true
}

func (s *SSEParser) start() {
	if !s.init {
		s.p, s.init = newSSEParser(), true
	}
	s.p.max = maxLineOr(s.MaxLineSize)
}

// End hands emit the last event if the stream ended inside it, as the
// decoder delivers it.
func (s *SSEParser) End(emit func(SSEMessage)) {
	if !s.init {
		return
	}
	if s.p.end() == nil && s.p.hasData && !s.p.skip {
		emit(s.p.dispatch())
	}
	s.p.reset()
}

// sseParser is the event-stream parser without its input, which the
// decoder pulls and SSEParser is pushed: fed bytes, it splits lines at CR,
// LF or CRLF (a leading byte order mark dropped), reads their fields, and
// says when an event is ready to dispatch.
type sseParser struct {
	max int

	carry     []byte // the start of a line whose end has not come yet
	bomSeen   int    // bytes of a leading byte order mark read so far
	started   bool   // the byte order mark is dealt with
	pendingCR bool   // the last line ended with CR: skip a following LF
	skip      bool   // ignore lines up to the next blank line (SSEParser)
	line      int    // lines read so far

	// The event being built.
	event     []byte
	id        string
	data      []byte
	hasData   bool
	retry     int
	evLine    int
	lastRetry int
}

func newSSEParser() sseParser { return sseParser{retry: -1, lastRetry: -1} }

// feed reads b up to the end of the next event and returns how much of it
// was used and whether an event is ready (dispatch returns it). A line or
// an event's data over the limit is a *ReadError wrapping ErrLineTooLong.
func (p *sseParser) feed(b []byte) (n int, ready bool, err error) {
	i := 0
	for !p.started && i < len(b) {
		if b[i] == bom[p.bomSeen] {
			p.bomSeen++
			i++
			p.started = p.bomSeen == len(bom)
			continue
		}
		// Not a byte order mark: what looked like one is text.
		p.carry = append(p.carry, bom[:p.bomSeen]...)
		p.started = true
	}
	for i < len(b) {
		if p.pendingCR {
			p.pendingCR = false
			if b[i] == '\n' {
				i++
				continue
			}
		}
		rest := b[i:]
		j := indexEOL(rest)
		if j < 0 {
			if len(p.carry)+len(rest) > p.max {
				if p.skip {
					p.carry = p.carry[:0] // skipped anyway: keep no bytes
					return len(b), false, nil
				}
				p.line++
				return len(b), false, p.tooLong()
			}
			p.carry = append(p.carry, rest...)
			return len(b), false, nil
		}
		l := rest[:j]
		if len(p.carry) > 0 {
			p.carry = append(p.carry, l...)
			l = p.carry
		}
		p.pendingCR = rest[j] == '\r'
		i += j + 1
		ready, err := p.lineDone(l)
		p.carry = p.carry[:0]
		if err != nil || ready {
			return i, ready, err
		}
	}
	return i, false, nil
}

// end takes the line left without its end at the end of the stream.
func (p *sseParser) end() error {
	if !p.started && p.bomSeen > 0 {
		p.carry = append(p.carry, bom[:p.bomSeen]...)
		p.started = true
	}
	if len(p.carry) == 0 {
		return nil
	}
	_, err := p.lineDone(p.carry)
	p.carry = p.carry[:0]
	return err
}

func (p *sseParser) tooLong() error {
	return &ReadError{Line: p.line, Err: fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, p.max)}
}

// lineDone takes one line, without its end, and reports whether it
// dispatches an event.
func (p *sseParser) lineDone(l []byte) (bool, error) {
	p.line++
	if len(l) > p.max && !p.skip {
		return false, p.tooLong()
	}
	if len(l) == 0 {
		if p.skip {
			p.skip = false
			p.reset()
			return false, nil
		}
		if p.hasData {
			return true, nil
		}
		p.reset()
		return false, nil
	}
	if p.skip || l[0] == ':' {
		return false, nil
	}
	if p.evLine == 0 {
		p.evLine = p.line
	}
	return false, p.field(l)
}

func (p *sseParser) field(line []byte) error {
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if len(p.data)+1+len(value) > p.max {
			return &ReadError{Line: p.line, Err: fmt.Errorf("%w: the event's data is over %d bytes", ErrLineTooLong, p.max)}
		}
		if p.hasData {
			p.data = append(p.data, '\n')
		}
		p.data = append(p.data, value...)
		p.hasData = true
	case "event":
		p.event = append(p.event[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 && string(value) != p.id {
			p.id = string(value)
		}
	case "retry":
		if n, ok := parseRetry(value); ok {
			p.retry, p.lastRetry = n, n
		}
	}
	return nil
}

// parseRetry accepts ASCII digits only, as the standard requires, and
// ignores values too large for an int.
func parseRetry(v []byte) (int, bool) {
	if len(v) == 0 {
		return 0, false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(string(v))
	return n, err == nil
}

// dispatch returns the event built and starts the next; its Data is valid
// until the parser is fed again.
func (p *sseParser) dispatch() SSEMessage {
	m := SSEMessage{ID: p.id, Data: p.data, Retry: p.retry, Line: p.evLine}
	if len(p.event) > 0 {
		m.Event = string(p.event)
	}
	p.reset()
	return m
}

func (p *sseParser) reset() {
	p.event = p.event[:0]
	p.data = p.data[:0]
	p.hasData = false
	p.retry = -1
	p.evLine = 0
}

// NextEvent returns the next event's data parsed as an AG-UI Event, or
// io.EOF at the end of the stream. The Event owns a copy of the data. A
// parse error is a *ReadError naming the event's line.
func (d *SSEDecoder) NextEvent() (Event, error) {
	m, err := d.Next()
	if err != nil {
		return Event{}, err
	}
	e, err := ParseEvent(d.arena.Copy(m.Data))
	if err != nil {
		if d.cut && incomplete(m.Data) {
			err = fmt.Errorf("%w: %w", errTruncatedEvent, err)
		}
		return Event{}, &ReadError{Line: m.Line, Err: err}
	}
	return e, nil
}

// SSEEncoder writes server-sent events and flushes after each one, so that
// every event reaches the client as soon as it is written.
type SSEEncoder struct {
	w      io.Writer
	flush  func() error
	buf    []byte
	lastID string // the last event id written
}

// NewSSEEncoder returns an encoder writing to w. When w is an
// http.ResponseWriter it is flushed through http.ResponseController;
// otherwise a Flush() error or Flush() method is called after each event.
func NewSSEEncoder(w io.Writer) *SSEEncoder {
	e := &SSEEncoder{w: w}
	switch f := w.(type) {
	case http.ResponseWriter:
		rc := http.NewResponseController(f)
		e.flush = func() error {
			if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
				return err
			}
			return nil
		}
	case interface{ Flush() error }:
		e.flush = f.Flush
	case interface{ Flush() }:
		e.flush = func() error { f.Flush(); return nil }
	}
	return e
}

// Encode writes the event as "data: <json>\n\n" and flushes. AG-UI events
// are one line of JSON; if the raw bytes hold line breaks (JSON allows them
// as white space) each line becomes its own "data:" line, which the decoder
// joins with "\n": a CR or CRLF break comes back as LF.
func (e *SSEEncoder) Encode(ev Event) error {
	if len(ev.Raw()) == 0 {
		return errors.New("agui: encoding an empty event")
	}
	return e.write(SSEMessage{Data: ev.Raw(), Retry: -1}, false)
}

// EncodeMessage writes a server-sent event and flushes. The name is
// written when not empty and Retry when not negative (set it to -1 to leave
// it out: 0 is a valid reconnection time); Line is ignored. As a
// decoder keeps the last event id until an "id:" field changes it, ID is
// written when it differs from the last one this encoder wrote, including
// an empty ID after a non-empty one. A name or id holding a line break, or an
// id holding NUL, is an error: the decoder could not read it back.
func (e *SSEEncoder) EncodeMessage(m SSEMessage) error {
	if bytes.ContainsAny([]byte(m.Event), "\r\n") {
		return errors.New("agui: SSE event name contains a line break")
	}
	if bytes.ContainsAny([]byte(m.ID), "\r\n\x00") {
		return errors.New("agui: SSE id contains a line break or NUL")
	}
	return e.write(m, true)
}

func (e *SSEEncoder) write(m SSEMessage, fields bool) error {
	b := e.buf[:0]
	if fields {
		if m.Event != "" {
			b = append(append(append(b, "event: "...), m.Event...), '\n')
		}
		if m.ID != e.lastID {
			b = append(append(append(b, "id: "...), m.ID...), '\n')
			e.lastID = m.ID
		}
		if m.Retry >= 0 {
			b = strconv.AppendInt(append(b, "retry: "...), int64(m.Retry), 10)
			b = append(b, '\n')
		}
	}
	b = appendLines(b, "data: ", m.Data)
	b = append(b, '\n')
	e.buf = b
	return e.send(b)
}

// appendLines appends each line of text (split at CRLF, LF or CR) with the
// prefix before it and LF after it.
func appendLines(b []byte, prefix string, text []byte) []byte {
	for {
		i := indexEOL(text)
		if i < 0 {
			b = append(append(b, prefix...), text...)
			return append(b, '\n')
		}
		b = append(append(b, prefix...), text[:i]...)
		b = append(b, '\n')
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		text = text[i+1:]
	}
}

// indexEOL returns the index of the first CR or LF in b, or -1.
func indexEOL(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	return i
}

// WriteComment writes a comment (": text"), which clients ignore; it keeps
// idle connections open through proxies. A multi-line text becomes several
// comment lines.
func (e *SSEEncoder) WriteComment(text string) error {
	b := appendLines(e.buf[:0], ": ", []byte(text))
	b = append(b, '\n')
	e.buf = b
	return e.send(b)
}

func (e *SSEEncoder) send(b []byte) error {
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	if e.flush != nil {
		return e.flush()
	}
	return nil
}
