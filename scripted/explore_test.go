package scripted_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/internal/textgolden"
	"github.com/aguitest/aguitest/scripted"
)

// twoCalls is text and two parallel calls, then an answer with multi-byte
// text: every dimension of a plan matters to it.
func twoCalls() scripted.Script {
	return scripted.Script{Turns: []scripted.Turn{
		{Text: "Adding both.", Calls: []scripted.Call{
			{Name: "add_task", Args: `{"title":"Spec \"v2\""}`},
			{Name: "add_task", Args: `{"title":"Release"}`},
		}},
		{Text: "Added both: ça marche."},
	}}
}

// checkVariants checks what every exploration must give: variants valid
// on the wires, each streaming otherwise than s and every other, the
// content of s kept, and each written in the script file format read back
// as the same stream.
func checkVariants(t *testing.T, s scripted.Script, wires []scripted.Wire, vs []scripted.Variant) {
	t.Helper()
	seen := map[string]string{s.Key(wires): "the script"}
	for _, v := range vs {
		require.NoError(t, v.Script.Validate(), v.String())
		for _, w := range wires {
			require.NoError(t, v.Script.ValidateWire(w, true), "%s on %s", v, w)
		}
		k := v.Script.Key(wires)
		if prev, ok := seen[k]; ok {
			t.Errorf("%s streams as %s does", v, prev)
		}
		seen[k] = v.String()
		require.Len(t, v.Script.Turns, len(s.Turns), v.String())
		for i, turn := range v.Script.Turns {
			assert.Equal(t, s.Turns[i].Text, turn.Text, "%s: turn %d", v, i+1)
			require.Len(t, turn.Calls, len(s.Turns[i].Calls), "%s: turn %d", v, i+1)
			for n, c := range turn.Calls {
				assert.Equal(t, s.Turns[i].Calls[n].Name, c.Name, "%s: turn %d call %d", v, i+1, n+1)
				assert.Equal(t, s.Turns[i].Calls[n].Args, c.Args, "%s: turn %d call %d", v, i+1, n+1)
			}
		}
		back, err := scripted.Parse("variant.yaml", []byte(v.Script.YAML()))
		require.NoError(t, err, "%s:\n%s", v, v.Script.YAML())
		assert.Equal(t, k, back.Key(wires), "%s read back from:\n%s", v, v.Script.YAML())
		tidy := v.Script.Tidy(wires)
		assert.Equal(t, k, tidy.Key(wires), "%s tidied:\n%s", v, tidy.GoString())
	}
}

// TestExplore: the variants of a script on each wire, and the same seed
// gives the same variants.
func TestExplore(t *testing.T) {
	s := twoCalls()
	for _, wires := range [][]scripted.Wire{nil, {scripted.WireChat}, {scripted.WireResponses}, {scripted.WireAnthropic}, {scripted.WireGemini}, {scripted.WireChat, scripted.WireAnthropic}} {
		t.Run(fmtWires(wires), func(t *testing.T) {
			vs := scripted.Explore(s, wires, 1, 150)
			require.NotEmpty(t, vs)
			assert.LessOrEqual(t, len(vs), 150)
			checkVariants(t, s, wires, vs)
		})
	}
	names := func(seed uint64) []string {
		var out []string
		for _, v := range scripted.Explore(s, nil, seed, 60) {
			out = append(out, v.String())
		}
		return out
	}
	assert.Equal(t, names(7), names(7))
	assert.NotEqual(t, names(7), names(8))
}

// fmtWires names wires for a subtest ("go-native" for none).
func fmtWires(wires []scripted.Wire) string {
	if len(wires) == 0 {
		return "go-native"
	}
	var out []string
	for _, w := range wires {
		out = append(out, string(w))
	}
	return strings.Join(out, "+")
}

// TestExploreSameEverywhere: the plans of seed 1, as names, in
// testdata/explore/seed-1.golden, so that a change to what an exploration
// runs, or a machine that draws otherwise, shows as a diff. "go test
// -update" rewrites it.
func TestExploreSameEverywhere(t *testing.T) {
	var b strings.Builder
	for _, v := range scripted.Explore(twoCalls(), nil, 1, 100) {
		b.WriteString(v.String() + "\n")
	}
	textgolden.Check(t, "testdata/explore", "seed-1", []byte(b.String()))
}

// TestExploreMatrixHasTheBugShapes: the matrix holds the stream shapes of
// the known integration bugs, for a script with two calls.
func TestExploreMatrixHasTheBugShapes(t *testing.T) {
	var all []string
	for _, v := range scripted.Explore(twoCalls(), nil, 1, 1000) {
		if strings.HasPrefix(v.Name, "matrix") {
			all = append(all, v.String())
		}
	}
	joined := strings.Join(all, "\n")
	for _, shape := range []string{
		"+with-name",     // a call's name and full arguments in one chunk (ag-ui #2463)
		"text-between",   // text between call fragments
		"round-robin",    // interleaved calls (ag-ui #1016)
		"order=reverse",  // calls in reverse
		"order=shuffle",  // seeded shuffles
		"ids=no-index",   // no index on the deltas
		"ids=every",      // the id on every delta
		"split=bytes/1",  // one byte
		"split=words/1",  // one word
		"+escapes",       // cuts inside JSON escapes
		"+midrune",       // cuts inside a character
		"+empty/",        // empty deltas
		"split=whole",    // each stream whole
		"order=schedule", // a schedule that starts every call first
	} {
		assert.Contains(t, joined, shape)
	}
	// A call with no arguments, sent no argument delta (ag-ui #2463's
	// other face), for a script that has one.
	s := scripted.Script{Turns: []scripted.Turn{{Calls: []scripted.Call{{Name: "get_location"}}}}}
	var shapes []string
	for _, v := range scripted.Explore(s, nil, 1, 1000) {
		shapes = append(shapes, v.String())
	}
	assert.Contains(t, strings.Join(shapes, "\n"), "+no-args")
	checkVariants(t, s, nil, scripted.Explore(s, nil, 1, 1000))
}

// TestSimplify: every simplification of a variant is a valid script with
// the content of the variant (or one call fewer, and then Own has it too),
// and following the first step each time ends.
func TestSimplify(t *testing.T) {
	own := twoCalls()
	for _, v := range scripted.Explore(own, nil, 1, 40) {
		cur, curOwn := v.Script, own
		for step := 0; ; step++ {
			require.Less(t, step, 200, "%s: shrinking does not end", v)
			steps := scripted.Simplify(cur, curOwn)
			var next *scripted.Simplification
			for i := range steps {
				st := &steps[i]
				require.NoError(t, st.Script.Validate(), "%s: %s", v, st.What)
				require.NoError(t, st.Own.Validate(), "%s: %s", v, st.What)
				assert.Equal(t, st.DropsCall, st.Own.Key(nil) != curOwn.Key(nil), "%s: %s", v, st.What)
				if st.Rewrites {
					assert.Equal(t, cur.Key(nil), st.Script.Key(nil), "%s: %s rewrites, yet streams otherwise", v, st.What)
				} else if next == nil && st.Script.Key(nil) != cur.Key(nil) {
					next = st
				}
			}
			if next == nil {
				break
			}
			cur, curOwn = next.Script, next.Own
		}
	}
}

// FuzzExplore: for any text and call arguments, every variant is valid,
// keeps the content, differs from the others, and reads back from the
// script file format as the same stream; simplifying a variant gives
// valid scripts.
func FuzzExplore(f *testing.F) {
	f.Add(uint64(1), "Adding both.", `{"title":"Spec \"v2\""}`, `{"title":"Release"}`, true)
	f.Add(uint64(9), "ça — \u2028 ok", `{"a":"\u00e9\\n"}`, ``, false)
	f.Add(uint64(3), "", `[1,2,`, `{}`, true)
	f.Fuzz(func(t *testing.T, seed uint64, text, args1, args2 string, wire bool) {
		s := scripted.Script{Turns: []scripted.Turn{
			{Text: text, Calls: []scripted.Call{{Name: "a", Args: args1, Raw: true}, {Name: "b", Args: args2, Raw: true}}},
			{Text: text},
		}}
		if s.Validate() != nil {
			return
		}
		var wires []scripted.Wire
		if wire {
			wires = []scripted.Wire{scripted.WireChat}
			if s.ValidateWire(scripted.WireChat, true) != nil {
				return
			}
		}
		vs := scripted.Explore(s, wires, seed, 30)
		checkVariants(t, s, wires, vs)
		for _, v := range vs[:min(len(vs), 3)] {
			for _, st := range scripted.Simplify(v.Script, s) {
				if err := st.Script.Validate(); err != nil {
					t.Fatalf("%s: %s: %v", v, st.What, err)
				}
			}
		}
	})
}
