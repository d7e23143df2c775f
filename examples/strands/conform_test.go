package strands

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/internal/textgolden"
)

// The Strands agent takes the conformance battery, as
// "aguitest conform --cmd 'node server.mjs' --config conform.yaml" runs
// it (here on the one server of the package's tests, its model at the
// scripted LLM of each scenario in turn); its report is kept in
// testdata/conform.golden, findings included (README.md says what they
// are): a finding in the framework is the result, and the test fails when
// the report changes, for better or worse.
func TestConform(t *testing.T) {
	a, o := agent(t)
	cfg, err := conform.LoadConfig("conform.yaml")
	require.NoError(t, err)
	// A run its client left holds up the thread until the run's bound.
	cfg.Timeout = 15 * time.Second
	cfg.ModelAddr = o.ModelAddr
	// Every scenario runs on the thread "thread-1" of the one server, and
	// the run client-disconnect leaves keeps it busy while its model
	// streams (TestFindings keeps that finding): the scenarios after it
	// would fail for it. "aguitest conform --cmd" starts a server per
	// scenario and runs it too (README.md).
	cfg.Skip = []string{"client-disconnect"}
	cfg.Explore = o.Explore // off, as agent says why
	rep := conform.Run(t.Context(), a, cfg)
	var b bytes.Buffer
	require.NoError(t, rep.WriteJSON(&b, true))
	t.Logf("%d scenarios in %.1fs: %d passed, %d failed, %d skipped", len(rep.Results), rep.Duration.Seconds(),
		rep.Count(conform.Pass), rep.Count(conform.Fail), rep.Count(conform.Skip))
	textgolden.Check(t, "testdata", "conform", []byte(scrub(b.String())))
}
