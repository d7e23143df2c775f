package harness_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// TestUpdateRemovesNothing: under "go test -update" the harness rewrites
// the goldens of the cases that ran and removes nothing: not the goldens of
// cases that did not run, not a fuzz corpus, not other files.
func TestUpdateRemovesNothing(t *testing.T) {
	setUpdate(t, true)
	require.Nil(t, flag.Lookup("clean"), "no -clean flag: goldie is not linked")

	dir := t.TempDir()
	keep := map[string]string{
		"fuzz/FuzzAgent/0123abcd":                    "go test fuzz v1\nstring(\"x\")\n",
		t.Name() + "/a-case-that-did-not-run.golden": "{\"type\":\"RUN_STARTED\"}\n",
		t.Name() + "/notes.txt":                      "kept\n",
		"recording.jsonl":                            "{}\n",
	}
	for name, content := range keep {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	past := time.Now().Add(-time.Hour)
	for _, d := range []string{dir, filepath.Join(dir, t.Name())} {
		require.NoError(t, os.Chtimes(d, past, past))
	}

	harness.Run(t, harness.Func(chatAgent(false)), []harness.Case{{
		Name: "ran", Input: harness.User("hi"),
		Script: scripted.Script{Turns: []scripted.Turn{{Text: "hello"}}},
	}}, harness.Options{Dir: dir})

	for name, content := range keep {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if assert.NoError(t, err, "%s was removed", name) {
			assert.Equal(t, content, string(b), name)
		}
	}
	assert.FileExists(t, filepath.Join(dir, t.Name(), "ran.golden"))
}
