// Package conform is a battery of scenarios any AG-UI server can take,
// whatever framework it is built on: each uses only what the protocol
// gives a client (a RunAgentInput posted, the events read back, the
// client's tools run, follow-ups and resumes posted on the thread), with
// the server's model client pointed at aguitest's scripted LLM. It is what
// "aguitest conform" runs; Cases gives the same battery to harness.Run for
// a Go test; and LoadCases reads the case files of "aguitest test", whose
// declarative checks are an Expect.
//
// # The battery
//
//	text                 text with multi-byte characters, cut mid-character, reaches the client verbatim
//	reasoning            reasoning, then text; the reasoning, if shown, verbatim
//	frontend-tool        a client's tool: exact arguments to the client, its result to the model in the next run
//	parallel-tools       three client calls interleaved round-robin: each whole, under its own id
//	tool-no-args         a client's tool that takes no arguments
//	chained-calls        a client call, then another made with its result: three runs
//	tool-error           a client's tool fails, posted as the frontend does (CopilotKit: "Error: ..."): its error reaches the model
//	tool-error-field     a client's tool fails, posted in the tool message's error field (the spec allows it; CopilotKit does not send it)
//	text-between-calls   text streamed between two calls' fragments: text and calls whole
//	state                the client's state comes back as it was sent
//	follow-up            a second user message: the model gets the whole conversation
//	provider-500         the model answers 500, every time: RUN_ERROR, in time
//	provider-429         the model answers 429 with Retry-After, every time: RUN_ERROR, in time
//	provider-disconnect  the model's stream breaks off inside a call: RUN_ERROR, in time
//	provider-malformed   the model's stream holds a chunk that is not JSON: RUN_ERROR, in time
//	client-disconnect    the client leaves mid-run, then asks again: the new run is answered
//	backend-tool/NAME    a tool of the server's own (Config.Tools): run by the server, shown to the client
//	backend-calls        two calls to the server's own tools in one turn: each result under a message id of its own
//	text-after-calls     text after a call of the server's first tool, then the next step's text: two messages
//	interrupt/NAME       a tool the server asks the user about (Config.Interrupts): resumed and run
//	generated-call/NAME  each tool the server declares to its model, called with arguments generated from its schema
//
// Every scenario checks, besides what its line says, what holds for any
// server: each run passes the verifier under Config.Profile (Strict by
// default: the reference client's rules and a stream that ends), no run
// takes longer than Config.Timeout, every request the model gets is one
// the script answers and every scripted answer is asked for, a RUN_ERROR
// comes only where the model failed, and what the model said reaches the
// client: each call exactly once with its name and exact arguments (as
// JSON values), the text verbatim and in order, no message holding the
// text of two of the model's turns. Call ids are the server's to choose,
// so the model's requests are checked by what their results say.
//
// With Config.Explore, each scenario that streams a model's answer also
// runs under other plans of its script (harness.Explore): every plan must
// verify, pass the fidelity checks and leave the client with the same
// view; a failing plan is shrunk. The provider failures and
// client-disconnect are not explored: their point is a stream cut where
// the script cuts it.
//
// The scripted LLM serves every provider wire (OpenAI Chat Completions and
// Responses, Anthropic Messages, Gemini) from one base URL. A scenario
// whose plan the server's wire cannot carry (interleaved calls on Gemini)
// is reported as skipped, with the reason.
//
// # Typical use
//
//	rep := conform.Run(ctx, harness.Command("node", "server.js"), conform.Config{
//		Tools: []conform.ServerTool{{Name: "get_weather", Args: json.RawMessage(`{"city":"Paris"}`)}},
//	})
//	rep.WriteJSON(os.Stdout, false)
//
// or, in a Go test:
//
//	harness.Run(t, agent, conform.Cases(conform.Config{}))
//
// A case file (LoadCases; its JSON Schema is Schema) holds harness cases
// for an agent in any language:
//
//	f, err := conform.LoadCases("cases.yaml")
//	...
//	o := harness.Options{Dir: f.GoldenDir()}
//	reports := o.TestAll(ctx, harness.Command("python", "server.py"), f.Cases)
//
// # Failures
//
// A Result lists the harness's problems (causes first: a RUN_ERROR not
// expected, a run that failed or timed out) and then what the scenario's
// checks found, each saying what the client or the model got and what was
// wanted; Notes say what the checks saw without fault ("the client was
// shown no reasoning"). A server that cannot be started stops the battery
// (Report.Err).
package conform
