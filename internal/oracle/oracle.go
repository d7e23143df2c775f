// Package oracle locates the reference AG-UI client (@ag-ui/client, pinned
// in this folder's package.json) for the tests that compare against it.
package oracle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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

// ScriptPath is Script for code with no testing.TB at hand (a goroutine
// running one of several node processes).
func ScriptPath(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), name)
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
//
// The scripts answer one line for each line they read, so a node process
// is kept for the test binary and fed the inputs of every call on the
// same script: starting node and loading the client costs more than most
// calls' work. Concurrent calls get a process each.
func Lines[R any](dir, script string, inputs [][]byte) ([]R, error) {
	if !filepath.IsAbs(script) {
		script = filepath.Join(dir, script)
	}
	if len(inputs) == 0 {
		return nil, nil
	}
	key := procKey{dir, script}
	p, err := take(key)
	if err != nil {
		return nil, err
	}
	lines, err := p.exchange(inputs)
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("%s: %v\n%s", script, err, p.stderr.String())
	}
	put(key, p)
	res := make([]R, 0, len(lines))
	for _, l := range lines {
		var r R
		if err := json.Unmarshal(l, &r); err != nil {
			return nil, fmt.Errorf("%s output: %v", script, err)
		}
		res = append(res, r)
	}
	return res, nil
}

// A proc is a node process running a script that answers a line for each
// line it reads.
type proc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr lockedBuffer
	exited chan error
}

type procKey struct{ dir, script string }

var idle = struct {
	sync.Mutex
	m map[procKey][]*proc
}{m: map[procKey][]*proc{}}

// take returns an idle process for key, or starts one.
func take(key procKey) (*proc, error) {
	idle.Lock()
	if ps := idle.m[key]; len(ps) > 0 {
		p := ps[len(ps)-1]
		idle.m[key] = ps[:len(ps)-1]
		idle.Unlock()
		return p, nil
	}
	idle.Unlock()
	p := &proc{cmd: exec.Command("node", key.script), exited: make(chan error, 1)}
	p.cmd.Dir = key.dir
	p.cmd.Stderr = &p.stderr
	in, err := p.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %v", key.script, err)
	}
	p.in, p.out = in, bufio.NewReaderSize(out, 1<<20)
	go func() { p.exited <- p.cmd.Wait() }()
	return p, nil
}

// put makes p idle again. A process is never closed: it ends when the
// test binary does, and its standard input with it.
func put(key procKey, p *proc) {
	idle.Lock()
	idle.m[key] = append(idle.m[key], p)
	idle.Unlock()
}

// exchange writes the inputs, a line each, and reads as many lines back.
func (p *proc) exchange(inputs [][]byte) ([][]byte, error) {
	wrote := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(p.in, 1<<16)
		for _, s := range inputs {
			w.Write(s)
			w.WriteByte('\n')
		}
		wrote <- w.Flush()
	}()
	lines := make([][]byte, 0, len(inputs))
	for len(lines) < len(inputs) {
		l, err := p.out.ReadBytes('\n')
		if err != nil {
			// node ended: wait for it, for its exit status and the whole
			// of its standard error.
			werr := <-p.exited
			p.exited <- werr
			if werr == nil {
				werr = fmt.Errorf("node ended after %d results for %d inputs", len(lines), len(inputs))
			}
			return nil, werr
		}
		lines = append(lines, bytes.TrimSuffix(l, []byte("\n")))
	}
	if err := <-wrote; err != nil {
		return nil, err
	}
	if p.out.Buffered() > 0 {
		// More than a line an input: the next call's results would be off
		// by as many.
		return nil, fmt.Errorf("node wrote more than %d lines for %d inputs", len(inputs), len(inputs))
	}
	return lines, nil
}

func (p *proc) stop() {
	p.in.Close()
	p.cmd.Process.Kill()
}

// lockedBuffer is a bytes.Buffer that a process writes while a test may
// read it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
