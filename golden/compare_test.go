package golden

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parse(t *testing.T, text string) []Entry {
	t.Helper()
	entries, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// summary is a difference without its go-cmp text, which is not stable.
type summary struct {
	Index, WantIndex int
	Want, Got        bool
	IDs              string
}

func TestCompare(t *testing.T) {
	base := `{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-2"}
{"type":"TEXT_MESSAGE","messageId":"msg-3","role":"assistant","text":"hi"}
{"type":"TOOL_CALL","toolCallId":"call-4","toolCallName":"f","parentMessageId":"msg-3","args":{"a":1}}
{"type":"TOOL_CALL_RESULT","messageId":"msg-5","toolCallId":"call-4","content":"ok"}
{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-2"}
`
	tests := []struct {
		name string
		got  string
		want []summary
	}{
		{"equal", base, nil},
		{"a changed field", strings.Replace(base, `"a":1`, `"a":2`, 1), []summary{{2, 2, true, true, "call-4 msg-3"}}},
		{"a missing entry", strings.Replace(base, `{"type":"TEXT_MESSAGE","messageId":"msg-3","role":"assistant","text":"hi"}`+"\n", "", 1),
			[]summary{{1, 1, true, false, "msg-3"}}},
		{"an inserted entry that renumbers every later id", `{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-2"}
{"type":"TEXT_MESSAGE","messageId":"msg-3","role":"assistant","text":"thinking"}
{"type":"TEXT_MESSAGE","messageId":"msg-4","role":"assistant","text":"hi"}
{"type":"TOOL_CALL","toolCallId":"call-5","toolCallName":"f","parentMessageId":"msg-4","args":{"a":1}}
{"type":"TOOL_CALL_RESULT","messageId":"msg-6","toolCallId":"call-5","content":"ok"}
{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-2"}
`, []summary{{1, -1, false, true, "msg-3"}}},
		{"an identity change still shows", `{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-2"}
{"type":"TEXT_MESSAGE","messageId":"msg-3","role":"assistant","text":"hi"}
{"type":"TOOL_CALL","toolCallId":"call-4","toolCallName":"f","parentMessageId":"msg-3","args":{"a":1}}
{"type":"TOOL_CALL_RESULT","messageId":"msg-5","toolCallId":"call-6","content":"ok"}
{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-2"}
`, []summary{{3, 3, true, true, "call-6 msg-5"}}},
	}
	want := parse(t, base)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []summary
			diffs := Compare(want, parse(t, tt.got))
			for _, d := range diffs {
				got = append(got, summary{d.Index, d.WantIndex, d.Want != nil, d.Got != nil, strings.Join(d.IDs, " ")})
				if d.Diff == "" {
					t.Errorf("difference at %d has no diff", d.Index)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d differences %+v, want %+v\n%s", len(got), got, tt.want, Report(diffs))
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("difference %d: got %+v, want %+v\n%s", i, got[i], tt.want[i], Report(diffs))
				}
			}
		})
	}
}

func TestReport(t *testing.T) {
	want := parse(t, `{"type":"A","toolCallId":"call-1","x":1,"gone":[1,2],"deep":{"k":"v","list":[1]}}
{"type":"B"}
`)
	got := parse(t, `{"type":"C"}
{"type":"A","toolCallId":"call-1","x":2,"new":"here","deep":{"k":"w","list":[1,{"a b":null}]}}
`)
	// Numbered from 1, in JSON and plain words; no Go syntax.
	assert.Equal(t, `event 1 (C) unexpected: (-want +got)
	+ {"type":"C"}
event 2 (A call-1), event 1 in want: (-want +got)
	- {"type":"A","toolCallId":"call-1","deep":{"k":"v","list":[1]},"gone":[1,2],"x":1}
	+ {"type":"A","toolCallId":"call-1","deep":{"k":"w","list":[1,{"a b":null}]},"new":"here","x":2}
	  .deep.k: got "w", want "v"
	  .deep.list[1]: got {"a b":null}, want none
	  .gone: got none, want [1,2]
	  .new: got "here", want none
	  .x: got 2, want 1
event 2 in want (B) missing before event 3: (-want +got)
	- {"type":"B"}
`, Report(Compare(want, got)))
}

// TestReportLimits: long values are clipped and long lists of values cut,
// saying so.
func TestReportLimits(t *testing.T) {
	long := strings.Repeat("é", 150)
	var w, g strings.Builder
	w.WriteString(`{"type":"A","a":"` + long + `"`)
	g.WriteString(`{"type":"A","a":"` + long + `!"`)
	for i := range 30 {
		fmt.Fprintf(&w, `,"k%02d":%d`, i, i)
		fmt.Fprintf(&g, `,"k%02d":%d`, i, -i-1)
	}
	diffs := Compare(parse(t, w.String()+"}\n"), parse(t, g.String()+"}\n"))
	require.Len(t, diffs, 1)
	report := diffs[0].String()
	assert.Contains(t, report, "\n\t  .a: got \""+strings.Repeat("é", 99)+"… (303 bytes), want \""+strings.Repeat("é", 99)+"… (302 bytes)\n")
	assert.Contains(t, report, "\n\t  .k00: got -1, want 0\n")
	assert.Contains(t, report, "\n\t  .k18: got -19, want 18\n\t  ... and 11 more\n")
	assert.NotContains(t, report, ".k19")
	assert.True(t, utf8.ValidString(report))
}

func TestCompareLargeFallsBackToIndexes(t *testing.T) {
	var a, b []Entry
	for i := range 3000 {
		a = append(a, Entry{"type": "A", "i": i})
		b = append(b, Entry{"type": "B", "i": i})
	}
	diffs := Compare(a, b)
	if len(diffs) != 3000 {
		t.Fatalf("got %d differences, want 3000", len(diffs))
	}
	for i, d := range diffs {
		if d.Index != i || d.WantIndex != i || d.Want == nil || d.Got == nil {
			t.Fatalf("difference %d: index %d, want index %d, want %v, got %v", i, d.Index, d.WantIndex, d.Want, d.Got)
		}
	}
}

// TestCompareDeep checks that entries nested deep are compared quickly and
// their difference found.
func TestCompareDeep(t *testing.T) {
	nest := func(leaf string) string {
		return `{"type":"A","x":` + strings.Repeat("[", 5000) + leaf + strings.Repeat("]", 5000) + "}\n"
	}
	diffs := Compare(parse(t, nest("1")), parse(t, nest("2")))
	require.Len(t, diffs, 1)
	assert.True(t, strings.HasPrefix(diffs[0].Diff, "- {"), "%.200s", diffs[0].Diff)
	assert.Contains(t, diffs[0].Diff, "\n+ {")
	assert.Regexp(t, `\n  \.x\[0\][][0]{90,110}…[][0]{90,110}: got 2, want 1\n$`, diffs[0].Diff)
	if diffs := Compare(parse(t, nest("1")), parse(t, nest("1"))); len(diffs) != 0 {
		t.Errorf("equal deep entries differ: %.200v", diffs)
	}
}
