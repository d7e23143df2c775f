// An AG-UI agent in TypeScript: it answers a POSTed RunAgentInput with a
// server-sent event stream, built on the official @ag-ui/core types and
// @ag-ui/encoder, and asks an OpenAI-compatible model with the openai
// client. Its model is wherever OPENAI_BASE_URL points; it listens on PORT.
//
// Text is streamed as TEXT_MESSAGE_*; tool calls are streamed as they
// arrive, interleaved on the wire with distinct ids, and left open for the
// client to run (no TOOL_CALL_RESULT): the client posts the next run with
// the results as tool messages.
import http from "node:http";
import OpenAI from "openai";
import { EventType, type BaseEvent, type Message, type RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { EventEncoder } from "@ag-ui/encoder";

const client = new OpenAI({
  baseURL: process.env.OPENAI_BASE_URL,
  apiKey: process.env.OPENAI_API_KEY ?? "unused",
  maxRetries: 0,
});
const port = Number(process.env.PORT ?? "8000");

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

function toChat(messages: Message[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "user":
        out.push({ role: "user", content: typeof m.content === "string" ? m.content : JSON.stringify(m.content) });
        break;
      case "system":
      case "developer":
        out.push({ role: m.role, content: typeof m.content === "string" ? m.content : JSON.stringify(m.content) });
        break;
      case "assistant":
        out.push({
          role: "assistant",
          content: m.content ?? null,
          ...(m.toolCalls && m.toolCalls.length > 0
            ? {
                tool_calls: m.toolCalls.map((c) => ({
                  id: c.id,
                  type: "function" as const,
                  function: { name: c.function.name, arguments: c.function.arguments },
                })),
              }
            : {}),
        });
        break;
      case "tool":
        out.push({
          role: "tool",
          tool_call_id: m.toolCallId,
          content: m.error ? `error: ${m.error}` : typeof m.content === "string" ? m.content : JSON.stringify(m.content),
        });
        break;
    }
  }
  return out;
}

async function run(input: RunAgentInput, send: (e: BaseEvent) => void): Promise<void> {
  send({ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId } as BaseEvent);
  const messageId = `msg-${input.runId}`;
  try {
    const stream = await client.chat.completions.create({
      model: "scripted",
      stream: true,
      messages: toChat(input.messages),
      ...(input.tools.length > 0
        ? {
            tools: input.tools.map((t) => ({
              type: "function" as const,
              function: { name: t.name, description: t.description, parameters: t.parameters },
            })),
          }
        : {}),
    });
    let textOpen = false;
    // Calls are keyed by their index, or by their id on a stream that
    // sends no index (some OpenAI-compatible servers put the id on every
    // delta instead).
    const calls = new Map<number | string, string>();
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (delta.content) {
        if (!textOpen) {
          textOpen = true;
          send({ type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" } as BaseEvent);
        }
        send({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: delta.content } as BaseEvent);
      }
      for (const tc of delta.tool_calls ?? []) {
        const key = tc.index ?? tc.id ?? "";
        let id = calls.get(key);
        if (id === undefined) {
          id = tc.id ?? `${input.runId}-call-${calls.size}`;
          calls.set(key, id);
          send({
            type: EventType.TOOL_CALL_START,
            toolCallId: id,
            toolCallName: tc.function?.name ?? "",
            parentMessageId: messageId,
          } as BaseEvent);
        }
        if (tc.function?.arguments) {
          send({ type: EventType.TOOL_CALL_ARGS, toolCallId: id, delta: tc.function.arguments } as BaseEvent);
        }
      }
    }
    if (textOpen) send({ type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent);
    for (const id of calls.values()) send({ type: EventType.TOOL_CALL_END, toolCallId: id } as BaseEvent);
    send({ type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId } as BaseEvent);
  } catch (err) {
    send({ type: EventType.RUN_ERROR, message: err instanceof Error ? err.message : String(err) } as BaseEvent);
  }
}

const server = http.createServer(async (req, res) => {
  if (req.method !== "POST") {
    res.writeHead(405).end();
    return;
  }
  let body = "";
  for await (const chunk of req) body += chunk;
  let input: RunAgentInput;
  try {
    input = RunAgentInputSchema.parse(JSON.parse(body));
  } catch (err) {
    res.writeHead(400, { "Content-Type": "text/plain" }).end(String(err));
    return;
  }
  const encoder = new EventEncoder({ accept: req.headers.accept });
  res.writeHead(200, { "Content-Type": encoder.getContentType(), "Cache-Control": "no-cache" });
  // encodeBinary writes the negotiated encoding (protobuf frames when the
  // Accept header admits them); encode would write server-sent events under
  // a protobuf Content-Type.
  await run(input, (e) => res.write(encoder.encodeBinary(e)));
  res.end();
});

server.listen(port, "127.0.0.1");
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
