package readme_test

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// markdown returns the project's documents whose snippets, links and
// names the tests below hold to the code: README.md and the other
// documents at the top of the module, and the guides in docs/.
func markdown(t *testing.T) map[string]string {
	t.Helper()
	top, err := filepath.Glob("../../*.md")
	require.NoError(t, err)
	guides, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, guides, "the guides in docs/")
	docs := map[string]string{}
	for _, f := range append(top, guides...) {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		docs[strings.TrimPrefix(f, "../../")] = string(b)
	}
	require.Contains(t, docs, "README.md")
	return docs
}

// fence is a code block of a markdown document: its info string (the
// word after the opening backticks), its text and the line it starts at.
type fence struct {
	info, text string
	line       int
}

// fences returns the code blocks of a markdown document, and the lines of
// those that open with no info string.
func fences(doc string) (blocks []fence, bare []int) {
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		open := strings.TrimLeft(lines[i], " \t")
		if !strings.HasPrefix(open, "```") {
			continue
		}
		indent := lines[i][:len(lines[i])-len(open)]
		f := fence{info: strings.TrimSpace(strings.TrimPrefix(open, "```")), line: i + 1}
		if f.info == "" {
			bare = append(bare, i+1)
		}
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			body = append(body, strings.TrimPrefix(lines[i], indent))
		}
		f.text = strings.Join(body, "\n") + "\n"
		blocks = append(blocks, f)
	}
	return blocks, bare
}

// TestMarkdownSnippets checks that every Go snippet of the documents
// (README.md, the other top-level documents and docs/*.md) is code of this
// package, verbatim (a snippet from a function body may be indented one
// tab here), so that every snippet compiles and the tests run it. A code
// block says what it holds by its info string: "go" is Go code and is
// checked so; any other ("sh", "yaml", "text" for output or a sketch that
// is not code to compile) is not Go; a block with none is an error, so
// that Go text cannot slip by unchecked.
func TestMarkdownSnippets(t *testing.T) {
	files, _ := filepath.Glob("*_test.go")
	var code []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		code = append(code, string(b))
	}
	snippets := 0
	for name, doc := range markdown(t) {
		blocks, bare := fences(doc)
		for _, line := range bare {
			t.Errorf("%s:%d: a code block with no info string; say what it holds (```go, ```sh, ```yaml, ```text)", name, line)
		}
		for _, b := range blocks {
			if b.info != "go" {
				if strings.HasPrefix(b.info, "go") {
					t.Errorf("%s:%d: info string %q; Go code is ```go, and text that is not Go to compile is ```text", name, b.line, b.info)
				}
				continue
			}
			snippets++
			indented := regexp.MustCompile(`(?m)^(.)`).ReplaceAllString(b.text, "\t$1")
			found := false
			for _, c := range code {
				if strings.Contains(c, b.text) || strings.Contains(c, indented) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s:%d: the Go snippet is not in examples/readme/*_test.go; copy it from there (or add it there):\n%s", name, b.line, b.text)
			}
		}
	}
	if snippets == 0 {
		t.Error("the documents hold no Go snippet")
	}
}

// TestMarkdownLinks checks the relative links of the documents: each
// names a file or directory of the repository, and a #fragment names a
// heading of the markdown file it points into, as GitHub makes anchors of
// headings.
func TestMarkdownLinks(t *testing.T) {
	docs := markdown(t)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	links := 0
	for name, doc := range docs {
		for i, line := range strings.Split(doc, "\n") {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				file, frag, _ := strings.Cut(target, "#")
				path := filepath.Join("../..", filepath.Dir(name), file)
				if file == "" {
					path = filepath.Join("../..", name)
				}
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s:%d: link %s: %v", name, i+1, target, err)
					continue
				}
				if frag == "" {
					continue
				}
				b, err := os.ReadFile(path)
				if err != nil || !strings.HasSuffix(path, ".md") {
					t.Errorf("%s:%d: link %s: a #fragment into a file that is not markdown", name, i+1, target)
					continue
				}
				if !slices.Contains(anchors(string(b)), frag) {
					t.Errorf("%s:%d: link %s: %s has no heading with the anchor #%s (it has %v)", name, i+1, target, file, frag, anchors(string(b)))
				}
			}
		}
	}
	if links == 0 {
		t.Error("the documents hold no relative link")
	}
}

// TestREADMEShort holds README.md to what it is for: what aguitest is,
// install, a first test, CI and links, in at most 250 lines. The rest goes
// in a guide of docs/.
func TestREADMEShort(t *testing.T) {
	if n := strings.Count(markdown(t)["README.md"], "\n"); n > 250 {
		t.Errorf("README.md has %d lines, want at most 250: move the details into a guide of docs/", n)
	}
}

// TestGuidesLinked checks that README.md links every guide in docs/, so
// that a new guide is found from the front page.
func TestGuidesLinked(t *testing.T) {
	docs := markdown(t)
	for name := range docs {
		if strings.HasPrefix(name, "docs/") && !strings.Contains(docs["README.md"], "]("+name) {
			t.Errorf("README.md does not link %s; add it to the list of guides", name)
		}
	}
}

// TestMarkdownPaths checks the paths of the repository the documents name
// in code spans (`examples/claude`, `bench/verify/run.sh`): each exists.
// CHANGELOG.md is left out: it names files that were.
func TestMarkdownPaths(t *testing.T) {
	path := regexp.MustCompile("\x60\\.?/?((?:agui|harness|golden|recorder|replay|scripted|conform|agent|clock|cmd|internal|examples|bench|docs|\\.ci)(?:/[A-Za-z0-9_.-]+)*/?)\x60")
	checked := 0
	for name, doc := range markdown(t) {
		if name == "CHANGELOG.md" {
			continue
		}
		for i, line := range strings.Split(doc, "\n") {
			for _, m := range path.FindAllStringSubmatch(line, -1) {
				if strings.Contains(m[1], "...") {
					continue // a package pattern: examples/...
				}
				checked++
				if _, err := os.Stat(filepath.Join("../..", m[1])); err != nil {
					t.Errorf("%s:%d: %s: no such file or directory in the repository", name, i+1, m[1])
				}
			}
		}
	}
	if checked == 0 {
		t.Error("the documents name no path of the repository")
	}
}

// anchors returns the anchors GitHub gives the headings of a markdown
// document: lower case, punctuation dropped but hyphens and underscores,
// spaces as hyphens, a repeated one numbered.
func anchors(doc string) []string {
	var out []string
	seen := map[string]int{}
	blocks, _ := fences(doc)
	inCode := map[string]bool{}
	for _, b := range blocks {
		for _, l := range strings.Split(b.text, "\n") {
			inCode[l] = true
		}
	}
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "#") || inCode[line] {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var a strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				a.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				a.WriteRune(r)
			}
		}
		s := a.String()
		if n := seen[s]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", s, n))
		} else {
			out = append(out, s)
		}
		seen[s]++
	}
	return out
}

// TestREADMEExampleInAFreshModule pastes README.md's first example into a
// module of its own, as a newcomer does, and runs it as the README says:
// without goldens it fails with the hint to run with -update; "go test
// -update" writes them (no import beyond the example's own gives the
// flag); then "go test" passes.
func TestREADMEExampleInAFreshModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a module of its own three times")
	}
	gocmd, err := exec.LookPath(filepath.Join(runtime.GOROOT(), "bin", "go"))
	require.NoError(t, err, "the go command")
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	first := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(readme)
	require.NotNil(t, first, "README.md has a Go example")
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	// The example's agent is the task board of the examples module, on the
	// openai-go bridge: the module requires the three, each from this
	// checkout.
	mods := map[string]string{
		"github.com/aguitest/aguitest":                  root,
		"github.com/aguitest/aguitest/examples":         filepath.Join(root, "examples"),
		"github.com/aguitest/aguitest/agent/openaichat": filepath.Join(root, "agent", "openaichat"),
	}
	var sum []byte
	mod := "module example.com/myagent\n\ngo 1.26\n"
	for _, path := range slices.Sorted(maps.Keys(mods)) {
		b, err := os.ReadFile(filepath.Join(mods[path], "go.sum"))
		require.NoError(t, err)
		sum = append(sum, b...)
		mod += "\nrequire " + path + " v0.0.0\n\nreplace " + path + " => " + mods[path] + "\n"
	}

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "agent_test.go"), first[1], 0o644))
	goTest := func(args ...string) (string, error) {
		cmd := exec.Command(gocmd, append([]string{"test", "-count=1", "."}, args...)...)
		cmd.Dir = dir
		// Offline, from the module cache this test run already uses.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GONOSUMDB=*", "GOLDIE_UPDATE=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := goTest()
	require.Error(t, err, "without goldens the example fails:\n%s", out)
	assert.Contains(t, out, "run go test with -update", "the failure says how to write the goldens")
	assert.NotContains(t, out, "flag provided but not defined", "go test output")

	out, err = goTest("-update")
	require.NoError(t, err, "go test -update:\n%s", out)
	goldens, _ := filepath.Glob(filepath.Join(dir, "testdata", "*", "*.golden"))
	assert.NotEmpty(t, goldens, "go test -update wrote the goldens:\n%s", out)

	out, err = goTest()
	assert.NoError(t, err, "go test after -update:\n%s", out)
}
