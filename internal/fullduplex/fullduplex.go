// Package fullduplex keeps the request body of a proxied request whole:
// the recorder's proxy and the harness's relays to the scripted LLM and
// to the hosts a program under test may reach serve through it.
package fullduplex

import "net/http"

// Handler serves h with the request body left to h once the response
// has begun. A reverse proxy needs it: an HTTP/1 server otherwise drains
// and closes the body of a request as soon as the handler writes the
// response's header, while the proxy's transport may still be sending
// that body upstream (after the declared length it reads once more, to
// see that the body ends there). When the upstream answers that early, as
// a streaming server does the moment it has read the request, the
// transport's read fails, it drops its connection upstream, and the
// stream on its way to the client is cut short: the client sees an
// unexpected EOF in the middle of a healthy answer.
//
// HTTP/2 is full duplex already; there, and under a ResponseWriter that
// cannot say, h is served as it is.
func Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex()
		h.ServeHTTP(w, r)
	})
}
