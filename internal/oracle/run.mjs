// Runs the reference client's verifier and chunk expansion over streams.
//
// Input (stdin): JSON Lines, one stream per line, each a JSON array of events.
// Output (stdout): JSON Lines, one result per input line:
//   {"verify": {"ok": bool, "error": string, "passed": n},
//    "chunks": {"ok": bool, "error": string, "events": [...]},
//    "chunksVerify": {"ok": bool, "error": string, "passed": n}}
// "passed" counts the events that went through before the first error.
import { verifyEvents, transformChunks } from "@ag-ui/client";
import { from } from "rxjs";
import { createInterface } from "node:readline";

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";

function drive(events, ...ops) {
  const out = [];
  let error = "";
  let ok = true;
  let source = from(events);
  for (const op of ops) source = source.pipe(op);
  source.subscribe({
    next: (e) => out.push(e),
    error: (err) => {
      ok = false;
      error = String(err && err.message !== undefined ? err.message : err);
    },
  });
  return { ok, error, out };
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (line.trim() === "") continue;
  const events = JSON.parse(line);
  const v = drive(events, verifyEvents());
  const c = drive(events, transformChunks());
  const cv = drive(events, transformChunks(), verifyEvents());
  process.stdout.write(
    JSON.stringify({
      verify: { ok: v.ok, error: v.error, passed: v.out.length },
      chunks: { ok: c.ok, error: c.error, events: c.out },
      chunksVerify: { ok: cv.ok, error: cv.error, passed: cv.out.length },
    }) + "\n",
  );
}
