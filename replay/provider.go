package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/recorder"
)

// ProviderOptions configures a Provider.
type ProviderOptions struct {
	Options
	// Redact is applied to each request's body before it is compared with
	// the recorded one, which was redacted when it was recorded: use the
	// rules the recording was made with.
	Redact recorder.Redact
	// Match compares a request with the exchange expected next and says
	// why they differ; nil compares the method, the URL path and the JSON
	// body (a diff, -want +got).
	Match func(want *recorder.Exchange, got *http.Request, body []byte) error
}

// Provider serves recorded provider exchanges as a fake LLM: each request
// must match the next exchange, in order, and gets its recorded response,
// chunk by chunk with the recorded timing scaled by Speed. A request that
// does not match gets a 500 naming the difference and is reported by
// Check, as are exchanges never requested. Point the agent's LLM client at
// URL (with the path prefix the recording used, e.g. URL+"/v1").
//
// A Provider is safe for concurrent use; requests are matched in the order
// they arrive.
type Provider struct {
	// URL is the base URL of the server started by ServeProvider.
	URL string

	exchanges []Exchange
	opt       ProviderOptions
	srv       *http.Server

	mu       sync.Mutex
	next     int
	problems []error
}

// NewProvider returns a Provider serving exchanges, for mounting on a
// server of one's own. ServeProvider also starts a loopback server.
func NewProvider(exchanges []Exchange, opt ProviderOptions) *Provider {
	return &Provider{exchanges: exchanges, opt: opt}
}

// ServeProvider starts a Provider on a free loopback port.
func ServeProvider(exchanges []Exchange, opt ProviderOptions) (*Provider, error) {
	return ListenProvider("127.0.0.1:0", exchanges, opt)
}

// ListenProvider starts a Provider on addr.
func ListenProvider(addr string, exchanges []Exchange, opt ProviderOptions) (*Provider, error) {
	p := NewProvider(exchanges, opt)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	p.URL = "http://" + ln.Addr().String()
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

// Close stops the server started by ServeProvider.
func (p *Provider) Close() error {
	if p.srv == nil {
		return nil
	}
	return p.srv.Close()
}

// Check reports every request that did not match and every exchange never
// requested, or nil.
func (p *Provider) Check() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	errs := append([]error(nil), p.problems...)
	for i := p.next; i < len(p.exchanges); i++ {
		ex := p.exchanges[i]
		errs = append(errs, fmt.Errorf("exchange %d of %d (%s %s, line %d) was never requested", i+1, len(p.exchanges), ex.Method, ex.URL, ex.Line))
	}
	return errors.Join(errs...)
}

// Used returns how many exchanges were served.
func (p *Provider) Used() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.next
}

// ServeHTTP answers a request with the next exchange.
func (p *Provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	n := p.next
	if n >= len(p.exchanges) {
		err := fmt.Errorf("unexpected request %d: %s %s: all %d recorded exchanges were used", n+1, r.Method, r.URL.Path, len(p.exchanges))
		p.problems = append(p.problems, err)
		p.mu.Unlock()
		http.Error(w, "aguitest replay: "+err.Error(), http.StatusInternalServerError)
		return
	}
	ex := p.exchanges[n]
	match := p.opt.Match
	if match == nil {
		match = p.match
	}
	if err := match(ex.Exchange, r, body); err != nil {
		err = fmt.Errorf("request %d does not match exchange %d (line %d): %w", n+1, n+1, ex.Line, err)
		p.problems = append(p.problems, err)
		p.mu.Unlock()
		http.Error(w, "aguitest replay: "+err.Error(), http.StatusInternalServerError)
		return
	}
	p.next++
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
		if err := p.opt.wait(r.Context(), c.Offset-prev); err != nil {
			return
		}
		prev = c.Offset
		if _, err := w.Write(c.Data); err != nil {
			return
		}
		_ = rc.Flush()
	}
	if ex.Error != "" {
		// The recorded body failed part way: end the response abruptly.
		panic(http.ErrAbortHandler)
	}
}

// match is the default matcher.
func (p *Provider) match(want *recorder.Exchange, r *http.Request, body []byte) error {
	if want.Method != r.Method {
		return fmt.Errorf("method: got %s, want %s", r.Method, want.Method)
	}
	if u, err := url.Parse(want.URL); err == nil && u.Path != r.URL.Path {
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

// Exchanges returns a Provider's exchanges as it serves them, for callers
// building their own.
func (p *Provider) Exchanges() []Exchange { return p.exchanges }
