// A LangGraph JS agent (graph.mjs) served by "langgraphjs dev"
// (@langchain/langgraph-cli), and in front of it an AG-UI endpoint made of
// @ag-ui/langgraph's LangGraphAgent, the way an app exposes a LangGraph
// deployment to an AG-UI frontend: each POSTed RunAgentInput is run by a
// LangGraphAgent pointed at the dev server (deploymentUrl, graphId "agent"),
// and its events are sent back as server-sent events by @ag-ui/encoder.
//
// The dev server runs offline: no LangSmith tracing, no CLI analytics, no
// browser, no Studio lookup, no reload. It keeps its threads in
// .langgraph_api/, which is removed first, so that every start is a fresh
// server. It listens on a free loopback port of its own; this endpoint
// listens on PORT once the dev server answers /ok.
import http from "node:http";
import net from "node:net";
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { LangGraphAgent } from "@ag-ui/langgraph";
import { EventEncoder } from "@ag-ui/encoder";

const here = path.dirname(fileURLToPath(import.meta.url));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

fs.rmSync(path.join(here, ".langgraph_api"), { recursive: true, force: true });

const devPort = await freePort();
const deploymentUrl = `http://127.0.0.1:${devPort}`;
const cli = path.join(here, "node_modules/@langchain/langgraph-cli/dist/cli/cli.mjs");
const dev = spawn(
  process.execPath,
  [cli, "dev", "--port", String(devPort), "--host", "127.0.0.1", "--no-browser", "--no-reload", "--studio-url", deploymentUrl],
  {
    cwd: here,
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      LANGGRAPH_CLI_NO_ANALYTICS: "1",
      LANGSMITH_TRACING: "false",
      LANGSMITH_TRACING_V2: "false",
      LANGCHAIN_TRACING_V2: "false",
      LANGCHAIN_CALLBACKS_BACKGROUND: "false",
      BROWSER: "none",
      PORT: String(devPort),
    },
  },
);
dev.on("exit", (code, signal) => {
  console.error(`langgraphjs dev exited (${signal ?? code})`);
  process.exit(1);
});
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    dev.kill(sig); // the CLI stops the API server it started
    process.exit(0);
  });
}

// Wait for the dev server (it compiles the graph first).
for (;;) {
  const ok = await fetch(`${deploymentUrl}/ok`).then((r) => r.ok, () => false);
  if (ok) break;
  await new Promise((r) => setTimeout(r, 100));
}

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
      const agent = new LangGraphAgent({ deploymentUrl, graphId: "agent" });
      const sub = agent.run(input).subscribe({
        next: (event) => res.write(encoder.encode(event)),
        error: (err) => {
          // The bridge's own failure: say so on the stream, as a client can read it.
          res.write(encoder.encode({ type: "RUN_ERROR", message: String(err?.message ?? err) }));
          res.end();
        },
        complete: () => res.end(),
      });
      // The client left: stop listening, as an app's endpoint does.
      res.on("close", () => sub.unsubscribe());
    });
  })
  .listen(Number(process.env.PORT ?? 8000), "127.0.0.1");
