package langgraph

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/conform"
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
// LangGraph's API takes only UUIDs as thread ids and keeps threads on the
// server: the harness mints each scenario a UUID thread of its own.
func TestConform(t *testing.T) {
	a, o := agent(t)
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
	rep := conform.Run(t.Context(), a, cfg)
	var b bytes.Buffer
	require.NoError(t, rep.WriteJSON(&b, true))
	t.Logf("%d scenarios in %.1fs: %d passed, %d failed, %d skipped", len(rep.Results), rep.Duration.Seconds(),
		rep.Count(conform.Pass), rep.Count(conform.Fail), rep.Count(conform.Skip))
	textgolden.Check(t, "testdata", "conform", []byte(scrub(b.String())))
}
