package readme_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/scripted"
)

// TestWiresDocumented checks the table of docs/provider-wires.md against
// scripted.Wires: a row per wire the server speaks, in that order, each
// named as the wire names itself.
func TestWiresDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/provider-wires.md")
	require.NoError(t, err)
	var got []string
	table := false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "| wire |"):
			table = true
		case table && strings.HasPrefix(line, "| --- "):
		case table && strings.HasPrefix(line, "| "):
			got = append(got, strings.TrimSpace(strings.Split(line, "|")[1]))
		default:
			table = false
		}
	}
	var want []string
	for _, w := range scripted.Wires {
		want = append(want, w.String())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("docs/provider-wires.md's table of wires (-scripted.Wires +docs):\n%s", diff)
	}
}
