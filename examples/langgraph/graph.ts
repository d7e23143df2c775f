// A LangGraph JS agent, as "langgraphjs dev" serves it (langgraph.json):
// one model node, ChatOpenAI on the Chat Completions API (wherever
// OPENAI_BASE_URL points), and one tool node ("tool_node": "tools" is the state key of the frontend's tools) for the agent's own tools.
// The frontend's tools come in the graph's state ("tools", which
// @ag-ui/langgraph fills from RunAgentInput.tools) and are bound to the
// model beside the agent's own; a call to one of them ends the run, for
// the frontend to run it and send its result in the next run.
//
// get_weather runs in the agent; delete_file asks the user first, with
// LangGraph's interrupt(), and the next run resumes it with the answer.
import { END, MessagesValue, START, StateGraph, StateSchema, interrupt, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { tool } from "@langchain/core/tools";
import type { AIMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { z } from "zod";

const forecasts: Record<string, number> = { paris: 18, rome: 24, seoul: 21 };

const getWeather = tool(
  async ({ city }) => {
    const tempC = forecasts[String(city).toLowerCase()];
    if (tempC === undefined) throw new Error(`no forecast for ${city}`);
    return JSON.stringify({ city, tempC });
  },
  {
    name: "get_weather",
    description: "Tomorrow's temperature in a city, in °C.",
    schema: z.object({ city: z.string() }),
  },
);

const deleteFile = tool(
  async ({ path }) => {
    const answer = interrupt<object, { approved?: boolean } | undefined>({ question: `Delete ${path}?`, path });
    return JSON.stringify(answer?.approved ? { deleted: path } : { kept: path });
  },
  {
    name: "delete_file",
    description: "Deletes a file, once the user approves.",
    schema: z.object({ path: z.string() }),
  },
);

const ownTools = [getWeather, deleteFile];
const ownNames = new Set<string>(ownTools.map((t) => t.name));

// The state: the conversation, and the frontend's tools. A StateSchema,
// so that the API server reads its JSON schema at run time.
const State = new StateSchema({
  messages: MessagesValue,
  tools: z.array(z.any()).optional(),
});

const model = new ChatOpenAI({
  model: "gpt-4o-mini",
  configuration: { baseURL: process.env.OPENAI_BASE_URL },
  apiKey: process.env.OPENAI_API_KEY ?? "unused",
});

async function chat(state: typeof State.State, config: LangGraphRunnableConfig) {
  const bound = model.bindTools([...ownTools, ...(state.tools ?? [])]);
  const reply = await bound.invoke(
    [{ role: "system", content: "You tell the weather." }, ...state.messages],
    config,
  );
  return { messages: [reply] };
}

// The agent's own calls go to the tool node; a frontend's call ends the run.
function route(state: typeof State.State) {
  const last = state.messages[state.messages.length - 1];
  const calls = (last as AIMessage | undefined)?.tool_calls ?? [];
  if (calls.length > 0 && calls.every((c: { name: string }) => ownNames.has(c.name))) return "tool_node";
  return END;
}

export const graph = new StateGraph(State)
  .addNode("chat", chat)
  .addNode("tool_node", new ToolNode(ownTools))
  .addEdge(START, "chat")
  .addConditionalEdges("chat", route, ["tool_node", END])
  .addEdge("tool_node", "chat")
  .compile();
