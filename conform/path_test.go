package conform_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/harness"
)

// Paths name values in both syntaxes, JSON Pointer and dotted.
func TestPaths(t *testing.T) {
	state := json.RawMessage(`{"a/b":{"~x":[10,{"k v":"deep"}]},"list":[[1,2],[3]],"s":"x"}`)
	tests := []struct {
		path string
		want any
	}{
		{"/a~1b/~0x/0", 10},
		{"/a~1b/~0x/1/k v", "deep"},
		{"$['a/b']['~x'][1]['k v']", "deep"},
		{`$["a/b"]["~x"][0]`, 10},
		{"list[0][1]", 2},
		{"$.list[1]", []int{3}},
		{"/list/1/0", 3},
		{"s", "x"},
		{"", map[string]any{"s": "x", "list": []any{[]any{1, 2}, []any{3}}, "a/b": map[string]any{"~x": []any{10, map[string]any{"k v": "deep"}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			rt := &recordT{}
			conform.Expect{State: []conform.PathValue{{Path: tt.path, Value: conform.Equal(tt.want)}}}.Check(rt, &harness.Result{State: state})
			assert.Empty(t, rt.errors)
		})
	}
	for _, missing := range []string{"/nope", "/list/5", "/s/0", "list.x", "/list/-1"} {
		rt := &recordT{}
		conform.Expect{State: []conform.PathValue{{Path: missing, Value: conform.Equal(1)}}}.Check(rt, &harness.Result{State: state})
		assert.Len(t, rt.errors, 1, missing)
	}
}
