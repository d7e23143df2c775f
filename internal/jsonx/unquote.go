package jsonx

import (
	"unicode/utf16"
	"unicode/utf8"
)

// AppendUnquote appends the decoded content of the valid JSON string s
// (with its quotes) to buf. A lone surrogate escape, which has no UTF-8
// form, becomes U+FFFD, as JSON.parse followed by UTF-8 encoding makes it;
// with wtf8 it is kept distinct, encoded as WTF-8 (three bytes, as UTF-8
// would if it allowed surrogates), so that strings compare as JavaScript
// strings do.
func AppendUnquote(buf, s []byte, wtf8 bool) []byte {
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
					buf = AppendUnit(buf, uint16(r))
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

// AppendUnit appends one UTF-16 code unit: a surrogate in its three-byte
// WTF-8 form, anything else as UTF-8.
func AppendUnit(b []byte, u uint16) []byte {
	if utf16.IsSurrogate(rune(u)) {
		return append(b, 0xE0|byte(u>>12), 0x80|byte(u>>6)&0x3F, 0x80|byte(u)&0x3F)
	}
	return utf8.AppendRune(b, rune(u))
}
