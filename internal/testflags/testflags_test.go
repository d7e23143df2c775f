package testflags

import (
	"flag"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTestBinary(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want bool
	}{
		{"go test", []string{"/tmp/go-build1/b001/agent.test", "-test.paniconexit0", "-test.timeout=10m0s"}, true},
		{"go test -c, run by hand", []string{"./agent.test", "-update"}, true},
		{"go test -c on Windows", []string{`C:\x\agent.test.exe`}, true},
		{"go test -o other name", []string{"./mytests", "-test.v", "-update"}, true},
		{"the command", []string{"/usr/local/bin/aguitest", "test", "cases.yaml", "--update"}, false},
		{"a program given -test.v after --", []string{"./server", "--", "-test.v"}, false},
		{"a program named latest", []string{"./latest"}, false},
		{"no arguments", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, testBinary(tc.args), "testBinary(%q)", tc.args)
		})
	}
}

// TestFlagsInThisTestBinary: a test binary that links this package has the
// three flags, and Update and Plans read them.
func TestFlagsInThisTestBinary(t *testing.T) {
	for _, name := range []string{UpdateName, PlansName, SeedName} {
		require.NotNil(t, flag.Lookup(name), "-%s is registered", name)
	}
	t.Setenv("GOLDIE_UPDATE", "")
	f := flag.Lookup(UpdateName)
	old := f.Value.String()
	t.Cleanup(func() { _ = f.Value.Set(old) })
	for _, v := range []string{"true", "false"} {
		require.NoError(t, f.Value.Set(v))
		assert.Equal(t, v == "true", Update(), "Update() with -update=%s", v)
	}
	t.Setenv("GOLDIE_UPDATE", "1")
	assert.True(t, Update(), "Update() with GOLDIE_UPDATE=1")

	_, given := Plans()
	assert.False(t, given, "-aguitest.explore is not given")
	p := flag.Lookup(PlansName)
	oldPlans := p.Value.String()
	t.Cleanup(func() { _ = flag.Set(PlansName, oldPlans) })
	require.NoError(t, flag.Set(PlansName, "0"))
	n, given := Plans()
	assert.True(t, given && n == 0, "-aguitest.explore=0 is given as 0: got %d, %v", n, given)
}

// TestNoFlagsInAProgram: a program that imports golden, harness and conform
// (as the aguitest command does) registers no flag at all.
func TestNoFlagsInAProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	gocmd, err := exec.LookPath("go")
	require.NoError(t, err, "the go command builds the program")
	out, err := exec.Command(gocmd, "run", "./testdata/noflags").CombinedOutput()
	require.NoError(t, err, "go run: %s", out)
	assert.Empty(t, strings.TrimSpace(string(out)), "flags registered by a program that is not a test")
}
