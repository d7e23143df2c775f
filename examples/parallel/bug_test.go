package parallel_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/harness"
)

// childEnv marks the child process in which the mixed-up agent runs; the
// harness reports with t.Errorf, so its failure must happen elsewhere for
// this test to read it.
const childEnv = "AGUITEST_PARALLEL_CHILD"

// TestMixedUpIsCaught runs the mixed-up agent in a child process, under a
// sequential plan (where the bug cannot show) and a round-robin one (where
// it does), and checks what the harness reports.
func TestMixedUpIsCaught(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("runs only in the parent")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestMixedUpChild$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err == nil {
		t.Fatalf("the mixed-up agent passed; want it caught. Output:\n%s", out.String())
	}
	got := out.String()
	for _, want := range []string{
		"--- PASS: TestMixedUpChild/sequential",
		"--- FAIL: TestMixedUpChild/round-robin",
		// The golden the correct agents wrote, event by event.
		"round-robin.golden: 1 event differs",
		`.toolCalls[1].args: got "", want {"city":"Zürich"}`,
		`fityityrom`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
	// The verifier, at the END of the last call: the fragments of all
	// three went under its id (the other two got none, which alone is a
	// call without arguments). The agent makes its call ids from the run
	// id, which the harness mints as a UUID.
	verifier := regexp.MustCompile(`run 1: event 69 \(TOOL_CALL_END\) \[toolCallId=(` + uuid + `-call-3)\]: args-not-json: the arguments of tool call '(` + uuid + `-call-3)' are not JSON`)
	if m := verifier.FindStringSubmatch(got); m == nil || m[1] != m[2] {
		t.Errorf("the report lacks the verifier's args-not-json at the END of call 3 (%s):\n%s", verifier, got)
	}
}

// uuid matches an id the harness mints.
const uuid = `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`

// TestMixedUpChild holds the scenario of TestMixedUpIsCaught. The goldens
// it compares with are those of the correct agents.
func TestMixedUpChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("runs only as TestMixedUpIsCaught's child")
	}
	// The goldens are those the correct agents wrote.
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, t.Name()), os.DirFS(filepath.Join("testdata", "TestStreaming"))); err != nil {
		t.Fatal(err)
	}
	var cases []harness.Case
	for _, name := range []string{"sequential", "round-robin"} {
		for _, p := range plans {
			if p.name == name {
				cases = append(cases, harness.Case{
					Name:   name,
					Input:  harness.User("Weather in Zürich and Tokyo, and 12.5 EUR in yen?"),
					Script: script(p.plan),
					Tools:  tools,
				})
			}
		}
	}
	// Each case runs under its own plan alone: explored, the sequential
	// case too would reach plans that interleave the calls, and fail.
	harness.Run(t, agent(mixedUp), cases, harness.Options{Dir: dir, Explore: &harness.Explore{Off: true}})
}
