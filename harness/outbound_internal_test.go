package harness

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A host allowed by name goes through the guard, both ways (a CONNECT
// tunnel, a plain request forwarded), and is no problem; here the guard's
// dialer reaches a server on this machine in its place, so that nothing
// leaves the machine, not even a DNS query.
func TestOutboundAllowedGoesThrough(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "upstream "+r.Method+" "+r.URL.Path)
	}))
	defer upstream.Close()
	dial := guardDial
	defer func() { guardDial = dial }()
	guardDial = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{Timeout: time.Second}).DialContext(ctx, network, upstream.Listener.Addr().String())
	}
	g, err := newOutboundGuard([]string{"allowed.invalid"})
	require.NoError(t, err)
	defer g.close()
	proxy := "http://" + g.ln.Addr().String()
	c := &http.Client{Transport: &http.Transport{Proxy: func(*http.Request) (*neturl.URL, error) { return neturl.Parse(proxy) }}}
	for _, u := range []string{"http://allowed.invalid/plain", "http://refused.invalid/x"} {
		resp, err := c.Get(u)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(u, "allowed") {
			assert.Equal(t, "upstream GET /plain", string(b))
		} else {
			assert.Equal(t, http.StatusForbidden, resp.StatusCode)
			assert.Contains(t, string(b), "may not reach refused.invalid")
		}
	}
	// A CONNECT tunnel to an allowed host carries the bytes both ways.
	conn, err := net.Dial("tcp", g.ln.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	io.WriteString(conn, "CONNECT allowed.invalid:443 HTTP/1.1\r\nHost: allowed.invalid:443\r\n\r\nGET /tunnel HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	b, _ := io.ReadAll(conn)
	assert.Contains(t, string(b), "HTTP/1.1 200 Connection established")
	assert.Contains(t, string(b), "upstream GET /tunnel")

	got := g.take()
	require.Len(t, got, 3)
	assert.True(t, got[0].Allowed)
	assert.False(t, got[1].Allowed)
	assert.Equal(t, Outbound{Host: "allowed.invalid", Port: 443, Request: "CONNECT allowed.invalid:443", Allowed: true}, got[2])
	rep := &report{}
	reportOutbound(rep, got)
	require.Len(t, rep.problems(), 1)
	assert.Contains(t, rep.problems()[0].Text, "refused.invalid:80 (GET http://refused.invalid/x; 1 attempt)")
}
