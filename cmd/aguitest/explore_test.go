package main

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/examples/bugs"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/textgolden"
)

// TestExploreURL: "aguitest explore --url" explores an agent already
// running, its LLM client pointed at the address given with --llm, where
// the harness serves each plan's scripted LLM in turn.
func TestExploreURL(t *testing.T) {
	script := filepath.Join(t.TempDir(), "weather.yaml")
	require.NoError(t, os.WriteFile(script, []byte(`turns:
  - calls:
      - {name: get_weather, args: '{"city":"Paris"}'}
      - {name: get_weather, args: '{"city":"Rome"}'}
  - text: Rome is warmer.
`), 0o644))
	for _, tc := range []struct {
		bug  bugs.Bug
		code int
		want string
	}{
		{bugs.None, 0, "ok: " + script + " passed"},
		{bugs.SharedResultID, 1, `the client holds 2 messages under the id "run-1-msg-1-results"`},
	} {
		t.Run(string(tc.bug), func(t *testing.T) {
			llm := freeAddr(t)
			agent := httptest.NewServer(bugs.Agent{Model: bugs.NewChatModel("http://"+llm+"/v1", "k"), Tools: bugs.Weather(), Bug: tc.bug})
			defer agent.Close()
			var stdout, stderr bytes.Buffer
			code := runExplore(t.Context(), []string{"--url", agent.URL, "--llm", llm, "--plans", "20", script}, &stdout, &stderr)
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
			assert.Contains(t, textgolden.RunIDs(stdout.String()), tc.want)
			assert.Empty(t, stderr.String())
		})
	}
}

// freeAddr returns a loopback address free now, drawn below the kernel's
// ephemeral ports and held until the test ends (harness.FreePort), so
// that no other process is handed it before the server binds it.
func freeAddr(t *testing.T) string {
	t.Helper()
	port, release, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	return "127.0.0.1:" + strconv.Itoa(port)
}

// The usage of "aguitest explore" lists every fidelity check --relax takes.
func TestExploreUsageListsChecks(t *testing.T) {
	assert.Contains(t, exploreUsage, "fidelity checks to waive: "+fidelityNames()+"\n")
}
