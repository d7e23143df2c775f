// Package mastra tests a real TypeScript framework's AG-UI agent with the
// Go harness: a Mastra agent (@mastra/core) served by @ag-ui/mastra over
// HTTP (server.mjs), its model the AI SDK's default OpenAI model, which
// speaks the Responses API, pointed at the case's scripted server.
package mastra
