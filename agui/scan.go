package agui

import (
	"github.com/aguitest/aguitest/internal/jsonx"
)

// The scanner (internal/jsonx) validates JSON and finds the spans of
// top-level object members without building a tree, so that reading an
// event's type and ids costs no allocation.

// MaxDepth is the deepest nesting of arrays and objects an event may have.
const MaxDepth = jsonx.MaxDepth

// SyntaxError reports malformed JSON at a byte offset of the input: its
// Offset is the byte offset in the event's JSON, its Msg what is wrong.
// Its text reads "invalid JSON at byte N: what".
type SyntaxError = jsonx.SyntaxError

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

// The scanner's pieces under the names this package uses.

func syntaxErr(off int, format string, args ...any) error {
	return jsonx.Errorf(off, format, args...)
}
func isSpace(c byte) bool                              { return jsonx.IsSpace(c) }
func skipSpace(data []byte, i int) int                 { return jsonx.SkipSpace(data, i) }
func isHex(c byte) bool                                { return jsonx.IsHex(c) }
func isDigit(c byte) bool                              { return jsonx.IsDigit(c) }
func scanNumber(data []byte, i int) (int, error)       { return jsonx.ScanNumber(data, i) }
func scanComposite(data []byte, i int) (int, error)    { return jsonx.ScanComposite(data, i) }
func scanString(data []byte, i int) (int, bool, error) { return jsonx.ScanString(data, i) }

// scanValue validates the value at data[i] (after white space) and returns
// its span and the offset after it.
func scanValue(data []byte, i int) (span, int, error) {
	i = skipSpace(data, i)
	if i >= len(data) {
		return span{}, 0, syntaxErr(i, "unexpected end of input, value expected")
	}
	sp := span{start: int32(i)}
	var err error
	switch c := data[i]; {
	case c == '"':
		sp.kind = kindString
		i, sp.escaped, err = jsonx.ScanString(data, i)
	case c == '{':
		sp.kind = kindObject
		i, err = jsonx.ScanComposite(data, i)
	case c == '[':
		sp.kind = kindArray
		i, err = jsonx.ScanComposite(data, i)
	default:
		// A literal or a number: the scanner says which, or what is wrong.
		var start int
		start, i, _, err = jsonx.ScanValue(data, i)
		if err == nil {
			sp.kind = scalarKind(data[start])
		}
	}
	if err != nil {
		return span{}, 0, err
	}
	sp.end = int32(i)
	return sp, i, nil
}

// scalarKind is the kind of the literal or number whose first byte is c.
func scalarKind(c byte) valueKind {
	switch c {
	case 't', 'f':
		return kindBool
	case 'n':
		return kindNull
	}
	return kindNumber
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
// kept distinct (see jsonx.AppendUnquote).
func appendDecoded(buf, s []byte, wtf8 bool) []byte { return jsonx.AppendUnquote(buf, s, wtf8) }

// appendUnit appends one UTF-16 code unit (see jsonx.AppendUnit).
func appendUnit(b []byte, u uint16) []byte { return jsonx.AppendUnit(b, u) }

// quote returns s as a JSON string literal, as JSON.stringify writes it.
// HTML characters are not escaped.
func quote(s string) []byte { return jsonx.Quote(s) }

// appendQuoted appends s as a JSON string literal, as JSON.stringify
// writes it (invalid UTF-8, which a JavaScript string cannot hold, becomes
// U+FFFD).
func appendQuoted(b []byte, s string) []byte { return jsonx.AppendQuote(b, s) }

// appendQuotedUTF8 is appendQuoted for valid UTF-8.
func appendQuotedUTF8[S string | []byte](b []byte, s S) []byte { return jsonx.AppendQuoteUTF8(b, s) }
