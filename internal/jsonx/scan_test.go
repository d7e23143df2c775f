package jsonx_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aguitest/aguitest/internal/fuzzmain"
	"github.com/aguitest/aguitest/internal/jsonx"
)

func TestMain(m *testing.M) { os.Exit(fuzzmain.Run(m)) }

// valid is what Check accepts: one JSON value (encoding/json.Valid) in
// valid UTF-8 (outside strings JSON allows none but ASCII anyway).
func valid(b []byte) bool { return json.Valid(b) && utf8.Valid(b) }

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // "" when valid, else the error's text
	}{
		{` {"a":[1,2.5e-3,true,false,null,"\u00e9\n"]} `, ""},
		{`"café"`, ""},
		{``, "invalid JSON at byte 0: unexpected end of input, value expected"},
		{`{"a":}`, `invalid JSON at byte 5: unexpected character '}'`},
		{`[1,]`, `invalid JSON at byte 3: unexpected character ']'`},
		{`01`, "invalid JSON at byte 1: unexpected data after the value"},
		{`1 2`, "invalid JSON at byte 2: unexpected data after the value"},
		{`{"a" 1}`, "invalid JSON at byte 5: ':' expected after object key"},
		{"\"\xff\"", "invalid JSON at byte 1: invalid UTF-8 in string"},
		{"\"\x01\"", "invalid JSON at byte 1: control character 0x01 in string"},
		{`"\x"`, `invalid JSON at byte 1: invalid escape \x`},
	} {
		err := jsonx.Check([]byte(tt.in))
		got := ""
		if err != nil {
			got = err.Error()
			var se *jsonx.SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("Check(%q): %T is not a *SyntaxError", tt.in, err)
			}
		}
		if got != tt.want {
			t.Errorf("Check(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCheckDepth(t *testing.T) {
	for _, n := range []int{9999, 10000, 10001} {
		for _, inner := range []string{"", "1"} {
			b := []byte(strings.Repeat("[", n) + inner + strings.Repeat("]", n))
			if got, want := jsonx.Check(b) == nil, n <= jsonx.MaxDepth; got != want {
				t.Errorf("depth %d %q: got valid %v, want %v", n, inner, got, want)
			}
		}
	}
}

// FuzzCheck holds Check to encoding/json, UTF-8 checked.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, ` {"a":[1,2.5e-3,true,false,null,"\u00e9\n"]} `, `{"a":}`, `[1,]`, `01`, `-`, `"\x01"`, `{"a" 1}`, `[[[]]]`, `1 2`, "\"\xe9\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := jsonx.Check(b) == nil, valid(b); got != want {
			t.Fatalf("Check(%q) accepts: %v, want %v", b, got, want)
		}
	})
}

// FuzzAppendQuote: what AppendQuote writes is one JSON string that
// decodes to s (invalid UTF-8 as U+FFFD, WTF-8 surrogates as what their
// escapes decode to), with no escape JSON.stringify would not write.
func FuzzAppendQuote(f *testing.F) {
	for _, s := range []string{"", "a", "\"\\/\b\f\n\r\t\x01\x1f", "café", "\u2028\u2029<>&", "\xff\xfe", "a\xe2\x82", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := jsonx.AppendQuote([]byte("x"), s)
		if b[0] != 'x' {
			t.Fatalf("AppendQuote did not append")
		}
		q := b[1:]
		if err := jsonx.Check(q); err != nil {
			t.Fatalf("AppendQuote(%q) = %s: %v", s, q, err)
		}
		var back string
		if err := json.Unmarshal(q, &back); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(s, "\xed") && !utf8.ValidString(s) {
			// WTF-8 surrogates are written as \uDXXX: a pair of them
			// decodes to one character, a lone one to U+FFFD.
		} else if want := strings.ToValidUTF8(s, "\uFFFD"); back != want && !utf8.ValidString(s) {
			// ToValidUTF8 joins a run of bad bytes into one U+FFFD;
			// AppendQuote writes one per byte, as encoding/json does.
			if strings.ReplaceAll(back, "\uFFFD", "") != strings.ReplaceAll(want, "\uFFFD", "") {
				t.Fatalf("AppendQuote(%q) decodes to %q", s, back)
			}
		} else if back != want {
			t.Fatalf("AppendQuote(%q) decodes to %q", s, back)
		}
		if strings.Contains(string(q), `\u2028`) || strings.Contains(string(q), `\u003c`) {
			t.Fatalf("AppendQuote(%q) = %s escapes what JSON.stringify leaves", s, q)
		}
	})
}

func TestAppendQuote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", `""`},
		{"a\"\\/\b\f\n\r\t\x01", `"a\"\\/\b\f\n\r\t\u0001"`},
		{"<café>&\u2028", "\"<café>&\u2028\""},
		{"\xff", `"\ufffd"`},
		{"a\xed\xa0\x80b", `"a\ud800b"`}, // a lone surrogate, as agui keeps one
		{"\xed\xa0", `"\ufffd\ufffd"`},   // cut: no surrogate
		{"x\xed\xbf\xbfy\xe9", `"x\udfffy\ufffd"`},
	} {
		if got := string(jsonx.Quote(tt.in)); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// scanStringBytes is ScanString one byte at a time, as the JSON grammar
// reads: the reference for FuzzScanString.
func scanStringBytes(data []byte, i int) (end int, escaped bool, ok bool) {
	for i++; i < len(data); {
		c := data[i]
		switch {
		case c == '"':
			return i + 1, escaped, true
		case c == '\\':
			escaped = true
			if i+1 >= len(data) {
				return 0, false, false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) {
					return 0, false, false
				}
				for _, h := range data[i+2 : i+6] {
					if !jsonx.IsHex(h) {
						return 0, false, false
					}
				}
				i += 6
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return 0, false, false
			}
			i += size
		}
	}
	return 0, false, false
}

// FuzzScanString holds ScanString, which skips plain ASCII a word at a
// time, to the byte-at-a-time reading of the grammar: the same end, the
// same escaped flag, the same acceptance, and an error offset inside the
// string.
func FuzzScanString(f *testing.F) {
	for _, s := range []string{`"abcdefghijklmnop"`, `"abcdefg\"hijk"`, `"abcdefgh\\"`, "\"abcdefg\x1fhij\"", "\"abcdefgh\xc3\xa9ijklmn\"", `"0123456789abcdef"tail`, "\"\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\"", `"!!!!!!!!!!!!!!!!"`, `"########"`, `"[[[[]]]]]]]]"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		data := append([]byte{'"'}, b...)
		end, escaped, err := jsonx.ScanString(data, 0)
		wantEnd, wantEscaped, ok := scanStringBytes(data, 0)
		if (err == nil) != ok {
			t.Fatalf("ScanString(%q): error %v, want accepted %v", data, err, ok)
		}
		if err != nil {
			var se *jsonx.SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset >= len(data) {
				t.Fatalf("ScanString(%q): error %v outside the input", data, err)
			}
			return
		}
		if end != wantEnd || escaped != wantEscaped {
			t.Fatalf("ScanString(%q) = %d, %v; want %d, %v", data, end, escaped, wantEnd, wantEscaped)
		}
	})
}

// TestScanStringWords: every byte value at every position of a word ends
// or continues a string exactly as the grammar says.
func TestScanStringWords(t *testing.T) {
	for c := range 256 {
		for pos := range 17 {
			b := []byte(`"` + strings.Repeat("a", 24) + `"`)
			b[1+pos] = byte(c)
			end, escaped, err := jsonx.ScanString(b, 0)
			wantEnd, wantEscaped, ok := scanStringBytes(b, 0)
			if (err == nil) != ok || ok && (end != wantEnd || escaped != wantEscaped) {
				t.Errorf("byte 0x%02x at %d: got %d, %v, %v; want %d, %v, accepted %v", c, pos, end, escaped, err, wantEnd, wantEscaped, ok)
			}
		}
	}
}

func BenchmarkScanString(b *testing.B) {
	for _, s := range []string{`"msg-0"`, `"TEXT_MESSAGE_CONTENT"`, `"word 1 of the answer, and some more words after it"`, `"caf\u00e9 \"quoted\" text"`} {
		data := []byte(s)
		b.Run(strings.Trim(s, `"`)[:5], func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, _, err := jsonx.ScanString(data, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
