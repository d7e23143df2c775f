// Runs the reference client's HttpAgent against an AG-UI endpoint several
// times, each run with a fresh agent, asking for the given media type.
//
// Usage: node replay-runs.mjs URL N [ACCEPT]
// Output (stdout): JSON Lines, one per run:
//   {"ok": bool, "error": string, "contentType": string, "messages": [...],
//    "state": ..., "events": ["TYPE", ...]}
// HttpAgent always sends "Accept: text/event-stream"; with ACCEPT its fetch
// replaces that header, as a client asking for protobuf would.
import { HttpAgent } from "@ag-ui/client";

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";

const [url, n, accept] = process.argv.slice(2);
for (let i = 0; i < Number(n); i++) {
  let contentType = "";
  const agent = new HttpAgent({
    url,
    threadId: "thread-1",
    fetch: async (u, init) => {
      const headers = new Headers(init.headers);
      if (accept) headers.set("Accept", accept);
      const res = await fetch(u, { ...init, headers });
      contentType = res.headers.get("content-type") ?? "";
      return res;
    },
  });
  const events = [];
  let ok = true;
  let error = "";
  try {
    await agent.runAgent({}, { onEvent: ({ event }) => events.push(event.type) });
  } catch (err) {
    ok = false;
    error = String(err && err.message !== undefined ? err.message : err);
  }
  process.stdout.write(
    JSON.stringify({ ok, error, contentType, messages: agent.messages, state: agent.state, events }) + "\n",
  );
}
