// The reference client's pipeline on a file of events, for the whole-
// process comparison of bench/verify: read the file, parse each line (JSON
// Lines) or data frame (SSE, split as parseSSEStream does), then
// enforceEvents, transformChunks and verifyEvents of @ag-ui/client 1.0.0.
// With --verify-only the enforcement and chunk stages are left out.
//
// Usage: node pipeline.mjs [--verify-only] FILE
// Prints one JSON object: events, error.
import { enforceEvents, transformChunks, verifyEvents } from "@ag-ui/client";
import { from } from "rxjs";
import { readFileSync } from "node:fs";

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";
const args = process.argv.slice(2);
const verifyOnly = args[0] === "--verify-only";
const file = args[args.length - 1];

const text = readFileSync(file, "utf8");
const events = [];
if (text.trimStart().startsWith("data:") || text.trimStart().startsWith(":")) {
  for (const frame of text.split(/\n\n/)) {
    const data = frame.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, ""));
    if (data.length > 0) events.push(JSON.parse(data.join("\n")));
  }
} else {
  for (const line of text.split("\n")) {
    if (line !== "") events.push(JSON.parse(line));
  }
}
let error = "";
let n = 0;
let source = from(events);
source = verifyOnly ? source.pipe(verifyEvents()) : source.pipe(enforceEvents(), transformChunks(), verifyEvents());
source.subscribe({
  next: () => { n++; },
  error: (e) => { error = String(e.message); },
});
process.stdout.write(JSON.stringify({ events: n, error }) + "\n");
