package bugs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/aguitest/aguitest/agent/scriptedmodel"
	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/scripted"
)

// Bug names a bug reported against a real AG-UI integration, which Agent
// can be made to have.
type Bug string

// The bugs. Each is a few lines of Agent.Run, marked with its name.
const (
	// None is the correct agent.
	None Bug = ""
	// WrongID (ag-ui #1016, ag-ui-langgraph): the arguments of parallel
	// calls go out under the id of the call that started last, so that
	// interleaved calls swap or merge their arguments.
	WrongID Bug = "ag-ui#1016"
	// MergedCalls (ag-ui #1776, ag-ui-langgraph): a call delta is taken for
	// the continuation of the call already streaming, without looking at
	// its index or id, so that parallel calls streamed one after another
	// become one call with both arguments appended, and the second is lost.
	MergedCalls Bug = "ag-ui#1776"
	// FirstChunkArgs (ag-ui #2463, ag-ui-langgraph): the first delta of a
	// call only starts it, so that arguments arriving with the call's name
	// in one chunk are dropped: TOOL_CALL_START, then TOOL_CALL_END.
	FirstChunkArgs Bug = "ag-ui#2463"
	// FirstClientCall (strands #1346, ag_ui_strands): of several calls to
	// the client's tools in one answer, only the first is sent.
	FirstClientCall Bug = "strands#1346"
	// SharedResultID (microsoft/agent-framework #6009): the results of
	// parallel calls the agent runs itself share one message id, so that a
	// client keyed by message id shows one of them.
	SharedResultID Bug = "agent-framework#6009"
)

// Bugs lists the bugs, in the order of the constants.
var Bugs = []Bug{WrongID, MergedCalls, FirstChunkArgs, FirstClientCall, SharedResultID}

// Agent answers each run by streaming the model's answer as AG-UI events:
// its text, and each call as it arrives (TOOL_CALL_START at its first
// delta, TOOL_CALL_ARGS for every fragment under the call's own id,
// TOOL_CALL_END when the answer is complete). It runs the calls to its own
// tools itself, sends their results and asks the model again; calls to
// any other tool are left to the client, which runs them and posts the
// next run. With Bug set, it has that bug.
type Agent struct {
	// Model is the model it asks; *scripted.Model is one.
	Model scriptedmodel.Model
	// Tools are the agent's own tools, by name: each takes the call's
	// arguments and returns its result.
	Tools map[string]func(args string) string
	// Bug, when set, is the bug the agent has.
	Bug Bug
}

// errFailed says the run has ended with RUN_ERROR.
var errFailed = errors.New("the run failed")

// call is a call of the model's answer, as the agent tracks it.
type call struct {
	id, name, args string
	own            bool   // to one of the agent's own tools
	dropped        bool   // never sent (FirstClientCall)
	pending        []byte // the start of a character cut by the stream
}

// Run runs the agent once for in, handing each event to emit.
func (a Agent) Run(ctx context.Context, in agui.RunAgentInput, emit func(agui.Event) error) error {
	if err := emit(agui.NewRunStarted(in.ThreadID, in.RunID)); err != nil {
		return err
	}
	req := scriptedmodel.Request(in)
	for name := range a.Tools {
		req.Tools = append(req.Tools, scripted.Tool{Name: name, Parameters: json.RawMessage(`{"type":"object"}`)})
	}
	n := 0 // calls of the run so far
	for step := 1; ; step++ {
		msgID := fmt.Sprintf("%s-msg-%d", in.RunID, step)
		calls, text, err := a.answer(ctx, in, req, msgID, &n, emit)
		if errors.Is(err, errFailed) {
			return nil // the run has ended with RUN_ERROR
		}
		if err != nil {
			return err
		}
		if len(calls) == 0 {
			break
		}
		assistant := scripted.Message{Role: "assistant", Content: text}
		for _, c := range calls {
			if !c.dropped {
				assistant.Calls = append(assistant.Calls, scripted.Call{ID: c.id, Name: c.name, Args: c.args})
			}
		}
		req.Messages = append(req.Messages, assistant)
		left := false // calls left to the client
		for _, c := range calls {
			if c.dropped {
				continue
			}
			if !c.own {
				left = true
				continue
			}
			result := a.Tools[c.name](c.args)
			resultID := c.id + "-result"
			if a.Bug == SharedResultID {
				resultID = msgID + "-results" // agent-framework#6009: one id for the step's results
			}
			if err := emit(agui.NewToolCallResult(resultID, c.id, result)); err != nil {
				return err
			}
			req.Messages = append(req.Messages, scripted.Message{Role: "tool", ToolCallID: c.id, Content: result})
		}
		if left {
			break // the client runs its tools and posts the next run
		}
	}
	return emit(agui.NewRunFinished(in.ThreadID, in.RunID))
}

// answer streams one answer of the model and returns its calls and text.
func (a Agent) answer(ctx context.Context, in agui.RunAgentInput, req scripted.Request, msgID string, n *int, emit func(agui.Event) error) ([]*call, string, error) {
	fail := func(what string, err error) ([]*call, string, error) {
		if err := emit(agui.NewRunError(what+err.Error(), "PROVIDER_ERROR")); err != nil {
			return nil, "", err
		}
		return nil, "", errFailed
	}
	stream, err := a.Model.Stream(ctx, req)
	if err != nil {
		return fail("the model could not answer: ", err)
	}
	var (
		calls     []*call
		byKey     = map[string]*call{}
		started   *call // the call that started last
		textOpen  bool
		text      []byte
		pending   []byte // the start of a character cut by the model's stream
		toClients int    // calls to the client's tools
	)
	for chunk, err := range stream {
		if err != nil {
			return fail("the model's answer broke off: ", err)
		}
		switch {
		case chunk.Text != "":
			delta := whole(&pending, chunk.Text)
			if delta == "" {
				continue
			}
			if !textOpen {
				textOpen = true
				if err := emit(agui.NewTextMessageStart(msgID)); err != nil {
					return nil, "", err
				}
			}
			text = append(text, delta...)
			if err := emit(agui.NewTextMessageContent(msgID, delta)); err != nil {
				return nil, "", err
			}
		case chunk.Call != nil:
			d := chunk.Call
			key := strconv.Itoa(d.Index)
			if d.Index < 0 {
				key = d.ID // no index on the wire: the id is on every delta
			}
			c := byKey[key]
			if a.Bug == MergedCalls && c == nil && started != nil {
				c = started // ag-ui#1776: a call is streaming, so this is more of it
			}
			if c == nil {
				*n++
				c = &call{id: fmt.Sprintf("%s-call-%d", in.RunID, *n), name: d.Name, own: a.Tools[d.Name] != nil}
				byKey[key] = c
				calls = append(calls, c)
				started = c
				if !c.own {
					toClients++
					c.dropped = a.Bug == FirstClientCall && toClients > 1 // strands#1346: the first client call only
				}
				if !c.dropped {
					if err := emit(agui.NewToolCallStart(c.id, c.name, msgID)); err != nil {
						return nil, "", err
					}
				}
				if a.Bug == FirstChunkArgs {
					continue // ag-ui#2463: a first delta only starts the call
				}
			}
			if a.Bug == WrongID {
				c = started // ag-ui#1016: the call that started last
			}
			delta := whole(&c.pending, d.Args)
			if delta == "" || c.dropped {
				continue
			}
			c.args += delta
			if err := emit(agui.NewToolCallArgs(c.id, delta)); err != nil {
				return nil, "", err
			}
		}
	}
	if textOpen {
		if err := emit(agui.NewTextMessageEnd(msgID)); err != nil {
			return nil, "", err
		}
	}
	for _, c := range calls {
		if !c.dropped {
			if err := emit(agui.NewToolCallEnd(c.id)); err != nil {
				return nil, "", err
			}
		}
	}
	return calls, string(text), nil
}

// whole returns the text of a delta that a client can take: the model's
// Go-native stream may cut a character in two, and the bytes of its start
// wait in pending for the rest.
func whole(pending *[]byte, delta string) string {
	b := append(*pending, delta...)
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		if b[i] < 0x80 {
			break
		}
		if b[i] >= 0xC0 { // the first byte of a character
			size := 2
			switch {
			case b[i] >= 0xF0:
				size = 4
			case b[i] >= 0xE0:
				size = 3
			}
			if i+size > len(b) {
				cut = i
			}
			break
		}
	}
	*pending = append([]byte(nil), b[cut:]...)
	return string(b[:cut])
}
