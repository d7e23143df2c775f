package agui

import (
	"fmt"
	"testing"
)

// BenchmarkView applies agent-like runs (text, interleaved parallel calls,
// results, a state delta) to a view.
func BenchmarkView(b *testing.B) {
	evs := benchEvents(b, 10)
	b.ReportAllocs()
	for b.Loop() {
		v := NewView(RunAgentInput{})
		for _, e := range evs {
			if err := v.Apply(e); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(evs)*b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkViewLongMessage streams one message in n deltas: the time per
// delta must not grow with the message.
func BenchmarkViewLongMessage(b *testing.B) {
	for _, n := range []int{1000, 10000, 50000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			lines := []string{`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`, `{"type":"TEXT_MESSAGE_START","messageId":"m"}`}
			for i := range n {
				lines = append(lines, fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"word %d "}`, i))
			}
			evs := events(b, lines...)
			b.ReportAllocs()
			for b.Loop() {
				v := NewView(RunAgentInput{})
				for _, e := range evs {
					if err := v.Apply(e); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/delta")
		})
	}
}
