package agui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/aguitest/aguitest/internal/longrun"
)

// benchRun is one agent-like run: a text message streamed in 40 fragments,
// three interleaved parallel calls of 20 argument fragments each, a step, a
// state delta, and their results.
func benchRun(run int) []string {
	var s []string
	s = append(s, fmt.Sprintf(`{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-%d"}`, run))
	s = append(s, `{"type":"STEP_STARTED","stepName":"answer"}`)
	s = append(s, `{"type":"TEXT_MESSAGE_START","messageId":"msg-1","role":"assistant"}`)
	for i := range 40 {
		s = append(s, fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"word %d "}`, i))
	}
	s = append(s, `{"type":"TEXT_MESSAGE_END","messageId":"msg-1"}`)
	for _, c := range []string{"call-a", "call-b", "call-c"} {
		s = append(s, fmt.Sprintf(`{"type":"TOOL_CALL_START","toolCallId":"%s","toolCallName":"move_task","parentMessageId":"msg-1"}`, c))
	}
	for i := range 20 {
		for _, c := range []string{"call-a", "call-b", "call-c"} {
			d := `\"x\":1,`
			switch i {
			case 0:
				d = `{`
			case 19:
				d = `\"y\":2}`
			}
			s = append(s, fmt.Sprintf(`{"type":"TOOL_CALL_ARGS","toolCallId":"%s","delta":"%s"}`, c, d))
		}
	}
	for _, c := range []string{"call-a", "call-b", "call-c"} {
		s = append(s, fmt.Sprintf(`{"type":"TOOL_CALL_END","toolCallId":"%s"}`, c))
		s = append(s, fmt.Sprintf(`{"type":"TOOL_CALL_RESULT","messageId":"res-%s","toolCallId":"%s","content":"ok"}`, c, c))
	}
	s = append(s, `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/n","value":1}]}`)
	s = append(s, `{"type":"STEP_FINISHED","stepName":"answer"}`)
	s = append(s, fmt.Sprintf(`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-%d"}`, run))
	return s
}

func benchEvents(b *testing.B, runs int) []Event {
	b.Helper()
	var evs []Event
	for r := range runs {
		evs = append(evs, events(b, benchRun(r)...)...)
	}
	return evs
}

func BenchmarkVerify(b *testing.B) {
	for _, p := range []Profile{Reference, Strict} {
		b.Run(p.String(), func(b *testing.B) {
			evs := benchEvents(b, 10)
			v := NewVerifier(Options{Profile: p})
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				for i := range evs {
					if vs := v.Push(evs[i]); vs != nil {
						b.Fatal(vs)
					}
				}
				n += len(evs)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(testing.AllocsPerRun(1, func() {
				for i := range evs {
					v.Push(evs[i])
				}
			}))/float64(len(evs)), "allocs/event")
		})
	}
}

func BenchmarkParseEvent(b *testing.B) {
	lines := benchRun(0)
	raw := make([][]byte, len(lines))
	size := 0
	for i, l := range lines {
		raw[i] = []byte(l)
		size += len(l)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range raw {
			if _, err := ParseEvent(r); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkVerifyShapes verifies 100,000 events as short runs and as one
// long run (internal/longrun), and the long run's events cut into a run
// per step ("steps"): the cost of an event must not depend on the length
// of its run. Between short and long the events differ too (the long
// run's hold more calls and results); between steps and long only the
// runs do.
func BenchmarkVerifyShapes(b *testing.B) {
	var buf bytes.Buffer
	if _, err := longrun.Write(&buf, 100_000); err != nil {
		b.Fatal(err)
	}
	long, err := ReadEvents(bytes.NewReader(buf.Bytes()))
	if err != nil {
		b.Fatal(err)
	}
	var cut bytes.Buffer
	run := 0
	for i, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		e := long[i]
		switch {
		case e.Type() == RunStarted || e.Type() == RunFinished:
			continue
		case e.Type() == StepStarted:
			run++
			fmt.Fprintf(&cut, `{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-%d"}`+"\n", run)
		}
		cut.Write(line)
		cut.WriteByte('\n')
		if e.Type() == StepFinished {
			fmt.Fprintf(&cut, `{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-%d"}`+"\n", run)
		}
	}
	steps, err := ReadEvents(&cut)
	if err != nil {
		b.Fatal(err)
	}
	short := benchEvents(b, len(long)/len(benchRun(0)))
	for _, p := range []Profile{Reference, Strict} {
		for _, s := range []struct {
			name string
			evs  []Event
		}{{"short", short}, {"steps", steps}, {"long", long}} {
			b.Run(p.String()+"/"+s.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if vs := Verify(s.evs, Options{Profile: p}); vs != nil {
						b.Fatal(vs[0])
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(len(s.evs)*b.N), "ns/event")
			})
		}
	}
}

// BenchmarkReaderLeadingBlanks reads a stream that opens with 64 KB of
// white space without a line break, arriving a byte at a time (a slow
// connection): the format is found in time linear in the blanks.
func BenchmarkReaderLeadingBlanks(b *testing.B) {
	in := strings.Repeat(" ", 64<<10) + "\ndata: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"
	for b.Loop() {
		rd := NewReader(iotest.OneByteReader(strings.NewReader(in)), "s")
		if _, err := rd.Next(); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(in)))
}
