package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/internal/jsonpointer"
)

// A jsonPath names a value inside a JSON document: a JSON Pointer ("/city",
// "/items/0/name", RFC 6901) or a dotted path ("city", "items[0].name",
// "$.items[0]['a key']"); "" and "$" name the whole document.
type jsonPath []string

// parsePath reads a path in either syntax.
func parsePath(s string) (jsonPath, error) {
	if s == "" || s == "$" {
		return jsonPath{}, nil
	}
	if s[0] == '/' {
		return jsonPath(jsonpointer.Split(s)), nil
	}
	rest := strings.TrimPrefix(s, "$")
	var p jsonPath
	for rest != "" {
		switch rest[0] {
		case '.':
			rest = rest[1:]
			n := strings.IndexAny(rest, ".[")
			if n < 0 {
				n = len(rest)
			}
			if n == 0 {
				return nil, fmt.Errorf("path %q: an empty key", s)
			}
			p, rest = append(p, rest[:n]), rest[n:]
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("path %q: [ without ]", s)
			}
			in := rest[1:end]
			if len(in) >= 2 && (in[0] == '\'' || in[0] == '"') && in[len(in)-1] == in[0] {
				in = in[1 : len(in)-1]
			} else if _, err := strconv.Atoi(in); err != nil {
				return nil, fmt.Errorf("path %q: [%s] is neither an index nor a quoted key", s, in)
			}
			p, rest = append(p, in), rest[end+1:]
		default:
			if len(p) > 0 || strings.HasPrefix(s, "$") {
				return nil, fmt.Errorf("path %q: want . or [ at %q", s, rest)
			}
			rest = "." + rest // a leading key without "$."
		}
	}
	return p, nil
}

// String writes the path as a JSON Pointer.
func (p jsonPath) String() string {
	if len(p) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, seg := range p {
		b.WriteString("/" + jsonpointer.Escape(seg))
	}
	return b.String()
}

// lookup returns the value at p in doc, and whether there is one.
func (p jsonPath) lookup(doc json.RawMessage) (json.RawMessage, bool) {
	v := bytes.TrimSpace(doc)
	for _, seg := range p {
		if len(v) == 0 {
			return nil, false
		}
		switch v[0] {
		case '{':
			var m map[string]json.RawMessage
			if json.Unmarshal(v, &m) != nil {
				return nil, false
			}
			next, ok := m[seg]
			if !ok {
				return nil, false
			}
			v = bytes.TrimSpace(next)
		case '[':
			var a []json.RawMessage
			i, err := strconv.Atoi(seg)
			if err != nil || json.Unmarshal(v, &a) != nil || i < 0 || i >= len(a) {
				return nil, false
			}
			v = bytes.TrimSpace(a[i])
		default:
			return nil, false
		}
	}
	return v, len(v) > 0
}
