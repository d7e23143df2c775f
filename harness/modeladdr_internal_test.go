package harness

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRelayUnencryptedHTTP2: the relay of Options.ModelAddr takes HTTP/2
// with prior knowledge, as the AWS SDK for JavaScript sends Bedrock's
// streams, as well as HTTP/1.1.
func TestRelayUnencryptedHTTP2(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "hello over "+r.Proto)
	}))
	defer upstream.Close()
	port, err := freePort()
	require.NoError(t, err)
	defer releasePort(port)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	release, err := useRelay(addr, upstream.URL+"/v1")
	require.NoError(t, err)
	defer release()

	for _, tc := range []struct {
		name  string
		proto func(*http.Protocols)
		want  string
	}{
		{"http1", func(p *http.Protocols) { p.SetHTTP1(true) }, "HTTP/1.1"},
		{"h2c", func(p *http.Protocols) { p.SetUnencryptedHTTP2(true) }, "HTTP/2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p http.Protocols
			tc.proto(&p)
			tr := &http.Transport{Protocols: &p}
			defer tr.CloseIdleConnections()
			resp, err := (&http.Client{Transport: tr}).Get("http://" + addr + "/model/m/converse-stream")
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			if resp.Proto != tc.want {
				t.Errorf("got the relay's answer over %s, want %s", resp.Proto, tc.want)
			}
			if got := string(body); got != "hello over HTTP/1.1" {
				t.Errorf("got body %q, want the upstream's", got)
			}
		})
	}
}

// TestFreePort: a port FreePort hands out is not handed out again until
// it is released.
func TestFreePort(t *testing.T) {
	seen := map[int]bool{}
	var releases []func()
	defer func() {
		for _, r := range releases {
			r()
		}
	}()
	for range 50 {
		port, release, err := FreePort()
		require.NoError(t, err)
		releases = append(releases, release)
		if seen[port] {
			t.Fatalf("port %d handed out twice while held", port)
		}
		seen[port] = true
		if port >= 32768 {
			t.Errorf("port %d is in the kernel's ephemeral range", port)
		}
	}
}
