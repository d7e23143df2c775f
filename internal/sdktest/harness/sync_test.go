package harness_test

import (
	"bytes"
	"os"
	"testing"
)

// The tests of this package run the harness with agents of the examples
// and provider SDKs. They live in a module of their own so that the
// library's go.mod requires neither, and a test of another module cannot
// reach harness's test files: the helpers both use are one file, copied.
// TestHelpersAreHarnesss keeps the copy equal to its source.
func TestHelpersAreHarnesss(t *testing.T) {
	src, err := os.ReadFile("../../../harness/helpers_test.go")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("helpers_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, src) {
		t.Error("internal/sdktest/harness/helpers_test.go is not a copy of harness/helpers_test.go: copy the file again (cp harness/helpers_test.go internal/sdktest/harness/)")
	}
}
