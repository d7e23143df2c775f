package jsonx

// Spans: where a value lies in raw bytes and what kind it is, found without
// building a tree. agui indexes events with them; internal/schema walks an
// event against its schema with them.

// Kind is the JSON kind of a value found by the scanner.
type Kind uint8

const (
	Absent Kind = iota // the member is not there (JavaScript undefined)
	Null
	String
	Number
	Bool
	Object
	Array
)

// Span locates a JSON value inside raw bytes.
type Span struct {
	Start, End int32 // the value is raw[Start:End]; for strings, with the quotes
	Kind       Kind
	Escaped    bool // a string holds a backslash escape
}

// Present reports whether the span locates a value.
func (s Span) Present() bool { return s.Kind != Absent }

// ScanSpan validates the value at data[i] (after white space) and returns
// its span and the offset after it.
func ScanSpan(data []byte, i int) (Span, int, error) {
	i = SkipSpace(data, i)
	if i >= len(data) {
		return Span{}, 0, Errorf(i, "unexpected end of input, value expected")
	}
	sp := Span{Start: int32(i)}
	var err error
	switch c := data[i]; {
	case c == '"':
		sp.Kind = String
		i, sp.Escaped, err = ScanString(data, i)
	case c == '{':
		sp.Kind = Object
		i, err = ScanComposite(data, i)
	case c == '[':
		sp.Kind = Array
		i, err = ScanComposite(data, i)
	default:
		// A literal or a number: the scanner says which, or what is wrong.
		var start int
		start, i, _, err = ScanValue(data, i)
		if err == nil {
			sp.Kind = scalarKind(data[start])
		}
	}
	if err != nil {
		return Span{}, 0, err
	}
	sp.End = int32(i)
	return sp, i, nil
}

// scalarKind is the kind of the literal or number whose first byte is c.
func scalarKind(c byte) Kind {
	switch c {
	case 't', 'f':
		return Bool
	case 'n':
		return Null
	}
	return Number
}

// EachMember calls fn for each member of the valid JSON object in data,
// with the key (with its quotes), whether the key holds escapes, and the
// value's span. It stops when fn returns false.
func EachMember(data []byte, fn func(key []byte, escaped bool, v Span) bool) error {
	i := SkipSpace(data, 1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for i < len(data) {
		ks := i
		ke, esc, err := ScanString(data, i)
		if err != nil {
			return err
		}
		i = SkipSpace(data, ke)
		i++ // ':'
		v, next, err := ScanSpan(data, i)
		if err != nil {
			return err
		}
		if !fn(data[ks:ke], esc, v) {
			return nil
		}
		i = SkipSpace(data, next)
		if i >= len(data) || data[i] == '}' {
			return nil
		}
		i = SkipSpace(data, i+1) // ','
	}
	return nil
}

// EachElement calls fn with the index and span of each element of the
// valid JSON array at sp of raw.
func EachElement(raw []byte, sp Span, fn func(i int, v Span)) {
	i := SkipSpace(raw, int(sp.Start)+1)
	if i < int(sp.End) && raw[i] == ']' {
		return
	}
	for n := 0; i < int(sp.End); n++ {
		v, next, err := ScanSpan(raw, i)
		if err != nil {
			return
		}
		fn(n, v)
		i = SkipSpace(raw, next)
		if i >= int(sp.End) || raw[i] == ']' {
			return
		}
		i = SkipSpace(raw, i+1) // ','
	}
}

// Member is a member of a JSON object, its key unescaped.
type Member struct {
	Key string
	Val []byte
}

// Members returns the members of the valid JSON object obj; a repeated key
// keeps its first position and takes its last value, as JSON.parse does.
func Members(obj []byte) []Member {
	var ms []Member
	_ = EachMember(obj, func(key []byte, _ bool, v Span) bool {
		k := Unquote(key)
		for i := range ms {
			if ms[i].Key == k {
				ms[i].Val = obj[v.Start:v.End]
				return true
			}
		}
		ms = append(ms, Member{k, obj[v.Start:v.End]})
		return true
	})
	return ms
}

// Unquote decodes the valid JSON string s (with its quotes).
func Unquote(s []byte) string {
	body := s[1 : len(s)-1]
	for _, c := range body {
		if c == '\\' {
			return string(AppendUnquote(make([]byte, 0, len(body)), s, false))
		}
	}
	return string(body)
}

// StringIs reports whether the JSON string raw (with quotes) holds s.
func StringIs(raw []byte, s string) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return false
	}
	body := raw[1 : len(raw)-1]
	if len(body) == len(s) && string(body) == s {
		return true
	}
	for _, c := range body {
		if c == '\\' {
			return Unquote(raw) == s
		}
	}
	return false
}
