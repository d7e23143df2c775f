package conform_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agent/scriptedmodel"
	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// refAgent is a Go agent on package agent and the Go-native scripted
// model that takes the whole battery: it streams text and reasoning, leaves
// the client's tools to the client, runs its own tool get_forecast, and
// asks the user before it runs delete_file (RUN_FINISHED with an
// interrupt), running it in the run that resumes with an approval. Each of
// its bugs, when set, is one that real agents have, and must fail a
// scenario.
type refAgent struct{ bug bug }

// bug is a defect refAgent can be given.
type bug int

const (
	noBug               bug = iota
	dropsToolError          // a failed tool's error does not reach the model
	swallowsFailure         // a provider failure ends the run with RUN_FINISHED
	dropsLastCall           // only the first of parallel calls reaches the client
	resetsState             // sends a STATE_SNAPSHOT of its own
	forgetsHistory          // asks the model with the last user message only
	runsWithoutAsking       // runs delete_file without an interrupt
	renamesCallArgs         // re-encodes the arguments, losing a field
	echoesText              // the text twice
	openCallOnFailure       // ends a call with half its arguments when the stream breaks
	joinsStepText           // streams all the text of a run as chunks of one message
	sharesResultID          // gives the results of a run's own calls one message id
	runsToolWithoutArgs     // runs its own tool with no arguments, while the stream shows them
)

func (a refAgent) Run(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
	switch a.bug {
	case dropsLastCall:
		emit = dropCalls(emit)
	case renamesCallArgs:
		emit = dropArg(emit, "city")
	case openCallOnFailure:
		emit = closeCallsOnError(emit)
	case joinsStepText:
		emit = oneTextMessage(emit)
	case sharesResultID:
		emit = oneResultID(emit)
	}
	run, err := agent.Start(in, emit, agent.Options{})
	if err != nil {
		return err
	}
	if a.bug == resetsState {
		if err := run.StateSnapshot(map[string]any{"agent": "fresh"}); err != nil {
			return err
		}
	}
	err = a.answer(ctx, env.Model, run)
	if a.bug == swallowsFailure && err != nil {
		return run.End(nil)
	}
	return run.End(err)
}

// answer asks the model, runs the agent's own tools, until the model
// answers with text, leaves calls to the client or needs the user.
func (a refAgent) answer(ctx context.Context, m *scripted.Model, run *agent.Run) error {
	in := run.Input()
	req := scriptedmodel.Request(in)
	// Its own tools, declared to the model as every agent does.
	req.Tools = append(req.Tools,
		scripted.Tool{Name: "get_forecast", Description: "The weather forecast of a city.", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","minLength":1},"days":{"type":"integer","minimum":1,"maximum":7},"unit":{"enum":["C","F"]}},"required":["city"]}`)},
		scripted.Tool{Name: "delete_file", Description: "Deletes a file, once the user approves.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)})
	if a.bug == dropsToolError {
		for i, msg := range req.Messages {
			if msg.Role == "tool" && strings.HasPrefix(msg.Content, "error: ") {
				req.Messages[i].Content = ""
			}
		}
	}
	if a.bug == forgetsHistory {
		req.Messages = req.Messages[len(req.Messages)-1:]
	}
	for _, r := range in.Resume {
		// The resumed call: delete_file, approved or not.
		id := strings.TrimPrefix(r.InterruptID, "approve-")
		result := "kept"
		if r.Status == "resolved" {
			result = "deleted"
		}
		if err := run.Emit(agui.NewToolCallResult(id+"-result", id, result)); err != nil {
			return err
		}
		req.Messages = append(req.Messages, scripted.Message{Role: "tool", ToolCallID: id, Content: result})
	}
	for {
		stream, err := m.Stream(ctx, req)
		if err != nil {
			return &agent.Failure{Message: "the model could not answer: " + err.Error(), Code: "PROVIDER_ERROR"}
		}
		opt := agent.TurnOptions{KeepOpen: true, ProviderIDs: true, Buffered: a.bug == renamesCallArgs}
		answer, err := scriptedmodel.Stream(run.Turn(opt), stream)
		if err != nil {
			var ae *agent.Error
			if errors.As(err, &ae) || errors.Is(err, agent.ErrGone) {
				return err
			}
			return &agent.Failure{Message: "the model's answer broke off: " + err.Error(), Code: "PROVIDER_ERROR"}
		}
		if a.bug == echoesText && answer.Text != "" {
			t, err := run.Text()
			if err != nil {
				return err
			}
			if err := t.Delta(answer.Text); err != nil {
				return err
			}
			_ = t.End()
		}
		if len(answer.Calls) == 0 {
			return nil
		}
		assistant := scripted.Message{Role: "assistant", Content: answer.Text}
		var results []scripted.Message
		var interrupts []any
		for _, call := range answer.Calls {
			args := call.RawArgs()
			if a.bug == runsToolWithoutArgs && call.Name() == "get_forecast" {
				args = "{}"
			}
			assistant.Calls = append(assistant.Calls, scripted.Call{ID: call.ID(), Name: call.Name(), Args: args})
			switch {
			case call.Name() == "get_forecast":
				var args struct{ City string }
				if a.bug != runsToolWithoutArgs {
					_ = call.ParseArgs(&args)
				}
				content, err := call.Result(fmt.Sprintf(`{"city":%q,"tempC":18}`, args.City))
				if err != nil {
					return err
				}
				results = append(results, scripted.Message{Role: "tool", ToolCallID: call.ID(), Content: content})
			case call.Name() == "delete_file" && a.bug != runsWithoutAsking:
				if err := call.End(); err != nil {
					return err
				}
				interrupts = append(interrupts, map[string]any{"id": "approve-" + call.ID(), "reason": "approval", "toolCallId": call.ID(), "message": "Delete the file?"})
			case call.Name() == "delete_file":
				content, err := call.Result("deleted")
				if err != nil {
					return err
				}
				results = append(results, scripted.Message{Role: "tool", ToolCallID: call.ID(), Content: content})
			default: // the client's: left to it
				if err := call.End(); err != nil {
					return err
				}
			}
		}
		if len(interrupts) > 0 {
			return run.Emit(agui.NewEvent(agui.RunFinished, "threadId", in.ThreadID, "runId", in.RunID,
				"outcome", map[string]any{"type": "interrupt", "interrupts": interrupts}))
		}
		if len(results) == 0 {
			return nil // the client runs its tools and posts the next run
		}
		req.Messages = append(append(req.Messages, assistant), results...)
	}
}

// oneResultID gives every TOOL_CALL_RESULT of a run one message id, as
// microsoft/agent-framework#6009 does for the results of a step.
func oneResultID(emit func(agui.Event) error) func(agui.Event) error {
	run := ""
	return func(e agui.Event) error {
		switch e.Type() {
		case agui.RunStarted:
			run = e.RunID()
		case agui.ToolCallResult:
			var r struct{ Content string }
			if err := e.Decode(&r); err != nil {
				return err
			}
			e = agui.NewToolCallResult(run+"-results", e.ToolCallID(), r.Content)
		}
		return emit(e)
	}
}

// dropCalls passes on the events of the first call of a run only, as an
// agent that keeps one call per message does.
func dropCalls(emit func(agui.Event) error) func(agui.Event) error {
	first := ""
	return func(e agui.Event) error {
		switch e.Type() {
		case agui.RunStarted:
			first = ""
		case agui.ToolCallStart, agui.ToolCallArgs, agui.ToolCallEnd, agui.ToolCallResult:
			if first == "" {
				first = e.ToolCallID()
			}
			if e.ToolCallID() != first {
				return nil
			}
		}
		return emit(e)
	}
}

// dropArg re-encodes whole arguments without the key, as an agent that
// decodes them into a type lacking the field does.
func dropArg(emit func(agui.Event) error, key string) func(agui.Event) error {
	return func(e agui.Event) error {
		if e.Type() == agui.ToolCallArgs {
			var args map[string]any
			if json.Unmarshal([]byte(e.Delta()), &args) == nil {
				delete(args, key)
				b, _ := json.Marshal(args)
				e = agui.NewToolCallArgs(e.ToolCallID(), string(b))
			}
		}
		return emit(e)
	}
}

// closeCallsOnError ends the open calls before RUN_ERROR, whatever their
// arguments, as an agent that tidies up on failure does.
func closeCallsOnError(emit func(agui.Event) error) func(agui.Event) error {
	var open []string
	return func(e agui.Event) error {
		switch e.Type() {
		case agui.ToolCallStart:
			open = append(open, e.ToolCallID())
		case agui.ToolCallEnd:
			open = slices.DeleteFunc(open, func(id string) bool { return id == e.ToolCallID() })
		case agui.RunError:
			for _, id := range open {
				if err := emit(agui.NewToolCallEnd(id)); err != nil {
					return err
				}
			}
			open = nil
		}
		return emit(e)
	}
}

// oneTextMessage streams every text of a run as TEXT_MESSAGE_CHUNKs of its
// first message, as an agent that keys text by the run's first message id
// does: a client joins the texts of two steps into one message.
func oneTextMessage(emit func(agui.Event) error) func(agui.Event) error {
	first := ""
	return func(e agui.Event) error {
		switch e.Type() {
		case agui.RunStarted:
			first = ""
		case agui.TextMessageStart, agui.TextMessageEnd:
			if first == "" {
				first = e.MessageID()
			}
			return nil
		case agui.TextMessageContent:
			if first == "" {
				first = e.MessageID()
			}
			e = agui.NewEvent(agui.TextMessageChunk, "messageId", first, "role", "assistant", "delta", e.Delta())
		}
		return emit(e)
	}
}
