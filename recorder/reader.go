package recorder

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// DefaultMaxLineSize is the longest record a Reader accepts when its
// MaxLineSize is zero.
const DefaultMaxLineSize = 64 << 20

// maxHeaderLine bounds the first line: a header is a few hundred bytes.
const maxHeaderLine = 64 << 10

var errHeaderTooLong = fmt.Errorf("%w: its first line is longer than %d bytes", ErrNotRecording, maxHeaderLine)

// ErrTruncated is returned (wrapped in an *Error) for a last line cut short,
// as a crash while writing leaves it. Everything before it was returned.
var ErrTruncated = errors.New("recording is truncated: the last line is incomplete")

// ErrNotRecording is returned (wrapped in an *Error) when the first line is
// not a recording header.
var ErrNotRecording = errors.New("not an aguitest recording (the first line is not its header)")

// Error reports a bad line of a recording as "name:line: message".
type Error struct {
	Name string // the recording's name, usually its file name; may be ""
	Line int    // 1-based
	Err  error
}

// Error returns "name:line: message".
func (e *Error) Error() string {
	if e.Name == "" {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.Name, e.Line, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// VersionError says the recording was written by a newer format version.
type VersionError struct {
	Version int // the recording's
}

// Error says which version the recording has and which this package reads.
func (e *VersionError) Error() string {
	return fmt.Sprintf("recording format version %d is newer than this aguitest (supports %d)", e.Version, Version)
}

// Reader reads a recording one record at a time. Memory holds one line, so
// it stays flat whatever the file's size.
//
// Next returns the header first. A corrupt line yields an *Error naming it
// and reading goes on with the next line; records of unknown kinds are
// returned as they are (Record.Raw) and counted. A last line cut short yields
// an *Error wrapping ErrTruncated, then io.EOF. A missing header or a newer
// format version stops the Reader: it keeps returning that error.
//
// A Reader belongs to one goroutine at a time.
type Reader struct {
	// MaxLineSize bounds a line; zero means DefaultMaxLineSize. Longer
	// lines are skipped with an error. Set it before the first Next.
	MaxLineSize int

	br        *bufio.Reader
	c         io.Closer
	name      string
	line      int
	buf       []byte
	header    *Header
	unknown   int
	truncated bool
	fatal     error
	eof       bool
	parser    recordParser
	pos       int64 // bytes read up to the end of the last line
}

// NewReader returns a Reader on r; name is used in errors (often the file
// name).
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), name: name}
}

// Open opens the recording at path. Close closes the file.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r := NewReader(f, path)
	r.c = f
	return r, nil
}

// Close closes the file opened by Open.
func (r *Reader) Close() error {
	if r.c != nil {
		return r.c.Close()
	}
	return nil
}

// Name returns the name given to NewReader or the path given to Open.
func (r *Reader) Name() string { return r.name }

// Line returns the 1-based line of the last record or error returned.
func (r *Reader) Line() int { return r.line }

// Offset returns the byte offset, from the start of what the Reader reads,
// of the end of the last line read: where the next record starts.
func (r *Reader) Offset() int64 { return r.pos }

// Header returns the recording's header, or nil before it was read.
func (r *Reader) Header() *Header { return r.header }

// Unknown returns the number of records of unknown kinds read so far.
func (r *Reader) Unknown() int { return r.unknown }

// Err returns the error that stopped the Reader (not a recording, a newer
// format version), or nil. After it, Next returns only that error.
func (r *Reader) Err() error { return r.fatal }

// Truncated reports whether the last line was found cut short.
func (r *Reader) Truncated() bool { return r.truncated }

func (r *Reader) fail(err error) error {
	return &Error{Name: r.name, Line: r.line, Err: err}
}

// readLine returns the next line without its "\n", whether it had one, and
// io.EOF at the end. A line over the limit is skipped.
func (r *Reader) readLine() (b []byte, complete bool, err error) {
	max := r.MaxLineSize
	if max <= 0 {
		max = DefaultMaxLineSize
	}
	r.buf = r.buf[:0]
	tooLong := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.pos += int64(len(chunk))
		if r.header == nil && len(r.buf)+len(chunk) > maxHeaderLine {
			// No header is this long: not a recording (/dev/zero, a
			// binary file), said at once rather than read to its end.
			r.line++
			return nil, true, errHeaderTooLong
		}
		if !tooLong {
			if len(r.buf)+len(chunk) > max+1 {
				tooLong = true
				r.buf = r.buf[:0]
			} else {
				r.buf = append(r.buf, chunk...)
			}
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			r.line++
			if tooLong {
				return nil, true, fmt.Errorf("record longer than %d bytes", max)
			}
			return r.buf[:len(r.buf)-1], true, nil
		case io.EOF:
			if len(r.buf) == 0 && !tooLong {
				return nil, false, io.EOF
			}
			r.line++
			if tooLong {
				return nil, false, ErrTruncated
			}
			return r.buf, false, nil
		default:
			return nil, false, err
		}
	}
}

// Next returns the next record, or io.EOF at the end of the recording.
func (r *Reader) Next() (Record, error) {
	if r.fatal != nil {
		return Record{}, r.fatal
	}
	for {
		if r.eof {
			return Record{}, io.EOF
		}
		b, complete, err := r.readLine()
		if err == io.EOF {
			r.eof = true
			if r.header == nil {
				r.line++
				r.fatal = r.fail(ErrNotRecording)
				return Record{}, r.fatal
			}
			return Record{}, io.EOF
		}
		if err == ErrTruncated {
			r.eof, r.truncated = true, true
			return Record{}, r.fail(err)
		}
		if err == errHeaderTooLong {
			r.fatal = r.fail(err)
			return Record{}, r.fatal
		}
		if err != nil && !complete {
			r.fatal = r.fail(err)
			return Record{}, r.fatal
		}
		if err != nil {
			return Record{}, r.fail(err)
		}
		if r.header == nil {
			return r.readHeader(b, complete)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			if !complete {
				r.eof = true
			}
			continue
		}
		rec, err := r.parser.parse(b)
		if err != nil {
			if !complete {
				r.eof, r.truncated = true, true
				return Record{}, r.fail(ErrTruncated)
			}
			return Record{}, r.fail(fmt.Errorf("invalid record: %w", err))
		}
		if !complete {
			r.eof = true
		}
		rec.Line = r.line
		switch rec.Kind {
		case KindHeader:
			// A second header (files concatenated): check its version too.
			if rec.Header.Version > Version {
				r.fatal = r.fail(&VersionError{Version: rec.Header.Version})
				return Record{}, r.fatal
			}
		case KindEvent, KindRequest, KindProvider, KindEnd, KindGap:
		default:
			r.unknown++
		}
		return rec, nil
	}
}

func (r *Reader) readHeader(b []byte, complete bool) (Record, error) {
	b = bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
	rec, err := r.parser.parse(b)
	if err != nil || rec.Kind != KindHeader || rec.Header.Format != Format {
		if err != nil && !complete && bytes.HasPrefix(b, []byte(`{"kind":"header"`)) {
			r.eof, r.truncated = true, true
			return Record{}, r.fail(ErrTruncated)
		}
		r.fatal = r.fail(ErrNotRecording)
		return Record{}, r.fatal
	}
	if rec.Header.Version > Version {
		r.fatal = r.fail(&VersionError{Version: rec.Header.Version})
		return Record{}, r.fatal
	}
	if rec.Header.Version < 1 {
		r.fatal = r.fail(fmt.Errorf("%w: format version %d is not valid", ErrNotRecording, rec.Header.Version))
		return Record{}, r.fatal
	}
	if !complete {
		r.eof = true
	}
	r.header = rec.Header
	rec.Line = r.line
	return rec, nil
}

// IsRecording reports whether b, the start of a file, begins with a
// recording header line. It needs the whole first line.
func IsRecording(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	rec, err := parseRecord(b)
	return err == nil && rec.Kind == KindHeader && rec.Header.Format == Format
}
