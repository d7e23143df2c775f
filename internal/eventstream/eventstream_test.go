package eventstream

import (
	"bytes"
	"errors"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	b := Append(nil, []byte(`{"a":1}`), ":event-type", "x", ":message-type", "event")
	b = Append(b, nil, ":message-type", "exception")
	m, n, err := Decode(b)
	if err != nil || m.Get(":event-type") != "x" || string(m.Payload) != `{"a":1}` {
		t.Fatalf("%+v %v", m, err)
	}
	m, k, err := Decode(b[n:])
	if err != nil || n+k != len(b) || m.Get(":message-type") != "exception" || len(m.Payload) != 0 {
		t.Fatalf("%+v %v", m, err)
	}
	for i := range len(b) - 1 {
		if _, _, err := Decode(b[:i]); i < n && !errors.Is(err, ErrShort) {
			t.Errorf("%d bytes: %v, want ErrShort", i, err)
		}
	}
	bad := bytes.Clone(b)
	bad[14] ^= 1
	if _, _, err := Decode(bad); err == nil || errors.Is(err, ErrShort) {
		t.Errorf("a flipped bit: %v", err)
	}
}

// FuzzDecode: no input makes Decode panic; what it decodes encodes back
// to the same bytes when its headers are strings.
func FuzzDecode(f *testing.F) {
	f.Add(Append(nil, []byte(`{"contentBlockIndex":0}`), ":event-type", "contentBlockStop", ":content-type", "application/json", ":message-type", "event"))
	f.Add(Append(nil, nil))
	f.Add([]byte{0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, n, err := Decode(b)
		if err != nil {
			return
		}
		if n > len(b) || n < minMessage {
			t.Fatalf("length %d of %d bytes", n, len(b))
		}
		var pairs []string
		for _, h := range m.Headers {
			if h.Type != TypeString {
				return
			}
			pairs = append(pairs, h.Name, h.Value)
		}
		if again := Append(nil, m.Payload, pairs...); !bytes.Equal(again, b[:n]) {
			t.Fatalf("re-encoded %x, decoded from %x", again, b[:n])
		}
	})
}
