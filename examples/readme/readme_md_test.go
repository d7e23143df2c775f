package readme_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMESnippets checks that every Go snippet of README.md is code of
// this package, verbatim (a snippet from a function body may be indented
// one tab here), so that every snippet compiles and the tests run it.
func TestREADMESnippets(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("*_test.go")
	var code []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code = append(code, string(b))
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no Go snippets")
	}
	for _, b := range blocks {
		snippet := b[1]
		indented := regexp.MustCompile(`(?m)^(.)`).ReplaceAllString(snippet, "\t$1")
		found := false
		for _, c := range code {
			if strings.Contains(c, snippet) || strings.Contains(c, indented) {
				found = true
			}
		}
		if !found {
			t.Errorf("README.md's snippet is not in examples/readme/*_test.go; copy it from there:\n%s", snippet)
		}
	}
}
