// Package recorder captures AG-UI runs, in tests and in production, into
// recordings that package replay reads, verifies and serves offline.
//
// Four ways in, one format out:
//
//   - Sink: a Go agent, or a harness driving one, emits events into it.
//   - Middleware: wraps any AG-UI http.Handler in production and records
//     each request and its response, server-sent events or protobuf
//     frames, as events.
//   - Proxy: the same, as a reverse proxy in front of an AG-UI server in
//     any language (the "aguitest record" command).
//   - Transport: an http.RoundTripper for the agent's LLM client, recording
//     the provider's streamed responses chunk by chunk, on any wire
//     (OpenAI, Anthropic, Gemini), so the model side of a run can be
//     replayed too; ProviderProxy puts it in a reverse proxy in front of a
//     provider, for an agent in any language ("aguitest llm record"), and
//     WithSink files a request's exchange under a Sink's run.
//
// # Typical usage
//
//	h := recorder.Middleware(agentHandler, recorder.Config{
//		Dir:    "/var/lib/agent/recordings",
//		Sample: recorder.Fraction(0.05, nil),
//		Redact: recorder.Redact{Pointers: []string{"/forwardedProps/user/email"}},
//	})
//	http.Handle("/agent", h)
//	llm := &http.Client{Transport: &recorder.Transport{}} // pass r.Context() to its requests
//
// # What the middleware promises
//
// The client's stream is never changed, delayed or broken by recording:
// every Write and every flush goes through at once (http.Flusher and
// http.ResponseController both work), and the bytes are copied into a
// bounded per-run buffer that a goroutine parses and writes. When storage
// falls behind, what does not fit is dropped and counted, and a gap record
// marks where; when it fails, the run's recording stops (a file that would
// hold nothing is removed). Both show in Handler.Stats, and a failure is
// reported (Config.OnError, or slog.Default at level Error when that is
// nil). Middleware creates Config.Dir, and says so at once when it cannot.
// A client going away mid-stream is recorded as "client_gone". A response
// compressed for the client (gzip, deflate) is recorded as the client
// decodes it.
//
// A recording that does not hold the whole response (bytes dropped, the
// size limit reached, an encoding the recorder does not decode: see
// End.Incomplete; or no end record at all, storage having failed) says
// nothing about how the agent's stream ended: "aguitest verify" and
// "aguitest show" report such a run as an incomplete recording, apart from
// the agent's violations.
//
// # Redaction
//
// By default (the zero Redact) nothing a user would not want written
// reaches a recording: credential headers are dropped (Authorization,
// Cookie, Set-Cookie, X-Api-Key and any name shaped like a credential:
// ...-Key, ...-Token, ...Secret...), and credentials named as such (query
// parameters, JSON members, JSON Patch values, form fields, name=value in
// text, names matched by their shape: password, DB_PASSWORD, apiKeys,
// sessionId, ...), URL userinfo and credentials of known shapes are
// replaced by "[REDACTED]" wherever they appear: request path, headers
// and body, events, recorded data, provider URLs, headers both ways,
// bodies and response chunks, error messages. The shapes are rules kept
// as data (see Rule): gitleaks' ruleset, vendored in rules/ with its
// license, and the recorder's own rules in the same schema for the
// formats gitleaks lacks (LLM providers, mostly) and keys glued to other
// text. A key a stream sends in pieces (a message's deltas, a call's
// arguments, a provider's text deltas) is found too: see Redact.
// Redact.Off turns a default or a rule off by name (see Defaults and
// Rules), Redact.Keep spares a name, and Pointers, Patterns, Headers and
// Rules (ParseRules reads a gitleaks configuration) add rules. The
// client, the agent and the provider always see the original bytes.
//
// # The format
//
// A recording is JSON Lines: one self-contained record per line, each with
// a "kind". The first line is the header, which carries the format version.
// Every other record names its "run", so several runs may share a file,
// interleaved; "us" is the offset in microseconds from the run's request.
//
//	header    {"kind":"header","format":"aguitest-recording","version":1,"created":...,"source":...}
//	request   {"kind":"request","run":R,"request":{"time","method","path","headers","input"}}
//	event     {"kind":"event","run":R,"us":N,"event":<the event's JSON, byte for byte>}
//	          {"kind":"event","run":R,"us":N,"data":"<SSE data that is not a one-line JSON object>"}
//	          {"kind":"event","run":R,"us":N,"event":<JSON form>,"frame":"<base64 protobuf message>"}
//	          (a protobuf frame its JSON form does not hold whole; without "event", one holding no event)
//	provider  {"kind":"provider","run":R,"us":N,"provider":{"method","url","headers","body",
//	          "status","responseHeaders","chunks":[{"us":N,"data":"..."} or {"us":N,"b64":"..."}],"error"}}
//	gap       {"kind":"gap","run":R,"us":N,"gap":{"bytes":N}}   (response bytes storage had no room for)
//	end       {"kind":"end","run":R,"us":N,"end":{"outcome","status","contentType","contentEncoding","bytes","events",
//	          "dropped","limited","undecoded","error"}}
//
// The outcome is "finished" (the last event was RUN_FINISHED), "error"
// (RUN_ERROR), "truncated" (neither) or "client_gone". A provider
// exchange's chunk offsets count from the exchange's start. An example, as
// in testdata/weather.jsonl (lines shortened):
//
//	{"kind":"header","format":"aguitest-recording","version":1,"created":"2026-11-29T10:00:00Z","source":"middleware"}
//	{"kind":"request","run":"run-1","request":{"method":"POST","path":"/agent","input":{"threadId":"thread-1","runId":"run-1",...}}}
//	{"kind":"provider","run":"run-1","us":1200,"provider":{"method":"POST","url":"https://llm.example/v1/chat/completions","status":200,"chunks":[{"us":90000,"data":"data: {...}\n\n"},...]}}
//	{"kind":"event","run":"run-1","us":1500,"event":{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}}
//	{"kind":"event","run":"run-1","us":91200,"event":{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Sunny, "}}
//	...
//	{"kind":"event","run":"run-1","us":151000,"event":{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}}
//	{"kind":"end","run":"run-1","us":151200,"end":{"outcome":"finished","status":200,"bytes":1032,"events":10}}
//
// It reads well with jq: jq -c 'select(.kind=="event") | .event' rec.jsonl.
//
// The file is append-only and each record is written with one write call,
// so a crash (even kill -9) leaves whole records followed by at most one
// cut line. The Reader streams with memory flat in the file's size, names
// every problem as file:line, reports a cut last line as truncation (an
// error wrapping ErrTruncated, after everything before it), reports a
// corrupt line and goes on, keeps records of unknown kinds (Record.Raw), and
// refuses a newer format version with a clear error.
//
// # Concurrency
//
// A Writer, a Sink, a Transport and the Handler made by Middleware or Proxy
// are safe for concurrent use; many runs may share one Writer. A Reader
// belongs to one goroutine at a time.
package recorder
