package agui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readAllText reads a stream with next and describes every event, frame
// error and read error with its line, for comparing readers.
func readAllText(next func() (Event, error), line func() int, format func() string) string {
	var b strings.Builder
	for range 1 << 20 {
		e, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(&b, "%d: error %v\n", line(), err)
			var fe *FrameError
			if asFrame(err, &fe) {
				continue
			}
			break
		}
		fmt.Fprintf(&b, "%d: %s\n", line(), e.Raw())
	}
	fmt.Fprintf(&b, "format %s\n", format())
	return b.String()
}

func asFrame(err error, fe **FrameError) bool {
	f, ok := err.(*FrameError)
	*fe = f
	return ok
}

// parallelInputs are streams in every format, with frames the client
// cannot read and read errors.
func parallelInputs() []string {
	var out []string
	for i := range 300 {
		b, _ := genBody(clientSeed+2, i)
		out = append(out, string(b))
	}
	for i := range 60 {
		var jl bytes.Buffer
		for j, e := range genStream(corpusSeed, i) {
			raw, _ := json.Marshal(e)
			switch {
			case i%7 == 1 && j == 3:
				jl.WriteString("{\"ping\":1}\n")
			case i%7 == 2 && j == 4:
				jl.WriteString("\n\n   \n")
			case i%7 == 3 && j == 5:
				jl.WriteString("[1]\n")
			}
			jl.Write(raw)
			jl.WriteByte('\n')
		}
		s := jl.String()
		if i%5 == 4 {
			s = s[:len(s)-7] // cut inside the last event
		}
		if i%11 == 10 {
			s += "{\"type\":\n{\"type\":\"X\"}\n" // invalid JSON, then more
		}
		out = append(out, s)
	}
	out = append(out, "", "   \n\n", "\uFEFF\n\ndata: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
		`[{"type":"RUN_STARTED","threadId":"t","runId":"r"},{"type":"RUN_FINISHED","threadId":"t","runId":"r"}]`)
	return out
}

func TestParallelReaderSameAsReader(t *testing.T) {
	for i, in := range parallelInputs() {
		seq := NewReader(strings.NewReader(in), "s")
		want := readAllText(seq.Next, seq.Line, seq.Format)
		for _, bs := range []int{16, 100, 1000, 1 << 20} {
			for _, w := range []int{1, 2, 3} {
				p := NewParallelReader(iotest.HalfReader(strings.NewReader(in)), "s", w)
				p.BlockSize = bs
				got := readAllText(p.Next, p.Line, p.Format)
				p.Close()
				if got != want {
					t.Fatalf("input %d, block %d, %d workers: differs from Reader\nReader:\n%s\nParallelReader:\n%s\ninput: %q", i, bs, w, want, got, in)
				}
			}
		}
	}
}

func TestParallelReaderCloseEarly(t *testing.T) {
	var b strings.Builder
	for range 20000 {
		b.WriteString(`{"type":"CUSTOM","name":"n","value":1}` + "\n")
	}
	p := NewParallelReader(strings.NewReader(b.String()), "s", 2)
	p.BlockSize = 4096
	for range 10 {
		if _, err := p.Next(); err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
	if _, err := p.Next(); err != io.EOF {
		t.Errorf("after Close: %v, want io.EOF", err)
	}
}

func FuzzParallelReader(f *testing.F) {
	for i, in := range parallelInputs() {
		if i%10 == 0 && len(in) < 2048 {
			f.Add([]byte(in), uint16(37))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, bs uint16) {
		if len(in) > maxFuzzInput {
			return
		}
		seq := NewReader(bytes.NewReader(in), "s")
		want := readAllText(seq.Next, seq.Line, seq.Format)
		p := NewParallelReader(bytes.NewReader(in), "s", 2)
		p.BlockSize = int(bs%512) + 1
		got := readAllText(p.Next, p.Line, p.Format)
		p.Close()
		if got != want {
			t.Fatalf("differs from Reader\nReader:\n%s\nParallelReader:\n%s", want, got)
		}
	})
}

// TestVerifyStreamAllocs: reading a long stream and verifying it costs
// no allocation per event in steady state, whichever reader reads it and
// in either text encoding; what is allocated is per block of input and per
// run (the ids a run opens).
func TestVerifyStreamAllocs(t *testing.T) {
	var jsonl, sse bytes.Buffer
	events := 0
	for r := range 100 {
		for _, l := range benchRun(r) {
			jsonl.WriteString(l + "\n")
			sse.WriteString("data: " + l + "\n\n")
			events++
		}
	}
	for _, tt := range []struct {
		name     string
		stream   []byte
		parallel bool
	}{
		{"Reader/jsonl", jsonl.Bytes(), false},
		{"Reader/sse", sse.Bytes(), false},
		{"ParallelReader/jsonl", jsonl.Bytes(), true},
		{"ParallelReader/sse", sse.Bytes(), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			allocs := testing.AllocsPerRun(3, func() {
				var next func() (Event, error)
				if tt.parallel {
					p := NewParallelReader(bytes.NewReader(tt.stream), "s", 2)
					p.BlockSize = 64 << 10
					defer p.Close()
					next = p.Next
				} else {
					next = NewReader(bytes.NewReader(tt.stream), "s").Next
				}
				v := NewVerifier(Options{})
				for {
					e, err := next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					if vs := v.Push(e); vs != nil {
						t.Fatal(vs)
					}
				}
			})
			// 100 runs: a few allocations each, and the blocks.
			if perEvent := allocs / float64(events); perEvent > 0.1 {
				t.Errorf("%.0f allocations for %d events (%.2f per event), want well under 1", allocs, events, perEvent)
			}
		})
	}
}
