package agui

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"
)

// ParallelReader reads a stream exactly as Reader does (the same events,
// lines, frame errors and read errors, in the same order), parsing on
// several goroutines: one goroutine cuts the input into blocks of whole
// records (lines of JSON Lines, frames of server-sent events), workers
// parse the blocks, and Next hands out their events in stream order.
// Memory holds a few blocks, whatever the stream's length. A JSON array is
// read by one goroutine, as Reader reads it, and so is a stream of
// protobuf frames.
//
// Close stops the goroutines of a reader abandoned before the end.
type ParallelReader struct {
	// BlockSize is the size of the blocks handed to the workers; zero
	// means 256 KiB. Set it before the first call to Next.
	BlockSize int
	// MaxLineSize is Reader.MaxLineSize.
	MaxLineSize int
	// Recycle lets the reader reuse the memory of a block once Next has
	// handed out its last event: an event (its bytes, its fields) is then
	// valid only until Next returns an event of a later block, so a caller
	// that keeps events must copy them. A Verifier keeps nothing of the
	// events it is given, and verifying with Recycle set saves the memory
	// traffic of a fresh block each time. Set it before the first Next.
	Recycle bool

	name    string
	src     io.Reader
	workers int
	begun   bool

	seq     *Reader // the whole stream, when it is read by one goroutine
	format  string
	results chan chan blockResult
	free    chan []byte // blocks handed back to the cutter (Recycle)
	stop    chan struct{}
	done    sync.WaitGroup
	cur     blockResult
	pos     int
	line    int
	index   int // events and frame errors returned so far
	frames  int // SSE frames with data before the current block
	err     error
}

// NewParallelReader returns a ParallelReader for r with the given number
// of parsing goroutines (zero means GOMAXPROCS); name is used in error
// messages.
func NewParallelReader(r io.Reader, name string, workers int) *ParallelReader {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &ParallelReader{name: name, src: r, workers: workers}
}

type blockItem struct {
	e    Event
	line int
	err  error
}

type blockResult struct {
	data   []byte // the block's bytes, which its events point into
	items  []blockItem
	frames int // SSE frames with data in the block
	last   bool
}

type block struct {
	data    []byte
	line    int // lines before the block
	last    bool
	readErr error // the input failed after this block
	result  chan blockResult
}

// itemPool recycles the slices of parsed blocks.
var itemPool = sync.Pool{New: func() any { return make([]blockItem, 0, 4096) }}

// maxBlock bounds a block: a record longer than this (no line or frame
// boundary in 64 MiB) is cut anyway, where the Reader's own limits on a
// line or a frame have long been passed.
const maxBlock = 64 << 20

// Format returns the detected format, as Reader.Format does.
func (p *ParallelReader) Format() string {
	if p.seq != nil {
		return p.seq.Format()
	}
	return p.format
}

// Line returns the 1-based line where the last event returned begins.
func (p *ParallelReader) Line() int {
	if p.seq != nil {
		return p.seq.Line()
	}
	return p.line
}

// Losses returns what the last call to Next could not carry into the
// event's JSON form, as Reader.Losses does (protobuf streams, which are
// read by one goroutine).
func (p *ParallelReader) Losses() []Loss {
	if p.seq != nil {
		return p.seq.Losses()
	}
	return nil
}

// Close stops the reader's goroutines. Next returns io.EOF after it.
func (p *ParallelReader) Close() {
	if p.stop != nil {
		select {
		case <-p.stop:
		default:
			close(p.stop)
		}
		// Let the cutter finish: drain what it still sends.
		go func() {
			for range p.results {
			}
		}()
		p.done.Wait()
	}
	if p.err == nil {
		p.err = io.EOF
	}
}

func (p *ParallelReader) blockSize() int {
	if p.BlockSize > 0 {
		return p.BlockSize
	}
	return 256 << 10
}

// begin detects the format and starts the goroutines.
func (p *ParallelReader) begin() {
	p.begun = true
	br := bufio.NewReaderSize(p.src, max(p.blockSize(), 64<<10))
	head := &Reader{name: p.name, MaxLineSize: p.MaxLineSize, br: br, begun: true}
	if err := head.detect(); err != nil || head.format == FormatJSON || head.format == FormatProto || p.workers < 2 {
		// Nothing to cut, or one goroutine anyway: read as Reader does.
		switch {
		case err == io.EOF:
			head.err = io.EOF
		case err != nil:
			head.fail(head.lines+1, err)
		}
		p.seq = head
		return
	}
	p.format = head.format
	p.results = make(chan chan blockResult, p.workers+1)
	if p.Recycle {
		p.free = make(chan []byte, p.workers+2)
	}
	p.stop = make(chan struct{})
	work := make(chan block, p.workers)
	p.done.Add(1 + p.workers)
	for range p.workers {
		go func() {
			defer p.done.Done()
			sub := &Reader{name: p.name, MaxLineSize: p.MaxLineSize, format: p.format, begun: true}
			for b := range work {
				b.result <- sub.parseBlock(b)
			}
		}()
	}
	go func() {
		defer p.done.Done()
		defer close(work)
		defer close(p.results)
		p.cut(br, head.lines, work)
	}()
}

// cut reads the input into blocks of whole records and hands them out.
func (p *ParallelReader) cut(br *bufio.Reader, line int, work chan<- block) {
	sep := []byte("\n")
	if p.format == FormatSSE {
		sep = []byte("\n\n")
	}
	var carry []byte
	for {
		buf := p.newBlock(max(p.blockSize(), 2*len(carry)))
		buf = append(buf, carry...)
		eof := false
		var readErr error
		for len(buf) < cap(buf) && !eof {
			n, err := br.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err != nil {
				// The rest goes to the workers as the last block, and a
				// failing input's error after it.
				eof = true
				if err != io.EOF {
					readErr = err
				}
			}
		}
		cutAt := len(buf)
		if !eof {
			i := bytes.LastIndex(buf, sep)
			if i < 0 && len(buf) < maxBlock {
				// No whole record yet: read on into a larger block.
				carry = buf
				continue
			}
			if i >= 0 {
				cutAt = i + len(sep)
			}
		}
		data := buf[:cutAt]
		carry = append([]byte(nil), buf[cutAt:]...)
		b := block{data: data, line: line, last: eof, readErr: readErr, result: make(chan blockResult, 1)}
		line += bytes.Count(data, []byte{'\n'})
		select {
		case p.results <- b.result:
		case <-p.stop:
			return
		}
		select {
		case work <- b:
		case <-p.stop:
			return
		}
		if eof {
			return
		}
	}
}

// newBlock returns an empty buffer of at least size bytes: one handed back
// by Next when it is large enough, else a new one.
func (p *ParallelReader) newBlock(size int) []byte {
	select {
	case b := <-p.free:
		if cap(b) >= size {
			return b[:0]
		}
	default:
	}
	return make([]byte, 0, size)
}

// parseBlock reads a block of whole records with r (a Reader of the
// stream's format, reused from block to block).
func (r *Reader) parseBlock(b block) blockResult {
	r.mem, r.memOff = b.data, 0
	r.lines = b.line
	r.index = 0
	r.frames = 0
	r.err = nil
	r.cut = false
	res := blockResult{items: itemPool.Get().([]blockItem)[:0]}
	for {
		res.items = append(res.items, blockItem{})
		it := &res.items[len(res.items)-1]
		err := r.nextInto(&it.e)
		if err == io.EOF {
			res.items = res.items[:len(res.items)-1]
			break
		}
		it.line, it.err = r.line, err
		if err != nil && !isFrameOrNil(err) {
			break // a read error ends the stream
		}
	}
	if b.readErr != nil && (len(res.items) == 0 || isFrameOrNil(res.items[len(res.items)-1].err)) {
		res.items = append(res.items, blockItem{err: &ReadError{Name: r.name, Line: r.lines + 1, Format: r.format, Err: b.readErr}})
	}
	res.frames = r.frames
	res.last = b.last
	res.data = b.data
	return res
}

// isFrameOrNil reports whether err is nil or a *FrameError. (Its
// errors.As is behind the nil test: the pointer it fills would be
// allocated on every call.)
func isFrameOrNil(err error) bool {
	if err == nil {
		return true
	}
	var fe *FrameError
	return errors.As(err, &fe)
}

// Next returns the next event, or an error, as Reader.Next does.
func (p *ParallelReader) Next() (Event, error) {
	if !p.begun {
		p.begin()
	}
	if p.seq != nil {
		return p.seq.Next()
	}
	if p.err != nil {
		return Event{}, p.err
	}
	for p.pos >= len(p.cur.items) {
		if p.cur.items != nil {
			clear(p.cur.items) // drop the events: the pool keeps only the slice
			itemPool.Put(p.cur.items[:0])
			p.cur.items = nil
			if p.free != nil {
				select {
				case p.free <- p.cur.data[:0]:
				default:
				}
			}
			p.cur.data = nil
		}
		if p.cur.last {
			p.err = io.EOF
			return Event{}, io.EOF
		}
		p.frames += p.cur.frames
		next, ok := <-p.results
		if !ok {
			p.err = io.EOF
			return Event{}, io.EOF
		}
		p.cur, p.pos = <-next, 0
	}
	it := &p.cur.items[p.pos]
	p.pos++
	if it.err == nil {
		p.line = it.line
		p.index++
		return it.e, nil
	}
	var fe *FrameError
	if errors.As(it.err, &fe) {
		p.line = it.line
		if p.format == FormatSSE {
			fe.Frame += p.frames
		} else {
			fe.Frame = p.index + 1
		}
		p.index++
		return Event{}, fe
	}
	var re *ReadError
	if errors.As(it.err, &re) {
		re.Index = p.index
	}
	p.err = it.err
	p.Close()
	p.err = it.err
	return Event{}, it.err
}
