package agui

import (
	"bytes"
	"io"

	"testing"
)

// benchStreams returns the same events as server-sent events and as
// protobuf frames, about 4 MiB of SSE.
func benchStreams(b *testing.B) (sse, proto []byte) {
	b.Helper()
	var s, p bytes.Buffer
	se, pe := NewSSEEncoder(&s), NewProtoEncoder(&p)
	for r := 0; s.Len() < 4<<20; r++ {
		for _, e := range events(b, benchRun(r)...) {
			if err := se.Encode(e); err != nil {
				b.Fatal(err)
			}
			if err := pe.Encode(e); err != nil {
				b.Fatal(err)
			}
		}
	}
	return s.Bytes(), p.Bytes()
}

// BenchmarkDecodeEncodings decodes the same events from each encoding into
// Events; MB/s counts the encoding's own bytes, and events/s compares
// them directly.
func BenchmarkDecodeEncodings(b *testing.B) {
	sse, proto := benchStreams(b)
	for _, tt := range []struct {
		name   string
		stream []byte
	}{{"sse", sse}, {"proto", proto}} {
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(tt.stream)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				r := NewReader(bytes.NewReader(tt.stream), tt.name)
				for {
					if _, err := r.Next(); err != nil {
						if err != io.EOF {
							b.Fatal(err)
						}
						break
					}
					n++
				}
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

func BenchmarkMarshalProto(b *testing.B) {
	evs := events(b, benchRun(0)...)
	size := 0
	for _, e := range evs {
		size += len(e.Raw())
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range evs {
			if _, _, err := MarshalProto(e); err != nil {
				b.Fatal(err)
			}
		}
	}
}
