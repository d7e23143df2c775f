package conform_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/conform"
)

// ParseCases never panics, and every error it returns names the file,
// and a line wherever a line can be had, on each of its lines.
func FuzzParseCases(f *testing.F) {
	f.Add([]byte(deskCases))
	f.Add([]byte("cases:\n  - name: a\n    input: {user: hi}\n    script: {turns: [{text: hi}]}\n    expect: {state: {/a: 1}, calls: [{name: t, args: {x[0]: {matches: ^a}}}]}\n"))
	f.Add([]byte(`{"cases":[{"name":"a","input":{"messages":[{"role":"user","content":"hi"}]},"script":{"turns":[{"text":"hi"}]}}]}`))
	f.Add([]byte("cases:\n  - name: a\n    want_error: true\n    golden: wire\n    tools: [{name: t, result: 1}]\n"))
	where := regexp.MustCompile(`^c\.yaml(:\d+(:\d+)?)?: `)
	f.Fuzz(func(t *testing.T, data []byte) {
		cf, err := conform.ParseCases("c.yaml", data)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !where.MatchString(line) {
					t.Errorf("an error line that does not name the file: %q", line)
				}
			}
			return
		}
		if len(cf.Cases) == 0 || len(cf.Cases) != len(cf.Lines) {
			t.Errorf("%d cases, %d lines: a file read without error has cases, each with its line", len(cf.Cases), len(cf.Lines))
		}
	})
}
