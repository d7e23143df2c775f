package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/aguitest/aguitest/clock"
	"github.com/aguitest/aguitest/internal/words"
)

// Errors a stream yields when a turn's fault strikes part way through.
var (
	// ErrDisconnect: the connection dropped (FaultDisconnect). It wraps
	// io.ErrUnexpectedEOF.
	ErrDisconnect = fmt.Errorf("scripted: connection dropped mid-stream: %w", io.ErrUnexpectedEOF)
	// ErrMalformed: a chunk could not be decoded (FaultMalformed). The
	// stream goes on after it.
	ErrMalformed = errors.New("scripted: malformed chunk")
)

// A StreamError is the error event a turn with a FaultError sends part way
// through its stream; the stream ends with it.
type StreamError struct {
	// Turn is the index of the turn in the script's Turns, from 0; the
	// message numbers turns from 1, as every message does.
	Turn int
	// Status is the HTTP status the error stands for (500 by default).
	Status int
	// Body is the provider-shaped error JSON.
	Body []byte
}

// Error describes the error event.
func (e *StreamError) Error() string {
	return fmt.Sprintf("scripted: turn %d: error event mid-stream (status %d): %s", e.Turn+1, e.Status, e.Body)
}

// A StatusError is the answer of a turn with a FaultStatus: the request
// failed with an HTTP error status.
type StatusError struct {
	// Turn is the index of the turn in the script's Turns, from 0; the
	// message numbers turns from 1, as every message does.
	Turn       int
	Status     int
	RetryAfter string
	// Body is the provider-shaped error JSON.
	Body []byte
}

// Error describes the status, Retry-After and body.
func (e *StatusError) Error() string {
	s := fmt.Sprintf("scripted: turn %d: HTTP status %d", e.Turn+1, e.Status)
	if e.RetryAfter != "" {
		s += ", Retry-After " + e.RetryAfter
	}
	return s + ": " + string(e.Body)
}

// A Model is the Go-native fake LLM: each call to [Model.Stream] answers
// with the next turn of its script. A Model serves one conversation; for
// conversations in parallel, make one Model per conversation.
// Its methods are safe for concurrent use; concurrent requests take turns
// in the order they arrive.
type Model struct {
	script Script
	clock  clock.Clock

	mu       sync.Mutex
	next     int // the turn answering the next request
	served   int // requests turn next has answered (a repeating fault)
	requests []Request
	received int // requests received, kept or not
	retain   int // requests kept: -1 all
	errs     []error
	log      io.Writer
	logErr   error
	store    responseStore
	ollama   []ollamaCall // the calls made on the Ollama wire
}

// NewModel returns a model that answers with the turns of s, in order.
// It panics if s is not valid (see [Script.Validate]); scripts from
// [Load] and [Parse] are.
func NewModel(s Script) *Model {
	if err := s.Validate(); err != nil {
		panic("scripted: invalid script: " + err.Error())
	}
	m := &Model{script: s, clock: s.Clock, retain: -1}
	if m.clock == nil {
		m.clock = new(clock.Virtual)
	}
	return m
}

// An answer is a turn ready to be sent.
type answer struct {
	turn   int
	t      *Turn
	plan   Plan
	chunks []Chunk
	fault  *Fault
	usage  Usage
	model  string // the model name to report
	req    Request
	extra  any // what the wire's decoder kept for the answer
}

// delay is the plan's wait before chunk i.
func (a *answer) delay(i int) time.Duration {
	if i == 0 {
		return time.Duration(a.plan.First)
	}
	return time.Duration(a.plan.Every)
}

// take records req and returns the next turn's answer, or an error (a
// request beyond the script, one that fails the turn's Expect, or a turn
// the request's wire cannot express). The chunks end with a usage chunk.
func (m *Model) take(req Request) (*answer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	gt, genErr := m.generate(&req)
	m.record(req)
	n := m.received - 1
	if m.next >= len(m.script.Turns) {
		err := fmt.Errorf("request %d is unexpected: the script has %s%s", n+1, words.Count(len(m.script.Turns), "turn", "turns"), lastUser(req))
		m.errs = append(m.errs, err)
		return nil, err
	}
	i := m.next
	t := &m.script.Turns[i]
	m.served++
	if k := t.Fault.times(); t.Fault == nil || k >= 0 && m.served >= k {
		m.next++
		m.served = 0
	}
	if err := t.Expect.match(&req); err != nil {
		err = fmt.Errorf("%sturn %d: %w", m.script.where(i), i+1, err)
		m.errs = append(m.errs, err)
		return nil, err
	}
	if genErr != nil {
		err := fmt.Errorf("%sturn %d: %w", m.script.where(i), i+1, genErr)
		m.errs = append(m.errs, err)
		return nil, err
	}
	p := t.Plan.over(m.script.Plan)
	if gt != nil {
		t = gt
	}
	if req.Wire != "" {
		if err := t.expressible(req.Wire, p, i, req.Stream); err != nil {
			err = fmt.Errorf("%sturn %d: %w", m.script.where(i), i+1, err)
			m.errs = append(m.errs, err)
			return nil, err
		}
	}
	if m.retain != 0 {
		m.requests[len(m.requests)-1].Turn = i + 1 // req, kept last
	}
	u := estimate(t, &req)
	a := &answer{turn: i, t: t, plan: p, chunks: planChunks(t, i, p, &u, req.Wire.wholeCalls()), fault: t.Fault, usage: u, req: req}
	a.model = m.modelName(&req)
	return a, nil
}

// generate makes the calls of the turn answering req next, when it asks
// for generated calls: it returns the turn with them, and notes them in
// req. m.mu is held.
func (m *Model) generate(req *Request) (*Turn, error) {
	i := m.next
	if i >= len(m.script.Turns) || m.script.Turns[i].Generate == nil {
		return nil, nil
	}
	t := &m.script.Turns[i]
	g := t.Generate
	seed := g.Seed
	if seed == 0 {
		seed = mix(t.Plan.over(m.script.Plan).Seed, i, -20)
	}
	calls, err := generateCalls(g, req.Tools, seed)
	if err != nil {
		return nil, err
	}
	gt := *t
	gt.Generate = nil
	gt.Calls = slices.Clone(t.Calls)
	for k := range calls {
		n := len(gt.Calls)
		gt.Calls = append(gt.Calls, calls[k])
		calls[k].ID = calls[k].wireID(req.Wire, i, n)
	}
	req.Generated = calls
	return &gt, nil
}

// reject records a request the server refused before it reached the
// script (one the real provider would refuse).
func (m *Model) reject(req Request, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	req.Error = err.Error()
	m.record(req)
	m.errs = append(m.errs, fmt.Errorf("request %d (%s) was refused as the provider would refuse it: %w", m.received, req.Wire, err))
}

// record keeps req and logs it; m.mu is held.
func (m *Model) record(req Request) {
	m.received++
	switch {
	case m.retain < 0:
		m.requests = append(m.requests, req)
	case m.retain > 0:
		if len(m.requests) == m.retain {
			copy(m.requests, m.requests[1:])
			m.requests = m.requests[:len(m.requests)-1]
		}
		m.requests = append(m.requests, req)
	}
	if m.log != nil && m.logErr == nil {
		b, err := json.Marshal(req)
		if err == nil {
			_, err = m.log.Write(append(b, '\n'))
		}
		if err != nil {
			m.logErr = fmt.Errorf("writing the request log: %w", err)
		}
	}
}

// LogRequests makes m write every request it receives from now on to w,
// one JSON object per line as it arrives: the wire, the neutral form
// (model, system, messages, tools, options) and the raw body (see
// [Request.MarshalJSON]). A write error stops the log and is reported by
// Check. Call it before the first request.
func (m *Model) LogRequests(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log = w
}

func (m *Model) modelName(req *Request) string {
	switch {
	case m.script.Model != "":
		return m.script.Model
	case req != nil && req.Model != "":
		return req.Model
	}
	return "scripted"
}

func lastUser(req Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			c := req.Messages[i].Content
			if len(c) > 60 {
				c = c[:60] + "..."
			}
			return fmt.Sprintf(" (last user message %q)", c)
		}
	}
	return ""
}

// estimate returns the turn's usage, or about four bytes a token.
func estimate(t *Turn, req *Request) Usage {
	if t.Usage != nil {
		u := *t.Usage
		if u.TotalTokens == 0 {
			u.TotalTokens = u.PromptTokens + u.CompletionTokens
		}
		return u
	}
	in := 0
	for _, m := range req.Messages {
		in += 4 + len(m.Content)/4
	}
	out := (len(t.Reasoning) + len(t.text()) + 3) / 4
	for _, c := range t.Calls {
		out += 4 + len(c.args())/4
	}
	return Usage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out}
}

// faultAt reports whether the answer's stream fault strikes before chunk
// i; a fault set after the last chunk strikes before the end of the stream
// (for the server, before "data: [DONE]").
func (a *answer) faultAt(i int) bool {
	return a.fault != nil && a.fault.Kind != FaultStatus && min(a.fault.After, len(a.chunks)) == i
}

// Stream answers req with the next turn. A turn with a FaultStatus
// returns a *StatusError; a request the script does not expect returns an
// error saying why. Other faults strike while ranging over the stream,
// which yields ErrDisconnect (and stops), ErrMalformed (and goes on), or,
// for a stall, the context's error once ctx ends. Delays of the plan are
// slept on the script's Clock before each chunk.
//
// The stream ends with a Finish chunk and a Usage chunk.
func (m *Model) Stream(ctx context.Context, req Request) (iter.Seq2[Chunk, error], error) {
	a, err := m.take(req)
	if err != nil {
		return nil, err
	}
	if f := a.fault; f != nil && f.Kind == FaultStatus {
		return nil, &StatusError{Turn: a.turn, Status: f.Status, RetryAfter: f.RetryAfter, Body: f.errorBody(WireChat)}
	}
	return func(yield func(Chunk, error) bool) {
		for i := 0; i <= len(a.chunks); i++ {
			if f := a.fault; a.faultAt(i) {
				switch f.Kind {
				case FaultDisconnect:
					yield(Chunk{}, ErrDisconnect)
					return
				case FaultError:
					yield(Chunk{}, &StreamError{Turn: a.turn, Status: f.wireError(WireChat).Status, Body: f.errorBody(WireChat)})
					return
				case FaultStall:
					<-ctx.Done()
					yield(Chunk{}, ctx.Err())
					return
				case FaultMalformed:
					if !yield(Chunk{}, ErrMalformed) {
						return
					}
				}
			}
			if i == len(a.chunks) {
				return
			}
			if err := m.clock.Sleep(ctx, a.delay(i)); err != nil {
				yield(Chunk{}, err)
				return
			}
			if !yield(a.chunks[i], nil) {
				return
			}
		}
	}, nil
}

// RetainRequests makes m keep only the last n requests it receives (none
// when n is 0; every one when n is negative, the default), so that a
// long-running server does not hold every request body: Requests returns
// those kept, Received counts them all. Call it before the first request.
func (m *Model) RetainRequests(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.retain = n
	if n >= 0 && len(m.requests) > n {
		m.requests = append([]Request(nil), m.requests[len(m.requests)-n:]...)
	}
}

// Received returns how many requests m has received.
func (m *Model) Received() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.received
}

// Requests returns the requests received so far and kept (see
// RetainRequests), in order.
func (m *Model) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.requests...)
}

// Used returns how many turns have been taken (a turn whose fault repeats
// counts once it answered a request).
func (m *Model) Used() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.served > 0 {
		return m.next + 1
	}
	return m.next
}

// Check reports what went wrong with the conversation so far: unexpected
// requests, requests that failed a turn's Expect, and turns never used.
// Each error names its turn (and file:line for a loaded script).
func (m *Model) Check() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	errs := append([]error(nil), m.errs...)
	if m.logErr != nil {
		errs = append(errs, m.logErr)
	}
	first := m.next
	if first < len(m.script.Turns) && m.served > 0 {
		// A repeating fault that answered fewer requests than it should.
		if f := m.script.Turns[first].Fault; f.times() > 0 {
			errs = append(errs, fmt.Errorf("%sturn %d: its fault answered %d of %s (the client retried fewer times)", m.script.where(first), first+1, m.served, words.Count(f.times(), "request", "requests")))
		}
		first++
	}
	for i := first; i < len(m.script.Turns); i++ {
		errs = append(errs, fmt.Errorf("%sturn %d was never used: %s for %s", m.script.where(i), i+1,
			words.Count(m.received, "request", "requests"), words.Count(len(m.script.Turns), "turn", "turns")))
	}
	return errors.Join(errs...)
}
