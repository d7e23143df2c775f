// Package golden turns AG-UI event streams into golden files and compares
// new streams with them, event by event.
//
// A stream is first normalised into entries ([Normalize], [Normalizer]):
//
//   - Ids become placeholders named for their kind and numbered from 1 by
//     first appearance, each kind on its own: "thread-1", "run-1",
//     "msg-1", "call-1", "call-2", "run-2"; so run-N is the Nth run, as
//     the harness numbers runs. The same id gets the same placeholder
//     wherever it appears, so identity is kept: in messageId,
//     parentMessageId, toolCallId, parentToolCallId, runId, parentRunId,
//     threadId, subagentRunId, parentSubagentRunId and entityId (a call or
//     a message, by subtype) of any event; in RUN_STARTED's input
//     (threadId, runId, parentRunId, and the messages' ids, toolCalls ids
//     and toolCallId); in MESSAGES_SNAPSHOT's messages likewise; and in
//     a merged [Message] entry's toolCalls ids. An id
//     used under two kinds keeps the placeholder of the first. Numbering
//     follows the golden text: entries in order, keys in the order below.
//   - Events' "timestamp" fields are dropped (Normalizer.KeepTimestamps
//     keeps them).
//   - Scrubs then replace other volatile values, by JSON pointer or by
//     pattern ([Scrub]).
//
// There are two views of a stream ([View]). [Wire] keeps every event,
// fragments included, in order: for tests of streaming. [Merged] is for
// tests that should not depend on how a provider fragments or interleaves:
// it shows what a frontend ends up with, the messages and state that
// HttpAgent of @ag-ui/client assembles ([agui.View]), run by run. The
// events that build messages and state (text, tool calls and results,
// reasoning, activity, MESSAGES_SNAPSHOT, STATE_SNAPSHOT, STATE_DELTA;
// chunks are expanded first) give way to one [Message] entry for each
// message the run created or changed, as the client holds it at the run's
// end: text reopened under one id is one message, a call is part of its
// assistant message ({"id", "name", "args"}, the arguments parsed as JSON,
// the text itself when they are not JSON), a result is the tool message
// the client places after its call's message. An entry stands where the
// run first named its message, in the client's order; a message or call
// started and never ended is marked "incomplete": true. A run that sent
// state ends with a [State] entry holding the client's state, and a
// message a MESSAGES_SNAPSHOT dropped gives a [MessageRemoved] entry. When
// the requests are known ([Normalizer.NormalizeRuns]: a harness case, a
// recording), each run starts from its request's messages and state;
// otherwise from what the previous run left, and a STATE_DELTA before any
// state is known is shown as it came.
// Events the client ignores (a delta for no message, a patch that does not
// apply) leave no entry of their own: the verifier reports them. Other
// events (run lifecycle, steps, custom, raw, reasoning spans, subagents)
// stay as they are. Where the client's pipeline would stop (a chunk it
// cannot expand), the rest of the run is shown as it came. A stream too
// long to hold is normalised as it is read ([Normalizer.NewStream]),
// keeping the client's view and the entries, not the events.
//
// Because a provider's call index is not on the wire, what only the
// interleaving of parallel calls decides is put in a canonical order: the
// calls of one message by tool name, then arguments, then other fields;
// the results after a message in the order of its calls; messages that
// only hold calls (the client makes one per call when the agent names no
// parent) and started before any of them had a result, by their content.
// Placeholders are assigned after that. The same calls thus give the same
// merged golden whether they were streamed one after another,
// round-robin, reversed or shuffled, and whatever ids the agent gave them.
// Identical calls (same name and arguments) are not told apart.
//
// # File format
//
// A golden file is JSON Lines ([Marshal], [Parse]): one entry per line,
// each line ending in a newline, no HTML escaping, numbers as the agent
// wrote them. Top-level keys are in a fixed order: "type", then those of
// these that are present:
//
//	threadId runId parentRunId subagentRunId parentSubagentRunId stepName
//	messageId role toolCallId toolCallName parentMessageId parentToolCallId
//	entityId subtype name text delta args content snapshot messages input
//	value result outcome message code incomplete
//
// and then any others in alphabetical order. Keys of nested objects are in
// alphabetical order. The same stream gives the same bytes on every run and
// machine.
//
// # Storage and -update
//
// A golden file is dir/name.golden ([Path]), normally under testdata.
// [Check] compares new golden text with the file; with update set it
// rewrites the file first. It writes that one file and removes nothing.
// [Update] reads the -update flag, so "go test ./... -update" rewrites the
// goldens of every test that passes Update() to Check (GOLDIE_UPDATE=1 in
// the environment does the same). Every test binary that links this
// package (or the harness) has the flag, with no import of its own: it is
// registered when the binary is built by "go test", and in no other
// program, so the aguitest command and production programs that import
// this package have no test flags; this package links neither the testing
// package nor goldie.
//
// goldie (github.com/sebdah/goldie/v2) is not used to store these files:
// it needs a testing.TB, which "aguitest test --update" writes goldens
// without, and it registers -update, -clean and -template when it is
// linked, in every program. A test package that imports goldie too gets
// two registrations of -update, and Go's flag package panics at the start
// ("flag redefined: update"): keep goldie's tests in another package.
//
// In a repository where some packages do not use aguitest, "go test ./...
// -update" fails in those ("flag provided but not defined: -update", as
// for any flag a test binary does not know); name the packages that keep
// goldens (go test ./agent/... -update), or set the variable instead:
//
//	GOLDIE_UPDATE=1 go test ./...
//
// A missing file fails with a hint to run with -update; a mismatch
// reports each differing event ([Compare], [Report]): its number (from 1,
// the golden's line), type and ids, its two golden lines (-want +got), and
// each value that differs, by its path:
//
//	event 4 (TOOL_CALL call-2 msg-1): (-want +got)
//		- {"type":"TOOL_CALL","toolCallId":"call-2",...,"args":{"city":"Rome"}}
//		+ {"type":"TOOL_CALL","toolCallId":"call-2",...,"args":{"city":"Rome","unit":"F"}}
//		  .args.unit: got "F", want none
//
// This package takes no testing.TB: it returns values and errors, and the
// harness package turns them into test failures.
//
// # Typical use
//
//	entries := golden.Normalizer{Scrubs: scrubs}.Normalize(events, golden.Merged)
//	if err := golden.Check("testdata", t.Name(), golden.Marshal(entries), golden.Update()); err != nil {
//		t.Error(err)
//	}
//
// # Concurrency
//
// A Normalizer is only read and may be shared between goroutines; entries
// returned to a caller are theirs. Check may run concurrently for distinct
// files.
package golden
