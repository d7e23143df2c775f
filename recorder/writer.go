package recorder

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"
)

// Writer appends records to a recording. Each call to Write turns its
// records into whole lines and hands them to the underlying writer in a
// single Write call, so a crash leaves whole records followed by at most
// one cut line, which Reader reports as truncation.
//
// A Writer is safe for concurrent use: many runs may write into one file,
// their records interleaved line by line.
type Writer struct {
	mu     sync.Mutex
	w      io.Writer
	c      io.Closer
	buf    []byte
	err    error
	closed bool
}

// NewWriter returns a Writer on w and writes the header record. The header's
// Format and Version are filled in; Created defaults to the current time.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	wr := &Writer{w: w}
	if c, ok := w.(io.Closer); ok {
		wr.c = c
	}
	h.Format, h.Version = Format, Version
	if h.Created.IsZero() {
		h.Created = time.Now().UTC()
	}
	if err := wr.Write(Record{Kind: KindHeader, Header: &h}); err != nil {
		return nil, err
	}
	return wr, nil
}

// openFile opens a recording file for Create; tests replace it to play a
// full disk.
var openFile = func(path string) (io.WriteCloser, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
}

// Create creates (or truncates) the file at path and returns a Writer on it,
// its header written. Close closes the file. When the header cannot be
// written (a full disk), the file is removed: it would hold nothing.
func Create(path string, h Header) (*Writer, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	w, err := NewWriter(f, h)
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return w, nil
}

// Write appends records, in order, with one call to the underlying writer.
// After the underlying writer fails, every call returns that error.
func (w *Writer) Write(recs ...Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errClosed
	}
	b := w.buf[:0]
	for _, r := range recs {
		var err error
		if b, err = appendRecord(b, r); err != nil {
			// A record that does not encode is the caller's problem and
			// does not poison the Writer.
			return err
		}
	}
	if cap(b) <= 1<<20 {
		w.buf = b
	}
	if len(b) == 0 {
		return nil
	}
	return w.writeLocked(b)
}

// writeLines writes encoded records with one call.
func (w *Writer) writeLines(b []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errClosed
	}
	return w.writeLocked(b)
}

// writeLocked writes b with one call; w.mu is held. A failure is kept:
// every later call returns it.
func (w *Writer) writeLocked(b []byte) error {
	if _, err := w.w.Write(b); err != nil {
		w.err = err
		return err
	}
	return nil
}

// Close closes the underlying writer when it is an io.Closer. Writes after
// Close fail.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if w.c != nil {
		return w.c.Close()
	}
	return nil
}

var errClosed = errors.New("recorder: write to a closed Writer")
