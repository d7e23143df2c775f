package tsagent

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/golden"
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
	var cfg conform.Config // each scenario explored under the default budget
	if testing.Short() && !golden.Update() {
		// Five plans a scenario; the report, without the notes that say
		// so, is the golden's.
		cfg.Explore = &harness.Explore{Plans: 5}
	}
	rep := conform.Run(t.Context(), harness.Command("node", "dist/server.js"), cfg)
	if cfg.Explore != nil {
		for i := range rep.Results {
			rep.Results[i].Notes = slices.DeleteFunc(rep.Results[i].Notes, func(n string) bool { return strings.HasPrefix(n, "explored under ") })
		}
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b, true); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d scenarios in %.1fs: %d passed, %d failed, %d skipped", len(rep.Results), rep.Duration.Seconds(),
		rep.Count(conform.Pass), rep.Count(conform.Fail), rep.Count(conform.Skip))
	textgolden.Check(t, "testdata", "conform", b.Bytes())
}
