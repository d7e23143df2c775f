package recorder

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The reader of rule files: the part of TOML a gitleaks configuration
// uses. Tables ([name]) and arrays of tables ([[name]], [[a.b]] for the
// last element of a), key = value with bare or quoted keys, and values
// that are strings (basic, literal, both multi-line), integers, floats,
// booleans and arrays of them. Inline tables and dates are refused with
// an error naming the line.

// tomlTable is a table: values are string, int64, float64, bool, []any,
// tomlTable or []tomlTable.
type tomlTable map[string]any

type tomlReader struct {
	name string // for errors
	src  string
	i    int
	line int
}

func (r *tomlReader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", r.name, r.line, fmt.Sprintf(format, args...))
}

// parseTOML reads a document of the subset into a table.
func parseTOML(name string, src []byte) (tomlTable, error) {
	if !utf8.Valid(src) {
		return nil, fmt.Errorf("%s: not UTF-8", name)
	}
	r := &tomlReader{name: name, src: string(src), line: 1}
	root := tomlTable{}
	cur := root
	for {
		r.skipSpaceLines()
		if r.i >= len(r.src) {
			return root, nil
		}
		switch {
		case r.src[r.i] == '[':
			closing := "]"
			if strings.HasPrefix(r.src[r.i:], "[[") {
				closing = "]]"
			}
			r.i += len(closing)
			path, err := r.keyPath(closing)
			if err != nil {
				return nil, err
			}
			parent, err := r.walk(root, path[:len(path)-1])
			if err != nil {
				return nil, err
			}
			last := path[len(path)-1]
			old, exists := parent[last]
			cur = tomlTable{}
			switch arr, isArr := old.([]tomlTable); {
			case closing == "]]" && exists && !isArr:
				return nil, r.errorf("%s is not an array of tables", strings.Join(path, "."))
			case closing == "]]":
				parent[last] = append(arr, cur)
			case exists:
				return nil, r.errorf("table %s defined twice", strings.Join(path, "."))
			default:
				parent[last] = cur
			}
		default:
			key, err := r.key()
			if err != nil {
				return nil, err
			}
			r.skipBlank()
			if r.i >= len(r.src) || r.src[r.i] != '=' {
				return nil, r.errorf("want = after key %q", key)
			}
			r.i++
			r.skipBlank()
			v, err := r.value()
			if err != nil {
				return nil, err
			}
			if _, exists := cur[key]; exists {
				return nil, r.errorf("key %q defined twice", key)
			}
			cur[key] = v
		}
		if err := r.endOfLine(); err != nil {
			return nil, err
		}
	}
}

// walk returns the table at path below root, the last element of an array
// of tables standing for the array, making tables that do not exist.
func (r *tomlReader) walk(root tomlTable, path []string) (tomlTable, error) {
	t := root
	for _, k := range path {
		switch v := t[k].(type) {
		case nil:
			n := tomlTable{}
			t[k] = n
			t = n
		case tomlTable:
			t = v
		case []tomlTable:
			t = v[len(v)-1]
		default:
			return nil, r.errorf("%s is not a table", k)
		}
	}
	return t, nil
}

func (r *tomlReader) skipBlank() {
	for r.i < len(r.src) && (r.src[r.i] == ' ' || r.src[r.i] == '\t') {
		r.i++
	}
}

// skipSpaceLines skips white space, newlines and comments.
func (r *tomlReader) skipSpaceLines() {
	for r.i < len(r.src) {
		switch c := r.src[r.i]; {
		case c == ' ' || c == '\t' || c == '\r':
			r.i++
		case c == '\n':
			r.i++
			r.line++
		case c == '#':
			for r.i < len(r.src) && r.src[r.i] != '\n' {
				r.i++
			}
		default:
			return
		}
	}
}

// endOfLine accepts blanks and a comment before the end of the line.
func (r *tomlReader) endOfLine() error {
	r.skipBlank()
	if r.i < len(r.src) && r.src[r.i] == '#' {
		for r.i < len(r.src) && r.src[r.i] != '\n' {
			r.i++
		}
	}
	if r.i < len(r.src) && r.src[r.i] == '\r' {
		r.i++
	}
	if r.i < len(r.src) && r.src[r.i] != '\n' {
		return r.errorf("unexpected %q after a value", r.src[r.i])
	}
	return nil
}

// keyPath reads a dotted key up to the closing bracket(s).
func (r *tomlReader) keyPath(closing string) ([]string, error) {
	var path []string
	for {
		r.skipBlank()
		k, err := r.key()
		if err != nil {
			return nil, err
		}
		path = append(path, k)
		r.skipBlank()
		switch {
		case strings.HasPrefix(r.src[r.i:], closing):
			r.i += len(closing)
			return path, nil
		case r.i < len(r.src) && r.src[r.i] == '.':
			r.i++
		default:
			return nil, r.errorf("want %s or . in a table name", closing)
		}
	}
}

// key reads a bare or quoted key.
func (r *tomlReader) key() (string, error) {
	if r.i < len(r.src) && (r.src[r.i] == '"' || r.src[r.i] == '\'') {
		v, err := r.value()
		if err != nil {
			return "", err
		}
		return v.(string), nil
	}
	start := r.i
	for r.i < len(r.src) {
		c := r.src[r.i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			break
		}
		r.i++
	}
	if r.i == start {
		return "", r.errorf("want a key")
	}
	return r.src[start:r.i], nil
}

// value reads a value at r.i.
func (r *tomlReader) value() (any, error) {
	if r.i >= len(r.src) {
		return nil, r.errorf("want a value")
	}
	rest := r.src[r.i:]
	switch {
	case strings.HasPrefix(rest, "'''"):
		return r.multiLine("'''", false)
	case strings.HasPrefix(rest, `"""`):
		return r.multiLine(`"""`, true)
	case rest[0] == '\'':
		end := strings.IndexAny(rest[1:], "'\n")
		if end < 0 || rest[1+end] != '\'' {
			return nil, r.errorf("unterminated literal string")
		}
		r.i += end + 2
		return rest[1 : 1+end], nil
	case rest[0] == '"':
		r.i++
		return r.basic(`"`)
	case rest[0] == '[':
		return r.array()
	case rest[0] == '{':
		return nil, r.errorf("inline tables are not supported in rule files")
	case strings.HasPrefix(rest, "true"):
		r.i += 4
		return true, nil
	case strings.HasPrefix(rest, "false"):
		r.i += 5
		return false, nil
	}
	end := 0
	for end < len(rest) && strings.IndexByte("+-0123456789._eExXoObBabcdefABCDEFinf", rest[end]) >= 0 {
		end++
	}
	lit := strings.ReplaceAll(rest[:end], "_", "")
	if lit == "" {
		return nil, r.errorf("want a value, got %q", rest[:min(len(rest), 10)])
	}
	r.i += end
	if n, err := strconv.ParseInt(lit, 0, 64); err == nil {
		return n, nil
	}
	if f, err := strconv.ParseFloat(lit, 64); err == nil {
		return f, nil
	}
	return nil, r.errorf("%q is not a number", rest[:end])
}

// multiLine reads a multi-line string opened by delim at r.i; a newline
// right after the opening is dropped.
func (r *tomlReader) multiLine(delim string, basic bool) (any, error) {
	r.i += 3
	if strings.HasPrefix(r.src[r.i:], "\r\n") {
		r.i += 2
		r.line++
	} else if strings.HasPrefix(r.src[r.i:], "\n") {
		r.i++
		r.line++
	}
	if basic {
		return r.basic(delim)
	}
	end := strings.Index(r.src[r.i:], delim)
	if end < 0 {
		return nil, r.errorf("unterminated multi-line string")
	}
	// Up to two quotes may end the content right before the delimiter.
	for k := 0; k < 2 && r.i+end+3 < len(r.src) && r.src[r.i+end+3] == '\''; k++ {
		end++
	}
	s := r.src[r.i : r.i+end]
	r.line += strings.Count(s, "\n")
	r.i += end + 3
	return s, nil
}

// basic reads the rest of a basic string ending at delim, with escapes.
func (r *tomlReader) basic(delim string) (any, error) {
	var b strings.Builder
	for {
		if r.i >= len(r.src) {
			return nil, r.errorf("unterminated string")
		}
		if strings.HasPrefix(r.src[r.i:], delim) {
			r.i += len(delim)
			return b.String(), nil
		}
		c := r.src[r.i]
		switch {
		case c == '\n' && len(delim) == 1:
			return nil, r.errorf("newline in a string")
		case c == '\n':
			r.line++
			b.WriteByte(c)
			r.i++
		case c == '\\':
			if r.i+1 >= len(r.src) {
				return nil, r.errorf("unterminated string")
			}
			e := r.src[r.i+1]
			r.i += 2
			switch e {
			case 'b':
				b.WriteByte('\b')
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case '"', '\\':
				b.WriteByte(e)
			case 'u', 'U':
				n := 4
				if e == 'U' {
					n = 8
				}
				if r.i+n > len(r.src) {
					return nil, r.errorf("short \\%c escape", e)
				}
				v, err := strconv.ParseUint(r.src[r.i:r.i+n], 16, 32)
				if err != nil || !utf8.ValidRune(rune(v)) {
					return nil, r.errorf("bad \\%c escape", e)
				}
				b.WriteRune(rune(v))
				r.i += n
			case '\n', ' ', '\t', '\r':
				if len(delim) == 1 {
					return nil, r.errorf("bad escape \\%q", e)
				}
				// A line-ending backslash trims the white space after it.
				r.i--
				for r.i < len(r.src) && strings.IndexByte(" \t\r\n", r.src[r.i]) >= 0 {
					if r.src[r.i] == '\n' {
						r.line++
					}
					r.i++
				}
			default:
				return nil, r.errorf("bad escape \\%c", e)
			}
		default:
			b.WriteByte(c)
			r.i++
		}
	}
}

// array reads [v, v, ...], across lines, comments and a trailing comma.
func (r *tomlReader) array() (any, error) {
	r.i++
	out := []any{}
	for {
		r.skipSpaceLines()
		if r.i >= len(r.src) {
			return nil, r.errorf("unterminated array")
		}
		if r.src[r.i] == ']' {
			r.i++
			return out, nil
		}
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		r.skipSpaceLines()
		if r.i < len(r.src) && r.src[r.i] == ',' {
			r.i++
			continue
		}
		r.skipSpaceLines()
		if r.i >= len(r.src) || r.src[r.i] != ']' {
			return nil, r.errorf("want , or ] in an array")
		}
	}
}
