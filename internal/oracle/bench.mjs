// Times the reference verifier on a JSON Lines stream of events.
// Usage: node bench.mjs FILE
// Prints one JSON object: events, parseAndVerifySeconds, verifySeconds, error.
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

t0 = process.hrtime.bigint();
error = verify(events) || error;
const verifyOnly = Number(process.hrtime.bigint() - t0) / 1e9;

process.stdout.write(JSON.stringify({ events: events.length, parseAndVerifySeconds: parseAndVerify, verifySeconds: verifyOnly, error }) + "\n");
