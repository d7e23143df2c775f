package scriptedmodel_test

import (
	"context"
	"fmt"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agent/scriptedmodel"
	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/scripted"
)

// A scripted model's answer, cut inside a character, as a run's events:
// the character goes out whole.
func ExampleStream() {
	m := scripted.NewModel(scripted.Script{Turns: []scripted.Turn{{
		Text:  "東京",
		Calls: []scripted.Call{{Name: "get_weather", Args: `{"city":"東京"}`}},
		Plan:  scripted.Plan{Split: scripted.Split{Size: 4, MidRune: true}},
	}}})
	in := agui.RunAgentInput{ThreadID: "t", RunID: "r", Messages: []agui.Message{agui.UserMessage("u1", "Weather in Tokyo?")}}
	run, _ := agent.Start(in, func(e agui.Event) error { fmt.Println(e); return nil }, agent.Options{})
	stream, err := m.Stream(context.Background(), scriptedmodel.Request(in))
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := scriptedmodel.Stream(run.Turn(agent.TurnOptions{Buffered: true}), stream); err != nil {
		fmt.Println(err)
		return
	}
	_ = run.Finish()
	fmt.Println(m.Check())
	// Output:
	// {"type":"RUN_STARTED","threadId":"t","runId":"r"}
	// {"type":"TEXT_MESSAGE_START","messageId":"r-msg-1","role":"assistant"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"r-msg-1","delta":"東"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"r-msg-1","delta":"京"}
	// {"type":"TEXT_MESSAGE_END","messageId":"r-msg-1"}
	// {"type":"TOOL_CALL_START","toolCallId":"r-call-1","toolCallName":"get_weather","parentMessageId":"r-msg-1"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"r-call-1","delta":"{\"city\":\"東京\"}"}
	// {"type":"TOOL_CALL_END","toolCallId":"r-call-1"}
	// {"type":"RUN_FINISHED","threadId":"t","runId":"r"}
	// <nil>
}
