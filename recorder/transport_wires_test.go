package recorder

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestTransportDropsURLCredentials: an API key in the query (Gemini's
// ?key=) is never recorded; the other parameters are.
func TestTransportDropsURLCredentials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("data: {}\r\n\r\n"))
	}))
	defer srv.Close()
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{})
	c := &http.Client{Transport: &Transport{Writer: w}}
	resp, err := c.Post(srv.URL+"/v1beta/models/m:streamGenerateContent?alt=sse&key=SECRET-1&access_token=SECRET-2", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if s := buf.String(); strings.Contains(s, "SECRET") || !strings.Contains(s, ":streamGenerateContent?alt=sse") {
		t.Errorf("recorded:\n%s", s)
	}
}
