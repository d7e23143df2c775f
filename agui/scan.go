package agui

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// The scanner validates JSON and finds the spans of top-level object members
// without building a tree, so that reading an event's type and ids costs no
// allocation. Nesting is tracked with a bit stack instead of recursion, so
// deeply nested input cannot exhaust the goroutine stack.

// MaxDepth is the deepest nesting of arrays and objects an event may have.
const MaxDepth = 10000

// SyntaxError reports malformed JSON at a byte offset of the input.
type SyntaxError struct {
	Offset int    // byte offset in the event's JSON
	Msg    string // what is wrong
}

// Error says where the JSON is malformed and how.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// valueKind is the JSON kind of a value found by the scanner.
type valueKind uint8

const (
	kindAbsent valueKind = iota // the member is not there (JavaScript undefined)
	kindNull
	kindString
	kindNumber
	kindBool
	kindObject
	kindArray
)

// span locates a JSON value inside an event's raw bytes.
type span struct {
	start, end int32 // value bytes are raw[start:end]; for strings, including quotes
	kind       valueKind
	escaped    bool // string contains a backslash escape
}

func (s span) present() bool { return s.kind != kindAbsent }

func syntaxErr(off int, format string, args ...any) error {
	return &SyntaxError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// plainASCII marks the bytes a JSON string may hold as they are: ASCII
// other than control characters, '"' and the backslash.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString reads the string starting at data[i] == '"'. It returns the
// offset after the closing quote and whether the string holds escapes. It
// checks escapes and UTF-8.
func scanString(data []byte, i int) (int, bool, error) {
	start := i
	i++
	escaped := false
	for i < len(data) {
		// Plain ASCII, the bulk of most strings, needs no further checks.
		for i < len(data) && plainASCII[data[i]] {
			i++
		}
		if i >= len(data) {
			break
		}
		c := data[i]
		switch {
		case c == '"':
			return i + 1, escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(data) {
				return 0, false, syntaxErr(i, "unterminated string starting at byte %d", start)
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) {
					return 0, false, syntaxErr(i, "truncated \\u escape")
				}
				for _, h := range data[i+2 : i+6] {
					if !isHex(h) {
						return 0, false, syntaxErr(i, "invalid \\u escape")
					}
				}
				i += 6
			default:
				return 0, false, syntaxErr(i, "invalid escape \\%c", data[i+1])
			}
		case c < 0x20:
			return 0, false, syntaxErr(i, "control character 0x%02x in string", c)
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return 0, false, syntaxErr(i, "invalid UTF-8 in string")
			}
			i += size
		}
	}
	return 0, false, syntaxErr(start, "unterminated string")
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func scanNumber(data []byte, i int) (int, error) {
	start := i
	if i < len(data) && data[i] == '-' {
		i++
	}
	if i >= len(data) {
		return 0, syntaxErr(start, "truncated number")
	}
	if data[i] == '0' {
		i++
	} else if '1' <= data[i] && data[i] <= '9' {
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	} else {
		return 0, syntaxErr(i, "invalid number")
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || !isDigit(data[i]) {
			return 0, syntaxErr(i, "invalid number: digit expected after '.'")
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return 0, syntaxErr(i, "invalid number: digit expected in exponent")
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	return i, nil
}

func scanLiteral(data []byte, i int, lit string) (int, error) {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return 0, syntaxErr(i, "invalid literal, want %s", lit)
	}
	return i + len(lit), nil
}

// scanValue validates the value at data[i] (after white space) and returns
// its span and the offset after it.
func scanValue(data []byte, i int) (span, int, error) {
	i = skipSpace(data, i)
	if i >= len(data) {
		return span{}, 0, syntaxErr(i, "unexpected end of input, value expected")
	}
	start := i
	var err error
	sp := span{start: int32(start)}
	switch c := data[i]; {
	case c == '"':
		sp.kind = kindString
		i, sp.escaped, err = scanString(data, i)
	case c == '{' || c == '[':
		if c == '{' {
			sp.kind = kindObject
		} else {
			sp.kind = kindArray
		}
		i, err = scanComposite(data, i)
	case c == 't':
		sp.kind = kindBool
		i, err = scanLiteral(data, i, "true")
	case c == 'f':
		sp.kind = kindBool
		i, err = scanLiteral(data, i, "false")
	case c == 'n':
		sp.kind = kindNull
		i, err = scanLiteral(data, i, "null")
	case c == '-' || isDigit(c):
		sp.kind = kindNumber
		i, err = scanNumber(data, i)
	default:
		return span{}, 0, syntaxErr(i, "unexpected character %q", c)
	}
	if err != nil {
		return span{}, 0, err
	}
	sp.end = int32(i)
	return sp, i, nil
}

// scanComposite validates the object or array at data[i] without recursion.
func scanComposite(data []byte, i int) (int, error) {
	// One bit per open level: 1 = object, 0 = array.
	var stack [MaxDepth/64 + 1]uint64
	depth := 0
	inObject := func() bool { return stack[(depth-1)/64]&(1<<((depth-1)%64)) != 0 }
	closer := func() byte {
		if inObject() {
			return '}'
		}
		return ']'
	}
	// open pushes the container at data[i] and reports whether it is empty.
	open := func() (bool, error) {
		if depth >= MaxDepth {
			return false, syntaxErr(i, "nesting deeper than %d", MaxDepth)
		}
		if data[i] == '{' {
			stack[depth/64] |= 1 << (depth % 64)
		} else {
			stack[depth/64] &^= 1 << (depth % 64)
		}
		depth++
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == closer() {
			i++
			return true, nil
		}
		return false, nil
	}

	empty, err := open()
	if err != nil {
		return 0, err
	}
	if empty {
		goto closed
	}
element:
	i = skipSpace(data, i)
	if i >= len(data) {
		return 0, syntaxErr(i, "unexpected end of input, value expected")
	}
	if inObject() {
		if data[i] != '"' {
			return 0, syntaxErr(i, "object key expected, found %q", data[i])
		}
		if i, _, err = scanString(data, i); err != nil {
			return 0, err
		}
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != ':' {
			return 0, syntaxErr(i, "':' expected after object key")
		}
		i = skipSpace(data, i+1)
	}
	if i < len(data) && (data[i] == '{' || data[i] == '[') {
		if empty, err = open(); err != nil {
			return 0, err
		}
		if empty {
			goto closed
		}
		goto element
	}
	{
		var next int
		if _, next, err = scanValue(data, i); err != nil {
			return 0, err
		}
		i = next
	}
afterValue:
	i = skipSpace(data, i)
	if i >= len(data) {
		return 0, syntaxErr(i, "unexpected end of input, ',' or %q expected", closer())
	}
	switch data[i] {
	case ',':
		i++
		goto element
	case closer():
		i++
	default:
		return 0, syntaxErr(i, "',' or %q expected, found %q", closer(), data[i])
	}
closed:
	depth--
	if depth == 0 {
		return i, nil
	}
	goto afterValue
}

// unquote decodes the JSON string value in s (with its quotes).
func unquote(s []byte) string {
	body := s[1 : len(s)-1]
	for _, c := range body {
		if c == '\\' {
			return string(appendUnescaped(make([]byte, 0, len(body)), s))
		}
	}
	return string(body)
}

// appendUnescaped appends the decoded content of the valid JSON string s
// (with its quotes) to buf.
func appendUnescaped(buf, s []byte) []byte { return appendDecoded(buf, s, false) }

// appendDecoded is appendUnescaped; with wtf8, a lone surrogate escape is
// kept distinct, encoded as WTF-8 (3 bytes, as UTF-8 would if it allowed
// surrogates), so that keys compare as JavaScript strings do.
func appendDecoded(buf, s []byte, wtf8 bool) []byte {
	body := s[1 : len(s)-1]
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			j := i + 1
			for j < len(body) && body[j] != '\\' {
				j++
			}
			buf = append(buf, body[i:j]...)
			i = j
			continue
		}
		switch body[i+1] {
		case '"', '\\', '/':
			buf = append(buf, body[i+1])
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r := rune(hex4(body[i+2 : i+6]))
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
					r2 := rune(hex4(body[i+2 : i+6]))
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						buf = utf8.AppendRune(buf, dec)
						i += 6
						continue
					}
				}
				if wtf8 {
					buf = append(buf, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
					continue
				}
				// A lone surrogate has no UTF-8 form; like JSON.parse followed
				// by UTF-8 encoding, it becomes U+FFFD.
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r)
			continue
		}
		i += 2
	}
	return buf
}

func hex4(b []byte) uint16 {
	var v uint16
	for _, c := range b {
		v <<= 4
		switch {
		case '0' <= c && c <= '9':
			v |= uint16(c - '0')
		case 'a' <= c && c <= 'f':
			v |= uint16(c - 'a' + 10)
		default:
			v |= uint16(c - 'A' + 10)
		}
	}
	return v
}

// quote returns s as a JSON string literal, as JSON.stringify writes it.
// HTML characters are not escaped.
func quote(s string) []byte { return appendQuoted(make([]byte, 0, len(s)+2), s) }

// appendQuoted appends s as a JSON string literal, as JSON.stringify
// writes it (invalid UTF-8, which a JavaScript string cannot hold, becomes
// U+FFFD).
func appendQuoted(b []byte, s string) []byte {
	if utf8.ValidString(s) {
		return appendQuotedUTF8(b, s)
	}
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			b = appendEscaped(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// appendQuotedUTF8 is appendQuoted for valid UTF-8.
func appendQuotedUTF8[S string | []byte](b []byte, s S) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			b = append(b, s[start:i]...)
			b = appendEscaped(b, c)
			start = i + 1
		}
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendEscaped appends an ASCII byte of a JSON string, escaped as
// JSON.stringify escapes it.
func appendEscaped(b []byte, c byte) []byte {
	const hexDigits = "0123456789abcdef"
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	if c < 0x20 {
		return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
	}
	return append(b, c)
}
