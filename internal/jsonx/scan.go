// Package jsonx is the module's one JSON scanner and string quoter. agui
// builds its event index on the scanner; the recorder checks each event
// with Check before it embeds the bytes in a record; agui, the recorder
// and the scripted server write strings with AppendQuote. It validates
// without building a tree, so checking an event costs no allocation, and
// tracks nesting with a bit stack instead of recursion, so deeply nested
// input cannot exhaust the goroutine stack.
package jsonx

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects accepted.
const MaxDepth = 10000

// SyntaxError reports malformed JSON at a byte offset of the input.
type SyntaxError struct {
	Offset int    // byte offset in the input
	Msg    string // what is wrong
}

// Error says where the JSON is malformed and how.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// Errorf returns a *SyntaxError at off.
func Errorf(off int, format string, args ...any) error {
	return &SyntaxError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// IsSpace reports whether c is white space JSON allows between tokens.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the offset of the first byte at or after i that is
// not white space.
func SkipSpace(data []byte, i int) int {
	for i < len(data) && IsSpace(data[i]) {
		i++
	}
	return i
}

// IsHex reports whether c is a hexadecimal digit.
func IsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// IsDigit reports whether c is a decimal digit.
func IsDigit(c byte) bool { return '0' <= c && c <= '9' }

// plainASCII marks the bytes a JSON string may hold as they are: ASCII
// other than control characters, '"' and the backslash.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Bytes repeated across a word, for plainWord.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainWord reports whether all eight bytes of x are plain ASCII (as
// plainASCII says). A byte is not when its high bit is set, or when it is
// below 0x20, '"' or '\\': x-n*ones borrows through the high bit of each
// byte below n, and a byte equal to c is a zero byte of x^c*ones. Either
// test is exact for the word as a whole; which byte it was is left to the
// byte loop.
func plainWord(x uint64) bool {
	q := x ^ ('"' * ones)
	b := x ^ ('\\' * ones)
	special := (x - 0x20*ones) | (q-ones)&^q | (b-ones)&^b
	return (special&^x|x)&highs == 0
}

// ScanString reads the string starting at data[i] == '"'. It returns the
// offset after the closing quote and whether the string holds escapes. It
// checks escapes and UTF-8.
func ScanString(data []byte, i int) (int, bool, error) {
	start := i
	i++
	escaped := false
	for i < len(data) {
		// Plain ASCII, the bulk of most strings, needs no further checks:
		// eight bytes at a time while a word holds none to look at, then
		// byte by byte.
		for i+8 <= len(data) && plainWord(binary.LittleEndian.Uint64(data[i:])) {
			i += 8
		}
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
				return 0, false, Errorf(i, "unterminated string starting at byte %d", start)
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) {
					return 0, false, Errorf(i, "truncated \\u escape")
				}
				for _, h := range data[i+2 : i+6] {
					if !IsHex(h) {
						return 0, false, Errorf(i, "invalid \\u escape")
					}
				}
				i += 6
			default:
				return 0, false, Errorf(i, "invalid escape \\%c", data[i+1])
			}
		case c < 0x20:
			return 0, false, Errorf(i, "control character 0x%02x in string", c)
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return 0, false, Errorf(i, "invalid UTF-8 in string")
			}
			i += size
		}
	}
	return 0, false, Errorf(start, "unterminated string")
}

// ScanNumber reads the number starting at data[i] and returns the offset
// after it.
func ScanNumber(data []byte, i int) (int, error) {
	start := i
	if i < len(data) && data[i] == '-' {
		i++
	}
	if i >= len(data) {
		return 0, Errorf(start, "truncated number")
	}
	if data[i] == '0' {
		i++
	} else if '1' <= data[i] && data[i] <= '9' {
		for i < len(data) && IsDigit(data[i]) {
			i++
		}
	} else {
		return 0, Errorf(i, "invalid number")
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || !IsDigit(data[i]) {
			return 0, Errorf(i, "invalid number: digit expected after '.'")
		}
		for i < len(data) && IsDigit(data[i]) {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !IsDigit(data[i]) {
			return 0, Errorf(i, "invalid number: digit expected in exponent")
		}
		for i < len(data) && IsDigit(data[i]) {
			i++
		}
	}
	return i, nil
}

// ScanLiteral reads lit (true, false or null) at data[i] and returns the
// offset after it.
func ScanLiteral(data []byte, i int, lit string) (int, error) {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return 0, Errorf(i, "invalid literal, want %s", lit)
	}
	return i + len(lit), nil
}

// ScanValue validates the value at data[i], after white space. It returns
// where the value starts and ends, and for a string whether it holds
// escapes. The kind of the value is told by its first byte.
func ScanValue(data []byte, i int) (start, end int, escaped bool, err error) {
	i = SkipSpace(data, i)
	if i >= len(data) {
		return 0, 0, false, Errorf(i, "unexpected end of input, value expected")
	}
	start = i
	switch c := data[i]; {
	case c == '"':
		end, escaped, err = ScanString(data, i)
	case c == '{' || c == '[':
		end, err = ScanComposite(data, i)
	case c == 't':
		end, err = ScanLiteral(data, i, "true")
	case c == 'f':
		end, err = ScanLiteral(data, i, "false")
	case c == 'n':
		end, err = ScanLiteral(data, i, "null")
	case c == '-' || IsDigit(c):
		end, err = ScanNumber(data, i)
	default:
		return 0, 0, false, Errorf(i, "unexpected character %q", c)
	}
	if err != nil {
		return 0, 0, false, err
	}
	return start, end, escaped, nil
}

// ScanComposite validates the object or array at data[i] without
// recursion and returns the offset after it.
func ScanComposite(data []byte, i int) (int, error) {
	// One bit per open level: 1 = object, 0 = array. Events nest a few
	// levels: the stack starts small, on the goroutine's stack, and grows
	// on the heap only for deeply nested input.
	var small [4]uint64
	stack := small[:]
	depth := 0
	obj := false // the innermost open container is an object
	var err error
open: // data[i] opens a container
	if depth >= MaxDepth {
		return 0, Errorf(i, "nesting deeper than %d", MaxDepth)
	}
	if depth/64 >= len(stack) {
		stack = append(stack, make([]uint64, len(stack))...)
	}
	obj = data[i] == '{'
	if obj {
		stack[depth/64] |= 1 << (depth % 64)
	} else {
		stack[depth/64] &^= 1 << (depth % 64)
	}
	depth++
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == closer(obj) {
		i++
		goto closed
	}
element:
	i = SkipSpace(data, i)
	if i >= len(data) {
		return 0, Errorf(i, "unexpected end of input, value expected")
	}
	if obj {
		if data[i] != '"' {
			return 0, Errorf(i, "object key expected, found %q", data[i])
		}
		if i, _, err = ScanString(data, i); err != nil {
			return 0, err
		}
		i = SkipSpace(data, i)
		if i >= len(data) || data[i] != ':' {
			return 0, Errorf(i, "':' expected after object key")
		}
		i = SkipSpace(data, i+1)
		if i >= len(data) {
			return 0, Errorf(i, "unexpected end of input, value expected")
		}
	}
	switch c := data[i]; {
	case c == '{' || c == '[':
		goto open
	case c == '"':
		i, _, err = ScanString(data, i)
	case c == '-' || IsDigit(c):
		i, err = ScanNumber(data, i)
	case c == 't':
		i, err = ScanLiteral(data, i, "true")
	case c == 'f':
		i, err = ScanLiteral(data, i, "false")
	case c == 'n':
		i, err = ScanLiteral(data, i, "null")
	default:
		return 0, Errorf(i, "unexpected character %q", c)
	}
	if err != nil {
		return 0, err
	}
afterValue:
	i = SkipSpace(data, i)
	if i >= len(data) {
		return 0, Errorf(i, "unexpected end of input, ',' or %q expected", closer(obj))
	}
	switch data[i] {
	case ',':
		i++
		goto element
	case closer(obj):
		i++
	default:
		return 0, Errorf(i, "',' or %q expected, found %q", closer(obj), data[i])
	}
closed:
	depth--
	if depth == 0 {
		return i, nil
	}
	obj = stack[(depth-1)/64]&(1<<((depth-1)%64)) != 0
	goto afterValue
}

// closer is the byte that closes an object (obj) or an array.
func closer(obj bool) byte {
	if obj {
		return '}'
	}
	return ']'
}

// Check reports whether data is exactly one JSON value, with white space
// around it allowed, and, when it is not, where and why. Unlike
// encoding/json.Valid it requires strings to be valid UTF-8, as a
// recording's reader and the reference client's parser do.
func Check(data []byte) error {
	_, end, _, err := ScanValue(data, 0)
	if err != nil {
		return err
	}
	if end = SkipSpace(data, end); end != len(data) {
		return Errorf(end, "unexpected data after the value")
	}
	return nil
}
