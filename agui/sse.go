package agui

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
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
// MaxLineSize bytes of a line or of one event's data.
type SSEDecoder struct {
	arena arena

	// MaxLineSize bounds the length of a line and of the joined data of one
	// event; zero means DefaultMaxLineSize. Set it before the first call
	// to Next.
	MaxLineSize int

	r     io.Reader
	buf   []byte
	start int // unread data is buf[start:end]
	end   int
	rerr  error // error from r, reported once buffered data is used up

	line      int  // number of lines read so far
	pendingCR bool // the last line ended with CR: skip a following LF
	started   bool // the BOM check has been done
	err       error

	// The event being built.
	event     []byte
	id        string
	data      []byte
	hasData   bool
	retry     int
	evLine    int
	lastLine  int  // Line of the last message dispatched
	cut       bool // the last message was ended by the end of the input
	lastRetry int
}

// NewSSEDecoder returns a decoder reading from r.
func NewSSEDecoder(r io.Reader) *SSEDecoder {
	return &SSEDecoder{r: r, retry: -1, lastRetry: -1}
}

func (d *SSEDecoder) maxLine() int {
	if d.MaxLineSize > 0 {
		return d.MaxLineSize
	}
	return DefaultMaxLineSize
}

// Retry returns the stream's reconnection time in milliseconds as last set
// by a "retry:" field, or -1 when none was seen. Unlike SSEMessage.Retry it
// also counts fields in blocks that dispatched no event.
func (d *SSEDecoder) Retry() int { return d.lastRetry }

// Line returns the number of lines read so far.
func (d *SSEDecoder) Line() int { return d.line }

// fill reads more data into the buffer, growing it up to the line limit.
// It reports false when nothing more can be read (d.rerr is then set).
func (d *SSEDecoder) fill() bool {
	if d.rerr != nil {
		return false
	}
	limit := d.maxLine() + 1 // a full line and its terminator's first byte
	if d.buf == nil {
		d.buf = make([]byte, min(64<<10, limit))
	}
	if d.start > 0 && d.start == d.end {
		d.start, d.end = 0, 0
	}
	if d.end == len(d.buf) {
		if d.start > 0 {
			d.end = copy(d.buf, d.buf[d.start:d.end])
			d.start = 0
		} else if len(d.buf) < limit {
			nb := make([]byte, min(2*len(d.buf), limit))
			d.end = copy(nb, d.buf[d.start:d.end])
			d.start = 0
			d.buf = nb
		} else {
			return false // caller reports the long line
		}
	}
	for range 100 {
		n, err := d.r.Read(d.buf[d.end:])
		if n < 0 || n > len(d.buf)-d.end {
			d.rerr = errors.New("agui: reader returned an invalid count")
			return false
		}
		d.end += n
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

// readLine returns the next line without its terminator. The slice is valid
// until the next call. At the end of the stream a final unterminated line is
// returned first, then the reader's error (io.EOF for a clean end).
func (d *SSEDecoder) readLine() ([]byte, error) {
	if !d.started {
		// Read only while what is buffered could still be a BOM, so that a
		// short first write is not held back.
		for d.end-d.start < len(bom) && bytes.HasPrefix(bom, d.buf[d.start:d.end]) && d.fill() {
		}
		if bytes.HasPrefix(d.buf[d.start:d.end], bom) {
			d.start += len(bom)
		}
		d.started = true
	}
	scanned := 0 // bytes of buf[start:end] known to hold no terminator
	for {
		b := d.buf[d.start:d.end]
		if d.pendingCR && len(b) > 0 {
			d.pendingCR = false
			if b[0] == '\n' {
				d.start++
				continue
			}
		}
		if i := bytes.IndexByte(b[scanned:], '\n'); i >= 0 {
			i += scanned
			if j := bytes.IndexByte(b[scanned:i], '\r'); j >= 0 {
				return d.takeLine(scanned+j, true)
			}
			return d.takeLine(i, false)
		}
		if j := bytes.IndexByte(b[scanned:], '\r'); j >= 0 {
			return d.takeLine(scanned+j, true)
		}
		scanned = len(b)
		if scanned > d.maxLine() {
			d.line++
			return nil, d.tooLong()
		}
		if !d.fill() {
			if d.rerr == nil {
				d.line++
				return nil, d.tooLong()
			}
			if d.start < d.end {
				d.line++
				line := d.buf[d.start:d.end]
				d.start = d.end
				return line, nil
			}
			return nil, d.rerr
		}
		// fill keeps offsets relative to d.start, so scanned stays valid.
	}
}

func (d *SSEDecoder) tooLong() error {
	return &ReadError{Line: d.line, Err: fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, d.maxLine())}
}

func (d *SSEDecoder) takeLine(i int, cr bool) ([]byte, error) {
	if i > d.maxLine() {
		d.line++
		return nil, d.tooLong()
	}
	line := d.buf[d.start : d.start+i]
	d.start += i + 1
	d.pendingCR = cr
	d.line++
	return line, nil
}

// Next returns the next event, or io.EOF at the end of the stream. The
// returned Data is valid until the next call. After an error other than
// io.EOF, Next keeps returning that error.
func (d *SSEDecoder) Next() (SSEMessage, error) {
	if d.err != nil {
		return SSEMessage{}, d.err
	}
	for {
		line, err := d.readLine()
		if err != nil {
			if err == io.EOF && d.hasData {
				m := d.dispatch()
				d.cut = true
				return m, nil
			}
			d.err = err
			return SSEMessage{}, err
		}
		if len(line) == 0 {
			if d.hasData {
				return d.dispatch(), nil
			}
			d.reset()
			continue
		}
		if line[0] == ':' {
			continue
		}
		if d.evLine == 0 {
			d.evLine = d.line
		}
		if err := d.field(line); err != nil {
			d.err = err
			return SSEMessage{}, err
		}
	}
}

func (d *SSEDecoder) field(line []byte) error {
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if len(d.data)+1+len(value) > d.maxLine() {
			return &ReadError{Line: d.line, Err: fmt.Errorf("%w: the event's data is over %d bytes", ErrLineTooLong, d.maxLine())}
		}
		if d.hasData {
			d.data = append(d.data, '\n')
		}
		d.data = append(d.data, value...)
		d.hasData = true
	case "event":
		d.event = append(d.event[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 && string(value) != d.id {
			d.id = string(value)
		}
	case "retry":
		if n, ok := parseRetry(value); ok {
			d.retry, d.lastRetry = n, n
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

func (d *SSEDecoder) dispatch() SSEMessage {
	m := SSEMessage{ID: d.id, Data: d.data, Retry: d.retry, Line: d.evLine}
	d.lastLine = d.evLine
	d.cut = false
	if len(d.event) > 0 {
		m.Event = string(d.event)
	}
	d.reset()
	return m
}

func (d *SSEDecoder) reset() {
	d.event = d.event[:0]
	d.data = d.data[:0]
	d.hasData = false
	d.retry = -1
	d.evLine = 0
}

// NextEvent returns the next event's data parsed as an AG-UI Event, or
// io.EOF at the end of the stream. The Event owns a copy of the data. A
// parse error is a *ReadError naming the event's line.
func (d *SSEDecoder) NextEvent() (Event, error) {
	m, err := d.Next()
	if err != nil {
		return Event{}, err
	}
	e, err := ParseEvent(d.arena.copy(m.Data))
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
