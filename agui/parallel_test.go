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
		if testing.Short() && i%3 != 0 {
			continue // a third of the inputs, every block size and worker count
		}
		seq := NewReader(strings.NewReader(in), "s")
		want := readAllText(seq.Next, seq.Line, seq.Format)
		for _, bs := range []int{16, 100, 1000, 1 << 20} {
			for _, w := range []int{1, 2, 3} {
				for _, recycle := range []bool{false, true} {
					p := NewParallelReader(iotest.HalfReader(strings.NewReader(in)), "s", w)
					p.BlockSize = bs
					p.Recycle = recycle
					got := readAllText(p.Next, p.Line, p.Format)
					p.Close()
					if got != want {
						t.Fatalf("input %d, block %d, %d workers, recycle %v: differs from Reader\nReader:\n%s\nParallelReader:\n%s\ninput: %q", i, bs, w, recycle, want, got, in)
					}
				}
			}
		}
	}
}

// verifyText verifies what next reads and describes every violation, for
// comparing readers.
func verifyText(next func() (Event, error)) string {
	var b strings.Builder
	v := NewVerifier(Options{})
	for range 1 << 20 {
		e, err := next()
		if err == io.EOF {
			break
		}
		var fe *FrameError
		switch {
		case asFrame(err, &fe):
			for _, vi := range v.PushFrame(fe) {
				fmt.Fprintf(&b, "%v\n", vi)
			}
			continue
		case err != nil:
			fmt.Fprintf(&b, "error %v\n", err)
		}
		if err != nil {
			break
		}
		for _, vi := range v.Push(e) {
			fmt.Fprintf(&b, "%v\n", vi)
		}
	}
	for _, vi := range v.Finish() {
		fmt.Fprintf(&b, "%v\n", vi)
	}
	return b.String()
}

// TestParallelReaderRecycleVerify: a verifier fed by a reader that reuses
// its blocks (Recycle) finds exactly what it finds from Reader, whose
// events live on: it keeps nothing of the events it is given, chunk
// streams that span blocks included (the streams hold TEXT_MESSAGE_CHUNK
// and TOOL_CALL_CHUNK; the blocks are cut small).
func TestParallelReaderRecycleVerify(t *testing.T) {
	inputs := parallelInputs()
	var chunks strings.Builder
	for r := range 40 {
		fmt.Fprintf(&chunks, `{"type":"RUN_STARTED","threadId":"t","runId":"r%d"}`+"\n", r)
		for i := range 30 {
			fmt.Fprintf(&chunks, `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m%d-long-enough-to-span","role":"assistant","delta":"w%d "}`+"\n", r, i)
			fmt.Fprintf(&chunks, `{"type":"TOOL_CALL_CHUNK","toolCallId":"c%d","toolCallName":"tool_%d","parentMessageId":"m%d-long-enough-to-span","delta":"{}"}`+"\n", r, r, r)
		}
		fmt.Fprintf(&chunks, `{"type":"RUN_FINISHED","threadId":"t","runId":"r%d"}`+"\n", r)
	}
	inputs = append(inputs, chunks.String())
	for i, in := range inputs {
		seq := NewReader(strings.NewReader(in), "s")
		want := verifyText(seq.Next)
		for _, bs := range []int{64, 4096} {
			p := NewParallelReader(strings.NewReader(in), "s", 2)
			p.BlockSize = bs
			p.Recycle = true
			got := verifyText(p.Next)
			p.Close()
			if got != want {
				t.Fatalf("input %d, block %d: differs from Reader\nReader:\n%s\nParallelReader (Recycle):\n%s", i, bs, want, got)
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
		p.Recycle = bs&0x8000 != 0
		got := readAllText(p.Next, p.Line, p.Format)
		p.Close()
		if got != want {
			t.Fatalf("differs from Reader\nReader:\n%s\nParallelReader:\n%s", want, got)
		}
		// Verified as read, with the blocks reused: the same findings.
		seq = NewReader(bytes.NewReader(in), "s")
		want = verifyText(seq.Next)
		p = NewParallelReader(bytes.NewReader(in), "s", 2)
		p.BlockSize = int(bs%512) + 1
		p.Recycle = true
		got = verifyText(p.Next)
		p.Close()
		if got != want {
			t.Fatalf("verification differs from Reader's\nReader:\n%s\nParallelReader (Recycle):\n%s", want, got)
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

// A long file is read on every core and verified in stream order; with
// Recycle the reader reuses its blocks, since the verifier keeps nothing
// of an event.
func ExampleParallelReader() {
	var b strings.Builder
	b.WriteString(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n")
	b.WriteString(`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}` + "\n")
	for i := range 10000 {
		fmt.Fprintf(&b, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"word %d "}`+"\n", i)
	}
	b.WriteString(`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}` + "\n")

	r := NewParallelReader(strings.NewReader(b.String()), "long.jsonl", 0)
	r.Recycle = true
	defer r.Close()
	v := NewVerifier(Options{})
	events := 0
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		events++
		for _, vi := range v.Push(e) {
			fmt.Printf("long.jsonl:%d: %s\n", r.Line(), vi)
		}
	}
	for _, vi := range v.Finish() {
		fmt.Println(vi)
	}
	fmt.Println(events, "events,", r.Format())
	// Output:
	// long.jsonl:10003: event 10003 (TOOL_CALL_ARGS): tool-call-not-open: Cannot send 'TOOL_CALL_ARGS' event: No active tool call found with ID 'c1'. Start a tool call with 'TOOL_CALL_START' first.
	// end of stream after 10003 events: truncated: the stream ended without RUN_FINISHED or RUN_ERROR
	// end of stream after 10003 events: unclosed: text message 'm' was never closed
	// 10003 events, jsonl
}
