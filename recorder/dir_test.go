package recorder

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Dir that does not exist yet is created, and runs are recorded in it.
func TestMiddlewareCreatesDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet")
	logs := captureSlog(t)
	h := Middleware(agent(streamEvents("r", 3)), Config{Dir: dir})
	assert.DirExists(t, dir, "the directory, right after Middleware")

	srv := httptest.NewServer(h)
	post(t, srv.URL, `{"runId":"r"}`, nil)
	srv.Close()
	h.Wait()

	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	assert.Len(t, files, 1, "recordings in %s", dir)
	assert.Zero(t, h.Stats().StorageErrors)
	assert.Empty(t, logs.String(), "nothing went wrong, nothing is logged")
}

// A Dir that cannot be created is reported when the middleware is made,
// and every run that cannot be stored is reported too: through slog by
// default, through OnError when it is set. The client notices nothing.
func TestMiddlewareReportsStorageErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	dir := filepath.Join(file, "recordings") // under a regular file
	evs := streamEvents("r", 3)

	t.Run("slog by default", func(t *testing.T) {
		logs := captureSlog(t)
		h := Middleware(agent(evs), Config{Dir: dir})
		assert.Contains(t, logs.String(), "level=ERROR")
		assert.Contains(t, logs.String(), "recorder: cannot create the recording directory "+dir)

		logs.Reset()
		srv := httptest.NewServer(h)
		got := post(t, srv.URL, `{"runId":"r"}`, nil)
		srv.Close()
		h.Wait()
		assert.NotEmpty(t, got, "the client still gets the stream")
		assert.Equal(t, int64(1), h.Stats().StorageErrors)
		assert.Contains(t, logs.String(), "level=ERROR")
		assert.Contains(t, logs.String(), "recorder: run r: ")
	})

	t.Run("OnError when set", func(t *testing.T) {
		logs := captureSlog(t)
		var mu sync.Mutex
		var reported []string
		h := Middleware(agent(evs), Config{Dir: dir, OnError: func(err error) {
			mu.Lock()
			defer mu.Unlock()
			reported = append(reported, err.Error())
		}})
		srv := httptest.NewServer(h)
		post(t, srv.URL, `{"runId":"r"}`, nil)
		srv.Close()
		h.Wait()
		require.Len(t, reported, 2)
		assert.Contains(t, reported[0], "recorder: cannot create the recording directory "+dir)
		assert.Contains(t, reported[1], "recorder: run r: ")
		assert.Empty(t, logs.String(), "OnError replaces the log")
	})
}

// captureSlog sends slog.Default to a buffer for the test.
func captureSlog(t *testing.T) *lockedBuffer {
	t.Helper()
	old := slog.Default()
	t.Cleanup(func() { slog.SetDefault(old) })
	var b lockedBuffer
	slog.SetDefault(slog.New(slog.NewTextHandler(&b, nil)))
	return &b
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func (b *lockedBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b.Reset()
}
