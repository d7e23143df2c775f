package agent_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agui"
)

// collect returns a sink that keeps the events, and a function that prints
// their types and empties it.
func collect() (func(agui.Event) error, func()) {
	var events []agui.Event
	send := func(e agui.Event) error { events = append(events, e); return nil }
	drain := func() {
		for _, e := range events {
			fmt.Println(e)
		}
		events = nil
	}
	return send, drain
}

// A call the agent answers itself: Result ends the call first and returns
// the id of the tool message carrying the result, allocated when the call
// opened.
func Example() {
	send, drain := collect()
	run, err := agent.Start(agui.RunAgentInput{ThreadID: "t", RunID: "r"}, send, agent.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	call, _ := run.ToolCall("get_weather")
	_ = call.ArgsJSON(map[string]string{"city": "Seoul"})
	// What the tool does goes here.
	resultID, _ := call.ResultJSON(map[string]int{"tempC": 21})
	fmt.Println("result message:", resultID)
	_ = run.Finish()
	drain()
	// Output:
	// result message: r-msg-1
	// {"type":"RUN_STARTED","threadId":"t","runId":"r"}
	// {"type":"TOOL_CALL_START","toolCallId":"r-call-1","toolCallName":"get_weather"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"r-call-1","delta":"{\"city\":\"Seoul\"}"}
	// {"type":"TOOL_CALL_END","toolCallId":"r-call-1"}
	// {"type":"TOOL_CALL_RESULT","messageId":"r-msg-1","toolCallId":"r-call-1","content":"{\"tempC\":21}","role":"tool"}
	// {"type":"RUN_FINISHED","threadId":"t","runId":"r"}
}

// Arguments stream as text, the way providers send them; ParseArgs fails
// while they are partial.
func ExampleToolCall_ParseArgs() {
	run, _ := agent.Start(agui.RunAgentInput{ThreadID: "t", RunID: "r"}, func(agui.Event) error { return nil }, agent.Options{})
	call, _ := run.ToolCall("get_weather")
	_ = call.Args(`{"city":`)
	var q struct{ City string }
	err := call.ParseArgs(&q)
	fmt.Println(errors.Is(err, agent.ErrPartialArgs))
	_ = call.Args(`"Seoul"}`)
	fmt.Println(call.RawArgs())
	if err := call.ParseArgs(&q); err == nil {
		fmt.Println(q.City)
	}
	// Output:
	// true
	// {"city":"Seoul"}
	// Seoul
}

// A frontend tool's call ends with End: the client runs it, and its
// result arrives in the next run's messages. Misuse is an error naming the
// rule, and nothing is sent.
func ExampleToolCall_End() {
	send, drain := collect()
	run, _ := agent.Start(agui.RunAgentInput{ThreadID: "t", RunID: "r"}, send, agent.Options{})
	call, _ := run.ToolCall("open_settings_panel")
	defer call.End() // idempotent: safe to defer
	_ = call.ArgsJSON(map[string]string{"tab": "billing"})
	_ = call.End()
	err := call.Args(`{"more":1}`)
	fmt.Println(agent.RuleOf(err))
	drain()
	// Output:
	// tool-call-not-open
	// {"type":"RUN_STARTED","threadId":"t","runId":"r"}
	// {"type":"TOOL_CALL_START","toolCallId":"r-call-1","toolCallName":"open_settings_panel"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"r-call-1","delta":"{\"tab\":\"billing\"}"}
	// {"type":"TOOL_CALL_END","toolCallId":"r-call-1"}
}

// The tools list says what the client can run, not what the agent may
// call. An agent that wants a stricter rule checks Offered itself.
func ExampleRun_Offered() {
	in := agui.RunAgentInput{ThreadID: "t", RunID: "r", Tools: []agui.Tool{{Name: "add_task", Description: "Add a task to the board."}}}
	run, _ := agent.Start(in, func(agui.Event) error { return nil }, agent.Options{})
	fmt.Println(run.Offered("add_task"), run.Offered("delete_everything"))
	// Output: true false
}

// Work while a call is open: the state changes between the arguments and
// the result, published as a JSON Patch against what the client holds.
func ExampleRun_StateDelta() {
	send, drain := collect()
	in := agui.RunAgentInput{ThreadID: "t", RunID: "r", State: []byte(`{"tasks":["write the spec"]}`)}
	run, _ := agent.Start(in, send, agent.Options{})
	var board struct {
		Tasks []string `json:"tasks"`
	}
	_ = run.DecodeState(&board)

	call, _ := run.ToolCall("add_task")
	_ = call.ArgsJSON(map[string]string{"title": "ship it"})
	board.Tasks = append(board.Tasks, "ship it")
	_ = run.StateDelta(board) // the call is still open
	_, _ = call.ResultJSON(map[string]bool{"ok": true})
	_ = run.Finish()
	drain()
	// Output:
	// {"type":"RUN_STARTED","threadId":"t","runId":"r"}
	// {"type":"TOOL_CALL_START","toolCallId":"r-call-1","toolCallName":"add_task"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"r-call-1","delta":"{\"title\":\"ship it\"}"}
	// {"type":"STATE_DELTA","delta":[{"op":"add","path":"/tasks/1","value":"ship it"}]}
	// {"type":"TOOL_CALL_END","toolCallId":"r-call-1"}
	// {"type":"TOOL_CALL_RESULT","messageId":"r-msg-1","toolCallId":"r-call-1","content":"{\"ok\":true}","role":"tool"}
	// {"type":"RUN_FINISHED","threadId":"t","runId":"r"}
}

// A provider's parallel calls, interleaved on its stream, buffered per
// call: each goes out whole, in index order, once the answer is complete.
func ExampleTurn() {
	send, drain := collect()
	run, _ := agent.Start(agui.RunAgentInput{ThreadID: "t", RunID: "r"}, send, agent.Options{})
	turn := run.Turn(agent.TurnOptions{Buffered: true})
	for _, d := range []agent.CallDelta{
		{Index: 0, Name: "get_weather", Args: `{"city":`},
		{Index: 1, Name: "roll_dice", Args: `{"sides":`},
		{Index: 0, Args: `"Seoul"}`},
		{Index: 1, Args: `20}`},
	} {
		if err := turn.Call(d); err != nil {
			fmt.Println(err)
		}
	}
	answer, _ := turn.End()
	fmt.Println(len(answer.Calls), "calls")
	drain()
	// Output:
	// 2 calls
	// {"type":"RUN_STARTED","threadId":"t","runId":"r"}
	// {"type":"TOOL_CALL_START","toolCallId":"r-call-1","toolCallName":"get_weather","parentMessageId":"r-msg-1"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"r-call-1","delta":"{\"city\":\"Seoul\"}"}
	// {"type":"TOOL_CALL_END","toolCallId":"r-call-1"}
	// {"type":"TOOL_CALL_START","toolCallId":"r-call-2","toolCallName":"roll_dice","parentMessageId":"r-msg-1"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"r-call-2","delta":"{\"sides\":20}"}
	// {"type":"TOOL_CALL_END","toolCallId":"r-call-2"}
}

// An agent served over HTTP: the handler starts and ends the run.
func ExampleHandler() {
	h := agent.Handler(func(ctx context.Context, run *agent.Run) error {
		text, err := run.Text()
		if err != nil {
			return err
		}
		defer text.End()
		return text.Delta("Hello.")
	}, agent.Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"threadId":"t","runId":"r","messages":[]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Header.Get("Content-Type"))
	fmt.Print(string(body))
	// Output:
	// text/event-stream
	// data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}
	//
	// data: {"type":"TEXT_MESSAGE_START","messageId":"r-msg-1","role":"assistant"}
	//
	// data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"r-msg-1","delta":"Hello."}
	//
	// data: {"type":"TEXT_MESSAGE_END","messageId":"r-msg-1"}
	//
	// data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}
}
