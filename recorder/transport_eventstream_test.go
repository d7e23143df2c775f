package recorder

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/internal/eventstream"
)

// eventBody is an event stream of three messages, the second holding a
// secret.
func eventBody() []byte {
	var b []byte
	b = eventstream.Append(b, []byte(`{"role":"assistant"}`), ":event-type", "messageStart", ":message-type", "event")
	b = eventstream.Append(b, []byte(`{"contentBlockIndex":0,"delta":{"text":"key sk-SECRET123 here"}}`), ":event-type", "contentBlockDelta", ":message-type", "event")
	b = eventstream.Append(b, []byte(`{"stopReason":"end_turn"}`), ":event-type", "messageStop", ":message-type", "event")
	return b
}

// recordBody serves body (as an event stream) in reads of size bytes
// through a Transport and returns the recorded exchange.
func recordBody(t *testing.T, body []byte, size int, rd Redact) *Exchange {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", eventstream.ContentType)
		rc := http.NewResponseController(w)
		for i := 0; i < len(body); i += size {
			w.Write(body[i:min(i+size, len(body))])
			rc.Flush()
		}
	}))
	defer srv.Close()
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{})
	c := &http.Client{Transport: &Transport{Writer: w, Redact: rd}}
	resp, err := c.Post(srv.URL+"/model/m/converse-stream", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(got, body) {
		t.Fatalf("the client read %d bytes, the server sent %d", len(got), len(body))
	}
	r := NewReader(&buf, "rec")
	for {
		rec, err := r.Next()
		if err != nil {
			t.Fatalf("no exchange recorded: %v", err)
		}
		if rec.Exchange != nil {
			return rec.Exchange
		}
	}
}

// TestTransportEventStream: an event stream is recorded a message a
// chunk, its payload as text and its headers beside it, however the
// reads cut it; a secret in a payload is redacted as in any text.
func TestTransportEventStream(t *testing.T) {
	want := []string{`{"role":"assistant"}`, `{"contentBlockIndex":0,"delta":{"text":"key [REDACTED] here"}}`, `{"stopReason":"end_turn"}`}
	for _, size := range []int{1, 7, 60, 1 << 20} {
		ex := recordBody(t, eventBody(), size, Redact{Patterns: []*regexp.Regexp{regexp.MustCompile(`sk-[A-Z0-9]+`)}})
		var got []string
		for _, c := range ex.Chunks {
			got = append(got, string(c.Data))
			if c.Event[":message-type"] != "event" || c.Event[":event-type"] == "" {
				t.Errorf("reads of %d: chunk %q has headers %v", size, c.Data, c.Event)
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("reads of %d: chunks (-want +got):\n%s", size, d)
		}
		line, _ := json.Marshal(ex.Chunks[0])
		if !strings.Contains(string(line), `"event":{":event-type":"messageStart",":message-type":"event"},"data":"{\"role\":\"assistant\"}"`) {
			t.Errorf("chunk line %s", line)
		}
	}
}

// TestTransportEventStreamBroken: bytes that do not frame are kept as
// they were read, so that nothing the client read is lost: after a
// message whose CRC does not match, and a message the body ends in.
func TestTransportEventStreamBroken(t *testing.T) {
	body := eventBody()
	bad := append([]byte(nil), body...)
	first := len(eventstream.Append(nil, []byte(`{"role":"assistant"}`), ":event-type", "messageStart", ":message-type", "event"))
	bad[first+20] ^= 0xff // inside the second message
	tests := []struct {
		name string
		body []byte
	}{
		{"bad CRC", bad},
		{"cut", body[:len(body)-5]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := recordBody(t, tt.body, 9, Redact{})
			var all []byte
			decoded := 0
			for _, c := range ex.Chunks {
				if c.Event != nil {
					decoded++
					all = eventstream.Append(all, c.Data, headerPairs(c.Event)...)
				} else {
					all = append(all, c.Data...)
				}
			}
			if decoded == 0 || decoded == 3 {
				t.Errorf("%d messages decoded", decoded)
			}
			if len(all) != len(tt.body) || !bytes.Equal(all[len(all)-10:], tt.body[len(tt.body)-10:]) {
				t.Errorf("the chunks hold %d bytes of %d", len(all), len(tt.body))
			}
		})
	}
}

// headerPairs returns the headers as name, value pairs in the order
// eventBody writes them.
func headerPairs(h map[string]string) []string {
	return []string{":event-type", h[":event-type"], ":message-type", h[":message-type"]}
}

// FuzzEventFrames: whatever the bytes and however the reads cut them, the
// chunks hold every byte read: decoded messages framed again, and the
// rest as read.
func FuzzEventFrames(f *testing.F) {
	f.Add(eventBody(), uint8(7))
	f.Add(eventBody()[:40], uint8(3))
	f.Add([]byte("not an event stream at all"), uint8(1))
	f.Fuzz(func(t *testing.T, body []byte, size uint8) {
		n := int(size%64) + 1
		var fr eventFrames
		var cs []Chunk
		for i := 0; i < len(body); i += n {
			cs = fr.add(cs, 0, body[i:min(i+n, len(body))])
		}
		cs = fr.rest(cs)
		var all []byte
		for _, c := range cs {
			if c.Event == nil {
				all = append(all, c.Data...)
				continue
			}
			m, k, err := eventstream.Decode(body[len(all):])
			if err != nil {
				t.Fatalf("a decoded chunk where the input does not decode: %v", err)
			}
			for _, h := range m.Headers {
				if c.Event[h.Name] != h.Value {
					t.Fatalf("headers %v of %v", c.Event, m.Headers)
				}
			}
			all = append(all, body[len(all):len(all)+k]...)
			if !bytes.Equal(c.Data, m.Payload) {
				t.Fatalf("payload %q, want %q", c.Data, m.Payload)
			}
		}
		if !bytes.Equal(all, body) {
			t.Fatalf("the chunks hold %d bytes of %d", len(all), len(body))
		}
	})
}
