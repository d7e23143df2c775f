package main

import (
	"io"
	"strings"
	"unicode/utf8"
)

// What the command prints of its inputs (ids, names, text, file names,
// error messages quoting them) must not drive the terminal or forge lines
// of a log: an id holding ESC]0;…, ESC[2J or a carriage return would
// retitle the window, clear the screen or overwrite the line. Control
// characters are escaped as JSON escapes them (\r, \u001b), so that JSON
// output stays JSON: C0 controls, DEL, C1 controls, the Unicode line and
// paragraph separators and the bidirectional overrides (which reorder
// what a terminal shows); bytes that are not UTF-8 as \xNN.

// escapeRune returns the escape of r, or "" when r is printed as it is.
// Line feeds and tabs pass when keepLines is set.
func escapeRune(r rune, keepLines bool) string {
	switch {
	case r == '\n' || r == '\t':
		if keepLines {
			return ""
		}
		if r == '\n' {
			return `\n`
		}
		return `\t`
	case r == '\r':
		return `\r`
	case r < 0x20 || r == 0x7f || 0x80 <= r && r <= 0x9f,
		r == 0x2028 || r == 0x2029 || 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069 || r == 0x200e || r == 0x200f:
		const hex = "0123456789abcdef"
		return `\u` + string([]byte{hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf]})
	}
	return ""
}

// term returns s fit to print inside a line: every control character, line
// breaks included, escaped.
func term(s string) string {
	if kept(s, false) {
		return s
	}
	var b strings.Builder
	appendEscaped(&b, s, false)
	return b.String()
}

// kept reports whether appendEscaped keeps s as it is: most text is, and
// is printed without a copy.
func kept(s string, keepLines bool) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n != 3 {
				return false // a byte that is not UTF-8; n == 3 is a real U+FFFD
			}
			continue
		}
		if escapeRune(r, keepLines) != "" {
			return false
		}
	}
	return true
}

// appendEscaped writes s to b with its control characters escaped (line
// feeds and tabs kept when keepLines is set) and bytes that are not UTF-8
// as \xNN.
func appendEscaped(b *strings.Builder, s string, keepLines bool) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			const hex = "0123456789abcdef"
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
		} else if e := escapeRune(r, keepLines); e != "" {
			b.WriteString(e)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
}

// safeWriter escapes every control character written through it but the
// line feeds and tabs that lay out the output. The commands write through
// one to standard error, and to standard output unless it is a terminal
// in colour (whose colour codes the transcript writes itself, its data
// escaped with term).
type safeWriter struct {
	w       io.Writer
	pending []byte // the start of a UTF-8 sequence cut by the last Write
}

// Write escapes p and writes it; it reports all of p written when the
// escaped form was.
func (s *safeWriter) Write(p []byte) (int, error) {
	data := p
	if len(s.pending) > 0 {
		data = append(s.pending, p...)
		s.pending = nil
	}
	// Hold back a UTF-8 sequence cut at the end.
	if cut := incompleteTail(data); cut > 0 {
		s.pending = append([]byte(nil), data[len(data)-cut:]...)
		data = data[:len(data)-cut]
	}
	if kept(string(data), true) {
		if _, err := s.w.Write(data); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	var b strings.Builder
	appendEscaped(&b, string(data), true)
	if _, err := io.WriteString(s.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// incompleteTail returns the length of a UTF-8 sequence begun but not
// ended at the end of b (0 when none).
func incompleteTail(b []byte) int {
	for n := 1; n <= 3 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < 0x80 {
			return 0
		}
		if c >= 0xc0 { // a leading byte
			need := 2
			switch {
			case c >= 0xf0:
				need = 4
			case c >= 0xe0:
				need = 3
			}
			if need > n {
				return n
			}
			return 0
		}
	}
	return 0
}

// termLine is term for a line of the output's own layout: its tabs stay.
func termLine(s string) string {
	if term(s) == s {
		return s
	}
	var b strings.Builder
	appendEscaped(&b, s, true)
	return strings.ReplaceAll(b.String(), "\n", `\n`)
}

// flush writes what is held back, as bytes that are not UTF-8.
func (s *safeWriter) flush() {
	if len(s.pending) > 0 {
		var b strings.Builder
		appendEscaped(&b, string(s.pending), true)
		s.pending = nil
		_, _ = io.WriteString(s.w, b.String())
	}
}

// lineWriter writes each Write as one line: what it holds is escaped with
// term, line breaks included, but the final line feed. Reports that print
// a line per call (verify) write through one, so that an id holding a line
// break cannot forge a line.
type lineWriter struct{ w io.Writer }

// Write writes p as one line.
func (l lineWriter) Write(p []byte) (int, error) {
	s := string(p)
	nl := strings.HasSuffix(s, "\n")
	s = term(strings.TrimSuffix(s, "\n"))
	if nl {
		s += "\n"
	}
	if _, err := io.WriteString(l.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
