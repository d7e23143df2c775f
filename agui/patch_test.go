package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/internal/jsonpatch"
	"github.com/aguitest/aguitest/internal/oracle"
)

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
// fast-json-patch (as the reference client calls it) and with jsonpatch.Apply:
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
		got, err := jsonpatch.Apply(doc, patch)
		var pe *jsonpatch.Error
		errors.As(err, &pe)
		name := ""
		if pe != nil {
			name = pe.Name
		}
		var problem string
		switch {
		case !want.OK:
			failed++
			if err == nil || name == jsonpatch.NoDocument || name == jsonpatch.DataClone || name == jsonpatch.Cycle {
				problem = fmt.Sprintf("reference fails (%s), got %s, %v", want.Name, got, err)
			}
		case want.Undefined:
			if name != jsonpatch.NoDocument {
				problem = fmt.Sprintf("reference leaves no document, got %s, %v", got, err)
			}
		case want.Clone != nil:
			if name != jsonpatch.DataClone {
				problem = fmt.Sprintf("reference holds a function, got %s, %v", got, err)
			}
		case want.Cycle:
			if name != jsonpatch.Cycle {
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
