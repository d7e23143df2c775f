package schema_test

import (
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/internal/oracle"
)

// TestGenerated regenerates each client's tables from its npm package and
// fails when the committed file differs.
func TestGenerated(t *testing.T) {
	for _, c := range []struct{ version, file string }{
		{"1.0.0", "schema_gen.go"},
		{"0.0.59", "schema0059_gen.go"},
	} {
		t.Run(c.version, func(t *testing.T) {
			dir := oracle.ClientDir(t, c.version, "the check of "+c.file)
			out, err := exec.Command("node", filepath.Join(dir, "genschema.mjs")).Output()
			require.NoError(t, err)
			want, err := format.Source(out)
			require.NoError(t, err)
			got, err := os.ReadFile(c.file)
			require.NoError(t, err)
			if string(got) != string(want) {
				t.Errorf("%s is stale: run go generate ./internal/schema", c.file)
			}
		})
	}
}
