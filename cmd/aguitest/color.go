package main

import (
	"io"
	"os"
)

// palette colours output for a terminal; its zero value writes plain text.
type palette struct{ on bool }

// colorFor returns the palette for w: colour only when w is a terminal and
// NO_COLOR is unset or empty (https://no-color.org), so that pipes, files
// and tests get plain text.
func colorFor(w io.Writer) palette {
	if os.Getenv("NO_COLOR") != "" {
		return palette{}
	}
	f, ok := w.(*os.File)
	if !ok {
		return palette{}
	}
	fi, err := f.Stat()
	if err != nil {
		return palette{}
	}
	return palette{on: fi.Mode()&os.ModeCharDevice != 0}
}

func (p palette) wrap(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p palette) red(s string) string   { return p.wrap("31", s) }
func (p palette) green(s string) string { return p.wrap("32", s) }
func (p palette) dim(s string) string   { return p.wrap("2", s) }
func (p palette) bold(s string) string  { return p.wrap("1", s) }
