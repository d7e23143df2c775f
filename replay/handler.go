package replay

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

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/clock"
	"github.com/aguitest/aguitest/internal/serve"
	"github.com/aguitest/aguitest/internal/words"
)

// Options configures Server and Stream.
type Options struct {
	// Speed scales the recorded timing: 1 replays it as recorded, 2 twice
	// as fast, 0 (the zero value) sends everything at once.
	Speed float64
	// Clock paces the recorded timing; nil means the real clock. Tests
	// give a clock.Virtual to replay timing without waiting.
	Clock clock.Clock
	// Loop serves the runs again from the first once all were served;
	// without it, a request after the last run is refused (409).
	Loop bool
	// Encoding, when set, is the encoding every run is served in.
	// Otherwise Handler answers in the encoding the request's Accept
	// header asks for (agui.Negotiate: protobuf when it prefers it,
	// server-sent events otherwise) and Stream writes server-sent events.
	Encoding agui.Encoding
	// OnLoss is told of each recorded event the chosen encoding cannot
	// carry whole: an event protobuf has no place for all of (its losses),
	// no message for (agui.ErrNoProtoForm, not sent), recorded data that
	// is no event (not sent in protobuf), a protobuf frame that holds no
	// event (not sent in server-sent events). It may be called from
	// several requests at once. Nil ignores them.
	OnLoss func(run *Run, index int, err error)
	// AllowOrigins are the origins (scheme://host[:port]) whose web pages
	// may call Handler from a browser: they get CORS headers and their
	// preflight requests are answered; "*" allows every origin. A request
	// from any other origin (one with an Origin header, as browsers send)
	// is refused (403), so that a page the developer happens to visit
	// cannot read recordings of production traffic. Nil allows none.
	AllowOrigins []string
	// MaxRequestBytes bounds a request's body; a larger one is answered
	// 413. Zero means DefaultMaxRequestBytes.
	MaxRequestBytes int64
}

// DefaultMaxRequestBytes bounds request bodies when
// Options.MaxRequestBytes is zero.
const DefaultMaxRequestBytes = 8 << 20

// readBody reads a request's body within limit (DefaultMaxRequestBytes
// when 0 or less); a larger one is answered 413 and reported as false.
func readBody(w http.ResponseWriter, r *http.Request, limit int64, answer func(status int, msg string)) ([]byte, bool) {
	if limit <= 0 {
		limit = DefaultMaxRequestBytes
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		answer(http.StatusRequestEntityTooLarge, fmt.Sprintf("aguitest replay: the request body is larger than %d bytes (the limit: --max-request-bytes, Options.MaxRequestBytes)", tooLarge.Limit))
		return nil, false
	case err != nil:
		answer(http.StatusBadRequest, "aguitest replay: reading the request body: "+err.Error())
		return nil, false
	}
	return body, true
}

// allowOrigin reports whether a browser page of origin may call.
func (o *Options) allowOrigin(origin string) bool {
	for _, a := range o.AllowOrigins {
		if a == "*" || strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	return false
}

// wait waits d scaled by speed on c (the real clock when nil), or until
// ctx is done; a speed of 0 or less does not wait.
func wait(ctx context.Context, c clock.Clock, speed float64, d time.Duration) error {
	if speed <= 0 || d <= 0 {
		return ctx.Err()
	}
	return clock.Or(c).Sleep(ctx, time.Duration(float64(d)/speed))
}

// Handler serves recorded runs as an AG-UI endpoint: each POST receives the
// next run's events, with the recorded timing scaled by Options.Speed. A
// request whose body names the runId of a run not yet served gets that run
// instead. Each event is flushed as it is written.
//
// The encoding is the one the request's Accept header asks for (see
// Options.Encoding), whatever the recording's: server-sent events with the
// events as recorded (after redaction), one "data:" line each (SSE event
// names and ids of the original stream are not recorded), or protobuf
// frames encoded as @ag-ui/encoder encodes them (recorded frames are sent
// as they came). What an encoding cannot carry goes to Options.OnLoss.
// Browsers may call it only from the origins Options.AllowOrigins names:
// by default no web page can read what it serves.
//
// Handler's Server is for mounting on a server of one's own; NewServer
// also starts one on a loopback port.
func Handler(runs []*Run, opt Options) *Server {
	return &Server{runs: runs, opt: opt, served: make([]bool, len(runs)), ever: make([]bool, len(runs))}
}

// NewServer starts a Server for runs on a free loopback port. It panics
// when no port can be had; see Listen for an error.
func NewServer(runs []*Run, opt Options) *Server {
	s, err := Listen("127.0.0.1:0", runs, opt)
	if err != nil {
		panic("replay: " + err.Error())
	}
	return s
}

// Listen starts a Server for runs on addr.
func Listen(addr string, runs []*Run, opt Options) (*Server, error) {
	s := Handler(runs, opt)
	srv, err := serve.Listen(addr, s)
	if err != nil {
		return nil, err
	}
	s.URL, s.srv = srv.URL, srv
	return s, nil
}

// Server serves recorded runs as an AG-UI endpoint (see Handler). It has
// the shape of every fake server here (scripted.Server, Provider):
// NewServer starts it, URL locates it, Close stops it and waits, Check
// reports what was left unused.
type Server struct {
	// URL is the endpoint of a started Server, http://127.0.0.1:PORT;
	// "" for one made by Handler.
	URL string

	runs []*Run
	opt  Options
	srv  *serve.Server

	mu      sync.Mutex
	served  []bool // in this pass (Loop starts passes over)
	ever    []bool // in any pass
	next    int
	refused int
}

// Close stops a started Server, ending the responses under way, and
// waits for it. It does nothing for one made by Handler.
func (s *Server) Close() {
	if s.srv != nil {
		s.srv.Close()
	}
}

// Check reports the requests refused because every run had been served,
// and the runs no request received, or nil.
func (s *Server) Check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	if s.refused > 0 {
		errs = append(errs, fmt.Errorf("%s refused: no run was left to serve (%s, Loop off)", words.Count(s.refused, "request was", "requests were"), words.Count(len(s.runs), "run", "runs")))
	}
	for i, r := range s.runs {
		if !s.ever[i] {
			errs = append(errs, fmt.Errorf("run %d of %d (%s) was never requested", i+1, len(s.runs), r.ID))
		}
	}
	return errors.Join(errs...)
}

// pick chooses the run for a request.
func (s *Server) pick(runID string) *Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	if runID != "" {
		for i, r := range s.runs {
			if !s.served[i] && runIDOf(r) == runID {
				s.served[i], s.ever[i] = true, true
				return r
			}
		}
	}
	for pass := 0; pass < 2; pass++ {
		for ; s.next < len(s.runs); s.next++ {
			if !s.served[s.next] {
				s.served[s.next], s.ever[s.next] = true, true
				return s.runs[s.next]
			}
		}
		if !s.opt.Loop || len(s.runs) == 0 {
			return nil
		}
		s.next = 0
		clear(s.served)
	}
	return nil
}

func runIDOf(r *Run) string {
	if r.Request != nil && len(r.Request.Input) > 0 {
		var in struct {
			RunID string `json:"runId"`
		}
		if json.Unmarshal(r.Request.Input, &in) == nil && in.RunID != "" {
			return in.RunID
		}
	}
	return r.ID
}

// Unserved returns the runs no request has received yet.
func (s *Server) Unserved() []*Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Run
	for i, r := range s.runs {
		if !s.served[i] {
			out = append(out, r)
		}
	}
	return out
}

// ServeHTTP serves the next run to a POST.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" {
		if !s.opt.allowOrigin(origin) {
			http.Error(w, fmt.Sprintf("aguitest replay: origin %q is not allowed to read these recordings (allow it with --allow-origin, Options.AllowOrigins)", origin), http.StatusForbidden)
			return
		}
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Add("Vary", "Origin")
		w.Header().Set("Access-Control-Allow-Methods", "POST, OPTIONS")
		if h := r.Header.Get("Access-Control-Request-Headers"); h != "" {
			w.Header().Set("Access-Control-Allow-Headers", h)
		}
	}
	switch r.Method {
	case http.MethodOptions:
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodPost:
	default:
		w.Header().Set("Allow", "POST, OPTIONS")
		http.Error(w, "aguitest replay: POST a RunAgentInput", http.StatusMethodNotAllowed)
		return
	}
	var in struct {
		RunID string `json:"runId"`
	}
	body, ok := readBody(w, r, s.opt.MaxRequestBytes, func(status int, msg string) { http.Error(w, msg, status) })
	if !ok {
		return
	}
	_ = json.Unmarshal(body, &in)
	run := s.pick(in.RunID)
	if run == nil {
		s.mu.Lock()
		s.refused++
		s.mu.Unlock()
		http.Error(w, servedAll(len(s.runs)), http.StatusConflict)
		return
	}
	opt := s.opt
	if opt.Encoding == "" {
		opt.Encoding = agui.Negotiate(r.Header.Get("Accept"))
	}
	w.Header().Set("Content-Type", opt.Encoding.ContentType())
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Add("Vary", "Accept")
	w.WriteHeader(http.StatusOK)
	_ = Stream(r.Context(), w, run, opt)
}

// servedAll is the answer to a request after the last of n runs, as
// "aguitest serve" (whose Handler this is) says it.
func servedAll(n int) string {
	return fmt.Sprintf("aguitest serve: all %s were served; --loop (Options.Loop) serves them again from the first", words.Count(n, "recorded run", "recorded runs"))
}

// Stream writes the run's events to w in opt.Encoding (server-sent events
// when it is "") with the timing of opt, flushing after each. It stops
// when ctx is done or a write fails.
func Stream(ctx context.Context, w io.Writer, run *Run, opt Options) error {
	if opt.Encoding == agui.EncodingProto {
		enc := agui.NewProtoEncoder(w)
		return paced(ctx, run, opt, func(i int, e Event) error {
			switch {
			case e.Frame != nil:
				return enc.EncodeFrame(e.Frame) // as recorded
			case e.Data != "":
				opt.lose(run, i, e.Line, errors.New("recorded data that is not an AG-UI event: not sent in protobuf"))
				return nil
			}
			err := enc.Encode(e.Event)
			if errors.Is(err, agui.ErrNoProtoForm) {
				opt.lose(run, i, e.Line, err)
				return nil
			}
			if ls := enc.Losses(); err == nil && ls != nil {
				opt.lose(run, i, e.Line, &agui.LossError{Type: e.Event.Type(), Losses: ls})
			}
			return err
		})
	}
	enc := agui.NewSSEEncoder(w)
	return paced(ctx, run, opt, func(i int, e Event) error {
		switch {
		case e.Data != "":
			return enc.EncodeMessage(agui.SSEMessage{Data: []byte(e.Data), Retry: -1})
		case len(e.Event.Raw()) == 0:
			opt.lose(run, i, e.Line, errors.New("a protobuf frame that holds no event: not sent in server-sent events"))
			return nil
		}
		return enc.Encode(e.Event)
	})
}

// paced hands send each event of run at its recorded offset, scaled by
// opt.Speed, and stops at the first error or when ctx is done.
func paced(ctx context.Context, run *Run, opt Options, send func(i int, e Event) error) error {
	var prev time.Duration
	return run.each(func(i int, e Event) error {
		if err := wait(ctx, opt.Clock, opt.Speed, e.Offset-prev); err != nil {
			return err
		}
		prev = e.Offset
		return send(i, e)
	})
}

func (o *Options) lose(run *Run, i int, line int, err error) {
	if o.OnLoss != nil {
		if run.at != nil {
			err = &LossAt{Line: line, Err: err}
		}
		o.OnLoss(run, i, err)
	}
}

// LossAt is the error Options.OnLoss receives for a run of Index, which
// holds no events: the line of the event not sent, and why.
type LossAt struct {
	Line int
	Err  error
}

// Error names the line, then the cause.
func (e *LossAt) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the cause.
func (e *LossAt) Unwrap() error { return e.Err }
