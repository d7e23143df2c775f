package sdktest_test

import (
	"encoding/json"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"github.com/wI2L/jsondiff"
)

// TestJSONPatchNullPanics keeps a bug of github.com/evanphx/json-patch/v5
// v5.9.11: Equal, and a "test" operation, dereference nil on a null array
// element or a null document. StatePatch applies patches as the client
// does (jsonpatch.Apply), where the same test succeeds
// (agent's TestStatePatchNullElement). It lives in this module so that the
// library's go.mod does not require the library it keeps a bug of.
func TestJSONPatchNullPanics(t *testing.T) {
	panics := func(f func()) (p bool) {
		defer func() { p = recover() != nil }()
		f()
		return false
	}
	if !panics(func() { jsonpatch.Equal([]byte(`[null]`), []byte(`[null]`)) }) {
		t.Error("jsonpatch.Equal on [null] no longer panics")
	}
	p, err := jsonpatch.DecodePatch([]byte(`[{"op":"test","path":"/a","value":[null]}]`))
	require.NoError(t, err)
	if !panics(func() { _, _ = p.Apply([]byte(`{"a":[null]}`)) }) {
		t.Error("a test operation on [null] no longer panics")
	}
}

// TestJSONDiffFactorize keeps a bug of github.com/wI2L/jsondiff v0.7.1:
// with Factorize, a move or copy takes its "from" as it was before the
// removals earlier in the same patch, so the patch does not give the
// target. StateDelta does not use Factorize. When this test fails, the bug
// is fixed.
func TestJSONDiffFactorize(t *testing.T) {
	src := []byte(`{"doc":[["a",{"x":0,"z":[0,1,0,0]}],"c",1,{}]}`)
	dst := []byte(`{"doc":[["",["c"],2,1]]}`)
	for _, opts := range [][]jsondiff.Option{{jsondiff.Factorize()}, {jsondiff.LCS()}} {
		p, err := jsondiff.CompareJSON(src, dst, opts...)
		require.NoError(t, err)
		ops, _ := json.Marshal(p)
		pp, err := jsonpatch.DecodePatch(ops)
		require.NoError(t, err)
		out, err := pp.Apply(src)
		require.NoError(t, err)
		var g, w any
		_ = json.Unmarshal(out, &g)
		_ = json.Unmarshal(dst, &w)
		factorize := len(opts) == 1 && len(p) > 0 && strings.Contains(string(ops), `"move"`)
		if same := cmp.Diff(w, g) == ""; same == factorize {
			t.Errorf("patch %s gives %s (want %s); factorized: %v", ops, out, dst, factorize)
		}
	}
}
