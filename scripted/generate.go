package scripted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// Generate asks a turn for calls generated from the tools the request
// declares to the model (Request.Tools): one call to each tool, or to
// each tool named, in the order declared, after the turn's own Calls,
// with arguments generated from the tool's JSON Schema. The arguments
// are seeded (Seed, or the turn's plan seed), so the same script gives
// the same calls, and an exploration that varies the plan's seed varies
// them. The calls each request got are in Request.Generated.
//
// A tool whose schema the generator cannot follow (a keyword such as
// pattern or if/then/else, a remote $ref) or that no value meets
// (minimum above maximum, a required property that may not be there) is
// an error naming the tool, the place in its schema and the keyword,
// answered to the client and reported by Check, as a request the script
// does not expect is.
//
// In a script file:
//
//	generate: all                        # every tool declared
//	generate: [get_weather, search]      # the tools named
//	generate: {tools: [get_weather], shape: edge, seed: 7}
type Generate struct {
	// Tools names the tools to call; empty means every tool declared.
	Tools []string `yaml:"tools,omitempty" json:"tools,omitempty"`
	// Shape says what arguments are made; the zero value mixes them.
	Shape ArgShape `yaml:"shape,omitempty" json:"shape,omitempty"`
	// Seed draws the arguments; 0 means the turn's plan seed.
	Seed uint64 `yaml:"seed,omitempty" json:"seed,omitempty"`
}

// ArgShape says what arguments the generator makes.
type ArgShape string

// The argument shapes.
const (
	// ShapeMixed (the zero value): each optional property present or not,
	// and each value typical or at an edge, as the seed draws them.
	ShapeMixed ArgShape = ""
	// ShapeRequired: the required properties only, each the simplest
	// value (the first enum value, the shortest string, the number
	// nearest 0, the fewest items).
	ShapeRequired ArgShape = "required"
	// ShapeEvery: every property, nested objects and arrays filled,
	// typical values.
	ShapeEvery ArgShape = "every"
	// ShapeEdge: every property, each value at an edge: strings with
	// non-ASCII characters, emoji and the characters JSON escapes, or as
	// long as allowed (2000 characters when unbounded); numbers at their
	// bounds (or ±2^53-1); empty arrays and objects where allowed; the
	// last enum value.
	ShapeEdge ArgShape = "edge"
)

// ArgShapes lists the argument shapes.
var ArgShapes = []ArgShape{ShapeMixed, ShapeRequired, ShapeEvery, ShapeEdge}

// UnmarshalYAML reads "all", a list of tool names, or the mapping.
func (g *Generate) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Value != "all" {
			return fmt.Errorf("line %d: generate: want all, a list of tool names, or a mapping (tools, shape, seed), not %q", n.Line, n.Value)
		}
		*g = Generate{}
		return nil
	case yaml.SequenceNode:
		*g = Generate{}
		return n.Decode(&g.Tools)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch k := n.Content[i].Value; k {
		case "tools", "shape", "seed":
		default:
			return fmt.Errorf("line %d: generate: unknown field %q (want tools, shape, seed)", n.Content[i].Line, k)
		}
	}
	type plain Generate
	if err := n.Decode((*plain)(g)); err != nil {
		return err
	}
	if !slices.Contains(ArgShapes, g.Shape) {
		return fmt.Errorf("line %d: generate: unknown shape %q (want required, every or edge; none mixes them)", n.Line, g.Shape)
	}
	return nil
}

// MarshalYAML writes "all" for the zero Generate, the list of names when
// that is all it holds.
func (g Generate) MarshalYAML() (any, error) {
	switch {
	case g.Shape == "" && g.Seed == 0 && len(g.Tools) == 0:
		return "all", nil
	case g.Shape == "" && g.Seed == 0:
		return g.Tools, nil
	}
	type plain Generate
	return plain(g), nil
}

func (g *Generate) validate() error {
	if !slices.Contains(ArgShapes, g.Shape) {
		return fmt.Errorf("unknown shape %q (want required, every or edge; none mixes them)", g.Shape)
	}
	return nil
}

// generateCalls makes the calls g asks for from the tools declared.
func generateCalls(g *Generate, tools []Tool, seed uint64) ([]Call, error) {
	if len(tools) == 0 {
		return nil, errors.New("generate: the request declares no tools to call")
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	want := g.Tools
	if len(want) == 0 {
		want = names
	}
	var calls []Call
	var errs []error
	for k, name := range want {
		i := slices.Index(names, name)
		if i < 0 {
			errs = append(errs, fmt.Errorf("generate: tool %q is not among the tools the request declares (%s)", name, strings.Join(names, ", ")))
			continue
		}
		s, err := readSchema(name, tools[i].Parameters)
		if err != nil {
			errs = append(errs, fmt.Errorf("generate: %w", err))
			continue
		}
		gen := &generator{rng: rand.New(rand.NewPCG(seed, uint64(k)+0x9e3779b97f4a7c15)), shape: g.Shape}
		v, err := gen.value(s, 0)
		if err != nil {
			errs = append(errs, fmt.Errorf("generate: tool %q: %w", name, err))
			continue
		}
		if v.kind != vObject {
			errs = append(errs, fmt.Errorf("generate: tool %q: its parameters' schema is not an object's, and a call's arguments are one", name))
			continue
		}
		calls = append(calls, Call{Name: name, Args: string(v.append(nil)), Schema: tools[i].Parameters})
	}
	return calls, errors.Join(errs...)
}

// A value is a JSON value that keeps the order of its members.
type value struct {
	kind vkind
	str  string
	num  string // a JSON number
	b    bool
	arr  []value
	obj  []member
}

type member struct {
	name string
	v    value
}

type vkind uint8

const (
	vNull vkind = iota
	vBool
	vNumber
	vString
	vArray
	vObject
)

func (v value) append(b []byte) []byte {
	switch v.kind {
	case vNull:
		return append(b, "null"...)
	case vBool:
		return strconv.AppendBool(b, v.b)
	case vNumber:
		return append(b, v.num...)
	case vString:
		return appendString(b, v.str)
	case vArray:
		b = append(b, '[')
		for i, e := range v.arr {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.append(b)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	for i, m := range v.obj {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, m.name)
		b = append(b, ':')
		b = m.v.append(b)
	}
	return append(b, '}')
}

// parseValue reads a JSON text into a value, its members in order.
func parseValue(raw []byte) (value, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := parseNext(dec)
	if err == nil && dec.More() {
		err = errors.New("more than one value")
	}
	return v, err
}

func parseNext(dec *json.Decoder) (value, error) {
	tok, err := dec.Token()
	if err != nil {
		return value{}, err
	}
	switch t := tok.(type) {
	case nil:
		return value{kind: vNull}, nil
	case bool:
		return value{kind: vBool, b: t}, nil
	case json.Number:
		return value{kind: vNumber, num: t.String()}, nil
	case string:
		return value{kind: vString, str: t}, nil
	case json.Delim:
		if t == '[' {
			v := value{kind: vArray, arr: []value{}}
			for dec.More() {
				e, err := parseNext(dec)
				if err != nil {
					return v, err
				}
				v.arr = append(v.arr, e)
			}
			_, err := dec.Token()
			return v, err
		}
		v := value{kind: vObject, obj: []member{}}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return v, err
			}
			e, err := parseNext(dec)
			if err != nil {
				return v, err
			}
			v.obj = append(v.obj, member{k.(string), e})
		}
		_, err := dec.Token()
		return v, err
	}
	return value{}, fmt.Errorf("unexpected %v", tok)
}

// A generator makes values of schemas.
type generator struct {
	rng   *rand.Rand
	shape ArgShape
}

// mode is how one value is made.
type mode uint8

const (
	simplest mode = iota
	typical
	edge
)

func (g *generator) mode() mode {
	switch g.shape {
	case ShapeRequired:
		return simplest
	case ShapeEvery:
		return typical
	case ShapeEdge:
		return edge
	}
	return []mode{typical, typical, edge}[g.rng.IntN(3)]
}

// optional reports whether an optional property is made.
func (g *generator) optional() bool {
	switch g.shape {
	case ShapeRequired:
		return false
	case ShapeEvery, ShapeEdge:
		return true
	}
	return g.rng.IntN(2) == 0
}

// maxDepth bounds the nesting of values made of a recursive schema.
const maxDepth = 12

func (g *generator) value(s *schema, depth int) (value, error) {
	if depth > maxDepth {
		return value{}, fmt.Errorf("its parameters' schema at %s nests values more than %d deep", s.path, maxDepth)
	}
	m := g.mode()
	switch {
	case s.never:
		return value{}, fmt.Errorf("its parameters' schema at %s is false: no value meets it", s.path)
	case s.konst != nil:
		return parseValue(s.konst)
	case s.enum != nil:
		i := 0
		switch m {
		case typical:
			i = g.rng.IntN(len(s.enum))
		case edge:
			i = len(s.enum) - 1
		}
		return parseValue(s.enum[i])
	case len(s.anyOf) > 0:
		i := 0
		if m != simplest {
			i = g.rng.IntN(len(s.anyOf))
		}
		b := *s.anyOf[i]
		if len(b.types) == 0 && len(s.types) > 0 {
			b.types = s.types
		}
		b.props = append(slices.Clone(s.props), b.props...)
		b.required = append(slices.Clone(s.required), b.required...)
		return g.value(&b, depth+1)
	case s.any:
		return value{kind: vString, str: g.str(&schema{}, m)}, nil
	}
	types := s.types
	t := types[0]
	if len(types) > 1 {
		switch m {
		case typical:
			t = types[g.rng.IntN(len(types))]
		case edge:
			t = types[len(types)-1]
		}
	}
	switch t {
	case "null":
		return value{kind: vNull}, nil
	case "boolean":
		return value{kind: vBool, b: m == edge || m == typical && g.rng.IntN(2) == 0}, nil
	case "string":
		return value{kind: vString, str: g.str(s, m)}, nil
	case "integer", "number":
		n, err := g.number(s, m, t == "integer")
		return value{kind: vNumber, num: n}, err
	case "array":
		return g.array(s, m, depth)
	}
	return g.object(s, depth)
}

func (g *generator) object(s *schema, depth int) (value, error) {
	v := value{kind: vObject, obj: []member{}}
	for _, p := range s.props {
		if !slices.Contains(s.required, p.name) && (!g.optional() || depth >= maxDepth/2) {
			continue
		}
		if slices.ContainsFunc(v.obj, func(m member) bool { return m.name == p.name }) {
			continue
		}
		e, err := g.value(p.s, depth+1)
		if err != nil {
			return v, err
		}
		v.obj = append(v.obj, member{p.name, e})
	}
	for _, req := range s.required { // required, but not declared
		if !slices.ContainsFunc(v.obj, func(m member) bool { return m.name == req }) {
			v.obj = append(v.obj, member{req, value{kind: vString, str: g.str(&schema{}, simplest)}})
		}
	}
	for _, p := range s.props { // minProperties
		if s.minProps == nil || len(v.obj) >= *s.minProps {
			break
		}
		if slices.ContainsFunc(v.obj, func(m member) bool { return m.name == p.name }) {
			continue
		}
		e, err := g.value(p.s, depth+1)
		if err != nil {
			return v, err
		}
		v.obj = append(v.obj, member{p.name, e})
	}
	for i := 0; s.minProps != nil && len(v.obj) < *s.minProps; i++ {
		v.obj = append(v.obj, member{"extra_" + strconv.Itoa(i), value{kind: vString, str: "x"}})
	}
	return v, nil
}

func (g *generator) array(s *schema, m mode, depth int) (value, error) {
	lo, hi := 0, 3
	if s.minItems != nil {
		lo = *s.minItems
	}
	if s.maxItems != nil {
		hi = *s.maxItems
	}
	hi = max(lo, min(hi, lo+3))
	n := lo
	switch {
	case m == typical:
		n = max(lo, min(hi, 1+g.rng.IntN(3)))
	case m == edge && lo > 0:
		n = hi
	}
	v := value{kind: vArray, arr: []value{}}
	items := s.items
	if items == nil {
		items = &schema{path: s.path + "/items", types: []string{"string"}}
	}
	seen := map[string]bool{}
	for tries := 0; len(v.arr) < n; tries++ {
		if tries > 20*n+20 {
			return v, fmt.Errorf("its parameters' schema at %s: uniqueItems: could not make %d distinct items", s.path, n)
		}
		e, err := g.value(items, depth+1)
		if err != nil {
			return v, err
		}
		if s.unique {
			k := string(e.append(nil))
			if seen[k] {
				// a distinct value next time: vary what is drawn
				g = &generator{rng: g.rng, shape: ShapeMixed}
				continue
			}
			seen[k] = true
		}
		v.arr = append(v.arr, e)
	}
	return v, nil
}

// edgeText holds what strings break: non-ASCII, emoji, and each character
// JSON escapes.
const edgeText = "naïve café 😀 中文 \"quoted\" back\\slash\nnew line\ttab \u0001 end"

// typicalWords are the strings of typical values.
var typicalWords = []string{"Paris", "hello world", "2", "alpha", "Blue sky", "note 42", "Zürich"}

func (g *generator) str(s *schema, m mode) string {
	lo, hi := 0, -1
	if s.minLen != nil {
		lo = *s.minLen
	}
	if s.maxLen != nil {
		hi = *s.maxLen
	}
	var out string
	switch {
	case s.format != "" && m != edge:
		out = map[string]string{"date-time": "2026-01-02T03:04:05Z", "date": "2026-01-02", "time": "03:04:05Z", "email": "someone@example.com",
			"uri": "https://example.com/a?b=c", "url": "https://example.com/a?b=c", "uuid": "123e4567-e89b-12d3-a456-426614174000",
			"hostname": "example.com", "ipv4": "192.0.2.1", "ipv6": "2001:db8::1", "duration": "P1D"}[s.format]
		if out == "" {
			out = "x"
		}
	case s.format != "":
		out = map[string]string{"date-time": "1970-01-01T00:00:00.000Z", "date": "9999-12-31", "email": "a.b+c@example.com", "uri": "https://example.com/%C3%A9?q=%22x%22"}[s.format]
		if out == "" {
			return g.str(&schema{minLen: s.minLen, maxLen: s.maxLen, format: s.format}, typical)
		}
	case m == simplest:
		out = ""
	case m == typical:
		out = typicalWords[g.rng.IntN(len(typicalWords))]
	default:
		if g.rng.IntN(2) == 0 || hi >= 0 && hi < 2000 {
			out = edgeText
		} else {
			out = strings.Repeat("long text ", 200)
		}
		if hi >= 0 && hi > utf8.RuneCountInString(out) {
			out = strings.Repeat("é", hi)
		}
	}
	n := utf8.RuneCountInString(out)
	if n < lo {
		out += strings.Repeat("a", lo-n)
	}
	if hi >= 0 && utf8.RuneCountInString(out) > hi {
		out = string([]rune(out)[:hi])
	}
	return out
}

func (g *generator) number(s *schema, m mode, integer bool) (string, error) {
	lo, hi := -float64(maxSafe), float64(maxSafe)
	if integer {
		lo, hi = intBounds(s)
	} else {
		if s.hasMin {
			lo = s.min
		}
		if s.hasMax {
			hi = s.max
		}
	}
	var x float64
	switch m {
	case simplest:
		x = math.Max(lo, math.Min(hi, 0))
	case typical:
		x = math.Max(lo, math.Min(hi, float64(1+g.rng.IntN(100))))
		if !integer && x+0.5 <= hi {
			x += 0.5
		}
	default:
		if g.rng.IntN(2) == 0 {
			x = hi
		} else {
			x = lo
		}
	}
	if !integer {
		switch { // exclusive bounds: step inside
		case s.hasMin && s.minX && x <= s.min:
			x = nextInside(s.min, hi)
		case s.hasMax && s.maxX && x >= s.max:
			x = nextInside(s.max, lo)
		}
	}
	if s.mult > 0 {
		k := math.Ceil(lo / s.mult)
		if m != simplest {
			k = math.Floor(x / s.mult)
		}
		x = k * s.mult
		if x < lo || x > hi || s.minX && x <= s.min || s.maxX && x >= s.max {
			x = math.Ceil(lo/s.mult) * s.mult
			if x == lo && s.minX {
				x += s.mult
			}
			if x > hi || s.maxX && x >= s.max {
				return "", fmt.Errorf("its parameters' schema at %s: multipleOf %v: no multiple lies within the bounds", s.path, s.mult)
			}
		}
	}
	if integer || x == math.Trunc(x) && math.Abs(x) <= maxSafe {
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	}
	return strconv.FormatFloat(x, 'g', -1, 64), nil
}

// nextInside returns a number just inside an exclusive bound b, towards
// other.
func nextInside(b, other float64) float64 {
	step := math.Max(math.Abs(b)*1e-9, 1e-9)
	if other < b {
		step = -step
	}
	return b + step
}

// genSeed is the seed turn ti's generated calls are drawn from.
func (s *Script) genSeed(ti int) uint64 {
	t := &s.Turns[ti]
	if t.Generate.Seed != 0 {
		return t.Generate.Seed
	}
	return mix(t.Plan.over(s.Plan).Seed, ti, -20)
}

// PinGenerated returns s with each turn that generates calls drawing them
// from the seed the same turn of from draws them from, so that the two
// scripts generate the same arguments whatever their plans: an
// exploration compares a plan's run with a reference of the same calls.
func (s Script) PinGenerated(from Script) Script {
	v := s.clone()
	for i := range v.Turns {
		if i < len(from.Turns) && v.Turns[i].Generate != nil && from.Turns[i].Generate != nil {
			v.Turns[i].Generate.Seed = from.genSeed(i)
		}
	}
	return v
}

// Materialize returns s with the calls each turn generated, as reqs show
// them (Request.Generated of the request each turn answered), written as
// its own calls with their tools' schemas (Call.Schema), so that the
// arguments can be shrunk and printed. Turns that answered no request in
// reqs keep their Generate.
func (s Script) Materialize(reqs []Request) Script {
	v := s.clone()
	for _, r := range reqs {
		i := r.Turn - 1
		if i < 0 || i >= len(v.Turns) || v.Turns[i].Generate == nil || len(r.Generated) == 0 {
			continue
		}
		t := &v.Turns[i]
		for _, c := range r.Generated {
			c.ID = "" // the default id it had
			t.Calls = append(t.Calls, c)
		}
		t.Generate = nil
	}
	return v
}
