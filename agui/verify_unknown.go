package agui

import (
	"slices"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/internal/jsonpointer"
	"github.com/aguitest/aguitest/internal/jsvalue"
	iwords "github.com/aguitest/aguitest/internal/words"
)

// What the client drops in silence. HttpAgent's enforcement stage drops an
// event type the protocol does not describe and strips what an event's
// schema does not describe (an unknown field; an element or optional field
// that is a tagged-union member with an unknown tag), with only a console
// warning. A producer's typo then never reaches the frontend. Strict reports
// each, with the path the client names in its warning and a did-you-mean
// for a near miss. The protocol's extension points are not findings: CUSTOM
// and RAW events, and the opaque fields (metadata, rawEvent, state, values)
// that the schema passes whole.

// A removal is one piece of an event the client's enforcement stage
// removes, in the order the client reports them.
type removal struct {
	pointer string  // JSON Pointer of the removed value
	path    string  // the path as the client's warning prints it: keys unescaped
	key     string  // an unknown field's name; "" for a dropped union member
	in      *schema // the object the key is unknown to, or the union that drops the member
	family  []*schema
	val     span
}

// removals appends what stripping removes from the value at sp of schema
// s, as the client's stripper walks it: object keys in JavaScript's order,
// array elements by their original index. family holds the objects s is
// an option beside (the other options of its tagged union).
func removals(out []removal, raw []byte, sp span, s *schema, ptr, path string, family []*schema) []removal {
	switch s.kind {
	case sObject:
		if sp.Kind != kindObject || s.open {
			return out
		}
		for _, m := range jsOrder(objectMembers(raw[sp.Start:sp.End])) {
			p, q := ptr+"/"+jsonpointer.Escape(m.Key), path+"/"+m.Key
			v := subSpan(raw, m.Val)
			f := s.fieldOf([]byte(m.Key))
			if f == nil {
				out = append(out, removal{pointer: p, path: q, key: m.Key, in: s, family: family, val: v})
				continue
			}
			if drops(raw, v, f.s) {
				out = append(out, removal{pointer: p, path: q, in: f.s, val: v})
				continue
			}
			out = removals(out, raw, v, f.s, p, q, nil)
		}
	case sArray:
		if sp.Kind != kindArray {
			return out
		}
		eachElement(raw, sp, func(i int, v span) {
			p, q := ptr+"/"+strconv.Itoa(i), path+"/"+strconv.Itoa(i)
			if drops(raw, v, s.elem) {
				out = append(out, removal{pointer: p, path: q, in: s.elem, val: v})
				return
			}
			out = removals(out, raw, v, s.elem, p, q, nil)
		})
	case sRecord:
		if sp.Kind != kindObject {
			return out
		}
		for _, m := range jsOrder(objectMembers(raw[sp.Start:sp.End])) {
			p, q := ptr+"/"+jsonpointer.Escape(m.Key), path+"/"+m.Key
			v := subSpan(raw, m.Val)
			if drops(raw, v, s.elem) {
				out = append(out, removal{pointer: p, path: q, in: s.elem, val: v})
				continue
			}
			out = removals(out, raw, v, s.elem, p, q, nil)
		}
	case sTagged:
		if sp.Kind != kindObject {
			return out
		}
		if o := s.option(spanBytes(raw, fieldSpan(raw, sp, s.tag))); o != nil {
			return removals(out, raw, sp, o, ptr, path, s.options)
		}
	case sUnion:
		if o := unionTarget(s, sp); o != nil {
			return removals(out, raw, sp, o, ptr, path, family)
		}
	}
	return out
}

// jsOrder puts members in JavaScript's property order: array-index keys
// ascending, then the others as they came.
func jsOrder(ms []rawMember) []rawMember {
	n := 0
	for _, m := range ms {
		if _, ok := jsvalue.ArrayIndex(m.Key); ok {
			n++
		}
	}
	if n == 0 {
		return ms
	}
	out := make([]rawMember, 0, len(ms))
	for _, m := range ms {
		if _, ok := jsvalue.ArrayIndex(m.Key); ok {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b rawMember) int {
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

// eventFamily is the event schemas, in the order of EventTypes: where a
// field unknown to one event type is looked up as another's.
var eventFamily = func() []*schema {
	out := make([]*schema, len(EventTypes))
	for i, t := range EventTypes {
		out[i] = eventSchemas[t]
	}
	return out
}()

// unknownPassThrough reports whether an event type's extra material is
// the protocol's own extension point, never a finding.
func unknownPassThrough(t EventType) bool { return t == Custom || t == Raw }

// reportRemovals reports what the client strips from e (Strict).
func (v *Verifier) reportRemovals(e *Event, sp span, s *schema) {
	if unknownPassThrough(e.typ) {
		return
	}
	for _, r := range removals(nil, e.raw, sp, s, "", "", eventFamily) {
		v.report(e, RuleUnknownField, removalText(e.typ, e.raw, r), r.pointer)
	}
}

// removalText says what the client strips and why, with a did-you-mean.
func removalText(t EventType, raw []byte, r removal) string {
	var b strings.Builder
	if r.key != "" {
		b.WriteString("the client strips unknown field " + r.pointer)
		if hint := fieldHint(r); hint != "" {
			b.WriteString(" (" + hint + ")")
		}
		b.WriteString(": the schema of " + string(t) + " has no such field, and the frontend never sees it")
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

func fieldNames(s *schema) []string {
	out := make([]string, len(s.fields))
	for i, f := range s.fields {
		out[i] = f.name
	}
	return out
}

// optionName names an option of a tagged union by its tag: an event type,
// or `the message with role "assistant"`.
func optionName(o *schema) string {
	if f := o.fieldOf([]byte("type")); f != nil && f.s.kind == sLiteral && EventType(f.s.values[0]).Known() {
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
func memberTag(raw []byte, sp span, s *schema) (tag, val string, known []string) {
	for depth := 0; depth < 8 && sp.Kind == kindObject; depth++ {
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
				if tv.Kind != kindAbsent {
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
				if fv := fieldSpan(raw, sp, f.name); fv.Kind != kindAbsent && drops(raw, fv, f.s) {
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
		return unquote([]byte(s))
	}
	return s
}

// reportUnknownEvent reports an event type the client drops (Strict).
func (v *Verifier) reportUnknownEvent(e *Event) {
	known := make([]string, 0, len(EventTypes)+len(LegacyEventTypes))
	for _, t := range EventTypes {
		known = append(known, string(t))
	}
	for _, t := range LegacyEventTypes {
		known = append(known, string(t))
	}
	msg := "the client drops events of type " + strconv.Quote(string(e.typ)) + ", which the protocol does not describe, and the frontend never sees it"
	if n := iwords.Nearest(string(e.typ), known); n != "" {
		msg = "the client drops events of type " + strconv.Quote(string(e.typ)) + " (did you mean " + n + "?), which the protocol does not describe, and the frontend never sees it"
	}
	v.report(e, RuleUnknownEvent, msg, "/type")
}
