package recorder

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"

	"github.com/aguitest/aguitest/internal/fullduplex"
)

// Proxy returns a recording reverse proxy: it forwards every request to
// target and streams the response back untouched, flushing after every
// write, while recording each run as Middleware does. Source defaults to
// "proxy".
//
// The target URL is the endpoint: a request to the proxy's root goes to
// target itself (http://host/agent, not http://host/agent/), a request
// whose path already is target's path, or below it, goes there as it is,
// and any other path is appended to target's path. Query parameters of
// target come first, then the request's.
//
// It panics when cfg has neither Dir nor Writer, or a Redact that does not
// validate.
func Proxy(target *url.URL, cfg Config) *Handler {
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			out := pr.Out.URL
			out.Scheme, out.Host = target.Scheme, target.Host
			out.Path = forwardPath(target.Path, pr.In.URL.Path)
			out.RawPath = ""
			if target.RawPath != "" || pr.In.URL.RawPath != "" {
				out.RawPath = forwardPath(target.EscapedPath(), pr.In.URL.EscapedPath())
			}
			switch {
			case target.RawQuery == "":
			case out.RawQuery == "":
				out.RawQuery = target.RawQuery
			default:
				out.RawQuery = target.RawQuery + "&" + out.RawQuery
			}
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
	return Middleware(fullduplex.Handler(rp), cfg)
}

// forwardPath is the upstream path of a request to the proxy's path p,
// target's path being base.
func forwardPath(base, p string) string {
	switch {
	case p == "" || p == "/":
		if base == "" {
			return "/"
		}
		return base
	case base == "" || base == "/":
		return p
	case p == base || strings.HasPrefix(p, strings.TrimSuffix(base, "/")+"/"):
		return p
	}
	return strings.TrimSuffix(base, "/") + p
}
