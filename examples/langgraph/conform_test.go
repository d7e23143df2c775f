package langgraph

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/examples/internal/served"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/textgolden"
)

// The LangGraph agent takes the conformance battery, as
// "aguitest conform --cmd 'node server.mjs' --config conform.yaml" runs
// it (here on the one server of the package's tests, its model at the
// scripted LLM of each scenario in turn); its report is kept in
// testdata/conform.golden, findings included (README.md says what they
// are): a finding in the framework is the result, and the test fails when
// the report changes, for better or worse.
//
// The battery runs every scenario on the thread "thread-1", which
// LangGraph's API refuses (400 Invalid uuid): until the harness mints
// UUIDs, uuidThreads stands between it and the server and gives each
// scenario's thread a UUID of its own.
func TestConform(t *testing.T) {
	_, o := agent(t)
	cfg, err := conform.LoadConfig("conform.yaml")
	require.NoError(t, err)
	// A run its client left holds up the thread until the run's bound.
	cfg.Timeout = 30 * time.Second
	cfg.ModelAddr = o.ModelAddr
	// ChatOpenAI retries a 500 or a 429 six times, with backoff, for over
	// a minute: those two scenarios only wait for the run's bound (their
	// result, with the timeout's message, is in README.md).
	cfg.Skip = []string{"provider-500", "provider-429"}
	cfg.Explore = o.Explore // off, as agent says why
	s, err := srv.Get()
	require.NoError(t, err)
	rep := conform.Run(t.Context(), uuidThreads(s.URL), cfg)
	var b bytes.Buffer
	require.NoError(t, rep.WriteJSON(&b, true))
	t.Logf("%d scenarios in %.1fs: %d passed, %d failed, %d skipped", len(rep.Results), rep.Duration.Seconds(),
		rep.Count(conform.Pass), rep.Count(conform.Fail), rep.Count(conform.Skip))
	textgolden.Check(t, "testdata", "conform", []byte(scrub(b.String())))
}

// uuidThreads forwards each run to the server at target with its thread
// id replaced by a UUID of the case's name and that id, and the UUID in the
// events replaced back.
func uuidThreads(target string) harness.Agent {
	return harness.Handler(func(env harness.Env) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var in map[string]any
			if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			thread, _ := in["threadId"].(string)
			id := served.UUID(env.Case + " " + thread)
			in["threadId"] = id
			body, _ := json.Marshal(in)
			req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, target, bytes.NewReader(body))
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			req.Header = r.Header.Clone()
			req.ContentLength = int64(len(body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			for k, v := range resp.Header {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(resp.StatusCode)
			flusher, _ := w.(http.Flusher)
			rd := bufio.NewReader(resp.Body)
			for {
				line, err := rd.ReadString('\n')
				if line != "" {
					_, _ = io.WriteString(w, strings.ReplaceAll(line, id, thread))
					if flusher != nil && line == "\n" {
						flusher.Flush()
					}
				}
				if err != nil {
					return
				}
			}
		})
	})
}
