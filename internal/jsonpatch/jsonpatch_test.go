package jsonpatch

import (
	"errors"
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	tests := []struct {
		name, doc, patch string
		want             string // "" when the patch does not apply
		errName          string
	}{
		{name: "add member", doc: `{"a":1}`, patch: `[{"op":"add","path":"/b","value":[1]}]`, want: `{"a":1,"b":[1]}`},
		{name: "add to end", doc: `{"a":[1]}`, patch: `[{"op":"add","path":"/a/-","value":2}]`, want: `{"a":[1,2]}`},
		{name: "add past end", doc: `{"a":[1]}`, patch: `[{"op":"add","path":"/a/2","value":2}]`, errName: OutOfBounds},
		{name: "index with leading zero", doc: `{"a":[1,2,3]}`, patch: `[{"op":"add","path":"/a/01","value":9}]`, want: `{"a":[1,9,2,3]}`},
		{name: "empty token is index 0", doc: `{"a":[1,2]}`, patch: `[{"op":"add","path":"/a/","value":0}]`, want: `{"a":[0,1,2]}`},
		{name: "32-bit wrap", doc: `{"a":[1,2]}`, patch: `[{"op":"add","path":"/a/4294967297","value":0}]`, want: `{"a":[1,0,2]}`},
		{name: "remove missing", doc: `{"a":1}`, patch: `[{"op":"remove","path":"/b"}]`, errName: Unresolvable},
		{name: "replace deep missing", doc: `{"a":{}}`, patch: `[{"op":"replace","path":"/a/b/c","value":1}]`, errName: Unresolvable},
		{name: "add under missing parent", doc: `{}`, patch: `[{"op":"add","path":"/a/b","value":1}]`, errName: CannotAdd},
		{name: "whole patch fails", doc: `{"a":1}`, patch: `[{"op":"add","path":"/b","value":2},{"op":"test","path":"/a","value":2}]`, errName: TestFailed},
		{name: "test deep equal", doc: `{"a":{"x":[1,{"y":null}]}}`, patch: `[{"op":"test","path":"/a","value":{"x":[1,{"y":null}]}}]`, want: `{"a":{"x":[1,{"y":null}]}}`},
		{name: "test own hasOwnProperty throws", doc: `{"a":{"hasOwnProperty":1}}`, patch: `[{"op":"test","path":"/a","value":{"hasOwnProperty":1}}]`, errName: TypeError},
		{name: "move", doc: `{"a":[1,2,3]}`, patch: `[{"op":"move","from":"/a/0","path":"/a/7"}]`, want: `{"a":[2,3,1]}`},
		{name: "move from missing", doc: `{"a":1}`, patch: `[{"op":"move","from":"/b","path":"/c"}]`, errName: FromUnresolved},
		{name: "move into itself", doc: `{"a":{"b":1}}`, patch: `[{"op":"move","from":"/a","path":"/a/c"}]`, errName: TypeError},
		{name: "copy is a copy", doc: `{"a":{"b":1}}`, patch: `[{"op":"copy","from":"/a","path":"/c"},{"op":"replace","path":"/c/b","value":2}]`, want: `{"a":{"b":1},"c":{"b":2}}`},
		{name: "replace root", doc: `{"a":1}`, patch: `[{"op":"replace","path":"","value":[1]}]`, want: `[1]`},
		{name: "remove root", doc: `{"a":1}`, patch: `[{"op":"remove","path":""}]`, want: `null`},
		{name: "move missing to root", doc: `{"a":1}`, patch: `[{"op":"move","from":"/b","path":""}]`, errName: NoDocument},
		{name: "inherited name present", doc: `{}`, patch: `[{"op":"replace","path":"/toString","value":1}]`, want: `{"toString":1}`},
		{name: "copy of an inherited method", doc: `{}`, patch: `[{"op":"copy","from":"/toString","path":"/f"}]`, errName: DataClone},
		{name: "__proto__ banned", doc: `{}`, patch: `[{"op":"add","path":"/__proto__","value":1}]`, errName: TypeError},
		{name: "primitive root", doc: `5`, patch: `[{"op":"add","path":"/a","value":1}]`, want: `5`},
		{name: "string length", doc: `"abc"`, patch: `[{"op":"test","path":"/length","value":3}]`, want: `"abc"`},
		{name: "null root", doc: `null`, patch: `[{"op":"add","path":"/a","value":1}]`, errName: TypeError},
		{name: "integer keys first", doc: `{"b":1}`, patch: `[{"op":"add","path":"/2","value":2},{"op":"add","path":"/1","value":1}]`, want: `{"1":1,"2":2,"b":1}`},
		{name: "not an array", doc: `{}`, patch: `{"op":"add"}`, errName: NotArray},
		{name: "unknown op", doc: `{}`, patch: `[{"op":"merge","path":"/a","value":1}]`, errName: OpInvalid},
		{name: "not a pointer", doc: `{}`, patch: `[{"op":"add","path":"a","value":1}]`, errName: PathInvalid},
		{name: "value required", doc: `{}`, patch: `[{"op":"add","path":"/a"}]`, errName: ValueRequired},
		{name: "escapes", doc: `{"a/b":{"~":1}}`, patch: `[{"op":"replace","path":"/a~1b/~0","value":2}]`, want: `{"a/b":{"~":2}}`},
		{name: "lone surrogate kept", doc: `{}`, patch: `[{"op":"add","path":"/s","value":"\ud83d"}]`, want: `{"s":"\ud83d"}`},
		{name: "copies past the bound", doc: `{"a":[0,0,0,0,0,0,0,0]}`, patch: `[` + strings.Repeat(`{"op":"copy","from":"/a","path":"/a/0"},`, 30) + `{"op":"test","path":"","value":1}]`, errName: TooLarge},
		{name: "infinity is null after a clone", doc: `{"n":1e400}`, patch: `[]`, want: `{"n":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Apply([]byte(tt.doc), []byte(tt.patch))
			if tt.errName != "" {
				var pe *Error
				if !errors.As(err, &pe) || pe.Name != tt.errName {
					t.Fatalf("Apply = %s, %v; want a %s error", got, err, tt.errName)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("Apply = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestApplyBadJSON(t *testing.T) {
	if _, err := Apply([]byte(`{`), []byte(`[]`)); err == nil || !strings.HasPrefix(err.Error(), "document:") {
		t.Errorf("bad document: got %v, want an error naming the document", err)
	}
	if _, err := Apply([]byte(`{}`), []byte(`[`)); err == nil || !strings.HasPrefix(err.Error(), "patch:") {
		t.Errorf("bad patch: got %v, want an error naming the patch", err)
	}
}
