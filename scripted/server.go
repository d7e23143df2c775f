package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aguitest/aguitest/clock"
	"github.com/aguitest/aguitest/internal/llmwire"
	"github.com/aguitest/aguitest/internal/serve"
)

// A Server is an HTTP server on a loopback port that answers with a
// script, like an httptest.Server, on every provider wire at once:
//
//	POST …/chat/completions                 OpenAI Chat Completions
//	POST …/responses                        OpenAI Responses
//	POST …/messages                         Anthropic Messages
//	POST …/models/{model}:streamGenerateContent[?alt=sse]
//	POST …/models/{model}:generateContent   Gemini (under /v1beta or /v1)
//	POST …/openai/…                         Azure OpenAI (Chat Completions, Responses)
//	POST …/publishers/google/models/…       Vertex AI Gemini
//	POST …/model/{modelId}/converse-stream  Bedrock Converse (and …/converse)
//	POST …/api/chat                         Ollama
//	GET  …/models                           the model list (OpenAI or Anthropic shape)
//
// each streaming (server-sent events) and not, and records every request.
// The wire is chosen by how the path ends, so the same base URL works for
// every client, whatever path prefix it adds. One Server serves one
// conversation, whichever wires its requests come on.
type Server struct {
	// URL is the base URL, http://127.0.0.1:PORT/v1. Give it to any
	// client as its base URL: OpenAI clients append /chat/completions or
	// /responses, Anthropic clients /v1/messages, Gemini clients
	// /v1beta/models/...; every one of those paths is served.
	URL string

	model *Model
	srv   *serve.Server
	done  chan struct{}
	once  sync.Once
}

// NewServer starts a server for s on 127.0.0.1 at a free port. It panics
// if s is not valid or no port can be had; see [Listen] for an error.
func NewServer(s Script) *Server {
	srv, err := Listen("127.0.0.1:0", s)
	if err != nil {
		panic("scripted: " + err.Error())
	}
	return srv
}

// Listen starts a server for s at addr ("127.0.0.1:0" for any free
// loopback port). It panics if s is not valid.
func Listen(addr string, s Script) (*Server, error) {
	m := NewModel(s)
	done := make(chan struct{})
	hs, err := serve.Listen(addr, &handler{m: m, done: done})
	if err != nil {
		return nil, err
	}
	return &Server{URL: hs.URL + "/v1", model: m, srv: hs, done: done}, nil
}

// release ends the stalls of streams under way.
func (s *Server) release() { s.once.Do(func() { close(s.done) }) }

// Close stops the server, releasing any stalled stream, and waits for it.
func (s *Server) Close() {
	s.release()
	s.srv.Close()
}

// Shutdown stops the server gracefully: stalled streams are released and
// the streams under way finish, or ctx ends.
func (s *Server) Shutdown(ctx context.Context) error {
	s.release()
	return s.srv.Shutdown(ctx)
}

// Model returns the model the server answers with.
func (s *Server) Model() *Model { return s.model }

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request { return s.model.Requests() }

// Check reports unexpected requests, requests that failed a turn's
// Expect, and unused turns; see [Model.Check].
func (s *Server) Check() error { return s.model.Check() }

// Handler returns the HTTP handler of m, serving every wire as [Server]
// does, to mount in a server of one's own. It serves paths by how they
// end (…/chat/completions, …/responses, …/messages,
// …/models/{model}:streamGenerateContent and :generateContent, …/models).
func (m *Model) Handler() http.Handler { return &handler{m: m} }

type handler struct {
	m    *Model
	done <-chan struct{} // closed when the server closes; may be nil
}

const maxBody = 32 << 20

// A wireSpec is what the handler needs to serve one wire.
type wireSpec struct {
	wire Wire
	// decode reads a request body into the neutral form, and what else
	// the wire needs to answer it; a body the provider could not read, or
	// a conversation it refuses, gets its 400.
	decode func(m *Model, body []byte, r *http.Request) (Request, any, *llmwire.Error)
	// check returns the provider's 400 for a conversation it refuses.
	check func(req *Request) *llmwire.Error
	// encoder returns the streaming encoder of an answer.
	encoder func(a *answer) streamEncoder
	// complete renders the answer of a request that does not stream.
	complete func(a *answer) []byte
	// header sets the provider's response headers (request ids).
	header func(h http.Header, a *answer)
	// taken, if set, sees every answer the wire gives.
	taken func(m *Model, a *answer)
	// auth, if set, returns the provider's error for a request without
	// the credentials it needs (they are never checked, only looked for).
	auth func(r *http.Request) *llmwire.Error
	// streamType is the Content-Type of a stream; "" means
	// text/event-stream.
	streamType string
}

// A streamEncoder writes an answer's chunks as a wire's events, appending
// to a reused buffer.
type streamEncoder interface {
	// chunk appends the events of chunk i (maybe none).
	chunk(b []byte, a *answer, i int) []byte
	// end appends what follows the last chunk.
	end(b []byte, a *answer) []byte
	// fail appends the wire's error event, which ends the stream.
	fail(b []byte, a *answer, f *Fault) []byte
	// malformed appends an event whose data is not valid JSON.
	malformed(b []byte, a *answer, f *Fault) []byte
}

var wireSpecs = map[Wire]*wireSpec{}

func init() {
	for _, s := range []*wireSpec{chatWire, responsesWire, anthropicWire, geminiWire, azureChatWire, azureResponsesWire, vertexWire, bedrockWire, ollamaWire} {
		wireSpecs[s.wire] = s
	}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if wire := Wire(llmwire.Of(r.URL.Path)); wire != "" {
		if r.Method != http.MethodPost {
			writeWireError(w, wire, llmwire.Error{Status: http.StatusMethodNotAllowed, Message: "Use POST for " + r.URL.Path + ".", Type: "invalid_request_error", Code: "method_not_allowed"})
			return
		}
		h.serve(w, r, wireSpecs[wire])
		return
	}
	if strings.HasSuffix(r.URL.Path, "/models") {
		if r.Method != http.MethodGet {
			writeWireError(w, WireChat, llmwire.Error{Status: http.StatusMethodNotAllowed, Message: "Use GET for /models.", Type: "invalid_request_error", Code: "method_not_allowed"})
			return
		}
		h.models(w, r)
		return
	}
	writeWireError(w, WireChat, llmwire.Error{Status: http.StatusNotFound, Message: "Unknown path " + r.URL.Path + ": this server serves …/chat/completions, …/responses, …/messages, …/models/{model}:streamGenerateContent, …/models/{model}:generateContent, …/model/{modelId}/converse-stream, …/model/{modelId}/converse, …/api/chat and …/models.", Type: "invalid_request_error", Code: "unknown_url"})
}

// writeWireError writes e in the wire's error shape.
func writeWireError(w http.ResponseWriter, wire Wire, e llmwire.Error) {
	writeErrorBody(w, wire, e, e.Body(llmwire.Wire(wire)), "")
}

// writeErrorBody writes the error e with body, which is its wire's error
// JSON or a fault's own body.
func writeErrorBody(w http.ResponseWriter, wire Wire, e llmwire.Error, body []byte, retryAfter string) {
	w.Header().Set("Content-Type", llmwire.ContentType(llmwire.Wire(wire)))
	e.Header(llmwire.Wire(wire), w.Header())
	if retryAfter != "" && wire.base() != WireGemini && wire != WireBedrock {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.WriteHeader(e.Status)
	_, _ = w.Write(body)
}

func (h *handler) models(w http.ResponseWriter, r *http.Request) {
	name := h.m.modelName(nil)
	var v any
	if r.Header.Get("Anthropic-Version") != "" {
		type model struct {
			Type        string `json:"type"`
			ID          string `json:"id"`
			DisplayName string `json:"display_name"`
			CreatedAt   string `json:"created_at"`
		}
		v = struct {
			Data    []model `json:"data"`
			HasMore bool    `json:"has_more"`
			FirstID string  `json:"first_id"`
			LastID  string  `json:"last_id"`
		}{[]model{{"model", name, name, clock.Epoch.Format(time.RFC3339)}}, false, name, name}
	} else {
		type model struct {
			ID      string `json:"id"`
			Object  string `json:"object"`
			Created int64  `json:"created"`
			OwnedBy string `json:"owned_by"`
		}
		v = struct {
			Object string  `json:"object"`
			Data   []model `json:"data"`
		}{"list", []model{{name, "model", clock.Epoch.Unix(), "aguitest"}}}
	}
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// serve answers one request of a wire.
func (h *handler) serve(w http.ResponseWriter, r *http.Request, spec *wireSpec) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		e := llmwire.Error{Status: http.StatusRequestEntityTooLarge, Type: "request_too_large",
			Message: fmt.Sprintf("scripted: the request body is larger than %d bytes", tooLarge.Limit)}
		h.m.reject(Request{Wire: spec.wire}, fmt.Errorf("%d %s", e.Status, e.Message))
		writeWireError(w, spec.wire, e)
		return
	}
	if err != nil {
		writeWireError(w, spec.wire, *badRequest("Could not read the request body: " + err.Error()))
		return
	}
	var req Request
	var extra any
	perr := (*llmwire.Error)(nil)
	if spec.auth != nil {
		perr = spec.auth(r)
	}
	if perr == nil {
		req, extra, perr = spec.decode(h.m, body, r)
		req.Wire = spec.wire
	}
	if perr == nil && spec.check != nil {
		perr = spec.check(&req)
	}
	if perr != nil {
		req.Wire, req.Body = spec.wire, body
		h.m.reject(req, fmt.Errorf("%d %s", perr.Status, perr.Message))
		writeWireError(w, spec.wire, *perr)
		return
	}
	a, err := h.m.take(req)
	if err != nil {
		writeWireError(w, spec.wire, llmwire.Error{Status: http.StatusBadRequest, Message: "scripted: " + err.Error(), Type: scriptMismatchType(spec.wire), Code: "script_mismatch"})
		return
	}
	a.extra = extra
	if spec.taken != nil {
		spec.taken(h.m, a)
	}
	if spec.header != nil {
		spec.header(w.Header(), a)
	}
	if f := a.fault; f != nil && (f.Kind == FaultStatus || f.Kind == FaultError && !req.Stream) {
		writeErrorBody(w, spec.wire, f.wireError(spec.wire), f.errorBody(spec.wire), f.RetryAfter)
		return
	}
	ctx := r.Context()
	if h.done != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-h.done:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	switch {
	case spec.wire.base() == WireGemini && req.Stream && r.URL.Query().Get("alt") != "sse":
		// Without alt=sse, streamGenerateContent streams a JSON array.
		h.stream(ctx, w, a, &geminiEncoder{array: true}, "application/json; charset=UTF-8")
	case req.Stream:
		ct := spec.streamType
		if ct == "" {
			ct = "text/event-stream"
		}
		h.stream(ctx, w, a, spec.encoder(a), ct)
	default:
		h.complete(ctx, w, a, spec)
	}
}

// scriptMismatchType is the error type of a request the script did not
// expect, in the wire's words.
func scriptMismatchType(w Wire) string {
	switch w.base() {
	case WireGemini:
		return "INVALID_ARGUMENT"
	case WireBedrock:
		return "ValidationException"
	}
	return "invalid_request_error"
}

// stream writes the answer as the wire's event stream. On a real clock
// each event is flushed as it is written. On the virtual clock no time
// passes between events, so they are flushed only before a fault and at
// the end: the client cannot tell the difference, and the stream is
// several times faster.
func (h *handler) stream(ctx context.Context, w http.ResponseWriter, a *answer, enc streamEncoder, contentType string) {
	_, virtual := h.m.clock.(*clock.Virtual)
	rc := http.NewResponseController(w)
	hd := w.Header()
	hd.Set("Content-Type", contentType)
	hd.Set("Cache-Control", "no-cache")
	hd.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	buf := make([]byte, 0, 512)
	for i := 0; i <= len(a.chunks); i++ {
		if f := a.fault; a.faultAt(i) {
			switch f.Kind {
			case FaultDisconnect:
				_ = rc.Flush()
				panic(http.ErrAbortHandler) // drops the connection; net/http logs nothing
			case FaultStall:
				_ = rc.Flush()
				<-ctx.Done()
				return
			case FaultError:
				_, _ = w.Write(enc.fail(buf[:0], a, f))
				_ = rc.Flush()
				return
			case FaultMalformed:
				if _, err := w.Write(enc.malformed(buf[:0], a, f)); err != nil {
					return
				}
			}
		}
		if i == len(a.chunks) {
			break
		}
		if d := a.delay(i); d > 0 {
			_ = rc.Flush()
			if h.m.clock.Sleep(ctx, d) != nil {
				return
			}
		}
		buf = enc.chunk(buf[:0], a, i)
		if len(buf) == 0 {
			continue
		}
		if _, err := w.Write(buf); err != nil {
			return
		}
		if !virtual {
			if err := rc.Flush(); err != nil {
				return
			}
		}
	}
	_, _ = w.Write(enc.end(buf[:0], a))
	_ = rc.Flush()
}

// complete writes the answer of a request that does not stream, after
// the plan's delays.
func (h *handler) complete(ctx context.Context, w http.ResponseWriter, a *answer, spec *wireSpec) {
	if f := a.fault; f != nil {
		switch f.Kind {
		case FaultDisconnect:
			panic(http.ErrAbortHandler)
		case FaultStall:
			<-ctx.Done()
			return
		case FaultMalformed:
			w.Header().Set("Content-Type", "application/json")
			if f.Data != "" {
				_, _ = io.WriteString(w, f.Data)
			} else {
				b := spec.complete(a)
				_, _ = w.Write(b[:len(b)/2])
			}
			return
		}
	}
	var d time.Duration
	for i := range a.chunks {
		d += a.delay(i)
	}
	if h.m.clock.Sleep(ctx, d) != nil {
		return
	}
	w.Header().Set("Content-Type", llmwire.ContentType(llmwire.Wire(spec.wire)))
	_, _ = w.Write(spec.complete(a))
}
