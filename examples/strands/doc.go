// Package strands tests a real TypeScript framework's AG-UI agent with the
// Go harness: an AWS Strands agent (@strands-agents/sdk) served by
// @ag-ui/aws-strands over HTTP (server.mjs), its model Strands' default
// Bedrock model, which speaks the ConverseStream API, pointed at the
// case's scripted server.
package strands
