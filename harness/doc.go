// Package harness runs table-driven tests of AG-UI agents.
//
// Each [Case] of a table is a subtest. The harness serves the case's
// script from a fresh scripted LLM, starts the agent, posts the case's
// input as a RunAgentInput, and reads the event stream, verifying it as it
// arrives (agui.Strict by default). When a run ends with calls to the
// case's frontend tools that got no TOOL_CALL_RESULT, it does what an AG-UI
// client does: runs the Go implementations, adds their tool messages to the
// conversation it holds (the messages and state HttpAgent of @ag-ui/client
// assembles from the events, agui.View), and posts it as the next run on
// the same thread with a new run id. Follow-up user messages
// are sent the same way. Then it checks that every scripted turn was used,
// compares the case's golden file, and runs the case's Check.
//
// Agents come in four kinds, each built per case from an [Env] that gives
// the scripted LLM's base URL, which serves every provider wire (OpenAI
// Chat Completions and Responses, Anthropic Messages, Gemini), and its
// Go-native model: an http.Handler ([Handler]), a Go function that emits
// events ([Func]), an endpoint already running ([URL]), and a program in
// any language started with OPENAI_BASE_URL, ANTHROPIC_BASE_URL,
// GOOGLE_GEMINI_BASE_URL, their API keys and PORT in its environment
// ([Command]).
//
// An HTTP agent is asked for server-sent events, as HttpAgent asks.
// Options.Accept (or Case.Accept) set to agui.MediaTypeProto asks for the
// protobuf encoding instead, so that the same cases and goldens test the
// agent's protobuf path; the agent must answer in it, and every frame must
// decode whole.
//
// # Typical use
//
//	func TestAgent(t *testing.T) {
//		harness.Run(t, harness.Handler(newAgent), []harness.Case{{
//			Name:  "weather",
//			Input: harness.User("Weather in Seoul?"),
//			Script: scripted.Script{Turns: []scripted.Turn{
//				{Calls: []scripted.Call{{Name: "get_weather", Args: `{"city":"Seoul"}`}}},
//				{Text: "It is sunny."},
//			}},
//		}})
//	}
//
// A run that finishes with the outcome "interrupt" (an approval, a value
// the agent needs) is resumed as a client must resume it: HttpAgent lets
// a thread go on only with a resume entry for every pending interrupt, so
// the harness posts the next run with one per interrupt, from the case's
// [Answer]s (Case.Answers: resolve with a payload, or cancel, chosen by
// the interrupt's reason or the tool of its call). Case.Leave makes the
// client leave a run part way through, as a user who closes the tab; the
// case goes on with its follow-ups, which show whether the agent still
// serves the thread.
//
// Golden files live in testdata/<TestName>/<case>.golden; "go test -update"
// writes them, and a missing one fails with a hint to do so. The merged
// view (the default) shows the messages and state the client holds after
// each run, so the golden does not depend on how the model fragments or
// interleaves; golden.Wire (Case.Golden) keeps every fragment;
// Case.NoGolden keeps none.
//
// # Failures
//
// Every problem is reported with t.Errorf at the line of the test that
// called Run, naming the case (the subtest), the run, and the event, its
// type and ids, or the scripted turn; runs, events, turns and requests are
// numbered from 1 (run N has run id run-N, as its golden placeholder). The
// case goes on where later checks still mean something: verifier
// violations, scripted turns left unused, unexpected model requests, failed
// request expectations, golden mismatches (event by event, as JSON lines
// -want +got and the values that differ, in words).
// A case that cannot run (a [Tool] without Run) or an agent that cannot be
// started stops a case at once. As the reference client reads it, an HTTP
// agent's response must have a 2xx status and an event-stream
// Content-Type, a run must have events, and a frame of the body that holds
// no event (data that is not JSON) is a violation after which the stream is
// read on.
//
// A run that the agent ends with RUN_ERROR fails the case unless the case
// expects it ([Case].WantError). Its message and code are reported first,
// before the turns it left unused and the golden it changed, since they
// are the cause; so is a request that failed. The rest follows in the
// order found.
//
// # Fidelity
//
// Every case also checks that what the scripted model said reaches the
// client, as the client assembles it, with no golden and no check of its
// own: each call the model made arrives with its name and its exact
// arguments, unless the agent ran it itself (a tool message answers it,
// or a later request to the model carries it and its result); the model's
// text arrives verbatim and in order (the agent may add its own around
// it); no two messages share an id; a call that comes back to the model in
// a later request carries the arguments the model sent. An agent that
// drops one of several parallel calls, merges two calls' arguments, loses
// arguments that came in one chunk or runs a tool with other arguments
// than it showed fails so ([ProblemFidelity]). Case.Relax and
// Options.Relax waive a check by name ([FidelityText], [FidelityCalls],
// [FidelityIDs], [FidelityHistory])
// for an agent that legitimately rewrites the model's text or keeps calls
// from the client.
//
// # Exploration
//
// A case's own plan is one way a provider may stream its answer; agents
// break on the others. Case.Explore (or Options.Explore for a table) runs
// the case under many plans of its script besides its own: a systematic
// matrix of splits, orders, id styles and the stream shapes of known
// integration bugs, then seeded random plans, as many as [Explore].Plans
// allows, only those the wires the agent used can express. Under every
// plan the case must pass its verifier profile and the fidelity checks,
// and the client must hold the same messages and state as under the
// case's own plan; the golden is compared once, for the case's own plan.
// The first plan under which it fails is shrunk to the smallest failing
// script and reported ([ProblemExplore]) with what differs (the first
// message or state entry, -want +got) and the script as a Go literal and
// in the script file format, to paste into the case, with the seed: the
// same seed gives the same plans on every machine. [Report].Exploration
// holds what was explored; under Run, "go test -v" logs it.
//
// A test binary takes the budget and seed of every explored case from the
// command line (the flags are registered in every test binary that links
// the harness, and in no other program), so that CI runs a small budget
// and a nightly job a large one:
//
//	go test -run TestAgent -args -aguitest.explore=500 -aguitest.seed=7
//
// Plans run several at once for Func, Handler and Command agents (each
// plan has its own scripted LLM and agent instance; a Tool's Run must then
// be safe for concurrent use), one at a time for a URL agent, whose LLM
// client must point at Options.ModelAddr. "aguitest explore" explores a
// script file against a program or a URL the same way, for agents in any
// language.
//
// # Without a testing.T
//
// Under Run sits a core that returns values, as slogtest.TestHandler sits
// under slogtest.Run: [Options.Test] runs one case and returns a [Report],
// its [Result] and every [Problem] (causes first, each with its kind, run
// and verifier finding), and [Options.TestAll] runs a table. Run reports
// exactly those problems; the aguitest command, examples and tests of the
// harness's own failure output use the core directly. Options.OnEvent and
// Options.OnProblem watch a case as it happens.
//
// # Concurrency
//
// Options.Parallel runs cases in parallel; each case has its own scripted
// LLM and agent instance. A Func agent may emit from any goroutine.
package harness
