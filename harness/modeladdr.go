package harness

import (
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"

	"github.com/aguitest/aguitest/internal/fullduplex"
)

// A relay listens on a fixed address and forwards every request to the
// scripted LLM of the case under way, so that an agent started beforehand
// with its LLM client pointed at that address (a URL agent) meets each
// case's script. Cases using one address run one at a time. It listens
// until the program exits: an agent keeps its connections to its LLM open
// from one request to the next, and from one case to the next.
type relay struct {
	srv  *http.Server
	turn sync.Mutex // held by the case under way

	mu     sync.Mutex
	target *url.URL
}

var relays = struct {
	mu sync.Mutex
	m  map[string]*relay
}{m: map[string]*relay{}}

// useRelay waits for the relay on addr to be free (listening on it when no
// case has yet), points it at base and returns the function that frees it.
func useRelay(addr, base string) (func(), error) {
	target, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	target.Path = "" // the request's path has the version in it already
	relays.mu.Lock()
	r := relays.m[addr]
	if r == nil {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			relays.mu.Unlock()
			return nil, errors.New("Options.ModelAddr: " + err.Error())
		}
		r = &relay{}
		// HTTP/2 without TLS as well as HTTP/1.1, as the scripted LLM
		// serves: the AWS SDK for JavaScript streams Bedrock over HTTP/2
		// with prior knowledge, and fails on an HTTP/1.1-only server.
		var protocols http.Protocols
		protocols.SetHTTP1(true)
		protocols.SetUnencryptedHTTP2(true)
		r.srv = &http.Server{Protocols: &protocols, Handler: fullduplex.Handler(&httputil.ReverseProxy{
			Rewrite: func(pr *httputil.ProxyRequest) {
				r.mu.Lock()
				t := r.target
				r.mu.Unlock()
				pr.SetURL(t)
			},
			FlushInterval: -1,
		})}
		go r.srv.Serve(ln)
		relays.m[addr] = r
	}
	relays.mu.Unlock()

	r.turn.Lock()
	r.mu.Lock()
	r.target = target
	r.mu.Unlock()
	return r.turn.Unlock, nil
}
