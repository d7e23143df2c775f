package sdktest_test

import (
	"os"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/golden"
)

// The tests of this package drive the library's packages (scripted,
// harness, replay, agent) with the providers' SDKs and the example agents.
// They live in a module of their own, so that the library's go.mod
// requires neither, and in one package, so that go test links one binary
// for them all. A test of another module cannot reach a package's test
// files: the helpers of harness and scripted are copied here, each with
// this package's clause, and TestHelpersAreCopies keeps each copy equal to
// its source ("go test -run TestHelpersAreCopies -update" in this folder
// copies them again).
func TestHelpersAreCopies(t *testing.T) {
	for _, h := range []struct {
		src, copy, pkg string
		dot            string // the package the copy dot-imports, for a source inside its package
	}{
		{src: "harness/helpers_test.go", copy: "harness_helpers_test.go", pkg: "harness_test"},
		{src: "scripted/helpers_test.go", copy: "scripted_helpers_test.go", pkg: "scripted", dot: "github.com/aguitest/aguitest/scripted"},
	} {
		src, err := os.ReadFile("../../" + h.src)
		if err != nil {
			t.Fatal(err)
		}
		want := copyOfHelpers(t, h.src, string(src), h.pkg, h.dot)
		if golden.Update() {
			if err := os.WriteFile(h.copy, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(h.copy)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("internal/sdktest/%s is not a copy of %s: copy it again (go test -run TestHelpersAreCopies -update, in internal/sdktest)", h.copy, h.src)
		}
	}
}

// copyOfHelpers is src, the helpers file name of package pkg, as this
// package holds it: under a header, in package sdktest_test, importing
// dot into its scope when the source is a file of the package itself.
func copyOfHelpers(t *testing.T, name, src, pkg, dot string) string {
	t.Helper()
	clause := "package " + pkg + "\n"
	i := strings.Index(src, clause)
	if i < 0 || (i > 0 && src[i-1] != '\n') {
		t.Fatalf("%s has no line %q", name, strings.TrimSpace(clause))
	}
	src = src[:i] + "package sdktest_test\n" + src[i+len(clause):]
	if dot != "" {
		i := strings.Index(src, "import (\n")
		if i < 0 {
			t.Fatalf("%s has no import block", name)
		}
		j := strings.Index(src[i:], "\n)\n")
		if j < 0 {
			t.Fatalf("%s has no import block", name)
		}
		j += i + 3
		src = src[:j] + "\nimport . \"" + dot + "\"\n" + src[j:]
	}
	return "// Code copied from " + name + " by TestHelpersAreCopies's\n// instructions; edit that file, not this one.\n\n" + src
}
