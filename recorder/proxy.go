package recorder

import (
	"net/http"
	"net/http/httputil"
	"net/url"
)

// Proxy returns a recording reverse proxy: it forwards every request to
// target and streams the response back untouched, flushing after every
// write, while recording each run as Middleware does. Source defaults to
// "proxy".
//
// It panics when cfg has neither Dir nor Writer.
func Proxy(target *url.URL, cfg Config) *Handler {
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = pr.In.Host
			if target.Host != "" {
				pr.Out.Host = target.Host
			}
		},
		// Flush after every write: an SSE stream must not wait in a buffer.
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "aguitest record: upstream: "+err.Error(), http.StatusBadGateway)
		},
	}
	if cfg.Source == "" {
		cfg.Source = "proxy"
	}
	return Middleware(rp, cfg)
}
