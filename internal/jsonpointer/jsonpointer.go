// Package jsonpointer escapes and splits JSON Pointers (RFC 6901), the one
// implementation the module's packages share.
package jsonpointer

import "strings"

// Escape escapes a key for a pointer token: "~" becomes "~0" and "/"
// becomes "~1".
func Escape(key string) string {
	if !strings.ContainsAny(key, "~/") {
		return key
	}
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// AppendEscaped appends the token of key (as Escape writes it) to dst.
func AppendEscaped(dst []byte, key string) []byte {
	for i := 0; i < len(key); i++ {
		switch key[i] {
		case '~':
			dst = append(dst, '~', '0')
		case '/':
			dst = append(dst, '~', '1')
		default:
			dst = append(dst, key[i])
		}
	}
	return dst
}

// Unescape decodes a pointer token: "~1" becomes "/" and then "~0"
// becomes "~", so "~01" is "~1". Other uses of "~" are left as they are.
func Unescape(token string) string {
	if !strings.Contains(token, "~") {
		return token
	}
	return strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
}

// Split returns the unescaped tokens of a pointer that starts with "/";
// the caller checks the slash. "/" is one empty token.
func Split(pointer string) []string {
	toks := strings.Split(pointer[1:], "/")
	for i, t := range toks {
		toks[i] = Unescape(t)
	}
	return toks
}
