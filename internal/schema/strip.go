package schema

import "github.com/aguitest/aguitest/internal/jsonx"

// Stripping removes what an event's schema does not describe, as the
// reference client's enforcement stage does before validating: unknown
// fields of described objects (JSON Patch operations excepted: RFC 6902
// keeps their extra members), array elements and optional fields that are
// tagged-union members with an unknown tag, and an object whose required
// field is such a member. Arbitrary JSON (state, metadata, values) passes
// whole.

// NeedsStrip reports whether stripping changes the value at sp of schema s.
func NeedsStrip(raw []byte, sp span, s *Schema) bool {
	switch s.kind {
	case sObject:
		if sp.Kind != jsonx.Object {
			return false
		}
		found := false
		_ = jsonx.EachMember(raw[sp.Start:sp.End], func(key []byte, escaped bool, v span) bool {
			k := key[1 : len(key)-1]
			if escaped {
				k = []byte(jsonx.Unquote(key))
			}
			f := s.fieldOf(k)
			if f == nil {
				if !s.open {
					found = true
				}
				return !found
			}
			v.Start += sp.Start
			v.End += sp.Start
			if drops(raw, v, f.s) || NeedsStrip(raw, v, f.s) {
				found = true
			}
			return !found
		})
		return found
	case sArray, sRecord:
		if sp.Kind != jsonx.Array && sp.Kind != jsonx.Object || (s.kind == sArray) != (sp.Kind == jsonx.Array) {
			return false
		}
		found := false
		each := func(v span) {
			if !found && (drops(raw, v, s.elem) || NeedsStrip(raw, v, s.elem)) {
				found = true
			}
		}
		if s.kind == sArray {
			jsonx.EachElement(raw, sp, func(_ int, v span) { each(v) })
		} else {
			_ = jsonx.EachMember(raw[sp.Start:sp.End], func(_ []byte, _ bool, v span) bool {
				v.Start += sp.Start
				v.End += sp.Start
				each(v)
				return !found
			})
		}
		return found
	case sTagged:
		if sp.Kind != jsonx.Object {
			return false
		}
		if o := s.option(spanBytes(raw, fieldSpan(raw, sp, s.tag))); o != nil {
			return NeedsStrip(raw, sp, o)
		}
	case sUnion:
		if o := unionTarget(s, sp); o != nil {
			return NeedsStrip(raw, sp, o)
		}
	}
	return false
}

// unionTarget is the option of an untagged union that stripping descends
// into: the array option for an array, the object option for an object
// (none when several options are objects).
func unionTarget(s *Schema, sp span) *Schema {
	objects := 0
	for _, o := range s.options {
		if o.kind == sObject {
			objects++
		}
	}
	if objects > 1 && sp.Kind == jsonx.Object {
		return nil
	}
	for _, o := range s.options {
		if (o.kind == sArray && sp.Kind == jsonx.Array) || (o.kind == sObject && sp.Kind == jsonx.Object) {
			return o
		}
	}
	return nil
}

// AppendStripped appends the value at sp of schema s, stripped. The caller
// has checked that the value itself is not dropped.
func AppendStripped(dst, raw []byte, sp span, s *Schema) []byte {
	switch s.kind {
	case sObject:
		if sp.Kind != jsonx.Object {
			break
		}
		// Members has merged repeated keys as JSON.parse does: each key
		// is written once.
		dst = append(dst, '{')
		n := 0
		for _, m := range jsonx.Members(raw[sp.Start:sp.End]) {
			f := s.fieldOf([]byte(m.Key))
			if f == nil {
				if s.open {
					dst = appendMember(dst, &n, m.Key)
					dst = append(dst, m.Val...)
				}
				continue
			}
			v := subSpan(raw, m.Val)
			if drops(raw, v, f.s) {
				continue // the field is optional: a required one would have dropped this object
			}
			dst = appendMember(dst, &n, m.Key)
			dst = AppendStripped(dst, raw, v, f.s)
		}
		return append(dst, '}')
	case sArray:
		if sp.Kind != jsonx.Array {
			break
		}
		dst = append(dst, '[')
		n := 0
		jsonx.EachElement(raw, sp, func(_ int, v span) {
			if drops(raw, v, s.elem) {
				return
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = AppendStripped(dst, raw, v, s.elem)
			n++
		})
		return append(dst, ']')
	case sRecord:
		if sp.Kind != jsonx.Object {
			break
		}
		dst = append(dst, '{')
		n := 0
		for _, m := range jsonx.Members(raw[sp.Start:sp.End]) {
			v := subSpan(raw, m.Val)
			if drops(raw, v, s.elem) {
				continue
			}
			dst = appendMember(dst, &n, m.Key)
			dst = AppendStripped(dst, raw, v, s.elem)
		}
		return append(dst, '}')
	case sTagged:
		if sp.Kind != jsonx.Object {
			break
		}
		if o := s.option(spanBytes(raw, fieldSpan(raw, sp, s.tag))); o != nil {
			return AppendStripped(dst, raw, sp, o)
		}
	case sUnion:
		if o := unionTarget(s, sp); o != nil {
			return AppendStripped(dst, raw, sp, o)
		}
	}
	return append(dst, raw[sp.Start:sp.End]...)
}

// appendMember appends the key of an object's next member and its colon,
// after a comma when *n members came before.
func appendMember(dst []byte, n *int, key string) []byte {
	if *n > 0 {
		dst = append(dst, ',')
	}
	*n++
	dst = jsonx.AppendQuote(dst, key)
	return append(dst, ':')
}

// subSpan returns the span of v, a subslice of raw holding one JSON value.
func subSpan(raw, v []byte) span {
	start := cap(raw) - cap(v)
	sp, _, err := jsonx.ScanSpan(raw[:start+len(v)], start)
	if err != nil {
		return span{}
	}
	return sp
}
