package scripted

import (
	"strconv"
	"unicode/utf8"
)

// A carry holds back the leading bytes of a character cut by a MidRune
// split, per stream, until the rest of the character arrives: a JSON
// string cannot carry half a character.
type carry struct {
	pending int
	held    map[carryKey][]byte
}

type carryKey struct {
	kind deltaKind
	idx  int
	id   string
}

// whole returns frag with any bytes held back for its stream in front,
// holding back in turn a trailing incomplete character.
func (e *carry) whole(k carryKey, frag string) string {
	t := incompleteTail(frag)
	if t == 0 && e.pending == 0 {
		return frag
	}
	if e.held == nil {
		e.held = map[carryKey][]byte{}
	}
	held := e.held[k]
	if len(held) > 0 {
		e.pending--
		frag = string(held) + frag
		t = incompleteTail(frag)
	}
	if t > 0 {
		e.held[k] = []byte(frag[len(frag)-t:])
		e.pending++
		frag = frag[:len(frag)-t]
	} else {
		delete(e.held, k)
	}
	return frag
}

// incompleteTail returns the length of a trailing partial UTF-8 sequence
// of s (the start of a character whose other bytes are missing), or 0.
func incompleteTail(s string) int {
	for n := 1; n <= 3 && n <= len(s); n++ {
		c := s[len(s)-n]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			want := 0
			switch {
			case c&0xE0 == 0xC0:
				want = 2
			case c&0xF0 == 0xE0:
				want = 3
			case c&0xF8 == 0xF0:
				want = 4
			}
			if want > n {
				return n
			}
			return 0
		}
	}
	return 0
}

func appendUsage(b []byte, u *Usage) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaping what JSON requires and
// U+2028, U+2029; invalid UTF-8 becomes U+FFFD, as in encoding/json.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			switch r {
			case utf8.RuneError:
				b = append(b, `\ufffd`...)
			default:
				b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			}
			i += n
			start = i
			continue
		}
		i += n
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
