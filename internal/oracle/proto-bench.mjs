// Decodes a stream of protobuf frames with @ag-ui/proto's decode, as
// HttpAgent's parseProtoStream does frame by frame, and reports the time.
//
// Usage: node proto-bench.mjs FILE
// Output (stdout): {"events": n, "seconds": s, "error": string}
import { decode } from "@ag-ui/proto";
import { readFileSync } from "node:fs";

const data = new Uint8Array(readFileSync(process.argv[2]));
const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
let events = 0;
let error = "";
const start = process.hrtime.bigint();
try {
  for (let i = 0; i + 4 <= data.length; ) {
    const n = view.getUint32(i, false);
    decode(data.subarray(i + 4, i + 4 + n));
    events++;
    i += 4 + n;
  }
} catch (err) {
  error = String(err && err.message !== undefined ? err.message : err);
}
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
process.stdout.write(JSON.stringify({ events, seconds, error }) + "\n");
