package recorder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/clock"
	"github.com/aguitest/aguitest/internal/jsonx"
)

// DefaultBufferSize is the bytes a run may have waiting for storage when
// Config.BufferSize is zero.
const DefaultBufferSize = 4 << 20

// DefaultFlushInterval is how long a run's records may wait in memory
// before they are written when Config.FlushInterval is zero.
const DefaultFlushInterval = 20 * time.Millisecond

// blockSize is the size of the blocks response bytes are copied into.
const blockSize = 64 << 10

// maxRequestBody is the largest request body recorded; a larger one is
// passed through untouched and recorded as its size only.
const maxRequestBody = 16 << 20

// Config configures Middleware. Set Dir or Writer.
type Config struct {
	// Dir receives one recording file per run, named by the run's start
	// time, a sequence number and its id. Middleware creates it (and its
	// parents) if it does not exist.
	Dir string
	// Writer receives every run's records, interleaved, when Dir is "".
	Writer *Writer
	// Source is written in the header of files created in Dir.
	Source string

	// Sample decides whether a request is recorded; nil records every one.
	// See Fraction.
	Sample func(*http.Request) bool
	// MaxRunBytes stops recording a run's events once its records reach
	// this size (the end record says so); zero means no limit.
	MaxRunBytes int64
	// BufferSize bounds the bytes of a run waiting for storage. Of what
	// does not fit, the last 64 KiB are kept (a short burst loses nothing,
	// and the stream's end is seen) and the rest is dropped, counted and
	// marked in the recording (a gap record). Zero means
	// DefaultBufferSize.
	BufferSize int
	// FlushInterval is how long records may wait in memory to be written
	// together (sooner when half the buffer is used, and at the end of the
	// run). Zero means DefaultFlushInterval.
	FlushInterval time.Duration

	// Redact is applied to everything before it is written.
	Redact Redact
	// HeaderAllowlist, when not empty, limits the request headers recorded
	// to those named. Credential headers are never recorded.
	HeaderAllowlist []string

	// Clock stamps the records' offsets and names the files; nil means
	// the real clock.
	Clock clock.Clock
	// OnError is called (from a background goroutine) when storage fails,
	// and by Middleware when Dir cannot be created. Nil logs each failure
	// with slog.Default at level Error.
	OnError func(error)
}

// Fraction returns a Config.Sample function recording about p of the
// requests (0 none, 1 all), drawing from rnd (nil: a fixed-seed source,
// deterministic from process start). It is safe for concurrent use.
func Fraction(p float64, rnd func() float64) func(*http.Request) bool {
	if rnd == nil {
		src := rand.New(rand.NewPCG(1, 2))
		var mu sync.Mutex
		rnd = func() float64 {
			mu.Lock()
			defer mu.Unlock()
			return src.Float64()
		}
	}
	return func(*http.Request) bool { return rnd() < p }
}

// Stats counts what a Handler has done since it was made.
type Stats struct {
	Runs          int64 // requests recorded
	Skipped       int64 // requests not sampled
	Finished      int64 // runs whose recording is complete (end written or abandoned)
	ClientGone    int64 // runs whose client went away mid-stream
	Limited       int64 // runs cut at MaxRunBytes
	DroppedBytes  int64 // response bytes not recorded because storage fell behind
	DroppedRecord int64 // records not written (storage failed or fell behind)
	StorageErrors int64 // runs whose storage failed
}

// Handler records the runs served by the handler it wraps. Make one with
// Middleware or Proxy.
type Handler struct {
	next http.Handler
	cfg  Config
	wg   sync.WaitGroup
	seq  atomic.Int64

	runs, skipped, finished, clientGone, limited atomic.Int64
	droppedBytes, droppedRecords, storageErrors  atomic.Int64
}

// Middleware returns a handler that serves every request with next and
// records it: the request (redacted), each AG-UI event of the response
// with its offset, and an end record with the outcome and the response's
// Content-Type. Both encodings are recorded as events: server-sent events,
// and protobuf frames (agui.MediaTypeProto, or a body starting with a zero
// byte), decoded as the reference client decodes them; a frame whose JSON
// form loses something, or that holds no event, keeps its bytes
// (Record.Frame) unless redaction is on.
//
// The response is never changed or delayed: every Write and every flush
// goes through at once, and the bytes are copied into a bounded buffer that
// a goroutine per run parses and writes. When storage is slow the buffer
// fills and what does not fit is dropped and counted (Stats, a gap record
// where the bytes are missing, and the run's end record, whose outcome
// still says how the stream ended); when storage fails the run's recording
// stops and the client notices nothing: a file that would hold nothing is
// removed, one cut short has no end record. End.Incomplete says whether a
// recording holds the whole response. A client that goes away mid-stream
// is recorded as "client_gone".
//
// A compressed response (Content-Encoding gzip or deflate, as when a
// client's Accept-Encoding reaches an upstream through Proxy) is recorded
// as the client decodes it; another encoding is recorded as undecoded
// (End.Undecoded), with no events.
//
// The request body (up to 16 MiB) is read before next is called and handed
// to next unchanged; a request whose body carries a runId is recorded under
// that name. Provider exchanges made with a Transport using the request's
// context are recorded into the same run.
//
// Middleware creates cfg.Dir if it does not exist. When it cannot, it
// reports why (OnError, or slog.Default) and returns a handler that serves
// every request as usual, each run's storage failing and being reported
// and counted, until the directory can be written.
//
// It panics when cfg has neither Dir nor Writer, or a Redact that does not
// validate.
func Middleware(next http.Handler, cfg Config) *Handler {
	if cfg.Dir == "" && cfg.Writer == nil {
		panic("recorder: Middleware needs Config.Dir or Config.Writer")
	}
	if err := cfg.Redact.Validate(); err != nil {
		panic(err)
	}
	if cfg.BufferSize <= 0 {
		cfg.BufferSize = DefaultBufferSize
	}
	cfg.Clock = clock.Or(cfg.Clock)
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = DefaultFlushInterval
	}
	if cfg.Source == "" {
		cfg.Source = "middleware"
	}
	h := &Handler{next: next, cfg: cfg}
	if cfg.Dir != "" {
		if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
			h.report(fmt.Errorf("recorder: cannot create the recording directory %s: %w; runs will not be recorded until it can be", cfg.Dir, err))
		}
	}
	return h
}

// report hands a storage failure to OnError, or logs it.
func (h *Handler) report(err error) {
	if f := h.cfg.OnError; f != nil {
		f(err)
		return
	}
	slog.Default().Error(err.Error())
}

// Stats returns the counters.
func (h *Handler) Stats() Stats {
	return Stats{
		Runs: h.runs.Load(), Skipped: h.skipped.Load(), Finished: h.finished.Load(),
		ClientGone: h.clientGone.Load(), Limited: h.limited.Load(),
		DroppedBytes: h.droppedBytes.Load(), DroppedRecord: h.droppedRecords.Load(),
		StorageErrors: h.storageErrors.Load(),
	}
}

// Wait blocks until the recordings of every run served so far are written
// and their files closed. Call it after the server has shut down.
func (h *Handler) Wait() { h.wg.Wait() }

// ServeHTTP serves the request with the wrapped handler and records it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.cfg.Sample != nil && !h.cfg.Sample(r) {
		h.skipped.Add(1)
		h.next.ServeHTTP(w, r)
		return
	}
	h.runs.Add(1)
	rn := &run{h: h, seq: h.seq.Add(1), start: h.cfg.Clock.Now(), wake: make(chan struct{}, 1), urgent: make(chan struct{}, 1)}
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		var err error
		body, err = io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
		rest := r.Body
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), errReader{err}, rest), rest}
		if len(body) > maxRequestBody {
			body = nil
		}
	}
	rn.req = pendingRequest{method: r.Method, path: r.URL.RequestURI(), header: r.Header.Clone(), body: body}
	h.wg.Add(1)
	go rn.loop()

	rw := &responseWriter{ResponseWriter: w, run: rn}
	ctx := context.WithValue(r.Context(), runKey{}, rn)
	defer func() {
		p := recover()
		rn.finish(r.Context().Err() != nil, p)
		if p != nil {
			panic(p)
		}
	}()
	h.next.ServeHTTP(rw, r.WithContext(ctx))
}

type readCloser struct {
	io.Reader
	io.Closer
}

// errReader returns its error, or io.EOF when it is nil.
type errReader struct{ err error }

// Read returns the error.
func (e errReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}

type runKey struct{}

type pendingRequest struct {
	method, path string
	header       http.Header
	body         []byte
}

// item is a piece of work for a run's storage goroutine.
type item struct {
	at   time.Time
	data []byte  // response bytes
	rec  *Record // a ready record (provider exchange)
	gap  int64   // bytes dropped before tail
	tail []byte  // bytes that did not fit in the buffer but were kept, before data
}

// run is one recorded request: the response path appends to queue, the
// loop goroutine drains it.
type run struct {
	h      *Handler
	seq    int64
	start  time.Time
	req    pendingRequest
	wake   chan struct{}
	urgent chan struct{}

	mu       sync.Mutex
	queue    []item
	spare    []item
	queued   int
	block    []byte   // response bytes are copied here
	retired  [][]byte // full blocks not yet recycled
	gapNext  int64    // bytes dropped since the last item queued, before tail
	tail     []byte   // the last bytes that did not fit in the buffer (up to maxTail)
	done     bool
	bytes    int64
	dropped  int64
	status   int
	ctype    string // the response's Content-Type as the client gets it
	cenc     string // its Content-Encoding
	writeErr bool
	ctxDone  bool
	panicked any

	// Owned by the loop goroutine.
	id         string
	w          *Writer
	ownW       bool
	storageErr bool
	size       int64
	limited    bool
	events     int64
	last       []byte // the last event's JSON
	lines      []byte // encoded records waiting to be written
	nlines     int
	stream     *streamRedactor[runItem]
	sse        agui.SSEParser
	proto      protoSplitter
	enc        agui.Encoding // "" until the first response bytes
	zchecked   bool          // the Content-Encoding was looked at
	z          *inflater     // decodes a compressed response
	undecoded  string        // why the response's events are not recorded
}

func (rn *run) signal() {
	select {
	case rn.wake <- struct{}{}:
	default:
	}
}

// tee copies response bytes for recording without ever blocking on storage.
func (rn *run) tee(p []byte) {
	at := rn.h.cfg.Clock.Now()
	rn.mu.Lock()
	rn.bytes += int64(len(p))
	if rn.queued+len(p) > rn.h.cfg.BufferSize {
		// Storage is behind: keep the last bytes that do not fit, so
		// that a short burst loses nothing and a stream's end is seen;
		// drop what comes before them.
		if evicted := rn.keepTail(p); evicted > 0 {
			rn.dropped += evicted
			rn.gapNext += evicted
			rn.h.droppedBytes.Add(evicted)
		}
		rn.mu.Unlock()
		return
	}
	// Copy into a shared block rather than allocating per write.
	if cap(rn.block)-len(rn.block) < len(p) {
		if rn.block != nil {
			rn.retired = append(rn.retired, rn.block)
		}
		if len(p) <= blockSize {
			rn.block = (*blockPool.Get().(*[]byte))[:0]
		} else {
			rn.block = make([]byte, 0, len(p))
		}
	}
	start := len(rn.block)
	rn.block = append(rn.block, p...)
	wasEmpty := len(rn.queue) == 0
	rn.queue = append(rn.queue, item{at: at, data: rn.block[start:len(rn.block):len(rn.block)], gap: rn.gapNext, tail: rn.tail})
	rn.gapNext = 0
	rn.tail = nil
	rn.queued += len(p)
	urgent := rn.queued > rn.h.cfg.BufferSize/2
	rn.mu.Unlock()
	if wasEmpty {
		rn.signal()
	}
	if urgent {
		select {
		case rn.urgent <- struct{}{}:
		default:
		}
	}
}

// maxTail bounds the bytes a run keeps beyond its buffer.
const maxTail = 64 << 10

// keepTail adds p to the tail, keeping its last maxTail bytes, and returns
// how many bytes it evicted; rn.mu is held.
func (rn *run) keepTail(p []byte) int64 {
	over := len(rn.tail) + len(p) - maxTail
	switch {
	case over <= 0:
		rn.tail = append(rn.tail, p...)
		return 0
	case len(p) >= maxTail:
		rn.tail = append(rn.tail[:0], p[len(p)-maxTail:]...)
	default:
		rn.tail = append(rn.tail[:0], rn.tail[over:]...)
		rn.tail = append(rn.tail, p...)
	}
	return int64(over)
}

// addRecord queues a ready record (from the provider transport).
func (rn *run) addRecord(r Record, size int) {
	rn.mu.Lock()
	if rn.done || rn.queued+size > rn.h.cfg.BufferSize {
		rn.mu.Unlock()
		rn.h.droppedRecords.Add(1)
		return
	}
	rn.queue = append(rn.queue, item{at: rn.h.cfg.Clock.Now(), rec: &r})
	rn.queued += size
	rn.mu.Unlock()
	rn.signal()
}

// finish is called when the wrapped handler returns.
func (rn *run) finish(ctxDone bool, panicked any) {
	rn.mu.Lock()
	rn.done = true
	rn.ctxDone = ctxDone
	if panicked == http.ErrAbortHandler {
		// The handler gave up on the response, as a reverse proxy does
		// when either side goes away mid-stream.
		rn.writeErr = rn.writeErr || ctxDone
		panicked = nil
	}
	rn.panicked = panicked
	rn.mu.Unlock()
	rn.signal()
	select {
	case rn.urgent <- struct{}{}:
	default:
	}
}

func (rn *run) loop() {
	defer rn.h.wg.Done()
	defer rn.h.finished.Add(1)
	rn.begin()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		<-rn.wake
		// Gather writes for a moment so that a stream of small events
		// costs one storage write per interval, not one per event.
		rn.mu.Lock()
		done := rn.done
		rn.mu.Unlock()
		if !done {
			timer.Reset(rn.h.cfg.FlushInterval)
			select {
			case <-timer.C:
			case <-rn.urgent:
				timer.Stop()
			}
		}
		rn.mu.Lock()
		items := rn.queue
		rn.queue = rn.spare[:0]
		rn.queued = 0
		done = rn.done
		// Blocks retired before this point hold only the items taken
		// here: once they are processed the blocks can be reused.
		retired := rn.retired
		rn.retired = nil
		rn.mu.Unlock()
		for i := range items {
			rn.process(&items[i])
			items[i] = item{}
		}
		rn.spare = items[:0]
		for _, b := range retired {
			if cap(b) == blockSize {
				b = b[:0]
				blockPool.Put(&b)
			}
		}
		rn.flush()
		if done {
			rn.end()
			return
		}
	}
}

// blockPool recycles the blocks response bytes are copied into.
var blockPool = sync.Pool{New: func() any { b := make([]byte, 0, blockSize); return &b }}

// linesPool recycles the runs' encoding buffers.
var linesPool = sync.Pool{New: func() any { return new([]byte) }}

// begin makes the request record.
func (rn *run) begin() {
	rn.lines = (*linesPool.Get().(*[]byte))[:0]
	cfg := &rn.h.cfg
	rn.stream = newStreamRedactor(&cfg.Redact, rn.record)
	req := &Request{Time: rn.start, Method: rn.req.method, Path: cfg.Redact.URL(rn.req.path),
		Header: cfg.Redact.header(rn.req.header, cfg.HeaderAllowlist)}
	var in struct {
		RunID string `json:"runId"`
	}
	if b := rn.req.body; len(b) > 0 {
		if jsonx.Check(b) == nil {
			_ = json.Unmarshal(b, &in)
			if red, err := cfg.Redact.JSON(b); err == nil {
				var c bytes.Buffer
				if json.Compact(&c, red) == nil {
					req.Input = c.Bytes()
				}
			}
		} else {
			req.Body = string(cfg.Redact.Text(b))
		}
	}
	rn.id = in.RunID
	if rn.id == "" {
		rn.id = fmt.Sprintf("run-%d", rn.seq)
	}
	rn.req = pendingRequest{}
	rn.add(Record{Kind: KindRequest, Run: rn.id, Request: req})
}

// runItem is what a run's stream redactor keeps with an event: its
// offset, or a record made ready that takes its place in the stream.
type runItem struct {
	off time.Duration
	rec *Record
}

// record writes what the stream redactor lets go, in the stream's order.
func (rn *run) record(data []byte, clean bool, it runItem) {
	if it.rec != nil {
		rn.add(*it.rec)
		return
	}
	if clean {
		// The common case: the line is encoded straight from the stream.
		if !rn.reserve(int64(len(data) + 64)) {
			return
		}
		rn.lines = appendEventLine(rn.lines, rn.id, it.off, data)
		rn.nlines++
		return
	}
	red, err := rn.h.cfg.Redact.JSON(data)
	if err != nil {
		red = []byte(`{"type":"` + string(lastType(data)) + `"}`)
	}
	rn.add(Record{Kind: KindEvent, Run: rn.id, Offset: it.off, Event: red})
}

func (rn *run) process(it *item) {
	if it.rec != nil {
		it.rec.Run = rn.id
		if ex := it.rec.Exchange; ex != nil {
			rn.h.cfg.Redact.exchange(ex)
		}
		if it.rec.Offset == 0 {
			it.rec.Offset = it.at.Sub(rn.start)
		}
		rn.stream.pushOther(runItem{rec: it.rec})
		return
	}
	rn.input(it.gap, it.tail, it.at)
	rn.input(0, it.data, it.at)
}

// input records response bytes as they came, gap bytes having been dropped
// before them.
func (rn *run) input(gap int64, data []byte, at time.Time) {
	if gap > 0 {
		rn.stream.pushOther(runItem{rec: &Record{Kind: KindGap, Run: rn.id, Offset: at.Sub(rn.start), Gap: &Gap{Bytes: gap}}})
	}
	if !rn.zchecked && (gap > 0 || len(data) > 0) {
		rn.zchecked = true
		rn.mu.Lock()
		enc := rn.cenc
		rn.mu.Unlock()
		switch {
		case identity(enc):
		case decodable(enc):
			rn.z = newInflater(enc)
		default:
			rn.undecoded = fmt.Sprintf("the response's Content-Encoding %q is not one the recorder decodes (gzip, deflate): its events are not recorded", enc)
		}
	}
	switch {
	case rn.undecoded != "":
	case rn.z != nil && gap > 0:
		rn.z.close(func([]byte) {})
		rn.undecoded = "bytes were dropped from the compressed response: the rest of it cannot be decoded"
	case rn.z != nil:
		if len(data) > 0 {
			rn.z.feed(data, func(d []byte) { rn.decoded(d, at) })
		}
		if rn.z.done && rn.z.err != nil {
			rn.undecoded = rn.z.err.Error()
		}
	default:
		if gap > 0 {
			// An SSE stream resynchronises at the next event; a
			// protobuf one cannot.
			if rn.enc == agui.EncodingProto {
				rn.proto.gap()
			} else {
				rn.sse.Gap()
			}
		}
		rn.decoded(data, at)
	}
}

// decoded records response bytes as the client decodes them.
func (rn *run) decoded(data []byte, at time.Time) {
	if len(data) == 0 {
		return
	}
	if rn.enc == "" {
		rn.enc = rn.encoding(data)
	}
	if rn.enc == agui.EncodingProto {
		rn.proto.feed(data, func(f frame) { rn.frame(f, at) })
		return
	}
	rn.sse.Feed(data, func(m agui.SSEMessage) { rn.event(m.Data, at) })
}

// encoding tells the response's encoding by its Content-Type, or by its
// first byte when that says neither (a protobuf frame starts with a zero
// byte).
func (rn *run) encoding(first []byte) agui.Encoding {
	rn.mu.Lock()
	ct := rn.ctype
	rn.mu.Unlock()
	if enc, ok := agui.EncodingOf(ct); ok {
		return enc
	}
	if len(first) > 0 && first[0] == 0 {
		return agui.EncodingProto
	}
	return agui.EncodingSSE
}

// frame records one frame of a protobuf response.
func (rn *run) frame(f frame, at time.Time) {
	if len(f.raw) == 0 && f.event == nil && f.note == "" {
		// A record cannot hold an empty frame: say what it was.
		f.note = "(an empty protobuf frame: it holds no event)"
	}
	if f.raw == nil && f.note == "" {
		rn.event(f.event, at)
		return
	}
	rn.events++
	rd := &rn.h.cfg.Redact
	r := Record{Kind: KindEvent, Run: rn.id, Offset: at.Sub(rn.start), Frame: f.raw, Data: f.note}
	if f.event != nil {
		rn.last = append(rn.last[:0], f.event...)
		r.Event = f.event
	}
	if !rd.clean(f.event) || len(rd.patternSpans(f.raw, rd.textSpans(f.raw, false, nil))) > 0 {
		// Frame bytes cannot be redacted: keep the redacted event only.
		r.Frame = nil
		if r.Event == nil && r.Data == "" {
			r.Data = fmt.Sprintf("(a protobuf frame of %d bytes holding no event, not kept: it may hold a credential)", len(f.raw))
		} else if red, err := rd.JSON(r.Event); err == nil {
			r.Event = red
		} else {
			r.Event = []byte(`{"type":"` + string(lastType(r.Event)) + `"}`)
		}
	}
	rn.stream.pushOther(runItem{rec: &r})
}

func (rn *run) event(data []byte, at time.Time) {
	rn.events++
	off := at.Sub(rn.start)
	rd := &rn.h.cfg.Redact
	// An event record holds what the Reader reads back as an event: one
	// line of JSON that agui.ParseEvent accepts. Anything else (a
	// keepalive object without a type, invalid UTF-8) is kept as data.
	if len(data) == 0 || data[0] != '{' || !oneLine(data) || !isEvent(data) {
		rn.stream.pushOther(runItem{rec: &Record{Kind: KindEvent, Run: rn.id, Offset: off, Data: string(rd.Text(data))}})
		return
	}
	rn.last = append(rn.last[:0], data...)
	rn.stream.push(data, runItem{off: off})
}

// reserve accounts n bytes against MaxRunBytes and reports whether they
// may be recorded.
func (rn *run) reserve(n int64) bool {
	if rn.limited {
		return false
	}
	if max := rn.h.cfg.MaxRunBytes; max > 0 {
		if rn.size+n > max {
			rn.limited = true
			rn.h.limited.Add(1)
			return false
		}
		rn.size += n
	}
	return true
}

// add encodes a record into the batch, within the size limit.
func (rn *run) add(r Record) {
	if r.Kind != KindEnd && r.Kind != KindRequest {
		n := int64(len(r.Event) + len(r.Data) + 64)
		if r.Exchange != nil {
			for _, c := range r.Exchange.Chunks {
				n += int64(len(c.Data) + 16)
			}
		}
		if !rn.reserve(n) {
			return
		}
	}
	b, err := appendRecord(rn.lines, r)
	if err != nil {
		rn.h.droppedRecords.Add(1)
		return
	}
	rn.lines = b
	rn.nlines++
}

// flush writes the batch with one call.
func (rn *run) flush() {
	if len(rn.lines) == 0 {
		return
	}
	defer func() {
		if cap(rn.lines) > 4<<20 {
			rn.lines = nil
		}
		rn.lines = rn.lines[:0]
		rn.nlines = 0
	}()
	if rn.storageErr {
		rn.h.droppedRecords.Add(int64(rn.nlines))
		return
	}
	if rn.w == nil {
		if err := rn.open(); err != nil {
			rn.fail(err)
			return
		}
	}
	if err := rn.w.writeLines(rn.lines); err != nil {
		rn.fail(err)
	}
}

func (rn *run) fail(err error) {
	rn.storageErr = true
	rn.h.storageErrors.Add(1)
	rn.h.droppedRecords.Add(int64(rn.nlines))
	rn.h.report(fmt.Errorf("recorder: run %s: %w", rn.id, err))
}

func (rn *run) open() error {
	cfg := &rn.h.cfg
	if cfg.Dir == "" {
		rn.w = cfg.Writer
		return nil
	}
	name := fmt.Sprintf("%s-%06d-%s.jsonl", rn.start.UTC().Format("20060102T150405.000000Z"), rn.seq, safeName(rn.id))
	path := filepath.Join(cfg.Dir, name)
	w, err := Create(path, Header{Created: rn.start.UTC(), Source: cfg.Source})
	if errors.Is(err, fs.ErrNotExist) {
		// The directory went away (or could not be made at first).
		if err = os.MkdirAll(cfg.Dir, 0o755); err == nil {
			w, err = Create(path, Header{Created: rn.start.UTC(), Source: cfg.Source})
		}
	}
	if err != nil {
		return err
	}
	rn.w, rn.ownW = w, true
	return nil
}

func safeName(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

func (rn *run) end() {
	now := rn.h.cfg.Clock.Now()
	rn.mu.Lock()
	trailing, tail := rn.gapNext, rn.tail
	rn.gapNext, rn.tail = 0, nil
	rn.mu.Unlock()
	// The bytes at the end that did not fit in the buffer: the run's end
	// is in them.
	rn.input(trailing, tail, now)
	if rn.z != nil && !rn.z.done {
		if err := rn.z.close(func(d []byte) { rn.decoded(d, now) }); err != nil {
			rn.undecoded = err.Error()
		}
	}
	if rn.enc == agui.EncodingProto {
		rn.proto.end(func(f frame) { rn.frame(f, now) })
	} else {
		rn.sse.End(func(m agui.SSEMessage) { rn.event(m.Data, now) })
	}
	rn.stream.finish()
	rn.mu.Lock()
	end := &End{Status: rn.status, ContentType: rn.ctype, ContentEncoding: rn.cenc, Bytes: rn.bytes, Events: rn.events,
		Dropped: rn.dropped, Limited: rn.limited, Undecoded: rn.undecoded}
	if rn.writeErr {
		end.Outcome = OutcomeClientGone
	} else {
		end.Outcome = outcomeOf(lastType(rn.last), rn.ctxDone)
	}
	gone := end.Outcome == OutcomeClientGone
	if rn.panicked != nil {
		end.Error = fmt.Sprintf("handler panicked: %v", rn.panicked)
	}
	rn.mu.Unlock()
	if gone {
		rn.h.clientGone.Add(1)
	}
	if rn.storageErr {
		end.Error = strings.TrimPrefix(end.Error+"; storage failed", "; ")
	}
	end.Error = rn.h.cfg.Redact.String(end.Error)
	rn.add(Record{Kind: KindEnd, Run: rn.id, Offset: now.Sub(rn.start), End: end})
	rn.flush()
	if rn.ownW && rn.w != nil {
		if err := rn.w.Close(); err != nil && !rn.storageErr {
			rn.fail(err)
		}
	}
	if cap(rn.lines) <= 4<<20 {
		b := rn.lines[:0]
		rn.lines = nil
		linesPool.Put(&b)
	}
}

// lastType returns the type of an event's JSON, or "".
func lastType(raw []byte) agui.EventType {
	if raw == nil {
		return ""
	}
	e, err := agui.ParseEvent(raw)
	if err != nil {
		return ""
	}
	return e.Type()
}

// responseWriter passes every call through and tees what was written.
type responseWriter struct {
	http.ResponseWriter
	run         *run
	wroteHeader bool
}

// WriteHeader notes the status and passes it on.
func (w *responseWriter) WriteHeader(code int) {
	if !w.wroteHeader && code >= 200 {
		w.wroteHeader = true
		w.run.mu.Lock()
		w.run.status = code
		w.run.ctype = w.ResponseWriter.Header().Get("Content-Type")
		w.run.cenc = w.ResponseWriter.Header().Get("Content-Encoding")
		w.run.mu.Unlock()
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write passes p on, then copies what was written for recording.
func (w *responseWriter) Write(p []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if len(p) > 0 {
		w.run.mu.Lock()
		if w.run.ctype == "" && w.ResponseWriter.Header().Get("Content-Encoding") == "" {
			// net/http sends what it sniffs from the first bytes.
			w.run.ctype = http.DetectContentType(p)
		}
		w.run.mu.Unlock()
	}
	n, err := w.ResponseWriter.Write(p)
	if n > 0 {
		w.run.tee(p[:n])
	}
	if err != nil {
		w.run.mu.Lock()
		w.run.writeErr = true
		w.run.mu.Unlock()
	}
	return n, err
}

// Flush flushes the underlying writer (http.Flusher).
func (w *responseWriter) Flush() { _ = w.FlushError() }

// FlushError flushes the underlying writer and returns its error, as
// http.ResponseController expects.
func (w *responseWriter) FlushError() error {
	var err error
	switch f := w.ResponseWriter.(type) {
	case interface{ FlushError() error }:
		err = f.FlushError()
	case http.Flusher:
		f.Flush()
	default:
		err = http.NewResponseController(w.ResponseWriter).Flush()
	}
	if err != nil && err != http.ErrNotSupported {
		w.run.mu.Lock()
		w.run.writeErr = true
		w.run.mu.Unlock()
	}
	return err
}

// Unwrap returns the wrapped writer, for http.ResponseController.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
