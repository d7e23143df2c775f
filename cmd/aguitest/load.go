package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/replay"
	"github.com/aguitest/aguitest/scripted"
)

// exitInterrupted is the exit status of a server interrupted (SIGINT,
// SIGTERM) before it served: 128 + SIGINT, as shells report it.
const exitInterrupted = 130

// maxScriptBytes bounds a script file: scripts are small, and "llm serve
// /dev/zero" must not read forever.
const maxScriptBytes = 64 << 20

// ctxReader stops reading once ctx is done, so that Ctrl-C ends the
// reading of a large or endless input.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

// Read reads from r unless ctx is done.
func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// interruptible runs load on a goroutine of its own and returns what it
// returns, or ctx's error as soon as ctx is done: opening a FIFO no one
// writes to blocks in the kernel, where no reader can be stopped.
func interruptible[T any](ctx context.Context, load func(context.Context) (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := load(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, errInterrupted
	}
}

var errInterrupted = fmt.Errorf("interrupted")

// loadRecording reads a recording whole, as replay.Load does, until ctx
// is done.
func loadRecording(ctx context.Context, path string) (*replay.Recording, error) {
	return interruptible(ctx, func(ctx context.Context) (*replay.Recording, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return replay.Read(recorder.NewReader(ctxReader{ctx, f}, path))
	})
}

// loadScript reads a script file of at most maxScriptBytes until ctx is
// done.
func loadScript(ctx context.Context, path string) (scripted.Script, error) {
	return interruptible(ctx, func(ctx context.Context) (scripted.Script, error) {
		f, err := os.Open(path)
		if err != nil {
			return scripted.Script{}, err
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(ctxReader{ctx, f}, maxScriptBytes+1))
		if err != nil {
			return scripted.Script{}, err
		}
		if len(data) > maxScriptBytes {
			return scripted.Script{}, fmt.Errorf("%s: larger than %d MiB: not a script", path, maxScriptBytes>>20)
		}
		return scripted.Parse(path, data)
	})
}
