package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// setFlag sets a command-line flag for the test, as "go test -name=value"
// does.
func setFlag(t *testing.T, name, value string) {
	t.Helper()
	f := flag.Lookup(name)
	require.NotNil(t, f, "flag -%s is not registered", name)
	old := f.Value.String()
	require.NoError(t, f.Value.Set(value))
	t.Cleanup(func() { _ = f.Value.Set(old) })
}

// TestUpdateKeepsTestdata: "go test -update" rewrites a golden through
// Check("testdata", ...) and removes nothing else in testdata: not the fuzz
// corpus, not other goldens, not other files. (goldie's -clean, which would
// empty the folder, is not a flag of these test binaries.)
func TestUpdateKeepsTestdata(t *testing.T) {
	setFlag(t, "update", "true")
	require.Nil(t, flag.Lookup("clean"), "no -clean flag")
	require.True(t, Update())

	testdata := filepath.Join(t.TempDir(), "testdata")
	keep := map[string]string{
		"fuzz/FuzzParse/0123abcd":       "go test fuzz v1\n[]byte(\"x\")\n",
		"other.golden":                  "{\"type\":\"A\"}\n",
		"streams/simple.sse":            "data: {}\n\n",
		"TestAgent/another-case.golden": "{\"type\":\"B\"}\n",
	}
	for name, content := range keep {
		path := filepath.Join(testdata, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	// A checkout is older than the test run.
	old := time.Now().Add(-time.Hour)
	for _, d := range []string{testdata, filepath.Join(testdata, "TestAgent")} {
		require.NoError(t, os.Chtimes(d, old, old))
	}

	text := []byte("{\"type\":\"RUN_STARTED\"}\n")
	require.NoError(t, Check(testdata, "case", text, Update()))
	require.NoError(t, Check(filepath.Join(testdata, "TestAgent"), "case", text, Update()))

	for name, content := range keep {
		b, err := os.ReadFile(filepath.Join(testdata, name))
		if assert.NoError(t, err, "%s was removed", name) {
			assert.Equal(t, content, string(b), name)
		}
	}
	for _, path := range []string{Path(testdata, "case"), Path(filepath.Join(testdata, "TestAgent"), "case")} {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, string(text), string(b), path)
	}
}
