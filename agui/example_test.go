package agui_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/aguitest/aguitest/agui"
)

// An agent streamed two parallel calls interleaved and then put one call's
// arguments under the other's id after that call had ended.
func ExampleVerify() {
	stream := []agui.Event{
		agui.NewRunStarted("thread-1", "run-1"),
		agui.NewToolCallStart("call-a", "add_task", "msg-1"),
		agui.NewToolCallStart("call-b", "move_task", "msg-1"),
		agui.NewToolCallArgs("call-a", `{"title":"ship"}`),
		agui.NewToolCallArgs("call-b", `{"id":1,`),
		agui.NewToolCallEnd("call-a"),
		agui.NewToolCallArgs("call-a", `"to":"done"}`),
		agui.NewToolCallEnd("call-b"),
		agui.NewRunFinished("thread-1", "run-1"),
	}
	for _, v := range agui.Verify(stream, agui.Options{}) {
		fmt.Println(v)
	}
	// Output:
	// event 7 (TOOL_CALL_ARGS): tool-call-not-open: Cannot send 'TOOL_CALL_ARGS' event: No active tool call found with ID 'call-a'. Start a tool call with 'TOOL_CALL_START' first.
	// event 8 (TOOL_CALL_END): args-not-json: the arguments of tool call 'call-b' are not JSON at TOOL_CALL_END (invalid JSON at byte 8: unexpected end of input, value expected): "{\"id\":1,"
}

// The Strict profile reports more than a client rejects; Stops tells
// which violations make @ag-ui/client stop reading the stream, so that
// one Strict verifier also says where the client's view ends.
func ExampleViolation_Stops() {
	stream := []agui.Event{
		agui.NewRunStarted("thread-1", "run-1"),
		agui.NewToolCallStart("call-a", "add_task", "msg-1"),
		agui.NewToolCallArgs("call-a", `{"title":`),
		agui.NewToolCallEnd("call-a"),
		agui.NewToolCallArgs("call-a", `"ship"}`),
		agui.NewRunFinished("thread-1", "run-1"),
	}
	for _, v := range agui.Verify(stream, agui.Options{}) {
		fmt.Printf("event %d, %s: client 1.0.0 stops: %v\n", v.Index+1, v.Rule, v.Stops(agui.ClientV100))
	}
	// Output:
	// event 4, args-not-json: client 1.0.0 stops: false
	// event 5, tool-call-not-open: client 1.0.0 stops: true
}

// Verify a server-sent event stream as it arrives.
func ExampleVerifier() {
	body := strings.NewReader(`data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}

data: {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}

data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello"}

`)
	r := agui.NewReader(body, "agent")
	v := agui.NewVerifier(agui.Options{})
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, violation := range v.Push(e) {
			fmt.Printf("line %d: %v\n", r.Line(), violation)
		}
	}
	for _, violation := range v.Finish() {
		fmt.Println(violation)
	}
	// Output:
	// end of stream after 3 events: truncated: the stream ended without RUN_FINISHED or RUN_ERROR
	// end of stream after 3 events: unclosed: text message 'm1' was never closed
}

// Chunk events expand into the events they stand for, as a client expands
// them before verifying.
func ExampleExpandChunks() {
	chunks := []agui.Event{
		agui.NewEvent(agui.TextMessageChunk, "messageId", "m1", "delta", "Hel"),
		agui.NewEvent(agui.TextMessageChunk, "delta", "lo"),
		agui.NewEvent(agui.ToolCallChunk, "toolCallId", "c1", "toolCallName", "get_weather", "delta", `{"city":"Seoul"}`),
		agui.NewRunFinished("t1", "r1"),
	}
	events, err := agui.ExpandChunks(chunks)
	if err != nil {
		fmt.Println(err)
	}
	for _, e := range events {
		fmt.Println(e)
	}
	// Output:
	// {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hel"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"lo"}
	// {"type":"TEXT_MESSAGE_END","messageId":"m1"}
	// {"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"get_weather"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"city\":\"Seoul\"}"}
	// {"type":"TOOL_CALL_END","toolCallId":"c1"}
	// {"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}
}

// An Event keeps the bytes it was read from and reads fields on demand.
func ExampleParseEvent() {
	e, err := agui.ParseEvent([]byte(`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"render_a2ui","vendor":{"x":null}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	vendor, _ := e.Field("vendor")
	fmt.Println(e.Type(), e.ToolCallID(), e.ToolCallName(), string(vendor))
	fmt.Println(e)
	// Output:
	// TOOL_CALL_START c1 render_a2ui {"x":null}
	// {"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"render_a2ui","vendor":{"x":null}}
}
