package harness

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"

	"github.com/aguitest/aguitest/recorder"
)

// An llmProxy stands between the agent and the case's scripted LLM when
// the case is recorded: it forwards every request, on any wire, and
// records the exchange into the run under way, so that a recording holds
// what the model said next to what the agent emitted and can drive
// replay.NewProvider and "aguitest llm replay".
type llmProxy struct {
	srv *httptest.Server

	mu   sync.Mutex
	sink *recorder.Sink
}

// newLLMProxy starts a recording proxy to the scripted server at base
// (http://127.0.0.1:PORT/v1).
func newLLMProxy(base string) *llmProxy {
	target, err := url.Parse(strings.TrimSuffix(base, "/v1"))
	if err != nil {
		panic("harness: scripted server URL: " + err.Error())
	}
	p := &llmProxy{}
	proxy := recorder.ProviderProxy(target, &recorder.Transport{})
	if rp, ok := proxy.(*httputil.ReverseProxy); ok {
		// A stream the script breaks off (a disconnect fault) is what the
		// case is about, not news for the test's output.
		rp.ErrorLog = log.New(io.Discard, "", 0)
	}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		sink := p.sink
		p.mu.Unlock()
		if sink != nil {
			r = r.WithContext(recorder.WithSink(r.Context(), sink))
		}
		proxy.ServeHTTP(w, r)
	}))
	return p
}

// URL is the base URL to give the agent instead of the scripted server's.
func (p *llmProxy) URL() string { return p.srv.URL + "/v1" }

// record makes the exchanges from now on go into sink's run.
func (p *llmProxy) record(sink *recorder.Sink) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.sink = sink
	p.mu.Unlock()
}

func (p *llmProxy) close() { p.srv.Close() }
