package scripted

import (
	"strconv"
	"unicode/utf8"

	"github.com/aguitest/aguitest/internal/jsonx"
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

// appendString appends s as a JSON string, the module's one way
// (jsonx.AppendQuote).
func appendString(b []byte, s string) []byte { return jsonx.AppendQuote(b, s) }
