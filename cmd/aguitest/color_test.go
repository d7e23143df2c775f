package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestColorOnlyOnATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tests := []struct {
		name    string
		w       any
		noColor string
	}{
		{"buffer", &bytes.Buffer{}, ""},
		{"file", f, ""},
		{"NO_COLOR", f, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("NO_COLOR", tt.noColor)
			var p palette
			switch w := tt.w.(type) {
			case *bytes.Buffer:
				p = colorFor(w)
			case *os.File:
				p = colorFor(w)
			}
			if got := p.red("x"); got != "x" {
				t.Errorf("red(%q) = %q, want plain text", "x", got)
			}
		})
	}
	if got, want := (palette{on: true}).red("x"), "\x1b[31mx\x1b[0m"; got != want {
		t.Errorf("on a terminal, red(%q) = %q, want %q", "x", got, want)
	}
}
