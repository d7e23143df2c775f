// Package scripted is a fake LLM for testing agents: it answers each
// request with the next turn of a [Script], streamed exactly as the
// script's [Plan] says, the same way on every run.
//
// Real providers cut text and tool-call arguments at arbitrary places,
// interleave the deltas of parallel calls, identify calls in different
// ways, and fail part way through. Agents break on those shapes in
// production; a script reproduces each of them on demand:
//
//   - fragments: fixed bytes or characters, word-like tokens, seeded random
//     sizes, cuts inside JSON escapes of the arguments text, cuts inside a
//     multi-byte character, empty deltas, or explicit fragments;
//   - interleaving of parallel calls: one after another, round-robin,
//     reversed, a seeded shuffle, or an explicit schedule ("a b a c b"),
//     with the text before, between or after the calls;
//   - identification: OpenAI's (index on every delta, id and name on the
//     first), id on every delta, or no index at all;
//   - timing on an injectable [Clock] (the default virtual clock never
//     sleeps), and faults: an HTTP error status with a provider-shaped
//     body, a dropped connection, a malformed chunk, a stall.
//
// # Two ways into an agent
//
// A Go agent in the same process calls a [Model]:
//
//	m := scripted.NewModel(script)
//	stream, err := m.Stream(ctx, scripted.Request{Messages: msgs, Tools: tools})
//	for chunk, err := range stream { ... }
//	err = m.Check() // turns left unused, unexpected requests, failed expectations
//
// An agent in any language points its OpenAI client at a [Server]:
//
//	srv := scripted.NewServer(script) // http://127.0.0.1:PORT/v1
//	defer srv.Close()
//	// run the agent with base URL srv.URL, then:
//	err := srv.Check()
//
// The server speaks POST /v1/chat/completions, streaming
// (chat.completion.chunk events ending with "data: [DONE]",
// stream_options.include_usage honoured) and not, and GET /v1/models.
// Malformed requests get a 400 in the provider's error shape. [Model.Handler]
// mounts the same endpoints in a server of one's own. From the shell,
// "aguitest llm serve SCRIPT" serves a script file.
//
// # Strict by default
//
// A turn can state what its request must contain ([Expect]); a request that
// does not match gets an error saying, for each field of the expectation,
// what the request had and what the turn wants. A request beyond the last
// turn is an error, and Check reports turns never used. Each error names
// its turn, and the file:line of the turn for a loaded script. Messages
// number turns, requests and calls from 1.
// Failure messages of the tests of this package print each plan with its
// seed ([Plan.String]).
//
// # Concurrency
//
// A Script is plain data and may be shared. A [Model] (and the [Server]
// around it) holds the position in one conversation: turns are taken in
// the order requests arrive. To run conversations in parallel, make one
// Model or Server per conversation; nothing is shared between them, so
// parallel tests do not interfere. Model and Server methods are safe for
// concurrent use.
//
// # What the wire allows
//
// A fragment plan may cut inside a multi-byte UTF-8 character
// ([Split.MidRune]). The Go-native stream delivers such fragments as they
// are. JSON text cannot carry half a character, so the server holds the
// leading bytes back and sends them with the next fragment of the same
// string: a real JSON wire never splits a character. What it can split,
// and what providers do split, is the arguments text, which is itself JSON:
// [Split.Escapes] cuts inside its escapes (\" and \u00e9), and those
// fragments reach the client as they are.
//
// A client must key calls by index to reassemble OpenAI-style streams;
// with [IDsNoIndex] it must key them by id. go-openai exposes the missing
// index as nil and copes when keyed by id; openai-go's
// ChatCompletionAccumulator needs the index.
//
// # File format
//
// [Load] reads the same script from YAML or JSON. Unknown fields are
// errors, and every error reads file:line. Durations are Go durations.
//
//	model: gpt-scripted            # reported in responses; optional
//	plan:                          # default plan of every turn; optional
//	  split: {by: bytes, size: 8}  # bytes, runes, words, random (min, size), whole;
//	                               # escapes: true, mid_rune: true, empty: N
//	  order: {by: round-robin}     # sequential, round-robin, reverse, shuffle,
//	                               # schedule (schedule: "a b a"); text: before, between, after
//	  ids: first                   # first, every, no-index
//	  seed: 42
//	  first: 300ms                 # delay before the first chunk
//	  every: 20ms                  # delay before each later chunk
//	turns:
//	  - expect:                    # what the request must contain; optional
//	      last_user: weather       # occurs in the last user message
//	      tools: [get_weather]     # offered
//	      messages: 1              # how many
//	    reasoning: Two cities, two calls.
//	    text: Let me check.
//	    calls:
//	      - {id: a, name: get_weather, args: '{"city":"Paris"}'}
//	      - {name: get_weather, fragments: ['{"city":', '"Rome"}']}   # id call_1_2
//	    plan: {order: {by: schedule, schedule: a call_1_2 text a}}
//	  - expect:
//	      tool_results: [a, call_1_2]
//	    text: Paris 18°C, Rome 24°C.
//	    usage: {prompt_tokens: 120, completion_tokens: 9}
//	  - fault: {kind: status, status: 429, retry_after: "2"}
//	  - text: Retried.
//	    fault: {kind: disconnect, after: 3}   # also: malformed, stall
//
// A call's id, when not given, is call_<turn>_<n> counted from 1; the
// arguments must be JSON unless raw: true, and default to {}.
package scripted
