// A Mastra agent served as an AG-UI endpoint by @ag-ui/mastra, the way a
// Mastra app exposes its agents to an AG-UI frontend. Its model is the AI
// SDK's default OpenAI model, createOpenAI(...)(id), which speaks the
// Responses API; it is wherever OPENAI_BASE_URL points. It listens on PORT
// on loopback and answers each POSTed RunAgentInput with server-sent
// events, encoded by @ag-ui/encoder.
//
// get_weather runs in the agent; the client's tools (RunAgentInput.tools)
// go to the model as client tools, which @ag-ui/mastra leaves for the
// client to run.
import http from "node:http";
import { Agent } from "@mastra/core/agent";
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

const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY ?? "unused" });

const agent = new Agent({
  id: "weather",
  name: "weather",
  instructions: "You tell the weather.",
  model: openai("gpt-4o-mini"),
  tools: { get_weather: getWeather },
});

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
