// Package agent is the agent side of AG-UI for Go: a run started from a
// RunAgentInput, and handles that emit its messages, reasoning, tool calls,
// steps and state so that the stream is right by construction.
//
// A Run sends RUN_STARTED when it starts and RUN_FINISHED (Finish) or
// RUN_ERROR (Fail) when it ends. In between, each thing the agent streams
// is a handle: a Text or Reasoning message (start, deltas, End), a
// ToolCall (start, argument fragments or a value, End, and for a call the
// agent answers itself, Result), a Step. End is idempotent and safe to
// defer. Ids are allocated from the run id ("run-1-msg-1", "run-1-call-1")
// or by Options.NewID; a call's result message id is allocated when the
// call opens, so it is known before the result (ToolCall.ResultMessageID).
//
// The state is a JSON document the client holds: the input's state, then
// what the run publishes, as a snapshot (StateSnapshot) or as a JSON Patch
// computed against what the client holds (StateDelta, by
// github.com/wI2L/jsondiff) or given by the agent (StatePatch, which must
// apply). State may be published while calls are open: that is what
// streaming a call is for.
//
// RunAgentInput.tools says what the client can execute, not what the agent
// may call; Offered and Tool read it for an agent that wants a stricter
// rule of its own.
//
// A Turn turns one streamed model answer into the run's events: text,
// reasoning and tool-call deltas as a provider sends them, calls streamed
// with distinct ids (interleaved as the provider interleaves) or buffered
// and sent whole in index order. A call is complete only when the provider
// says so. The provider bridges in the subpackages (openaichat,
// openairesponses, anthropicmessages, scriptedmodel) feed a Turn from an
// SDK's stream; this package imports no provider SDK.
//
// Handler serves an agent function over HTTP: it decodes the POSTed
// RunAgentInput, answers with server-sent events flushed one by one, ends
// the run from the function's result, and cancels the function's context
// when the client goes.
//
// # Checked as emitted
//
// Every event passes agui's Verifier (Options.Verify: the Strict profile
// by default, with the rules the agent waives or enables) before it reaches
// the sink, and the handles refuse what they know to be wrong before
// building an event: arguments after a call's END, a second result, END
// with arguments that are not JSON, text after its message or the run
// ended, an id used twice, RUN_FINISHED with something open. Such a call
// returns an *Error naming the agui.Rule, and nothing is sent; the run goes
// on. An event only the Verifier refuses (a raw Emit out of order, one that
// breaks its schema) is not sent either, but the run is then broken
// (ErrBroken): only Fail may still send.
//
// # Typical use
//
//	h := agent.Handler(func(ctx context.Context, run *agent.Run) error {
//		call, err := run.ToolCall("get_weather")
//		if err != nil {
//			return err
//		}
//		if err := call.ArgsJSON(map[string]string{"city": "Seoul"}); err != nil {
//			return err
//		}
//		_, err = call.ResultJSON(map[string]int{"tempC": 21})
//		return err
//	}, agent.Options{})
//	http.Handle("/agent", h)
//
// # Concurrency
//
// A Run and its handles are safe for concurrent use; events reach the sink
// one at a time. A Turn belongs to one goroutine.
//
// # Failures
//
// Misuse is an *Error (RuleOf reads its rule). A sink that fails (the
// client has gone) makes every later call return ErrGone. Errors of the
// agent function end the run with RUN_ERROR; a *Failure sets its message
// and code.
package agent
