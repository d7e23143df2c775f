package conform

import (
	"encoding/json"
	"reflect"
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
