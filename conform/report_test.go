package conform_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/textgolden"
)

// The JSON report of a correct agent and of one with bugs, kept as
// goldens: one line per scenario, then the summary.
func TestReportJSON(t *testing.T) {
	for _, tt := range []struct {
		name string
		bug  bug
	}{{"ref", noBug}, {"drops-tool-error", dropsToolError}} {
		t.Run(tt.name, func(t *testing.T) {
			rep := conform.Run(t.Context(), harness.Func(refAgent{bug: tt.bug}.Run), refConfig)
			var b bytes.Buffer
			require.NoError(t, rep.WriteJSON(&b, true))
			textgolden.Check(t, "testdata", "report-"+tt.name, b.Bytes())
		})
	}
}
