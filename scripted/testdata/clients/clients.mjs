// Reads streamed turns from scripted servers with the real npm clients and
// prints what each client assembled, for scripted/clients_node_test.go.
//
// Standard input: JSON Lines, one case a line {id, client, url, retries}.
// Standard output: one JSON line per case, in order, as each is done:
//   {id, text, reasoning, calls: [{id, name, args, input}], finish, error}
// where args is the arguments text as the client assembled it from the
// stream (when it keeps it), input the parsed arguments re-encoded, and
// error {name, status, type, message} when the client failed.
import OpenAI, { AzureOpenAI } from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { streamText, jsonSchema, tool, stepCountIs } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { BedrockRuntimeClient, ConverseStreamCommand } from "@aws-sdk/client-bedrock-runtime";
import { OAuth2Client } from "google-auth-library";
import { Ollama } from "ollama";
import { createInterface } from "node:readline";

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
  const status = e?.status ?? e?.statusCode ?? e?.lastError?.statusCode ?? e?.$metadata?.httpStatusCode ?? e?.status_code;
  if (status !== undefined) err.status = status;
  // The AWS SDK names an error by its exception; ollama's is its text.
  const type = e?.error?.error?.type ?? e?.error?.type ?? e?.type ?? (e?.$metadata ? e.name : undefined) ?? (typeof e?.error === "string" ? e.error : undefined) ?? (typeof e?.code === "string" ? e.code : undefined);
  if (typeof type === "string") err.type = type;
  const body = e?.responseBody ?? e?.lastError?.responseBody;
  if (typeof body === "string") err.body = body;
  if (e?.reason) err.reason = e.reason;
  return err;
}

const clients = {
  // openai: the Responses stream helper. args is the snapshot the SDK
  // accumulated from the deltas, before the done events replace it.
  async "openai-responses"(url, retries, client = new OpenAI({ baseURL: url, apiKey: "test", maxRetries: retries })) {
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
  async "google-genai"(url, retries, ai = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: url } })) {
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

  // openai's AzureOpenAI: a deployment (/openai/deployments/{d}/...), the
  // api-key header, api-version in the query. Chat Completions read with
  // the stream helper, arguments joined by index as an agent does and
  // checked against the helper's final completion.
  async "azure-chat"(url, retries) {
    const r = result();
    const stream = azureClient(url, retries).chat.completions.stream({ model: "gpt-test", messages: [{ role: "user", content: prompt }], stream_options: { include_usage: true } });
    const byIndex = {};
    for await (const chunk of stream) {
      const c = chunk.choices?.[0];
      if (!c) continue;
      r.text += c.delta?.content ?? "";
      r.reasoning += c.delta?.reasoning_content ?? "";
      if (c.finish_reason) r.finish = c.finish_reason;
      for (const tc of c.delta?.tool_calls ?? []) {
        const call = (byIndex[tc.index] ??= { id: "", name: "", args: "" });
        if (tc.id) call.id = tc.id;
        if (tc.function?.name) call.name = tc.function.name;
        call.args += tc.function?.arguments ?? "";
      }
    }
    const final = await stream.finalChatCompletion();
    for (const tc of final.choices[0].message.tool_calls ?? []) {
      const call = Object.values(byIndex).find((c) => c.id === tc.id);
      if (!call || call.args !== tc.function.arguments) throw new Error(`call ${tc.id}: the final completion says ${tc.function.arguments}, the deltas ${call?.args}`);
      r.calls.push({ ...call, input: tc.function.arguments || "{}" });
    }
    if ((final.choices[0].message.content ?? "") !== r.text) throw new Error(`final content ${JSON.stringify(final.choices[0].message.content)} differs`);
    return r;
  },

  // AzureOpenAI on Responses: /openai/deployments/{d}/responses.
  async "azure-responses"(url, retries) {
    return clients["openai-responses"](url, retries, azureClient(url, retries));
  },

  // @google/genai on Vertex AI: project and location in the path, an
  // OAuth client holding a fixed access token (no Google credentials).
  async "vertex-genai"(url, retries) {
    const authClient = new OAuth2Client();
    authClient.setCredentials({ access_token: "test-token", expiry_date: Date.now() + 3600e3 });
    const ai = new GoogleGenAI({ vertexai: true, project: "project-x", location: "us-central1", googleAuthOptions: { authClient }, httpOptions: { baseUrl: url.replace(/\/v1$/, "") } });
    return clients["google-genai"](url, retries, ai);
  },

  // @aws-sdk/client-bedrock-runtime: ConverseStream with a custom endpoint
  // and fake static credentials; blocks joined by contentBlockIndex.
  async bedrock(url, retries) {
    const client = new BedrockRuntimeClient({ region: "us-east-1", endpoint: url.replace(/\/v1$/, ""), credentials: { accessKeyId: "AKIDTEST", secretAccessKey: "secret" }, maxAttempts: 1 + retries });
    const r = result();
    const out = await client.send(new ConverseStreamCommand({ modelId: "anthropic.claude-3-5-sonnet-20240620-v1:0", messages: [{ role: "user", content: [{ text: prompt }] }] }));
    const blocks = {};
    let signed = false;
    for await (const ev of out.stream) {
      if (ev.contentBlockStart?.start?.toolUse) {
        const tu = ev.contentBlockStart.start.toolUse;
        blocks[ev.contentBlockStart.contentBlockIndex] = { id: tu.toolUseId, name: tu.name, args: "" };
      } else if (ev.contentBlockDelta) {
        const d = ev.contentBlockDelta.delta;
        if (d.text !== undefined) r.text += d.text;
        if (d.reasoningContent?.text !== undefined) r.reasoning += d.reasoningContent.text;
        if (d.reasoningContent?.signature) signed = true;
        if (d.toolUse) {
          const b = blocks[ev.contentBlockDelta.contentBlockIndex];
          if (!b) throw new Error(`a toolUse delta of block ${ev.contentBlockDelta.contentBlockIndex}, which no contentBlockStart opened`);
          b.args += d.toolUse.input ?? "";
        }
      } else if (ev.messageStop) {
        r.finish = ev.messageStop.stopReason;
      }
    }
    if (r.reasoning && !signed) throw new Error("reasoning without a signature");
    for (const b of Object.values(blocks)) r.calls.push({ ...b, input: b.args === "" ? "{}" : b.args });
    return r;
  },

  // ollama: the chat stream; calls arrive whole and without ids, so they
  // are named by their index (a, b, c, as the scripted turn names them).
  async ollama(url) {
    const client = new Ollama({ host: url.replace(/\/v1$/, "") });
    const r = result();
    const stream = await client.chat({ model: "llama-test", messages: [{ role: "user", content: prompt }], stream: true });
    let done = false;
    for await (const part of stream) {
      r.text += part.message?.content ?? "";
      r.reasoning += part.message?.thinking ?? "";
      for (const tc of part.message?.tool_calls ?? []) {
        if (tc.id !== undefined) throw new Error(`a call with the id ${tc.id}: Ollama's have none`);
        r.calls.push({ id: "abc"[tc.function.index ?? r.calls.length], name: tc.function.name, args: "", input: JSON.stringify(tc.function.arguments) });
      }
      if (part.done) {
        done = true;
        r.finish = part.done_reason;
      }
    }
    if (!done) throw new Error("the stream ended without its done line");
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

function azureClient(url, retries) {
  return new AzureOpenAI({ endpoint: url.replace(/\/v1$/, ""), apiKey: "test", apiVersion: "2024-10-21", deployment: "deployment-x", maxRetries: retries });
}

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

// One case a line on stdin, one result a line on stdout, in the order of
// the cases: the tests keep one process and feed it every batch. Each case
// starts as its line is read, while the ones before it still run: the
// clients wait on their servers (and on their retries' backoff) at once.
async function runCase(c) {
  const run = clients[c.client];
  if (!run) {
    return { error: { name: "Error", message: `unknown client ${c.client}` } };
  }
  try {
    return await run(c.url, c.retries ?? 0);
  } catch (e) {
    return { error: errorOf(e) };
  }
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
let written = Promise.resolve();
for await (const line of rl) {
  if (line.trim() === "") continue;
  const c = JSON.parse(line);
  const out = runCase(c);
  written = written.then(async () => {
    process.stdout.write(JSON.stringify({ id: c.id, ...(await out) }) + "\n");
  });
}
await written;
