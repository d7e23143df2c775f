// Runs the reference client's whole pipeline, HttpAgent of @ag-ui/client, on
// exact response bytes served over real HTTP from this process.
//
// Input (stdin): JSON Lines, one case per line:
//   {"body": base64, "status": 200, "contentType": "text/event-stream",
//    "messages": [...], "state": any, "tools": [...], "threadId": "t",
//    "runId": "r"}
// Every field but body is optional; status defaults to 200 and contentType
// to "text/event-stream" (null sends no Content-Type). messages and state
// are the agent's history and state before the run (initialMessages,
// initialState).
// Output (stdout): JSON Lines, one result per case:
//   {"ok": bool, "error": string, "name": string, "issues": [...],
//    "events": ["TYPE", ...], "messages": [...], "state": any,
//    "warnings": ["...", ...]}
// error and name are the rejection's message and constructor name; issues
// are zod's issues when the rejection is a schema error; events are the
// types the subscriber saw, in order; messages and state are agent.messages
// and agent.state after the run; warnings are the client's console.warn
// texts during the run, in order (its deviation, compatibility and apply
// warnings: what it strips, drops, translates or cannot apply).
//
// The client is the @ag-ui/client installed under the working directory
// (internal/oracle for 1.0.0, internal/oracle/v0.0.59 for 0.0.59), so one
// script runs every pinned version.
import { createServer } from "node:http";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const { HttpAgent } = await import(
  pathToFileURL(join(process.cwd(), "node_modules", "@ag-ui", "client", "dist", "index.mjs")).href
);

delete process.env.SUPPRESS_TRANSFORMATION_WARNINGS;
let warnings = [];
console.warn = (...args) => {
  warnings.push(args.map((a) => (typeof a === "string" ? a : String(a))).join(" "));
};
console.error = () => {};
console.log = () => {};
console.info = () => {};
console.debug = () => {};

let current = null;
const server = createServer((req, res) => {
  // Drain the request, then answer with the case's exact bytes.
  req.on("data", () => {});
  req.on("end", () => {
    const c = current;
    const headers = {};
    if (c.contentType !== null) headers["Content-Type"] = c.contentType ?? "text/event-stream";
    res.writeHead(c.status ?? 200, headers);
    res.end(Buffer.from(c.body ?? "", "base64"));
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/agent`;

// Some failures are reported by the pipeline only to the host (an exception
// thrown inside a subscriber callback); they must not end this process.
process.on("uncaughtException", () => {});
process.on("unhandledRejection", () => {});

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (line.trim() === "") continue;
  current = JSON.parse(line);
  const agent = new HttpAgent({
    url,
    threadId: current.threadId ?? "thread-1",
    initialMessages: current.messages ?? [],
    initialState: current.state ?? {},
  });
  const events = [];
  warnings = [];
  let ok = true;
  let error = "";
  let name = "";
  let issues;
  try {
    await agent.runAgent(
      { runId: current.runId ?? "run-1", tools: current.tools ?? [] },
      { onEvent: ({ event }) => { events.push(event.type); } },
    );
  } catch (err) {
    ok = false;
    name = err?.constructor?.name ?? typeof err;
    error = String(err && err.message !== undefined ? err.message : err);
    if (Array.isArray(err?.issues)) {
      issues = err.issues.map((i) => ({ code: i.code, path: i.path, message: i.message }));
    }
  }
  process.stdout.write(
    JSON.stringify({ ok, error, name, issues, events, messages: agent.messages, state: agent.state, warnings }) + "\n",
  );
}
server.close();
