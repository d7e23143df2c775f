// Times the reference verifier on a JSON Lines stream of events.
// Usage: node bench.mjs FILE
// Prints one JSON object: events, parseAndVerifySeconds (one pass from the
// file), verifySeconds (best of three passes over parsed events), error.
import { verifyEvents } from "@ag-ui/client";
import { from } from "rxjs";
import { readFileSync } from "node:fs";

const file = process.argv[2];

function verify(events) {
  let error = "";
  from(events).pipe(verifyEvents()).subscribe({
    next: () => {},
    error: (e) => { error = String(e.message); },
  });
  return error;
}

let t0 = process.hrtime.bigint();
const text = readFileSync(file, "utf8");
const events = [];
for (const line of text.split("\n")) {
  if (line !== "") events.push(JSON.parse(line));
}
let error = verify(events);
const parseAndVerify = Number(process.hrtime.bigint() - t0) / 1e9;

// Verify only: the best of three passes over the parsed events.
let verifyOnly = Infinity;
for (let i = 0; i < 3; i++) {
  t0 = process.hrtime.bigint();
  error = verify(events) || error;
  verifyOnly = Math.min(verifyOnly, Number(process.hrtime.bigint() - t0) / 1e9);
}

process.stdout.write(JSON.stringify({ events: events.length, parseAndVerifySeconds: parseAndVerify, verifySeconds: verifyOnly, error }) + "\n");
