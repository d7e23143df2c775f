package agui

import (
	"math"
	"strconv"

	"github.com/aguitest/aguitest/internal/jsonpointer"
)

// The protobuf codec works on JSON values as JavaScript holds them, because
// the reference decoder is JavaScript: it builds objects field by field,
// deletes and re-adds keys, and JSON.stringify writes what it built. Key
// order is therefore JavaScript's: integer-like keys first, ascending, then
// the others in insertion order; assigning an existing key keeps its place.

type jsKind uint8

const (
	pjUndefined jsKind = iota
	pjNull
	pjBool
	pjNumber
	pjString
	pjObject
	pjArray
)

// jsValue is a JavaScript value as JSON.parse makes it or JSON.stringify
// reads it; undefined stands for an absent key.
type jsValue struct {
	kind jsKind
	b    bool
	num  float64
	str  string
	obj  *jsObj
	arr  *jsArr
}

type jsArr struct{ v []jsValue }

// jsObj is an object with JavaScript's key order.
type jsObj struct {
	keys []string
	vals []jsValue
	nIdx int // leading integer-like keys
}

var jsUndef = jsValue{}

func jsStr(s string) jsValue       { return jsValue{kind: pjString, str: s} }
func jsNum(f float64) jsValue      { return jsValue{kind: pjNumber, num: f} }
func jsBoolean(b bool) jsValue     { return jsValue{kind: pjBool, b: b} }
func jsObjVal(o *jsObj) jsValue    { return jsValue{kind: pjObject, obj: o} }
func jsArrVal(a []jsValue) jsValue { return jsValue{kind: pjArray, arr: &jsArr{v: a}} }

func (v jsValue) defined() bool { return v.kind != pjUndefined }

// isArrayIndex reports whether JavaScript orders k as an integer key: the
// canonical decimal form of an integer below 2^32-1.
func isArrayIndex(k string) bool {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return false
		}
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return err == nil && n < math.MaxUint32
}

func (o *jsObj) find(k string) int {
	for i, x := range o.keys {
		if x == k {
			return i
		}
	}
	return -1
}

func (o *jsObj) get(k string) jsValue {
	if i := o.find(k); i >= 0 {
		return o.vals[i]
	}
	return jsUndef
}

// set assigns k, keeping its place when it exists.
func (o *jsObj) set(k string, v jsValue) {
	if i := o.find(k); i >= 0 {
		o.vals[i] = v
		return
	}
	at := len(o.keys)
	if isArrayIndex(k) {
		n, _ := strconv.ParseUint(k, 10, 64)
		at = 0
		for at < o.nIdx {
			m, _ := strconv.ParseUint(o.keys[at], 10, 64)
			if m > n {
				break
			}
			at++
		}
		o.nIdx++
	}
	o.keys = append(o.keys, "")
	o.vals = append(o.vals, jsValue{})
	copy(o.keys[at+1:], o.keys[at:])
	copy(o.vals[at+1:], o.vals[at:])
	o.keys[at], o.vals[at] = k, v
}

// del removes k.
func (o *jsObj) del(k string) {
	i := o.find(k)
	if i < 0 {
		return
	}
	if i < o.nIdx {
		o.nIdx--
	}
	o.keys = append(o.keys[:i], o.keys[i+1:]...)
	o.vals = append(o.vals[:i], o.vals[i+1:]...)
}

// parseJS parses valid JSON as JSON.parse does: a repeated key keeps its
// first place and takes its last value.
func parseJS(data []byte) jsValue {
	v, _ := parseJSAt(data, skipSpace(data, 0))
	return v
}

func parseJSAt(data []byte, i int) (jsValue, int) {
	switch c := data[i]; {
	case c == '{':
		o := &jsObj{}
		i = skipSpace(data, i+1)
		if data[i] == '}' {
			return jsObjVal(o), i + 1
		}
		for {
			end, _, _ := scanString(data, i)
			k := unquote(data[i:end])
			i = skipSpace(data, end)
			var v jsValue
			v, i = parseJSAt(data, skipSpace(data, i+1))
			o.set(k, v)
			i = skipSpace(data, i)
			if data[i] == '}' {
				return jsObjVal(o), i + 1
			}
			i = skipSpace(data, i+1)
		}
	case c == '[':
		var a []jsValue
		i = skipSpace(data, i+1)
		if data[i] == ']' {
			return jsArrVal(a), i + 1
		}
		for {
			var v jsValue
			v, i = parseJSAt(data, i)
			a = append(a, v)
			i = skipSpace(data, i)
			if data[i] == ']' {
				return jsArrVal(a), i + 1
			}
			i = skipSpace(data, i+1)
		}
	case c == '"':
		end, _, _ := scanString(data, i)
		return jsStr(unquote(data[i:end])), end
	case c == 't':
		return jsBoolean(true), i + 4
	case c == 'f':
		return jsBoolean(false), i + 5
	case c == 'n':
		return jsValue{kind: pjNull}, i + 4
	default:
		end, _ := scanNumber(data, i)
		f, _ := strconv.ParseFloat(string(data[i:end]), 64) // ±Inf on overflow, as in JavaScript
		return jsNum(f), end
	}
}

// appendJS appends v as JSON.stringify writes it. An undefined value writes
// nothing; the caller skips such members.
func appendJS(b []byte, v jsValue) []byte {
	switch v.kind {
	case pjNull, pjUndefined:
		return append(b, "null"...)
	case pjBool:
		return strconv.AppendBool(b, v.b)
	case pjNumber:
		if math.IsNaN(v.num) || math.IsInf(v.num, 0) {
			return append(b, "null"...)
		}
		return append(b, formatJSNumber(v.num)...)
	case pjString:
		return appendQuoted(b, v.str)
	case pjArray:
		b = append(b, '[')
		for i, x := range v.arr.v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJS(b, x) // undefined in an array is null
		}
		return append(b, ']')
	default:
		b = append(b, '{')
		first := true
		for i, k := range v.obj.keys {
			x := v.obj.vals[i]
			if !x.defined() {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendQuoted(b, k)
			b = append(b, ':')
			b = appendJS(b, x)
		}
		return append(b, '}')
	}
}

// jsEqual compares as the JSON texts of a and b would, member order aside.
func jsEqual(a, b jsValue) bool {
	if a.kind == pjNumber && b.kind == pjNumber {
		return a.num == b.num || math.IsNaN(a.num) && math.IsNaN(b.num)
	}
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case pjBool:
		return a.b == b.b
	case pjString:
		return a.str == b.str
	case pjArray:
		if len(a.arr.v) != len(b.arr.v) {
			return false
		}
		for i := range a.arr.v {
			if !jsEqual(a.arr.v[i], b.arr.v[i]) {
				return false
			}
		}
		return true
	case pjObject:
		n := 0
		for i, k := range a.obj.keys {
			if !a.obj.vals[i].defined() {
				continue
			}
			n++
			if !jsEqual(a.obj.vals[i], b.obj.get(k)) {
				return false
			}
		}
		for _, v := range b.obj.vals {
			if v.defined() {
				n--
			}
		}
		return n == 0
	}
	return true
}

// jsDiff appends a Loss for every place where got differs from want.
func jsDiff(path string, want, got jsValue, out []Loss) []Loss {
	if jsEqual(want, got) {
		return out
	}
	switch {
	case !got.defined():
		return append(out, Loss{Path: path, Reason: "not carried (was " + jsShort(want) + ")"})
	case !want.defined():
		return append(out, Loss{Path: path, Reason: "added as " + jsShort(got)})
	case want.kind == pjObject && got.kind == pjObject:
		for i, k := range want.obj.keys {
			out = jsDiff(path+"/"+jsonpointer.Escape(k), want.obj.vals[i], got.obj.get(k), out)
		}
		for i, k := range got.obj.keys {
			if want.obj.find(k) < 0 {
				out = jsDiff(path+"/"+jsonpointer.Escape(k), jsUndef, got.obj.vals[i], out)
			}
		}
		return out
	case want.kind == pjArray && got.kind == pjArray && len(want.arr.v) == len(got.arr.v):
		for i := range want.arr.v {
			out = jsDiff(path+"/"+strconv.Itoa(i), want.arr.v[i], got.arr.v[i], out)
		}
		return out
	}
	return append(out, Loss{Path: path, Reason: "changed from " + jsShort(want) + " to " + jsShort(got)})
}

// jsShort is v's JSON, cut to a length fit for a message.
func jsShort(v jsValue) string {
	s := string(appendJS(nil, v))
	if len(s) > 60 {
		cut := 57
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}
