package scripted

import (
	"strconv"
	"unicode/utf8"
)

// An encoder writes the chunks of one answer as chat.completion.chunk
// server-sent events, appending to a reused buffer.
type encoder struct {
	head         []byte // `data: {...,"choices":[{"index":0,"delta":`
	usageHead    []byte // `data: {...,"choices":[],"usage":`
	tail         []byte // `,"logprobs":null,"finish_reason":null}]...}` + "\n\n"
	includeUsage bool
	sentRole     bool

	// Leading bytes of a character cut by a MidRune split, held back
	// until the rest of the character arrives, per stream.
	pending int
	carry   map[carryKey][]byte
}

type carryKey struct {
	kind deltaKind
	idx  int
	id   string
}

func newEncoder(id, model string, created int64, includeUsage bool) *encoder {
	var h []byte
	h = append(h, `data: {"id":`...)
	h = appendString(h, id)
	h = append(h, `,"object":"chat.completion.chunk","created":`...)
	h = strconv.AppendInt(h, created, 10)
	h = append(h, `,"model":`...)
	h = appendString(h, model)
	h = append(h, `,"system_fingerprint":"fp_scripted","choices":[`...)
	e := &encoder{includeUsage: includeUsage}
	e.usageHead = append(append([]byte(nil), h...), `],"usage":`...)
	e.head = append(h, `{"index":0,"delta":`...)
	e.tail = []byte(`,"logprobs":null,"finish_reason":null}]`)
	if includeUsage {
		e.tail = append(e.tail, `,"usage":null`...)
	}
	e.tail = append(e.tail, "}\n\n"...)
	return e
}

// appendChunk appends the event of c, or nothing for a usage chunk when
// usage was not asked for.
func (e *encoder) appendChunk(b []byte, c *Chunk) []byte {
	switch c.kind() {
	case kindUsage:
		if !e.includeUsage {
			return b
		}
		b = append(b, e.usageHead...)
		b = appendUsage(b, c.Usage)
		return append(b, "}\n\n"...)
	case kindFinish:
		b = append(b, e.head...)
		b = append(b, '{')
		b = e.role(b, false)
		b = append(b, `},"logprobs":null,"finish_reason":`...)
		b = appendString(b, c.Finish)
		b = append(b, "}]"...)
		if e.includeUsage {
			b = append(b, `,"usage":null`...)
		}
		return append(b, "}\n\n"...)
	}
	b = append(b, e.head...)
	b = append(b, '{')
	b = e.role(b, true)
	switch c.kind() {
	case kindText:
		b = append(b, `"content":`...)
		b = appendString(b, e.whole(carryKey{kind: kindText}, c.Text))
	case kindReasoning:
		b = append(b, `"reasoning_content":`...)
		b = appendString(b, e.whole(carryKey{kind: kindReasoning}, c.Reasoning))
	case kindCall:
		d := c.Call
		b = append(b, `"tool_calls":[{`...)
		if d.Index >= 0 {
			b = append(b, `"index":`...)
			b = strconv.AppendInt(b, int64(d.Index), 10)
			b = append(b, ',')
		}
		if d.ID != "" {
			b = append(b, `"id":`...)
			b = appendString(b, d.ID)
			b = append(b, ',')
		}
		if d.Name != "" {
			b = append(b, `"type":"function","function":{"name":`...)
			b = appendString(b, d.Name)
			b = append(b, `,"arguments":`...)
		} else {
			b = append(b, `"function":{"arguments":`...)
		}
		k := carryKey{kind: kindCall, idx: d.Index}
		if d.Index < 0 {
			k.id = d.ID
		}
		b = appendString(b, e.whole(k, d.Args))
		b = append(b, "}}]"...)
	}
	b = append(b, '}')
	return append(b, e.tail...)
}

// role adds the assistant role to the first delta, as OpenAI does.
func (e *encoder) role(b []byte, comma bool) []byte {
	if e.sentRole {
		return b
	}
	e.sentRole = true
	b = append(b, `"role":"assistant"`...)
	if comma {
		b = append(b, ',')
	}
	return b
}

// whole returns frag with any bytes held back for its stream in front,
// holding back in turn a trailing incomplete character.
func (e *encoder) whole(k carryKey, frag string) string {
	t := incompleteTail(frag)
	if t == 0 && e.pending == 0 {
		return frag
	}
	if e.carry == nil {
		e.carry = map[carryKey][]byte{}
	}
	held := e.carry[k]
	if len(held) > 0 {
		e.pending--
		frag = string(held) + frag
		t = incompleteTail(frag)
	}
	if t > 0 {
		e.carry[k] = []byte(frag[len(frag)-t:])
		e.pending++
		frag = frag[:len(frag)-t]
	} else {
		delete(e.carry, k)
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
