package openaichat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agent/internal/bridgetest"
	"github.com/aguitest/aguitest/agent/openaichat"
	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// chatAgent asks the model once, through openai-go, and streams its answer
// through the bridge; every call is left for the client to run.
func chatAgent(opt agent.TurnOptions) harness.Agent {
	return harness.Handler(func(env harness.Env) http.Handler {
		client := openai.NewClient(option.WithBaseURL(env.BaseURL), option.WithAPIKey(env.APIKey), option.WithMaxRetries(0))
		return agent.Handler(func(ctx context.Context, run *agent.Run) error {
			stream := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
				Model:    "gpt-4o-mini",
				Messages: openaichat.Messages(run.Input().Messages),
				Tools:    openaichat.Tools(run.Tools()),
			})
			defer stream.Close()
			_, err := openaichat.Stream(run.Turn(opt), stream)
			return err
		}, agent.Options{})
	})
}

var resultIDs = []string{"run-1-call-1", "run-1-call-2", "run-1-call-3"}

func TestBridge(t *testing.T) {
	plans := bridgetest.Plans(bridgetest.Wire{NoIndex: true, IDsEvery: true})
	for _, mode := range []struct {
		name string
		opt  agent.TurnOptions
	}{{"streamed", agent.TurnOptions{}}, {"buffered", agent.TurnOptions{Buffered: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			harness.Run(t, chatAgent(mode.opt), bridgetest.Cases(mode.name, plans, resultIDs), harness.Options{Parallel: true})
		})
	}
}

// TestWire keeps the wire view of both modes for one interleaved plan.
func TestWire(t *testing.T) {
	p := scripted.Plan{Split: scripted.Split{Size: 6}, Order: scripted.Order{By: scripted.Scheduled, Schedule: "text #1 #2 #1 #3 #2"}}
	for _, mode := range []struct {
		name string
		opt  agent.TurnOptions
	}{{"streamed", agent.TurnOptions{}}, {"buffered", agent.TurnOptions{Buffered: true}}} {
		harness.Run(t, chatAgent(mode.opt), []harness.Case{{
			Name:   mode.name,
			Input:  harness.User("Weather in Zürich and Tokyo, and 12.5 EUR in yen?"),
			Script: bridgetest.Script(p, resultIDs),
			Tools:  bridgetest.Tools,
			Golden: golden.Wire,
		}})
	}
}

// TestJustFinishedToolCall keeps what openai-go's accumulator does with
// interleaved calls: JustFinishedToolCall reports a call as finished each
// time the stream switches to another call, with the arguments received so
// far, which are not yet JSON. The bridge never takes a call as complete
// before finish_reason.
func TestJustFinishedToolCall(t *testing.T) {
	srv := scripted.NewServer(scripted.Script{Turns: []scripted.Turn{{
		Calls: bridgetest.Calls,
		Plan:  scripted.Plan{Split: scripted.Split{Size: 4}, Order: scripted.Order{By: scripted.RoundRobin}},
	}}})
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	stream := client.Chat.Completions.NewStreaming(t.Context(), openai.ChatCompletionNewParams{
		Model:    "gpt-4o-mini",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("go")},
	})
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	finished, partial := 0, 0
	for stream.Next() {
		acc.AddChunk(stream.Current())
		if tc, ok := acc.JustFinishedToolCall(); ok {
			finished++
			if !json.Valid([]byte(tc.Arguments)) {
				partial++
			}
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
	if finished <= len(bridgetest.Calls) || partial == 0 {
		t.Errorf("JustFinishedToolCall fired %d times, %d of them with arguments that are not JSON; "+
			"want more than %d, some partial (openai-go's behaviour under interleaved calls; if it changed, update this test)",
			finished, partial, len(bridgetest.Calls))
	}
	for i, c := range acc.Choices[0].Message.ToolCalls {
		if c.Function.Arguments != bridgetest.Calls[i].Args {
			t.Errorf("call %d accumulated: got %s, want %s", i, c.Function.Arguments, bridgetest.Calls[i].Args)
		}
	}
}

// A model's streamed answer, two calls interleaved on the provider's
// stream, sent to the client with distinct ids as they arrive.
func ExampleStream() {
	srv := scripted.NewServer(scripted.Script{Turns: []scripted.Turn{{
		Text: "Both.",
		Calls: []scripted.Call{
			{Name: "get_weather", Args: `{"city":"Seoul"}`},
			{Name: "roll_dice", Args: `{"sides":20}`},
		},
		Plan: scripted.Plan{Split: scripted.Split{Size: 9}, Order: scripted.Order{By: scripted.RoundRobin}},
	}}})
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"))

	send := func(e agui.Event) error { fmt.Println(e); return nil }
	run, _ := agent.Start(agui.RunAgentInput{ThreadID: "t", RunID: "r"}, send, agent.Options{})
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:    "gpt-4o-mini",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Seoul, and a d20?")},
	})
	defer stream.Close()
	answer, err := openaichat.Stream(run.Turn(agent.TurnOptions{}), stream)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = run.Finish()
	fmt.Println(answer.Text, len(answer.Calls))
	// Output:
	// {"type":"RUN_STARTED","threadId":"t","runId":"r"}
	// {"type":"TEXT_MESSAGE_START","messageId":"r-msg-1","role":"assistant"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"r-msg-1","delta":"Both."}
	// {"type":"TOOL_CALL_START","toolCallId":"r-call-1","toolCallName":"get_weather","parentMessageId":"r-msg-1"}
	// {"type":"TOOL_CALL_START","toolCallId":"r-call-2","toolCallName":"roll_dice","parentMessageId":"r-msg-1"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"r-call-1","delta":"{\"city\":\""}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"r-call-2","delta":"{\"sides\":"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"r-call-1","delta":"Seoul\"}"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"r-call-2","delta":"20}"}
	// {"type":"TEXT_MESSAGE_END","messageId":"r-msg-1"}
	// {"type":"TOOL_CALL_END","toolCallId":"r-call-1"}
	// {"type":"TOOL_CALL_END","toolCallId":"r-call-2"}
	// {"type":"RUN_FINISHED","threadId":"t","runId":"r"}
	// Both. 2
}

func TestMessagesAndTools(t *testing.T) {
	got, err := json.Marshal(openai.ChatCompletionNewParams{
		Messages: openaichat.Messages(bridgetest.Conversation),
		Tools:    openaichat.Tools(bridgetest.ToolDecls),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[` +
		`{"content":"Be brief.","role":"system"},` +
		`{"content":"Weather in Zürich?\nAnd a d20.","role":"user"},` +
		`{"content":"Checking.","tool_calls":[` +
		`{"id":"c1","function":{"arguments":"{\"city\":\"Zürich\"}","name":"get_weather"},"type":"function"},` +
		`{"id":"c2","function":{"arguments":"{}","name":"roll_dice"},"type":"function"}],"role":"assistant"},` +
		`{"content":"{\"tempC\":18}","tool_call_id":"c1","role":"tool"},` +
		`{"content":"{\"error\":\"no dice\"}","tool_call_id":"c2","role":"tool"},` +
		`{"content":"18°C; no dice.","role":"assistant"}],` +
		`"tools":[{"function":{"name":"get_weather","description":"The weather in a city.","parameters":{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}},"type":"function"},` +
		`{"function":{"name":"roll_dice","parameters":{"properties":{},"type":"object"}},"type":"function"}]}`
	bridgetest.JSONEqual(t, want, got)
}

// TestBridgeExplored explores the bridge's case beyond the plans listed
// above, in both modes.
func TestBridgeExplored(t *testing.T) {
	for _, mode := range []struct {
		name string
		opt  agent.TurnOptions
	}{{"streamed", agent.TurnOptions{}}, {"buffered", agent.TurnOptions{Buffered: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			harness.Run(t, chatAgent(mode.opt), bridgetest.Explored(mode.name, bridgetest.Wire{NoIndex: true, IDsEvery: true}, resultIDs, 30))
		})
	}
}
