package agui

//go:generate sh -c "node ../internal/oracle/genschema.mjs | gofmt > schema_gen.go"

import (
	"math"
	"strconv"
	"strings"
)

// The schema stage checks each event against its schema in @ag-ui/core
// 1.0.0, as the reference client's enforcement stage does before chunk
// expansion: material the schema does not describe is stripped (unknown
// fields, and members of tagged unions with an unknown tag: such an array
// element is dropped, such an optional field omitted), and what remains
// must validate. The tables in schema_gen.go are generated from the npm
// package's own validators; the messages are the validator's.

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

type schema struct {
	kind     schemaKind
	nullable bool // null is accepted as well
	open     bool // sObject: unknown fields are part of the value (JSON Patch operations)
	fields   []field
	elem     *schema
	minLen   int
	tag      string
	options  []*schema
	values   []string
	pattern  string
	min, max float64
}

type field struct {
	name     string
	s        *schema
	optional bool
}

const (
	minSafeInt = -9007199254740991
	maxSafeInt = 9007199254740991
)

// fieldOf returns the field of an object schema named name, or nil.
func (s *schema) fieldOf(name []byte) *field {
	for i := range s.fields {
		if s.fields[i].name == string(name) {
			return &s.fields[i]
		}
	}
	return nil
}

// option returns the option of a tagged union whose tag is the JSON string
// tag (with quotes), or nil.
func (s *schema) option(tag []byte) *schema {
	for _, o := range s.options {
		if f := o.fieldOf([]byte(s.tag)); f != nil && f.s.kind == sLiteral && jsonStringIs(tag, f.s.values[0]) {
			return o
		}
	}
	return nil
}

// jsonStringIs reports whether the JSON string raw (with quotes) holds s.
func jsonStringIs(raw []byte, s string) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return false
	}
	body := raw[1 : len(raw)-1]
	if len(body) == len(s) && string(body) == s {
		return true
	}
	for _, c := range body {
		if c == '\\' {
			return unquote(raw) == s
		}
	}
	return false
}

// schemaIssue is one problem the schema stage found.
type schemaIssue struct {
	path string // JSON Pointer of the value, "" for the event itself
	msg  string // the validator's message
}

// member is a member of a JSON object found in raw bytes.
type member struct {
	key []byte // unescaped
	val span
}

// checker validates one event. Its buffers are reused from event to event.
type checker struct {
	raw    []byte
	issues []schemaIssue
	path   []byte
	stack  [][]member // members of the objects being walked, by depth
	depth  int
}

// members collects the members of the object at sp, the last of duplicate
// keys winning in place of the first (as JSON.parse keeps them).
func (c *checker) members(sp span) []member {
	if c.depth >= len(c.stack) {
		c.stack = append(c.stack, nil)
	}
	ms := c.stack[c.depth][:0]
	_ = eachMember(c.raw[sp.Start:sp.End], func(key []byte, escaped bool, v span) bool {
		k := key[1 : len(key)-1]
		if escaped {
			k = []byte(unquote(key))
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

// eachElement calls fn with each element of the array at sp.
func eachElement(raw []byte, sp span, fn func(i int, v span)) {
	i := skipSpace(raw, int(sp.Start)+1)
	if i < int(sp.End) && raw[i] == ']' {
		return
	}
	for n := 0; i < int(sp.End); n++ {
		v, next, err := scanValue(raw, i)
		if err != nil {
			return
		}
		fn(n, v)
		i = skipSpace(raw, next)
		if i >= int(sp.End) || raw[i] == ']' {
			return
		}
		i = skipSpace(raw, i+1)
	}
}

// checkEvent validates the event e against schema s, appending to
// c.issues.
func (c *checker) checkEvent(raw []byte, s *schema) {
	c.raw = raw
	c.issues = c.issues[:0]
	c.path = c.path[:0]
	c.depth = 0
	sp, _, err := scanValue(raw, 0)
	if err != nil {
		return
	}
	c.value(sp, s)
}

func (c *checker) fail(msg string) {
	c.issues = append(c.issues, schemaIssue{path: string(c.path), msg: msg})
}

func (c *checker) push(key string) int {
	n := len(c.path)
	c.path = append(c.path, '/')
	for i := 0; i < len(key); i++ {
		switch key[i] {
		case '~':
			c.path = append(c.path, '~', '0')
		case '/':
			c.path = append(c.path, '~', '1')
		default:
			c.path = append(c.path, key[i])
		}
	}
	return n
}

func (c *checker) pushIndex(i int) int {
	n := len(c.path)
	c.path = append(c.path, '/')
	c.path = strconv.AppendInt(c.path, int64(i), 10)
	return n
}

// received names a value's kind as the validator does.
func received(raw []byte, sp span) string {
	switch sp.Kind {
	case kindAbsent:
		return "undefined"
	case kindNull:
		return "null"
	case kindString:
		return "string"
	case kindNumber:
		return "number"
	case kindBool:
		return "boolean"
	case kindArray:
		return "array"
	}
	return "object"
}

func (c *checker) invalidType(expected string, sp span) {
	c.fail("Invalid input: expected " + expected + ", received " + received(c.raw, sp))
}

// value validates the value at sp (kindAbsent for none) against s. The
// caller has already removed what stripping drops.
func (c *checker) value(sp span, s *schema) {
	if sp.Kind == kindNull && s.nullable {
		return
	}
	switch s.kind {
	case sAny:
	case sAnyNotNull:
		if sp.Kind == kindNull {
			c.fail("Invalid input")
		}
	case sAnyPresent:
		if sp.Kind == kindAbsent {
			c.fail("Invalid input")
		}
	case sString:
		if sp.Kind != kindString {
			c.invalidType("string", sp)
		}
	case sPattern:
		if sp.Kind != kindString {
			c.invalidType("string", sp)
		} else if !isJSONPointer(c.stringAt(sp)) {
			c.fail("Invalid string: must match pattern /" + s.pattern + "/")
		}
	case sInt, sNumber:
		c.number(sp, s)
	case sBool:
		if sp.Kind != kindBool {
			c.invalidType("boolean", sp)
		}
	case sLiteral:
		if sp.Kind != kindString || !jsonStringIs(c.raw[sp.Start:sp.End], s.values[0]) {
			c.fail("Invalid input: expected " + strconv.Quote(s.values[0]))
		}
	case sEnum:
		ok := false
		if sp.Kind == kindString {
			for _, v := range s.values {
				if jsonStringIs(c.raw[sp.Start:sp.End], v) {
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
		if sp.Kind != kindObject {
			c.fail("Invalid input")
		}
	case sObject:
		c.object(sp, s)
	case sArray:
		c.array(sp, s)
	case sRecord:
		c.record(sp, s)
	case sTagged:
		if sp.Kind != kindObject {
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
	if sp.Kind == kindAbsent {
		return nil
	}
	return raw[sp.Start:sp.End]
}

func (c *checker) stringAt(sp span) string {
	if !sp.Escaped {
		return string(c.raw[sp.Start+1 : sp.End-1])
	}
	return unquote(c.raw[sp.Start:sp.End])
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

func (c *checker) number(sp span, s *schema) {
	if sp.Kind != kindNumber {
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
		c.fail("Too big: expected number to be <=" + formatJSNumber(s.max))
	} else if f < s.min {
		c.fail("Too small: expected number to be >=" + formatJSNumber(s.min))
	}
}

func (c *checker) object(sp span, s *schema) {
	if sp.Kind != kindObject {
		c.invalidType("object", sp)
		return
	}
	ms := c.members(sp)
	c.depth++
	for i := range s.fields {
		f := &s.fields[i]
		v := lookup(ms, f.name)
		if v.Kind != kindAbsent && drops(c.raw, v, f.s) {
			v = span{} // stripped: the field is optional, or this object would be gone
		}
		if v.Kind == kindAbsent && f.optional {
			continue
		}
		n := c.push(f.name)
		c.value(v, f.s)
		c.path = c.path[:n]
	}
	c.depth--
}

func (c *checker) array(sp span, s *schema) {
	if sp.Kind != kindArray {
		c.invalidType("array", sp)
		return
	}
	kept := 0
	eachElement(c.raw, sp, func(_ int, v span) {
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

func (c *checker) record(sp span, s *schema) {
	if sp.Kind != kindObject {
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
func (c *checker) union(sp span, s *schema) {
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
func drops(raw []byte, sp span, s *schema) bool {
	if !s.mayDrop() {
		return false
	}
	switch s.kind {
	case sTagged:
		if sp.Kind != kindObject {
			return false
		}
		o := s.option(spanBytes(raw, fieldSpan(raw, sp, s.tag)))
		if o == nil {
			return true
		}
		return drops(raw, sp, o)
	case sObject:
		if sp.Kind != kindObject {
			return false
		}
		dropped := false
		for i := range s.fields {
			f := &s.fields[i]
			if f.optional || !f.s.mayDrop() {
				continue
			}
			if v := fieldSpan(raw, sp, f.name); v.Kind != kindAbsent && drops(raw, v, f.s) {
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
	_ = eachMember(raw[sp.Start:sp.End], func(key []byte, escaped bool, v span) bool {
		k := key[1 : len(key)-1]
		if escaped {
			k = []byte(unquote(key))
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
func (s *schema) mayDrop() bool {
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
