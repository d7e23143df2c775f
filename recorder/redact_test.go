package recorder

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRedactJSON(t *testing.T) {
	tests := []struct {
		name string
		rd   Redact
		in   string
		want string
	}{
		{"no rules keeps bytes", Redact{}, `{ "a" : 1 }`, `{ "a" : 1 }`},
		{"pointer", Redact{Pointers: []string{"/a/b"}}, `{"a":{"b":"x","c":2},"z":1.50}`, `{"a":{"b":"[REDACTED]","c":2},"z":1.50}`},
		{"array index and wildcard", Redact{Pointers: []string{"/m/*/content", "/n/1"}}, `{"m":[{"content":"s1"},{"content":"s2","id":"k"}],"n":[1,2,3]}`,
			`{"m":[{"content":"[REDACTED]"},{"content":"[REDACTED]","id":"k"}],"n":[1,"[REDACTED]",3]}`},
		{"escaped pointer", Redact{Pointers: []string{"/a~1b/c~0d"}}, `{"a/b":{"c~d":true}}`, `{"a/b":{"c~d":"[REDACTED]"}}`},
		{"pointer that does not resolve", Redact{Pointers: []string{"/x/y"}}, `{"x":3}`, `{"x":3}`},
		{"pattern in nested strings, not keys", Redact{Patterns: []*regexp.Regexp{regexp.MustCompile(`sk-\w+`)}}, `{"sk-key":["use sk-abc1 now",{"v":"sk-z"}]}`,
			`{"sk-key":["use [REDACTED] now",{"v":"[REDACTED]"}]}`},
		{"whole document", Redact{Pointers: []string{""}}, `{"a":1}`, `"[REDACTED]"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.rd.JSON([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	if _, err := (&Redact{Pointers: []string{"a"}}).JSON([]byte(`{}`)); err == nil {
		t.Error("a pointer without / was accepted")
	}
}

func TestRedactHeaders(t *testing.T) {
	h := http.Header{}
	for _, k := range []string{"Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Api-Key", "api_key", "X-Auth-Token", "Proxy-Authorization", "X-Client-Secret", "X-Password", "Openai-Organization", "X-Custom"} {
		h.Set(k, "v")
	}
	h.Set("Content-Type", "application/json")
	h.Set("X-Trace", "t")
	got := (&Redact{Headers: []string{"x-custom"}}).header(h, nil)
	if len(got) != 2 || got.Get("Content-Type") == "" || got.Get("X-Trace") == "" {
		t.Errorf("kept %v, want Content-Type and X-Trace", got)
	}
	got = (&Redact{}).header(h, []string{"x-trace", "authorization"})
	if len(got) != 1 || got.Get("X-Trace") == "" {
		t.Errorf("allowlist kept %v, want X-Trace only (credentials are never kept)", got)
	}
}

// stepBody is a response body that hands out its chunks one Read at a
// time and counts the reads.
type stepBody struct {
	mu     sync.Mutex
	chunks []string
	reads  int
}

func (b *stepBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reads++
	if len(b.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.chunks[0])
	b.chunks = b.chunks[1:]
	return n, nil
}

func (b *stepBody) Close() error { return nil }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestTransportRecordsAsRead(t *testing.T) {
	body := &stepBody{chunks: []string{"data: a\n\n", "data: b\n\n", "data: [DONE]\n\n"}}
	var gotBody string
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		b, _ := io.ReadAll(r.Body)
		gotBody = string(b)
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}, "Set-Cookie": {"s=1"}}, Body: body}, nil
	})
	var sink strings.Builder
	w, _ := NewWriter(&sink, Header{})
	now := time.Unix(0, 0)
	tr := &Transport{Base: base, Writer: w, Run: "p", Clock: &stepClock{now: now, step: 10 * time.Millisecond}}
	req, _ := http.NewRequest("POST", "http://llm/v1/chat/completions", strings.NewReader(`{"model":"m"}`))
	req.Header.Set("Authorization", "Bearer k")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := resp.Body.Read(buf)
	if string(buf[:n]) != "data: a\n\n" || body.reads != 1 {
		t.Fatalf("first read %q after %d reads of the provider body, want 1", buf[:n], body.reads)
	}
	rest, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if gotBody != `{"model":"m"}` || string(rest) != "data: b\n\ndata: [DONE]\n\n" {
		t.Errorf("provider got %q, caller got %q", gotBody, rest)
	}
	recs, errs := readAll(t, NewReader(strings.NewReader(sink.String()), "p"))
	if len(errs) > 0 || len(recs) != 2 || recs[1].Exchange == nil {
		t.Fatalf("records %v, errors %v", recs, errs)
	}
	ex := recs[1].Exchange
	if ex.Status != 200 || len(ex.Chunks) != 3 || string(ex.Body) != `{"model":"m"}` || ex.Header.Get("Authorization") != "" || ex.ResponseHeader.Get("Set-Cookie") != "" {
		t.Errorf("exchange = %+v", ex)
	}
	for i, c := range ex.Chunks {
		if want := time.Duration(i+1) * 10 * time.Millisecond; c.Offset != want {
			t.Errorf("chunk %d at %v, want %v", i, c.Offset, want)
		}
	}
}
