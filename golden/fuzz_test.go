package golden

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzParse checks that Parse never panics, and that what it accepts is
// written back by Marshal as text that parses to the same entries and is
// written again identically.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"",
		"{\"type\":\"A\"}\n",
		"{\"type\":\"TOOL_CALL\",\"toolCallId\":\"call-1\",\"args\":{\"a\":[1,2.50,-3e+2,null,true]},\"z\":\"<&>\\u2028\"}\r\n\n",
		"{\"type\":\"A\"} x\n",
		"[1]\n{\"type\":1}\n",
		"{\"type\":\"A\",\"type\":\"B\",\"\\ud800\":\"\\udc00\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := Parse(data)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("Parse error %T is not a *ParseError: %v", err, err)
			}
			return
		}
		text := Marshal(entries)
		again, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(Marshal(entries)): %v\n%s", err, text)
		}
		// reflect, not go-cmp: go-cmp is exponential in array nesting.
		if !reflect.DeepEqual(entries, again) {
			t.Fatalf("entries changed through Marshal:\n%s\n%s", data, text)
		}
		if len(entries) > 0 && len(Compare(entries, again)) != 0 {
			t.Fatalf("Compare finds differences between equal entries")
		}
		if d := Compare(entries, nil); len(d) != len(entries) || (len(d) > 0 && d[0].Diff == "") {
			t.Fatalf("Compare with nothing: %d differences for %d entries", len(d), len(entries))
		}
		if text2 := Marshal(again); !bytes.Equal(text, text2) {
			t.Fatalf("Marshal is not stable:\n%s\n%s", text, text2)
		}
		if n := bytes.Count(text, []byte("\n")); n != len(entries) {
			t.Fatalf("%d lines for %d entries", n, len(entries))
		}
	})
}

// FuzzCompare checks that Compare and Report never panic on any two golden
// texts, that every difference shows the lines of its entries, and that
// differing texts give at least one difference.
func FuzzCompare(f *testing.F) {
	f.Add([]byte("{\"type\":\"A\",\"x\":1}\n"), []byte("{\"type\":\"A\",\"x\":2}\n{\"type\":\"B\"}\n"))
	f.Add([]byte("{\"type\":\"T\",\"toolCallId\":\"call-1\",\"args\":{\"a\":[1,{\"b\":null}]}}\n"), []byte("{\"type\":\"T\",\"toolCallId\":\"call-2\",\"args\":{\"a\":[1]}}\n"))
	f.Add([]byte("{\"type\":\"A\",\"k y\":\"\\u00e9\"}\n"), []byte(""))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		want, err := Parse(a)
		if err != nil {
			return
		}
		got, err := Parse(b)
		if err != nil {
			return
		}
		diffs := Compare(want, got)
		for _, d := range diffs {
			if d.Want != nil && !bytes.HasPrefix([]byte(d.Diff), []byte("- ")) {
				t.Fatalf("difference without its want line: %q", d.Diff)
			}
			if d.Got != nil && !bytes.Contains([]byte(d.Diff), []byte("+ ")) {
				t.Fatalf("difference without its got line: %q", d.Diff)
			}
		}
		_ = Report(diffs)
		if len(diffs) == 0 && len(want) != len(got) {
			t.Fatalf("%d and %d entries compare equal", len(want), len(got))
		}
	})
}
