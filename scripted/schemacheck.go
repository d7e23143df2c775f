package scripted

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// meets reports why v does not meet s, or nil: the generator's own check
// of what it made, and of each simpler value shrinking tries.
func (s *schema) meets(v value) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("at %s: %s", or(s.path, "the root"), fmt.Sprintf(format, args...))
	}
	switch {
	case s.never:
		return fail("no value is allowed")
	case s.any:
		return nil
	case s.konst != nil:
		want, _ := parseValue(s.konst)
		if !sameValue(want, v) {
			return fail("want the const %s", s.konst)
		}
		return nil
	case s.enum != nil:
		for _, e := range s.enum {
			if want, _ := parseValue(e); sameValue(want, v) {
				return nil
			}
		}
		return fail("not one of the enum values")
	case len(s.anyOf) > 0:
		for _, b := range s.anyOf {
			bb := *b
			if len(bb.types) == 0 {
				bb.types = s.types
			}
			bb.props = append(slices.Clone(s.props), bb.props...)
			bb.required = append(slices.Clone(s.required), bb.required...)
			if bb.meets(v) == nil {
				return nil
			}
		}
		return fail("meets none of the anyOf/oneOf branches")
	}
	t := map[vkind]string{vNull: "null", vBool: "boolean", vNumber: "number", vString: "string", vArray: "array", vObject: "object"}[v.kind]
	if v.kind == vNumber && isIntegral([]byte(v.num)) {
		t = "integer"
	}
	if !slices.Contains(s.types, t) && !(t == "integer" && slices.Contains(s.types, "number")) {
		return fail("a %s, want %v", t, s.types)
	}
	switch v.kind {
	case vString:
		n := utf8.RuneCountInString(v.str)
		if s.minLen != nil && n < *s.minLen || s.maxLen != nil && n > *s.maxLen {
			return fail("a string of %d characters, out of bounds", n)
		}
	case vNumber:
		x, _ := strconv.ParseFloat(v.num, 64)
		if slices.Equal(s.types, []string{"integer"}) && x != math.Trunc(x) {
			return fail("%s is not an integer", v.num)
		}
		if s.hasMin && (x < s.min || s.minX && x == s.min) || s.hasMax && (x > s.max || s.maxX && x == s.max) {
			return fail("%s is out of bounds", v.num)
		}
		if s.mult > 0 {
			if q := x / s.mult; math.Abs(q-math.Round(q)) > 1e-9 {
				return fail("%s is not a multiple of %v", v.num, s.mult)
			}
		}
	case vArray:
		if s.minItems != nil && len(v.arr) < *s.minItems || s.maxItems != nil && len(v.arr) > *s.maxItems {
			return fail("%d items, out of bounds", len(v.arr))
		}
		seen := map[string]bool{}
		for i, e := range v.arr {
			if s.items != nil {
				if err := s.items.meets(e); err != nil {
					return fmt.Errorf("item %d: %w", i, err)
				}
			}
			if k := string(e.append(nil)); s.unique && seen[k] {
				return fail("item %d repeats an item before it", i)
			} else {
				seen[k] = true
			}
		}
	case vObject:
		for _, req := range s.required {
			if !slices.ContainsFunc(v.obj, func(m member) bool { return m.name == req }) {
				return fail("the required property %q is missing", req)
			}
		}
		if s.minProps != nil && len(v.obj) < *s.minProps {
			return fail("%d properties, fewer than %d", len(v.obj), *s.minProps)
		}
		for _, m := range v.obj {
			k := slices.IndexFunc(s.props, func(p prop) bool { return p.name == m.name })
			if k < 0 {
				if s.closed {
					return fail("the property %q is not allowed", m.name)
				}
				continue
			}
			if err := s.props[k].s.meets(m.v); err != nil {
				return err
			}
		}
	}
	return nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// sameValue reports whether two values are the same JSON value.
func sameValue(a, b value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case vNumber:
		x, _ := strconv.ParseFloat(a.num, 64)
		y, _ := strconv.ParseFloat(b.num, 64)
		return x == y
	case vArray:
		return slices.EqualFunc(a.arr, b.arr, sameValue)
	case vObject:
		if len(a.obj) != len(b.obj) {
			return false
		}
		for _, m := range a.obj {
			k := slices.IndexFunc(b.obj, func(n member) bool { return n.name == m.name })
			if k < 0 || !sameValue(m.v, b.obj[k].v) {
				return false
			}
		}
		return true
	}
	return a.str == b.str && a.b == b.b
}

// simpler returns the values one step simpler than v that still meet s,
// the most promising first: an optional property left out, an item
// fewer, a string or number nearer the simplest, each at any depth.
func (s *schema) simpler(v value) []value {
	var out []value
	keep := func(c value) {
		if s.meets(c) == nil {
			out = append(out, c)
		}
	}
	switch v.kind {
	case vObject:
		for i := range v.obj {
			c := v
			c.obj = slices.Delete(slices.Clone(v.obj), i, i+1)
			keep(c)
		}
		for i, m := range v.obj {
			ps := &schema{any: true}
			if k := slices.IndexFunc(s.props, func(p prop) bool { return p.name == m.name }); k >= 0 {
				ps = s.props[k].s
			}
			for _, e := range ps.simpler(m.v) {
				c := v
				c.obj = slices.Clone(v.obj)
				c.obj[i].v = e
				keep(c)
			}
		}
	case vArray:
		for i := range v.arr {
			c := v
			c.arr = slices.Delete(slices.Clone(v.arr), i, i+1)
			keep(c)
		}
		items := s.items
		if items == nil {
			items = &schema{any: true}
		}
		for i, e := range v.arr {
			for _, se := range items.simpler(e) {
				c := v
				c.arr = slices.Clone(v.arr)
				c.arr[i] = se
				keep(c)
			}
		}
	case vString:
		r := []rune(v.str)
		if len(r) > 0 {
			keep(value{kind: vString, str: ""})
			keep(value{kind: vString, str: string(r[:len(r)/2])})
			keep(value{kind: vString, str: string(r[len(r)/2:])})
			keep(value{kind: vString, str: string(r[:len(r)-1])})
			keep(value{kind: vString, str: string(r[1:])})
		}
	case vNumber:
		x, _ := strconv.ParseFloat(v.num, 64)
		if x != 0 {
			keep(value{kind: vNumber, num: "0"})
			if h := math.Trunc(x / 2); h != x {
				keep(value{kind: vNumber, num: strconv.FormatFloat(h, 'f', -1, 64)})
			}
		}
	case vBool:
		if v.b {
			keep(value{kind: vBool})
		}
	}
	return out
}
