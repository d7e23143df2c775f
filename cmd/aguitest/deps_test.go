package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goCommand returns the go command that runs the tests.
func goCommand(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath(filepath.Join(runtime.GOROOT(), "bin", "go")); err == nil {
		return p
	}
	p, err := exec.LookPath("go")
	require.NoError(t, err, "the go command is needed to list dependencies")
	return p
}

// TestNoTestOnlyCodeInTheCommand: the aguitest binary links neither the
// testing package nor goldie, so it registers none of their flags
// (-test.*, -update, -clean, -template) and carries no test code.
func TestNoTestOnlyCodeInTheCommand(t *testing.T) {
	out, err := exec.Command(goCommand(t), "list", "-deps", ".").Output()
	require.NoError(t, err, "go list: %s", out)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/aguitest/aguitest/golden", "the listing is of the command")
	for _, pkg := range deps {
		assert.NotEqual(t, "testing", pkg, "the command links the testing package")
		assert.False(t, strings.HasPrefix(pkg, "github.com/sebdah/goldie"), "the command links %s", pkg)
		assert.False(t, strings.HasPrefix(pkg, "github.com/stretchr/testify"), "the command links %s", pkg)
	}
}

// TestUpdateFlagInEveryTestBinary: "go test ./... -update" needs every test
// binary of the module to know -update, from one place: internal/testflags,
// which golden and harness import, or, in a package whose tests link
// neither, goldie (imported in its update_test.go). Never both: two
// registrations of -update panic at the binary's start.
func TestUpdateFlagInEveryTestBinary(t *testing.T) {
	t.Parallel() // go list waits for the module's packages to load
	out, err := exec.Command(goCommand(t), "list", "-test", "-f", `{{.ImportPath}}{{"\t"}}{{join .Deps " "}}`, "github.com/aguitest/aguitest/...").Output()
	require.NoError(t, err, "go list: %s", out)
	binaries := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, "\t")
		if !strings.HasSuffix(pkg, ".test") {
			continue
		}
		binaries++
		d := strings.Fields(deps)
		ours := slices.Contains(d, "github.com/aguitest/aguitest/internal/testflags")
		goldie := slices.Contains(d, "github.com/sebdah/goldie/v2")
		assert.True(t, ours != goldie, "%s: -update registered by internal/testflags: %v, by goldie: %v (want exactly one)", pkg, ours, goldie)
	}
	assert.Greater(t, binaries, 10, "test binaries listed")
}

// TestLibraryImports: the library packages link only what they need: no
// provider SDK, OpenTelemetry or Google auth (the examples' and the
// provider bridges' dependencies), and no testing or goldie (their flags
// are registered by internal/testflags in test binaries only), so that
// they run in production and in the command.
func TestLibraryImports(t *testing.T) {
	t.Parallel()
	libs := []string{"agui", "scripted", "recorder", "replay", "golden", "harness", "agent", "clock"}
	forbidden := []string{
		"testing", "github.com/sebdah/goldie", "github.com/stretchr/testify",
		"github.com/openai/", "github.com/anthropics/", "github.com/sashabaranov/", "google.golang.org/genai",
		"go.opentelemetry.io/", "cloud.google.com/", "golang.org/x/oauth2", "google.golang.org/grpc",
	}
	// links reports whether pkg is f, or under f when f ends with "/" or
	// is a module.
	links := func(pkg, f string) bool {
		if strings.HasSuffix(f, "/") {
			return strings.HasPrefix(pkg, f)
		}
		return pkg == f || f != "testing" && strings.HasPrefix(pkg, f+"/")
	}
	// One listing of them all: each go list loads the workspace.
	args := []string{"list", "-f", `{{.ImportPath}}{{"\t"}}{{join .Deps " "}}`}
	for _, lib := range libs {
		args = append(args, "github.com/aguitest/aguitest/"+lib)
	}
	out, err := exec.Command(goCommand(t), args...).Output()
	require.NoError(t, err, "go list: %s", out)
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, d, _ := strings.Cut(line, "\t")
		deps[strings.TrimPrefix(pkg, "github.com/aguitest/aguitest/")] = strings.Fields(d)
	}
	for _, lib := range libs {
		t.Run(lib, func(t *testing.T) {
			require.NotEmpty(t, deps[lib], "go list listed no dependencies of %s", lib)
			for _, pkg := range deps[lib] {
				for _, f := range forbidden {
					assert.False(t, links(pkg, f), "%s links %s", lib, pkg)
				}
			}
		})
	}
}

// TestLibraryModuleRequirements: the library's go.mod requires only what
// the library's own packages and their tests import. The examples, the
// provider bridges (agent/openaichat, ...), the command, the benchmarks and
// the tests that run the providers' SDKs (internal/sdktest) are modules of
// their own, so that a user of the library downloads no provider SDK.
func TestLibraryModuleRequirements(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	cmd := exec.Command(goCommand(t), "list", "-deps", "-test", "-f", "{{with .Module}}{{.Path}}{{end}}", "./...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the library module alone (GOWORK=off) must build with its tests: go list: %s", out)
	used := map[string]bool{}
	for _, m := range strings.Fields(string(out)) {
		used[m] = true
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	direct := requirements(string(mod))
	require.NotEmpty(t, direct, "no requirements read from go.mod")
	for _, r := range direct {
		assert.True(t, used[r], "go.mod requires %s, which no package of the library module or its tests imports", r)
		for _, sdk := range []string{"github.com/openai/", "github.com/anthropics/", "github.com/sashabaranov/", "google.golang.org/genai", "github.com/aws/", "github.com/ollama/", "cloud.google.com/"} {
			assert.False(t, strings.HasPrefix(r, sdk), "the library module requires the provider SDK %s", r)
		}
	}
}

// requirements returns the modules a go.mod requires directly.
func requirements(mod string) []string {
	var out []string
	block := false
	for _, l := range strings.Split(mod, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "require (":
			block = true
		case block && l == ")":
			block = false
		case block && l != "" && !strings.Contains(l, "// indirect"):
			out = append(out, strings.Fields(l)[0])
		case strings.HasPrefix(l, "require ") && !strings.Contains(l, "// indirect"):
			out = append(out, strings.Fields(l)[1])
		}
	}
	return out
}
