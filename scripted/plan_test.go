package scripted

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestSplitCut(t *testing.T) {
	tests := []struct {
		name  string
		split Split
		seed  uint64
		in    string
		want  []string
	}{
		{name: "empty", in: "", want: nil},
		{name: "default 8 bytes", in: "abcdefghijklmnopq", want: []string{"abcdefgh", "ijklmnop", "q"}},
		{name: "bytes never mid-rune", split: Split{Size: 2}, in: "aé€b", want: []string{"aé", "€", "b"}},
		{name: "bytes mid-rune", split: Split{Size: 2, MidRune: true}, in: "aé€", want: []string{"a\xc3", "\xa9\xe2", "\x82\xac"}},
		{name: "runes", split: Split{By: Runes, Size: 2}, in: "aé€b😀", want: []string{"aé", "€b", "😀"}},
		{name: "words", split: Split{By: Words}, in: "Hello, big  world!", want: []string{"Hello", ",", " big", "  ", "world", "!"}},
		{name: "two words", split: Split{By: Words, Size: 2}, in: "one two three", want: []string{"one two", " three"}},
		{name: "whole", split: Split{By: Whole}, in: "all of it", want: []string{"all of it"}},
		{name: "escapes", split: Split{By: Whole, Escapes: true}, in: `{"a":"x\"y\u00e9\\"}`, want: []string{`{"a":"x\`, `"y\`, `u00`, `e9\`, `\"}`}},
		{name: "empty deltas", split: Split{Size: 2, Empty: 1}, in: "abcd", want: []string{"ab", "", "cd", ""}},
		{name: "empty every 2", split: Split{Size: 1, Empty: 2}, in: "abc", want: []string{"a", "b", "", "c"}},
		{name: "random seeded", split: Split{By: Random, Min: 2, Size: 3}, seed: 1, in: "abcdefghij", want: []string{"abc", "def", "ghi", "j"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.split.Cut(tt.in, tt.seed)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("%s.Cut(%q, %d) (-want +got):\n%s", tt.split, tt.in, tt.seed, d)
			}
		})
	}
}

// FuzzCut checks that every split is a pure function that joins back to
// its input and keeps characters whole unless asked not to.
func FuzzCut(f *testing.F) {
	f.Add("Hello wörld 😀 {\"a\":\"\\u00e9\\\"\"}", uint64(1), uint8(0), uint8(3), uint8(1), true, false, uint8(0))
	f.Add("", uint64(0), uint8(3), uint8(0), uint8(0), false, true, uint8(1))
	f.Add("aé€b", uint64(9), uint8(4), uint8(5), uint8(2), true, true, uint8(2))
	units := []Unit{Bytes, Runes, Words, Random, Whole}
	f.Fuzz(func(t *testing.T, s string, seed uint64, unit, size, min uint8, escapes, midRune bool, empty uint8) {
		sp := Split{By: units[int(unit)%len(units)], Size: int(size % 17), Min: int(min % 17), Escapes: escapes, MidRune: midRune, Empty: int(empty % 4)}
		if sp.validate() != nil {
			return
		}
		got := sp.Cut(s, seed)
		if j := strings.Join(got, ""); j != s {
			t.Fatalf("%s seed %d: fragments %q join to %q, want %q", sp, seed, got, j, s)
		}
		if again := sp.Cut(s, seed); !cmp.Equal(got, again) {
			t.Fatalf("%s seed %d: not deterministic: %q then %q", sp, seed, got, again)
		}
		if !midRune && utf8.ValidString(s) {
			for _, f := range got {
				if !utf8.ValidString(f) {
					t.Fatalf("%s seed %d: fragment %q cuts a character", sp, seed, f)
				}
			}
		}
		for i, f := range got {
			if f == "" && (sp.Empty == 0 || i == 0) {
				t.Fatalf("%s seed %d: unexpected empty fragment %d in %q", sp, seed, i, got)
			}
		}
	})
}

// order returns which stream each delta of the turn belongs to: r, t, or
// the call id (upper case for the delta that opens the call).
func order(p Plan, turn Turn) string {
	p = p.over(Plan{})
	var b strings.Builder
	for _, c := range planChunks(&turn, 0, p, nil, false) {
		switch {
		case c.Reasoning != "":
			b.WriteString("r")
		case c.Call != nil && c.Call.Name != "":
			b.WriteString(strings.ToUpper(c.Call.ID))
		case c.Call != nil:
			if c.Call.ID != "" {
				b.WriteString(c.Call.ID)
			} else {
				fmt.Fprint(&b, c.Call.Index)
			}
		case c.Finish != "":
			b.WriteString(".")
		default:
			b.WriteString("t")
		}
	}
	return b.String()
}

func TestOrder(t *testing.T) {
	// Each call has a header delta and two argument deltas; text has two.
	turn := Turn{Text: "0123456789", Reasoning: "r", Calls: []Call{
		{ID: "a", Name: "x", Args: `[1,2,3,4]`},
		{ID: "b", Name: "y", Args: `[5,6,7,8]`},
		{ID: "c", Name: "z", Args: `[9,0,1,2]`},
	}}
	split := Split{Size: 5}
	tests := []struct {
		name string
		plan Plan
		want string
	}{
		{"sequential", Plan{}, "rttA00B11C22."},
		{"sequential 5", Plan{Split: split}, "rttA00B11C22."},
		{"round-robin", Plan{Split: split, Order: Order{By: RoundRobin}}, "rttABC012012."},
		{"reverse", Plan{Split: split, Order: Order{By: Reverse}}, "rttC22B11A00."},
		{"shuffle", Plan{Split: split, Order: Order{By: Shuffle}, Seed: 5}, "rttB1C2A0012."},
		{"schedule", Plan{Split: split, IDs: IDsEvery, Order: Order{By: Scheduled, Schedule: "b a text b c a reasoning c"}}, "BAtbCarctabc."},
		{"text after", Plan{Split: split, Order: Order{Text: TextAfter}}, "rA00B11C22tt."},
		{"text between", Plan{Split: split, Order: Order{Text: TextBetween}}, "rA00tB11tC22."},
		{"ids every", Plan{Split: split, IDs: IDsEvery}, "rttAaaBbbCcc."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := order(tt.plan, turn); got != tt.want {
				t.Errorf("plan %s: order %s, want %s", tt.plan, got, tt.want)
			}
		})
	}
}
