package schema

import (
	"slices"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/internal/jsonpointer"
	"github.com/aguitest/aguitest/internal/jsonx"
	"github.com/aguitest/aguitest/internal/jsvalue"
	iwords "github.com/aguitest/aguitest/internal/words"
)

// What the client drops in silence. HttpAgent's enforcement stage strips
// what an event's schema does not describe (an unknown field; an element or
// optional field that is a tagged-union member with an unknown tag), with
// only a console warning. Removals finds each, with the path the client
// names in its warning and a did-you-mean for a near miss; agui's Strict
// profile reports them.

// Removal is one piece of an event the client's enforcement stage removes.
type Removal struct {
	Pointer string // JSON Pointer of the removed value
	Text    string // what is removed and why, with a did-you-mean
}

// Removals returns what the client strips from the event raw of type typ,
// whose value is at sp, in the order the client reports them. It returns
// nil for a type that is not one of @ag-ui/core 1.0.0's.
func Removals(raw []byte, sp span, typ string) []Removal {
	s := Event(typ)
	if s == nil {
		return nil
	}
	var out []Removal
	for _, r := range removals(nil, raw, sp, s, "", eventFamily) {
		out = append(out, Removal{Pointer: r.pointer, Text: removalText(typ, raw, r)})
	}
	return out
}

// A removal is one piece of an event the client's enforcement stage
// removes, in the order the client reports them.
type removal struct {
	pointer string  // JSON Pointer of the removed value
	key     string  // an unknown field's name; "" for a dropped union member
	in      *Schema // the object the key is unknown to, or the union that drops the member
	family  []*Schema
	val     span
}

// removals appends what stripping removes from the value at sp of schema
// s, as the client's stripper walks it: object keys in JavaScript's order,
// array elements by their original index. family holds the objects s is
// an option beside (the other options of its tagged union).
func removals(out []removal, raw []byte, sp span, s *Schema, ptr string, family []*Schema) []removal {
	switch s.kind {
	case sObject:
		if sp.Kind != jsonx.Object || s.open {
			return out
		}
		for _, m := range jsOrder(jsonx.Members(raw[sp.Start:sp.End])) {
			p := ptr + "/" + jsonpointer.Escape(m.Key)
			v := subSpan(raw, m.Val)
			f := s.fieldOf([]byte(m.Key))
			if f == nil {
				out = append(out, removal{pointer: p, key: m.Key, in: s, family: family, val: v})
				continue
			}
			if drops(raw, v, f.s) {
				out = append(out, removal{pointer: p, in: f.s, val: v})
				continue
			}
			out = removals(out, raw, v, f.s, p, nil)
		}
	case sArray:
		if sp.Kind != jsonx.Array {
			return out
		}
		jsonx.EachElement(raw, sp, func(i int, v span) {
			p := ptr + "/" + strconv.Itoa(i)
			if drops(raw, v, s.elem) {
				out = append(out, removal{pointer: p, in: s.elem, val: v})
				return
			}
			out = removals(out, raw, v, s.elem, p, nil)
		})
	case sRecord:
		if sp.Kind != jsonx.Object {
			return out
		}
		for _, m := range jsOrder(jsonx.Members(raw[sp.Start:sp.End])) {
			p := ptr + "/" + jsonpointer.Escape(m.Key)
			v := subSpan(raw, m.Val)
			if drops(raw, v, s.elem) {
				out = append(out, removal{pointer: p, in: s.elem, val: v})
				continue
			}
			out = removals(out, raw, v, s.elem, p, nil)
		}
	case sTagged:
		if sp.Kind != jsonx.Object {
			return out
		}
		if o := s.option(spanBytes(raw, fieldSpan(raw, sp, s.tag))); o != nil {
			return removals(out, raw, sp, o, ptr, s.options)
		}
	case sUnion:
		if o := unionTarget(s, sp); o != nil {
			return removals(out, raw, sp, o, ptr, family)
		}
	}
	return out
}

// jsOrder puts members in JavaScript's property order: array-index keys
// ascending, then the others as they came.
func jsOrder(ms []jsonx.Member) []jsonx.Member {
	n := 0
	for _, m := range ms {
		if _, ok := jsvalue.ArrayIndex(m.Key); ok {
			n++
		}
	}
	if n == 0 {
		return ms
	}
	out := make([]jsonx.Member, 0, len(ms))
	for _, m := range ms {
		if _, ok := jsvalue.ArrayIndex(m.Key); ok {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b jsonx.Member) int {
		x, _ := jsvalue.ArrayIndex(a.Key)
		y, _ := jsvalue.ArrayIndex(b.Key)
		return int(int64(x) - int64(y))
	})
	for _, m := range ms {
		if _, ok := jsvalue.ArrayIndex(m.Key); !ok {
			out = append(out, m)
		}
	}
	return out
}

// eventFamily is the event schemas, in the order of EventSchema's
// options: where a field unknown to one event type is looked up as
// another's.
var eventFamily = func() []*Schema {
	out := make([]*Schema, len(eventTypes))
	for i, t := range eventTypes {
		out[i] = eventSchemas[t]
	}
	return out
}()

// removalText says what the client strips and why, with a did-you-mean.
func removalText(t string, raw []byte, r removal) string {
	var b strings.Builder
	if r.key != "" {
		b.WriteString("the client strips unknown field " + r.pointer)
		if hint := fieldHint(r); hint != "" {
			b.WriteString(" (" + hint + ")")
		}
		b.WriteString(": the schema of " + t + " has no such field, and the frontend never sees it")
		return b.String()
	}
	tag, val, known := memberTag(raw, r.val, r.in)
	b.WriteString("the client drops " + r.pointer)
	if tag != "" {
		b.WriteString(": its " + tag + " " + val + " is none the schema knows")
		var names []string
		for _, k := range known {
			names = append(names, strconv.Quote(k))
		}
		if n := iwords.Nearest(unquoteJS(val), known); n != "" {
			b.WriteString(" (did you mean " + strconv.Quote(n) + "?)")
		} else if len(names) > 0 {
			b.WriteString(" (it knows " + strings.Join(names, ", ") + ")")
		}
	}
	b.WriteString(", and the frontend never sees it")
	return b.String()
}

// fieldHint is the did-you-mean for an unknown field: a field of its own
// object it misspells, or the sibling object (another event type, a
// message of another role) that has it.
func fieldHint(r removal) string {
	own := fieldNames(r.in)
	if n := iwords.Nearest(r.key, own); n != "" {
		return "did you mean " + n + "?"
	}
	for _, o := range r.family {
		if o == r.in || o.fieldOf([]byte(r.key)) == nil {
			continue
		}
		return r.key + " is a field of " + optionName(o)
	}
	return ""
}

func fieldNames(s *Schema) []string {
	out := make([]string, len(s.fields))
	for i, f := range s.fields {
		out[i] = f.name
	}
	return out
}

// optionName names an option of a tagged union by its tag: an event type,
// or `the message with role "assistant"`.
func optionName(o *Schema) string {
	if f := o.fieldOf([]byte("type")); f != nil && f.s.kind == sLiteral && eventSchemas[f.s.values[0]] != nil {
		return f.s.values[0]
	}
	for _, f := range o.fields {
		if f.s.kind == sLiteral {
			return f.name + " " + strconv.Quote(f.s.values[0])
		}
	}
	return "another object"
}

// memberTag finds, in a dropped value of schema s, the tag that is none of
// its union's: the tag's name, its value as JSON, and the values known.
// A dropped object is dropped for a required field that is such a member,
// so the search goes down required fields.
func memberTag(raw []byte, sp span, s *Schema) (tag, val string, known []string) {
	for depth := 0; depth < 8 && sp.Kind == jsonx.Object; depth++ {
		switch s.kind {
		case sTagged:
			tv := fieldSpan(raw, sp, s.tag)
			o := s.option(spanBytes(raw, tv))
			if o == nil {
				for _, x := range s.options {
					if f := x.fieldOf([]byte(s.tag)); f != nil && f.s.kind == sLiteral {
						known = append(known, f.s.values[0])
					}
				}
				val = "undefined"
				if tv.Kind != jsonx.Absent {
					val = string(raw[tv.Start:tv.End])
				}
				return s.tag, val, known
			}
			s = o
		case sObject:
			next := false
			for i := range s.fields {
				f := &s.fields[i]
				if f.optional || !f.s.mayDrop() {
					continue
				}
				if fv := fieldSpan(raw, sp, f.name); fv.Kind != jsonx.Absent && drops(raw, fv, f.s) {
					sp, s, next = fv, f.s, true
					break
				}
			}
			if !next {
				return "", "", nil
			}
		case sUnion:
			o := unionTarget(s, sp)
			if o == nil {
				return "", "", nil
			}
			s = o
		default:
			return "", "", nil
		}
	}
	return "", "", nil
}

// unquoteJS returns the string a JSON string literal holds, or the text
// itself when it is not one.
func unquoteJS(s string) string {
	if len(s) >= 2 && s[0] == '"' {
		return jsonx.Unquote([]byte(s))
	}
	return s
}
