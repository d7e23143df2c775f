package agui

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/internal/bytearena"
	"github.com/aguitest/aguitest/internal/jsonx"
)

// Stream formats detected by Reader.
const (
	FormatJSON  = "json"  // a JSON array of events
	FormatJSONL = "jsonl" // JSON Lines, one event per line
	FormatSSE   = "sse"   // server-sent events, one event per "data:" block
	FormatProto = "proto" // protobuf frames (MediaTypeProto)
)

// ReadError reports bad input at a place in a named stream. Its text reads
// "name:line: message", or "name:line: element N: message" for an element
// of a JSON array; without a name, "line N: message". In a protobuf stream
// Line is the 1-based frame and the text reads "name: frame N at byte M:
// message".
type ReadError struct {
	Name   string // the stream's name, often a file name; may be ""
	Line   int    // 1-based line of the offending event, line or byte
	Format string // the stream's format; "json" adds the element index to the text
	Index  int    // index of the event in the stream (the array element for "json")
	Offset int64  // "proto": byte offset of the frame
	Err    error  // what is wrong
}

// Error returns "name:line: message", with "element N: " before the
// message for a JSON array.
func (e *ReadError) Error() string {
	var b strings.Builder
	if e.Format == FormatProto {
		if e.Name != "" {
			b.WriteString(e.Name)
			b.WriteString(": ")
		}
		fmt.Fprintf(&b, "frame %d at byte %d: %v", e.Line, e.Offset, e.Err)
		return b.String()
	}
	if e.Name != "" {
		b.WriteString(e.Name)
		b.WriteByte(':')
	} else {
		b.WriteString("line ")
	}
	b.WriteString(strconv.Itoa(e.Line))
	b.WriteString(": ")
	if e.Format == FormatJSON {
		b.WriteString("element ")
		b.WriteString(strconv.Itoa(e.Index))
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *ReadError) Unwrap() error { return e.Err }

// ReadEvents reads a whole stream of events in any format Reader detects.
// Errors are *ReadError values naming the line.
func ReadEvents(r io.Reader) ([]Event, error) {
	rd := NewReader(r, "")
	var events []Event
	for {
		e, err := rd.Next()
		if err == io.EOF {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		events = append(events, e)
	}
}

// Reader reads events one at a time from a stream whose format it detects
// from the first bytes that are not white space: "[" starts a JSON array of
// events, "{" starts JSON Lines, a zero byte starts a protobuf frame (its
// length prefix), other text is read as server-sent events, and a binary
// byte is an error. Memory holds one event at a time, whatever the
// stream's length.
//
// Every error is a *ReadError naming the stream and the line.
type Reader struct {
	// MaxLineSize bounds a line (JSON Lines, SSE) or an array element
	// (JSON); zero means DefaultMaxLineSize. Set it before the first call
	// to Next.
	MaxLineSize int
	// ContentType, when set before the first call to Next, is the
	// stream's Content-Type header: MediaTypeProto reads protobuf frames
	// whatever the bytes, as the reference client does, and
	// text/event-stream refuses a body of protobuf frames. Other values
	// leave the format to the content.
	ContentType string

	name     string
	br       *bufio.Reader
	format   string
	begun    bool
	err      error
	line     int // line of the last event returned
	lines    int // lines consumed so far (JSON, JSON Lines)
	index    int // events returned so far
	buf      []byte
	arena    bytearena.Arena
	proto    *protoDecoder
	frames   int    // SSE frames with data read so far
	frameBuf []byte // the data of the frame being read
	lineBuf  []byte // a line longer than the read buffer
	cut      bool   // the last SSE line had no line break
	// mem, when set, is the whole input (a block of ParallelReader): lines
	// are sliced from it and events keep its bytes, with no copy.
	mem    []byte
	memOff int
	opened bool // JSON: the opening '[' was read
	closed bool // JSON: the closing ']' was read
}

// NewReader returns a Reader for r; name is used in error messages.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{name: name, br: bufio.NewReaderSize(r, 64<<10)}
}

// Format returns the detected format: FormatJSON, FormatJSONL, FormatSSE or
// FormatProto, or "" before the first call to Next and for an empty stream.
func (r *Reader) Format() string { return r.format }

// Line returns the 1-based line where the last event returned by Next
// begins, for reporting a problem with that event as file:line; 0 in a
// protobuf stream, which has no lines.
func (r *Reader) Line() int { return r.line }

// Losses returns what the last call to Next could not carry into the
// event's JSON form (protobuf streams only; see protoDecoder.Losses).
func (r *Reader) Losses() []Loss {
	if r.proto != nil {
		return r.proto.Losses()
	}
	return nil
}

func (r *Reader) maxLine() int {
	if r.MaxLineSize > 0 {
		return r.MaxLineSize
	}
	return DefaultMaxLineSize
}

func (r *Reader) fail(line int, err error) error {
	var re *ReadError
	if errors.As(err, &re) {
		re.Name = r.name
		re.Format = r.format
		re.Index = r.index
		r.err = re
		return re
	}
	r.err = &ReadError{Name: r.name, Line: line, Format: r.format, Index: r.index, Err: err}
	return r.err
}

// Next returns the next event, or io.EOF at the end of the stream.
//
// A frame the reference client cannot read (SSE data that is not JSON, a
// JSON value that is not an event object) is a *FrameError: the stream
// goes on, and the next call reads on. After any other error Next keeps
// returning that error.
func (r *Reader) Next() (Event, error) {
	var e Event
	err := r.nextInto(&e)
	return e, err
}

// nextInto is Next, parsing into *dst (left zero on an error) rather than
// returning a copy: a block of a ParallelReader is parsed in place.
func (r *Reader) nextInto(dst *Event) error {
	e, err := r.next(dst)
	if err != nil {
		*dst = Event{}
	} else if e != dst {
		*dst = *e
	}
	return err
}

func (r *Reader) next(dst *Event) (*Event, error) {
	if r.err != nil {
		return nil, r.err
	}
	if !r.begun {
		r.begun = true
		if err := r.detect(); err != nil {
			if err == io.EOF {
				r.err = io.EOF
				return nil, io.EOF
			}
			return nil, r.fail(r.lines+1, err)
		}
	}
	var err error
	switch r.format {
	case FormatJSON:
		*dst, err = r.nextJSON()
	case FormatJSONL:
		err = r.nextJSONL(dst)
	case FormatProto:
		*dst, err = r.proto.Next()
	default:
		err = r.nextFrame(dst)
	}
	if err != nil {
		if err == io.EOF {
			r.err = io.EOF
			return nil, err
		}
		var fe *FrameError
		if errors.As(err, &fe) {
			fe.Name = r.name
			r.index++
			return nil, fe
		}
		return nil, r.fail(r.lines+1, err)
	}
	r.index++
	return dst, nil
}

// detect skips a byte order mark and finds the first byte that is not white
// space without consuming it. Whole lines of white space before it are
// dropped (they are counted); the start of the line it is on is kept, since
// a line that starts with a space is not an SSE data line. What is decided
// never depends on how the input's bytes arrive.
func (r *Reader) detect() error {
	if done, err := r.detectProto(); done || err != nil {
		return err
	}
	if b, _ := r.br.Peek(len(bom)); bytes.Equal(b, bom) {
		r.br.Discard(len(bom))
	}
	// b[:blank] is white space with no line break, scanned already: each
	// byte is looked at once however the input's bytes arrive (a scan
	// from the start at every read made blanks that come a few at a time
	// cost their square).
	want, blank := 1, 0
	for {
		b, err := r.br.Peek(want)
		if len(b) < want && err != nil {
			if len(b) == 0 || err != io.EOF {
				return err
			}
		}
		b, _ = r.br.Peek(r.br.Buffered())
		i := blank
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i < len(b) {
			c := b[i]
			if k := bytes.LastIndexByte(b[:i], '\n'); k >= 0 {
				// Drop the lines of white space; keep the start of this one.
				r.lines += bytes.Count(b[:k+1], []byte{'\n'})
				r.br.Discard(k + 1)
			}
			switch c {
			case '[':
				r.format = FormatJSON
			case '{':
				r.format = FormatJSONL
			default:
				if err := notText(c); err != nil {
					return err
				}
				r.format = FormatSSE
			}
			return nil
		}
		if err == io.EOF {
			return io.EOF // nothing but white space
		}
		if k := bytes.LastIndexByte(b[blank:], '\n'); k >= 0 {
			k += blank
			r.lines += bytes.Count(b[blank:k+1], []byte{'\n'})
			r.br.Discard(k + 1)
			want, blank = 1, 0
			continue
		}
		if len(b) == r.br.Size() {
			r.br.Discard(len(b)) // a buffer of blanks without a line break
			want, blank = 1, 0
			continue
		}
		want, blank = len(b)+1, len(b)
	}
}

// readLine returns the next line including its LF, if any. The slice is
// valid until the next call.
func (r *Reader) readLine() ([]byte, error) {
	line, err := r.readSlice()
	if err == bufio.ErrBufferFull {
		r.buf = append(r.buf[:0], line...)
		for err == bufio.ErrBufferFull && len(r.buf) <= r.maxLine()+1 {
			line, err = r.br.ReadSlice('\n')
			r.buf = append(r.buf, line...)
		}
		line = r.buf
	}
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
	}
	if n > r.maxLine() {
		return nil, &ReadError{Line: r.lines + 1, Err: fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, r.maxLine())}
	}
	return line, err
}

func (r *Reader) nextJSONL(dst *Event) error {
	for {
		line, err := r.readLine()
		if len(line) == 0 {
			if err == nil {
				err = io.ErrNoProgress
			}
			return err
		}
		if err != nil && err != io.EOF {
			return err
		}
		r.lines++
		text := trimJSONSpace(line)
		if len(text) == 0 {
			continue
		}
		perr := dst.parse(r.keep(text))
		if perr == ErrNotObject || perr == ErrNoType || perr == nil && len(dst.typ) == 0 {
			r.line = r.lines
			_, fe := frameEvent(text)
			fe.Line, fe.Frame = r.lines, r.index+1
			return fe
		}
		if perr != nil {
			if line[len(line)-1] != '\n' && incomplete(text) {
				perr = fmt.Errorf("%w: %w", errTruncatedEvent, perr)
			}
			return &ReadError{Line: r.lines, Err: perr}
		}
		r.line = r.lines
		return nil
	}
}

// skipSpaceJSON consumes white space, counting lines, and returns the next
// byte without consuming it.
func (r *Reader) skipSpaceJSON() (byte, error) {
	for {
		if _, err := r.br.Peek(1); err != nil {
			return 0, err
		}
		b, _ := r.br.Peek(r.br.Buffered())
		i := 0
		for i < len(b) && isSpace(b[i]) {
			if b[i] == '\n' {
				r.lines++
			}
			i++
		}
		r.br.Discard(i)
		if i < len(b) {
			return b[i], nil
		}
	}
}

func (r *Reader) nextJSON() (Event, error) {
	if r.closed {
		return Event{}, io.EOF
	}
	c, err := r.skipSpaceJSON()
	if err != nil {
		return Event{}, r.truncatedArray(err)
	}
	if !r.opened {
		r.br.Discard(1) // detect saw the '['
		r.opened = true
		if c, err = r.skipSpaceJSON(); err != nil {
			return Event{}, r.truncatedArray(err)
		}
		if c == ']' {
			return Event{}, r.closeArray()
		}
	} else {
		switch c {
		case ']':
			return Event{}, r.closeArray()
		case ',':
			r.br.Discard(1)
			if c, err = r.skipSpaceJSON(); err != nil {
				return Event{}, r.truncatedArray(err)
			}
			if c == ']' {
				return Event{}, &ReadError{Line: r.lines + 1, Err: errors.New("trailing comma before ]")}
			}
		default:
			return Event{}, &ReadError{Line: r.lines + 1, Err: fmt.Errorf("expected , or ] after element %d, found %s", r.index-1, quoteByte(c))}
		}
	}
	start := r.lines + 1
	elem, err := r.readElement()
	if err != nil {
		return Event{}, &ReadError{Line: start, Err: err}
	}
	e, err := ParseEvent(elem)
	if err == ErrNotObject || err == ErrNoType || err == nil && len(e.typ) == 0 {
		r.line = start
		_, fe := frameEvent(elem)
		fe.Line, fe.Frame = start, r.index+1
		return Event{}, fe
	}
	if err != nil {
		line := start
		var se *SyntaxError
		if errors.As(err, &se) && se.Offset <= len(elem) {
			line += bytes.Count(elem[:se.Offset], []byte{'\n'})
		}
		return Event{}, &ReadError{Line: line, Err: err}
	}
	r.line = start
	return e, nil
}

func (r *Reader) truncatedArray(err error) error {
	if err == io.EOF {
		return &ReadError{Line: r.lines + 1, Err: errors.New("truncated: the input ends before the array's closing ]")}
	}
	return err
}

// closeArray consumes the closing ']' and checks that only white space
// follows.
func (r *Reader) closeArray() error {
	r.br.Discard(1)
	r.closed = true
	c, err := r.skipSpaceJSON()
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		return err
	}
	return &ReadError{Line: r.lines + 1, Err: fmt.Errorf("unexpected %s after the array's closing ]", quoteByte(c))}
}

// trimJSONSpace removes the white space JSON allows around a value, and
// only that.
func trimJSONSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

var errTruncatedEvent = errors.New("truncated: the input ends inside this event")

// incomplete reports whether b ends inside a string or with a bracket
// still open: the sign of an event cut off by the end of the input.
func incomplete(b []byte) bool {
	_, open := jsonx.Nesting(b)
	return open
}

func quoteByte(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return strconv.QuoteRune(rune(c))
}

// readElement consumes one array element and returns its bytes, finding its
// end by bracket depth and string state. It does not validate: ParseEvent
// does that on the result.
func (r *Reader) readElement() ([]byte, error) {
	var (
		elem   []byte
		depth  int
		inStr  bool
		esc    bool
		scalar bool
	)
	for {
		if _, err := r.br.Peek(1); err != nil {
			if err == io.EOF {
				if scalar && !inStr {
					return elem, nil // ParseEvent reports what it is
				}
				return nil, errors.New("truncated: the input ends inside this element")
			}
			return nil, err
		}
		b, _ := r.br.Peek(r.br.Buffered())
		end := -1
		consumed := len(b)
	scan:
		for i := 0; i < len(b); i++ {
			c := b[i]
			if len(elem) == 0 && i == 0 {
				switch c {
				case '{', '[':
					depth = 1
					continue
				case '"':
					inStr = true
					continue
				default:
					scalar = true
				}
			}
			if inStr {
				if esc {
					esc = false
					continue
				}
				// Jump to the string's next quote or backslash.
				rest := b[i:]
				q := bytes.IndexByte(rest, '"')
				if q >= 0 {
					rest = rest[:q]
				}
				if k := bytes.IndexByte(rest, '\\'); k >= 0 {
					i += k
					esc = true
					continue
				}
				if q < 0 {
					break scan
				}
				i += q
				inStr = false
				if depth == 0 {
					end = i + 1
					break scan
				}
				continue
			}
			switch c {
			case '"':
				inStr = true
			case '{', '[':
				depth++
			case '}', ']':
				if depth == 0 {
					end = i // a scalar ends at the array's ]
					break scan
				}
				depth--
				if depth == 0 {
					end = i + 1
					break scan
				}
			case ',', ' ', '\t', '\n', '\r':
				if depth == 0 {
					end = i
					break scan
				}
			}
		}
		if end >= 0 {
			consumed = end
		}
		r.lines += bytes.Count(b[:consumed], []byte{'\n'})
		if elem == nil && end >= 0 {
			elem = make([]byte, consumed) // the common case: one exact allocation
			copy(elem, b)
		} else {
			elem = append(elem, b[:consumed]...)
		}
		r.br.Discard(consumed)
		if end == 0 && len(elem) == 0 {
			return nil, fmt.Errorf("unexpected %s", quoteByte(b[0]))
		}
		if len(elem) > r.maxLine() {
			return nil, fmt.Errorf("element longer than %d bytes", r.maxLine())
		}
		if end >= 0 {
			return elem, nil
		}
	}
}

// readSlice is bufio.Reader.ReadSlice('\n') on the input, or on mem.
func (r *Reader) readSlice() ([]byte, error) {
	if r.mem == nil {
		return r.br.ReadSlice('\n')
	}
	rest := r.mem[r.memOff:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		r.memOff += i + 1
		return rest[:i+1], nil
	}
	r.memOff = len(r.mem)
	return rest, io.EOF
}

// keep returns b for an event to hold: b itself when it is a slice of mem,
// a copy otherwise (the read buffer is reused).
func (r *Reader) keep(b []byte) []byte {
	if r.mem != nil && len(b) > 0 && cap(r.mem) >= cap(b) && &r.mem[:cap(r.mem)][cap(r.mem)-cap(b)] == &b[:1][0] {
		return b[:len(b):len(b)]
	}
	return r.arena.Copy(b)
}

// detectProto chooses protobuf by the content type or by the stream's
// first byte (a frame's length prefix starts with a zero byte).
func (r *Reader) detectProto() (bool, error) {
	head, err := r.br.Peek(1)
	if err != nil && len(head) == 0 {
		return false, err
	}
	enc, ok := EncodingOf(r.ContentType)
	frames := head[0] == 0
	switch {
	case ok && enc == EncodingSSE && frames:
		return false, errors.New("the body holds protobuf frames but its Content-Type is text/event-stream: the reference client would read no events")
	case ok && enc == EncodingProto, frames:
		r.format = FormatProto
		r.proto = newProtoDecoder(r.br)
		return true, nil
	}
	return false, nil
}

// notText rejects a first byte that starts no text stream.
func notText(c byte) error {
	if c < 0x20 && !isSpace(c) || c == 0x7f || c >= 0x80 && c < 0xC2 || c > 0xF4 {
		return fmt.Errorf("not an AG-UI stream: it starts with byte 0x%02x, which begins neither JSON, server-sent events nor a protobuf frame", c)
	}
	return nil
}
