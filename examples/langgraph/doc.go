// Package langgraph tests a real TypeScript framework's AG-UI agent with
// the Go harness: a LangGraph JS graph (graph.ts) served by "langgraphjs
// dev" (@langchain/langgraph-cli), reached through an AG-UI endpoint made
// of @ag-ui/langgraph's LangGraphAgent (server.mjs), its model ChatOpenAI
// on the Chat Completions API, pointed at the case's scripted server.
package langgraph
