// Package agui models the AG-UI protocol on the wire and checks the order of
// its events.
//
// An [Event] keeps the JSON it was read from byte for byte (unknown fields,
// unknown event types, field order and nulls survive) and reads the fields
// tools need without allocating. Streams arrive as server-sent events
// ([SSEDecoder] pulls them from a reader, [SSEParser] takes them pushed in
// pieces, [SSEEncoder] writes them), protobuf frames of @ag-ui/proto 1.0.0
// ([ProtoEncoder] writes them), JSON arrays or JSON Lines; a [Reader]
// detects which. A protobuf event decodes to the JSON the reference
// client's decoder makes of it ([UnmarshalProto]) and encodes as
// @ag-ui/encoder encodes it ([MarshalProto]); what one encoding carries
// and the other cannot is listed as a [Loss]. [Negotiate] picks the
// encoding a request's Accept header asks for. [RunAgentInput] and
// [Message] are the request side, faithful to @ag-ui/core 1.0.0.
//
// The [Verifier] judges a stream as HttpAgent of @ag-ui/client 1.0.0 reads
// a response, stage by stage: SSE framing as the client splits it (the
// [Reader] reports a frame it cannot read as a [FrameError]), the client's
// compatibility boundary (legacy THINKING_* events translated, tolerated
// nulls dropped), its schema checks (unknown event types dropped, unknown
// fields stripped, every event validated against @ag-ui/core 1.0.0),
// chunk expansion ([Expander]), then the ordering rules of verifyEvents.
// Push each event, Finish at the end. Its memory grows with what the current
// run has open or has named, not with the length of the stream; in steady
// state it allocates nothing per event. Two profiles:
//
//   - [Reference] accepts and rejects what HttpAgent does; its ordering
//     violations carry the reference verifier's message, its schema
//     violations the field (Violation.Field) and the validator's message.
//     A differential test holds it to HttpAgent itself, over HTTP, on
//     thousands of generated response bodies and on AG-UI's own
//     conformance corpus.
//   - [Strict], the zero value, adds what a test wants (see below).
//
// # Client versions
//
// Each supported client version is a [Client] ([Clients] lists them):
// [ClientV100], @ag-ui/client 1.0.0, and [ClientV0059], @ag-ui/client
// 0.0.59, the version CopilotKit's @copilotkit/react-core 1.74 and
// @copilotkit/runtime 1.75 pin. Options.Client picks the one whose
// pipeline Reference follows (1.0.0 when zero). 0.0.59 reads a response
// differently: its transport validates each frame with the zod 3 schemas
// of @ag-ui/core 0.0.59 before anything else (an unknown event type is a
// schema error there, unknown fields are kept, THINKING_* events are
// events with their own ordering rules, [RuleThinking]); it has no
// compatibility boundary, no enforcement stage, no opener-agreement
// checks on chunks and no reasoning open/close checks. Each version's
// differential test holds it to that version's HttpAgent. Under Strict
// with no Client named, a stream must pass every supported client; a
// violation only one client raises names it (Violation.Client, and its
// message begins "rejected by @ag-ui/client 0.0.59 (pinned by CopilotKit
// 1.74/1.75): ").
//
// Unlike the reference, which stops at the first problem, the Verifier
// reports every violation, each with the event's index, type, ids, a rule
// and a message. [Options] waive rules by name (Allow), turn on opt-in
// rules (Enable), and give the run's input (Input, [Verifier.SetInput]) so
// that tool calls of the conversation's history are known.
//
// There must be a stream at all: in every profile a stream with no events
// is a violation ([RuleNoEvents]), and [Verifier.Response] checks the HTTP
// status and Content-Type a stream came with. (The reference client
// accepts an empty body or an error page without a word; a test must
// not.)
//
// # Typical use
//
//	v := agui.NewVerifier(agui.Options{Input: &input})
//	for _, vi := range v.Response(resp.StatusCode, resp.Header.Get("Content-Type")) {
//		log.Print(vi)
//	}
//	r := agui.NewReader(resp.Body, "agent")
//	for {
//		e, err := r.Next()
//		if err == io.EOF {
//			break
//		}
//		var fe *agui.FrameError
//		if errors.As(err, &fe) {
//			log.Print(v.PushFrame(fe)) // a frame the client cannot read
//			continue
//		}
//		if err != nil {
//			return err // unreadable input; names the line
//		}
//		for _, vi := range v.Push(e) {
//			log.Printf("line %d: %v", r.Line(), vi)
//		}
//	}
//	for _, vi := range v.Finish() { // no events, a cut stream, what is left open
//		log.Print(vi)
//	}
//
// # Rules
//
// Every rule is a [Rule] constant; [Rules] lists them in this order.
//
// The response rules, in every profile:
//
//	no-events             the stream has no events
//	http-status           the HTTP status is not 2xx
//	content-type          the Content-Type is not an AG-UI event stream
//
// The reference profile: what the client rejects.
//
//	frame-json            an SSE frame's data is not JSON
//	frame-object          an SSE frame's data is not a JSON object
//	frame-type            an SSE frame's object has no non-empty string type
//	frame-size            a frame exceeds the client's 10 MiB buffer
//	frame-proto           a protobuf frame does not decode, or is cut
//	schema                an event breaks its @ag-ui/core schema
//	chunk                 a chunk event that cannot be expanded
//	first-event           the first event is not RUN_STARTED (or RUN_ERROR)
//	run-active            RUN_STARTED while a run is active
//	after-run-finished    an event after RUN_FINISHED other than RUN_STARTED or RUN_ERROR
//	after-run-error       an event after RUN_ERROR other than RUN_STARTED
//	run-finished-open     RUN_FINISHED while steps, messages, reasoning, calls or subagents are open
//	null-field            an optional field sent as null where the verifier forbids it
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
//	thinking              a THINKING_* event out of order (@ag-ui/client 0.0.59)
//
// The Strict profile adds:
//
//	truncated             the stream ended without RUN_FINISHED or RUN_ERROR
//	unclosed              something still open at the end of a truncated stream
//	finished-after-error  RUN_FINISHED after RUN_ERROR in the same run
//	result-before-end     TOOL_CALL_RESULT while its call is still open
//	result-unknown-call   TOOL_CALL_RESULT for a call not started in the run nor in its input history
//	duplicate-result      a second TOOL_CALL_RESULT for one call in a run
//	args-not-json         streamed TOOL_CALL_ARGS that are not one JSON value at TOOL_CALL_END
//	reopened-id           a message, reasoning message or call id opened again after its END in one run
//	proto-loss            a protobuf frame holds what the client's decoder drops
//	unknown-event         an event type the client drops (did you mean ...)
//	unknown-field         a field or union member the client strips (did you mean ...)
//	run-id-mismatch       a RUN_FINISHED whose runId differs from its RUN_STARTED's (draft)
//	thread-id-mismatch    a RUN_FINISHED or later RUN_STARTED on another thread than its run's or the stream's (draft)
//	duplicate-interrupt-id  two interrupts with one id in a RUN_FINISHED outcome (draft)
//
// The rules marked (draft) are AG-UI's draft conformance
// (spec/draft/conformance in ag-ui-protocol/ag-ui), which rejects what
// today's clients let through; each constant names the upstream fixture.
// unknown-event and unknown-field report what HttpAgent drops or strips
// with only a console warning, so a typo never reaches the frontend in
// silence; CUSTOM and RAW events and the opaque fields (metadata,
// rawEvent, state, values) are the protocol's extension points and not
// reported. Options.Enable turns the two on in Reference, without
// Strict's other rules.
//
// Opt-in rules, for bugs reported against real integrations (Options.Enable;
// see each constant for the bug it catches):
//
//	empty-delta           an empty text or reasoning delta
//	shared-result-id      one TOOL_CALL_RESULT messageId for several results
//	reused-result-id      a TOOL_CALL_RESULT messageId equal to another message's id
//
// A tool call with no arguments streamed (TOOL_CALL_START then
// TOOL_CALL_END) has no arguments, which the client reads as {}: it is not
// args-not-json. A TOOL_CALL_START whose parentMessageId names no earlier
// message is legal (clients create the assistant message), and a call to a
// tool the client did not offer is legal too: the tools list says what the
// client can run, not what the agent may call.
//
// # The client's view
//
// A [View] holds what a frontend ends up with: the messages and state that
// HttpAgent of @ag-ui/client 1.0.0 assembles from a response
// (defaultApplyEvents), starting from the history and state it sent
// ([NewView], [View.Apply], or [Assemble] for a whole stream). Text
// reopened under one id is one message, a call joins its assistant
// message, a result goes after its call's message, MESSAGES_SNAPSHOT
// merges as the client merges it, and STATE_DELTA and ACTIVITY_DELTA are
// applied as fast-json-patch 3.1.1 applies them; a patch that
// does not apply leaves the state as it was, and the view says so
// ([View.Warnings]). A differential test holds the view equal to
// HttpAgent's agent.messages and agent.state on thousands of generated
// conversations; where it must differ (a patch that makes the state
// contain itself, which no JSON can write), the view stops and says why.
//
// # Concurrency
//
// Events are immutable values and may be shared between goroutines. A
// Verifier, an Expander, a Reader, a View and the SSE and protobuf
// decoders and encoders each belong to one goroutine at a time.
package agui
