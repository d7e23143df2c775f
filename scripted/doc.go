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
//   - timing on an injectable [clock.Clock] (the default virtual clock never
//     sleeps), and faults: an HTTP error status with the provider's error
//     body, an error event mid-stream, a dropped connection, a malformed
//     chunk, a stall; once, N times in a row, or on every request, so
//     that a client's retries meet it.
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
// An agent in any language points its LLM client at a [Server]:
//
//	srv := scripted.NewServer(script) // http://127.0.0.1:PORT/v1
//	defer srv.Close()
//	// run the agent with base URL srv.URL, then:
//	err := srv.Check()
//
// [Model.Handler] mounts the same endpoints in a server of one's own. From
// the shell, "aguitest llm serve SCRIPT" serves a script file.
//
// # Provider wires
//
// One server serves the script on every wire at once, chosen by how the
// request path ends, so that one base URL works for every client:
//
//	OpenAI Chat Completions  POST …/chat/completions   chat.completion.chunk events, "data: [DONE]"
//	OpenAI Responses         POST …/responses          response.created … response.completed, sequence numbers
//	Anthropic Messages       POST …/messages           message_start, content_block_*, message_delta, message_stop, ping
//	Gemini                   POST …/models/{m}:streamGenerateContent?alt=sse (a JSON array without alt=sse)
//	                         POST …/models/{m}:generateContent (under /v1beta or /v1)
//	Azure OpenAI             POST …/openai/deployments/{d}/chat/completions?api-version=…, …/openai/v1/chat/completions,
//	                         …/openai/deployments/{d}/responses, …/openai/responses, …/openai/v1/responses
//	Vertex AI Gemini         POST …/projects/{p}/locations/{l}/publishers/google/models/{m}:streamGenerateContent, :generateContent
//	Bedrock Converse         POST …/model/{modelId}/converse-stream (application/vnd.amazon.eventstream), …/converse
//	Ollama                   POST …/api/chat (newline-delimited JSON unless "stream": false)
//
// each streaming and not, with the event names, fields, id formats
// (call_…, toolu_…, tooluse_…, fc_…, msg_…, resp_…) and headers of the
// provider. Azure's answers carry its content filter's results (a turn
// that finishes with "content_filter" is filtered; a fault with the code
// content_filter is the 400 of a refused prompt) and Azure wants an
// api-key header or a bearer token, Vertex AI a token; Bedrock's stream
// fails with an exception message; Ollama's calls carry no id, and the
// calls of a later request are known by their name and arguments. A
// turn means the same on every wire: reasoning is Chat's
// reasoning_content, a Responses reasoning summary, an Anthropic thinking
// block with its signature, Gemini thought parts; each stream of the plan
// (reasoning, text, each call) is a Responses output item or an Anthropic
// content block, started at its first delta and finished after its last,
// so that interleaving plans interleave items and blocks by output_index
// and index. A plan a wire cannot express is an error naming the wire
// and the turn, answered to the client and reported by Check, never
// quietly dropped: Anthropic deltas carry only the block index (ids
// "first" only); Responses events always carry the item (no "no-index");
// Gemini (and Vertex AI, and Ollama) sends each call whole in its own
// part, with its id (its arguments are not cut, calls do not interleave,
// explicit argument fragments cannot be sent); Bedrock's deltas, as
// Anthropic's, carry only the block index. [Script.ValidateWire] finds those turns
// before any request.
//
// Faults take each provider's shape: the OpenAI error object, Anthropic's
// {"type":"error",...} (429 rate_limit_error with retry-after, 529
// overloaded_error), Gemini's {"error":{"status":"RESOURCE_EXHAUSTED",...}}
// with a RetryInfo detail; mid-stream, Anthropic's "error" event,
// Responses' "error" and "response.failed", an {"error":...} chunk on Chat
// Completions and Gemini.
//
// Every request is read into one neutral [Request] (system, messages with
// tool calls and one tool message per result, tools, model, options, and
// the raw body), so that [Expect], [Model.Requests] and a test's checks
// read the same on every wire; [Model.LogRequests] writes them as JSON
// Lines. The Responses wire keeps what it answered, as OpenAI stores
// responses, so that item_reference items and previous_response_id read
// back. A conversation the real provider would refuse gets its 400 with
// its own error text, uses no turn, and is reported by Check: a tool
// result whose call is not in the assistant turn before it, a call left
// without a result (OpenAI's "messages with role 'tool' must be a
// response to a preceeding message with 'tool_calls'", Anthropic's
// "unexpected `tool_use_id` found in `tool_result` blocks", Gemini's
// "function response turn comes immediately after a function call
// turn"), unknown roles. Anthropic combines consecutive turns of one role
// before checking, as its API does.
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
//	  - fault: {kind: status, status: 429, retry_after: "2", times: 2}  # both retries too
//	  - text: Retried.
//	    fault: {kind: disconnect, after: 3}   # also: error, malformed, stall
//	  - generate: all              # a call to each tool the request declares, its
//	                               # arguments from the tool's schema (see Generate);
//	                               # or [names], or {tools: [...], shape: edge, seed: 3}
//	  - fault: {kind: status, status: 529, always: true}  # every later request
//
// A call's id, when not given, is call_<turn>_<n> counted from 1; the
// arguments must be JSON unless raw: true, and default to {}.
package scripted
