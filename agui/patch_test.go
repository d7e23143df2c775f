package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/internal/oracle"
)

func TestApplyPatch(t *testing.T) {
	tests := []struct {
		name, doc, patch string
		want             string // "" when the patch does not apply
		errName          string
	}{
		{name: "add member", doc: `{"a":1}`, patch: `[{"op":"add","path":"/b","value":[1]}]`, want: `{"a":1,"b":[1]}`},
		{name: "add to end", doc: `{"a":[1]}`, patch: `[{"op":"add","path":"/a/-","value":2}]`, want: `{"a":[1,2]}`},
		{name: "add past end", doc: `{"a":[1]}`, patch: `[{"op":"add","path":"/a/2","value":2}]`, errName: patchOutOfBounds},
		{name: "index with leading zero", doc: `{"a":[1,2,3]}`, patch: `[{"op":"add","path":"/a/01","value":9}]`, want: `{"a":[1,9,2,3]}`},
		{name: "empty token is index 0", doc: `{"a":[1,2]}`, patch: `[{"op":"add","path":"/a/","value":0}]`, want: `{"a":[0,1,2]}`},
		{name: "32-bit wrap", doc: `{"a":[1,2]}`, patch: `[{"op":"add","path":"/a/4294967297","value":0}]`, want: `{"a":[1,0,2]}`},
		{name: "remove missing", doc: `{"a":1}`, patch: `[{"op":"remove","path":"/b"}]`, errName: patchUnresolvable},
		{name: "replace deep missing", doc: `{"a":{}}`, patch: `[{"op":"replace","path":"/a/b/c","value":1}]`, errName: patchUnresolvable},
		{name: "add under missing parent", doc: `{}`, patch: `[{"op":"add","path":"/a/b","value":1}]`, errName: patchCannotAdd},
		{name: "whole patch fails", doc: `{"a":1}`, patch: `[{"op":"add","path":"/b","value":2},{"op":"test","path":"/a","value":2}]`, errName: patchTestFailed},
		{name: "test deep equal", doc: `{"a":{"x":[1,{"y":null}]}}`, patch: `[{"op":"test","path":"/a","value":{"x":[1,{"y":null}]}}]`, want: `{"a":{"x":[1,{"y":null}]}}`},
		{name: "test own hasOwnProperty throws", doc: `{"a":{"hasOwnProperty":1}}`, patch: `[{"op":"test","path":"/a","value":{"hasOwnProperty":1}}]`, errName: patchTypeError},
		{name: "move", doc: `{"a":[1,2,3]}`, patch: `[{"op":"move","from":"/a/0","path":"/a/7"}]`, want: `{"a":[2,3,1]}`},
		{name: "move from missing", doc: `{"a":1}`, patch: `[{"op":"move","from":"/b","path":"/c"}]`, errName: patchFromUnresolved},
		{name: "move into itself", doc: `{"a":{"b":1}}`, patch: `[{"op":"move","from":"/a","path":"/a/c"}]`, errName: patchTypeError},
		{name: "copy is a copy", doc: `{"a":{"b":1}}`, patch: `[{"op":"copy","from":"/a","path":"/c"},{"op":"replace","path":"/c/b","value":2}]`, want: `{"a":{"b":1},"c":{"b":2}}`},
		{name: "replace root", doc: `{"a":1}`, patch: `[{"op":"replace","path":"","value":[1]}]`, want: `[1]`},
		{name: "remove root", doc: `{"a":1}`, patch: `[{"op":"remove","path":""}]`, want: `null`},
		{name: "move missing to root", doc: `{"a":1}`, patch: `[{"op":"move","from":"/b","path":""}]`, errName: patchNoDocument},
		{name: "inherited name present", doc: `{}`, patch: `[{"op":"replace","path":"/toString","value":1}]`, want: `{"toString":1}`},
		{name: "copy of an inherited method", doc: `{}`, patch: `[{"op":"copy","from":"/toString","path":"/f"}]`, errName: patchDataClone},
		{name: "__proto__ banned", doc: `{}`, patch: `[{"op":"add","path":"/__proto__","value":1}]`, errName: patchTypeError},
		{name: "primitive root", doc: `5`, patch: `[{"op":"add","path":"/a","value":1}]`, want: `5`},
		{name: "string length", doc: `"abc"`, patch: `[{"op":"test","path":"/length","value":3}]`, want: `"abc"`},
		{name: "null root", doc: `null`, patch: `[{"op":"add","path":"/a","value":1}]`, errName: patchTypeError},
		{name: "integer keys first", doc: `{"b":1}`, patch: `[{"op":"add","path":"/2","value":2},{"op":"add","path":"/1","value":1}]`, want: `{"1":1,"2":2,"b":1}`},
		{name: "not an array", doc: `{}`, patch: `{"op":"add"}`, errName: patchNotArray},
		{name: "unknown op", doc: `{}`, patch: `[{"op":"merge","path":"/a","value":1}]`, errName: patchOpInvalid},
		{name: "not a pointer", doc: `{}`, patch: `[{"op":"add","path":"a","value":1}]`, errName: patchPathInvalid},
		{name: "value required", doc: `{}`, patch: `[{"op":"add","path":"/a"}]`, errName: patchValueRequired},
		{name: "escapes", doc: `{"a/b":{"~":1}}`, patch: `[{"op":"replace","path":"/a~1b/~0","value":2}]`, want: `{"a/b":{"~":2}}`},
		{name: "lone surrogate kept", doc: `{}`, patch: `[{"op":"add","path":"/s","value":"\ud83d"}]`, want: `{"s":"\ud83d"}`},
		{name: "copies past the bound", doc: `{"a":[0,0,0,0,0,0,0,0]}`, patch: `[` + strings.Repeat(`{"op":"copy","from":"/a","path":"/a/0"},`, 30) + `{"op":"test","path":"","value":1}]`, errName: patchTooLarge},
		{name: "infinity is null after a clone", doc: `{"n":1e400}`, patch: `[]`, want: `{"n":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyPatch([]byte(tt.doc), []byte(tt.patch))
			if tt.errName != "" {
				var pe *PatchError
				if !errors.As(err, &pe) || pe.Name != tt.errName {
					t.Fatalf("ApplyPatch = %s, %v; want a %s error", got, err, tt.errName)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("ApplyPatch = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestApplyPatchBadJSON(t *testing.T) {
	if _, err := ApplyPatch([]byte(`{`), []byte(`[]`)); err == nil || !strings.HasPrefix(err.Error(), "document:") {
		t.Errorf("bad document: got %v, want an error naming the document", err)
	}
	if _, err := ApplyPatch([]byte(`{}`), []byte(`[`)); err == nil || !strings.HasPrefix(err.Error(), "patch:") {
		t.Errorf("bad patch: got %v, want an error naming the patch", err)
	}
}

// patchGen makes documents and patches that reach the corners of
// fast-json-patch: paths that exist and paths that do not, array indices
// of every odd form, inherited names, primitive documents.
type patchGen struct{ r *rand.Rand }

var patchKeys = []string{"a", "b", "c", "0", "1", "10", "toString", "length", "x y", "~", "/", "constructor", "hasOwnProperty"}

func (g patchGen) value(depth int) any {
	switch k := g.r.IntN(10); {
	case depth > 0 && k < 3:
		o := obj{}
		for range g.r.IntN(4) {
			o = o.set(patchKeys[g.r.IntN(len(patchKeys))], g.value(depth-1))
		}
		return o
	case depth > 0 && k < 5:
		var a []any
		for range g.r.IntN(4) {
			a = append(a, g.value(depth-1))
		}
		if a == nil {
			a = []any{}
		}
		return a
	default:
		return []any{nil, true, false, 0, 1, 1.5, -2, 1e21, "", "abc", "日本", "a\u2028b"}[g.r.IntN(12)]
	}
}

// paths lists the pointers to every value of v.
func paths(v any, prefix string, out *[]string) {
	*out = append(*out, prefix)
	switch x := v.(type) {
	case obj:
		for _, p := range x {
			paths(p.v, prefix+"/"+escapeToken(p.k), out)
		}
	case []any:
		for i, e := range x {
			paths(e, fmt.Sprintf("%s/%d", prefix, i), out)
		}
	}
}

func escapeToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func (g patchGen) pointer(existing []string) string {
	p := existing[g.r.IntN(len(existing))]
	switch g.r.IntN(16) {
	case 0, 1, 2, 3, 4, 12, 13, 14, 15:
		return p
	case 5, 6:
		return p + "/" + escapeToken(patchKeys[g.r.IntN(len(patchKeys))])
	case 7:
		return p + "/-"
	case 8:
		return p + "/" + g.pick("01", "", "4294967297", "2147483648", "99", "1e1", "-1")
	case 9:
		return g.pick("", "/__proto__", "/constructor/prototype", "/toString", "/length", "/a/b/c/d", "/~1", "/~0", "/a/toString/x")
	default:
		return p + "/" + g.pick("z", "0", "length", "push")
	}
}

func (g patchGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g patchGen) patch(doc any) []any {
	var ps []string
	paths(doc, "", &ps)
	var ops []any
	for range 1 + g.r.IntN(3) {
		op := g.pick("add", "add", "remove", "replace", "move", "copy", "test", "test")
		o := obj{{"op", op}, {"path", g.pointer(ps)}}
		switch op {
		case "move", "copy":
			o = o.set("from", g.pointer(ps))
		case "add", "replace":
			o = o.set("value", g.value(2))
		case "test":
			if g.r.IntN(2) == 0 {
				// Often the very value at an existing path, so tests pass.
				o = o.set("value", valueAt(doc, o[1].v.(string)))
			} else {
				o = o.set("value", g.value(2))
			}
		}
		if g.r.IntN(40) == 0 {
			o = o.del("path")
		}
		ops = append(ops, o)
	}
	return ops
}

func valueAt(v any, ptr string) any {
	if ptr == "" {
		return v
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case obj:
			got, ok := x.get(tok)
			if !ok {
				return nil
			}
			v = got
		case []any:
			var i int
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

type patchCase struct {
	Doc   any `json:"doc"`
	Patch any `json:"patch"`
}

type patchResult struct {
	OK        bool            `json:"ok"`
	Result    json.RawMessage `json:"result"`
	Undefined bool            `json:"undefined"`
	Clone     *bool           `json:"clone"`
	Cycle     bool            `json:"cycle"`
	Name      string          `json:"name"`
}

// TestApplyPatchMatchesReference applies generated patches with
// fast-json-patch (as the reference client calls it) and with ApplyPatch:
// both must fail together, or give the same document byte for byte.
func TestApplyPatchMatchesReference(t *testing.T) {
	dir := needOracle(t)
	const n = 6000
	g := patchGen{rand.New(rand.NewPCG(20261207, 1))}
	var cases []patchCase
	var inputs [][]byte
	for range n {
		doc := g.value(3)
		if g.r.IntN(5) > 0 {
			// Mostly object documents, as states are.
			if _, ok := doc.(obj); !ok {
				doc = obj{{"a", doc}, {"b", g.value(2)}}
			}
		}
		c := patchCase{Doc: doc, Patch: g.patch(doc)}
		cases = append(cases, c)
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, b)
	}
	applied, failed := 0, 0
	for i, want := range oracle.Run[patchResult](t, dir, "jsonpatch.mjs", inputs) {
		c := cases[i]
		doc, _ := json.Marshal(c.Doc)
		patch, _ := json.Marshal(c.Patch)
		got, err := ApplyPatch(doc, patch)
		var pe *PatchError
		errors.As(err, &pe)
		name := ""
		if pe != nil {
			name = pe.Name
		}
		var problem string
		switch {
		case !want.OK:
			failed++
			if err == nil || name == patchNoDocument || name == patchDataClone || name == patchCycle {
				problem = fmt.Sprintf("reference fails (%s), got %s, %v", want.Name, got, err)
			}
		case want.Undefined:
			if name != patchNoDocument {
				problem = fmt.Sprintf("reference leaves no document, got %s, %v", got, err)
			}
		case want.Clone != nil:
			if name != patchDataClone {
				problem = fmt.Sprintf("reference holds a function, got %s, %v", got, err)
			}
		case want.Cycle:
			if name != patchCycle {
				problem = fmt.Sprintf("reference makes a cycle, got %s, %v", got, err)
			}
		default:
			applied++
			if err != nil || !bytes.Equal(got, want.Result) {
				problem = fmt.Sprintf("reference gives %s, got %s, %v", want.Result, got, err)
			}
		}
		if problem != "" {
			t.Errorf("case %d: doc %s patch %s: %s", i, doc, patch, problem)
		}
	}
	t.Logf("%d patches: %d applied, %d failed in both", n, applied, failed)
	if applied < n/4 || failed < n/10 {
		t.Errorf("the generator reaches too few outcomes: %d applied, %d failed", applied, failed)
	}
}
