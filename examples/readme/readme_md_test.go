package readme_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMESnippets checks that every Go snippet of README.md is code of
// this package, verbatim (a snippet from a function body may be indented
// one tab here), so that every snippet compiles and the tests run it.
func TestREADMESnippets(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("*_test.go")
	var code []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code = append(code, string(b))
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no Go snippets")
	}
	for _, b := range blocks {
		snippet := b[1]
		indented := regexp.MustCompile(`(?m)^(.)`).ReplaceAllString(snippet, "\t$1")
		found := false
		for _, c := range code {
			if strings.Contains(c, snippet) || strings.Contains(c, indented) {
				found = true
			}
		}
		if !found {
			t.Errorf("README.md's snippet is not in examples/readme/*_test.go; copy it from there:\n%s", snippet)
		}
	}
}

// TestREADMEExampleInAFreshModule pastes README.md's first example into a
// module of its own, as a newcomer does, and runs it as the README says:
// without goldens it fails with the hint to run with -update; "go test
// -update" writes them (no import beyond the example's own gives the
// flag); then "go test" passes.
func TestREADMEExampleInAFreshModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a module of its own three times")
	}
	gocmd, err := exec.LookPath(filepath.Join(runtime.GOROOT(), "bin", "go"))
	require.NoError(t, err, "the go command")
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	first := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(readme)
	require.NotNil(t, first, "README.md has a Go example")
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)

	dir := t.TempDir()
	mod := "module example.com/myagent\n\ngo 1.26\n\nrequire github.com/aguitest/aguitest v0.0.0\n\nreplace github.com/aguitest/aguitest => " + root + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "agent_test.go"), first[1], 0o644))
	goTest := func(args ...string) (string, error) {
		cmd := exec.Command(gocmd, append([]string{"test", "-count=1", "."}, args...)...)
		cmd.Dir = dir
		// Offline, from the module cache this test run already uses.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GONOSUMDB=*", "GOLDIE_UPDATE=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := goTest()
	require.Error(t, err, "without goldens the example fails:\n%s", out)
	assert.Contains(t, out, "run go test with -update", "the failure says how to write the goldens")
	assert.NotContains(t, out, "flag provided but not defined", "go test output")

	out, err = goTest("-update")
	require.NoError(t, err, "go test -update:\n%s", out)
	goldens, _ := filepath.Glob(filepath.Join(dir, "testdata", "*", "*.golden"))
	assert.NotEmpty(t, goldens, "go test -update wrote the goldens:\n%s", out)

	out, err = goTest()
	assert.NoError(t, err, "go test after -update:\n%s", out)
}
