package scripted

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A Server is an OpenAI-compatible HTTP server on a loopback port that
// answers with a script, like an httptest.Server. It serves
//
//	POST /v1/chat/completions  streaming (SSE) and not
//	GET  /v1/models
//
// and records every request. One Server serves one conversation.
type Server struct {
	// URL is the base URL, http://127.0.0.1:PORT/v1, to give an OpenAI
	// client as its base URL.
	URL string

	model *Model
	hs    *http.Server
	ln    net.Listener
	done  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
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
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &Server{model: m, ln: ln, done: make(chan struct{})}
	srv.URL = "http://" + ln.Addr().String() + "/v1"
	srv.hs = &http.Server{Handler: &handler{m: m, done: srv.done}, ReadHeaderTimeout: 10 * time.Second}
	srv.wg.Go(func() { _ = srv.hs.Serve(ln) })
	return srv, nil
}

// Close stops the server, releasing any stalled stream, and waits for it.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.done)
		_ = s.hs.Close()
		s.wg.Wait()
	})
}

// Shutdown stops the server gracefully: stalled streams are released and
// the streams under way finish, or ctx ends.
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	s.once.Do(func() {
		close(s.done)
		err = s.hs.Shutdown(ctx)
		s.wg.Wait()
	})
	return err
}

// Model returns the model the server answers with.
func (s *Server) Model() *Model { return s.model }

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request { return s.model.Requests() }

// Check reports unexpected requests, requests that failed a turn's
// Expect, and unused turns; see [Model.Check].
func (s *Server) Check() error { return s.model.Check() }

// Handler returns the OpenAI-compatible HTTP handler of m, to mount in a
// server of one's own. It serves paths ending in /chat/completions and
// /models.
func (m *Model) Handler() http.Handler { return &handler{m: m} }

type handler struct {
	m    *Model
	done <-chan struct{} // closed when the server closes; may be nil
}

const maxBody = 32 << 20

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		if r.Method != http.MethodPost {
			writeError(w, http.StatusMethodNotAllowed, "Use POST for /chat/completions.", "invalid_request_error", "method_not_allowed")
			return
		}
		h.chat(w, r)
	case strings.HasSuffix(r.URL.Path, "/models"):
		if r.Method != http.MethodGet {
			writeError(w, http.StatusMethodNotAllowed, "Use GET for /models.", "invalid_request_error", "method_not_allowed")
			return
		}
		h.models(w)
	default:
		writeError(w, http.StatusNotFound, "Unknown path "+r.URL.Path+": this server serves /v1/chat/completions and /v1/models.", "invalid_request_error", "unknown_url")
	}
}

func writeError(w http.ResponseWriter, status int, msg, typ, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(providerError(msg, typ, code))
}

func (h *handler) modelName(req *Request) string {
	switch {
	case h.m.script.Model != "":
		return h.m.script.Model
	case req != nil && req.Model != "":
		return req.Model
	}
	return "scripted"
}

func (h *handler) models(w http.ResponseWriter) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	b, _ := json.Marshal(struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{"list", []model{{h.modelName(nil), "model", Epoch.Unix(), "aguitest"}}})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func (h *handler) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "Could not read the request body: "+err.Error(), "invalid_request_error", "invalid_body")
		return
	}
	req, err := decodeRequest(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error(), "invalid_request_error", "invalid_request")
		return
	}
	a, err := h.m.take(req)
	if err != nil {
		writeError(w, http.StatusBadRequest, "scripted: "+err.Error(), "invalid_request_error", "script_mismatch")
		return
	}
	if f := a.fault; f != nil && f.Kind == FaultStatus {
		w.Header().Set("Content-Type", "application/json")
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		w.WriteHeader(f.Status)
		_, _ = w.Write(f.errorBody())
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
	id := "chatcmpl-scripted-" + strconv.Itoa(a.turn)
	if req.Stream {
		h.stream(ctx, w, a, newEncoder(id, h.modelName(&req), Epoch.Unix(), req.IncludeUsage))
	} else {
		h.complete(ctx, w, a, id, h.modelName(&req))
	}
}

// stream writes the answer as server-sent events, then "data: [DONE]".
// On a real clock each event is flushed as it is written. On the virtual
// clock no time passes between events, so they are flushed only before a
// fault and at the end: the client cannot tell the difference, and the
// stream is several times faster.
func (h *handler) stream(ctx context.Context, w http.ResponseWriter, a *answer, enc *encoder) {
	_, virtual := h.m.clock.(*VirtualClock)
	rc := http.NewResponseController(w)
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
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
			case FaultMalformed:
				buf = append(buf[:0], "data: "...)
				buf = append(buf, f.malformed(a.turn)...)
				buf = append(buf, "\n\n"...)
				if _, err := w.Write(buf); err != nil {
					return
				}
			}
		}
		if i == len(a.chunks) {
			break
		}
		d := a.plan.Every
		if i == 0 {
			d = a.plan.First
		}
		if d > 0 {
			_ = rc.Flush()
			if h.m.clock.Sleep(ctx, time.Duration(d)) != nil {
				return
			}
		}
		buf = enc.appendChunk(buf[:0], &a.chunks[i])
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
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	_ = rc.Flush()
}

func (f *Fault) malformed(turn int) string {
	if f.Data != "" {
		return f.Data
	}
	return `{"id":"chatcmpl-scripted-` + strconv.Itoa(turn) + `","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"`
}

// complete writes the answer as one chat.completion object.
func (h *handler) complete(ctx context.Context, w http.ResponseWriter, a *answer, id, model string) {
	if f := a.fault; f != nil {
		switch f.Kind {
		case FaultDisconnect:
			panic(http.ErrAbortHandler)
		case FaultStall:
			<-ctx.Done()
			return
		case FaultMalformed:
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, f.malformed(a.turn))
			return
		}
	}
	var d time.Duration
	for i := range a.chunks {
		if i == 0 {
			d += time.Duration(a.plan.First)
		} else {
			d += time.Duration(a.plan.Every)
		}
	}
	if h.m.clock.Sleep(ctx, d) != nil {
		return
	}
	type function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type toolCall struct {
		ID       string   `json:"id"`
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	type message struct {
		Role      string     `json:"role"`
		Content   *string    `json:"content"`
		Reasoning string     `json:"reasoning_content,omitempty"`
		ToolCalls []toolCall `json:"tool_calls,omitempty"`
	}
	var msg message
	msg.Role = "assistant"
	var text strings.Builder
	finish := ""
	for _, c := range a.chunks {
		switch c.kind() {
		case kindText:
			text.WriteString(c.Text)
		case kindReasoning:
			msg.Reasoning += c.Reasoning
		case kindFinish:
			finish = c.Finish
		}
	}
	// Calls in index order, whatever the plan's interleaving.
	t := &h.m.script.Turns[a.turn]
	for n, c := range t.Calls {
		msg.ToolCalls = append(msg.ToolCalls, toolCall{c.callID(a.turn, n), "function", function{c.Name, c.args()}})
	}
	if text.Len() > 0 || len(msg.ToolCalls) == 0 {
		s := text.String()
		msg.Content = &s
	}
	type choice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		Logprobs     *int    `json:"logprobs"`
		FinishReason string  `json:"finish_reason"`
	}
	b, err := json.Marshal(struct {
		ID                string   `json:"id"`
		Object            string   `json:"object"`
		Created           int64    `json:"created"`
		Model             string   `json:"model"`
		SystemFingerprint string   `json:"system_fingerprint"`
		Choices           []choice `json:"choices"`
		Usage             Usage    `json:"usage"`
	}{id, "chat.completion", Epoch.Unix(), model, "fp_scripted", []choice{{0, msg, nil, finish}}, a.usage})
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), "server_error", "server_error")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
