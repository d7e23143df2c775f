// Package agui models the AG-UI protocol on the wire and checks the order of
// its events.
//
// An [Event] keeps the JSON it was read from byte for byte (unknown fields,
// unknown event types, field order and nulls survive) and reads the fields
// tools need without allocating. Streams arrive as server-sent events
// ([SSEDecoder], [SSEEncoder]), JSON arrays or JSON Lines; a [Reader]
// detects which. [RunAgentInput] and [Message] are the request side,
// faithful to @ag-ui/core 1.0.0.
//
// The [Verifier] checks ordering as events arrive: Push each event, Finish at
// the end. Its memory grows with what the current run has open or has named,
// not with the length of the stream; in steady state it allocates nothing per
// event. Two profiles:
//
//   - [Reference] accepts and rejects exactly what verifyEvents of
//     @ag-ui/client 1.0.0 does, and its first violation carries the same
//     message. Chunk events are expanded first, as transformChunks does
//     ([Expander]); set Options.NoChunkExpansion to verify events as they
//     come.
//   - [Strict], the zero value, adds what a test wants (see below).
//
// Unlike the reference, which stops at the first problem, the Verifier
// reports every violation, each with the event's index, type, ids, a rule
// name and a message.
//
// # Typical use
//
//	r := agui.NewReader(resp.Body, "agent")
//	v := agui.NewVerifier(agui.Options{})
//	for {
//		e, err := r.Next()
//		if err == io.EOF {
//			break
//		}
//		if err != nil {
//			return err // names the line
//		}
//		for _, violation := range v.Push(e) {
//			log.Printf("line %d: %v", r.Line(), violation)
//		}
//	}
//	v.Finish()
//
// # Rules
//
// The rule names of the reference profile:
//
//	first-event           the first event is not RUN_STARTED (or RUN_ERROR)
//	run-active            RUN_STARTED while a run is active
//	after-run-finished    an event after RUN_FINISHED other than RUN_STARTED or RUN_ERROR
//	after-run-error       an event after RUN_ERROR other than RUN_STARTED
//	run-finished-open     RUN_FINISHED while steps, messages, reasoning, calls or subagents are open
//	null-field            subagentRunId (or an optional lifecycle field) sent as null
//	message-open          TEXT_MESSAGE_START for a message already open
//	message-not-open      TEXT_MESSAGE_CONTENT or _END for no open message
//	tool-call-open        TOOL_CALL_START for a call already open
//	tool-call-not-open    TOOL_CALL_ARGS or _END for no open call
//	reasoning-open        REASONING_START or REASONING_MESSAGE_START for one already open
//	reasoning-not-open    a reasoning continuation or end for nothing open
//	step-active           STEP_STARTED for a step already open (per owner)
//	step-not-started      STEP_FINISHED for a step never started
//	step-owner            STEP_FINISHED under another owner than the step's
//	subagent-attribution  a subagentRunId disagreeing with the owner of its message or call
//	subagent-lifecycle    SUBAGENT_* without its required subagentRunId, name or message
//	subagent-outcome      a SUBAGENT_* outcome of an unknown type or with non-string interrupt ids
//	subagent-active       SUBAGENT_STARTED for an active subagent
//	subagent-reused       SUBAGENT_STARTED for a subagent id already finished in the run
//	subagent-parent       a parentSubagentRunId never started in the run
//	subagent-not-active   SUBAGENT_FINISHED or _ERROR for no active subagent
//	chunk                 a chunk event that cannot be expanded
//
// The Strict profile adds:
//
//	truncated             the stream ended without RUN_FINISHED or RUN_ERROR (reported by Finish)
//	unclosed              something still open at the end of a truncated stream (Finish)
//	finished-after-error  RUN_FINISHED after RUN_ERROR in the same run
//	result-before-end     TOOL_CALL_RESULT while its call is still open
//	result-unknown-call   TOOL_CALL_RESULT for a call not started in the run nor in its input history
//	duplicate-result      a second TOOL_CALL_RESULT for one call
//	args-not-json         a call's concatenated TOOL_CALL_ARGS are not one JSON value at TOOL_CALL_END
//	reopened-id           a message, reasoning message or call id opened again after its END in one run
//
// A TOOL_CALL_START whose parentMessageId names no earlier message is legal
// (clients create the assistant message), and a call to a tool the client
// did not offer is legal too: the tools list says what the client can run,
// not what the agent may call.
//
// # Concurrency
//
// Events are immutable values and may be shared between goroutines. A
// Verifier, an Expander, a Reader and the SSE decoder and encoder each
// belong to one goroutine at a time.
package agui
