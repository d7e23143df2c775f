package conform

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/aguitest/aguitest/scripted"
)

// The schema describes the format LoadCases reads, key for key: every
// object of the file is closed (additionalProperties false) and names
// exactly the keys the reader knows, down to the script's turns, plans
// and faults.
func TestSchemaMatchesReader(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal(Schema, &schema); err != nil {
		t.Fatalf("the schema is not JSON: %v", err)
	}
	defs := schema["$defs"].(map[string]any)
	resolve := func(node map[string]any) map[string]any {
		if ref, ok := node["$ref"].(string); ok {
			return defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		return node
	}
	unmarshaler := reflect.TypeFor[yaml.Unmarshaler]()
	var walk func(path string, ty reflect.Type, node map[string]any)
	walk = func(path string, ty reflect.Type, node map[string]any) {
		node = resolve(node)
		for ty.Kind() == reflect.Pointer {
			ty = ty.Elem()
		}
		if reflect.PointerTo(ty).Implements(unmarshaler) {
			return // a value read its own way (a Value, a path map, a duration)
		}
		switch ty.Kind() {
		case reflect.Slice:
			if ty.Elem().Kind() == reflect.Uint8 {
				return
			}
			items, ok := node["items"].(map[string]any)
			if !ok {
				t.Errorf("%s: the reader takes a list; the schema has no items", path)
				return
			}
			walk(path+"[]", ty.Elem(), items)
		case reflect.Struct:
			if node["additionalProperties"] != false {
				t.Errorf("%s: the schema leaves the object open; the reader rejects unknown keys", path)
			}
			props, _ := node["properties"].(map[string]any)
			var keys []string
			for i := range ty.NumField() {
				f := ty.Field(i)
				key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
				if key == "" || key == "-" || !f.IsExported() {
					continue
				}
				keys = append(keys, key)
				sub, ok := props[key].(map[string]any)
				if !ok {
					t.Errorf("%s: the reader takes %q; the schema has no such property", path, key)
					continue
				}
				walk(path+"."+key, f.Type, sub)
			}
			for key := range props {
				if !slices.Contains(keys, key) {
					t.Errorf("%s: the schema has %q; the reader does not take it", path, key)
				}
			}
		}
	}
	walk("file", reflect.TypeFor[casesFile](), schema)
}

// The enumerations of the schema are the names the script reader takes.
func TestSchemaEnums(t *testing.T) {
	var schema struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(Schema, &schema); err != nil {
		t.Fatal(err)
	}
	text := string(Schema)
	for _, want := range []string{
		string(scripted.FaultStatus), string(scripted.FaultError), string(scripted.FaultDisconnect), string(scripted.FaultMalformed), string(scripted.FaultStall),
		string(scripted.Bytes), string(scripted.Runes), string(scripted.Words), string(scripted.Random), string(scripted.Whole),
		string(scripted.Sequential), string(scripted.RoundRobin), string(scripted.Reverse), string(scripted.Shuffle), string(scripted.Scheduled),
		string(scripted.TextBefore), string(scripted.TextBetween), string(scripted.TextAfter),
		string(scripted.IDsFirst), string(scripted.IDsEvery), string(scripted.IDsNoIndex),
	} {
		if !strings.Contains(text, `"`+want+`"`) {
			t.Errorf("the schema does not name %q", want)
		}
	}
}

// The files of the docs and tests validate against the schema, and files
// with mistakes do not, by a small validator of the keywords it uses.
func TestSchemaValidates(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal(Schema, &schema); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, file string
		ok         bool
	}{
		{"readme", readFile(t, "../examples/readme/cases.yaml"), true},
		{"doc", docExample(t), true},
		{"unknown key", "cases:\n  - name: a\n    input: {user: hi}\n    script: {turns: [{text: hi}]}\n    expects: {}\n", false},
		{"no script", "cases:\n  - name: a\n    input: {user: hi}\n", false},
		{"bad golden", "cases:\n  - name: a\n    input: {user: hi}\n    script: {turns: [{text: hi}]}\n    golden: all\n", false},
		{"bad split", "cases:\n  - name: a\n    input: {user: hi}\n    script: {turns: [{text: hi, plan: {split: {by: lines}}}]}\n", false},
		{"bad count", "cases:\n  - name: a\n    input: {user: hi}\n    script: {turns: [{text: hi}]}\n    expect: {calls: [{name: t, count: -1}]}\n", false},
		{"value", "cases:\n  - name: a\n    input: {user: hi}\n    script: {turns: [{text: hi}]}\n    expect: {text: {matches: x}, state: {/a: 1, b: {equals: [1]}}}\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var doc any
			if err := yaml.Unmarshal([]byte(tt.file), &doc); err != nil {
				t.Fatal(err)
			}
			errs := validate(schema, schema, jsonish(doc), "")
			if tt.ok && len(errs) > 0 {
				t.Errorf("the schema rejects it: %v", errs)
			}
			if !tt.ok && len(errs) == 0 {
				t.Errorf("the schema accepts it")
			}
			if _, err := ParseCases("c.yaml", []byte(tt.file)); (err == nil) != tt.ok {
				t.Errorf("ParseCases: %v; the schema and the reader disagree", err)
			}
		})
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docExample is the file format as LoadCases' doc comment shows it.
func docExample(t *testing.T) string {
	t.Helper()
	src := readFile(t, "casefile.go")
	start := strings.Index(src, "//\ttimeout: 20s")
	end := strings.Index(src[start:], "\n//\n")
	var lines []string
	for _, l := range strings.Split(src[start:start+end], "\n") {
		lines = append(lines, strings.TrimPrefix(strings.TrimPrefix(l, "//"), "\t"))
	}
	return strings.Join(lines, "\n") + "\n"
}

// jsonish turns what yaml decodes into what encoding/json would.
func jsonish(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = jsonish(x)
		}
		return v
	case []any:
		for i, x := range v {
			v[i] = jsonish(x)
		}
		return v
	case int:
		return float64(v)
	case uint64:
		return float64(v)
	}
	return v
}

// validate checks v against the schema node s (of root), for the keywords
// cases.schema.json uses, and returns what does not hold.
func validate(root, s map[string]any, v any, at string) []string {
	if ref, ok := s["$ref"].(string); ok {
		defs := root["$defs"].(map[string]any)
		return validate(root, defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any), v, at)
	}
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, at+": "+fmt.Sprintf(format, args...)) }
	if ty, ok := s["type"].(string); ok && !isType(v, ty) {
		bad("want %s, got %T", ty, v)
		return errs
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, v) {
		bad("%v is not one of %v", v, enum)
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := s[key].([]any); ok {
			n := 0
			for _, a := range alts {
				if len(validate(root, a.(map[string]any), v, at)) == 0 {
					n++
				}
			}
			if n == 0 || key == "oneOf" && n > 1 {
				bad("%s: %d alternatives hold", key, n)
			}
		}
	}
	switch v := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, r := range asList(s["required"]) {
			if _, ok := v[r.(string)]; !ok {
				bad("%s is required", r)
			}
		}
		if m, ok := s["minProperties"].(float64); ok && float64(len(v)) < m {
			bad("fewer than %v properties", m)
		}
		for k, x := range v {
			if p, ok := props[k].(map[string]any); ok {
				errs = append(errs, validate(root, p, x, at+"/"+k)...)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					bad("%s is not allowed", k)
				}
			case map[string]any:
				errs = append(errs, validate(root, ap, x, at+"/"+k)...)
			}
		}
	case []any:
		if m, ok := s["minItems"].(float64); ok && float64(len(v)) < m {
			bad("fewer than %v items", m)
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, x := range v {
				errs = append(errs, validate(root, items, x, fmt.Sprintf("%s/%d", at, i))...)
			}
		}
	case string:
		if m, ok := s["minLength"].(float64); ok && float64(len(v)) < m {
			bad("shorter than %v", m)
		}
		if p, ok := s["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(v) {
			bad("%q does not match %s", v, p)
		}
	case float64:
		if m, ok := s["minimum"].(float64); ok && v < m {
			bad("%v is below %v", v, m)
		}
	}
	return errs
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func isType(v any, ty string) bool {
	switch ty {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == float64(int64(f))
	case "number":
		_, ok := v.(float64)
		return ok
	}
	return false
}
