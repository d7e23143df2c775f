package agui

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/aguitest/aguitest/internal/jsonx"
)

// SSE framing as HttpAgent of @ag-ui/client 1.0.0 reads a response: the
// body is decoded as UTF-8 (a leading byte order mark dropped, malformed
// bytes replaced by U+FFFD), split into frames on "\n\n" only, and each
// frame's lines split on "\n"; the lines that start with "data:" (one
// space after the colon dropped) are joined with "\n" and parsed as JSON,
// which must be an object with a non-empty string "type". Other fields
// (event:, id:, retry:) and comments are ignored; so is a frame without
// data. The last frame counts even without a blank line after it.
//
// This is not the WHATWG event-stream parser of browsers (SSEDecoder):
// there a lone CR or CRLF ends a line, and a stream framed that way holds
// events; the reference client sees one frame whose data is not JSON.

// FrameError reports a frame of a stream that holds no event the client
// can read. Reader.Next returns it and stays usable: the next call reads
// the next frame. Verifier.PushFrame turns it into a violation.
type FrameError struct {
	Name  string // the stream's name, often a file name; may be ""
	Line  int    // 1-based line where the frame begins
	Frame int    // 1-based number of the frame among the frames with data (SSE), or the element (JSON, JSON Lines)
	Rule  Rule   // RuleFrameJSON, RuleFrameObject, RuleFrameType, RuleFrameSize or RuleFrameProto
	Msg   string // what the client says of it, and what was received
	// Offset is the byte offset of a protobuf frame, whose stream has no
	// lines (Line is then 0).
	Offset int64

	// data is the frame's JSON for RuleFrameObject and RuleFrameType,
	// which @ag-ui/client 0.0.59 reads as a schema error of its own words.
	data []byte
}

// Error returns "name:line: frame N: rule: message", or for a protobuf
// frame "name: frame N at byte M: rule: message".
func (e *FrameError) Error() string {
	if e.Line == 0 {
		where := fmt.Sprintf("frame %d at byte %d", e.Frame, e.Offset)
		if e.Name != "" {
			where = e.Name + ": " + where
		}
		return fmt.Sprintf("%s: %s: %s", where, e.Rule, e.Msg)
	}
	where := "line " + strconv.Itoa(e.Line)
	if e.Name != "" {
		where = e.Name + ":" + strconv.Itoa(e.Line)
	}
	return fmt.Sprintf("%s: frame %d: %s: %s", where, e.Frame, e.Rule, e.Msg)
}

// maxFrame is the client's limit on the text it buffers while waiting for
// a frame's end, in UTF-16 code units.
const maxFrame = 10 * 1024 * 1024

// nextFrame reads the next frame with data and returns its event, or a
// *FrameError for a frame the client cannot read.
func (r *Reader) nextFrame(dst *Event) error {
	for {
		data, line, size, err := r.readFrame()
		if data == nil && !size && err != nil {
			return err
		}
		if size {
			r.frames++
			return &FrameError{Line: line, Frame: r.frames, Rule: RuleFrameSize,
				Msg: fmt.Sprintf("SSE buffer size exceeded maximum limit of 10 MB (the frame at line %d has no blank line within 10 MiB)", line)}
		}
		if data == nil {
			continue // a frame without data lines
		}
		r.frames++
		r.line = line
		if ferr := frameEventInto(dst, r.keep(data)); ferr != nil {
			ferr.Line, ferr.Frame = line, r.frames
			if ferr.Rule == RuleFrameJSON && r.cut && incomplete(data) {
				ferr.Msg = errTruncatedEvent.Error() + ": " + ferr.Msg
			}
			return ferr
		}
		return nil
	}
}

// frameEvent parses a frame's data as the client does.
func frameEvent(data []byte) (Event, *FrameError) {
	var e Event
	fe := frameEventInto(&e, data)
	return e, fe
}

// frameEventInto is frameEvent parsing into *e.
func frameEventInto(e *Event, data []byte) *FrameError {
	if !utf8.Valid(data) {
		data = toWellFormed(data)
	}
	err := e.parse(data)
	switch {
	case err == nil:
		if len(e.typ) == 0 {
			return &FrameError{Rule: RuleFrameType, Msg: "Invalid event: the frame carries no event type: " + clip(data), data: bytes.Clone(data)}
		}
		return nil
	case err == ErrNotObject:
		return &FrameError{Rule: RuleFrameObject, Msg: "Invalid event: the frame is not a JSON object: " + clip(data), data: bytes.Clone(data)}
	case err == ErrNoType:
		return &FrameError{Rule: RuleFrameType, Msg: "Invalid event: the frame carries no event type: " + clip(data), data: bytes.Clone(data)}
	}
	return &FrameError{Rule: RuleFrameJSON, Msg: fmt.Sprintf("the frame's data is not JSON (%v): %s", err, clip(data))}
}

// readFrame reads the next frame: the lines up to an empty line (a frame
// ends at "\n\n"; lines are split on "\n" alone) or the end. It returns
// the joined data lines (nil when the frame has none), the line the frame
// begins on, and whether the frame outgrew the client's buffer. err is
// io.EOF when no frame is left.
func (r *Reader) readFrame() (data []byte, line int, tooBig bool, err error) {
	started, have := false, false
	var single []byte // the data of a frame's only data line, in place
	total := 0        // the frame's length in bytes
	counted := 0      // bytes of frameBuf whose UTF-16 length is in units
	units := 0        // UTF-16 length of frameBuf[:counted]
	r.frameBuf = r.frameBuf[:0]
	r.cut = false
	for {
		l, nl, long, rerr := r.rawLine()
		if rerr != nil && rerr != io.EOF {
			return nil, line, false, rerr
		}
		if len(l) == 0 && !nl && !long {
			// The end of the input.
			if !started {
				return nil, line, false, io.EOF
			}
			err = io.EOF
			break
		}
		if len(l) == 0 && !long {
			if started {
				break // "\n\n": the frame ends
			}
			continue // empty lines between frames
		}
		if !started {
			started = true
			line = r.lines
			if !nl {
				line = r.lines + 1
			}
		}
		if long {
			tooBig = true
		}
		total += len(l) + 1
		isData := bytes.HasPrefix(l, []byte("data:"))
		if !tooBig && isData {
			d := l[5:]
			if len(d) > 0 && d[0] == ' ' {
				d = d[1:]
			}
			if have {
				if single != nil {
					r.frameBuf = append(r.frameBuf[:0], single...)
					single = nil
				}
				r.frameBuf = append(r.frameBuf, '\n')
				r.frameBuf = append(r.frameBuf, d...)
			} else if r.mem != nil {
				single = d
			} else {
				r.frameBuf = append(r.frameBuf, d...)
			}
			have = true
		}
		if !tooBig && total > maxFrame {
			if single != nil {
				r.frameBuf = append(r.frameBuf[:0], single...)
				single = nil
			}
			// Only past 10 MiB of bytes can the UTF-16 length pass the
			// limit: count it now, for the data kept (other lines count
			// as bytes).
			units += utf16Len(r.frameBuf[counted:])
			counted = len(r.frameBuf)
			tooBig = units+total-len(r.frameBuf) > maxFrame
		}
		if rerr == io.EOF {
			r.cut = !nl
			err = io.EOF
			break
		}
	}
	if have && !tooBig {
		data = r.frameBuf
		if single != nil {
			data = single
		}
		if data == nil {
			data = []byte{} // "data:" alone: data, empty
		}
	}
	if data != nil || tooBig {
		err = nil // the last frame; io.EOF comes on the next call
	}
	return data, line, tooBig, err
}

// rawLine reads one line without its "\n"; nl says there was one. A line
// too long for any frame the client accepts (over 30 MiB, more than 10 Mi
// UTF-16 code units whatever it holds) is skipped, and long says so.
func (r *Reader) rawLine() (line []byte, nl, long bool, err error) {
	l, err := r.readSlice()
	if err == bufio.ErrBufferFull {
		r.lineBuf = append(r.lineBuf[:0], l...)
		for err == bufio.ErrBufferFull {
			l, err = r.br.ReadSlice('\n')
			if !long {
				r.lineBuf = append(r.lineBuf, l...)
				if len(r.lineBuf) > r.maxLine() || len(r.lineBuf) > 3*maxFrame+4 {
					if len(r.lineBuf) <= maxFrame || utf16Len(r.lineBuf) <= maxFrame {
						// Within the client's limit, beyond ours.
						return nil, false, false, &ReadError{Line: r.lines + 1, Err: fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, r.maxLine())}
					}
					long = true
				}
			}
		}
		l = r.lineBuf
		if long {
			l = l[:0]
		}
	}
	if len(l) > 0 && l[len(l)-1] == '\n' {
		l, nl = l[:len(l)-1], true
	} else if long && err == nil {
		nl = true
	}
	if !long && len(l) > r.maxLine() {
		return nil, false, false, &ReadError{Line: r.lines + 1, Err: fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, r.maxLine())}
	}
	if nl {
		r.lines++
	}
	return l, nl, long, err
}

// utf16Len is the length of UTF-8 text in UTF-16 code units, as a
// JavaScript string holds it (a malformed byte is one U+FFFD).
func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf {
			n++
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		b = b[size:]
	}
	return n
}

// toWellFormed decodes b as the WHATWG UTF-8 decoder does with
// replacement (see jsonx.ToWellFormed).
func toWellFormed(b []byte) []byte { return jsonx.ToWellFormed(b) }
