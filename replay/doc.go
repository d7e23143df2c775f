// Package replay reads recordings made by package recorder and plays them
// back offline.
//
//   - Runs streams a recording run by run (memory holds the runs in
//     progress, not the file); Load and Read keep a whole recording.
//   - Server (NewServer, or Handler to mount) serves recorded runs as an
//     AG-UI endpoint: each POST gets a run's events in the encoding its Accept header asks for (server-sent
//     events or protobuf), with the recorded timing, scaled, or as fast as
//     possible ("aguitest serve FILE").
//   - Provider serves a run's recorded LLM provider exchanges as a fake
//     LLM, on every provider wire (OpenAI Chat Completions and Responses,
//     Anthropic Messages, Gemini), strictly in order within each wire: a
//     request that differs from the recorded one gets an error in its
//     wire's shape naming the difference (-want +got), and Check reports
//     it along with exchanges never requested. Re-run a new build of an
//     agent against exactly what the model said in production, then
//     compare its output with the recorded output using Diff. "aguitest
//     llm replay RECORDING" does the same for an agent in any language.
//
// # Typical usage
//
//	rec, err := replay.Load("prod/run-42.jsonl")
//	...
//	llm := replay.NewProvider(rec.Exchanges(), replay.ProviderOptions{})
//	defer llm.Close()
//	got := runAgent(llm.URL + "/v1") // the new build, its LLM client pointed at the replay
//	if err := llm.Check(); err != nil { ... }
//	if d := replay.Diff(rec.Runs[0].AGUIEvents(), got); d != "" { ... }
//
// Server and Provider have the shape of every fake server of aguitest (as
// scripted.Server has): NewServer and NewProvider start one on a loopback
// port (Listen and ListenProvider take an address and return an error),
// URL locates it, Close stops it and waits for its goroutines, and Check
// reports what was left unused and every request that could not be
// served. Handler and ProviderHandler make one to mount on a server of
// one's own. Both are safe for concurrent use.
//
// The servers are for a developer's machine: Server answers no web page
// unless Options.AllowOrigins names its origin (recordings hold production
// traffic), and both refuse request bodies over a limit
// (Options.MaxRequestBytes, ProviderOptions.MaxRequestBytes) with 413. A
// run whose recording is incomplete (Run.Incomplete, Run.Gaps) is served
// as recorded.
package replay
