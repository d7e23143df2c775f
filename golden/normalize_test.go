package golden

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agui"
)

// ev parses one event or fails the test.
func ev(t testing.TB, s string) agui.Event {
	t.Helper()
	e, err := agui.ParseEvent([]byte(s))
	if err != nil {
		t.Fatalf("ParseEvent(%s): %v", s, err)
	}
	return e
}

func evs(t testing.TB, lines ...string) []agui.Event {
	t.Helper()
	out := make([]agui.Event, len(lines))
	for i, l := range lines {
		out[i] = ev(t, l)
	}
	return out
}

func lines(entries []Entry) []string {
	return strings.Split(strings.TrimSuffix(string(Marshal(entries)), "\n"), "\n")
}

func checkLines(t *testing.T, got []Entry, want []string) {
	t.Helper()
	g := lines(got)
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
}

func TestNormalizeWire(t *testing.T) {
	tests := []struct {
		name string
		n    Normalizer
		in   []string
		want []string
	}{{
		name: "one counter for all kinds, by first appearance",
		in: []string{
			`{"type":"RUN_STARTED","runId":"R","threadId":"T","timestamp":17}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"M","role":"assistant","timestamp":18}`,
			`{"type":"TOOL_CALL_START","parentMessageId":"M","toolCallName":"f","toolCallId":"C"}`,
			`{"type":"TOOL_CALL_RESULT","messageId":"M2","toolCallId":"C","content":"ok"}`,
			`{"type":"RUN_FINISHED","threadId":"T","runId":"R"}`,
		},
		want: []string{
			`{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"msg-1","role":"assistant"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"call-1","toolCallName":"f","parentMessageId":"msg-1"}`,
			`{"type":"TOOL_CALL_RESULT","messageId":"msg-2","toolCallId":"call-1","content":"ok"}`,
			`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}`,
		},
	}, {
		name: "an id under two kinds keeps its first placeholder",
		in: []string{
			`{"type":"TEXT_MESSAGE_START","messageId":"same","role":"assistant"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"same","toolCallName":"f"}`,
		},
		want: []string{
			`{"type":"TEXT_MESSAGE_START","messageId":"msg-1","role":"assistant"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"msg-1","toolCallName":"f"}`,
		},
	}, {
		name: "ids inside the run input",
		in: []string{
			`{"type":"RUN_STARTED","threadId":"T","runId":"R","input":{"threadId":"T","runId":"R","parentRunId":"P","state":{},"tools":[],"context":[],"forwardedProps":{},` +
				`"messages":[{"id":"u1","role":"user","content":"hi"},` +
				`{"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
				`{"id":"t1","role":"tool","toolCallId":"c1","content":"42"}]}}`,
		},
		want: []string{
			`{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1","input":{"context":[],"forwardedProps":{},` +
				`"messages":[{"content":"hi","id":"msg-1","role":"user"},` +
				`{"id":"msg-2","role":"assistant","toolCalls":[{"function":{"arguments":"{}","name":"f"},"id":"call-1","type":"function"}]},` +
				`{"content":"42","id":"msg-3","role":"tool","toolCallId":"call-1"}],"parentRunId":"run-2","runId":"run-1","state":{},"threadId":"thread-1","tools":[]}}`,
		},
	}, {
		name: "ids inside a messages snapshot",
		in: []string{
			`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"a1"}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}],"subagentRunId":"s"},{"id":"t1","role":"tool","toolCallId":"c1","content":"x"}]}`,
		},
		want: []string{
			`{"type":"TOOL_CALL_START","toolCallId":"call-1","toolCallName":"f","parentMessageId":"msg-1"}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"msg-1","role":"assistant","subagentRunId":"subagent-1","toolCalls":[{"function":{"arguments":"{}","name":"f"},"id":"call-1","type":"function"}]},{"content":"x","id":"msg-2","role":"tool","toolCallId":"call-1"}]}`,
		},
	}, {
		name: "subagents and encrypted values by subtype",
		in: []string{
			`{"type":"SUBAGENT_STARTED","subagentRunId":"S","name":"n","parentToolCallId":"C","parentSubagentRunId":"P"}`,
			`{"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"C2","encryptedValue":"x"}`,
			`{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"M","encryptedValue":"y"}`,
		},
		want: []string{
			`{"type":"SUBAGENT_STARTED","subagentRunId":"subagent-1","parentSubagentRunId":"subagent-2","parentToolCallId":"call-1","name":"n"}`,
			`{"type":"REASONING_ENCRYPTED_VALUE","entityId":"call-2","subtype":"tool-call","encryptedValue":"x"}`,
			`{"type":"REASONING_ENCRYPTED_VALUE","entityId":"msg-1","subtype":"message","encryptedValue":"y"}`,
		},
	}, {
		name: "ids that are not strings or are empty stay",
		in:   []string{`{"type":"TEXT_MESSAGE_START","messageId":"","role":"assistant"}`, `{"type":"X","toolCallId":7,"runId":null}`},
		want: []string{`{"type":"TEXT_MESSAGE_START","messageId":"","role":"assistant"}`, `{"type":"X","runId":null,"toolCallId":7}`},
	}, {
		name: "timestamps kept when asked",
		n:    Normalizer{KeepTimestamps: true},
		in:   []string{`{"type":"STEP_STARTED","stepName":"s","timestamp":1.5e3}`},
		want: []string{`{"type":"STEP_STARTED","stepName":"s","timestamp":1.5e3}`},
	}, {
		name: "unknown fields sorted after the known ones, no HTML escaping",
		in:   []string{`{"zeta":1,"type":"CUSTOM","alpha":"<&>","name":"n","value":{"b":[2,{"d":1,"c":0}],"a":true}}`},
		want: []string{`{"type":"CUSTOM","name":"n","value":{"a":true,"b":[2,{"c":0,"d":1}]},"alpha":"<&>","zeta":1}`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLines(t, tt.n.Normalize(evs(t, tt.in...), Wire), tt.want)
		})
	}
}

func TestScrubs(t *testing.T) {
	in := []string{
		`{"type":"STATE_SNAPSHOT","snapshot":{"updatedAt":"2026-01-02T03:04:05Z","a/b":{"~k":1},"list":[{"at":5},{"at":6}],"-":"dash"}}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"done at 2026-01-02T03:04:05Z"}`,
	}
	tests := []struct {
		name   string
		scrubs []Scrub
		want   []string
	}{{
		name:   "pointer to a nested string",
		scrubs: []Scrub{{Pointer: "/snapshot/updatedAt", Replace: "<time>"}},
		want: []string{
			`{"type":"STATE_SNAPSHOT","snapshot":{"-":"dash","a/b":{"~k":1},"list":[{"at":5},{"at":6}],"updatedAt":"<time>"}}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"done at 2026-01-02T03:04:05Z"}`,
		},
	}, {
		name:   "escaped keys and a non-string value",
		scrubs: []Scrub{{Pointer: "/snapshot/a~1b/~0k", Replace: "x"}},
		want: []string{
			`{"type":"STATE_SNAPSHOT","snapshot":{"-":"dash","a/b":{"~k":"x"},"list":[{"at":5},{"at":6}],"updatedAt":"2026-01-02T03:04:05Z"}}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"done at 2026-01-02T03:04:05Z"}`,
		},
	}, {
		name: "array index; - and bad indexes match nothing in arrays",
		scrubs: []Scrub{
			{Pointer: "/snapshot/list/1/at", Replace: "n"},
			{Pointer: "/snapshot/list/-", Replace: "no"},
			{Pointer: "/snapshot/list/01", Replace: "no"},
			{Pointer: "/snapshot/list/9", Replace: "no"},
			{Pointer: "/snapshot/-", Replace: "key"},
			{Pointer: "/nothing/here", Replace: "no"},
		},
		want: []string{
			`{"type":"STATE_SNAPSHOT","snapshot":{"-":"key","a/b":{"~k":1},"list":[{"at":5},{"at":"n"}],"updatedAt":"2026-01-02T03:04:05Z"}}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"done at 2026-01-02T03:04:05Z"}`,
		},
	}, {
		name:   "pattern anywhere, with groups, after placeholders, never the type",
		scrubs: []Scrub{{Pattern: regexp.MustCompile(`(\d{4})-\d\d-\d\dT[\d:]+Z`), Replace: "<$1>"}, {Pattern: regexp.MustCompile(`msg|STATE`), Replace: "X"}},
		want: []string{
			`{"type":"STATE_SNAPSHOT","snapshot":{"-":"dash","a/b":{"~k":1},"list":[{"at":5},{"at":6}],"updatedAt":"<2026>"}}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"X-1","delta":"done at <2026>"}`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLines(t, Normalizer{Scrubs: tt.scrubs}.Normalize(evs(t, in...), Wire), tt.want)
		})
	}
}

func TestScrubMisusePanics(t *testing.T) {
	tests := []struct {
		name  string
		scrub Scrub
	}{
		{"neither", Scrub{Replace: "x"}},
		{"both", Scrub{Pointer: "/a", Pattern: regexp.MustCompile("a")}},
		{"not a pointer", Scrub{Pointer: "a/b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Normalize with %+v did not panic", tt.scrub)
				}
			}()
			Normalizer{Scrubs: []Scrub{tt.scrub}}.Normalize(nil, Wire)
		})
	}
}

// TestStable checks that the same stream gives the same bytes every time,
// whatever the order of its fields on the wire.
func TestStable(t *testing.T) {
	a := evs(t,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"runId":"r","threadId":"t","messages":[{"role":"user","id":"u","content":"x"}],"state":{"k":{"z":1,"y":2,"x":3}}}}`,
		`{"type":"STATE_SNAPSHOT","snapshot":{"c":1,"b":2,"a":{"q":1,"p":2}}}`,
		`{"type":"CUSTOM","name":"n","value":{"m":1,"l":2,"k":3,"j":4,"i":5}}`,
	)
	b := evs(t,
		`{"input":{"state":{"k":{"x":3,"y":2,"z":1}},"messages":[{"content":"x","id":"u","role":"user"}],"threadId":"t","runId":"r"},"runId":"r","threadId":"t","type":"RUN_STARTED"}`,
		`{"snapshot":{"a":{"p":2,"q":1},"b":2,"c":1},"type":"STATE_SNAPSHOT"}`,
		`{"value":{"i":5,"j":4,"k":3,"l":2,"m":1},"name":"n","type":"CUSTOM"}`,
	)
	for _, v := range []View{Wire, Merged} {
		want := Marshal(Normalize(a, v))
		for i := range 50 {
			for _, in := range [][]agui.Event{a, b} {
				if got := Marshal(Normalize(in, v)); string(got) != string(want) {
					t.Fatalf("%v view, run %d: got\n%s\nwant\n%s", v, i, got, want)
				}
			}
		}
	}
}

func TestNormalizeDoesNotShareState(t *testing.T) {
	in := evs(t, `{"type":"STATE_SNAPSHOT","snapshot":{"at":"x"}}`)
	n := Normalizer{Scrubs: []Scrub{{Pointer: "/snapshot/at", Replace: "y"}}}
	first := n.Normalize(in, Wire)
	second := Normalize(in, Wire)
	if got, _ := json.Marshal(second[0]); string(got) != `{"snapshot":{"at":"x"},"type":"STATE_SNAPSHOT"}` {
		t.Errorf("the event was modified by a previous Normalize: %s", got)
	}
	if first[0]["snapshot"].(map[string]any)["at"] != "y" {
		t.Errorf("scrub not applied: %v", first[0])
	}
}
