// A Mastra agent served as an AG-UI endpoint by @ag-ui/mastra, the way a
// Mastra app exposes its agents to an AG-UI frontend. Its model is the AI
// SDK's default OpenAI model, createOpenAI(...)(id), which speaks the
// Responses API; it is wherever OPENAI_BASE_URL points. It listens on PORT
// on loopback and answers each POSTed RunAgentInput with server-sent
// events, encoded by @ag-ui/encoder.
//
// get_weather runs in the agent; delete_file asks the user first (the
// tool suspends, @ag-ui/mastra finishes the run with an interrupt, and the
// next run resumes it with the user's answer, from the run's snapshot in
// the Mastra instance's storage); the client's tools (RunAgentInput.tools)
// go to the model as client tools, which @ag-ui/mastra leaves for the
// client to run.
import http from "node:http";
import { Agent } from "@mastra/core/agent";
import { Mastra } from "@mastra/core/mastra";
import { InMemoryStore } from "@mastra/core/storage";
import { createTool } from "@mastra/core/tools";
import { MastraAgent } from "@ag-ui/mastra";
import { EventEncoder } from "@ag-ui/encoder";
import { createOpenAI } from "@ai-sdk/openai";
import { z } from "zod";

const forecasts = { paris: 18, rome: 24, seoul: 21 };

const getWeather = createTool({
  id: "get_weather",
  description: "Tomorrow's temperature in a city, in °C.",
  inputSchema: z.object({ city: z.string() }),
  execute: async (input) => {
    const city = input.city ?? input.context?.city;
    const tempC = forecasts[String(city).toLowerCase()];
    if (tempC === undefined) throw new Error(`no forecast for ${city}`);
    return { city, tempC };
  },
});

const deleteFile = createTool({
  id: "delete_file",
  description: "Deletes a file, once the user approves.",
  inputSchema: z.object({ path: z.string() }),
  suspendSchema: z.object({ question: z.string() }),
  resumeSchema: z.object({ approved: z.boolean() }),
  execute: async (input, { agent }) => {
    if (!agent?.resumeData) {
      await agent.suspend({ question: `Delete ${input.path}?` });
      return;
    }
    return agent.resumeData.approved ? { deleted: input.path } : { kept: input.path };
  },
});

const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY ?? "unused" });

const agent = new Agent({
  id: "weather",
  name: "weather",
  instructions: "You tell the weather.",
  model: openai("gpt-4o-mini"),
  tools: { get_weather: getWeather, delete_file: deleteFile },
});

// Suspended runs are resumed from a snapshot in the instance's storage.
new Mastra({ agents: { weather: agent }, storage: new InMemoryStore() });

http
  .createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end("POST a RunAgentInput");
      return;
    }
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      let input;
      try {
        input = JSON.parse(body);
      } catch (e) {
        res.writeHead(400).end(`the body is not JSON: ${e.message}`);
        return;
      }
      const encoder = new EventEncoder();
      res.writeHead(200, { "Content-Type": encoder.getContentType(), "Cache-Control": "no-cache" });
      new MastraAgent({ agent, resourceId: "aguitest" }).run(input).subscribe({
        next: (event) => res.write(encoder.encode(event)),
        error: (err) => {
          // The bridge's own failure: say so on the stream, as a client can read it.
          res.write(encoder.encode({ type: "RUN_ERROR", message: String(err?.message ?? err) }));
          res.end();
        },
        complete: () => res.end(),
      });
    });
  })
  .listen(Number(process.env.PORT ?? 8000), "127.0.0.1");
