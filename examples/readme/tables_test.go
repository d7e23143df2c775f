package readme_test

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
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

// TestConformFiguresDocumented checks what docs/conformance.md says each
// example server scores against the reports kept as goldens
// (examples/NAME/testdata/conform.golden, whose last line is the summary).
func TestConformFiguresDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/conformance.md")
	require.NoError(t, err)
	doc := string(b)
	for _, name := range []string{"tsagent", "claude", "mastra"} {
		report, err := os.ReadFile("../" + name + "/testdata/conform.golden")
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSpace(string(report)), "\n")
		var summary struct {
			Summary map[string]any `json:"summary"`
		}
		require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &summary), "the summary line of %s's report", name)
		i := strings.Index(doc, "- `examples/"+name+"`")
		require.GreaterOrEqual(t, i, 0, "docs/conformance.md has a bullet for examples/%s", name)
		bullet := doc[i:]
		if j := strings.Index(bullet[1:], "\n- "); j >= 0 {
			bullet = bullet[:j+1]
		}
		bullet = strings.Join(strings.Fields(bullet), " ")
		for word, key := range map[string]string{"passed": "pass", "failed": "fail", "skipped": "skip"} {
			m := regexp.MustCompile(`(\d+) ` + word).FindStringSubmatch(bullet)
			if m == nil {
				continue
			}
			if got, want := m[1], fmt.Sprint(summary.Summary[key]); got != want {
				t.Errorf("docs/conformance.md says examples/%s: %s %s; its report (testdata/conform.golden) says %s", name, got, word, want)
			}
		}
	}
}
