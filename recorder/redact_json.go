package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aguitest/aguitest/internal/jsonpointer"
	"github.com/aguitest/aguitest/internal/jsonx"
)

// JSON returns b, a JSON document, with the rules applied: members named
// like credentials (a string or number; an object or array is searched
// inside), credentials of known shapes and Patterns inside strings, and
// Pointers. Everything else keeps its bytes: member order, numbers, white
// space and escapes; a string that changes is written anew. When nothing
// changes it returns b itself. It fails when b is not JSON (invalid UTF-8
// included) or a Pointer is not a JSON pointer.
func (rd *Redact) JSON(b []byte) ([]byte, error) {
	ptrs := make([][]string, 0, len(rd.Pointers))
	for _, p := range rd.Pointers {
		segs, err := splitPointer(p)
		if err != nil {
			return nil, err
		}
		ptrs = append(ptrs, segs)
	}
	if !rd.user() && len(rd.textSpans(b, true, nil)) == 0 && !hasEscape(b) {
		// The quick check: nothing in the raw text looks like a
		// credential, and no escape hides one.
		if err := jsonx.Check(b); err != nil {
			return nil, fmt.Errorf("recorder: redacting: %w", err)
		}
		return b, nil
	}
	if err := jsonx.Check(b); err != nil {
		return nil, fmt.Errorf("recorder: redacting: %w", err)
	}
	w := jsonRedactor{rd: rd, src: b, ptrs: ptrs}
	w.value(jsonx.SkipSpace(b, 0), nil, len(ptrs) > 0)
	if w.out == nil {
		return b, nil
	}
	return append(w.out, b[w.last:]...), nil
}

// clean reports whether an event's raw JSON needs no redaction: the quick
// check of the recording path.
func (rd *Redact) clean(b []byte) bool {
	return !rd.user() && !hasEscape(b) && len(rd.textSpans(b, true, nil)) == 0 &&
		!(rd.on(DefaultFields) && patchPathIn(b))
}

// patchNamesCredential reports whether the object at src[i] is a JSON
// Patch operation (op, path) whose path ends in a credential name.
func patchNamesCredential(src []byte, i int) bool {
	var op, path bool
	var last string
	i = jsonx.SkipSpace(src, i+1)
	for i < len(src) && src[i] == '"' {
		ke := skipString(src, i)
		key := src[i+1 : ke-1]
		vs := jsonx.SkipSpace(src, jsonx.SkipSpace(src, ke)+1)
		ve := skipValue(src, vs)
		switch string(key) {
		case "op":
			op = true
		case "path":
			if src[vs] == '"' {
				p := jsonStringValue(src[vs:ve])
				if k := strings.LastIndexByte(p, '/'); k >= 0 {
					last = jsonpointer.Unescape(p[k+1:])
					path = true
				}
			}
		}
		i = jsonx.SkipSpace(src, ve)
		if i < len(src) && src[i] == ',' {
			i = jsonx.SkipSpace(src, i+1)
		}
	}
	return op && path && credentialName(last, ctxField)
}

// patchPathIn reports whether b (raw JSON) may hold a JSON Patch path
// ending in a credential name: "/password", "/auth/apiKey".
func patchPathIn(b []byte) bool {
	if !bytes.Contains(b, []byte(`path`)) {
		return false
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '/' {
			continue
		}
		j := i + 1
		for j < len(b) && (isAlnum(b[j]) || b[j] == '_' || b[j] == '-') {
			j++
		}
		if j > i+1 && j < len(b) && (b[j] == '"' || b[j] == '\\') && mayBeCredential(b[i+1:j]) && credentialName(string(b[i+1:j]), ctxField) {
			return true
		}
	}
	return false
}

// logprobNear reports whether b holds a "logprob" member: a "token" there
// is a token of text with its probability, not a credential.
func logprobNear(b []byte) bool {
	return indexFold(b, `logprob`) >= 0
}

// hasEscape reports whether b holds a JSON escape that could hide a word:
// \u or \/.
func hasEscape(b []byte) bool {
	for {
		i := bytes.IndexByte(b, '\\')
		if i < 0 || i+1 >= len(b) {
			return false
		}
		if b[i+1] == 'u' || b[i+1] == '/' {
			return true
		}
		b = b[i+2:]
	}
}

func splitPointer(p string) ([]string, error) {
	if p == "" {
		return []string{}, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("recorder: JSON pointer %q does not start with /", p)
	}
	return jsonpointer.Split(p), nil
}

// jsonRedactor walks a valid JSON document and splices replacements into
// a copy made at the first one.
type jsonRedactor struct {
	rd   *Redact
	src  []byte
	ptrs [][]string
	out  []byte
	last int // src[:last] is in out
}

func (w *jsonRedactor) replace(start, end int, with []byte) {
	if w.out == nil {
		w.out = make([]byte, 0, len(w.src)+16)
	}
	w.out = append(w.out, w.src[w.last:start]...)
	w.out = append(w.out, with...)
	w.last = end
}

var redactedJSON = []byte(`"` + Redacted + `"`)

// pointed reports whether a pointer names path.
func (w *jsonRedactor) pointed(path []string) bool {
	for _, p := range w.ptrs {
		if len(p) != len(path) {
			continue
		}
		match := true
		for i, s := range p {
			if s != "*" && s != path[i] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// value redacts the value at i and returns the index after it. path is
// tracked only when there are pointers.
func (w *jsonRedactor) value(i int, path []string, track bool) int {
	if track && w.pointed(path) {
		end := skipValue(w.src, i)
		w.replace(i, end, redactedJSON)
		return end
	}
	switch w.src[i] {
	case '{':
		obj := i
		i = jsonx.SkipSpace(w.src, i+1)
		if w.src[i] == '}' {
			return i + 1
		}
		patch := w.rd.on(DefaultFields) && patchNamesCredential(w.src, obj)
		for {
			ks := i
			ke := skipString(w.src, i)
			name := jsonStringValue(w.src[ks:ke])
			w.str(ks, ke, name, true)
			i = jsonx.SkipSpace(w.src, ke)
			i = jsonx.SkipSpace(w.src, i+1) // ':'
			vs := i
			var child []string
			if track {
				child = append(path[:len(path):len(path)], name)
			}
			if patch && name == "value" {
				// A JSON Patch operation on a member named like a
				// credential: its value, whatever it is.
				end := skipValue(w.src, vs)
				w.replace(vs, end, redactedJSON)
				i = end
			} else if w.rd.on(DefaultFields) && (w.src[vs] == '"' || (w.src[vs] == '-' || jsonx.IsDigit(w.src[vs])) && !strings.EqualFold(name, "pass")) &&
				!w.rd.kept(name) && credentialName(name, ctxField) && !(name == "token" && logprobNear(w.src[obj:skipValue(w.src, obj)])) {
				end := skipValue(w.src, vs)
				if string(w.src[vs:end]) != `""` {
					w.replace(vs, end, redactedJSON)
				}
				i = end
			} else {
				i = w.value(vs, child, track)
			}
			i = jsonx.SkipSpace(w.src, i)
			if w.src[i] == '}' {
				return i + 1
			}
			i = jsonx.SkipSpace(w.src, i+1) // ','
		}
	case '[':
		i = jsonx.SkipSpace(w.src, i+1)
		if w.src[i] == ']' {
			return i + 1
		}
		for n := 0; ; n++ {
			var child []string
			if track {
				child = append(path[:len(path):len(path)], strconv.Itoa(n))
			}
			i = jsonx.SkipSpace(w.src, w.value(i, child, track))
			if w.src[i] == ']' {
				return i + 1
			}
			i = jsonx.SkipSpace(w.src, i+1)
		}
	case '"':
		end := skipString(w.src, i)
		w.str(i, end, "", false)
		return end
	}
	return skipValue(w.src, i)
}

// str redacts inside the string token src[start:end]; decoded is its
// value when the caller has it. Patterns apply to values, not to keys.
func (w *jsonRedactor) str(start, end int, decoded string, key bool) {
	tok := w.src[start:end]
	var s []byte
	if decoded != "" || len(tok) == 2 {
		s = []byte(decoded)
	} else {
		s = []byte(jsonStringValue(tok))
	}
	spans := w.rd.textSpans(s, false, nil)
	if !key {
		spans = w.rd.patternSpans(s, spans)
	}
	if len(spans) == 0 {
		return
	}
	w.replace(start, end, appendString(nil, string(splice(nil, s, spans))))
}

// jsonStringValue decodes a valid JSON string token.
func jsonStringValue(tok []byte) string {
	inner := tok[1 : len(tok)-1]
	simple := true
	for _, c := range inner {
		if c == '\\' || c >= utf8.RuneSelf {
			simple = false
			break
		}
	}
	if simple {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(tok, &s)
	return s
}

// skipString returns the index after the valid JSON string at b[i].
func skipString(b []byte, i int) int {
	end, _, _ := jsonx.ScanString(b, i)
	return end
}

// skipValue returns the index after the valid JSON value at b[i].
func skipValue(b []byte, i int) int {
	_, end, _, _ := jsonx.ScanValue(b, i)
	return end
}
