// Package oracle locates the reference AG-UI client (@ag-ui/client, pinned
// in this folder's package.json) for the tests that compare against it.
package oracle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Dir returns the folder holding the reference client's npm packages, or
// skips t as Need does; what names the test.
func Dir(t testing.TB, what string) string {
	t.Helper()
	return Need(t, here(t), "@ag-ui/client", what)
}

// ClientDir returns the folder holding @ag-ui/client of the given version
// ("1.0.0" in this folder, every other pinned version in its own v<version>
// subfolder with its own package-lock.json), or skips t as Need does.
func ClientDir(t testing.TB, version, what string) string {
	t.Helper()
	dir := here(t)
	if version != "1.0.0" {
		dir = filepath.Join(dir, "v"+version)
	}
	return Need(t, dir, "@ag-ui/client", what)
}

// Script returns the path of one of this folder's scripts, for running in
// another client's folder (Lines with that folder as dir).
func Script(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(here(t), name)
}

// here is this package's folder, internal/oracle.
func here(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("oracle: cannot locate the oracle folder")
	}
	return filepath.Dir(file)
}

// Need returns dir, made absolute, when node is on PATH and the npm
// package pkg is installed in dir's node_modules. Otherwise it skips t,
// naming what is missing and how to install it; under CI (CI set) it
// fails instead, since there these tests must run. what names the test in
// that message.
func Need(t testing.TB, dir, pkg, what string) string {
	t.Helper()
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg)); err != nil {
		prefix := dir
		if rel, err := filepath.Rel(filepath.Dir(filepath.Dir(here(t))), dir); err == nil {
			prefix = rel
		}
		missing = fmt.Sprintf("the npm packages are not installed (run: npm ci --prefix %s)", prefix)
	}
	if missing != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s must run in CI, but %s", what, missing)
		}
		notice(missing)
		t.Skipf("skipping %s: %s", what, missing)
	}
	return dir
}

// noticed holds what a skip has been said for in this test binary (one
// package).
var (
	noticeMu sync.Mutex
	noticed  = map[string]bool{}
)

// notice says once per package, where a plain go test shows it, that
// tests skip for what is missing: go test prints nothing of a passing
// package but its "ok" line, so it is written to the terminal (/dev/tty)
// as well as to the test's output (seen with -v).
func notice(missing string) {
	noticeMu.Lock()
	defer noticeMu.Unlock()
	if noticed[missing] {
		return
	}
	noticed[missing] = true
	pkg := strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")
	msg := fmt.Sprintf("aguitest: %s: tests that need npm packages skip: %s\n", pkg, missing)
	fmt.Fprint(os.Stderr, msg)
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		fmt.Fprint(tty, msg)
		tty.Close()
	}
}

// Run runs node on script in dir, one input a line on its standard input,
// and decodes one JSON result a line from its output into R. It fails t
// when Lines returns an error.
func Run[R any](t testing.TB, dir, script string, inputs [][]byte) []R {
	t.Helper()
	res, err := Lines[R](dir, script, inputs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Lines is Run returning its error (script is a name in dir or an
// absolute path; node runs in dir): node failed (its standard error
// says why), a line is not JSON, or there is not one result per input.
// It may be called from any goroutine.
func Lines[R any](dir, script string, inputs [][]byte) ([]R, error) {
	var in bytes.Buffer
	for _, s := range inputs {
		in.Write(s)
		in.WriteByte('\n')
	}
	if !filepath.IsAbs(script) {
		script = filepath.Join(dir, script)
	}
	cmd := exec.Command("node", script)
	cmd.Dir = dir
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", script, err, stderr.Bytes())
	}
	var res []R
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		var r R
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s output: %v", script, err)
		}
		res = append(res, r)
	}
	if len(res) != len(inputs) {
		return nil, fmt.Errorf("%s returned %d results for %d inputs", script, len(res), len(inputs))
	}
	return res, nil
}
