package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/internal/jsonpointer"
)

// A schema is what the call generator reads of a tool's JSON Schema: the
// keywords that say what a value may be, in the dialects tools are
// declared in (JSON Schema 2020-12 and draft 7 as the SDKs emit them,
// OpenAPI's nullable as Gemini takes it). Annotations (title,
// description, examples, ...) are read past; a keyword that constrains
// values in a way the generator cannot follow is an error naming it.
type schema struct {
	path  string   // JSON pointer of the schema in the tool's parameters
	types []string // allowed types; none means any
	any   bool     // true or {}: any value
	never bool     // false: no value

	props    []prop // in the order the document gives them
	required []string
	closed   bool // additionalProperties false
	minProps *int

	items              *schema
	minItems, maxItems *int
	unique             bool

	minLen, maxLen *int
	format         string

	enum   []json.RawMessage
	konst  json.RawMessage
	hasMin bool
	min    float64
	minX   bool // exclusive
	hasMax bool
	max    float64
	maxX   bool
	mult   float64

	anyOf []*schema // anyOf and oneOf: one branch is taken
	def   json.RawMessage
}

type prop struct {
	name string
	s    *schema
}

// A SchemaError says why calls cannot be generated from a tool's schema:
// a keyword the generator does not follow, or a schema no value meets.
type SchemaError struct {
	// Tool is the tool's name.
	Tool string
	// Path is the JSON pointer of the schema in the tool's parameters
	// ("" for the root).
	Path string
	// Keyword is the keyword at fault.
	Keyword string
	// Reason says what is wrong.
	Reason string
}

// Error names the tool, where in its schema, the keyword and why.
func (e *SchemaError) Error() string {
	where := e.Path
	if where == "" {
		where = "the root"
	}
	return fmt.Sprintf("tool %q: its parameters' schema at %s: %s: %s", e.Tool, where, e.Keyword, e.Reason)
}

// unsupported are keywords that constrain values in ways the generator
// does not follow: a value it made might not meet them, so it says so.
var unsupported = []string{
	"pattern", "patternProperties", "propertyNames", "dependentRequired", "dependentSchemas", "dependencies",
	"if", "then", "else", "not", "contains", "minContains", "maxContains", "prefixItems",
	"unevaluatedProperties", "unevaluatedItems", "maxProperties", "$dynamicRef", "$recursiveRef",
}

// known are the keywords read, and the annotations read past.
var known = []string{
	"type", "properties", "required", "additionalProperties", "minProperties", "items", "minItems", "maxItems", "uniqueItems",
	"minLength", "maxLength", "format", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
	"multipleOf", "anyOf", "oneOf", "allOf", "$ref", "$defs", "definitions", "nullable", "default",
	"title", "description", "examples", "$schema", "$id", "$comment", "$anchor", "deprecated", "readOnly", "writeOnly",
	"contentMediaType", "contentEncoding", "propertyOrdering", "strict",
}

// schemaReader reads one tool's schema, resolving local $refs.
type schemaReader struct {
	tool string
	root map[string]json.RawMessage
	refs map[string]*schema // by $ref: a recursive schema refers to itself
}

// readSchema reads the parameters schema of a tool. No parameters (or
// null) is an object without properties.
func readSchema(tool string, raw json.RawMessage) (*schema, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return &schema{types: []string{"object"}}, nil
	}
	r := &schemaReader{tool: tool, refs: map[string]*schema{}}
	var root map[string]json.RawMessage
	if json.Unmarshal(raw, &root) == nil {
		r.root = root
	}
	return r.read(raw, "")
}

func (r *schemaReader) fail(path, keyword, format string, args ...any) error {
	return &SchemaError{Tool: r.tool, Path: path, Keyword: keyword, Reason: fmt.Sprintf(format, args...)}
}

// keys returns the members of a JSON object in their order.
func keys(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var order []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 && !slices.Contains(order, t) {
				order = append(order, t)
				// skip the value
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return order, m, nil
				}
			}
		}
	}
	return order, m, nil
}

func (r *schemaReader) read(raw json.RawMessage, path string) (*schema, error) {
	raw = bytes.TrimSpace(raw)
	switch string(raw) {
	case "true":
		return &schema{path: path, any: true}, nil
	case "false":
		return &schema{path: path, never: true}, nil
	}
	order, m, err := keys(raw)
	if err != nil {
		return nil, r.fail(path, "schema", "not a JSON object or boolean (%s)", jsonErr(string(raw)))
	}
	if ref, ok := m["$ref"]; ok {
		var p string
		if json.Unmarshal(ref, &p) != nil {
			return nil, r.fail(path, "$ref", "not a string")
		}
		if s, ok := r.refs[p]; ok {
			return s, nil
		}
		target, err := r.resolve(p, path)
		if err != nil {
			return nil, err
		}
		s := &schema{}
		r.refs[p] = s
		read, err := r.read(target, path)
		if err != nil {
			return nil, err
		}
		*s = *read
		return s, nil
	}
	s := &schema{path: path}
	for _, k := range order {
		if slices.Contains(unsupported, k) {
			return nil, r.fail(path, k, "not supported by the call generator: a value it makes might not meet it (give the call's arguments in the script instead)")
		}
		if !slices.Contains(known, k) && !strings.HasPrefix(k, "x-") {
			continue // not a JSON Schema keyword: validators ignore it too
		}
	}
	if len(m) == 0 {
		s.any = true
	}
	get := func(k string, v any) error {
		b, ok := m[k]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(b, v); err != nil {
			return r.fail(path, k, "unreadable: %v", err)
		}
		return nil
	}
	var t json.RawMessage
	if err := get("type", &t); err != nil {
		return nil, err
	}
	if len(t) > 0 {
		var one string
		if json.Unmarshal(t, &one) == nil {
			s.types = []string{one}
		} else if err := json.Unmarshal(t, &s.types); err != nil {
			return nil, r.fail(path, "type", "want a type name or a list of them")
		}
		for _, ty := range s.types {
			switch ty {
			case "object", "array", "string", "integer", "number", "boolean", "null":
			default:
				return nil, r.fail(path, "type", "unknown type %q", ty)
			}
		}
		if len(s.types) == 0 {
			return nil, r.fail(path, "type", "an empty list of types: no value meets it")
		}
	}
	var nullable bool
	if err := get("nullable", &nullable); err != nil {
		return nil, err
	}
	if nullable && len(s.types) > 0 && !slices.Contains(s.types, "null") {
		s.types = append(s.types, "null")
	}
	if b, ok := m["properties"]; ok {
		porder, pm, err := keys(b)
		if err != nil {
			return nil, r.fail(path, "properties", "not an object")
		}
		for _, name := range porder {
			ps, err := r.read(pm[name], path+"/properties/"+jsonpointer.Escape(name))
			if err != nil {
				return nil, err
			}
			s.props = append(s.props, prop{name, ps})
		}
	}
	if err := get("required", &s.required); err != nil {
		return nil, err
	}
	if b, ok := m["additionalProperties"]; ok {
		s.closed = string(bytes.TrimSpace(b)) == "false"
	}
	for _, kv := range []struct {
		k string
		p **int
	}{{"minProperties", &s.minProps}, {"minItems", &s.minItems}, {"maxItems", &s.maxItems}, {"minLength", &s.minLen}, {"maxLength", &s.maxLen}} {
		if err := get(kv.k, kv.p); err != nil {
			return nil, err
		}
		if *kv.p != nil && **kv.p < 0 {
			return nil, r.fail(path, kv.k, "negative")
		}
	}
	if b, ok := m["items"]; ok {
		if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
			return nil, r.fail(path, "items", "a list of schemas (tuple items) is not supported by the call generator")
		}
		if s.items, err = r.read(b, path+"/items"); err != nil {
			return nil, err
		}
	}
	if err := get("uniqueItems", &s.unique); err != nil {
		return nil, err
	}
	if err := get("format", &s.format); err != nil {
		return nil, err
	}
	if err := get("enum", &s.enum); err != nil {
		return nil, err
	}
	if b, ok := m["enum"]; ok && len(s.enum) == 0 {
		_ = b
		return nil, r.fail(path, "enum", "empty: no value meets it")
	}
	if b, ok := m["const"]; ok {
		s.konst = b
	}
	s.def = m["default"]
	num := func(k string) (float64, bool, error) {
		b, ok := m[k]
		if !ok {
			return 0, false, nil
		}
		var f float64
		if err := json.Unmarshal(b, &f); err != nil {
			return 0, false, r.fail(path, k, "not a number")
		}
		return f, true, nil
	}
	if s.min, s.hasMin, err = num("minimum"); err != nil {
		return nil, err
	}
	if s.max, s.hasMax, err = num("maximum"); err != nil {
		return nil, err
	}
	for _, ex := range []struct {
		k        string
		has, x   *bool
		v        *float64
		isMinium bool
	}{{"exclusiveMinimum", &s.hasMin, &s.minX, &s.min, true}, {"exclusiveMaximum", &s.hasMax, &s.maxX, &s.max, false}} {
		b, ok := m[ex.k]
		if !ok {
			continue
		}
		var flag bool
		if json.Unmarshal(b, &flag) == nil { // draft 4: a flag on minimum or maximum
			*ex.x = flag && *ex.has
			continue
		}
		f, _, err := num(ex.k)
		if err != nil {
			return nil, err
		}
		if !*ex.has || ex.isMinium && f >= *ex.v || !ex.isMinium && f <= *ex.v {
			*ex.v, *ex.has, *ex.x = f, true, true
		}
	}
	if f, ok, err := num("multipleOf"); err != nil {
		return nil, err
	} else if ok {
		if f <= 0 {
			return nil, r.fail(path, "multipleOf", "not positive")
		}
		s.mult = f
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		var branches []json.RawMessage
		if err := get(k, &branches); err != nil {
			return nil, err
		}
		for i, b := range branches {
			bs, err := r.read(b, fmt.Sprintf("%s/%s/%d", path, k, i))
			if err != nil {
				return nil, err
			}
			s.anyOf = append(s.anyOf, bs)
		}
		if _, ok := m[k]; ok && len(branches) == 0 {
			return nil, r.fail(path, k, "empty: no value meets it")
		}
	}
	var all []json.RawMessage
	if err := get("allOf", &all); err != nil {
		return nil, err
	}
	for i, b := range all {
		bs, err := r.read(b, fmt.Sprintf("%s/allOf/%d", path, i))
		if err != nil {
			return nil, err
		}
		if err := r.merge(s, bs, path); err != nil {
			return nil, err
		}
	}
	if len(s.types) == 0 && !s.any && len(s.anyOf) == 0 && s.konst == nil && s.enum == nil {
		switch { // a schema that says what but not which type
		case len(s.props) > 0 || len(s.required) > 0:
			s.types = []string{"object"}
		case s.items != nil:
			s.types = []string{"array"}
		case s.minLen != nil || s.maxLen != nil || s.format != "":
			s.types = []string{"string"}
		case s.hasMin || s.hasMax:
			s.types = []string{"number"}
		default:
			s.any = true
		}
	}
	return s, r.check(s)
}

// merge adds an allOf branch to s: object branches merge their
// properties; any other branch must say no more than s already does.
func (r *schemaReader) merge(s, b *schema, path string) error {
	if len(b.types) > 0 {
		if len(s.types) == 0 {
			s.types = b.types
		} else {
			var both []string
			for _, t := range s.types {
				if slices.Contains(b.types, t) || t == "integer" && slices.Contains(b.types, "number") {
					both = append(both, t)
				}
			}
			if len(both) == 0 {
				return r.fail(path, "allOf", "its branches want types %v and %v: no value meets both", s.types, b.types)
			}
			s.types = both
		}
	}
	s.props = append(s.props, b.props...)
	s.required = append(s.required, b.required...)
	s.closed = s.closed || b.closed
	if b.enum != nil || b.konst != nil || b.items != nil || b.anyOf != nil || b.hasMin || b.hasMax || b.minLen != nil || b.maxLen != nil {
		return r.fail(path, "allOf", "a branch that constrains more than types and properties is not supported by the call generator")
	}
	return nil
}

// check reports a schema no value meets.
func (r *schemaReader) check(s *schema) error {
	p := s.path
	if s.minLen != nil && s.maxLen != nil && *s.minLen > *s.maxLen {
		return r.fail(p, "minLength", "%d is more than maxLength %d: no string meets both", *s.minLen, *s.maxLen)
	}
	if s.minItems != nil && s.maxItems != nil && *s.minItems > *s.maxItems {
		return r.fail(p, "minItems", "%d is more than maxItems %d: no array meets both", *s.minItems, *s.maxItems)
	}
	if s.hasMin && s.hasMax && (s.min > s.max || s.min == s.max && (s.minX || s.maxX)) {
		return r.fail(p, "minimum", "%v is above maximum %v: no number meets both", s.min, s.max)
	}
	if slices.Equal(s.types, []string{"integer"}) && s.hasMin && s.hasMax {
		if lo, hi := intBounds(s); lo > hi {
			return r.fail(p, "minimum", "no integer lies between %v and %v", s.min, s.max)
		}
	}
	for _, req := range s.required {
		if s.closed && !slices.ContainsFunc(s.props, func(q prop) bool { return q.name == req }) {
			return r.fail(p, "required", "%q is required, but additionalProperties is false and properties does not declare it", req)
		}
	}
	for _, q := range s.props {
		if q.s.never && slices.Contains(s.required, q.name) {
			return r.fail(q.s.path, "false", "the required property %q takes no value", q.name)
		}
	}
	if s.minProps != nil && s.closed && *s.minProps > len(s.props) {
		return r.fail(p, "minProperties", "%d properties wanted, %d declared and no others allowed", *s.minProps, len(s.props))
	}
	for _, e := range s.enum {
		if len(s.types) > 0 && !slices.Contains(s.types, jsonType(e)) && !(jsonType(e) == "integer" && slices.Contains(s.types, "number")) && !(jsonType(e) == "number" && slices.Contains(s.types, "integer") && isIntegral(e)) {
			return r.fail(p, "enum", "the value %s is not of type %v", e, s.types)
		}
	}
	if s.konst != nil && len(s.types) > 0 && !slices.Contains(s.types, jsonType(s.konst)) && !(jsonType(s.konst) == "integer" && slices.Contains(s.types, "number")) {
		return r.fail(p, "const", "the value %s is not of type %v", s.konst, s.types)
	}
	if s.unique && s.minItems != nil && s.items != nil && s.items.enum != nil && len(s.items.enum) < *s.minItems {
		return r.fail(p, "uniqueItems", "%d distinct items wanted, and items allows only %d values", *s.minItems, len(s.items.enum))
	}
	return nil
}

// resolve finds a local $ref ("#", "#/$defs/x", "#/definitions/x", or any
// JSON pointer into the root).
func (r *schemaReader) resolve(ref, path string) (json.RawMessage, error) {
	p, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, r.fail(path, "$ref", "%q is not a reference into the tool's schema: remote references are not supported by the call generator", ref)
	}
	cur := json.RawMessage(mustJSON(r.root))
	if p == "" {
		return cur, nil
	}
	for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		seg = jsonpointer.Unescape(seg)
		var m map[string]json.RawMessage
		if json.Unmarshal(cur, &m) != nil {
			var a []json.RawMessage
			i, err := strconv.Atoi(seg)
			if json.Unmarshal(cur, &a) != nil || err != nil || i < 0 || i >= len(a) {
				return nil, r.fail(path, "$ref", "%q resolves to nothing", ref)
			}
			cur = a[i]
			continue
		}
		next, ok := m[seg]
		if !ok {
			return nil, r.fail(path, "$ref", "%q resolves to nothing", ref)
		}
		cur = next
	}
	return cur, nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// jsonType is the JSON Schema type of a JSON value.
func jsonType(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if isIntegral(raw) {
		return "integer"
	}
	return "number"
}

func isIntegral(raw json.RawMessage) bool {
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(raw)), 64)
	return err == nil && f == math.Trunc(f) && !math.IsInf(f, 0)
}

// intBounds returns the least and greatest integers s allows.
func intBounds(s *schema) (lo, hi float64) {
	lo, hi = -maxSafe, maxSafe
	if s.hasMin {
		lo = math.Ceil(s.min)
		if s.minX && lo == s.min {
			lo++
		}
	}
	if s.hasMax {
		hi = math.Floor(s.max)
		if s.maxX && hi == s.max {
			hi--
		}
	}
	return lo, hi
}

// maxSafe is the largest integer a JSON number carries exactly to every
// client (JavaScript's Number.MAX_SAFE_INTEGER).
const maxSafe = 1<<53 - 1
