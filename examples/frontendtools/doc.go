// Package frontendtools is an example AG-UI agent whose tools run on the
// client: get_user_location, read_climate_sensors and
// change_background_color, the frontend tools of the seed tutorial.
//
// The client declares its tools in RunAgentInput.tools; the agent offers
// them to the model. When the model calls one, the agent streams the call
// (TOOL_CALL_START, TOOL_CALL_ARGS, TOOL_CALL_END) and ends the run without
// a TOOL_CALL_RESULT: there is nothing for the agent to run. The client runs
// the tool and posts the next run, whose messages carry the call and its
// result as a tool message (with an error when the tool failed); the agent
// sends them to the model and streams its answer.
//
// This agent takes its model as a Go value (Model, which scripted.Model
// satisfies) instead of an HTTP client: the other way into aguitest's
// scripted LLM. It is built on package agent: an agent.Turn with
// TurnOptions.Buffered, fed by the agent/scriptedmodel bridge, buffers each
// call and emits it whole once the model's answer is complete, so that
// interleaved parallel calls never mix.
// Ids derive from the run id: "run-1-msg-1", "run-1-call-1".
//
// The tests (agent_test.go) play the client with harness.Func: the harness
// runs the Go implementations of the three tools (harness.Tool.Run), posts
// the follow-up runs, and scripted.Expect on each turn checks that the
// model was offered the tools and given their results.
package frontendtools
