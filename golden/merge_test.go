package golden

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aguitest/aguitest/agui"
)

func TestMerged(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{{
		name: "text, reasoning and a call joined at their starts",
		in: []string{
			`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
			`{"type":"REASONING_START","messageId":"rs"}`,
			`{"type":"REASONING_MESSAGE_START","messageId":"rm","role":"reasoning"}`,
			`{"type":"REASONING_MESSAGE_CONTENT","messageId":"rm","delta":"hm"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant","timestamp":3}`,
			`{"type":"REASONING_MESSAGE_CONTENT","messageId":"rm","delta":"m"}`,
			`{"type":"REASONING_MESSAGE_END","messageId":"rm"}`,
			`{"type":"REASONING_END","messageId":"rs"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a<b"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":"m"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"x\": [1, 2.50"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":" & c"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"], \"a\": null}"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"c"}`,
			`{"type":"TOOL_CALL_RESULT","messageId":"tm","toolCallId":"c","content":"ok","role":"tool"}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
		},
		want: []string{
			`{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}`,
			`{"type":"REASONING_START","messageId":"msg-1"}`,
			`{"type":"REASONING_MESSAGE","messageId":"msg-2","role":"reasoning","text":"hmm"}`,
			`{"type":"TEXT_MESSAGE","messageId":"msg-3","role":"assistant","text":"a<b & c"}`,
			`{"type":"REASONING_END","messageId":"msg-1"}`,
			`{"type":"TOOL_CALL","toolCallId":"call-1","toolCallName":"f","parentMessageId":"msg-3","args":{"a":null,"x":[1,2.50]}}`,
			`{"type":"TOOL_CALL_RESULT","messageId":"msg-4","role":"tool","toolCallId":"call-1","content":"ok"}`,
			`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}`,
		},
	}, {
		name: "arguments that are not one JSON value stay text",
		in: []string{
			`{"type":"TOOL_CALL_START","toolCallId":"a","toolCallName":"f"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"{\"x\":"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"a"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"b","toolCallName":"g"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"b"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"h"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{} {}"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"c"}`,
		},
		want: []string{
			`{"type":"TOOL_CALL","toolCallId":"call-1","toolCallName":"f","args":"{\"x\":"}`,
			`{"type":"TOOL_CALL","toolCallId":"call-2","toolCallName":"g","args":""}`,
			`{"type":"TOOL_CALL","toolCallId":"call-3","toolCallName":"h","args":"{} {}"}`,
		},
	}, {
		name: "what never ends is incomplete; strays stay as they are",
		in: []string{
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"x","delta":"stray"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"cut"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"nope"}`,
			`{"type":"TEXT_MESSAGE_START"}`,
		},
		want: []string{
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"stray"}`,
			`{"type":"TEXT_MESSAGE","messageId":"msg-2","text":"cut","incomplete":true}`,
			`{"type":"TOOL_CALL_END","toolCallId":"call-1"}`,
			`{"type":"TEXT_MESSAGE_START"}`,
		},
	}, {
		name: "chunks are expanded first",
		in: []string{
			`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","role":"assistant","delta":"he"}`,
			`{"type":"TEXT_MESSAGE_CHUNK","delta":"llo"}`,
			`{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"f","parentMessageId":"m","delta":"{\"a\""}`,
			`{"type":"TOOL_CALL_CHUNK","delta":":1}"}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
		},
		want: []string{
			`{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}`,
			`{"type":"TEXT_MESSAGE","messageId":"msg-1","role":"assistant","text":"hello"}`,
			`{"type":"TOOL_CALL","toolCallId":"call-1","toolCallName":"f","parentMessageId":"msg-1","args":{"a":1}}`,
			`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}`,
		},
	}, {
		name: "sibling calls and their results in canonical order",
		in: []string{
			`{"type":"TOOL_CALL_START","toolCallId":"1","toolCallName":"search","parentMessageId":"m"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"2","toolCallName":"add","parentMessageId":"m"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"3","toolCallName":"add","parentMessageId":"m"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"2","delta":"{\"a\":2}"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"3","delta":"{\"a\":1}"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"1"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"2"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"3"}`,
			`{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"1","content":"s"}`,
			`{"type":"TOOL_CALL_RESULT","messageId":"r2","toolCallId":"2","content":"2"}`,
			`{"type":"TOOL_CALL_RESULT","messageId":"r3","toolCallId":"3","content":"1"}`,
		},
		want: []string{
			`{"type":"TOOL_CALL","toolCallId":"call-1","toolCallName":"add","parentMessageId":"msg-1","args":{"a":1}}`,
			`{"type":"TOOL_CALL","toolCallId":"call-2","toolCallName":"add","parentMessageId":"msg-1","args":{"a":2}}`,
			`{"type":"TOOL_CALL","toolCallId":"call-3","toolCallName":"search","parentMessageId":"msg-1","args":""}`,
			`{"type":"TOOL_CALL_RESULT","messageId":"msg-2","toolCallId":"call-1","content":"1"}`,
			`{"type":"TOOL_CALL_RESULT","messageId":"msg-3","toolCallId":"call-2","content":"2"}`,
			`{"type":"TOOL_CALL_RESULT","messageId":"msg-4","toolCallId":"call-3","content":"s"}`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLines(t, Normalize(evs(t, tt.in...), Merged), tt.want)
		})
	}
}

// call is one tool call of a generated assistant turn.
type call struct{ name, args string }

// turn generates the events an agent emits for a text message followed by
// calls, with the fragments of the message and the calls interleaved as
// rng decides and ids drawn from rng; results follow in random order.
func turn(rng *rand.Rand, text []string, calls []call) []agui.Event {
	id := func(p string) string { return fmt.Sprintf("%s-%08x", p, rng.Uint32()) }
	msg := id("msg")
	out := []agui.Event{
		agui.NewRunStarted("thread", id("run")),
		agui.NewTextMessageStart(msg),
	}
	var lanes [][]agui.Event
	var textLane []agui.Event
	for _, d := range text {
		textLane = append(textLane, agui.NewTextMessageContent(msg, d))
	}
	lanes = append(lanes, append(textLane, agui.NewTextMessageEnd(msg)))
	ids := make([]string, len(calls))
	for i, c := range calls {
		ids[i] = id("call")
		lane := []agui.Event{agui.NewToolCallStart(ids[i], c.name, msg)}
		for rest := c.args; rest != ""; {
			n := 1 + rng.IntN(len(rest))
			lane = append(lane, agui.NewToolCallArgs(ids[i], rest[:n]))
			rest = rest[n:]
		}
		lanes = append(lanes, append(lane, agui.NewToolCallEnd(ids[i])))
	}
	for len(lanes) > 0 {
		i := rng.IntN(len(lanes))
		out = append(out, lanes[i][0])
		if lanes[i] = lanes[i][1:]; len(lanes[i]) == 0 {
			lanes = append(lanes[:i], lanes[i+1:]...)
		}
	}
	for _, i := range rng.Perm(len(calls)) {
		out = append(out, agui.NewToolCallResult(id("tool"), ids[i], "result of "+calls[i].args))
	}
	return append(out, agui.NewRunFinished("thread", "run"))
}

// TestMergedInterleavingInvariance checks that the merged view of the same
// calls does not depend on how their fragments were interleaved, in which
// order they started, how they were fragmented or which ids they got.
func TestMergedInterleavingInvariance(t *testing.T) {
	names := []string{"weather", "search", "add"}
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 1))
		var calls []call
		for i := range 1 + rng.IntN(5) {
			// Some calls share a name, some share arguments, none share both.
			calls = append(calls, call{names[rng.IntN(len(names))], fmt.Sprintf(`{"n":%d,"q":"x%d"}`, rng.IntN(3), i)})
		}
		text := []string{"Let ", "me ", "see."}
		want := Marshal(Normalize(turn(rng, text, calls), Merged))
		for try := range 10 {
			perm := make([]call, len(calls))
			for i, j := range rng.Perm(len(calls)) {
				perm[i] = calls[j]
			}
			got := Marshal(Normalize(turn(rng, text, perm), Merged))
			if string(got) != string(want) {
				t.Fatalf("seed %d, try %d: merged view differs:\ngot:\n%s\nwant:\n%s", seed, try, got, want)
			}
		}
	}
}
