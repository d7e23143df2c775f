// Package jsvalue is the module's one model of JavaScript values. The
// reference client and the reference protobuf codec are JavaScript: they
// hold messages and state as JavaScript values, and agui's view, its JSON
// Patch applier and its protobuf codec reproduce what they do to them. They
// work on this small model of those values:
//
//	nil          null
//	bool         a boolean
//	float64      a number (JSON numbers are read as JavaScript reads them)
//	string       a string, in WTF-8: a lone UTF-16 surrogate, which JSON
//	             can carry as an escape and JavaScript keeps, is encoded
//	             as its three-byte form, so that text streamed in pieces
//	             joins exactly as JavaScript joins it (ParseUTF8 reads it
//	             as U+FFFD instead, for the protobuf codec's UTF-8 strings)
//	*Object      an object: own keys in insertion order, listed in
//	             JavaScript's property order, shared by reference as
//	             JavaScript objects are
//	*Array       an array, shared by reference
//	Undefined    undefined (an absent field, or a value JSON drops)
//	Function     a method the value inherits (toString, push, ...): what
//	             obj[key] reads for an inherited name; never from JSON
package jsvalue

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

// Undefined is JavaScript's undefined.
type Undefined struct{}

var Undef = Undefined{}

// Function is an inherited method, by name.
type Function string

// Object is a plain JavaScript object.
type Object struct {
	keys []string // insertion order
	vals []any    // vals[i] is the value of keys[i]
	// idx indexes the keys of an object of more than smallObject keys; a
	// smaller one is searched, which costs less than a map for the few
	// keys of a message or a call.
	idx map[string]int
}

// smallObject is the most keys an object holds without an index.
const smallObject = 8

// find returns the position of key k, or -1.
func (o *Object) find(k string) int {
	if o.idx != nil {
		if i, ok := o.idx[k]; ok {
			return i
		}
		return -1
	}
	for i, x := range o.keys {
		if x == k {
			return i
		}
	}
	return -1
}

// reindex builds the index of keys once the object needs one.
func (o *Object) reindex() {
	if len(o.keys) <= smallObject {
		o.idx = nil
		return
	}
	o.idx = make(map[string]int, len(o.keys))
	for i, k := range o.keys {
		o.idx[k] = i
	}
}

// Array is a JavaScript array; holes read as undefined.
type Array struct{ Elems []any }

// NewObject returns an empty object.
func NewObject() *Object { return &Object{} }

// Own returns the value of an own property.
func (o *Object) Own(k string) (any, bool) {
	if i := o.find(k); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// Get returns an own property's value, or undefined.
func (o *Object) Get(k string) any {
	if i := o.find(k); i >= 0 {
		return o.vals[i]
	}
	return Undef
}

// Set assigns a property: a new key goes last, an existing one keeps its
// place.
func (o *Object) Set(k string, v any) {
	if i := o.find(k); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
	switch {
	case o.idx != nil:
		o.idx[k] = len(o.keys) - 1
	case len(o.keys) > smallObject:
		o.reindex()
	}
}

// Len returns the number of own properties.
func (o *Object) Len() int { return len(o.keys) }

// Del deletes an own property.
func (o *Object) Del(k string) {
	i := o.find(k)
	if i < 0 {
		return
	}
	o.keys = slices.Delete(o.keys, i, i+1)
	o.vals = slices.Delete(o.vals, i, i+1)
	if o.idx != nil {
		o.reindex()
	}
}

// Keys returns the keys in JavaScript's property order: array-index
// keys ascending, then the others in insertion order.
func (o *Object) Keys() []string {
	var idx []string
	for _, k := range o.keys {
		if _, ok := ArrayIndex(k); ok {
			idx = append(idx, k)
		}
	}
	if len(idx) == 0 {
		return o.keys
	}
	slices.SortFunc(idx, func(a, b string) int {
		x, _ := ArrayIndex(a)
		y, _ := ArrayIndex(b)
		return int(x) - int(y)
	})
	out := idx
	for _, k := range o.keys {
		if _, ok := ArrayIndex(k); !ok {
			out = append(out, k)
		}
	}
	return out
}

// Spread returns {...o}: a new object with o's own keys, values shared.
func (o *Object) Spread() *Object {
	c := &Object{keys: make([]string, 0, len(o.keys)), vals: make([]any, 0, len(o.vals))}
	for _, k := range o.Keys() {
		c.Set(k, o.Get(k))
	}
	return c
}

// SpreadInto assigns the own enumerable properties of v to o, as an object
// spread of v does: an object's keys, an array's or a string's indices;
// other values have none.
func SpreadInto(o *Object, v any) {
	switch x := v.(type) {
	case *Object:
		for _, k := range x.Keys() {
			o.Set(k, x.Get(k))
		}
	case *Array:
		for i, e := range x.Elems {
			o.Set(strconv.Itoa(i), e)
		}
	case string:
		for i, u := range UTF16Units(x) {
			o.Set(strconv.Itoa(i), UnitString(u))
		}
	}
}

// ArrayIndex reports whether k is an array index as JavaScript orders
// keys: the canonical decimal form of an integer in [0, 2^32-2].
func ArrayIndex(k string) (uint32, bool) {
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

// CanonicalIndex returns the array index k names when k is the canonical
// decimal form of a non-negative integer below n.
func CanonicalIndex(k string, n int) (int, bool) {
	i, ok := ArrayIndex(k)
	if !ok || int64(i) >= int64(n) {
		return 0, false
	}
	return int(i), true
}

// Parse reads one JSON value, as JSON.parse does: duplicate keys keep
// their first place and take the last value, numbers become doubles,
// escaped lone surrogates are kept.
func Parse(data []byte) (any, error) {
	start, end, _, err := jsonx.ScanValue(data, 0)
	if err != nil {
		return nil, err
	}
	if jsonx.SkipSpace(data, end) != len(data) {
		return nil, jsonx.Errorf(end, "unexpected data after the value")
	}
	v, _ := decode(data, start, true)
	return v, nil
}

// ParseUTF8 reads one valid JSON value as Parse does, except that an
// escaped lone surrogate becomes U+FFFD, as UTF-8 encoding the parsed
// value makes it (the protobuf codec's strings are UTF-8).
func ParseUTF8(valid []byte) any {
	v, _ := decode(valid, 0, false)
	return v
}

// decode decodes the valid JSON value at data[i:] and returns the index
// after it; wtf8 keeps lone surrogates (see DecodeString).
func decode(data []byte, i int, wtf8 bool) (any, int) {
	i = jsonx.SkipSpace(data, i)
	switch c := data[i]; {
	case c == '{':
		o := NewObject()
		i = jsonx.SkipSpace(data, i+1)
		if data[i] == '}' {
			return o, i + 1
		}
		for {
			ke, _, _ := jsonx.ScanString(data, i)
			k := decodeString(data[i:ke], wtf8)
			i = jsonx.SkipSpace(data, ke) + 1 // ':'
			var v any
			v, i = decode(data, i, wtf8)
			o.Set(k, v)
			i = jsonx.SkipSpace(data, i)
			if data[i] == '}' {
				return o, i + 1
			}
			i = jsonx.SkipSpace(data, i+1) // ','
		}
	case c == '[':
		a := &Array{}
		i = jsonx.SkipSpace(data, i+1)
		if data[i] == ']' {
			return a, i + 1
		}
		for {
			var v any
			v, i = decode(data, i, wtf8)
			a.Elems = append(a.Elems, v)
			i = jsonx.SkipSpace(data, i)
			if data[i] == ']' {
				return a, i + 1
			}
			i++ // ','
		}
	case c == '"':
		ke, _, _ := jsonx.ScanString(data, i)
		return decodeString(data[i:ke], wtf8), ke
	case c == 't':
		return true, i + 4
	case c == 'f':
		return false, i + 5
	case c == 'n':
		return nil, i + 4
	default:
		end, _ := jsonx.ScanNumber(data, i)
		// A number too large for a double is Infinity, as in JavaScript.
		f, _ := strconv.ParseFloat(string(data[i:end]), 64)
		return f, end
	}
}

// DecodeString decodes a valid JSON string literal (with its quotes) to
// WTF-8: a lone surrogate escape is kept, as a JavaScript string keeps it.
func DecodeString(s []byte) string { return decodeString(s, true) }

func decodeString(s []byte, wtf8 bool) string {
	body := s[1 : len(s)-1]
	if !slices.Contains(body, '\\') {
		return string(body)
	}
	return string(jsonx.AppendUnquote(make([]byte, 0, len(body)), s, wtf8))
}

// surrogateAt reports the surrogate encoded at s[i:i+3], if any.
func surrogateAt(s string, i int) (uint16, bool) { return jsonx.Surrogate(s, i) }

// Concat joins two strings as JavaScript does: a high surrogate ending a
// and a low surrogate starting b become one character.
func Concat(a, b string) string {
	if len(a) >= 3 && len(b) >= 3 {
		hi, ok1 := surrogateAt(a, len(a)-3)
		lo, ok2 := surrogateAt(b, 0)
		if ok1 && ok2 && hi < 0xDC00 && lo >= 0xDC00 {
			return a[:len(a)-3] + string(utf16.DecodeRune(rune(hi), rune(lo))) + b[3:]
		}
	}
	return a + b
}

// UTF16Units returns the code units of a WTF-8 string.
func UTF16Units(s string) []uint16 {
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

// UnitString is the one-unit string JavaScript's s[i] gives.
func UnitString(u uint16) string { return string(jsonx.AppendUnit(nil, u)) }

// WellFormed replaces the lone surrogates of a WTF-8 string with U+FFFD,
// for Go code that wants UTF-8.
func WellFormed(s string) string {
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

// AppendJSON appends what JSON.stringify writes for v. It reports false
// for a value JSON.stringify leaves out (undefined, a function), which it
// does not append.
func AppendJSON(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return append(b, "null"...), true
		}
		return append(b, FormatNumber(x)...), true
	case string:
		return jsonx.AppendQuote(b, x), true
	case *Object:
		b = append(b, '{')
		first := true
		for _, k := range x.Keys() {
			val := x.Get(k)
			if !jsonable(val) {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = jsonx.AppendQuote(b, k)
			b = append(b, ':')
			b, _ = AppendJSON(b, val)
		}
		return append(b, '}'), true
	case *Array:
		b = append(b, '[')
		for i, e := range x.Elems {
			if i > 0 {
				b = append(b, ',')
			}
			if !jsonable(e) {
				b = append(b, "null"...)
				continue
			}
			b, _ = AppendJSON(b, e)
		}
		return append(b, ']'), true
	}
	return b, false
}

func jsonable(v any) bool {
	switch v.(type) {
	case Undefined, Function:
		return false
	}
	return true
}

// Stringify returns JSON.stringify(v), or nil for a value it leaves out.
func Stringify(v any) []byte {
	b, ok := AppendJSON(nil, v)
	if !ok {
		return nil
	}
	return b
}

// ErrDataClone is what structuredClone throws for a function.
var ErrDataClone = errors.New("DataCloneError: a function could not be cloned")

// StructuredClone copies v as structuredClone does: objects and arrays
// shared within v stay shared in the copy; a function is an error.
func StructuredClone(v any) (any, error) {
	return cloneWith(v, map[any]any{})
}

func cloneWith(v any, memo map[any]any) (any, error) {
	switch x := v.(type) {
	case Function:
		return nil, ErrDataClone
	case *Object:
		if c, ok := memo[x]; ok {
			return c, nil
		}
		c := &Object{keys: slices.Clone(x.keys), vals: make([]any, len(x.vals))}
		memo[x] = c
		for i, e := range x.vals {
			ce, err := cloneWith(e, memo)
			if err != nil {
				return nil, err
			}
			c.vals[i] = ce
		}
		c.reindex()
		return c, nil
	case *Array:
		if c, ok := memo[x]; ok {
			return c, nil
		}
		c := &Array{Elems: make([]any, len(x.Elems))}
		memo[x] = c
		for i, e := range x.Elems {
			ce, err := cloneWith(e, memo)
			if err != nil {
				return nil, err
			}
			c.Elems[i] = ce
		}
		return c, nil
	}
	return v, nil
}

// JSONClone copies v as JSON.parse(JSON.stringify(v)) does, for an object
// or array v: undefined and functions drop out of objects and become null
// in arrays, numbers that are not finite become null, -0 becomes 0.
func JSONClone(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
		if x == 0 {
			return 0.0
		}
		return x
	case *Object:
		c := NewObject()
		for _, k := range x.Keys() {
			if e := x.Get(k); jsonable(e) {
				c.Set(k, JSONClone(e))
			}
		}
		return c
	case *Array:
		c := &Array{Elems: make([]any, len(x.Elems))}
		for i, e := range x.Elems {
			if jsonable(e) {
				c.Elems[i] = JSONClone(e)
			}
		}
		return c
	}
	return v
}

// HasCycle reports whether v contains itself, which JSON.stringify refuses.
// Values shared between branches are not cycles.
func HasCycle(v any) bool {
	onPath := map[any]bool{}
	var walk func(v any) bool
	walk = func(v any) bool {
		var kids []any
		switch x := v.(type) {
		case *Object:
			kids = x.vals
		case *Array:
			kids = x.Elems
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

// Truthy is JavaScript's truthiness.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil, Undefined:
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

// Nullish reports v == null: null or undefined.
func Nullish(v any) bool {
	switch v.(type) {
	case nil, Undefined:
		return true
	}
	return false
}

// IsObjectType reports typeof v === "object" for a non-null v.
func IsObjectType(v any) bool {
	switch v.(type) {
	case *Object, *Array:
		return true
	}
	return false
}

// StrictEqual is ===.
func StrictEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case Undefined:
		_, ok := b.(Undefined)
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
	case Function:
		y, ok := b.(Function)
		return ok && x == y
	case *Object:
		y, ok := b.(*Object)
		return ok && x == y
	case *Array:
		y, ok := b.(*Array)
		return ok && x == y
	}
	return false
}

// SameValueZero is the equality of Map keys and includes: === except that
// NaN equals NaN.
func SameValueZero(a, b any) bool {
	if x, ok := a.(float64); ok && math.IsNaN(x) {
		y, ok := b.(float64)
		return ok && math.IsNaN(y)
	}
	return StrictEqual(a, b)
}

// TypeError is a TypeError the reference client would throw.
type TypeError struct{ Msg string }

// Error reads as JavaScript prints the error.
func (e *TypeError) Error() string { return "TypeError: " + e.Msg }

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

// Get reads v[key] as JavaScript does, inherited names included.
func Get(v any, key string) (any, error) {
	inherited := func(proto map[string]bool) any {
		if proto[key] || objectProto[key] {
			return Function(key)
		}
		return Undef
	}
	switch x := v.(type) {
	case nil, Undefined:
		return nil, &TypeError{fmt.Sprintf("Cannot read properties of %s (reading '%s')", jsTypeName(v), WellFormed(key))}
	case *Object:
		if e, ok := x.Own(key); ok {
			return e, nil
		}
		return inherited(nil), nil
	case *Array:
		if i, ok := CanonicalIndex(key, len(x.Elems)); ok {
			return x.Elems[i], nil
		}
		if key == "length" {
			return float64(len(x.Elems)), nil
		}
		return inherited(arrayProto), nil
	case string:
		units := UTF16Units(x)
		if i, ok := CanonicalIndex(key, len(units)); ok {
			return UnitString(units[i]), nil
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
	return Undef, nil // a function's own properties are not modelled
}

// Set assigns v[key] = val as sloppy-mode JavaScript does (the reference
// loads fast-json-patch's CommonJS build, which is not strict): on a
// primitive nothing happens.
func Set(v any, key string, val any) error {
	switch x := v.(type) {
	case nil, Undefined:
		return &TypeError{fmt.Sprintf("Cannot set properties of %s (setting '%s')", jsTypeName(v), WellFormed(key))}
	case *Object:
		x.Set(key, val)
	case *Array:
		if i, ok := ArrayIndex(key); ok {
			if int(i) > len(x.Elems)+MaxSparse {
				return ErrSparse
			}
			for int(i) >= len(x.Elems) {
				x.Elems = append(x.Elems, Undef)
			}
			x.Elems[i] = val
			return nil
		}
		if key == "length" {
			f, ok := val.(float64)
			if !ok || f < 0 || f != math.Trunc(f) || f > 4294967295 {
				return &TypeError{"RangeError: Invalid array length"}
			}
			n := int(f)
			if n > len(x.Elems)+MaxSparse {
				return ErrSparse
			}
			for len(x.Elems) < n {
				x.Elems = append(x.Elems, Undef)
			}
			x.Elems = x.Elems[:n]
		}
		// Other properties of an array are invisible to JSON: not kept.
	}
	return nil
}

// MaxSparse bounds how far an assignment may grow an array. JavaScript
// makes a sparse array of any length; a model that allocates every element
// refuses instead of exhausting memory.
const MaxSparse = 1 << 16

var ErrSparse = errors.New("an array would grow by more than 65536 empty elements; not modelled")

// Delete is delete v[key] in sloppy mode.
func Delete(v any, key string) error {
	switch x := v.(type) {
	case nil, Undefined:
		return &TypeError{fmt.Sprintf("Cannot convert undefined or null to object (deleting '%s')", WellFormed(key))}
	case *Object:
		x.Del(key)
	case *Array:
		if i, ok := CanonicalIndex(key, len(x.Elems)); ok {
			x.Elems[i] = Undef
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

// ToString is what a template literal makes of v.
func ToString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case Undefined:
		return "undefined"
	case bool:
		return strconv.FormatBool(x)
	case float64:
		if math.IsNaN(x) {
			return "NaN"
		}
		return FormatNumber(x)
	case string:
		return x
	case *Array:
		parts := make([]string, len(x.Elems))
		for i, e := range x.Elems {
			if !Nullish(e) {
				parts[i] = ToString(e)
			}
		}
		return strings.Join(parts, ",")
	case *Object:
		return "[object Object]"
	}
	return "function " + string(v.(Function)) + "() { [native code] }"
}

// FormatNumber writes f as JavaScript's Number#toString does.
func FormatNumber(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	abs := math.Abs(f)
	if abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	// Go writes e-07 and e+21; JavaScript writes e-7 and e+21.
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[0]
	exp = strings.TrimLeft(exp[1:], "0")
	return mant + "e" + string(sign) + exp
}

// SameJSON reports whether a and b compare as their JSON texts would,
// member order aside: undefined members are absent, numbers compare by
// value (NaN equal to NaN), objects and arrays by content.
func SameJSON(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || math.IsNaN(x) && math.IsNaN(y))
	case *Array:
		y, ok := b.(*Array)
		if !ok || len(x.Elems) != len(y.Elems) {
			return false
		}
		for i := range x.Elems {
			if !SameJSON(x.Elems[i], y.Elems[i]) {
				return false
			}
		}
		return true
	case *Object:
		y, ok := b.(*Object)
		if !ok {
			return false
		}
		n := 0
		for i, k := range x.keys {
			v := x.vals[i]
			if _, undef := v.(Undefined); undef {
				continue
			}
			n++
			if !SameJSON(v, y.Get(k)) {
				return false
			}
		}
		for _, v := range y.vals {
			if _, undef := v.(Undefined); !undef {
				n--
			}
		}
		return n == 0
	}
	return StrictEqual(a, b)
}
