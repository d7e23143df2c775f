// Runs the reference protobuf codec (@ag-ui/encoder, @ag-ui/proto) over
// events and frames.
//
// Input (stdin): JSON Lines, each {"event": <event>} or {"frame": <base64>}.
// Output (stdout): JSON Lines, one result per input line:
//   for an event: {"frame": base64 of EventEncoder.encodeProtobuf (length
//     prefix included) or null, "encodeError": string, "warned": bool
//     (the encoder warned that the schema rejected the event),
//     "decoded": JSON.stringify(decode(message)) or null, "decodeError": string}
//   for a frame (a message without its prefix):
//     {"decoded": ..., "decodeError": string, "future": bool}
// "future" says decode threw AGUIUnknownEventTypeError (the client drops
// such frames).
import { EventEncoder } from "@ag-ui/encoder";
import { decode, AGUIUnknownEventTypeError } from "@ag-ui/proto";
import { createInterface } from "node:readline";

let warned = false;
console.warn = () => {
  warned = true;
};

const encoder = new EventEncoder({ accept: "application/vnd.ag-ui.event+proto" });

function tryDecode(message) {
  try {
    return { decoded: JSON.stringify(decode(message)), decodeError: "", future: false };
  } catch (err) {
    return {
      decoded: null,
      decodeError: String(err && err.message !== undefined ? err.message : err),
      future: err instanceof AGUIUnknownEventTypeError,
    };
  }
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (line.trim() === "") continue;
  const input = JSON.parse(line);
  if (input.frame !== undefined) {
    process.stdout.write(JSON.stringify(tryDecode(new Uint8Array(Buffer.from(input.frame, "base64")))) + "\n");
    continue;
  }
  warned = false;
  let frame = null;
  let encodeError = "";
  try {
    frame = encoder.encodeProtobuf(input.event);
  } catch (err) {
    encodeError = String(err && err.message !== undefined ? err.message : err);
  }
  const out = { frame: null, encodeError, warned };
  if (frame !== null) {
    out.frame = Buffer.from(frame).toString("base64");
    Object.assign(out, tryDecode(frame.subarray(4)));
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
