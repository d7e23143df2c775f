// Package tsagent tests an AG-UI agent written in TypeScript (server.ts, on
// the official @ag-ui/core and @ag-ui/encoder packages and the openai npm
// client) with the Go harness, as an external command: the harness starts
// it per case with OPENAI_BASE_URL pointing at the case's scripted LLM and
// PORT naming the port to serve on, posts runs to it, and runs its
// frontend tools.
//
// The test needs Node and the packages of package.json:
//
//	npm ci --prefix examples/tsagent
//
// It builds server.ts with the TypeScript compiler first. Without Node or
// the packages it skips with a message, except under CI, where it fails.
package tsagent
