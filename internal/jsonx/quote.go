package jsonx

import "unicode/utf8"

// Quote returns s as a JSON string literal; see AppendQuote.
func Quote(s string) []byte { return AppendQuote(make([]byte, 0, len(s)+2), s) }

// AppendQuote appends s as a JSON string literal, as JavaScript's
// JSON.stringify writes it: '"', '\\' and control characters escaped
// (\b \f \n \r \t, others as \u00XX), everything else as it is, HTML
// characters and U+2028/U+2029 included. A lone surrogate encoded as
// WTF-8 (how agui keeps one of a JavaScript string) is written \udXXX, as
// JSON.stringify writes it; other invalid UTF-8, which a JavaScript string
// cannot hold, becomes U+FFFD.
func AppendQuote(b []byte, s string) []byte {
	if utf8.ValidString(s) {
		return AppendQuoteUTF8(b, s)
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
			if u, ok := Surrogate(s, i); ok {
				b = append(b, '\\', 'u', hexDigits[u>>12], hexDigits[u>>8&0xf], hexDigits[u>>4&0xf], hexDigits[u&0xf])
				i += 3
				continue
			}
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// AppendQuoteUTF8 is AppendQuote for text known to be valid UTF-8.
func AppendQuoteUTF8[S string | []byte](b []byte, s S) []byte {
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

const hexDigits = "0123456789abcdef"

// Surrogate returns the UTF-16 surrogate encoded as WTF-8 at s[i:i+3],
// if one is there.
func Surrogate(s string, i int) (uint16, bool) {
	if i+3 > len(s) || s[i] != 0xED || s[i+1] < 0xA0 || s[i+1] > 0xBF || s[i+2] < 0x80 || s[i+2] > 0xBF {
		return 0, false
	}
	return 0xD000 | uint16(s[i+1]&0x3F)<<6 | uint16(s[i+2]&0x3F), true
}

// appendEscaped appends an ASCII byte of a JSON string, escaped as
// JSON.stringify escapes it.
func appendEscaped(b []byte, c byte) []byte {
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
