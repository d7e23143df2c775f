// Package longrun writes the stream of one long agent session: a single
// run of about n events made of steps, each with a text message of a few
// fragments, three parallel tool calls with interleaved arguments and
// their results, and a state delta, repeated. The benchmarks of the
// client's view, show, diff and the verifier read it.
package longrun

import (
	"bufio"
	"io"
	"strconv"
)

// Write writes one run of at least n events (JSON Lines) to w and returns
// how many it wrote.
func Write(w io.Writer, n int) (int, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	count := 0
	line := func(parts ...string) {
		for _, p := range parts {
			bw.WriteString(p)
		}
		bw.WriteByte('\n')
		count++
	}
	line(`{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}`)
	calls := [...]string{"a", "b", "c"}
	for s := 0; count < n-1; s++ {
		k := strconv.Itoa(s)
		line(`{"type":"STEP_STARTED","stepName":"step-`, k, `"}`)
		line(`{"type":"TEXT_MESSAGE_START","messageId":"msg-`, k, `","role":"assistant"}`)
		for i := range 4 {
			line(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-`, k, `","delta":"part `, strconv.Itoa(i), ` of step `, k, ` "}`)
		}
		line(`{"type":"TEXT_MESSAGE_END","messageId":"msg-`, k, `"}`)
		for _, c := range calls {
			line(`{"type":"TOOL_CALL_START","toolCallId":"call-`, k, `-`, c, `","toolCallName":"lookup","parentMessageId":"msg-`, k, `"}`)
		}
		for _, d := range []string{`{\"q\":`, `\"x`, `y\",\"n\":`, `1}`} {
			for _, c := range calls {
				line(`{"type":"TOOL_CALL_ARGS","toolCallId":"call-`, k, `-`, c, `","delta":"`, d, `"}`)
			}
		}
		for _, c := range calls {
			line(`{"type":"TOOL_CALL_END","toolCallId":"call-`, k, `-`, c, `"}`)
		}
		for _, c := range calls {
			line(`{"type":"TOOL_CALL_RESULT","messageId":"res-`, k, `-`, c, `","toolCallId":"call-`, k, `-`, c, `","content":"result `, k, c, `"}`)
		}
		line(`{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/step","value":`, k, `}]}`)
		line(`{"type":"STEP_FINISHED","stepName":"step-`, k, `"}`)
	}
	line(`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}`)
	return count, bw.Flush()
}
