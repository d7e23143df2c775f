package tsagent

import (
	"bytes"
	"testing"

	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/textgolden"
)

// The TypeScript agent takes the conformance battery, as
// "aguitest conform --cmd 'node dist/server.js'" runs it; its report is
// kept in testdata/conform.golden. It has no tool of its own, so the
// scenarios that need one are skipped.
func TestConform(t *testing.T) {
	// Its waits (the agent's retries of provider-429 and provider-500)
	// overlap the other tests.
	t.Parallel()
	build(t)
	rep := conform.Run(t.Context(), harness.Command("node", "dist/server.js"), conform.Config{})
	var b bytes.Buffer
	if err := rep.WriteJSON(&b, true); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d scenarios in %.1fs: %d passed, %d failed, %d skipped", len(rep.Results), rep.Duration.Seconds(),
		rep.Count(conform.Pass), rep.Count(conform.Fail), rep.Count(conform.Skip))
	textgolden.Check(t, "testdata", "conform", b.Bytes())
}
