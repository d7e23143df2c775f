package harness_test

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/harness"
)

// The hosts the programs below try: names that can never resolve
// (.invalid), so that even a guard that failed would send nothing
// anywhere; the programs refuse to try without the guard's settings.
const (
	modelHost     = "api.openai.invalid"
	telemetryHost = "telemetry.example.invalid"
)

// TestChildCallsOut is the agent of TestOutboundRefused: on each run it
// asks a model on a real host (HTTPS, through the proxy it is given) and
// sends telemetry (plain HTTP), then answers "pong" whatever they gave.
func TestChildCallsOut(t *testing.T) {
	if os.Getenv("AGUITEST_CALLS_OUT") == "" {
		t.Skip("runs only as TestOutboundRefused's agent")
	}
	if p := os.Getenv("HTTPS_PROXY"); !strings.HasPrefix(p, "http://127.0.0.1:") {
		t.Fatalf("HTTPS_PROXY is %q: no guard, so no request", p)
	}
	results := ""
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, u := range []string{"https://" + modelHost + "/v1/models", "http://" + telemetryHost + "/v1/traces"} {
			resp, err := http.Post(u, "application/json", strings.NewReader(`{}`))
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				results += resp.Status + " " + string(b)
			} else {
				results += err.Error()
			}
		}
		pong.ServeHTTP(w, r)
	})
	t.Fatal(http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), h))
}

// A Command agent that tries to reach a host other than this machine
// fails its case, one problem per host naming it and the request; the
// request never leaves the machine.
func TestOutboundRefused(t *testing.T) {
	agent := harness.Command(os.Args[0], "-test.run", "^TestChildCallsOut$")
	agent.Env = []string{"AGUITEST_CALLS_OUT=1"}
	r := harness.Options{}.Test(t.Context(), agent, harness.Case{Name: "calls out", Input: harness.User("ping"), NoGolden: true})
	require.NotNil(t, r.Result)
	assert.Equal(t, "pong", r.Result.LastText())
	var texts []string
	for _, p := range r.Problems {
		if p.Kind == harness.ProblemOutbound {
			texts = append(texts, p.Text)
		}
	}
	require.Len(t, texts, 2, "%v", r.Problems)
	assert.Contains(t, texts[0], "tried to reach "+modelHost+":443 (CONNECT "+modelHost+":443; 1 attempt)")
	assert.Contains(t, texts[1], "tried to reach "+telemetryHost+":80 (POST http://"+telemetryHost+"/v1/traces; 1 attempt)")
	assert.Contains(t, texts[1], "--allow-host "+telemetryHost)
}

// A Node program's fetch ignores proxy settings; the preload the guard
// gives it refuses its connections to other hosts all the same, before
// any DNS lookup, naming where in the program it was made.
func TestOutboundRefusedNode(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is needed")
		}
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "agent.mjs")
	require.NoError(t, os.WriteFile(prog, []byte(nodeAgent), 0o644))
	r := harness.Options{}.Test(t.Context(), harness.Command("node", prog), harness.Case{Name: "node calls out", Input: harness.User("ping"), NoGolden: true})
	require.NotNil(t, r.Result, "%v", r.Err())
	assert.Contains(t, r.Result.LastText(), "aguitest: a program under test may not reach "+modelHost+":443")
	var out []string
	for _, p := range r.Problems {
		if p.Kind == harness.ProblemOutbound {
			out = append(out, p.Text)
		}
	}
	require.Len(t, out, 1, "%v", r.Problems)
	assert.Contains(t, out[0], "tried to reach "+modelHost+":443 (a connection opened by Node; 1 attempt)")
	assert.Contains(t, out[0], "opened at Server.<anonymous> (file://"+prog+":")
}

// nodeAgent serves AG-UI on PORT; each run fetches a model on a real
// host and answers with what came of it.
const nodeAgent = `import http from "node:http";
if (!(process.env.NODE_OPTIONS || "").includes("preload.cjs")) { console.error("no guard, so no request"); process.exit(1); }
http.createServer(async (req, res) => {
  let body = "";
  for await (const c of req) body += c;
  const input = JSON.parse(body);
  let text;
  try {
    const r = await fetch("https://` + modelHost + `/v1/chat/completions", { method: "POST", body: "{}" });
    text = "status " + r.status;
  } catch (e) {
    text = String(e.cause?.message ?? e.message);
  }
  res.writeHead(200, { "Content-Type": "text/event-stream" });
  const send = (e) => res.write("data: " + JSON.stringify(e) + "\n\n");
  send({ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId });
  send({ type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" });
  send({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: text });
  send({ type: "TEXT_MESSAGE_END", messageId: "m1" });
  send({ type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId });
  res.end();
}).listen(Number(process.env.PORT), "127.0.0.1");
`
