package readme_test

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/harness"
)

// TestHarnessFieldsDocumented checks the two tables of
// docs/testing-agents.md against harness.Case and harness.Options: a row
// names every exported field, and no row names a field that is not there.
func TestHarnessFieldsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/testing-agents.md")
	require.NoError(t, err)
	for _, typ := range []reflect.Type{reflect.TypeFor[harness.Case](), reflect.TypeFor[harness.Options]()} {
		head := "| `harness." + typ.Name() + "` |"
		i := strings.Index(string(b), head)
		require.GreaterOrEqual(t, i, 0, "docs/testing-agents.md has a table headed %s", head)
		named := map[string]bool{}
		for _, row := range strings.Split(string(b[i:]), "\n")[2:] {
			if !strings.HasPrefix(row, "| ") {
				break
			}
			for _, m := range regexp.MustCompile("`([A-Z][A-Za-z]*)`").FindAllStringSubmatch(strings.Split(row, "|")[1], -1) {
				named[m[1]] = true
			}
		}
		for f := range typ.Fields() {
			if !f.IsExported() {
				continue
			}
			if !named[f.Name] {
				t.Errorf("docs/testing-agents.md's table of harness.%s has no row for %s; add one", typ.Name(), f.Name)
			}
			delete(named, f.Name)
		}
		for n := range named {
			t.Errorf("docs/testing-agents.md's table of harness.%s names %s, which is no field of it", typ.Name(), n)
		}
	}
}
