package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/clock"
	"github.com/aguitest/aguitest/internal/eventstream"
	"github.com/aguitest/aguitest/internal/llmwire"
	"github.com/aguitest/aguitest/internal/serve"
	"github.com/aguitest/aguitest/recorder"
)

// ProviderOptions configures a Provider.
type ProviderOptions struct {
	// Speed scales the recorded timing of the chunks: 1 replays it as
	// recorded, 2 twice as fast, 0 (the zero value) sends each response
	// at once.
	Speed float64
	// Clock paces the recorded timing; nil means the real clock. Tests
	// give a clock.Virtual to replay timing without waiting.
	Clock clock.Clock
	// Redact is applied to each request's body before it is compared with
	// the recorded one, which was redacted when it was recorded: use the
	// rules the recording was made with.
	Redact recorder.Redact
	// Match compares a request with the exchange expected next and says
	// why they differ; nil compares the method, the URL path and the JSON
	// body (a diff, -want +got).
	Match func(want *recorder.Exchange, got *http.Request, body []byte) error
	// MaxRequestBytes bounds a request's body; a larger one is answered
	// 413, in its wire's error shape, and reported by Check. Zero means
	// DefaultMaxRequestBytes.
	MaxRequestBytes int64
}

// Provider serves recorded provider exchanges as a fake LLM: each request
// must match the next exchange of its wire, in order, and gets its recorded
// response, chunk by chunk with the recorded timing scaled by Speed.
//
// Requests are matched across wires: a request to …/chat/completions,
// …/responses, …/messages or a Gemini …/models/{model}:…GenerateContent
// path is matched with the next unused exchange recorded on the same wire
// (OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, Gemini),
// whatever the path prefix, so that an agent talking to several providers
// is served each provider's exchanges in their own order, and any base URL
// works. Other paths are matched in order by method and path.
//
// A request that does not match gets a 500, in its wire's error shape,
// naming the difference, and is reported by Check, as are exchanges never
// requested. Point the agent's LLM clients at URL (or URL+"/v1").
//
// A Provider has the shape of every fake server here (scripted.Server,
// Server): NewProvider starts it, URL locates it, Close stops it and waits,
// Check reports what was left unused. ProviderHandler makes one to mount
// on a server of one's own. It is safe for concurrent use; requests are
// matched in the order they arrive.
type Provider struct {
	// URL is the base URL of a started Provider, http://127.0.0.1:PORT;
	// "" for one made by ProviderHandler.
	URL string

	exchanges []Exchange
	opt       ProviderOptions
	srv       *serve.Server

	mu       sync.Mutex
	used     []bool
	served   int
	requests int
	problems []error
}

// ProviderHandler returns a Provider serving exchanges, for mounting on a
// server of one's own; NewProvider also starts a loopback server.
func ProviderHandler(exchanges []Exchange, opt ProviderOptions) *Provider {
	return &Provider{exchanges: exchanges, opt: opt, used: make([]bool, len(exchanges))}
}

// NewProvider starts a Provider on a free loopback port. It panics when
// no port can be had; see ListenProvider for an error.
func NewProvider(exchanges []Exchange, opt ProviderOptions) *Provider {
	p, err := ListenProvider("127.0.0.1:0", exchanges, opt)
	if err != nil {
		panic("replay: " + err.Error())
	}
	return p
}

// ListenProvider starts a Provider on addr.
func ListenProvider(addr string, exchanges []Exchange, opt ProviderOptions) (*Provider, error) {
	p := ProviderHandler(exchanges, opt)
	srv, err := serve.Listen(addr, p)
	if err != nil {
		return nil, err
	}
	p.URL, p.srv = srv.URL, srv
	return p, nil
}

// Close stops a started Provider, ending the responses under way, and
// waits for it. It does nothing for one made by ProviderHandler.
func (p *Provider) Close() {
	if p.srv != nil {
		p.srv.Close()
	}
}

// Check reports every request that did not match and every exchange never
// requested, or nil.
func (p *Provider) Check() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	errs := append([]error(nil), p.problems...)
	for i, used := range p.used {
		if !used {
			ex := p.exchanges[i]
			errs = append(errs, fmt.Errorf("exchange %d of %d (%s %s%s, line %d) was never requested", i+1, len(p.exchanges), ex.Method, ex.URL, wireNote(exchangeWire(ex.Exchange)), ex.Line))
		}
	}
	return errors.Join(errs...)
}

func wireNote(w llmwire.Wire) string {
	if w == "" {
		return ""
	}
	return ", " + w.String()
}

// Used returns how many exchanges were served.
func (p *Provider) Used() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.served
}

// Requests returns how many requests the Provider received.
func (p *Provider) Requests() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests
}

// exchangeWire returns the wire of a recorded exchange, from its URL.
func exchangeWire(ex *recorder.Exchange) llmwire.Wire {
	u, err := url.Parse(ex.URL)
	if err != nil {
		return ""
	}
	return llmwire.Of(u.Path)
}

// nextFor returns the exchange a request is matched with: the first unused
// one of its wire, or, for a path of no wire, the first unused one; -1 when
// there is none. p.mu is held.
func (p *Provider) nextFor(w llmwire.Wire) int {
	for i, used := range p.used {
		if used {
			continue
		}
		if w == "" || exchangeWire(p.exchanges[i].Exchange) == w {
			return i
		}
	}
	return -1
}

// maxProblem bounds the text of a problem Check reports.
const maxProblem = 8 << 10

// fail answers a request that cannot be served, in its wire's error shape,
// and keeps the problem for Check.
func (p *Provider) fail(w http.ResponseWriter, wire llmwire.Wire, err error) {
	if msg := err.Error(); len(msg) > maxProblem {
		// Kept for the life of the server: a diff of large bodies is
		// kept in part.
		err = fmt.Errorf("%s… (%d bytes more)", msg[:maxProblem], len(msg)-maxProblem)
	}
	p.problems = append(p.problems, err)
	p.mu.Unlock()
	w.Header().Set("Content-Type", llmwire.ContentType(wire))
	w.Header().Set("X-Should-Retry", "false")
	w.WriteHeader(http.StatusInternalServerError)
	e := llmwire.Error{Status: http.StatusInternalServerError, Message: "aguitest replay: " + err.Error()}
	_, _ = w.Write(e.Body(wire))
}

// ServeHTTP answers a request with the next exchange.
func (p *Provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	wire := llmwire.Of(r.URL.Path)
	body, ok := readBody(w, r, p.opt.MaxRequestBytes, func(status int, msg string) {
		p.mu.Lock()
		p.requests++
		p.problems = append(p.problems, fmt.Errorf("request %d: %s %s: %s", p.requests, r.Method, r.URL.Path, msg))
		p.mu.Unlock()
		e := llmwire.Error{Status: status, Message: msg}
		w.Header().Set("Content-Type", llmwire.ContentType(wire))
		w.WriteHeader(status)
		_, _ = w.Write(e.Body(wire))
	})
	if !ok {
		return
	}
	p.mu.Lock()
	p.requests++
	nreq := p.requests
	n := p.nextFor(wire)
	if n < 0 {
		what := fmt.Sprintf("all %d recorded exchanges were used", len(p.exchanges))
		if wire != "" {
			what = fmt.Sprintf("no %s exchange is left", wire)
		}
		p.fail(w, wire, fmt.Errorf("unexpected request %d: %s %s: %s", nreq, r.Method, r.URL.Path, what))
		return
	}
	ex := p.exchanges[n]
	match := p.opt.Match
	if match == nil {
		match = p.match
	}
	if err := match(ex.Exchange, r, body); err != nil {
		p.fail(w, wire, fmt.Errorf("request %d does not match exchange %d (line %d): %w", nreq, n+1, ex.Line, err))
		return
	}
	p.used[n] = true
	p.served++
	p.mu.Unlock()

	for k, v := range ex.ResponseHeader {
		if k == "Content-Length" || k == "Date" {
			continue
		}
		w.Header()[k] = v
	}
	status := ex.Status
	if status == 0 {
		status = http.StatusBadGateway
	}
	w.WriteHeader(status)
	rc := http.NewResponseController(w)
	var prev time.Duration
	for _, c := range ex.Chunks {
		if err := wait(r.Context(), p.opt.Clock, p.opt.Speed, c.Offset-prev); err != nil {
			return
		}
		prev = c.Offset
		data := c.Data
		if c.Event != nil {
			data = frame(c)
		}
		if _, err := w.Write(data); err != nil {
			return
		}
		_ = rc.Flush()
	}
	if ex.Error != "" {
		// The recorded body failed part way: end the response abruptly.
		panic(http.ErrAbortHandler)
	}
}

// frame frames a chunk recorded from an event stream as the message it
// was, its headers in the order of their names.
func frame(c recorder.Chunk) []byte {
	names := make([]string, 0, len(c.Event))
	for k := range c.Event {
		names = append(names, k)
	}
	sort.Strings(names)
	hs := make([]string, 0, 2*len(names))
	for _, k := range names {
		hs = append(hs, k, c.Event[k])
	}
	return eventstream.Append(nil, c.Data, hs...)
}

// match is the default matcher: the method; the path, or for a
// provider wire the wire (and Gemini's model and method), whatever the
// prefix; the JSON body.
func (p *Provider) match(want *recorder.Exchange, r *http.Request, body []byte) error {
	if want.Method != r.Method {
		return fmt.Errorf("method: got %s, want %s", r.Method, want.Method)
	}
	if u, err := url.Parse(want.URL); err == nil && !samePath(u.Path, r.URL.Path) {
		return fmt.Errorf("path: got %s, want %s", r.URL.Path, u.Path)
	}
	if want.Body == nil {
		if got := string(p.opt.Redact.Text(body)); got != want.BodyText {
			return fmt.Errorf("body: got %q, want %q", got, want.BodyText)
		}
		return nil
	}
	red, err := p.opt.Redact.JSON(body)
	if err != nil {
		return fmt.Errorf("body is not JSON: %v", err)
	}
	var wv, gv any
	if err := json.Unmarshal(want.Body, &wv); err != nil {
		return err
	}
	if err := json.Unmarshal(red, &gv); err != nil {
		return err
	}
	if d := cmp.Diff(wv, gv); d != "" {
		return fmt.Errorf("body differs (-want +got):\n%s", d)
	}
	return nil
}

// samePath reports whether a request path stands for a recorded one.
func samePath(want, got string) bool {
	w := llmwire.Of(want)
	if w == "" || w != llmwire.Of(got) {
		return want == got
	}
	switch w.Base() {
	case llmwire.Gemini:
		wm, ws, _ := llmwire.GeminiModel(want)
		gm, gs, _ := llmwire.GeminiModel(got)
		return wm == gm && ws == gs
	case llmwire.Bedrock:
		wm, ws, _ := llmwire.BedrockModel(want)
		gm, gs, _ := llmwire.BedrockModel(got)
		return unescape(wm) == unescape(gm) && ws == gs
	}
	return true
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// Exchanges returns a Provider's exchanges as it serves them, for callers
// building their own.
func (p *Provider) Exchanges() []Exchange { return p.exchanges }
