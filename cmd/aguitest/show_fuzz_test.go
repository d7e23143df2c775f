package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// summaryLine is the last line of show's transcript.
var summaryLine = regexp.MustCompile(`^\S.*: \d+ events? in \d+ runs?, \d+ violations?$`)

// FuzzShow runs show, whose stream is read and verified on one goroutine,
// built into runs on another and applied to each run's view on a third,
// on any input: it ends (no panic, no deadlock) with the summary line, or
// with an error, and it says the same when run again.
func FuzzShow(f *testing.F) {
	addShowSeeds(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "in")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		show := func() (int, string, string) {
			var out, errOut bytes.Buffer
			code := run([]string{"show", p}, strings.NewReader(""), &out, &errOut)
			return code, out.String(), errOut.String()
		}
		code, out, errOut := show()
		switch code {
		case 0: // show shows violations; verify is the check that fails
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			if !summaryLine.MatchString(lines[len(lines)-1]) {
				t.Fatalf("exit 0 without the summary line:\n%s", out)
			}
		case 2:
			if errOut == "" {
				t.Fatal("exit 2 with nothing on standard error")
			}
		default:
			t.Fatalf("exit %d", code)
		}
		if c2, out2, err2 := show(); c2 != code || out2 != out || err2 != errOut {
			t.Fatalf("a second show says otherwise: exit %d then %d", code, c2)
		}
	})
}
