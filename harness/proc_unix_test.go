//go:build linux

package harness_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/harness"
)

// A command that starts the agent as a child of its own (a shell, npm)
// is stopped with its children: none outlives the case.
func TestCommandAgentStopsItsChildren(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The shell stays (it has more to do after the agent) and the agent,
	// this test binary in TestChildAgent, writes its pid.
	agent := harness.Command("sh", "-c", `"$0" -test.run '^TestChildAgent$'; echo done`, os.Args[0])
	agent.Env = []string{"AGUITEST_HARNESS_AGENT=1", "PIDFILE=" + pidFile}
	r := harness.Options{}.Test(t.Context(), agent, harness.Case{Name: "ping", Input: harness.User("ping"), NoGolden: true})
	require.NoError(t, r.Err())
	assert.Equal(t, "pong", r.Result.LastText())

	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	// The child was sent SIGKILL before Test returned; it is gone once the
	// kernel has taken it down (a zombie nobody reaps counts as gone).
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for alive(pid) {
		select {
		case <-tick.C:
		case <-deadline:
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the agent's child %d outlived the case", pid)
		}
	}
}

// alive reports whether process pid runs (and is not a zombie).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...
	_, after, ok := bytes.Cut(stat, []byte(") "))
	return ok && len(after) > 0 && after[0] != 'Z'
}
