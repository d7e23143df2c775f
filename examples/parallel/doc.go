// Package parallel is two example AG-UI agents over the same provider
// stream of parallel tool calls, and a third with a bug real agents have.
//
// Providers stream parallel calls interleaved by index:
// args(a) args(b) args(a) end. An agent may forward that as it arrives,
// each fragment under its own call's id (Streaming), or buffer per call and
// emit each call whole once the stream ends (Buffering). Both are valid
// AG-UI: the verifier separates everything by id. The tests run one table of
// fragment and interleave plans (sequential, round-robin, reverse, a seeded
// shuffle, an explicit schedule, a seeded random split, cuts inside JSON
// escapes, cuts inside a multi-byte character, empty deltas, ids on every
// delta, the index omitted, one whole fragment) against both and require
// the same merged golden for every plan and both agents: the merged view
// joins each call's fragments and puts parallel calls in a canonical order,
// so what it shows is what the client ends up with.
//
// Both agents are built on package agent: an agent.Turn (TurnOptions.Buffered
// for Buffering) fed by the scriptedmodel bridge from the Go-native scripted
// model, which, unlike a JSON wire, passes on a fragment that ends inside a
// character. The agent package's handles hold back the leading bytes of a
// cut character until the rest arrives; an AG-UI event is JSON and cannot
// carry half of one.
//
// MixedUp keeps a single "current call" and sends every fragment under the
// id of the call that started last. It builds its events by hand: with
// package agent's handles the bug cannot be written. Streamed one call after another, nothing
// shows. Interleaved, aguitest's strict verifier catches it at TOOL_CALL_END,
// where the joined arguments are not JSON; README.md quotes the failure as
// the harness reports it, and TestMixedUpIsCaught checks that report.
package parallel
