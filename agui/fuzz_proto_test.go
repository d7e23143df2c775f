package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// addProtoSeeds adds frames of the protobuf corpus and some damaged ones.
func addProtoSeeds(f *testing.F) {
	f.Helper()
	r := rand.New(rand.NewPCG(protoSeed, 7))
	for _, s := range protoCorpus(12) {
		for _, o := range s {
			b, _ := json.Marshal(o)
			e, err := ParseEvent(b)
			if err != nil {
				f.Fatal(err)
			}
			m, _, err := MarshalProto(e)
			if err != nil {
				continue
			}
			f.Add(m)
			f.Add(mutateFrame(r, m))
		}
	}
	f.Add([]byte{})
	f.Add([]byte{0xfa, 0x03, 0x02, 0x08, 0x01})
	f.Add([]byte{0x0b, 0x0c, 0x12, 0x02, 0x0a, 0x00})
}

// FuzzUnmarshalProto decodes arbitrary messages: no panic, and an event
// that decodes is valid JSON of a known type that encodes again.
func FuzzUnmarshalProto(f *testing.F) {
	addProtoSeeds(f)
	f.Fuzz(func(t *testing.T, msg []byte) {
		checkFlatIndex(t, msg)
		e, losses, err := UnmarshalProto(msg)
		if err != nil {
			if len(e.Raw()) != 0 {
				t.Fatalf("an error (%v) with an event", err)
			}
			return
		}
		if !json.Valid(e.Raw()) || !e.Type().Known() {
			t.Fatalf("decoded %q", e.Raw())
		}
		for _, l := range losses {
			if l.Path == "" || l.Reason == "" {
				t.Fatalf("loss %+v", l)
			}
		}
		b, _, err := MarshalProto(e)
		if err != nil {
			t.Fatalf("the decoded event %s does not encode: %v", e.Raw(), err)
		}
		// Decoding what we encoded from a decoded event is stable.
		e2, _, err := UnmarshalProto(b)
		if err != nil {
			t.Fatalf("re-encoded %s does not decode: %v", e.Raw(), err)
		}
		b2, _, err := MarshalProto(e2)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("encoding is not stable for %s: %x, then %x (%v)", e.Raw(), b, b2, err)
		}
	})
}

// FuzzProtoDecoder reads arbitrary bytes as a protobuf stream: errors are
// ReadErrors, and reading in one-byte pieces changes nothing.
func FuzzProtoDecoder(f *testing.F) {
	addProtoSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(r io.Reader) ([]string, error) {
			d := newProtoDecoder(r)
			d.MaxFrame = 1 << 12
			var out []string
			for {
				e, err := d.Next()
				var fe *FrameError
				if errors.As(err, &fe) {
					if fe.Frame < 1 || fe.Offset < 0 || fe.Offset > int64(len(data)) || fe.Line != 0 || !fe.Rule.Known() {
						t.Fatalf("frame error %v", fe)
					}
					out = append(out, fe.Error())
					continue
				}
				if err != nil {
					return out, err
				}
				out = append(out, string(e.Raw()))
			}
		}
		evs, err := read(bytes.NewReader(data))
		if err != io.EOF {
			t.Fatalf("reading memory ended with %v (%T)", err, err)
		}
		evs1, err1 := read(iotest.OneByteReader(bytes.NewReader(data)))
		if strings.Join(evs, "\n") != strings.Join(evs1, "\n") || errText(err) != errText(err1) {
			t.Fatalf("one byte at a time: %d events, %v; want %d, %v", len(evs1), err1, len(evs), err)
		}
	})
}

// checkFlatIndex checks that the fast path's pre-indexed event is the one
// ParseEvent makes of its JSON.
func checkFlatIndex(t *testing.T, msg []byte) {
	t.Helper()
	raw, fast, ok := decodeFlat(msg, nil)
	if !ok {
		return
	}
	fast.raw = raw
	parsed, err := ParseEvent(raw)
	if err != nil {
		t.Fatalf("the fast path wrote %q: %v", raw, err)
	}
	if fast.typ != parsed.typ || fast.code != parsed.code || fast.other != parsed.other || fast.f != parsed.f {
		t.Fatalf("the fast path indexes %q as %+v, ParseEvent as %+v", raw, fast, parsed)
	}
}
