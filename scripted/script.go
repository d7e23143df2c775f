package scripted

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aguitest/aguitest/clock"
	"github.com/aguitest/aguitest/internal/llmwire"
)

// A Script is what the fake model answers, one [Turn] per request, in order.
//
// A Script is plain data: it can be shared and reused. Each [Model] or
// [Server] made from it keeps its own position, so parallel tests that
// build their own Model or Server from the same Script do not interfere.
type Script struct {
	// Model is the model name reported in responses and by GET /v1/models.
	// The zero value means "scripted".
	Model string `yaml:"model,omitempty" json:"model,omitempty"`

	// Plan is the default plan of every turn whose own Plan is zero.
	Plan Plan `yaml:"plan,omitempty" json:"plan,omitzero"`

	// Turns are the answers, in the order the requests arrive.
	Turns []Turn `yaml:"turns" json:"turns"`

	// Clock paces delays. Nil means a fresh virtual clock per Model, so no
	// delay ever sleeps. It is never read from or written to a file.
	Clock clock.Clock `yaml:"-" json:"-"`

	// source names where the script was loaded from, for error messages.
	source string
	// lines holds the file line of each turn, when loaded from a file.
	lines []int
}

// A Turn is the model's answer to one request.
type Turn struct {
	// Expect states what the request answered by this turn must contain.
	Expect Expect `yaml:"expect,omitempty" json:"expect,omitzero"`

	// Reasoning is streamed first, as reasoning deltas.
	Reasoning string `yaml:"reasoning,omitempty" json:"reasoning,omitempty"`
	// Text is the assistant's visible text.
	Text string `yaml:"text,omitempty" json:"text,omitempty"`
	// Fragments, when set, are the exact text deltas; their concatenation
	// is the text. Text must then be empty or equal to it.
	Fragments []string `yaml:"fragments,omitempty" json:"fragments,omitempty"`
	// Calls are the tool calls, streamed according to Plan.Order.
	Calls []Call `yaml:"calls,omitempty" json:"calls,omitempty"`
	// Generate, when set, adds calls to the tools the request declares,
	// their arguments generated from the tools' schemas (see Generate).
	Generate *Generate `yaml:"generate,omitempty" json:"generate,omitempty"`

	// Finish is the finish reason. The zero value means "tool_calls" when
	// the turn has calls and "stop" otherwise.
	Finish string `yaml:"finish,omitempty" json:"finish,omitempty"`
	// Usage is reported at the end of the stream. Nil means an estimate
	// derived from the request and answer sizes.
	Usage *Usage `yaml:"usage,omitempty" json:"usage,omitempty"`

	// Plan says how the answer is cut, ordered and paced. The zero value
	// means the script's Plan.
	Plan Plan `yaml:"plan,omitempty" json:"plan,omitzero"`

	// Fault, when set, makes the answer fail instead of, or part way
	// through, streaming.
	Fault *Fault `yaml:"fault,omitempty" json:"fault,omitempty"`
}

// A Call is one tool call of a turn.
type Call struct {
	// ID is the call id. Empty means "call_<turn>_<n>", with turn and n
	// counted from 1 as messages count them ("call_1_2" is the second call
	// of the first turn), so ids are the same on every run.
	ID string `yaml:"id,omitempty" json:"id,omitempty"`
	// Name is the tool name.
	Name string `yaml:"name" json:"name"`
	// Args is the arguments JSON text. It must be valid JSON unless Raw is
	// set; the empty string means "{}".
	Args string `yaml:"args,omitempty" json:"args,omitempty"`
	// Raw allows Args that are not JSON, to test how an agent copes.
	Raw bool `yaml:"raw,omitempty" json:"raw,omitempty"`
	// Fragments, when set, are the exact argument deltas; their
	// concatenation is the arguments. Args must then be empty or equal.
	Fragments []string `yaml:"fragments,omitempty" json:"fragments,omitempty"`

	// Schema is the parameters' schema of the tool of a generated call
	// (see Generate), within which an exploration shrinks its arguments.
	// It is not written to script files.
	Schema json.RawMessage `yaml:"-" json:"-"`
}

// Usage is token usage, as reported by providers.
type Usage struct {
	PromptTokens     int `yaml:"prompt_tokens" json:"prompt_tokens"`
	CompletionTokens int `yaml:"completion_tokens" json:"completion_tokens"`
	TotalTokens      int `yaml:"total_tokens,omitempty" json:"total_tokens"`
}

// FaultKind names how a turn fails.
type FaultKind string

// The fault kinds.
const (
	// FaultStatus answers with an HTTP error status and the wire's error
	// body instead of a stream.
	FaultStatus FaultKind = "status"
	// FaultError sends Fault.After chunks and then the wire's error event
	// and ends the stream: Anthropic's "error" event, Responses' "error"
	// and "response.failed", an {"error":...} chunk on Chat Completions
	// and Gemini. A request that does not stream gets an HTTP error.
	FaultError FaultKind = "error"
	// FaultDisconnect drops the connection after Fault.After chunks.
	FaultDisconnect FaultKind = "disconnect"
	// FaultMalformed sends a chunk that is not valid JSON after
	// Fault.After chunks, then the rest of the stream.
	FaultMalformed FaultKind = "malformed"
	// FaultStall sends Fault.After chunks and then nothing, until the
	// client gives up (its request context ends) or the server closes.
	FaultStall FaultKind = "stall"
)

// A Fault makes a turn fail.
//
// A fault answers one request, Times requests in a row, or with Always
// every request from then on, so that a client that retries meets it on
// every attempt. The turn is used up once its fault has answered Times
// requests; the next request gets the next turn.
type Fault struct {
	Kind FaultKind `yaml:"kind" json:"kind"`

	// Status is the HTTP status of a FaultStatus (e.g. 429, 500, 529), or
	// of the error a FaultError reports (when zero: 500, and on
	// Anthropic 529, overloaded_error).
	Status int `yaml:"status,omitempty" json:"status,omitempty"`
	// RetryAfter is the Retry-After header of a FaultStatus, if not empty
	// (seconds). On Gemini, which sends no such header, it becomes the
	// retryDelay of a google.rpc.RetryInfo detail.
	RetryAfter string `yaml:"retry_after,omitempty" json:"retry_after,omitempty"`
	// Message, Type and Code fill the wire's error body. Type is the
	// OpenAI error type, Anthropic's error.type ("overloaded_error") or
	// Gemini's status ("RESOURCE_EXHAUSTED"); Code is OpenAI's error code.
	// Empty fields get the values the provider sends with Status.
	Message string `yaml:"message,omitempty" json:"message,omitempty"`
	Type    string `yaml:"type,omitempty" json:"type,omitempty"`
	Code    string `yaml:"code,omitempty" json:"code,omitempty"`
	// Body, if not empty, is sent verbatim instead of the error JSON.
	Body string `yaml:"body,omitempty" json:"body,omitempty"`

	// After is the number of chunks sent before an error event,
	// disconnect, malformed chunk or stall.
	After int `yaml:"after,omitempty" json:"after,omitempty"`
	// Data is the payload of the malformed chunk; empty means a truncated
	// chunk of the wire.
	Data string `yaml:"data,omitempty" json:"data,omitempty"`

	// Times is how many requests in a row the fault answers; 0 means 1.
	Times int `yaml:"times,omitempty" json:"times,omitempty"`
	// Always makes the fault answer every request from then on; only the
	// last turn may have it.
	Always bool `yaml:"always,omitempty" json:"always,omitempty"`
}

// times returns how many requests the fault answers; -1 means all.
func (f *Fault) times() int {
	switch {
	case f == nil:
		return 1
	case f.Always:
		return -1
	case f.Times > 0:
		return f.Times
	}
	return 1
}

// wireError returns the fault's error for wire w.
func (f *Fault) wireError(w Wire) llmwire.Error {
	status := f.Status
	switch {
	case status != 0:
	case w == WireAnthropic:
		status = 529 // what Anthropic's streams fail with, overloaded_error
	default:
		status = 500
	}
	e := llmwire.Error{Status: status, Message: f.Message, Type: f.Type, Code: f.Code}
	if e.Code == "" {
		e.Code = llmwire.DefaultCode(llmwire.Wire(w), status)
	}
	if w.base() == WireGemini && f.RetryAfter != "" {
		e.RetryDelay = f.RetryAfter + "s"
	}
	return e.Default(llmwire.Wire(w))
}

// errorBody returns the wire's error JSON of a status or error fault.
func (f *Fault) errorBody(w Wire) []byte {
	if f.Body != "" {
		return []byte(f.Body)
	}
	return f.wireError(w).Body(llmwire.Wire(w))
}

// Duration is a time.Duration written as "250ms" or "1.5s" in files.
type Duration time.Duration

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: want a Go duration such as 250ms or 1.5s", b)
	}
	if v < 0 {
		return fmt.Errorf("duration %q is negative", b)
	}
	*d = Duration(v)
	return nil
}

// callID returns the id of call n of turn t, both indexes from 0.
func (c Call) callID(t, n int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("call_%d_%d", t+1, n+1)
}

// args returns the arguments text of the call.
func (c Call) args() string {
	if len(c.Fragments) > 0 {
		return join(c.Fragments)
	}
	if c.Args == "" && !c.Raw {
		return "{}"
	}
	return c.Args
}

// noArgs reports whether the call has no arguments: {}, or none given.
func (c Call) noArgs() bool { return !c.Raw && strings.TrimSpace(c.args()) == "{}" }

// text returns the visible text of the turn.
func (t *Turn) text() string {
	if len(t.Fragments) > 0 {
		return join(t.Fragments)
	}
	return t.Text
}

func (t *Turn) finish() string {
	switch {
	case t.Finish != "":
		return t.Finish
	case len(t.Calls) > 0:
		return "tool_calls"
	default:
		return "stop"
	}
}

func join(ss []string) string {
	n := 0
	for _, s := range ss {
		n += len(s)
	}
	b := make([]byte, 0, n)
	for _, s := range ss {
		b = append(b, s...)
	}
	return string(b)
}

// Validate reports every problem of the script, each naming its turn (and
// file:line when the script was loaded from a file). [Load], [Parse],
// [NewModel] and [NewServer] call it.
func (s *Script) Validate() error {
	var errs []error
	if err := s.Plan.validate(nil, -1); err != nil {
		errs = append(errs, fmt.Errorf("%splan: %w", s.where(-1), err))
	}
	for i := range s.Turns {
		t := &s.Turns[i]
		fail := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%sturn %d: %s", s.where(i), i+1, fmt.Sprintf(format, args...)))
		}
		if len(t.Fragments) > 0 && t.Text != "" && t.Text != join(t.Fragments) {
			fail("text %q differs from its joined fragments %q", t.Text, join(t.Fragments))
		}
		ids := map[string]int{}
		for n, c := range t.Calls {
			if c.Name == "" {
				fail("call %d has no name", n+1)
			}
			if len(c.Fragments) > 0 && c.Args != "" && c.Args != join(c.Fragments) {
				fail("call %d (%s): args %q differ from the joined fragments %q", n+1, c.Name, c.Args, join(c.Fragments))
			}
			if !c.Raw && !json.Valid([]byte(c.args())) {
				fail("call %d (%s): args are not valid JSON: %s (set raw: true to send them anyway)", n+1, c.Name, jsonErr(c.args()))
			}
			id := c.callID(i, n)
			if prev, dup := ids[id]; dup {
				fail("calls %d and %d share the id %q", prev+1, n+1, id)
			}
			ids[id] = n
		}
		if err := t.Plan.over(s.Plan).validate(t.Calls, i); err != nil {
			fail("plan: %v", err)
		}
		if t.Fault != nil {
			if err := t.Fault.validate(); err != nil {
				fail("fault: %v", err)
			}
			if t.Fault.Always && i != len(s.Turns)-1 {
				fail("fault: always answers every later request, so it must be on the last turn")
			}
		}
		if err := t.Expect.validate(); err != nil {
			fail("expect: %v", err)
		}
		if t.Generate != nil {
			if err := t.Generate.validate(); err != nil {
				fail("generate: %v", err)
			}
		}
	}
	return errors.Join(errs...)
}

func jsonErr(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return err.Error()
	}
	return "invalid"
}

func (f *Fault) validate() error {
	switch f.Kind {
	case FaultStatus:
		if f.Status < 400 || f.Status > 599 {
			return fmt.Errorf("status %d: want an HTTP error status 400-599", f.Status)
		}
	case FaultError:
		if f.Status != 0 && (f.Status < 400 || f.Status > 599) {
			return fmt.Errorf("status %d: want an HTTP error status 400-599", f.Status)
		}
		if f.RetryAfter != "" {
			return fmt.Errorf("kind %s takes no retry_after", f.Kind)
		}
	case FaultDisconnect, FaultMalformed, FaultStall:
		if f.Status != 0 || f.RetryAfter != "" {
			return fmt.Errorf("kind %s takes no status or retry_after", f.Kind)
		}
	case "":
		return errors.New("kind is missing: want status, error, disconnect, malformed or stall")
	default:
		return fmt.Errorf("unknown kind %q: want status, error, disconnect, malformed or stall", f.Kind)
	}
	if f.After < 0 {
		return fmt.Errorf("after %d is negative", f.After)
	}
	if f.Times < 0 {
		return fmt.Errorf("times %d is negative", f.Times)
	}
	if f.Always && f.Times > 0 {
		return errors.New("always and times exclude each other")
	}
	return nil
}

// where returns "file:line: " for turn i (or the script when i < 0), or ""
// when the script was not loaded from a file.
func (s *Script) where(i int) string {
	if s.source == "" {
		return ""
	}
	if i >= 0 && i < len(s.lines) && s.lines[i] > 0 {
		return fmt.Sprintf("%s:%d: ", s.source, s.lines[i])
	}
	return s.source + ": "
}
