package jsvalue

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestObjectAsAMap holds Object, whose keys are searched while it is small
// and indexed past smallObject, to a map with an insertion order: the same
// values, keys in the same order, after any sequence of sets and deletes.
func TestObjectAsAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		o := NewObject()
		vals := map[string]any{}
		var order []string
		for step := range 200 {
			k := "k" + strconv.Itoa(r.IntN(3+round%20))
			if r.IntN(4) == 0 {
				o.Del(k)
				if _, ok := vals[k]; ok {
					delete(vals, k)
					order = slices.DeleteFunc(order, func(x string) bool { return x == k })
				}
			} else {
				v := float64(step)
				o.Set(k, v)
				if _, ok := vals[k]; !ok {
					order = append(order, k)
				}
				vals[k] = v
			}
			if o.Len() != len(order) || !slices.Equal(o.Keys(), order) {
				t.Fatalf("round %d step %d: keys %v, want %v", round, step, o.Keys(), order)
			}
			for i := range 25 {
				k := "k" + strconv.Itoa(i)
				want, has := vals[k]
				got, ok := o.Own(k)
				if ok != has || got != want {
					t.Fatalf("round %d step %d: Own(%s) = %v, %v; want %v, %v", round, step, k, got, ok, want, has)
				}
				if !has && o.Get(k) != Undef {
					t.Fatalf("Get(%s) of a missing key = %v", k, o.Get(k))
				}
			}
		}
		c, err := StructuredClone(o)
		if err != nil || !SameJSON(c, o) {
			t.Fatalf("round %d: clone %s of %s (%v)", round, Stringify(c), Stringify(o), err)
		}
		if s := o.Spread(); !SameJSON(s, o) || !slices.Equal(s.Keys(), o.Keys()) {
			t.Fatalf("round %d: spread %s of %s", round, Stringify(s), Stringify(o))
		}
		// A clone is indexed as its source is: a set on it finds its keys.
		if cl := c.(*Object); cl.Len() > 0 {
			k := cl.Keys()[0]
			cl.Set(k, "x")
			if cl.Get(k) != "x" || cl.Len() != o.Len() {
				t.Fatalf("round %d: a set on the clone of %s added a key: %s", round, Stringify(o), Stringify(cl))
			}
		}
	}
}

// Array-index keys come first, ascending, as JavaScript orders them.
func TestObjectKeysOrder(t *testing.T) {
	v, err := Parse([]byte(`{"b":1,"2":2,"a":3,"10":4,"1":5}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.(*Object).Keys(), []string{"1", "2", "10", "b", "a"}; !slices.Equal(got, want) {
		t.Errorf("keys %v, want %v", got, want)
	}
	if got := string(Stringify(v)); got != `{"1":5,"2":2,"10":4,"b":1,"a":3}` {
		t.Errorf("JSON.stringify: %s", got)
	}
}
