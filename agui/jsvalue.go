package agui

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/internal/jsvalue"
)

// The reference verifier is JavaScript: it keys its sets and maps by field
// values with JavaScript equality, and it prints them with template strings.
// A field may be absent (undefined), null, a string, or something else that a
// malformed producer sent. These helpers give each value a canonical key
// (equal keys for values JavaScript finds ===, distinct keys otherwise) and
// the text JavaScript would print for it.
//
// Key forms:
//   - a string: the string between double quotes, `"abc"`. For a string
//     without escapes this is the raw JSON bytes, so lookups need no copy.
//   - absent: keyUndefined
//   - null, true, false: the literal
//   - a number: its JavaScript text
//   - an object or array: "\x00o<n>\x00<text>" with a fresh n, since
//     JavaScript compares them by identity and no two events share one.

const keyUndefined = "\x00u"

// keyUndefinedBytes is keyUndefined as bytes; it must never be modified.
var keyUndefinedBytes = []byte(keyUndefined)

// keyBytes returns the canonical key of the value at sp in raw. uniq is
// called to number objects and arrays. The result aliases raw when it can.
func keyBytes(raw []byte, sp span, uniq func() int) []byte {
	switch sp.Kind {
	case kindAbsent:
		return keyUndefinedBytes
	case kindString:
		if !sp.Escaped {
			return raw[sp.Start:sp.End]
		}
		k := append(make([]byte, 0, sp.End-sp.Start), '"')
		return append(appendDecoded(k, raw[sp.Start:sp.End], true), '"')
	case kindNumber:
		return []byte(jsNumber(raw[sp.Start:sp.End]))
	case kindObject, kindArray:
		return []byte("\x00o" + strconv.Itoa(uniq()) + "\x00" + jsText(raw[sp.Start:sp.End], sp.Kind))
	default: // null, bool
		return raw[sp.Start:sp.End]
	}
}

// keyText returns what a JavaScript template string prints for the value
// whose key is k.
func keyText(k string) string {
	switch {
	case k == keyUndefined:
		return "undefined"
	case strings.HasPrefix(k, `"`):
		return surrogatesToFFFD(k[1 : len(k)-1])
	case strings.HasPrefix(k, "\x00o"):
		return k[strings.IndexByte(k[2:], 0)+3:]
	}
	return k
}

// isStringKey reports whether k is the key of a string value.
func isStringKey(k string) bool { return strings.HasPrefix(k, `"`) }

// jsNumber formats a JSON number the way JavaScript's Number#toString does.
func jsNumber(b []byte) string {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil && !math.IsInf(f, 0) {
		return string(b)
	}
	return formatJSNumber(f)
}

func formatJSNumber(f float64) string { return jsvalue.FormatNumber(f) }

// jsText returns the text JavaScript's String() gives an object or array.
func jsText(b []byte, kind valueKind) string {
	if kind == kindObject {
		return "[object Object]"
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return ""
	}
	return jsString(v)
}

func jsString(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return formatJSNumber(v)
	case map[string]any:
		return "[object Object]"
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			if x != nil {
				parts[i] = jsString(x)
			}
		}
		return strings.Join(parts, ",")
	}
	return ""
}

// surrogatesToFFFD replaces each WTF-8 lone surrogate of a key (see
// appendDecoded) by U+FFFD, as printing the JavaScript string would.
func surrogatesToFFFD(s string) string {
	if !strings.Contains(s, "\xED") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
			b.WriteString("\uFFFD")
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
