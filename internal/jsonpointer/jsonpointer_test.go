package jsonpointer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEscapeUnescape(t *testing.T) {
	for _, tc := range []struct{ name, key, token string }{
		{"plain", "city", "city"},
		{"empty", "", ""},
		{"slash", "a/b", "a~1b"},
		{"tilde", "a~b", "a~0b"},
		{"tilde then one", "~1", "~01"},
		{"both", "/~", "~1~0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Escape(tc.key); got != tc.token {
				t.Errorf("Escape(%q): got %q, want %q", tc.key, got, tc.token)
			}
			if got := Unescape(tc.token); got != tc.key {
				t.Errorf("Unescape(%q): got %q, want %q", tc.token, got, tc.key)
			}
		})
	}
}

func TestUnescapeLeavesOtherTildes(t *testing.T) {
	for _, tok := range []string{"~", "a~2", "~~"} {
		if got := Unescape(tok); got != tok {
			t.Errorf("Unescape(%q): got %q, want it unchanged", tok, got)
		}
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name, pointer string
		want          []string
	}{
		{"root key", "/", []string{""}},
		{"path", "/a/0/b", []string{"a", "0", "b"}},
		{"escapes", "/a~1b/~0k", []string{"a/b", "~k"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Split(tc.pointer)); diff != "" {
				t.Errorf("Split(%q) (-want +got):\n%s", tc.pointer, diff)
			}
		})
	}
}

// FuzzEscape checks that Unescape undoes Escape and that Escape's result
// has no "/" (so a token never splits) and matches the one-pass replacer.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "a", "~", "/", "~1", "~0/", "a/b~c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if strings.Contains(e, "/") {
			t.Fatalf("Escape(%q) = %q holds a /", s, e)
		}
		if got := Unescape(e); got != s {
			t.Fatalf("Unescape(Escape(%q)): got %q", s, got)
		}
		if want := strings.NewReplacer("~1", "/", "~0", "~").Replace(s); Unescape(s) != want {
			t.Fatalf("Unescape(%q): got %q, want %q", s, Unescape(s), want)
		}
	})
}

func TestAppendEscaped(t *testing.T) {
	for _, key := range []string{"", "city", "a/b", "a~b", "~1", "/~", "é/~x"} {
		if got, want := string(AppendEscaped([]byte("/p/"), key)), "/p/"+Escape(key); got != want {
			t.Errorf("AppendEscaped(%q): got %q, want %q", key, got, want)
		}
	}
}
