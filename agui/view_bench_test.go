package agui

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/aguitest/aguitest/internal/longrun"
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

// BenchmarkViewManyMessages streams n messages and n calls, each with its
// result, in one run: the time per message must not grow with the run's
// messages (the index of ids follows what is added instead of being
// rebuilt).
func BenchmarkViewManyMessages(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			lines := []string{`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`}
			for i := range n {
				lines = append(lines,
					fmt.Sprintf(`{"type":"TEXT_MESSAGE_START","messageId":"m%d"}`, i),
					fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m%d","delta":"calling"}`, i),
					fmt.Sprintf(`{"type":"TEXT_MESSAGE_END","messageId":"m%d"}`, i),
					fmt.Sprintf(`{"type":"TOOL_CALL_START","toolCallId":"c%d","toolCallName":"f","parentMessageId":"m%d"}`, i, i),
					fmt.Sprintf(`{"type":"TOOL_CALL_END","toolCallId":"c%d"}`, i),
					fmt.Sprintf(`{"type":"TOOL_CALL_RESULT","messageId":"r%d","toolCallId":"c%d","content":"ok"}`, i, i))
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
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/message")
		})
	}
}

// BenchmarkViewLongRun applies one long agent session (internal/longrun)
// to a view and reads what it holds at the end: the time per event must
// not grow with the run.
func BenchmarkViewLongRun(b *testing.B) {
	for _, n := range []int{10_000, 50_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var buf bytes.Buffer
			if _, err := longrun.Write(&buf, n); err != nil {
				b.Fatal(err)
			}
			evs, err := ReadEvents(&buf)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				v := NewView(RunAgentInput{})
				for _, e := range evs {
					if err := v.Apply(e); err != nil {
						b.Fatal(err)
					}
				}
				_ = v.MessagesJSON()
				_ = v.State()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(len(evs)*b.N), "ns/event")
		})
	}
}
