package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

func TestProgress(t *testing.T) {
	t.Run("off when piped", func(t *testing.T) {
		var out bytes.Buffer
		p := newProgress(&out, 1<<30)
		r := p.Reader(strings.NewReader("data"), "f.jsonl")
		io.Copy(io.Discard, r)
		p.Done()
		if out.Len() != 0 {
			t.Errorf("got %q on a writer that is not a terminal, want nothing", out.String())
		}
	})
	t.Run("draws on a terminal", func(t *testing.T) {
		var out bytes.Buffer
		clock := time.Unix(0, 0)
		p := &progress{w: &out, on: true, total: 8, now: func() time.Time {
			clock = clock.Add(time.Second)
			return clock
		}}
		r := p.Reader(strings.NewReader("abcd"), "f.jsonl")
		io.Copy(io.Discard, r)
		if want := "\r[###############               ]  50% f.jsonl\x1b[K"; !strings.Contains(out.String(), want) {
			t.Errorf("got %q, want it to contain %q", out.String(), want)
		}
		p.Done()
		if !strings.HasSuffix(out.String(), "\r\x1b[K") {
			t.Errorf("Done did not clear the line: %q", out.String())
		}
	})
}
