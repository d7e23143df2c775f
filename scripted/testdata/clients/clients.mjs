// Reads streamed turns from scripted servers with the real npm clients and
// prints what each client assembled, for scripted/clients_node_test.go.
//
// Standard input: a JSON array of cases {id, client, url, retries}. Standard
// output: one JSON line per case, in order:
//   {id, text, reasoning, calls: [{id, name, args, input}], finish, error}
// where args is the arguments text as the client assembled it from the
// stream (when it keeps it), input the parsed arguments re-encoded, and
// error {name, status, type, message} when the client failed.
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { streamText, jsonSchema, tool, stepCountIs } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";

const prompt = "weather?";

// The AI SDK's warnings go to standard error, keeping standard output to
// the results.
globalThis.AI_SDK_LOG_WARNINGS = (w) => console.error("AI SDK warning:", JSON.stringify(w));

// The tools the scripted turns call; the AI SDK needs them declared.
const schema = jsonSchema({ type: "object", additionalProperties: true });
const tools = {
  get_weather: tool({ description: "weather", inputSchema: schema }),
  search: tool({ description: "search", inputSchema: schema }),
  noop: tool({ description: "noop", inputSchema: schema }),
};

function result() {
  return { text: "", reasoning: "", calls: [], finish: "" };
}

function errorOf(e) {
  const err = {
    name: e?.constructor?.name ?? typeof e,
    message: String(e?.message ?? e),
  };
  // The SDKs' API errors: status and the provider's error type.
  const status = e?.status ?? e?.statusCode ?? e?.lastError?.statusCode;
  if (status !== undefined) err.status = status;
  const type = e?.error?.error?.type ?? e?.error?.type ?? e?.type;
  if (typeof type === "string") err.type = type;
  const body = e?.responseBody ?? e?.lastError?.responseBody;
  if (typeof body === "string") err.body = body;
  if (e?.reason) err.reason = e.reason;
  return err;
}

const clients = {
  // openai: the Responses stream helper. args is the snapshot the SDK
  // accumulated from the deltas, before the done events replace it.
  async "openai-responses"(url, retries) {
    const client = new OpenAI({ baseURL: url, apiKey: "test", maxRetries: retries });
    const r = result();
    const snapshots = {};
    const stream = client.responses.stream({ model: "gpt-test", input: prompt });
    stream.on("response.function_call_arguments.delta", (e) => {
      snapshots[e.item_id] = e.snapshot;
    });
    const final = await stream.finalResponse();
    r.finish = final.status;
    for (const item of final.output) {
      if (item.type === "message") {
        for (const c of item.content) r.text += c.text ?? "";
      } else if (item.type === "reasoning") {
        for (const s of item.summary) r.reasoning += s.text;
      } else if (item.type === "function_call") {
        r.calls.push({ id: item.call_id, name: item.name, args: snapshots[item.id] ?? "", input: item.arguments });
      }
    }
    if (final.output_text !== r.text) throw new Error(`output_text ${JSON.stringify(final.output_text)} differs from the text`);
    return r;
  },

  // @anthropic-ai/sdk: the messages stream and its final message. args is
  // the raw JSON the SDK accumulated for each tool_use block.
  async anthropic(url, retries) {
    const client = new Anthropic({ baseURL: url, apiKey: "test", maxRetries: retries });
    const r = result();
    const stream = client.messages.stream({ model: "claude-test", max_tokens: 1024, messages: [{ role: "user", content: prompt }] });
    const msg = await stream.finalMessage();
    r.finish = msg.stop_reason;
    for (const b of msg.content) {
      if (b.type === "text") r.text += b.text;
      else if (b.type === "thinking") r.reasoning += b.thinking;
      else if (b.type === "tool_use") r.calls.push({ id: b.id, name: b.name, args: b.__json_buf ?? "", input: JSON.stringify(b.input) });
    }
    return r;
  },

  // @google/genai: the content stream; calls arrive whole, as objects.
  async "google-genai"(url) {
    const ai = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: url } });
    const r = result();
    const stream = await ai.models.generateContentStream({ model: "gemini-test", contents: prompt });
    for await (const chunk of stream) {
      const cand = chunk.candidates?.[0];
      if (cand?.finishReason) r.finish = cand.finishReason;
      for (const p of cand?.content?.parts ?? []) {
        if (p.functionCall) r.calls.push({ id: p.functionCall.id, name: p.functionCall.name, args: "", input: JSON.stringify(p.functionCall.args) });
        else if (p.thought) r.reasoning += p.text ?? "";
        else r.text += p.text ?? "";
      }
    }
    return r;
  },

  // ai + @ai-sdk/openai: the default OpenAI model, on the Responses API.
  async "ai-openai"(url, retries) {
    return aiStream(createOpenAI({ baseURL: url, apiKey: "test" })("gpt-test"), retries);
  },

  // ai + @ai-sdk/anthropic.
  async "ai-anthropic"(url, retries) {
    return aiStream(createAnthropic({ baseURL: url, apiKey: "test" })("claude-test"), retries);
  },
};

// aiConversation runs two steps with the AI SDK: the model calls
// get_weather, the SDK runs it and sends the result back.
async function aiConversation(model, retries) {
  const r = result();
  const res = streamText({
    model,
    system: "Be brief.",
    prompt,
    maxRetries: retries,
    tools: { get_weather: tool({ description: "weather", inputSchema: schema, execute: async () => "sunny" }) },
    stopWhen: stepCountIs(2),
  });
  for await (const part of res.fullStream) {
    if (part.type === "text-delta") r.text += part.text;
    if (part.type === "reasoning-delta") r.reasoning += part.text;
    if (part.type === "finish") r.finish = part.finishReason;
    if (part.type === "error") throw part.error;
  }
  return r;
}

clients["ai-openai-conversation"] = (url, retries) => aiConversation(createOpenAI({ baseURL: url, apiKey: "test" })("gpt-test"), retries);
clients["ai-anthropic-conversation"] = (url, retries) => aiConversation(createAnthropic({ baseURL: url, apiKey: "test" })("claude-test"), retries);

// aiStream reads the AI SDK's full stream. args joins the tool-input-delta
// parts of a call; input is the tool-call part's parsed input.
async function aiStream(model, retries) {
  const r = result();
  const res = streamText({ model, prompt, tools, maxRetries: retries });
  const deltas = {};
  let error;
  for await (const part of res.fullStream) {
    switch (part.type) {
      case "text-delta":
        r.text += part.text;
        break;
      case "reasoning-delta":
        r.reasoning += part.text;
        break;
      case "tool-input-start":
        deltas[part.id] = "";
        break;
      case "tool-input-delta":
        deltas[part.id] = (deltas[part.id] ?? "") + part.delta;
        break;
      case "tool-call":
        r.calls.push({ id: part.toolCallId, name: part.toolName, args: deltas[part.toolCallId] ?? "", input: JSON.stringify(part.input) });
        break;
      case "finish":
        r.finish = part.finishReason;
        break;
      case "error":
        error ??= part.error;
        break;
    }
  }
  if (error) throw error;
  return r;
}

let input = "";
for await (const chunk of process.stdin) input += chunk;
for (const c of JSON.parse(input)) {
  const run = clients[c.client];
  let out;
  if (!run) {
    out = { error: { name: "Error", message: `unknown client ${c.client}` } };
  } else {
    try {
      out = await run(c.url, c.retries ?? 0);
    } catch (e) {
      out = { error: errorOf(e) };
    }
  }
  process.stdout.write(JSON.stringify({ id: c.id, ...out }) + "\n");
}
