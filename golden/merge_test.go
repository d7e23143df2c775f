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
		name: "messages as the client holds them, at the place the run first named them",
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
			`{"type":"MESSAGE","messageId":"msg-2","role":"reasoning","content":"hmm"}`,
			`{"type":"MESSAGE","messageId":"msg-3","role":"assistant","content":"a<b & c","toolCalls":[{"args":{"a":null,"x":[1,2.50]},"id":"call-1","name":"f"}]}`,
			`{"type":"REASONING_END","messageId":"msg-1"}`,
			`{"type":"MESSAGE","messageId":"msg-4","role":"tool","toolCallId":"call-1","content":"ok"}`,
			`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}`,
		},
	}, {
		name: "text reopened under one id around calls is one message (Mastra's chunks)",
		in: []string{
			`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"Let me "}`,
			`{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"weather","parentMessageId":"m","delta":"{\"city\":\"Paris\"}"}`,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"check "}`,
			`{"type":"TOOL_CALL_CHUNK","toolCallId":"c2","toolCallName":"weather","parentMessageId":"m","delta":"{\"city\":\"Rome\"}"}`,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"both."}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
		},
		want: []string{
			`{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}`,
			`{"type":"MESSAGE","messageId":"msg-1","role":"assistant","content":"Let me check both.","toolCalls":[{"args":{"city":"Paris"},"id":"call-1","name":"weather"},{"args":{"city":"Rome"},"id":"call-2","name":"weather"}]}`,
			`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}`,
		},
	}, {
		name: "arguments that are not one JSON value stay text",
		in: []string{
			`{"type":"TOOL_CALL_START","toolCallId":"a","toolCallName":"f","parentMessageId":"m"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"{\"x\":"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"a"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"b","toolCallName":"g","parentMessageId":"m"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"b"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"h","parentMessageId":"m"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{} {}"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"c"}`,
		},
		want: []string{
			`{"type":"MESSAGE","messageId":"msg-1","role":"assistant","toolCalls":[{"args":"{\"x\":","id":"call-1","name":"f"},{"args":"","id":"call-2","name":"g"},{"args":"{} {}","id":"call-3","name":"h"}]}`,
		},
	}, {
		name: "what never ends is incomplete; what the client ignores is not shown",
		in: []string{
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"x","delta":"stray"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"cut"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"nope"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":"m"}`,
			`{"type":"STEP_STARTED","stepName":"s"}`,
		},
		want: []string{
			`{"type":"MESSAGE","messageId":"msg-1","role":"assistant","content":"cut","incomplete":true,"toolCalls":[{"args":"","id":"call-1","incomplete":true,"name":"f"}]}`,
			`{"type":"STEP_STARTED","stepName":"s"}`,
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
			`{"type":"MESSAGE","messageId":"msg-1","role":"assistant","content":"hello","toolCalls":[{"args":{"a":1},"id":"call-1","name":"f"}]}`,
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
			`{"type":"MESSAGE","messageId":"msg-1","role":"assistant","toolCalls":[{"args":{"a":1},"id":"call-1","name":"add"},{"args":{"a":2},"id":"call-2","name":"add"},{"args":"","id":"call-3","name":"search"}]}`,
			`{"type":"MESSAGE","messageId":"msg-2","role":"tool","toolCallId":"call-1","content":"1"}`,
			`{"type":"MESSAGE","messageId":"msg-3","role":"tool","toolCallId":"call-2","content":"2"}`,
			`{"type":"MESSAGE","messageId":"msg-4","role":"tool","toolCallId":"call-3","content":"s"}`,
		},
	}, {
		name: "parallel calls without a parent: a message each (named for the call), in canonical order",
		in: []string{
			`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"b","toolCallName":"weather"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"a","toolCallName":"weather"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"{\"city\":\"Oslo\"}"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"b","delta":"{\"city\":\"Rome\"}"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"b"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"a"}`,
			`{"type":"TOOL_CALL_RESULT","messageId":"rb","toolCallId":"b","content":"sunny"}`,
			`{"type":"TOOL_CALL_RESULT","messageId":"ra","toolCallId":"a","content":"rain"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"weather"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"city\":\"Bern\"}"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"c"}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
		},
		want: []string{
			`{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}`,
			`{"type":"MESSAGE","messageId":"msg-1","role":"assistant","toolCalls":[{"args":{"city":"Oslo"},"id":"msg-1","name":"weather"}]}`,
			`{"type":"MESSAGE","messageId":"msg-2","role":"tool","toolCallId":"msg-1","content":"rain"}`,
			`{"type":"MESSAGE","messageId":"msg-3","role":"assistant","toolCalls":[{"args":{"city":"Rome"},"id":"msg-3","name":"weather"}]}`,
			`{"type":"MESSAGE","messageId":"msg-4","role":"tool","toolCallId":"msg-3","content":"sunny"}`,
			`{"type":"MESSAGE","messageId":"msg-5","role":"assistant","toolCalls":[{"args":{"city":"Bern"},"id":"msg-5","name":"weather"}]}`,
			`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}`,
		},
	}, {
		name: "the state at the run's end; snapshots that change and drop messages",
		in: []string{
			`{"type":"RUN_STARTED","threadId":"t","runId":"r1","input":{"threadId":"t","runId":"r1","messages":[{"id":"u1","role":"user","content":"hi"},{"id":"u2","role":"user","content":"bye"}]}}`,
			`{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}`,
			`{"type":"STEP_STARTED","stepName":"s"}`,
			`{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2}]}`,
			`{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/missing"}]}`,
			`{"type":"STEP_FINISHED","stepName":"s"}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u1","role":"user","content":"hi!"},{"id":"a1","role":"assistant","content":"hello"}]}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}`,
			`{"type":"RUN_STARTED","threadId":"t","runId":"r2"}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r2"}`,
		},
		want: []string{
			`{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1","input":{"messages":[{"content":"hi","id":"msg-1","role":"user"},{"content":"bye","id":"msg-2","role":"user"}],"runId":"run-1","threadId":"thread-1"}}`,
			`{"type":"STEP_STARTED","stepName":"s"}`,
			`{"type":"STEP_FINISHED","stepName":"s"}`,
			`{"type":"MESSAGE","messageId":"msg-1","role":"user","content":"hi!"}`,
			`{"type":"MESSAGE","messageId":"msg-3","role":"assistant","content":"hello"}`,
			`{"type":"MESSAGE_REMOVED","messageId":"msg-2"}`,
			`{"type":"STATE","snapshot":{"n":2}}`,
			`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}`,
			`{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-2"}`,
			`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-2"}`,
		},
	}, {
		name: "where the client stops, the rest is shown as it came",
		in: []string{
			`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}`,
			`{"type":"TEXT_MESSAGE_CHUNK","delta":"no id"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
		},
		want: []string{
			`{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}`,
			`{"type":"MESSAGE","messageId":"msg-1","role":"assistant","content":"hi"}`,
			`{"type":"TEXT_MESSAGE_CHUNK","delta":"no id"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"msg-1"}`,
			`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}`,
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

// TestMergedFragmentationInvariance checks that one answer gives one
// merged view however it is streamed: text whole then its calls, calls
// first, or (as Mastra streams it) text chunks reopened under one id
// around call chunks.
func TestMergedFragmentationInvariance(t *testing.T) {
	run := func(body ...string) []string {
		return append(append([]string{`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`}, body...), `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`)
	}
	shapes := map[string][]string{
		"whole": run(
			`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Checking Paris and Rome."}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"a","toolCallName":"weather","parentMessageId":"m"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"{\"city\":\"Paris\"}"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"a"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"b","toolCallName":"weather","parentMessageId":"m"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"b","delta":"{\"city\":\"Rome\"}"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"b"}`,
		),
		"calls first": run(
			`{"type":"TOOL_CALL_START","toolCallId":"b","toolCallName":"weather","parentMessageId":"m"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"a","toolCallName":"weather","parentMessageId":"m"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"{\"city\":"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"b","delta":"{\"city\":\"Rome\"}"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"\"Paris\"}"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"b"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"a"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Checking "}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Paris and Rome."}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		),
		"reopened chunks": run(
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"Checking "}`,
			`{"type":"TOOL_CALL_CHUNK","toolCallId":"a","toolCallName":"weather","parentMessageId":"m","delta":"{\"city\":\"Paris\"}"}`,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"Paris and "}`,
			`{"type":"TOOL_CALL_CHUNK","toolCallId":"b","toolCallName":"weather","parentMessageId":"m","delta":"{\"city\":"}`,
			`{"type":"TOOL_CALL_CHUNK","delta":"\"Rome\"}"}`,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"Rome."}`,
		),
	}
	want := lines(Normalize(evs(t, shapes["whole"]...), Merged))
	for name, in := range shapes {
		checkLines(t, Normalize(evs(t, in...), Merged), want)
		if t.Failed() {
			t.Fatalf("shape %q differs from streaming the text whole", name)
		}
	}
}

// TestMergedParallelWithoutParent checks that calls with no parent message
// (each its own assistant message) give one merged view whatever order
// they start in and their results arrive in.
func TestMergedParallelWithoutParent(t *testing.T) {
	cities := []string{"Oslo", "Rome", "Bern", "Lima"}
	var want string
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 7))
		order := rng.Perm(len(cities))
		ids := make([]string, len(cities))
		for i := range ids {
			ids[i] = fmt.Sprintf("c%08x", rng.Uint32())
		}
		in := []agui.Event{agui.NewRunStarted("t", "r")}
		for _, i := range order {
			in = append(in, agui.NewToolCallStart(ids[i], "weather", ""))
		}
		for _, i := range rng.Perm(len(cities)) {
			in = append(in, agui.NewToolCallArgs(ids[i], `{"city":"`+cities[i]+`"}`), agui.NewToolCallEnd(ids[i]))
		}
		for _, i := range rng.Perm(len(cities)) {
			in = append(in, agui.NewToolCallResult(fmt.Sprintf("r%08x", rng.Uint32()), ids[i], "weather in "+cities[i]))
		}
		in = append(in, agui.NewRunFinished("t", "r"))
		got := string(Marshal(Normalize(in, Merged)))
		if seed == 0 {
			want = got
			continue
		}
		if got != want {
			t.Fatalf("seed %d: merged view differs:\ngot:\n%s\nwant:\n%s", seed, got, want)
		}
	}
}
