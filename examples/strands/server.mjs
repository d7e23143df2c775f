// An AWS Strands agent (@strands-agents/sdk) served as an AG-UI endpoint by
// @ag-ui/aws-strands, the way its README has a Strands app expose an agent:
// a StrandsAgent wrapping the Strands Agent, in the Express app of
// createStrandsApp. Its model is Strands' default, Bedrock's ConverseStream
// API (BedrockModel), wherever AWS_ENDPOINT_URL_BEDROCK_RUNTIME points, in
// AWS_REGION, with the AWS credentials of the environment. It listens on
// PORT on loopback.
//
// get_weather runs in the agent; the client's tools (RunAgentInput.tools)
// go to the model as proxy tools, which @ag-ui/aws-strands leaves for the
// client to run.
import { Agent, tool } from "@strands-agents/sdk";
import { BedrockModel } from "@strands-agents/sdk/models/bedrock";
import { StrandsAgent } from "@ag-ui/aws-strands";
import { createStrandsApp } from "@ag-ui/aws-strands/server";
import { z } from "zod";

const forecasts = { paris: 18, rome: 24, seoul: 21 };

const getWeather = tool({
  name: "get_weather",
  description: "Tomorrow's temperature in a city, in °C.",
  inputSchema: z.object({ city: z.string() }),
  callback: ({ city }) => {
    const tempC = forecasts[String(city).toLowerCase()];
    if (tempC === undefined) throw new Error(`no forecast for ${city}`);
    return { city, tempC };
  },
});

const agent = new Agent({
  model: new BedrockModel({ modelId: "global.anthropic.claude-sonnet-4-6", region: process.env.AWS_REGION }),
  systemPrompt: "You tell the weather.",
  tools: [getWeather],
});

const app = await createStrandsApp(new StrandsAgent({ agent, name: "weather", description: "Tells the weather." }));
app.listen(Number(process.env.PORT ?? 8000), "127.0.0.1");
