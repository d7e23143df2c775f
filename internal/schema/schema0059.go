package schema

//go:generate sh -c "cd ../oracle/v0.0.59 && node genschema.mjs | gofmt > ../../schema/schema0059_gen.go"

import (
	"math"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/internal/jsonpointer"
	"github.com/aguitest/aguitest/internal/jsvalue"
)

// The schema stage of the 0.0.59 client. @ag-ui/client 0.0.59 parses every
// frame with EventSchemas of @ag-ui/core 0.0.59 in its transport, before
// any middleware: a zod 3 discriminated union on "type", so an unknown
// event type is a schema error there (1.0.0 drops it), unknown top-level
// fields are kept (passthrough) and unknown nested fields stripped without
// a word. The tables in schema0059_gen.go are generated from the npm
// package's own validators; the messages are zod 3's.

type z3Kind uint8

const (
	z3Any z3Kind = iota
	z3String
	z3Number // isInt: .int(); nonneg: .nonnegative()
	z3Bool
	z3Literal
	z3Enum // native: a TypeScript enum (z.nativeEnum)
	z3Object
	z3Array
	z3Record
	z3Union
	z3Tagged
	z3Optional
	z3Nullable
	z3BinaryRefine // InputContent: a binary part needs an id, a url or data
)

type z3Unknown uint8

const (
	z3Strip z3Unknown = iota
	z3Passthrough
	z3Strict
)

type z3 struct {
	kind    z3Kind
	isInt   bool
	nonneg  bool
	native  bool
	unknown z3Unknown
	values  []string
	fields  []z3Field
	elem    *z3
	minLen  int
	options []*z3
	tag     string
	inner   *z3
	dflt    string // z3Optional: the JSON of the default, "" for none
}

type z3Field struct {
	name string
	s    *z3
}

// z3Status is zod 3's parse status: valid, dirty (issues, value kept) or
// aborted (INVALID).
type z3Status uint8

const (
	z3Valid z3Status = iota
	z3Dirty
	z3Aborted
)

type z3Checker struct {
	issues []Issue
	path   []string
}

// z3Check validates the JSON event raw against EventSchemas of @ag-ui/core
// 0.0.59 and returns zod's issues, in its order.
func z3Check(raw []byte) []Issue {
	v, err := jsvalue.Parse(raw)
	if err != nil {
		return nil
	}
	var c z3Checker
	c.parse(v, z3EventSchemas)
	return c.issues
}

func (c *z3Checker) fail(msg string) {
	c.issues = append(c.issues, Issue{Path: c.pointer(), Msg: msg})
}

func (c *z3Checker) failAt(key, msg string) {
	c.path = append(c.path, key)
	c.fail(msg)
	c.path = c.path[:len(c.path)-1]
}

func (c *z3Checker) pointer() string {
	var b []byte
	for _, p := range c.path {
		b = jsonpointer.AppendEscaped(append(b, '/'), p)
	}
	return string(b)
}

// z3TypeOf is zod 3's getParsedType for a JSON value.
func z3TypeOf(v any) string {
	switch x := v.(type) {
	case jsvalue.Undefined:
		return "undefined"
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if math.IsNaN(x) {
			return "nan"
		}
		return "number"
	case *jsvalue.Array:
		return "array"
	}
	return "object"
}

func (c *z3Checker) invalidType(expected string, v any) z3Status {
	got := z3TypeOf(v)
	if got == "undefined" {
		c.fail("Required")
	} else {
		c.fail("Expected " + expected + ", received " + got)
	}
	return z3Aborted
}

// joinValues is zod 3's util.joinValues: strings quoted with single quotes.
func joinValues(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "'" + v + "'"
	}
	return strings.Join(q, " | ")
}

func (c *z3Checker) parse(v any, s *z3) z3Status {
	switch s.kind {
	case z3Any:
		return z3Valid
	case z3Optional:
		if _, ok := v.(jsvalue.Undefined); ok {
			return z3Valid
		}
		return c.parse(v, s.inner)
	case z3Nullable:
		if v == nil {
			return z3Valid
		}
		return c.parse(v, s.inner)
	case z3String:
		if _, ok := v.(string); !ok {
			return c.invalidType("string", v)
		}
		return z3Valid
	case z3Bool:
		if _, ok := v.(bool); !ok {
			return c.invalidType("boolean", v)
		}
		return z3Valid
	case z3Number:
		f, ok := v.(float64)
		if !ok {
			return c.invalidType("number", v)
		}
		st := z3Valid
		if s.isInt && (math.IsInf(f, 0) || f != math.Trunc(f)) {
			c.fail("Expected integer, received float")
			st = z3Dirty
		}
		if s.nonneg && f < 0 {
			c.fail("Number must be greater than or equal to 0")
			st = z3Dirty
		}
		return st
	case z3Literal:
		if x, ok := v.(string); !ok || x != s.values[0] {
			c.fail("Invalid literal value, expected " + strconv.Quote(s.values[0]))
			return z3Aborted
		}
		return z3Valid
	case z3Enum:
		x, ok := v.(string)
		if !ok {
			if s.native {
				if _, num := v.(float64); !num {
					return c.invalidType(joinValues(s.values), v)
				}
			} else {
				return c.invalidType(joinValues(s.values), v)
			}
		}
		for _, e := range s.values {
			if e == x && ok {
				return z3Valid
			}
		}
		c.fail("Invalid enum value. Expected " + joinValues(s.values) + ", received '" + jsvalue.ToString(v) + "'")
		return z3Aborted
	case z3Object:
		o, ok := v.(*jsvalue.Object)
		if !ok {
			return c.invalidType("object", v)
		}
		st := z3Valid
		for _, f := range s.fields {
			c.path = append(c.path, f.name)
			fs := c.parse(o.Get(f.name), f.s)
			c.path = c.path[:len(c.path)-1]
			st = max(st, fs)
		}
		if s.unknown == z3Strict {
			var extra []string
			for _, k := range o.Keys() {
				known := false
				for _, f := range s.fields {
					if f.name == k {
						known = true
						break
					}
				}
				if !known {
					extra = append(extra, "'"+k+"'")
				}
			}
			if len(extra) > 0 {
				c.fail("Unrecognized key(s) in object: " + strings.Join(extra, ", "))
				st = max(st, z3Dirty)
			}
		}
		return st
	case z3Array:
		a, ok := v.(*jsvalue.Array)
		if !ok {
			return c.invalidType("array", v)
		}
		st := z3Valid
		if len(a.Elems) < s.minLen {
			c.fail("Array must contain at least " + strconv.Itoa(s.minLen) + " element(s)")
			st = z3Dirty
		}
		for i, el := range a.Elems {
			c.path = append(c.path, strconv.Itoa(i))
			st = max(st, c.parse(el, s.elem))
			c.path = c.path[:len(c.path)-1]
		}
		return st
	case z3Record:
		o, ok := v.(*jsvalue.Object)
		if !ok {
			return c.invalidType("object", v)
		}
		st := z3Valid
		for _, k := range o.Keys() {
			c.path = append(c.path, k)
			st = max(st, c.parse(o.Get(k), s.elem))
			c.path = c.path[:len(c.path)-1]
		}
		return st
	case z3Union:
		var dirty []Issue
		dirtySet := false
		for _, o := range s.options {
			sub := z3Checker{path: append([]string(nil), c.path...)}
			st := sub.parse(v, o)
			if st == z3Valid {
				return z3Valid
			}
			if st == z3Dirty && !dirtySet {
				dirty, dirtySet = sub.issues, true
			}
		}
		if dirtySet {
			c.issues = append(c.issues, dirty...)
			return z3Dirty
		}
		c.fail("Invalid input")
		return z3Aborted
	case z3Tagged:
		o, ok := v.(*jsvalue.Object)
		if !ok {
			return c.invalidType("object", v)
		}
		tag, _ := o.Get(s.tag).(string)
		_, isStr := o.Get(s.tag).(string)
		for _, opt := range s.options {
			if isStr && opt.literalOf(s.tag) == tag {
				return c.parse(v, opt)
			}
		}
		vals := make([]string, len(s.options))
		for i, opt := range s.options {
			vals[i] = opt.literalOf(s.tag)
		}
		c.failAt(s.tag, "Invalid discriminator value. Expected "+joinValues(vals))
		return z3Aborted
	case z3BinaryRefine:
		st := c.parse(v, s.inner)
		if st == z3Aborted {
			return st
		}
		o, _ := v.(*jsvalue.Object)
		if o != nil && o.Get("type") == "binary" && !jsvalue.Truthy(o.Get("id")) && !jsvalue.Truthy(o.Get("url")) && !jsvalue.Truthy(o.Get("data")) {
			c.failAt("id", "BinaryInputContent requires at least one of id, url, or data.")
			return z3Dirty
		}
		return st
	}
	return z3Valid
}

// z3Output returns what zod 3 makes of the valid value v under s: nested
// unknown fields stripped, defaults filled in, a null read as absent where
// a transform says so. Top-level passthrough keeps the event's own extra
// fields.
func z3Output(v any, s *z3) any {
	switch s.kind {
	case z3Optional:
		if _, ok := v.(jsvalue.Undefined); ok {
			if s.dflt != "" {
				d, _ := jsvalue.Parse([]byte(s.dflt))
				return d
			}
			return v
		}
		return z3Output(v, s.inner)
	case z3Nullable:
		if v == nil {
			return nil
		}
		return z3Output(v, s.inner)
	case z3Object:
		o, ok := v.(*jsvalue.Object)
		if !ok {
			return v
		}
		out := jsvalue.NewObject()
		for _, f := range s.fields {
			fv := z3Output(o.Get(f.name), f.s)
			if _, undef := fv.(jsvalue.Undefined); !undef && f.name != "__proto__" {
				out.Set(f.name, fv)
			}
		}
		if s.unknown == z3Passthrough {
			for _, k := range o.Keys() {
				if _, has := out.Own(k); !has && s.field(k) == nil {
					out.Set(k, o.Get(k))
				}
			}
		}
		return out
	case z3Array:
		a, ok := v.(*jsvalue.Array)
		if !ok {
			return v
		}
		out := &jsvalue.Array{Elems: make([]any, len(a.Elems))}
		for i, el := range a.Elems {
			out.Elems[i] = z3Output(el, s.elem)
		}
		return out
	case z3Record:
		o, ok := v.(*jsvalue.Object)
		if !ok {
			return v
		}
		out := jsvalue.NewObject()
		for _, k := range o.Keys() {
			out.Set(k, z3Output(o.Get(k), s.elem))
		}
		return out
	case z3Union:
		for _, o := range s.options {
			var c z3Checker
			if c.parse(v, o) == z3Valid {
				return z3Output(v, o)
			}
		}
		return v
	case z3Tagged:
		if o, ok := v.(*jsvalue.Object); ok {
			tag, _ := o.Get(s.tag).(string)
			for _, opt := range s.options {
				if opt.literalOf(s.tag) == tag {
					return z3Output(v, opt)
				}
			}
		}
		return v
	case z3BinaryRefine:
		return z3Output(v, s.inner)
	}
	return v
}

// field returns the field of an object schema named name, or nil.
func (s *z3) field(name string) *z3Field {
	for i := range s.fields {
		if s.fields[i].name == name {
			return &s.fields[i]
		}
	}
	return nil
}

// literalOf returns the literal value of an object schema's field name.
func (s *z3) literalOf(name string) string {
	for _, f := range s.fields {
		if f.name == name && f.s.kind == z3Literal {
			return f.s.values[0]
		}
	}
	return ""
}
