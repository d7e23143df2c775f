package golden

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMarshal(t *testing.T) {
	tests := []struct {
		name    string
		entries []Entry
		want    string
	}{
		{"empty", nil, ""},
		{"known keys in order, then the rest sorted", []Entry{{
			"zz": 1, "args": map[string]any{"b": 1, "a": []any{true, nil}}, "toolCallName": "f",
			"aa": "x", "parentMessageId": "msg-1", "toolCallId": "call-2", "type": "TOOL_CALL",
		}}, `{"type":"TOOL_CALL","toolCallId":"call-2","toolCallName":"f","parentMessageId":"msg-1","args":{"a":[true,null],"b":1},"aa":"x","zz":1}` + "\n"},
		{"no HTML escaping, unicode kept", []Entry{{"type": "T", "text": "<a href=\"x\">&é</a>\n"}},
			`{"type":"T","text":"<a href=\"x\">&é</a>\n"}` + "\n"},
		{"numbers as written", []Entry{{"type": "T", "n": json.Number("1.50e+3"), "f": 0.25, "i": 3}},
			`{"type":"T","f":0.25,"i":3,"n":1.50e+3}` + "\n"},
		{"other Go values through encoding/json", []Entry{{"type": "T", "s": struct {
			B int `json:"b"`
			A int `json:"a"`
		}{1, 2}}}, `{"type":"T","s":{"a":2,"b":1}}` + "\n"},
		{"one line per entry", []Entry{{"type": "A"}, {"type": "B"}}, "{\"type\":\"A\"}\n{\"type\":\"B\"}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(Marshal(tt.entries)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     []Entry
		wantLine int // 0: no error
	}{
		{"empty", "", nil, 0},
		{"lines, CRLF and blank lines", "{\"type\":\"A\",\"n\":1.0}\r\n\n  \n{\"type\":\"B\",\"x\":{\"y\":[1]}}", []Entry{
			{"type": "A", "n": json.Number("1.0")},
			{"type": "B", "x": map[string]any{"y": []any{json.Number("1")}}},
		}, 0},
		{"bad JSON names its line", "{\"type\":\"A\"}\n\n{\"type\":", []Entry{{"type": "A"}}, 3},
		{"not an object", "[1]", nil, 1},
		{"no type", "{\"type\":\"A\"}\n{\"typ\":\"B\"}\n", []Entry{{"type": "A"}}, 2},
		{"type not a string", "{\"type\":1}", nil, 1},
		{"two values on a line", "{\"type\":\"A\"} {\"type\":\"B\"}", nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			var pe *ParseError
			switch {
			case tt.wantLine == 0 && err != nil:
				t.Fatalf("Parse: %v", err)
			case tt.wantLine != 0 && !errors.As(err, &pe):
				t.Fatalf("Parse: got error %v, want a *ParseError", err)
			case tt.wantLine != 0 && pe.Line != tt.wantLine:
				t.Errorf("Parse: error on line %d, want line %d (%v)", pe.Line, tt.wantLine, err)
			case tt.wantLine != 0 && !strings.HasPrefix(err.Error(), "line "):
				t.Errorf("Parse: error %q does not start with the line", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse entries (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	text := `{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-2"}
{"type":"TOOL_CALL","toolCallId":"call-3","toolCallName":"f","parentMessageId":"msg-4","args":{"a":[1,2.0,-3e2],"b":"<&>"},"extra":null}
`
	entries, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(Marshal(entries)); got != text {
		t.Errorf("Marshal(Parse(text)):\n%s\nwant:\n%s", got, text)
	}
}
