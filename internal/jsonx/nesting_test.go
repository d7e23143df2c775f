package jsonx_test

import (
	"testing"

	"github.com/aguitest/aguitest/internal/jsonx"
)

func TestNesting(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		deepest int
		open    bool
	}{
		{"scalar", `1`, 0, false},
		{"flat", `{"a":1}`, 1, false},
		{"nested", `[{"a":[1]},[]]`, 3, false},
		{"brackets in a string", `{"a":"[[{"}`, 1, false},
		{"escaped quote", `["\"]"]`, 1, false},
		{"cut inside a string", `{"a":"b`, 1, true},
		{"cut with a bracket open", `{"a":[1`, 2, true},
		{"more closed than opened", `]]`, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, open := jsonx.Nesting([]byte(tc.in))
			if d != tc.deepest || open != tc.open {
				t.Errorf("Nesting(%s): got (%d, %v), want (%d, %v)", tc.in, d, open, tc.deepest, tc.open)
			}
		})
	}
}
