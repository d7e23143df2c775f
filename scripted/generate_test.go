package scripted

import (
	"encoding/json"
	"strings"
	"testing"
)

// schemas the generator follows, each with what a value of it must show.
var genSchemas = []struct {
	name, schema string
}{
	{"empty object", `{"type":"object"}`},
	{"none", ``},
	{"required and optional", `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":14},"unit":{"type":"string","enum":["c","f"]}},"required":["city"]}`},
	{"nested", `{"type":"object","properties":{"trip":{"type":"object","properties":{"stops":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string","minLength":2,"maxLength":5},"at":{"type":"string","format":"date-time"}},"required":["name"]},"minItems":1,"maxItems":3}},"required":["stops"]}},"required":["trip"],"additionalProperties":false}`},
	{"bounds", `{"type":"object","properties":{"a":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},"b":{"type":"integer","minimum":-5,"maximum":-3},"c":{"type":"integer","multipleOf":7,"minimum":10},"d":{"type":"number","minimum":0,"exclusiveMinimum":true}},"required":["a","b","c","d"]}`},
	{"nullable and unions", `{"type":"object","properties":{"n":{"type":["string","null"]},"o":{"anyOf":[{"type":"string"},{"type":"integer"}]},"g":{"type":"string","nullable":true}},"required":["n","o","g"]}`},
	{"refs", `{"type":"object","properties":{"p":{"$ref":"#/$defs/point"},"q":{"$ref":"#/definitions/point"}},"required":["p"],"$defs":{"point":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"]}},"definitions":{"point":{"type":"object","properties":{"x":{"type":"number"}}}}}`},
	{"unique enum items", `{"type":"object","properties":{"tags":{"type":"array","items":{"enum":["a","b","c"]},"uniqueItems":true,"minItems":3}},"required":["tags"]}`},
	{"const and booleans", `{"type":"object","properties":{"kind":{"const":"fixed"},"flag":{"type":"boolean"},"free":{}},"required":["kind","flag","free"]}`},
	{"allOf", `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"integer"}},"required":["b"]}]}`},
	{"recursive", `{"type":"object","properties":{"node":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"child":{"$ref":"#/$defs/node"},"v":{"type":"integer"}}}}}`},
	{"annotations", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","title":"T","description":"d","properties":{"a":{"type":"string","description":"x","examples":["e"],"x-order":1}},"additionalProperties":false}`},
}

// TestGenerateMeetsSchemas: every shape, many seeds: each generated
// argument object is JSON and meets its schema.
func TestGenerateMeetsSchemas(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 20
	}
	for _, tt := range genSchemas {
		t.Run(tt.name, func(t *testing.T) {
			s, err := readSchema("f", json.RawMessage(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			for _, shape := range ArgShapes {
				for seed := range uint64(seeds) {
					calls, err := generateCalls(&Generate{Shape: shape}, []Tool{{Name: "f", Parameters: json.RawMessage(tt.schema)}}, seed)
					if err != nil {
						t.Fatalf("shape %q seed %d: %v", shape, seed, err)
					}
					v, err := parseValue([]byte(calls[0].Args))
					if err != nil || !json.Valid([]byte(calls[0].Args)) {
						t.Fatalf("shape %q seed %d: %s: %v", shape, seed, calls[0].Args, err)
					}
					if err := s.meets(v); err != nil {
						t.Fatalf("shape %q seed %d: %s: %v", shape, seed, calls[0].Args, err)
					}
				}
			}
		})
	}
}

// TestGenerateShapes: what each shape makes of one schema.
func TestGenerateShapes(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":14},"unit":{"type":"string","enum":["c","f"]},"tags":{"type":"array","items":{"type":"string"}}},"required":["city"]}`)
	gen := func(shape ArgShape) string {
		calls, err := generateCalls(&Generate{Shape: shape}, []Tool{{Name: "get_weather", Parameters: schema}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		return calls[0].Args
	}
	if got := gen(ShapeRequired); got != `{"city":""}` {
		t.Errorf("required: %s", got)
	}
	every := gen(ShapeEvery)
	for _, k := range []string{`"city":`, `"days":`, `"unit":`, `"tags":[`} {
		if !strings.Contains(every, k) {
			t.Errorf("every: %s lacks %s", every, k)
		}
	}
	edge := gen(ShapeEdge)
	if !strings.Contains(edge, `"unit":"f"`) || !strings.Contains(edge, `"tags":[]`) || !(strings.Contains(edge, `"days":14`) || strings.Contains(edge, `"days":1`)) {
		t.Errorf("edge: %s", edge)
	}
	if !strings.Contains(edge, `\"quoted\"`) && !strings.Contains(edge, "long text long text") {
		t.Errorf("edge strings: %s", edge)
	}
	if a, b := gen(ShapeMixed), gen(ShapeMixed); a != b {
		t.Errorf("one seed, two answers: %s, %s", a, b)
	}
}

// TestGenerateRefuses: a schema the generator cannot follow, or that no
// value meets, is an error naming the tool, the place and the keyword.
func TestGenerateRefuses(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"type":"object","properties":{"id":{"type":"string","pattern":"^[a-z]+$"}}}`, `tool "f": its parameters' schema at /properties/id: pattern: not supported`},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":5,"maximum":2}}}`, `at /properties/n: minimum: 5 is above maximum 2`},
		{`{"type":"object","properties":{"s":{"type":"string","minLength":3,"maxLength":2}}}`, `at /properties/s: minLength: 3 is more than maxLength 2`},
		{`{"type":"object","required":["x"],"additionalProperties":false}`, `at the root: required: "x" is required, but additionalProperties is false`},
		{`{"type":"object","if":{"properties":{"a":{}}},"then":{"required":["b"]}}`, `at the root: if: not supported`},
		{`{"type":"object","properties":{"r":{"$ref":"https://example.com/s.json"}}}`, `$ref: "https://example.com/s.json" is not a reference into the tool's schema`},
		{`{"type":"object","properties":{"e":{"type":"string","enum":[1,2]}}}`, `at /properties/e: enum: the value 1 is not of type [string]`},
		{`{"type":"object","properties":{"i":{"type":"integer","exclusiveMinimum":1,"exclusiveMaximum":2}}}`, `no integer lies between 1 and 2`},
		{`{"type":"array"}`, `is not an object's`},
		{`{"type":"object","properties":{"t":{"type":"array","items":{"enum":["a"]},"uniqueItems":true,"minItems":2}}}`, `uniqueItems: 2 distinct items wanted, and items allows only 1 values`},
	}
	for _, tt := range tests {
		_, err := generateCalls(&Generate{}, []Tool{{Name: "f", Parameters: json.RawMessage(tt.schema)}}, 1)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s:\n got %v\nwant %q", tt.schema, err, tt.want)
		}
	}
	if _, err := generateCalls(&Generate{Tools: []string{"nope"}}, []Tool{{Name: "f"}}, 1); err == nil || !strings.Contains(err.Error(), `tool "nope" is not among the tools the request declares (f)`) {
		t.Errorf("an undeclared tool: %v", err)
	}
	if _, err := generateCalls(&Generate{}, nil, 1); err == nil || !strings.Contains(err.Error(), "declares no tools") {
		t.Errorf("no tools: %v", err)
	}
}

// TestGenerateOnWires: a turn that asks for generated calls answers a
// request on each wire with a call to each tool it declares, the calls
// in Request.Generated; a script file says so with generate.
func TestGenerateOnWires(t *testing.T) {
	s, err := Parse("gen.yaml", []byte("turns:\n  - text: Calling.\n    generate: all\n  - generate: {tools: [search], shape: required}\n    plan: {split: {by: whole}}\n  - text: done\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.YAML(); !strings.Contains(got, "generate: all") || !strings.Contains(got, "shape: required") {
		t.Errorf("YAML:\n%s", got)
	}
	tools := []Tool{
		{Name: "get_weather", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
		{Name: "search", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","minLength":1}},"required":["q"]}`)},
	}
	m := NewModel(s)
	var log strings.Builder
	m.LogRequests(&log)
	j, _ := collect(t, m, Request{Messages: []Message{{Role: "user", Content: "hi"}}, Tools: tools})
	if len(j.Calls) != 2 || j.Calls[0].Name != "get_weather" || j.Calls[1].Name != "search" || j.Text != "Calling." {
		t.Fatalf("turn 1: %+v", j)
	}
	gen := m.Requests()[0].Generated
	if len(gen) != 2 || gen[0].ID != "call_1_1" || gen[1].Args != j.Calls[1].Args {
		t.Errorf("generated %+v", gen)
	}
	j, _ = collect(t, m, Request{Messages: []Message{{Role: "user", Content: "hi"}}, Tools: tools})
	if len(j.Calls) != 1 || j.Calls[0].Args != `{"q":"a"}` {
		t.Errorf("turn 2: %+v", j.Calls)
	}
	if !strings.Contains(log.String(), `"generated":[{"id":"call_1_1","name":"get_weather","args":`) {
		t.Errorf("log:\n%s", log.String())
	}
	// A request that declares no tool gets an error naming the turn.
	_, err = m.Stream(t.Context(), Request{Messages: []Message{{Role: "user", Content: "hi"}}})
	if err != nil {
		t.Fatal(err) // turn 3 has no Generate
	}
	m2 := NewModel(s)
	if _, err := m2.Stream(t.Context(), userRequest("hi")); err == nil || !strings.Contains(err.Error(), "gen.yaml:2: turn 1: generate: the request declares no tools") {
		t.Errorf("no tools: %v", err)
	}

	for _, w := range Wires {
		t.Run(string(w), func(t *testing.T) {
			srv := NewServer(Script{Turns: []Turn{{Generate: &Generate{Shape: ShapeEdge}}}})
			defer srv.Close()
			path, _ := streamRequest(w)
			resp, body := post(t, base(srv)+path, toolsBody(w))
			if resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			if err := srv.Check(); err != nil {
				t.Fatal(err)
			}
			_, args := reassembleWire(t, w, []byte(body)) // the one call, wherever the reader put it

			gen := srv.Requests()[0].Generated
			if len(gen) != 1 || canonicalJSON(strings.Join(args, "")) != canonicalJSON(gen[0].Args) {
				t.Errorf("streamed %q, generated %+v", args, gen)
			}
		})
	}
}

// toolsBody is a streaming request on w declaring one tool, lookup(q).
func toolsBody(w Wire) string {
	params := `{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer","maximum":9}},"required":["q"]}`
	switch w.base() {
	case WireChat:
		return `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"lookup","parameters":` + params + `}}]}`
	case WireResponses:
		return `{"model":"m","stream":true,"input":"hi","tools":[{"type":"function","name":"lookup","parameters":` + params + `}]}`
	case WireAnthropic:
		return `{"model":"m","max_tokens":9,"stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"lookup","input_schema":` + params + `}]}`
	case WireGemini:
		return `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"lookup","parameters":` + params + `}]}]}`
	case WireBedrock:
		return `{"messages":[{"role":"user","content":[{"text":"hi"}]}],"toolConfig":{"tools":[{"toolSpec":{"name":"lookup","inputSchema":{"json":` + params + `}}}]}}`
	}
	return `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"lookup","parameters":` + params + `}}]}`
}

// FuzzGenerate: no schema makes the reader or the generator panic; what
// the generator makes of a schema it reads meets that schema.
func FuzzGenerate(f *testing.F) {
	for _, s := range genSchemas {
		f.Add(s.schema, uint64(1), uint8(0))
	}
	f.Add(`{"type":"object","properties":{"a":{"$ref":"#"}}}`, uint64(2), uint8(3))
	f.Add(`{"anyOf":[{"type":"object","required":["x"]},{"type":"object"}]}`, uint64(3), uint8(1))
	f.Fuzz(func(t *testing.T, schema string, seed uint64, shape uint8) {
		tools := []Tool{{Name: "f", Parameters: json.RawMessage(schema)}}
		calls, err := generateCalls(&Generate{Shape: ArgShapes[int(shape)%len(ArgShapes)]}, tools, seed)
		if err != nil {
			return
		}
		s, err := readSchema("f", json.RawMessage(schema))
		if err != nil {
			t.Fatalf("generated from a schema that does not read: %v", err)
		}
		v, err := parseValue([]byte(calls[0].Args))
		if err != nil || !json.Valid([]byte(calls[0].Args)) {
			t.Fatalf("%s: %v", calls[0].Args, err)
		}
		if err := s.meets(v); err != nil {
			t.Fatalf("%s does not meet %s: %v", calls[0].Args, schema, err)
		}
		for _, sv := range s.simpler(v) {
			if err := s.meets(sv); err != nil {
				t.Fatalf("a simpler %s does not meet %s: %v", sv.append(nil), schema, err)
			}
		}
	})
}
