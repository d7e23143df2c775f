package agui

// Stripping removes what an event's schema does not describe, as the
// reference client's enforcement stage does before validating: unknown
// fields of described objects (JSON Patch operations excepted: RFC 6902
// keeps their extra members), array elements and optional fields that are
// tagged-union members with an unknown tag, and an object whose required
// field is such a member. Arbitrary JSON (state, metadata, values) passes
// whole.

// needsStrip reports whether stripping changes the value at sp of schema s.
func needsStrip(raw []byte, sp span, s *schema) bool {
	switch s.kind {
	case sObject:
		if sp.Kind != kindObject {
			return false
		}
		found := false
		_ = eachMember(raw[sp.Start:sp.End], func(key []byte, escaped bool, v span) bool {
			k := key[1 : len(key)-1]
			if escaped {
				k = []byte(unquote(key))
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
			if drops(raw, v, f.s) || needsStrip(raw, v, f.s) {
				found = true
			}
			return !found
		})
		return found
	case sArray, sRecord:
		if sp.Kind != kindArray && sp.Kind != kindObject || (s.kind == sArray) != (sp.Kind == kindArray) {
			return false
		}
		found := false
		each := func(v span) {
			if !found && (drops(raw, v, s.elem) || needsStrip(raw, v, s.elem)) {
				found = true
			}
		}
		if s.kind == sArray {
			eachElement(raw, sp, func(_ int, v span) { each(v) })
		} else {
			_ = eachMember(raw[sp.Start:sp.End], func(_ []byte, _ bool, v span) bool {
				v.Start += sp.Start
				v.End += sp.Start
				each(v)
				return !found
			})
		}
		return found
	case sTagged:
		if sp.Kind != kindObject {
			return false
		}
		if o := s.option(spanBytes(raw, fieldSpan(raw, sp, s.tag))); o != nil {
			return needsStrip(raw, sp, o)
		}
	case sUnion:
		if o := unionTarget(s, sp); o != nil {
			return needsStrip(raw, sp, o)
		}
	}
	return false
}

// unionTarget is the option of an untagged union that stripping descends
// into: the array option for an array, the object option for an object
// (none when several options are objects).
func unionTarget(s *schema, sp span) *schema {
	objects := 0
	for _, o := range s.options {
		if o.kind == sObject {
			objects++
		}
	}
	if objects > 1 && sp.Kind == kindObject {
		return nil
	}
	for _, o := range s.options {
		if (o.kind == sArray && sp.Kind == kindArray) || (o.kind == sObject && sp.Kind == kindObject) {
			return o
		}
	}
	return nil
}

// appendStripped appends the value at sp of schema s, stripped. The caller
// has checked that the value itself is not dropped.
func appendStripped(dst, raw []byte, sp span, s *schema) []byte {
	switch s.kind {
	case sObject:
		if sp.Kind != kindObject {
			break
		}
		var o objBuilder
		for _, m := range objectMembers(raw[sp.Start:sp.End]) {
			f := s.fieldOf([]byte(m.Key))
			if f == nil {
				if s.open {
					o.raw(m.Key, m.Val)
				}
				continue
			}
			v := subSpan(raw, m.Val)
			if drops(raw, v, f.s) {
				continue // the field is optional: a required one would have dropped this object
			}
			o.raw(m.Key, appendStripped(nil, raw, v, f.s))
		}
		return append(dst, o.bytes()...)
	case sArray:
		if sp.Kind != kindArray {
			break
		}
		dst = append(dst, '[')
		n := 0
		eachElement(raw, sp, func(_ int, v span) {
			if drops(raw, v, s.elem) {
				return
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = appendStripped(dst, raw, v, s.elem)
			n++
		})
		return append(dst, ']')
	case sRecord:
		if sp.Kind != kindObject {
			break
		}
		var o objBuilder
		for _, m := range objectMembers(raw[sp.Start:sp.End]) {
			v := subSpan(raw, m.Val)
			if drops(raw, v, s.elem) {
				continue
			}
			o.raw(m.Key, appendStripped(nil, raw, v, s.elem))
		}
		return append(dst, o.bytes()...)
	case sTagged:
		if sp.Kind != kindObject {
			break
		}
		if o := s.option(spanBytes(raw, fieldSpan(raw, sp, s.tag))); o != nil {
			return appendStripped(dst, raw, sp, o)
		}
	case sUnion:
		if o := unionTarget(s, sp); o != nil {
			return appendStripped(dst, raw, sp, o)
		}
	}
	return append(dst, raw[sp.Start:sp.End]...)
}

// subSpan returns the span of v, a subslice of raw holding one JSON value.
func subSpan(raw, v []byte) span {
	start := cap(raw) - cap(v)
	sp, _, err := scanValue(raw[:start+len(v)], start)
	if err != nil {
		return span{}
	}
	return sp
}
