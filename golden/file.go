package golden

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/aguitest/aguitest/internal/testflags"
	"github.com/aguitest/aguitest/internal/words"
)

// ErrMissing is returned (wrapped, with the file name and the hint to run
// with -update) by Check when the golden file does not exist.
var ErrMissing = errors.New("golden file missing")

// MismatchError is returned by Check when a golden file and the new
// entries differ. Its message names the file and reports each differing
// entry (see Report).
type MismatchError struct {
	// File is the golden file.
	File string
	// Differences are the differing entries; empty when the two differ
	// only in formatting or in the numbering of ids.
	Differences []Difference
}

// Error names the file and reports the differences, (-want +got).
func (e *MismatchError) Error() string {
	if len(e.Differences) == 0 {
		return fmt.Sprintf("golden: %s differs from the new stream only in formatting or id numbering; run go test with -update to rewrite it", e.File)
	}
	verb := "differ"
	if len(e.Differences) == 1 {
		verb = "differs"
	}
	return fmt.Sprintf("golden: %s: %s %s (-want the golden file, +got the new stream, events numbered from 1 as its lines); run go test with -update to accept the new stream\n%s",
		e.File, words.Count(len(e.Differences), "event", "events"), verb, strings.TrimSuffix(Report(e.Differences), "\n"))
}

// Update reports whether golden files should be rewritten: the value of
// the -update flag, "go test ./... -update", or GOLDIE_UPDATE=1 in the
// environment. Every test binary that links this package has the flag
// (registered only in test binaries; see the package documentation); in
// another program, such as the aguitest command, Update reports false
// unless the variable is set.
func Update() bool { return testflags.Update() }

// Path returns the golden file of name in dir: dir/name.golden.
func Path(dir, name string) string {
	return filepath.Join(dir, name+".golden")
}

// Check compares got, golden text as Marshal writes it, with the golden
// file Path(dir, name). With update set it first writes got there
// (creating dir), so the comparison passes. Otherwise a missing file is an
// error wrapping ErrMissing that says to run with -update, and a file that
// differs is a *MismatchError reporting each differing event. Other errors
// are environment failures (reading, writing, a golden file that does not
// parse, with its line).
//
// Check writes one file and never removes any.
//
// Tests usually pass Update() as update, so that "go test ./... -update"
// rewrites every golden.
func Check(dir, name string, got []byte, update bool) error {
	file := Path(dir, name)
	if update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("golden: writing %s: %w", file, err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			return fmt.Errorf("golden: writing %s: %w", file, err)
		}
	}
	want, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("golden: %s: %w; run go test with -update to write it", file, ErrMissing)
	}
	if err != nil {
		return fmt.Errorf("golden: %w", err)
	}
	if bytes.Equal(want, got) {
		return nil
	}
	wantEntries, err := Parse(want)
	if pe := (*ParseError)(nil); errors.As(err, &pe) {
		return fmt.Errorf("golden: %s:%d: %w; run go test with -update to rewrite it", file, pe.Line, pe.Err)
	}
	gotEntries, err := Parse(got)
	if err != nil {
		return fmt.Errorf("golden: the new stream's golden text for %s: %w", file, err)
	}
	return &MismatchError{File: file, Differences: Compare(wantEntries, gotEntries)}
}
