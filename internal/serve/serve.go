// Package serve runs the module's fake servers (the scripted LLM, replay's
// AG-UI endpoint and provider) on a port as httptest does, without linking
// testing, so that they share one shape: started, a URL, and a Close that
// waits for the serving goroutine.
package serve

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// Server is an HTTP server on a listener of its own.
type Server struct {
	// URL is http://host:port, without a trailing slash.
	URL string

	hs   *http.Server
	wg   sync.WaitGroup
	once sync.Once
	err  error
}

// Listen serves h on addr ("127.0.0.1:0" for a free loopback port).
func Listen(addr string, h http.Handler) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	// HTTP/2 without TLS (prior knowledge) as well as HTTP/1.1: clients
	// that stream over HTTP/2, as the AWS SDK for JavaScript does
	// Bedrock's event streams, reach a loopback server so.
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	s := &Server{URL: "http://" + ln.Addr().String(), hs: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, Protocols: &protocols}}
	s.wg.Go(func() { _ = s.hs.Serve(ln) })
	return s, nil
}

// Close stops the server at once, ending the responses under way, and
// waits for its goroutine. Further calls do nothing.
func (s *Server) Close() {
	s.once.Do(func() {
		s.err = s.hs.Close()
		s.wg.Wait()
	})
}

// Shutdown stops the server gracefully: the responses under way finish,
// or ctx ends. It returns what the first Close or Shutdown returned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.once.Do(func() {
		s.err = s.hs.Shutdown(ctx)
		s.wg.Wait()
	})
	return s.err
}
