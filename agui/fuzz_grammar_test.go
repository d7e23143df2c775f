package agui

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// byteSource is a rand.Source drawing from the fuzzer's bytes, one byte a
// draw (repeated to 64 bits, so that small choices use it whole), then
// from a generator seeded with their number: the fuzzer's mutations become
// changes of the grammar's choices. (A source that ran dry on zeros would
// hang rand's rejection sampling.)
type byteSource struct {
	b    []byte
	i    int
	rest *rand.PCG
}

// Uint64 returns the next byte, repeated.
func (s *byteSource) Uint64() uint64 {
	if s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		return uint64(c) * 0x0101010101010101
	}
	if s.rest == nil {
		s.rest = rand.NewPCG(uint64(len(s.b)), 0x9e3779b97f4a7c15)
	}
	return s.rest.Uint64()
}

// grammarEvents builds an event stream from data with the stream grammar
// of the differential tests: agent-like runs (messages, parallel calls,
// reasoning, chunks, steps, subagents, state), broken in one or two
// places when the first byte is odd.
func grammarEvents(data []byte) []Event {
	g := &gen{r: rand.New(&byteSource{b: data})}
	mutate := len(data) > 0 && data[0]%2 == 1
	s := g.stream()
	if mutate {
		s = g.mutate(s)
	}
	out := make([]Event, 0, len(s))
	for _, o := range s {
		b, err := json.Marshal(o)
		if err != nil {
			panic(err)
		}
		e, err := ParseEvent(b)
		if err != nil {
			panic(err)
		}
		out = append(out, e)
	}
	return out
}

// grammarOptions are the verifier configurations the grammar targets try.
var grammarOptions = []Options{
	{},
	{Profile: Reference},
	{NoChunkExpansion: true},
	{Profile: Reference, NoChunkExpansion: true},
	{Enable: []Rule{RuleEmptyDelta, RuleSharedResultID, RuleReusedResultID}},
	{Allow: []Rule{RuleTruncated, RuleReopenedID}},
}

// FuzzVerifyGrammar feeds the verifier event sequences built by the stream
// grammar (so that the fuzzer explores agent-like streams, not JSON
// syntax) and checks what must hold whatever the stream:
//   - batch Verify reports exactly what Push and Finish report;
//   - Strict never accepts what Reference rejects;
//   - the verdict survives an SSE round trip: the events encoded as a
//     server-sent event stream and read back as the client reads them
//     are the same events, with the same violations.
//
// The recording round trip is FuzzVerdictRecordingRoundTrip (package
// agui_test).
func FuzzVerifyGrammar(f *testing.F) {
	for i := range 30 {
		r := rand.New(rand.NewPCG(corpusSeed, uint64(i)))
		seed := make([]byte, 64+i*16)
		for j := range seed {
			seed[j] = byte(r.Uint64())
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		evs := grammarEvents(data)
		verdicts := make([][]Violation, len(grammarOptions))
		for k, opt := range grammarOptions {
			batch := Verify(evs, opt)
			v := NewVerifier(opt)
			var pushed []Violation
			for _, e := range evs {
				pushed = append(pushed, v.Push(e)...)
			}
			pushed = append(pushed, v.Finish()...)
			if d := cmp.Diff(batch, pushed); d != "" {
				t.Fatalf("options %+v: Verify and Push/Finish differ (-batch +push):\n%s\nstream: %s", opt, d, streamText(evs))
			}
			verdicts[k] = batch
		}
		for _, pair := range [][2]int{{0, 1}, {2, 3}} {
			strict, ref := verdicts[pair[0]], verdicts[pair[1]]
			if len(ref) > 0 && len(strict) == 0 {
				t.Fatalf("options %+v: Reference rejects (%v) what Strict accepts\nstream: %s", grammarOptions[pair[0]], ref[0], streamText(evs))
			}
		}

		var sse bytes.Buffer
		enc := NewSSEEncoder(&sse)
		for _, e := range evs {
			if err := enc.Encode(e); err != nil {
				t.Fatal(err)
			}
		}
		r := NewReader(&sse, "sse")
		var back []Event
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("reading back the SSE stream: %v\nstream: %s", err, streamText(evs))
			}
			back = append(back, e)
		}
		if len(back) != len(evs) {
			t.Fatalf("SSE round trip: %d events back, %d sent", len(back), len(evs))
		}
		for i := range evs {
			if !bytes.Equal(back[i].Raw(), evs[i].Raw()) {
				t.Fatalf("SSE round trip: event %d: got %s, sent %s", i+1, back[i].Raw(), evs[i].Raw())
			}
		}
		for k, opt := range grammarOptions {
			if d := cmp.Diff(verdicts[k], Verify(back, opt)); d != "" {
				t.Fatalf("options %+v: the verdict changed over SSE (-sent +read back):\n%s", opt, d)
			}
		}
	})
}

// streamText is a stream as JSON Lines, for failure messages.
func streamText(evs []Event) string {
	var b bytes.Buffer
	for _, e := range evs {
		b.Write(e.Raw())
		b.WriteByte('\n')
	}
	return b.String()
}
