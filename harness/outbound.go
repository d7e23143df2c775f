package harness

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aguitest/aguitest/internal/fullduplex"
	"github.com/aguitest/aguitest/internal/words"
)

// An Outbound is one attempt of a program under test to reach a host
// other than this machine (Report.Problems has one ProblemOutbound per
// host it tried).
type Outbound struct {
	// Host and Port are where the program tried to go.
	Host string
	Port int
	// Request is what is known of the request: "CONNECT api.openai.com:443"
	// for an HTTPS request through the proxy (its path is encrypted),
	// "POST http://host/path" for plain HTTP, "connect" for a connection
	// a Node program opened itself.
	Request string
	// Where is the first frame of the program's own code that opened a
	// Node connection, when known.
	Where string
	// Allowed says the host was allowed (CommandAgent.AllowHosts): the
	// request went through.
	Allowed bool
}

// An outboundGuard keeps a program under test on this machine: it is the
// HTTP and HTTPS proxy the program is given, which refuses and records
// every request to a host not allowed (a CONNECT for HTTPS), and the log
// of a preload that refuses a Node program's connections to such hosts
// (Node's clients ignore proxy settings).
type outboundGuard struct {
	allow []string
	ln    net.Listener
	srv   *http.Server
	dir   string // holds the Node preload and its log

	mu       sync.Mutex
	attempts []Outbound
	logRead  int64 // bytes of the preload's log read so far
}

// guardDial dials an allowed host; tests replace it.
var guardDial = (&net.Dialer{Timeout: 10 * time.Second}).DialContext

//go:embed outbound.cjs
var nodePreload []byte

// localHosts are the hosts the guard lets a program reach directly:
// this machine's, on which the scripted LLM and the agent itself serve.
var localHosts = []string{"localhost", "127.0.0.1", "::1"}

func newOutboundGuard(allow []string) (*outboundGuard, error) {
	dir, err := os.MkdirTemp("", "aguitest-guard-")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "preload.cjs"), nodePreload, 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	g := &outboundGuard{ln: ln, dir: dir}
	for _, h := range allow {
		g.allow = append(g.allow, strings.ToLower(strings.TrimSpace(h)))
	}
	g.srv = &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = g.srv.Serve(ln) }()
	return g, nil
}

// env returns the environment that leads the program's requests to the
// guard: the proxy variables in both cases (clients read one or the
// other), no proxy for this machine, and the Node preload added to
// NODE_OPTIONS (given, the environment's value, or none).
func (g *outboundGuard) env(nodeOptions string) []string {
	proxy := "http://" + g.ln.Addr().String()
	noProxy := strings.Join(localHosts, ",")
	preload := filepath.Join(g.dir, "preload.cjs")
	opts := strings.TrimSpace(nodeOptions + " --require " + strconv.Quote(preload))
	return []string{
		"HTTP_PROXY=" + proxy, "http_proxy=" + proxy,
		"HTTPS_PROXY=" + proxy, "https_proxy=" + proxy,
		"ALL_PROXY=" + proxy, "all_proxy=" + proxy,
		"NO_PROXY=" + noProxy, "no_proxy=" + noProxy,
		"NODE_USE_ENV_PROXY=1", // Node 24 and later: fetch and http honour the proxy
		"NODE_OPTIONS=" + opts,
		"AGUITEST_GUARD_LOG=" + filepath.Join(g.dir, "node.jsonl"),
		"AGUITEST_ALLOW_HOSTS=" + strings.Join(g.allow, ","),
	}
}

// allowed reports whether host may be reached.
func (g *outboundGuard) allowed(host string) bool {
	h := strings.ToLower(strings.Trim(host, "[]"))
	return slices.Contains(localHosts, h) || slices.Contains(g.allow, h) || slices.Contains(g.allow, "*")
}

func (g *outboundGuard) record(o Outbound) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.attempts = append(g.attempts, o)
}

// ServeHTTP is the proxy: a CONNECT tunnels to an allowed host or is
// refused; a request for an absolute URL is forwarded to an allowed host
// or refused with 403 and a body saying why.
func (g *outboundGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host, port := r.URL.Hostname(), r.URL.Port()
	if r.Method == http.MethodConnect {
		host, port, _ = net.SplitHostPort(r.Host)
	}
	p, _ := strconv.Atoi(port)
	if p == 0 {
		p = map[bool]int{true: 443, false: 80}[r.URL.Scheme == "https" || r.Method == http.MethodConnect]
	}
	o := Outbound{Host: host, Port: p, Request: r.Method + " " + r.URL.String(), Allowed: g.allowed(host)}
	if r.Method == http.MethodConnect {
		o.Request = "CONNECT " + r.Host
	}
	g.record(o)
	if !o.Allowed {
		msg := fmt.Sprintf("aguitest: a program under test may not reach %s (%s); it was refused. Allow the host by name (CommandAgent.AllowHosts, --allow-host %s) if the test must reach it.\n", host, o.Request, host)
		http.Error(w, msg, http.StatusForbidden)
		return
	}
	if r.Method != http.MethodConnect {
		fullduplex.Handler(&httputil.ReverseProxy{
			Rewrite:   func(pr *httputil.ProxyRequest) { pr.Out.URL = r.URL },
			Transport: &http.Transport{DialContext: guardDial},
		}).ServeHTTP(w, r)
		return
	}
	up, err := guardDial(r.Context(), "tcp", net.JoinHostPort(host, port))
	if err != nil {
		http.Error(w, "aguitest: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer up.Close()
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, rw); done <- struct{}{} }()
	go func() { _, _ = io.Copy(conn, up); done <- struct{}{} }()
	<-done
}

// take returns the attempts made since the last call: the proxy's and
// those the Node preload logged.
func (g *outboundGuard) take() []Outbound {
	g.readNodeLog()
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.attempts
	g.attempts = nil
	return out
}

// nodeAttempt is a line of the preload's log.
type nodeAttempt struct {
	Host    string `json:"host"`
	Port    int    `json:"port"`
	Where   string `json:"where"`
	Allowed bool   `json:"allowed"`
}

func (g *outboundGuard) readNodeLog() {
	f, err := os.Open(filepath.Join(g.dir, "node.jsonl"))
	if err != nil {
		return
	}
	defer f.Close()
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, err := f.Seek(g.logRead, io.SeekStart); err != nil {
		return
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Bytes()
		var a nodeAttempt
		if len(line) == 0 || sc.Err() != nil {
			continue
		}
		if err := json.Unmarshal(line, &a); err != nil {
			break // a line being written: read it next time
		}
		g.logRead += int64(len(line)) + 1
		g.attempts = append(g.attempts, Outbound{Host: a.Host, Port: a.Port, Request: "connect", Where: a.Where, Allowed: a.Allowed})
	}
}

func (g *outboundGuard) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = g.srv.Shutdown(ctx)
	_ = g.srv.Close()
	os.RemoveAll(g.dir)
}

// reportOutbound reports the attempts not allowed, one problem per host
// with the requests made to it.
func reportOutbound(rep *report, attempts []Outbound) {
	type host struct {
		name  string
		reqs  []string
		where string
		n     int
	}
	var hosts []*host
	by := map[string]*host{}
	for _, a := range attempts {
		if a.Allowed {
			continue
		}
		name := net.JoinHostPort(a.Host, strconv.Itoa(a.Port))
		h := by[name]
		if h == nil {
			h = &host{name: name}
			by[name] = h
			hosts = append(hosts, h)
		}
		h.n++
		req := a.Request
		if req == "connect" {
			req = "a connection opened by Node"
		}
		if !slices.Contains(h.reqs, req) && len(h.reqs) < 3 {
			h.reqs = append(h.reqs, req)
		}
		if h.where == "" {
			h.where = a.Where
		}
	}
	for _, h := range hosts {
		text := fmt.Sprintf("outbound: the program under test tried to reach %s (%s; %s), which is not this machine: a test must not reach a real host (a hard-coded base URL, a second model client, telemetry?); it was refused",
			h.name, strings.Join(h.reqs, ", "), words.Count(h.n, "attempt", "attempts"))
		if h.where != "" {
			text += "; opened at " + h.where
		}
		host, _, _ := net.SplitHostPort(h.name)
		text += fmt.Sprintf(". Allow it by name if the test must reach it: CommandAgent.AllowHosts, --allow-host %s", host)
		rep.errorf(ProblemOutbound, 0, "%s", text)
	}
}
