package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agui"
)

// TestShowBounds: show keeps at most 64 KiB of a message or call (a call's
// longer arguments are shown as their start and size), and the page draws
// at most 50 runs, saying what it leaves out; the transcript shows every
// run.
func TestShowBounds(t *testing.T) {
	var stream bytes.Buffer
	write := func(e agui.Event) {
		stream.Write(e.Raw())
		stream.WriteByte('\n')
	}
	for i := range 60 {
		id := "r" + strings.Repeat("x", i%3) + string(rune('a'+i%26))
		write(agui.NewRunStarted("t", id))
		write(agui.NewToolCallStart("c", "big", ""))
		if i == 0 {
			for range 200 {
				write(agui.NewToolCallArgs("c", strings.Repeat("a", 1000)))
			}
		} else {
			write(agui.NewToolCallArgs("c", `{}`))
		}
		write(agui.NewToolCallEnd("c"))
		write(agui.NewRunFinished("t", id))
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "many.jsonl")
	os.WriteFile(in, stream.Bytes(), 0o644)
	page := filepath.Join(dir, "page.html")
	code, out, errOut := runCmd(t, "", "show", "--html", page, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(out, "\nrun "); n != 60 {
		t.Errorf("the transcript shows %d runs, want 60", n)
	}
	if !strings.Contains(out, `call c big "aaaa`) || !strings.Contains(out, "(200000 bytes of arguments)") {
		t.Errorf("the long arguments are not shown as their start and size:\n%.600s", out)
	}
	if !strings.Contains(errOut, "10 runs after the first 50") {
		t.Errorf("stderr does not say what the page leaves out: %s", errOut)
	}
	b, _ := os.ReadFile(page)
	if n := strings.Count(string(b), `<section class="run"`); n != 50 {
		t.Errorf("the page draws %d runs, want 50", n)
	}
	if !strings.Contains(string(b), "This page is bounded: it leaves out 10 runs after the first 50") {
		t.Error("the page does not say what it leaves out")
	}
}
