// Runs the reference client's HttpAgent against an AG-UI endpoint.
//
// Usage: node replay-client.mjs URL [THREAD_ID] [RUN_ID]
// Output (stdout): one JSON object:
//   {"ok": bool, "error": string, "messages": [...], "events": ["TYPE", ...]}
// where messages are agent.messages after the run and events the types the
// client's subscriber saw, in order.
import { HttpAgent } from "@ag-ui/client";

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";

const [url, threadId = "thread-1", runId] = process.argv.slice(2);
const agent = new HttpAgent({ url, threadId });
const events = [];
let ok = true;
let error = "";
try {
  await agent.runAgent(runId ? { runId } : {}, {
    onEvent: ({ event }) => {
      events.push(event.type);
    },
  });
} catch (err) {
  ok = false;
  error = String(err && err.message !== undefined ? err.message : err);
}
process.stdout.write(JSON.stringify({ ok, error, messages: agent.messages, events }) + "\n");
