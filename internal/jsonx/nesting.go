package jsonx

// Nesting scans b, which need not be valid JSON, for brackets outside
// strings. It returns the deepest nesting of arrays and objects, and
// whether b ends open: inside a string or with a bracket not closed, the
// sign of a value cut off by the end of the input.
func Nesting(b []byte) (deepest int, open bool) {
	depth, inStr, esc := 0, false, false
	for _, c := range b {
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest, inStr || depth > 0
}
