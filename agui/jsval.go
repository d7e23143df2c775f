package agui

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aguitest/aguitest/internal/jsonx"
)

// The reference client holds messages and state as JavaScript values, and
// the view (view.go) and the JSON Patch applier (patch.go) reproduce what
// it does to them. They work on this small model of those values:
//
//	nil           null
//	bool          a boolean
//	float64       a number (JSON numbers are read as JavaScript reads them)
//	string        a string, in WTF-8: a lone UTF-16 surrogate, which JSON
//	              can carry as an escape and JavaScript keeps, is encoded
//	              as its three-byte form, so that text streamed in pieces
//	              joins exactly as JavaScript joins it
//	*jsObject     an object: own keys in insertion order, shared by
//	              reference as JavaScript objects are
//	*jsArray      an array, shared by reference
//	jsUndefined   undefined (an absent field, or a value JSON drops)
//	jsFunction    a method the value inherits (toString, push, ...): what
//	              obj[key] reads for an inherited name; never from JSON

// jsUndefined is JavaScript's undefined.
type jsUndefined struct{}

var jvUndef = jsUndefined{}

// jsFunction is an inherited method, by name.
type jsFunction string

// jsObject is a plain JavaScript object.
type jsObject struct {
	keys []string // insertion order
	vals map[string]any
}

// jsArray is a JavaScript array; holes read as undefined.
type jsArray struct{ elems []any }

func newJSObject() *jsObject { return &jsObject{vals: map[string]any{}} }

// own returns the value of an own property.
func (o *jsObject) own(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// get returns an own property's value, or undefined.
func (o *jsObject) get(k string) any {
	if v, ok := o.vals[k]; ok {
		return v
	}
	return jvUndef
}

// set assigns a property: a new key goes last, an existing one keeps its
// place.
func (o *jsObject) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// del deletes an own property.
func (o *jsObject) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	o.keys = slices.DeleteFunc(o.keys, func(x string) bool { return x == k })
}

// ownKeys returns the keys in JavaScript's property order: array-index
// keys ascending, then the others in insertion order.
func (o *jsObject) ownKeys() []string {
	var idx []string
	for _, k := range o.keys {
		if _, ok := arrayIndex32(k); ok {
			idx = append(idx, k)
		}
	}
	if len(idx) == 0 {
		return o.keys
	}
	slices.SortFunc(idx, func(a, b string) int {
		x, _ := arrayIndex32(a)
		y, _ := arrayIndex32(b)
		return int(x) - int(y)
	})
	out := idx
	for _, k := range o.keys {
		if _, ok := arrayIndex32(k); !ok {
			out = append(out, k)
		}
	}
	return out
}

// spread returns {...o}: a new object with o's own keys, values shared.
func (o *jsObject) spread() *jsObject {
	c := &jsObject{keys: make([]string, 0, len(o.keys)), vals: make(map[string]any, len(o.vals))}
	for _, k := range o.ownKeys() {
		c.set(k, o.vals[k])
	}
	return c
}

// spreadInto assigns the own enumerable properties of v to o, as an object
// spread of v does: an object's keys, an array's or a string's indices;
// other values have none.
func spreadInto(o *jsObject, v any) {
	switch x := v.(type) {
	case *jsObject:
		for _, k := range x.ownKeys() {
			o.set(k, x.vals[k])
		}
	case *jsArray:
		for i, e := range x.elems {
			o.set(strconv.Itoa(i), e)
		}
	case string:
		for i, u := range utf16Units(x) {
			o.set(strconv.Itoa(i), unitString(u))
		}
	}
}

// arrayIndex32 reports whether k is an array index as JavaScript orders
// keys: the canonical decimal form of an integer in [0, 2^32-2].
func arrayIndex32(k string) (uint32, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if n > 4294967294 {
		return 0, false
	}
	return uint32(n), true
}

// canonicalIndex returns the array index k names when k is the canonical
// decimal form of a non-negative integer below n.
func canonicalIndex(k string, n int) (int, bool) {
	i, ok := arrayIndex32(k)
	if !ok || int64(i) >= int64(n) {
		return 0, false
	}
	return int(i), true
}

// parseJV reads one JSON value, as JSON.parse does: duplicate keys keep
// their first place and take the last value, numbers become doubles,
// escaped lone surrogates are kept.
func parseJV(data []byte) (any, error) {
	sp, end, err := scanValue(data, 0)
	if err != nil {
		return nil, err
	}
	if skipSpace(data, end) != len(data) {
		return nil, syntaxErr(end, "unexpected data after the value")
	}
	v, _ := decodeJS(data, int(sp.start))
	return v, nil
}

// decodeJS decodes the valid JSON value at data[i:] and returns the index
// after it.
func decodeJS(data []byte, i int) (any, int) {
	i = skipSpace(data, i)
	switch c := data[i]; {
	case c == '{':
		o := newJSObject()
		i = skipSpace(data, i+1)
		if data[i] == '}' {
			return o, i + 1
		}
		for {
			ke, _, _ := scanString(data, i)
			k := decodeString(data[i:ke])
			i = skipSpace(data, ke) + 1 // ':'
			var v any
			v, i = decodeJS(data, i)
			o.set(k, v)
			i = skipSpace(data, i)
			if data[i] == '}' {
				return o, i + 1
			}
			i = skipSpace(data, i+1) // ','
		}
	case c == '[':
		a := &jsArray{}
		i = skipSpace(data, i+1)
		if data[i] == ']' {
			return a, i + 1
		}
		for {
			var v any
			v, i = decodeJS(data, i)
			a.elems = append(a.elems, v)
			i = skipSpace(data, i)
			if data[i] == ']' {
				return a, i + 1
			}
			i++ // ','
		}
	case c == '"':
		ke, _, _ := scanString(data, i)
		return decodeString(data[i:ke]), ke
	case c == 't':
		return true, i + 4
	case c == 'f':
		return false, i + 5
	case c == 'n':
		return nil, i + 4
	default:
		end, _ := scanNumber(data, i)
		// A number too large for a double is Infinity, as in JavaScript.
		f, _ := strconv.ParseFloat(string(data[i:end]), 64)
		return f, end
	}
}

// decodeString decodes a valid JSON string literal (with its quotes) to
// WTF-8: a lone surrogate escape is kept, as a JavaScript string keeps it.
func decodeString(s []byte) string {
	body := s[1 : len(s)-1]
	if !slices.Contains(body, '\\') {
		return string(body)
	}
	return string(appendDecoded(make([]byte, 0, len(body)), s, true))
}

// surrogateAt reports the surrogate encoded at s[i:i+3], if any.
func surrogateAt(s string, i int) (uint16, bool) { return jsonx.Surrogate(s, i) }

// jsConcat joins two strings as JavaScript does: a high surrogate ending a
// and a low surrogate starting b become one character.
func jsConcat(a, b string) string {
	if len(a) >= 3 && len(b) >= 3 {
		hi, ok1 := surrogateAt(a, len(a)-3)
		lo, ok2 := surrogateAt(b, 0)
		if ok1 && ok2 && hi < 0xDC00 && lo >= 0xDC00 {
			return a[:len(a)-3] + string(utf16.DecodeRune(rune(hi), rune(lo))) + b[3:]
		}
	}
	return a + b
}

// utf16Units returns the code units of a WTF-8 string.
func utf16Units(s string) []uint16 {
	var out []uint16
	for i := 0; i < len(s); {
		if u, ok := surrogateAt(s, i); ok {
			out = append(out, u)
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		out = utf16.AppendRune(out, r)
		i += n
	}
	return out
}

// unitString is the one-unit string JavaScript's s[i] gives.
func unitString(u uint16) string { return string(appendUnit(nil, u)) }

// wellFormed replaces the lone surrogates of a WTF-8 string with U+FFFD,
// for Go code that wants UTF-8.
func wellFormed(s string) string {
	if !strings.Contains(s, "\xED") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if _, ok := surrogateAt(s, i); ok {
			b.WriteRune(utf8.RuneError)
			i += 3
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// appendJSONJS appends what JSON.stringify writes for v. It reports false
// for a value JSON.stringify leaves out (undefined, a function), which it
// does not append.
func appendJSONJS(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return append(b, "null"...), true
		}
		return append(b, formatJSNumber(x)...), true
	case string:
		return appendQuotedJS(b, x), true
	case *jsObject:
		b = append(b, '{')
		first := true
		for _, k := range x.ownKeys() {
			val := x.vals[k]
			if !jsonable(val) {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendQuotedJS(b, k)
			b = append(b, ':')
			b, _ = appendJSONJS(b, val)
		}
		return append(b, '}'), true
	case *jsArray:
		b = append(b, '[')
		for i, e := range x.elems {
			if i > 0 {
				b = append(b, ',')
			}
			if !jsonable(e) {
				b = append(b, "null"...)
				continue
			}
			b, _ = appendJSONJS(b, e)
		}
		return append(b, ']'), true
	}
	return b, false
}

func jsonable(v any) bool {
	switch v.(type) {
	case jsUndefined, jsFunction:
		return false
	}
	return true
}

// appendQuotedJS appends s quoted as JSON.stringify quotes it: short
// escapes for \b \f \n \r \t, \u00XX for other control characters, lone
// surrogates as \uDXXX, everything else as it is.
func appendQuotedJS(b []byte, s string) []byte { return appendQuoted(b, s) }

// stringifyJS returns JSON.stringify(v), or nil for a value it leaves out.
func stringifyJS(v any) []byte {
	b, ok := appendJSONJS(nil, v)
	if !ok {
		return nil
	}
	return b
}

// errDataClone is what structuredClone throws for a function.
var errDataClone = errors.New("DataCloneError: a function could not be cloned")

// structuredCloneJS copies v as structuredClone does: objects and arrays
// shared within v stay shared in the copy; a function is an error.
func structuredCloneJS(v any) (any, error) {
	return cloneWith(v, map[any]any{})
}

func cloneWith(v any, memo map[any]any) (any, error) {
	switch x := v.(type) {
	case jsFunction:
		return nil, errDataClone
	case *jsObject:
		if c, ok := memo[x]; ok {
			return c, nil
		}
		c := &jsObject{keys: slices.Clone(x.keys), vals: make(map[string]any, len(x.vals))}
		memo[x] = c
		for k, e := range x.vals {
			ce, err := cloneWith(e, memo)
			if err != nil {
				return nil, err
			}
			c.vals[k] = ce
		}
		return c, nil
	case *jsArray:
		if c, ok := memo[x]; ok {
			return c, nil
		}
		c := &jsArray{elems: make([]any, len(x.elems))}
		memo[x] = c
		for i, e := range x.elems {
			ce, err := cloneWith(e, memo)
			if err != nil {
				return nil, err
			}
			c.elems[i] = ce
		}
		return c, nil
	}
	return v, nil
}

// jsonCloneJS copies v as JSON.parse(JSON.stringify(v)) does, for an object
// or array v: undefined and functions drop out of objects and become null
// in arrays, numbers that are not finite become null, -0 becomes 0.
func jsonCloneJS(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
		if x == 0 {
			return 0.0
		}
		return x
	case *jsObject:
		c := newJSObject()
		for _, k := range x.ownKeys() {
			if e := x.vals[k]; jsonable(e) {
				c.set(k, jsonCloneJS(e))
			}
		}
		return c
	case *jsArray:
		c := &jsArray{elems: make([]any, len(x.elems))}
		for i, e := range x.elems {
			if jsonable(e) {
				c.elems[i] = jsonCloneJS(e)
			}
		}
		return c
	}
	return v
}

// hasCycle reports whether v contains itself, which JSON.stringify refuses.
// Values shared between branches are not cycles.
func hasCycle(v any) bool {
	onPath := map[any]bool{}
	var walk func(v any) bool
	walk = func(v any) bool {
		var kids []any
		switch x := v.(type) {
		case *jsObject:
			for _, k := range x.keys {
				kids = append(kids, x.vals[k])
			}
		case *jsArray:
			kids = x.elems
		default:
			return false
		}
		if onPath[v] {
			return true
		}
		onPath[v] = true
		for _, k := range kids {
			if walk(k) {
				return true
			}
		}
		delete(onPath, v)
		return false
	}
	return walk(v)
}

// jvTruthy is JavaScript's truthiness.
func jvTruthy(v any) bool {
	switch x := v.(type) {
	case nil, jsUndefined:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	return true
}

// jsNullish reports v == null: null or undefined.
func jsNullish(v any) bool {
	switch v.(type) {
	case nil, jsUndefined:
		return true
	}
	return false
}

// isJSObjectType reports typeof v === "object" for a non-null v.
func isJSObjectType(v any) bool {
	switch v.(type) {
	case *jsObject, *jsArray:
		return true
	}
	return false
}

// jsStrictEqual is ===.
func jsStrictEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case jsUndefined:
		_, ok := b.(jsUndefined)
		return ok
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case jsFunction:
		y, ok := b.(jsFunction)
		return ok && x == y
	case *jsObject:
		y, ok := b.(*jsObject)
		return ok && x == y
	case *jsArray:
		y, ok := b.(*jsArray)
		return ok && x == y
	}
	return false
}

// sameValueZero is the equality of Map keys and includes: === except that
// NaN equals NaN.
func sameValueZero(a, b any) bool {
	if x, ok := a.(float64); ok && math.IsNaN(x) {
		y, ok := b.(float64)
		return ok && math.IsNaN(y)
	}
	return jsStrictEqual(a, b)
}

// jsTypeError is a TypeError the reference client would throw.
type jsTypeError struct{ msg string }

func (e *jsTypeError) Error() string { return "TypeError: " + e.msg }

// The names values inherit from their prototypes in Node 20, the runtime
// the differential tests run the reference on.
var (
	objectProto  = nameSet("__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__", "__proto__", "constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString", "toString", "valueOf")
	arrayProto   = nameSet("at", "concat", "constructor", "copyWithin", "entries", "every", "fill", "filter", "find", "findIndex", "findLast", "findLastIndex", "flat", "flatMap", "forEach", "includes", "indexOf", "join", "keys", "lastIndexOf", "map", "pop", "push", "reduce", "reduceRight", "reverse", "shift", "slice", "some", "sort", "splice", "toLocaleString", "toReversed", "toSorted", "toSpliced", "toString", "unshift", "values", "with")
	stringProto  = nameSet("anchor", "at", "big", "blink", "bold", "charAt", "charCodeAt", "codePointAt", "concat", "constructor", "endsWith", "fixed", "fontcolor", "fontsize", "includes", "indexOf", "isWellFormed", "italics", "lastIndexOf", "link", "localeCompare", "match", "matchAll", "normalize", "padEnd", "padStart", "repeat", "replace", "replaceAll", "search", "slice", "small", "split", "startsWith", "strike", "sub", "substr", "substring", "sup", "toLocaleLowerCase", "toLocaleUpperCase", "toLowerCase", "toString", "toUpperCase", "toWellFormed", "trim", "trimEnd", "trimLeft", "trimRight", "trimStart", "valueOf")
	numberProto  = nameSet("constructor", "toExponential", "toFixed", "toLocaleString", "toPrecision", "toString", "valueOf")
	booleanProto = nameSet("constructor", "toString", "valueOf")
)

func nameSet(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// jsGet reads v[key] as JavaScript does, inherited names included.
func jsGet(v any, key string) (any, error) {
	inherited := func(proto map[string]bool) any {
		if proto[key] || objectProto[key] {
			return jsFunction(key)
		}
		return jvUndef
	}
	switch x := v.(type) {
	case nil, jsUndefined:
		return nil, &jsTypeError{fmt.Sprintf("Cannot read properties of %s (reading '%s')", jsTypeName(v), wellFormed(key))}
	case *jsObject:
		if e, ok := x.vals[key]; ok {
			return e, nil
		}
		return inherited(nil), nil
	case *jsArray:
		if i, ok := canonicalIndex(key, len(x.elems)); ok {
			return x.elems[i], nil
		}
		if key == "length" {
			return float64(len(x.elems)), nil
		}
		return inherited(arrayProto), nil
	case string:
		units := utf16Units(x)
		if i, ok := canonicalIndex(key, len(units)); ok {
			return unitString(units[i]), nil
		}
		if key == "length" {
			return float64(len(units)), nil
		}
		return inherited(stringProto), nil
	case float64:
		return inherited(numberProto), nil
	case bool:
		return inherited(booleanProto), nil
	}
	return jvUndef, nil // a function's own properties are not modelled
}

// jsSet assigns v[key] = val as sloppy-mode JavaScript does (the reference
// loads fast-json-patch's CommonJS build, which is not strict): on a
// primitive nothing happens.
func jsSet(v any, key string, val any) error {
	switch x := v.(type) {
	case nil, jsUndefined:
		return &jsTypeError{fmt.Sprintf("Cannot set properties of %s (setting '%s')", jsTypeName(v), wellFormed(key))}
	case *jsObject:
		x.set(key, val)
	case *jsArray:
		if i, ok := arrayIndex32(key); ok {
			if int(i) > len(x.elems)+maxSparse {
				return errSparse
			}
			for int(i) >= len(x.elems) {
				x.elems = append(x.elems, jvUndef)
			}
			x.elems[i] = val
			return nil
		}
		if key == "length" {
			f, ok := val.(float64)
			if !ok || f < 0 || f != math.Trunc(f) || f > 4294967295 {
				return &jsTypeError{"RangeError: Invalid array length"}
			}
			n := int(f)
			if n > len(x.elems)+maxSparse {
				return errSparse
			}
			for len(x.elems) < n {
				x.elems = append(x.elems, jvUndef)
			}
			x.elems = x.elems[:n]
		}
		// Other properties of an array are invisible to JSON: not kept.
	}
	return nil
}

// maxSparse bounds how far an assignment may grow an array. JavaScript
// makes a sparse array of any length; a model that allocates every element
// refuses instead of exhausting memory.
const maxSparse = 1 << 16

var errSparse = errors.New("an array would grow by more than 65536 empty elements; not modelled")

// jsDelete is delete v[key] in sloppy mode.
func jsDelete(v any, key string) error {
	switch x := v.(type) {
	case nil, jsUndefined:
		return &jsTypeError{fmt.Sprintf("Cannot convert undefined or null to object (deleting '%s')", wellFormed(key))}
	case *jsObject:
		x.del(key)
	case *jsArray:
		if i, ok := canonicalIndex(key, len(x.elems)); ok {
			x.elems[i] = jvUndef
		}
	}
	return nil
}

func jsTypeName(v any) string {
	if v == nil {
		return "null"
	}
	return "undefined"
}

// jsToString is what a template literal makes of v.
func jsToString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case jsUndefined:
		return "undefined"
	case bool:
		return strconv.FormatBool(x)
	case float64:
		if math.IsNaN(x) {
			return "NaN"
		}
		return formatJSNumber(x)
	case string:
		return x
	case *jsArray:
		parts := make([]string, len(x.elems))
		for i, e := range x.elems {
			if !jsNullish(e) {
				parts[i] = jsToString(e)
			}
		}
		return strings.Join(parts, ",")
	case *jsObject:
		return "[object Object]"
	}
	return "function " + string(v.(jsFunction)) + "() { [native code] }"
}
