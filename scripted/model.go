package scripted

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync"
	"time"

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
	clock  Clock

	mu       sync.Mutex
	next     int
	requests []Request
	errs     []error
}

// NewModel returns a model that answers with the turns of s, in order.
// It panics if s is not valid (see [Script.Validate]); scripts from
// [Load] and [Parse] are.
func NewModel(s Script) *Model {
	if err := s.Validate(); err != nil {
		panic("scripted: invalid script: " + err.Error())
	}
	m := &Model{script: s, clock: s.Clock}
	if m.clock == nil {
		m.clock = new(VirtualClock)
	}
	return m
}

// An answer is a turn ready to be sent.
type answer struct {
	turn   int
	plan   Plan
	chunks []Chunk
	fault  *Fault
	usage  Usage
}

// take records req and returns the next turn's answer, or an error (a
// request beyond the script, or one that fails the turn's Expect).
// The chunks end with a usage chunk.
func (m *Model) take(req Request) (*answer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, req)
	if m.next >= len(m.script.Turns) {
		err := fmt.Errorf("request %d is unexpected: the script has %s%s", len(m.requests), words.Count(len(m.script.Turns), "turn", "turns"), lastUser(req))
		m.errs = append(m.errs, err)
		return nil, err
	}
	i := m.next
	m.next++
	t := &m.script.Turns[i]
	if err := t.Expect.match(&req); err != nil {
		err = fmt.Errorf("%sturn %d: %w", m.script.where(i), i+1, err)
		m.errs = append(m.errs, err)
		return nil, err
	}
	p := t.Plan.over(m.script.Plan)
	u := estimate(t, &req)
	return &answer{turn: i, plan: p, chunks: planChunks(t, i, p, &u), fault: t.Fault, usage: u}, nil
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
		return nil, &StatusError{Turn: a.turn, Status: f.Status, RetryAfter: f.RetryAfter, Body: f.errorBody()}
	}
	return func(yield func(Chunk, error) bool) {
		for i := 0; i <= len(a.chunks); i++ {
			if f := a.fault; a.faultAt(i) {
				switch f.Kind {
				case FaultDisconnect:
					yield(Chunk{}, ErrDisconnect)
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
			d := a.plan.Every
			if i == 0 {
				d = a.plan.First
			}
			if err := m.clock.Sleep(ctx, time.Duration(d)); err != nil {
				yield(Chunk{}, err)
				return
			}
			if !yield(a.chunks[i], nil) {
				return
			}
		}
	}, nil
}

// Requests returns the requests received so far, in order.
func (m *Model) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.requests...)
}

// Used returns how many turns have been taken.
func (m *Model) Used() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.next
}

// Check reports what went wrong with the conversation so far: unexpected
// requests, requests that failed a turn's Expect, and turns never used.
// Each error names its turn (and file:line for a loaded script).
func (m *Model) Check() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	errs := append([]error(nil), m.errs...)
	for i := m.next; i < len(m.script.Turns); i++ {
		errs = append(errs, fmt.Errorf("%sturn %d was never used: %s for %s", m.script.where(i), i+1,
			words.Count(len(m.requests), "request", "requests"), words.Count(len(m.script.Turns), "turn", "turns")))
	}
	return errors.Join(errs...)
}
