// Applies JSON Patches with fast-json-patch as @ag-ui/client applies
// STATE_DELTA and ACTIVITY_DELTA: applyPatch(doc, patch, true, false), the
// CommonJS build that Node loads for the client's default import.
//
// Input (stdin): JSON Lines, one case per line: {"doc": any, "patch": any}.
// Output (stdout): JSON Lines, one result per case:
//   {"ok": true, "result": any}      the patched document
//   {"ok": true, "undefined": true}  the patch leaves no document
//   {"ok": true, "clone": false}     the result holds a function, which the
//                                    client cannot structuredClone
//   {"ok": true, "cycle": true}      the result cannot be written as JSON
//   {"ok": false, "name": string}    the patch throws (JsonPatchError name,
//                                    or the constructor name)
import jsonpatch from "fast-json-patch";
import { createInterface } from "node:readline";

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (line.trim() === "") continue;
  const { doc, patch } = JSON.parse(line);
  let out;
  try {
    const result = jsonpatch.applyPatch(doc, patch, true, false).newDocument;
    if (result === undefined) {
      out = { ok: true, undefined: true };
    } else {
      try {
        structuredClone(result);
        out = { ok: true, result };
        JSON.stringify(out);
      } catch (err) {
        out = err?.name === "DataCloneError" ? { ok: true, clone: false } : { ok: true, cycle: true };
      }
    }
  } catch (err) {
    out = { ok: false, name: err?.name ?? err?.constructor?.name ?? String(err) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
