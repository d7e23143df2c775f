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
	// {"type":"RUN_STARTED","threadId":"thread-1","runId":"run-2"}
	// {"type":"TEXT_MESSAGE_START","messageId":"msg-3","role":"assistant"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-3","delta":"Let me "}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-3","delta":"check."}
	// {"type":"TEXT_MESSAGE_END","messageId":"msg-3"}
	// {"type":"TOOL_CALL_START","toolCallId":"call-4","toolCallName":"weather","parentMessageId":"msg-3"}
	// {"type":"TOOL_CALL_START","toolCallId":"call-5","toolCallName":"weather","parentMessageId":"msg-3"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"call-4","delta":"{\"city\":"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"call-5","delta":"{\"city\":\"Paris\"}"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"call-4","delta":"\"Rome\"}"}
	// {"type":"TOOL_CALL_END","toolCallId":"call-5"}
	// {"type":"TOOL_CALL_END","toolCallId":"call-4"}
	// {"type":"STATE_SNAPSHOT","snapshot":{"n":2,"updatedAt":"2026-11-29T19:45:04Z"}}
	// {"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-2"}
}

func ExampleNormalizer_Normalize() {
	n := golden.Normalizer{Scrubs: []golden.Scrub{
		{Pointer: "/snapshot/updatedAt", Replace: "<time>"},
		{Pattern: regexp.MustCompile(`Paris|Rome`), Replace: "<city>"},
	}}
	fmt.Print(string(golden.Marshal(n.Normalize(stream(), golden.Merged))))
	// Output:
	// {"type":"RUN_STARTED","threadId":"thread-1","runId":"run-2"}
	// {"type":"MESSAGE","messageId":"msg-3","role":"assistant","content":"Let me check.","toolCalls":[{"args":{"city":"<city>"},"id":"call-4","name":"weather"},{"args":{"city":"<city>"},"id":"call-5","name":"weather"}]}
	// {"type":"STATE","snapshot":{"n":2,"updatedAt":"<time>"}}
	// {"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-2"}
}

func ExampleCompare() {
	want := golden.Normalize(stream(), golden.Merged)
	// The new build asks for Rome's weather in Fahrenheit and adds a step.
	events := stream()
	events[9] = agui.NewToolCallArgs("tc-b", `"Rome","unit":"F"}`)
	events = append(events[:13:13], agui.NewStepStarted("answer"), agui.NewStepFinished("answer"), events[13])
	got := golden.Normalize(events, golden.Merged)
	// go-cmp varies its spacing on purpose; a test never compares it.
	report := strings.ReplaceAll(golden.Report(golden.Compare(want, got)), "\u00a0", " ")
	fmt.Print(report)
	// Output:
	// event 1 (MESSAGE msg-3): (-want +got)
	// 	  golden.Entry{
	// 	  	"content":   string("Let me check."),
	// 	  	"messageId": string("msg-3"),
	// 	  	"role":      string("assistant"),
	// 	  	"toolCalls": []any{
	// 	  		map[string]any{"args": map[string]any{"city": string("Paris")}, "id": string("call-4"), "name": string("weather")},
	// 	  		map[string]any{
	// 	  			"args": map[string]any{
	// 	  				"city": string("Rome"),
	// 	+ 				"unit": string("F"),
	// 	  			},
	// 	  			"id":   string("call-5"),
	// 	  			"name": string("weather"),
	// 	  		},
	// 	  	},
	// 	  	"type": string("MESSAGE"),
	// 	  }
	// event 2 (STEP_STARTED) unexpected: (-want +got)
	// 	  golden.Entry(
	// 	- 	nil,
	// 	+ 	{"stepName": string("answer"), "type": string("STEP_STARTED")},
	// 	  )
	// event 3 (STEP_FINISHED) unexpected: (-want +got)
	// 	  golden.Entry(
	// 	- 	nil,
	// 	+ 	{"stepName": string("answer"), "type": string("STEP_FINISHED")},
	// 	  )
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
