package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/recorder"
)

// middlewareDir records runs r1, r2 and r3 through the recorder's
// middleware into a directory, one file per run, as production does.
func middlewareDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "recordings")
	agent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in agui.RunAgentInput
		_ = json.NewDecoder(r.Body).Decode(&in)
		w.Header().Set("Content-Type", agui.MediaTypeSSE)
		for _, e := range []string{
			`{"type":"RUN_STARTED","threadId":"t","runId":"%s"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m-%s","role":"assistant"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-%s","delta":"hello from %s"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m-%s"}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"%s"}`,
		} {
			args := []any{in.RunID, in.RunID}[:strings.Count(e, "%s")]
			fmt.Fprintf(w, "data: "+e+"\n\n", args...)
		}
	})
	h := recorder.Middleware(agent, recorder.Config{Dir: dir})
	srv := httptest.NewServer(h)
	for _, id := range []string{"r1", "r2", "r3"} {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"threadId":"t","runId":"`+id+`","messages":[]}`))
		require.NoError(t, err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	srv.Close()
	h.Wait()
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	require.Len(t, files, 3, "one file per run")
	return dir
}

// "aguitest serve DIR" serves the runs of the directory the middleware
// writes, in the order they ran; after the last, the 409 names serve and
// how to serve them again.
func TestServeDirectory(t *testing.T) {
	dir := middlewareDir(t)
	for _, args := range [][]string{{dir}, {filepath.Join(dir, "*.jsonl")}, {filepath.Join(dir, "*r1.jsonl"), filepath.Join(dir, "*r[23].jsonl")}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			url, stop, stderr := startServing(t, runServe, append([]string{"--speed", "0"}, args...)...)
			for _, id := range []string{"r1", "r2", "r3"} {
				resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
				require.NoError(t, err)
				evs, err := agui.ReadEvents(resp.Body)
				resp.Body.Close()
				require.NoError(t, err)
				require.Len(t, evs, 5)
				assert.Contains(t, string(evs[0].Raw()), `"runId":"`+id+`"`)
			}
			resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, http.StatusConflict, resp.StatusCode)
			assert.Equal(t, "aguitest serve: all 3 recorded runs were served; --loop (Options.Loop) serves them again from the first\n", string(body))
			assert.Equal(t, 0, stop())
			assert.Contains(t, stderr.String(), "aguitest serve: 3 runs from 3 files ("+strings.Join(args, " ")+")\n")
		})
	}
}

func TestServeInputs(t *testing.T) {
	dir := middlewareDir(t)
	empty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("x"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"nothing", nil, "want a FILE, DIR or PATTERN of recordings"},
		{"no match", []string{filepath.Join(dir, "*.sse")}, "*.sse: no file matches"},
		{"bad pattern", []string{filepath.Join(dir, "[")}, "syntax error in pattern"},
		{"no recordings", []string{empty}, empty + ": no *.jsonl files in it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCmd(t, "", append([]string{"serve"}, tc.args...)...)
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, tc.want)
		})
	}
}

// "aguitest show DIR" (and a pattern) shows each file's runs in turn, in
// the order they ran; --messages and --html take them too.
func TestShowDirectory(t *testing.T) {
	dir := middlewareDir(t)
	code, out, errOut := runCmd(t, "", "show", dir)
	require.Equal(t, 0, code, errOut)
	i1, i2, i3 := strings.Index(out, "hello from r1"), strings.Index(out, "hello from r2"), strings.Index(out, "hello from r3")
	assert.True(t, i1 >= 0 && i1 < i2 && i2 < i3, "the runs in the order they ran:\n%s", out)
	assert.Equal(t, 3, strings.Count(out, ": 5 events in 1 run, 0 violations\n"), out)

	code, out, _ = runCmd(t, "", "show", "--messages", filepath.Join(dir, "*r[12].jsonl"))
	require.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, out)
	assert.Contains(t, lines[0], `"run":"r1"`)
	assert.Contains(t, lines[1], `"run":"r2"`)

	page := filepath.Join(t.TempDir(), "runs.html")
	code, _, errOut = runCmd(t, "", "show", "--html", page, dir)
	require.Equal(t, 0, code, errOut)
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	for _, id := range []string{"r1", "r2", "r3"} {
		assert.Contains(t, string(b), "hello from "+id)
	}
	assert.Contains(t, string(b), "3 files")
}
