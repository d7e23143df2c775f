// Package textgolden keeps golden files of text that is not an event
// stream (a conformance report as JSON Lines), for tests: written under
// "go test -update", otherwise compared line by line.
package textgolden

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/golden"
)

// Check compares got with the golden file dir/name.golden, reporting on t
// the lines that differ (-want +got); under -update it writes the file
// first.
func Check(t testing.TB, dir, name string, got []byte) {
	t.Helper()
	file := golden.Path(dir, name)
	if golden.Update() {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s is missing; run go test with -update to write it", file)
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")); diff != "" {
		t.Errorf("%s differs (-want +got); run go test with -update to accept it:\n%s", file, diff)
	}
}

// uuid finds UUIDs in a text.
var uuid = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// RunIDs replaces the UUIDs of a problem's text with run-N, in the order
// they first appear. The harness gives each run a UUID drawn from the
// case and plan; a problem names the ids of its runs (and those an agent
// makes from them, "<run>-call-2"), so that in a golden of reports, as in
// a golden of events, the first run named is run-1.
func RunIDs(text string) string {
	seen := map[string]string{}
	return uuid.ReplaceAllStringFunc(text, func(u string) string {
		if p, ok := seen[u]; ok {
			return p
		}
		p := "run-" + strconv.Itoa(len(seen)+1)
		seen[u] = p
		return p
	})
}
