package scripted_test

import (
	"os"
	"strings"
	"testing"
)

// The tests of this package run scripted's server against the providers'
// Go SDKs. They live in a module of their own so that the library's
// go.mod requires no SDK, and a test of another module cannot reach
// scripted's test files: the helpers both use are one file, copied.
// TestHelpersAreScripteds keeps the copy equal to its source.
func TestHelpersAreScripteds(t *testing.T) {
	src, err := os.ReadFile("../../../scripted/helpers_test.go")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("helpers_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if want := copyOfHelpers(string(src)); string(got) != want {
		t.Error("internal/sdktest/scripted/helpers_test.go is not a copy of scripted/helpers_test.go: " +
			"copy the file again, with the package clause and the import of scripted that copyOfHelpers gives it")
	}
}

const copyHeader = "// Code copied from scripted/helpers_test.go by TestHelpersAreScripteds's\n// instructions; edit that file, not this one.\n\n"

func copyOfHelpers(src string) string {
	src = strings.Replace(src, "package scripted\n", "package scripted_test\n", 1)
	if i := strings.Index(src, "import (\n"); i >= 0 {
		if j := strings.Index(src[i:], "\n)\n"); j >= 0 {
			j += i + 3
			src = src[:j] + "\nimport . \"github.com/aguitest/aguitest/scripted\"\n" + src[j:]
		}
	}
	return copyHeader + src
}
