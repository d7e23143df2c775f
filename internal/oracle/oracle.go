// Package oracle locates the reference AG-UI client (@ag-ui/client, pinned
// in this folder's package.json) for the tests that compare against it.
package oracle

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the folder holding the reference client's npm packages. When
// node or the packages are missing it skips the test, naming what is
// missing and how to install it; under CI (CI set) it fails instead, since
// there these tests must run. what names the test in that message.
func Dir(t testing.TB, what string) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("oracle: cannot locate the oracle folder")
	}
	dir := filepath.Dir(file)
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat(filepath.Join(dir, "node_modules", "@ag-ui", "client")); err != nil {
		missing = "the oracle's npm packages are not installed (run: npm ci --prefix internal/oracle)"
	}
	if missing != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s must run in CI, but %s", what, missing)
		}
		t.Skipf("skipping %s: %s", what, missing)
	}
	return dir
}
