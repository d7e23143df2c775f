// Package taskboard is an example AG-UI agent that keeps a task board in the
// shared state, tested table by table with aguitest's harness.
//
// The agent is an http.Handler. Each run takes the board (columns holding
// tasks) from RunAgentInput.state, asks the model through the real openai-go
// client, streaming, and answers with server-sent AG-UI events:
//
//   - the model's text as TEXT_MESSAGE_START, _CONTENT (as it arrives), _END;
//   - each tool call as TOOL_CALL_START and TOOL_CALL_ARGS fragments as the
//     provider streams them, parallel calls interleaved with distinct ids;
//   - once the model's answer is complete, each call runs while it is still
//     open: its change to the board is published as STATE_DELTA (a JSON
//     Patch; a STATE_SNAPSHOT first when the client's state held no board),
//     then TOOL_CALL_END, then TOOL_CALL_RESULT;
//   - the results go back to the model, until it answers with text alone;
//     then RUN_FINISHED.
//
// Four tools move the board on the client's behalf: add_task, move_task,
// rename_task and remove_task. The tools list of RunAgentInput says what the
// client can take, not what the agent may call; still, this agent adopts a
// rule of its own: it changes the board only through tools the client
// offered. When the model calls a board tool the client did not offer, the
// run ends with RUN_ERROR, code TOOL_NOT_OFFERED, before the call is opened.
// The fifth tool, render_a2ui, sends a UI surface to the frontend; no client
// offers it (the client has nothing to run, it draws the surface), and the
// agent calls it all the same, answering it itself.
//
// A failed model request (an error status, a stream that breaks off) ends
// the run with RUN_ERROR, code PROVIDER_ERROR; the client does not retry.
//
// The agent is built on package agent, as the seed's task-board example is
// built on its SDK: agent.Handler serves it, the agent/openaichat bridge
// turns the model's stream into an agent.Turn that keeps the calls open
// (TurnOptions.KeepOpen), a TurnOptions.Gate applies the rule about offered
// tools, Run.StateSnapshot and Run.StatePatch publish the board (the
// tools' own JSON Patch, which the run checks applies to the client's
// board), and ToolCall.Result ends each
// call and sends its result. Every event is checked by the strict verifier
// before it is sent.
//
// Ids are allocated by the run from its id ("run-1-msg-1", "run-1-call-1"),
// and task ids from the board's nextId ("T4"), so a run gives the same
// events every time.
//
// The tests (agent_test.go) run the agent with harness.Handler against the
// scripted LLM's OpenAI-compatible server: one case per tool, parallel calls
// interleaved on the provider's stream, render_a2ui, a tool not offered,
// provider faults; the merged goldens are under testdata, and each case
// checks the final board (Result.State) and the conversation.
package taskboard
