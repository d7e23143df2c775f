package golden_test

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/golden"
)

// stream is what an agent might emit for "what is the weather in Paris and
// Rome?": some text, then two calls streamed in fragments, interleaved.
func stream() []agui.Event {
	return []agui.Event{
		agui.NewEvent(agui.RunStarted, "threadId", "t-9f2", "runId", "r-71c", "timestamp", 1732900000000),
		agui.NewEvent(agui.TextMessageStart, "messageId", "m-a1", "role", "assistant"),
		agui.NewTextMessageContent("m-a1", "Let me "),
		agui.NewTextMessageContent("m-a1", "check."),
		agui.NewTextMessageEnd("m-a1"),
		agui.NewToolCallStart("tc-b", "weather", "m-a1"),
		agui.NewToolCallStart("tc-a", "weather", "m-a1"),
		agui.NewToolCallArgs("tc-b", `{"city":`),
		agui.NewToolCallArgs("tc-a", `{"city":"Paris"}`),
		agui.NewToolCallArgs("tc-b", `"Rome"}`),
		agui.NewToolCallEnd("tc-a"),
		agui.NewToolCallEnd("tc-b"),
		agui.NewEvent(agui.StateSnapshot, "snapshot", map[string]any{"updatedAt": "2026-11-29T19:45:04Z", "n": 2}),
		agui.NewRunFinished("t-9f2", "r-71c"),
	}
}

func ExampleNormalize() {
	fmt.Print(string(golden.Marshal(golden.Normalize(stream(), golden.Wire))))
	// Output:
	// {"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}
	// {"type":"TEXT_MESSAGE_START","messageId":"msg-1","role":"assistant"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"Let me "}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"check."}
	// {"type":"TEXT_MESSAGE_END","messageId":"msg-1"}
	// {"type":"TOOL_CALL_START","toolCallId":"call-1","toolCallName":"weather","parentMessageId":"msg-1"}
	// {"type":"TOOL_CALL_START","toolCallId":"call-2","toolCallName":"weather","parentMessageId":"msg-1"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"call-1","delta":"{\"city\":"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"call-2","delta":"{\"city\":\"Paris\"}"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"call-1","delta":"\"Rome\"}"}
	// {"type":"TOOL_CALL_END","toolCallId":"call-2"}
	// {"type":"TOOL_CALL_END","toolCallId":"call-1"}
	// {"type":"STATE_SNAPSHOT","snapshot":{"n":2,"updatedAt":"2026-11-29T19:45:04Z"}}
	// {"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}
}

func ExampleNormalizer_Normalize() {
	n := golden.Normalizer{Scrubs: []golden.Scrub{
		{Pointer: "/snapshot/updatedAt", Replace: "<time>"},
		{Pattern: regexp.MustCompile(`Paris|Rome`), Replace: "<city>"},
	}}
	fmt.Print(string(golden.Marshal(n.Normalize(stream(), golden.Merged))))
	// Output:
	// {"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}
	// {"type":"MESSAGE","messageId":"msg-1","role":"assistant","content":"Let me check.","toolCalls":[{"args":{"city":"<city>"},"id":"call-1","name":"weather"},{"args":{"city":"<city>"},"id":"call-2","name":"weather"}]}
	// {"type":"STATE","snapshot":{"n":2,"updatedAt":"<time>"}}
	// {"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}
}

// A stream too long to hold is normalised as it is read: a Stream keeps
// the client's view and the entries, not the events.
func ExampleNormalizer_NewStream() {
	s := golden.Normalizer{}.NewStream(golden.Merged)
	r := agui.NewReader(strings.NewReader(`{"type":"RUN_STARTED","threadId":"t-9f2","runId":"r-71c"}
{"type":"TEXT_MESSAGE_START","messageId":"m-a1","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-a1","delta":"Sunny "}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-a1","delta":"in Paris."}
{"type":"TEXT_MESSAGE_END","messageId":"m-a1"}
{"type":"RUN_FINISHED","threadId":"t-9f2","runId":"r-71c"}
`), "run.jsonl")
	for {
		e, err := r.Next()
		if err != nil {
			break // io.EOF here; a real reader reports other errors
		}
		s.Push(e)
	}
	fmt.Print(string(golden.Marshal(s.Entries())))
	// Output:
	// {"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}
	// {"type":"MESSAGE","messageId":"msg-1","role":"assistant","content":"Sunny in Paris."}
	// {"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}
}

func ExampleCompare() {
	want := golden.Normalize(stream(), golden.Merged)
	// The new build asks for Rome's weather in Fahrenheit and adds a step.
	events := stream()
	events[9] = agui.NewToolCallArgs("tc-b", `"Rome","unit":"F"}`)
	events = append(events[:13:13], agui.NewStepStarted("answer"), agui.NewStepFinished("answer"), events[13])
	got := golden.Normalize(events, golden.Merged)
	fmt.Print(golden.Report(golden.Compare(want, got)))
	// Output:
	// event 2 (MESSAGE msg-1): (-want +got)
	// 	- {"type":"MESSAGE","messageId":"msg-1","role":"assistant","content":"Let me check.","toolCalls":[{"args":{"city":"Paris"},"id":"call-1","name":"weather"},{"args":{"city":"Rome"},"id":"call-2","name":"weather"}]}
	// 	+ {"type":"MESSAGE","messageId":"msg-1","role":"assistant","content":"Let me check.","toolCalls":[{"args":{"city":"Paris"},"id":"call-1","name":"weather"},{"args":{"city":"Rome","unit":"F"},"id":"call-2","name":"weather"}]}
	// 	  .toolCalls[1].args.unit: got "F", want none
	// event 3 (STEP_STARTED) unexpected: (-want +got)
	// 	+ {"type":"STEP_STARTED","stepName":"answer"}
	// event 4 (STEP_FINISHED) unexpected: (-want +got)
	// 	+ {"type":"STEP_FINISHED","stepName":"answer"}
}

func ExampleCheck() {
	dir, err := os.MkdirTemp("", "golden")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	text := golden.Marshal(golden.Normalize(stream(), golden.Merged))

	// A test passes golden.Update(), true under "go test -update".
	err = golden.Check(dir, "weather", text, false)
	fmt.Println(errors.Is(err, golden.ErrMissing), strings.Contains(err.Error(), "-update"))
	fmt.Println(golden.Check(dir, "weather", text, true))
	fmt.Println(golden.Check(dir, "weather", text, false))
	// Output:
	// true true
	// <nil>
	// <nil>
}
