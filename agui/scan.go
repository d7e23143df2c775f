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

// valueKind and span are the scanner's (jsonx.Kind, jsonx.Span).
type (
	valueKind = jsonx.Kind
	span      = jsonx.Span
)

const (
	kindAbsent = jsonx.Absent // the member is not there (JavaScript undefined)
	kindNull   = jsonx.Null
	kindString = jsonx.String
	kindNumber = jsonx.Number
	kindBool   = jsonx.Bool
	kindObject = jsonx.Object
	kindArray  = jsonx.Array
)

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
func scanValue(data []byte, i int) (span, int, error) { return jsonx.ScanSpan(data, i) }

// unquote decodes the JSON string value in s (with its quotes).
func unquote(s []byte) string { return jsonx.Unquote(s) }

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
