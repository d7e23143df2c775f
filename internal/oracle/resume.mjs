// Runs the reference client's HttpAgent through an interrupt: a first run
// against an AG-UI endpoint that finishes with the outcome "interrupt",
// then the next run without a resume (which the client must refuse), then
// with the given resume entries, recording the body the client posts.
//
// Usage: node resume.mjs URL RESUME_JSON
// Output (stdout): one JSON object:
//   {"pending": [...], "refused": string, "ok": bool, "error": string,
//    "posted": RunAgentInput, "messages": [...]}
// where pending are agent.pendingInterrupts after the first run, refused
// the error of the run without a resume (or ""), posted the body of the
// run with the resume entries, and messages agent.messages after it.
import { HttpAgent } from "@ag-ui/client";

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";

const [url, resumeJSON] = process.argv.slice(2);
let posted;
const agent = new HttpAgent({
  url,
  threadId: "thread-1",
  fetch: async (u, init) => {
    posted = JSON.parse(init.body);
    return fetch(u, init);
  },
});
const message = (err) => String(err && err.message !== undefined ? err.message : err);

agent.addMessage({ id: "user-1", role: "user", content: "Delete notes.txt." });
await agent.runAgent({ runId: "run-1" });
const pending = structuredClone(agent.pendingInterrupts);
let refused = "";
try {
  await agent.runAgent({ runId: "run-2" });
} catch (err) {
  refused = message(err);
}
let ok = true;
let error = "";
try {
  await agent.runAgent({ runId: "run-2", resume: JSON.parse(resumeJSON) });
} catch (err) {
  ok = false;
  error = message(err);
}
process.stdout.write(JSON.stringify({ pending, refused, ok, error, posted, messages: agent.messages }) + "\n");
