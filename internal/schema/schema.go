package schema

//go:generate sh -c "node ../oracle/genschema.mjs | gofmt > schema_gen.go"

import (
	"math"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/internal/jsonpointer"
	"github.com/aguitest/aguitest/internal/jsonx"
	"github.com/aguitest/aguitest/internal/jsvalue"
)

// The schema stage checks each event against its schema in @ag-ui/core
// 1.0.0, as the reference client's enforcement stage does before chunk
// expansion: material the schema does not describe is stripped (unknown
// fields, and members of tagged unions with an unknown tag: such an array
// element is dropped, such an optional field omitted), and what remains
// must validate. The tables in schema_gen.go are generated from the npm
// package's own validators; the messages are the validator's.

// span locates a value in an event's bytes.
type span = jsonx.Span

type schemaKind uint8

const (
	sAny        schemaKind = iota // any value, or none
	sAnyNotNull                   // any value but null, or none
	sAnyPresent                   // any value, null included, but not none
	sString
	sPattern // a string that is a JSON Pointer
	sInt     // a safe integer within [min, max]
	sNumber
	sBool
	sLiteral   // the string values[0]
	sEnum      // one of the strings in values
	sRecordAny // an object (not null, not an array) of anything
	sObject    // an object with fields; others are stripped unless open
	sArray     // an array of elem, at least minLen long
	sRecord    // an object whose values are elem
	sTagged    // one of options, chosen by the string at field tag
	sUnion     // the first of options that fits
)

// Schema is one zod schema of @ag-ui/core 1.0.0 as a table: what a value
// must be, and what stripping removes from it. The generated tables in
// schema_gen.go build them; Event returns an event type's.
type Schema struct {
	kind     schemaKind
	nullable bool // null is accepted as well
	open     bool // sObject: unknown fields are part of the value (JSON Patch operations)
	fields   []field
	elem     *Schema
	minLen   int
	tag      string
	options  []*Schema
	values   []string
	pattern  string
	min, max float64
}

type field struct {
	name     string
	s        *Schema
	optional bool
}

const (
	minSafeInt = -9007199254740991
	maxSafeInt = 9007199254740991
)

// fieldOf returns the field of an object schema named name, or nil.
func (s *Schema) fieldOf(name []byte) *field {
	for i := range s.fields {
		if s.fields[i].name == string(name) {
			return &s.fields[i]
		}
	}
	return nil
}

// option returns the option of a tagged union whose tag is the JSON string
// tag (with quotes), or nil.
func (s *Schema) option(tag []byte) *Schema {
	for _, o := range s.options {
		if f := o.fieldOf([]byte(s.tag)); f != nil && f.s.kind == sLiteral && jsonx.StringIs(tag, f.s.values[0]) {
			return o
		}
	}
	return nil
}

// Issue is one problem the schema stage found.
type Issue struct {
	Path string // JSON Pointer of the value, "" for the event itself
	Msg  string // the validator's message
}

// member is a member of a JSON object found in raw bytes.
type member struct {
	key []byte // unescaped
	val span
}

// Checker validates one event. Its buffers are reused from event to event.
type Checker struct {
	raw    []byte
	issues []Issue
	path   []byte
	stack  [][]member // members of the objects being walked, by depth
	depth  int
}

// members collects the members of the object at sp, the last of duplicate
// keys winning in place of the first (as JSON.parse keeps them).
func (c *Checker) members(sp span) []member {
	if c.depth >= len(c.stack) {
		c.stack = append(c.stack, nil)
	}
	ms := c.stack[c.depth][:0]
	_ = jsonx.EachMember(c.raw[sp.Start:sp.End], func(key []byte, escaped bool, v span) bool {
		k := key[1 : len(key)-1]
		if escaped {
			k = []byte(jsonx.Unquote(key))
		}
		v.Start += sp.Start
		v.End += sp.Start
		for i := range ms {
			if string(ms[i].key) == string(k) {
				ms[i].val = v
				return true
			}
		}
		ms = append(ms, member{key: k, val: v})
		return true
	})
	c.stack[c.depth] = ms
	return ms
}

func lookup(ms []member, name string) span {
	for i := range ms {
		if string(ms[i].key) == name {
			return ms[i].val
		}
	}
	return span{}
}

// Check validates the JSON event raw against schema s and returns the
// validator's issues, in its order; none when the event is valid. The
// slice is the checker's and holds until its next Check.
func (c *Checker) Check(raw []byte, s *Schema) []Issue {
	c.checkEvent(raw, s)
	return c.issues
}

// checkEvent validates the event raw against schema s into c.issues.
func (c *Checker) checkEvent(raw []byte, s *Schema) {
	c.raw = raw
	c.issues = c.issues[:0]
	c.path = c.path[:0]
	c.depth = 0
	sp, _, err := jsonx.ScanSpan(raw, 0)
	if err != nil {
		return
	}
	c.value(sp, s)
}

func (c *Checker) fail(msg string) {
	c.issues = append(c.issues, Issue{Path: string(c.path), Msg: msg})
}

func (c *Checker) push(key string) int {
	n := len(c.path)
	c.path = jsonpointer.AppendEscaped(append(c.path, '/'), key)
	return n
}

func (c *Checker) pushIndex(i int) int {
	n := len(c.path)
	c.path = append(c.path, '/')
	c.path = strconv.AppendInt(c.path, int64(i), 10)
	return n
}

// received names a value's kind as the validator does.
func received(raw []byte, sp span) string {
	switch sp.Kind {
	case jsonx.Absent:
		return "undefined"
	case jsonx.Null:
		return "null"
	case jsonx.String:
		return "string"
	case jsonx.Number:
		return "number"
	case jsonx.Bool:
		return "boolean"
	case jsonx.Array:
		return "array"
	}
	return "object"
}

func (c *Checker) invalidType(expected string, sp span) {
	c.fail("Invalid input: expected " + expected + ", received " + received(c.raw, sp))
}

// value validates the value at sp (jsonx.Absent for none) against s. The
// caller has already removed what stripping drops.
func (c *Checker) value(sp span, s *Schema) {
	if sp.Kind == jsonx.Null && s.nullable {
		return
	}
	switch s.kind {
	case sAny:
	case sAnyNotNull:
		if sp.Kind == jsonx.Null {
			c.fail("Invalid input")
		}
	case sAnyPresent:
		if sp.Kind == jsonx.Absent {
			c.fail("Invalid input")
		}
	case sString:
		if sp.Kind != jsonx.String {
			c.invalidType("string", sp)
		}
	case sPattern:
		if sp.Kind != jsonx.String {
			c.invalidType("string", sp)
		} else if !isJSONPointer(c.stringAt(sp)) {
			c.fail("Invalid string: must match pattern /" + s.pattern + "/")
		}
	case sInt, sNumber:
		c.number(sp, s)
	case sBool:
		if sp.Kind != jsonx.Bool {
			c.invalidType("boolean", sp)
		}
	case sLiteral:
		if sp.Kind != jsonx.String || !jsonx.StringIs(c.raw[sp.Start:sp.End], s.values[0]) {
			c.fail("Invalid input: expected " + strconv.Quote(s.values[0]))
		}
	case sEnum:
		ok := false
		if sp.Kind == jsonx.String {
			for _, v := range s.values {
				if jsonx.StringIs(c.raw[sp.Start:sp.End], v) {
					ok = true
					break
				}
			}
		}
		if !ok {
			q := make([]string, len(s.values))
			for i, v := range s.values {
				q[i] = strconv.Quote(v)
			}
			c.fail("Invalid option: expected one of " + strings.Join(q, "|"))
		}
	case sRecordAny:
		if sp.Kind != jsonx.Object {
			c.fail("Invalid input")
		}
	case sObject:
		c.object(sp, s)
	case sArray:
		c.array(sp, s)
	case sRecord:
		c.record(sp, s)
	case sTagged:
		if sp.Kind != jsonx.Object {
			c.invalidType("object", sp)
			return
		}
		ms := c.members(sp)
		o := s.option(spanBytes(c.raw, lookup(ms, s.tag)))
		if o == nil {
			n := c.push(s.tag)
			c.fail("Invalid input")
			c.path = c.path[:n]
			return
		}
		c.value(sp, o)
	case sUnion:
		c.union(sp, s)
	}
}

func spanBytes(raw []byte, sp span) []byte {
	if sp.Kind == jsonx.Absent {
		return nil
	}
	return raw[sp.Start:sp.End]
}

func (c *Checker) stringAt(sp span) string {
	if !sp.Escaped {
		return string(c.raw[sp.Start+1 : sp.End-1])
	}
	return jsonx.Unquote(c.raw[sp.Start:sp.End])
}

// isJSONPointer reports whether s is a JSON Pointer (RFC 6901): "" or
// slash-prefixed tokens in which "~" is followed by "0" or "1".
func isJSONPointer(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 >= len(s) || s[i+1] != '0' && s[i+1] != '1') {
			return false
		}
	}
	return true
}

func (c *Checker) number(sp span, s *Schema) {
	if sp.Kind != jsonx.Number {
		c.invalidType("number", sp)
		return
	}
	f, _ := strconv.ParseFloat(string(c.raw[sp.Start:sp.End]), 64)
	if math.IsInf(f, 0) {
		c.fail("Invalid input: expected number, received number")
		return
	}
	if s.kind == sNumber {
		return
	}
	if f != math.Trunc(f) {
		c.fail("Invalid input: expected int, received number")
		return
	}
	if f > maxSafeInt {
		c.fail("Too big: expected int to be <9007199254740991")
	} else if f < minSafeInt {
		c.fail("Too small: expected int to be >-9007199254740991")
	}
	if f > s.max {
		c.fail("Too big: expected number to be <=" + jsvalue.FormatNumber(s.max))
	} else if f < s.min {
		c.fail("Too small: expected number to be >=" + jsvalue.FormatNumber(s.min))
	}
}

func (c *Checker) object(sp span, s *Schema) {
	if sp.Kind != jsonx.Object {
		c.invalidType("object", sp)
		return
	}
	ms := c.members(sp)
	c.depth++
	for i := range s.fields {
		f := &s.fields[i]
		v := lookup(ms, f.name)
		if v.Kind != jsonx.Absent && drops(c.raw, v, f.s) {
			v = span{} // stripped: the field is optional, or this object would be gone
		}
		if v.Kind == jsonx.Absent && f.optional {
			continue
		}
		n := c.push(f.name)
		c.value(v, f.s)
		c.path = c.path[:n]
	}
	c.depth--
}

func (c *Checker) array(sp span, s *Schema) {
	if sp.Kind != jsonx.Array {
		c.invalidType("array", sp)
		return
	}
	kept := 0
	jsonx.EachElement(c.raw, sp, func(_ int, v span) {
		if drops(c.raw, v, s.elem) {
			return
		}
		n := c.pushIndex(kept)
		c.value(v, s.elem)
		c.path = c.path[:n]
		kept++
	})
	if kept < s.minLen {
		c.fail("Too small: expected array to have >=" + strconv.Itoa(s.minLen) + " items")
	}
}

func (c *Checker) record(sp span, s *Schema) {
	if sp.Kind != jsonx.Object {
		c.invalidType("record", sp)
		return
	}
	ms := c.members(sp)
	c.depth++
	for _, m := range ms {
		if drops(c.raw, m.val, s.elem) {
			continue
		}
		n := c.push(string(m.key))
		c.value(m.val, s.elem)
		c.path = c.path[:n]
	}
	c.depth--
}

// union accepts the value when one option does; otherwise it reports one
// issue at the union's place.
func (c *Checker) union(sp span, s *Schema) {
	mark := len(c.issues)
	for _, o := range s.options {
		c.value(sp, o)
		if len(c.issues) == mark {
			return
		}
		c.issues = c.issues[:mark]
	}
	c.fail("Invalid input")
}

// drops reports whether stripping removes the value at sp whole: a tagged
// union member with an unknown tag, or an object whose required field is
// such a member. The validator never sees what is dropped.
func drops(raw []byte, sp span, s *Schema) bool {
	if !s.mayDrop() {
		return false
	}
	switch s.kind {
	case sTagged:
		if sp.Kind != jsonx.Object {
			return false
		}
		o := s.option(spanBytes(raw, fieldSpan(raw, sp, s.tag)))
		if o == nil {
			return true
		}
		return drops(raw, sp, o)
	case sObject:
		if sp.Kind != jsonx.Object {
			return false
		}
		dropped := false
		for i := range s.fields {
			f := &s.fields[i]
			if f.optional || !f.s.mayDrop() {
				continue
			}
			if v := fieldSpan(raw, sp, f.name); v.Kind != jsonx.Absent && drops(raw, v, f.s) {
				dropped = true
				break
			}
		}
		return dropped
	case sUnion:
		if o := unionTarget(s, sp); o != nil {
			return drops(raw, sp, o)
		}
	}
	return false
}

// fieldSpan finds the last member named name of the object at sp.
func fieldSpan(raw []byte, sp span, name string) span {
	var out span
	_ = jsonx.EachMember(raw[sp.Start:sp.End], func(key []byte, escaped bool, v span) bool {
		k := key[1 : len(key)-1]
		if escaped {
			k = []byte(jsonx.Unquote(key))
		}
		if string(k) == name {
			v.Start += sp.Start
			v.End += sp.Start
			out = v
		}
		return true
	})
	return out
}

// mayDrop reports whether a value of s can be dropped whole by stripping,
// which only a tagged union can cause. Arrays and records absorb the drop
// of an element, so it does not pass through them.
func (s *Schema) mayDrop() bool {
	switch s.kind {
	case sTagged:
		return true
	case sObject:
		for i := range s.fields {
			if !s.fields[i].optional && s.fields[i].s.mayDrop() {
				return true
			}
		}
	case sUnion:
		for _, o := range s.options {
			if o.mayDrop() {
				return true
			}
		}
	}
	return false
}
