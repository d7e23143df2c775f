package recorder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"github.com/aguitest/aguitest/clock"
	"github.com/aguitest/aguitest/internal/eventstream"
)

// maxExchangeBytes bounds the response bytes kept for one provider
// exchange: escaped in its record, it stays within a line a Reader reads.
const maxExchangeBytes = 8 << 20

// Transport records an LLM provider's responses as an agent's client reads
// them: the request (body redacted, credential headers removed), the status
// and headers, and each chunk of the body with its offset, so the model side
// of a run can be replayed (see package replay). It never reads ahead of the
// caller: a chunk is recorded when the caller's Read returns it.
//
// It records every provider wire alike (OpenAI Chat Completions and
// Responses, Anthropic Messages, Gemini, their Azure and Vertex AI
// deployments, Ollama), as the bytes the client read, and Bedrock's
// event streams a message a chunk, decoded (see Chunk.Event).
//
// When the request's context comes from a request served by Middleware (an
// agent passing its request context to its LLM client), the exchange goes
// into that run's recording; when it carries a Sink (see WithSink), into
// the Sink's run. Otherwise it goes to Writer under the name Run.
//
// A Transport is safe for concurrent use.
type Transport struct {
	// Base makes the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Writer receives exchanges made outside a recorded run; nil drops them.
	Writer *Writer
	// Run names the run of exchanges written to Writer; "" means "provider".
	Run string
	// Redact is applied to request bodies, headers and chunk text.
	Redact Redact
	// Clock stamps the chunks' offsets; nil means the real clock.
	Clock clock.Clock

	mu    sync.Mutex
	start time.Time
}

func (t *Transport) now() time.Time { return clock.Or(t.Clock).Now() }

// RoundTrip makes the request with Base and records the exchange when the
// response body is read to its end, fails, or is closed.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	// The exchange is redacted whole when it is emitted, so that a
	// credential cut between two chunks is found.
	ex := &Exchange{Method: req.Method, URL: req.URL.String(), Header: req.Header.Clone()}
	if req.Body != nil && req.Body != http.NoBody {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		var c bytes.Buffer
		if json.Compact(&c, body) == nil {
			ex.Body = c.Bytes()
		} else {
			ex.BodyText = string(body)
		}
	}
	start := t.now()
	emit := t.emitter(req.Context(), start)
	emit = func(emit func(*Exchange)) func(*Exchange) {
		return func(ex *Exchange) {
			t.Redact.exchange(ex)
			emit(ex)
		}
	}(emit)
	resp, err := base.RoundTrip(req)
	if err != nil {
		ex.Error = err.Error()
		emit(ex)
		return nil, err
	}
	ex.Status = resp.StatusCode
	ex.ResponseHeader = resp.Header.Clone()
	rb := &recordingBody{rc: resp.Body, t: t, ex: ex, start: start, emit: emit}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == eventstream.ContentType {
		rb.frames = new(eventFrames)
	}
	resp.Body = rb
	return resp, nil
}

type sinkKey struct{}

// WithSink returns a context whose provider exchanges, made by a Transport,
// are recorded into s's run: a harness or a proxy that knows which run a
// request to the provider belongs to says so with it.
func WithSink(ctx context.Context, s *Sink) context.Context {
	return context.WithValue(ctx, sinkKey{}, s)
}

// ProviderProxy returns a reverse proxy to an LLM provider at target (for
// example https://api.anthropic.com) that records every exchange through
// t, streaming each response back as it arrives. Point an agent's LLM
// client at the proxy instead of the provider; its exchanges go where t
// sends them.
func ProviderProxy(target *url.URL, t *Transport) http.Handler {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = target.Host
		},
		Transport:     t,
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "aguitest: provider: "+err.Error(), http.StatusBadGateway)
		},
	}
}

// emitter returns where the exchange goes.
func (t *Transport) emitter(ctx context.Context, start time.Time) func(*Exchange) {
	if s, ok := ctx.Value(sinkKey{}).(*Sink); ok {
		return func(ex *Exchange) { _ = s.exchange(start, ex) }
	}
	if rn, ok := ctx.Value(runKey{}).(*run); ok {
		off := start.Sub(rn.start)
		return func(ex *Exchange) {
			size := len(ex.Body) + len(ex.BodyText)
			for _, c := range ex.Chunks {
				size += len(c.Data)
			}
			rn.addRecord(Record{Kind: KindProvider, Offset: max(off, 1), Exchange: ex}, size)
		}
	}
	t.mu.Lock()
	if t.start.IsZero() {
		t.start = start
	}
	off := start.Sub(t.start)
	t.mu.Unlock()
	return func(ex *Exchange) {
		if t.Writer == nil {
			return
		}
		name := t.Run
		if name == "" {
			name = "provider"
		}
		_ = t.Writer.Write(Record{Kind: KindProvider, Run: name, Offset: off, Exchange: ex})
	}
}

// recordingBody records each chunk as the caller reads it.
type recordingBody struct {
	rc    io.ReadCloser
	t     *Transport
	ex    *Exchange
	start time.Time
	emit  func(*Exchange)
	size  int
	once  sync.Once
	// frames, for an event stream, decodes the messages read so far.
	frames *eventFrames
}

// Read reads from the provider's body and records what it returns.
func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 && b.size >= maxExchangeBytes && b.ex.Error == "" {
		b.ex.Error = fmt.Sprintf("the response is longer than %d bytes: the rest is not recorded", maxExchangeBytes)
	}
	if n > 0 && b.size < maxExchangeBytes {
		b.size += n
		off := b.t.now().Sub(b.start)
		if b.frames != nil {
			b.ex.Chunks = b.frames.add(b.ex.Chunks, off, p[:n])
		} else {
			data := append([]byte(nil), p[:n]...)
			b.ex.Chunks = append(b.ex.Chunks, Chunk{Offset: off, Data: data})
		}
	}
	if err != nil {
		if !errors.Is(err, io.EOF) {
			b.ex.Error = err.Error()
		}
		b.done()
	}
	return n, err
}

// eventFrames cuts an event stream into its messages as it is read: each
// whole message becomes a chunk of its payload and headers. Bytes that do
// not frame (a CRC that does not match, a message cut by the end of the
// body) are kept as they were read, in a chunk without headers, so that
// nothing the client read is lost.
type eventFrames struct {
	buf    []byte
	at     time.Duration // offset of the first byte in buf
	broken bool
}

func (f *eventFrames) add(cs []Chunk, off time.Duration, p []byte) []Chunk {
	if f.broken {
		return append(cs, Chunk{Offset: off, Data: append([]byte(nil), p...)})
	}
	if len(f.buf) == 0 {
		f.at = off
	}
	f.buf = append(f.buf, p...)
	for len(f.buf) > 0 {
		m, n, err := eventstream.Decode(f.buf)
		if errors.Is(err, eventstream.ErrShort) {
			break
		}
		if err != nil {
			f.broken = true
			cs = append(cs, Chunk{Offset: f.at, Data: f.buf})
			f.buf = nil
			break
		}
		hs := make(map[string]string, len(m.Headers))
		for _, h := range m.Headers {
			hs[h.Name] = h.Value
		}
		cs = append(cs, Chunk{Offset: f.at, Data: append([]byte(nil), m.Payload...), Event: hs})
		f.buf = append(f.buf[:0], f.buf[n:]...)
		f.at = off
	}
	return cs
}

// rest returns the bytes of a message the body ended in, if any.
func (f *eventFrames) rest(cs []Chunk) []Chunk {
	if len(f.buf) > 0 {
		cs = append(cs, Chunk{Offset: f.at, Data: f.buf})
		f.buf = nil
	}
	return cs
}

// Close records the exchange, if not done yet, and closes the body.
func (b *recordingBody) Close() error {
	b.done()
	return b.rc.Close()
}

func (b *recordingBody) done() {
	b.once.Do(func() {
		if b.frames != nil {
			b.ex.Chunks = b.frames.rest(b.ex.Chunks)
		}
		if b.ex.Chunks == nil {
			b.ex.Chunks = []Chunk{}
		}
		b.emit(b.ex)
	})
}
