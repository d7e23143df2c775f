// Package claude is an example AG-UI agent on anthropic-sdk-go, tested
// table by table with aguitest's harness against the scripted LLM's
// Anthropic Messages wire.
//
// The agent is a weather desk, an http.Handler built on package agent.
// Each run asks Claude through the real client, streaming, and the
// provider bridge (agent/anthropicmessages) turns the content blocks into
// server-sent AG-UI events as they arrive:
//
//   - extended thinking (Options.ThinkingBudget) as REASONING_START,
//     REASONING_MESSAGE_START, _CONTENT, then the block's signature as
//     REASONING_ENCRYPTED_VALUE on the reasoning message,
//     REASONING_MESSAGE_END and REASONING_END;
//   - text as TEXT_MESSAGE_START, _CONTENT, _END, one message per model
//     turn;
//   - each tool_use block as TOOL_CALL_START, TOOL_CALL_ARGS (the
//     input_json_delta fragments as they come), TOOL_CALL_END, parallel
//     calls keyed by their block index, so blocks that interleave stay
//     apart; the call id is the tool_use id.
//
// The agent runs its own tool, get_forecast, once the model's message is
// complete: each result as TOOL_CALL_RESULT, all the results of a turn
// back to the model in one user turn, until the model answers without
// calling it. A call to a tool the client offered (RunAgentInput.tools) is
// left to the client and ends the run: the client runs it and posts the
// next run, whose history the bridge turns back into Messages API turns,
// the reasoning message and its signature becoming the thinking block that
// starts the assistant turn, as the API requires when thinking is on.
//
// A failed model request ends the run with RUN_ERROR whose code is the
// Anthropic error type (overloaded_error, rate_limit_error, api_error);
// the client retries 429, 529 and 5xx twice first, honouring retry-after.
//
// The tests (agent_test.go) run the agent with harness.Handler against
// the scripted server: text, thinking, the agent's tool, parallel calls
// interleaved by block index, thinking with tools, a client tool whose
// result comes back in the next run with the thinking block, retried and
// final provider faults, an error event mid-stream. The merged goldens
// are under testdata.
package claude
