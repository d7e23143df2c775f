package agui

import (
	"bufio"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func TestInputHistoryMakesCallsKnown(t *testing.T) {
	// The second run of the seed's frontend-tool flow: the call came back
	// in the input's history, and the agent reports its result.
	stream := []string{runStarted,
		`{"type":"TOOL_CALL_RESULT","messageId":"res1","toolCallId":"call_loc","content":"Seoul"}`,
		runFinished}
	input := RunAgentInput{ThreadID: "t1", RunID: "r1", Messages: []Message{
		{ID: "u1", Role: RoleUser, Content: TextContent("Where am I?")},
		{ID: "a1", Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_loc", Type: "function", Function: FunctionCall{Name: "get_user_location", Arguments: "{}"}}}},
		{ID: "t1", Role: RoleTool, ToolCallID: "call_loc", Content: TextContent("Seoul")},
	}}
	tests := []struct {
		name string
		opt  Options
		set  bool // give the input with SetInput instead
		want []brief
	}{
		{name: "without the input the call is unknown", want: []brief{{1, "result-unknown-call"}}},
		{name: "Options.Input", opt: Options{Input: &input}},
		{name: "SetInput", set: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := NewVerifier(tc.opt)
			if tc.set {
				v.SetInput(input)
			}
			for _, e := range events(t, stream...) {
				v.Push(e)
			}
			v.Finish()
			if diff := cmp.Diff(tc.want, briefs(v.Violations())); diff != "" {
				t.Errorf("violations (-want +got):\n%s\nall: %v", diff, v.Violations())
			}
		})
	}
}

func TestSetInputPerRun(t *testing.T) {
	v := NewVerifier(Options{})
	push := func(lines ...string) []Violation {
		var out []Violation
		for _, e := range events(t, lines...) {
			out = append(out, v.Push(e)...)
		}
		return out
	}
	// Run 1 leaves a call to the client.
	if vs := push(runStarted,
		`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"get_user_location"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"c1"}`,
		runFinished); len(vs) > 0 {
		t.Fatalf("run 1: %v", vs)
	}
	// Run 2 answers it; its input carries the call.
	v.SetInput(RunAgentInput{ThreadID: "t1", RunID: "r2", Messages: []Message{
		{ID: "a1", Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "get_user_location"}}}},
	}})
	if vs := push(`{"type":"RUN_STARTED","threadId":"t1","runId":"r2"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"m9","toolCallId":"c1","content":"{}"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"m10","toolCallId":"c1","content":"{}"}`,
		`{"type":"RUN_FINISHED","threadId":"t1","runId":"r2"}`); len(vs) != 1 || vs[0].Rule != RuleDuplicateResult {
		t.Fatalf("run 2: got %v, want one duplicate-result", vs)
	}
}

func TestNoArgumentsIsNotArgsNotJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []brief
	}{
		{name: "no ARGS at all"},
		{name: "empty deltas", args: []string{`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":""}`}},
		{name: "only white space", args: []string{`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"  "}`}, want: []brief{{3, "args-not-json"}}},
		{name: "partial JSON", args: []string{`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"a\""}`}, want: []brief{{3, "args-not-json"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream := []string{runStarted, `{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"get_user_location"}`}
			stream = append(stream, tc.args...)
			stream = append(stream, `{"type":"TOOL_CALL_END","toolCallId":"c"}`, runFinished)
			got := briefs(Verify(events(t, stream...), Options{}))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestAllowWaivesOneRule(t *testing.T) {
	stream := events(t, runStarted,
		`{"type":"TEXT_MESSAGE_START","messageId":"m"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"r","toolCallId":"nope","content":"x"}`,
		runFinished)
	all := briefs(Verify(stream, Options{}))
	want := []brief{{3, "reopened-id"}, {5, "result-unknown-call"}}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Fatalf("without waivers (-want +got):\n%s", diff)
	}
	got := briefs(Verify(stream, Options{Allow: []Rule{RuleReopenedID}}))
	if diff := cmp.Diff(want[1:], got); diff != "" {
		t.Errorf("reopened-id waived (-want +got):\n%s", diff)
	}
}

func TestOptInRules(t *testing.T) {
	stream := events(t, runStarted,
		`{"type":"TEXT_MESSAGE_START","messageId":"m"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":""}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"a","toolCallName":"x","parentMessageId":"m"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"a"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"b","toolCallName":"x","parentMessageId":"m"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"b"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"res","toolCallId":"a","content":"1"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"res","toolCallId":"b","content":"2"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"b","content":"2"}`,
		runFinished)
	if got := Verify(stream, Options{Allow: []Rule{RuleDuplicateResult}}); len(got) != 0 {
		t.Fatalf("opt-in rules fire without Enable: %v", got)
	}
	got := briefs(Verify(stream, Options{Allow: []Rule{RuleDuplicateResult}, Enable: []Rule{RuleEmptyDelta, RuleSharedResultID, RuleReusedResultID}}))
	want := []brief{{2, "empty-delta"}, {9, "shared-result-id"}, {10, "reused-result-id"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Enable turns on unknown-event and unknown-field under Reference: what
// @ag-ui/client 1.0.0 drops and strips (show --messages lists it among the
// client's warnings), without Strict's other rules (here, the reopened id
// m).
func TestEnableUnknownUnderReference(t *testing.T) {
	stream := events(t, runStarted,
		`{"type":"TEXT_MESSAGE_CHUNKS","messageId":"m","delta":"hi"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageID":"m"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"c"}`,
		runFinished)
	ref := Options{Profile: Reference, Client: ClientV100}
	if got := Verify(stream, ref); len(got) != 0 {
		t.Fatalf("Reference reports without Enable: %v", got)
	}
	ref.Enable = []Rule{RuleUnknownEvent, RuleUnknownField}
	got := briefs(Verify(stream, ref))
	want := []brief{{1, "unknown-event"}, {6, "unknown-field"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestResponseRules(t *testing.T) {
	for _, tc := range []struct {
		status int
		ct     string
		want   []Rule
	}{
		{200, "text/event-stream", nil},
		{200, "text/event-stream; charset=utf-8", nil},
		{201, "application/vnd.ag-ui.event+proto", nil},
		{500, "text/event-stream", []Rule{RuleHTTPStatus}},
		{200, "application/json", []Rule{RuleContentType}},
		{404, "text/html", []Rule{RuleHTTPStatus, RuleContentType}},
		{200, "", []Rule{RuleContentType}},
	} {
		v := NewVerifier(Options{Profile: Reference})
		var got []Rule
		for _, vi := range v.Response(tc.status, tc.ct) {
			got = append(got, vi.Rule)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Response(%d, %q) (-want +got):\n%s", tc.status, tc.ct, diff)
		}
	}
}

func TestNoEventsInEveryProfile(t *testing.T) {
	for _, p := range []Profile{Strict, Reference} {
		got := Verify(nil, Options{Profile: p})
		if len(got) != 1 || got[0].Rule != RuleNoEvents {
			t.Errorf("%s: got %v, want no-events", p, got)
		}
		if got := Verify(nil, Options{Profile: p, Allow: []Rule{RuleNoEvents}}); len(got) != 0 {
			t.Errorf("%s: no-events waived, got %v", p, got)
		}
	}
	// Unreadable frames are not events either, but they are reported.
	r := NewReader(strings.NewReader("data: <html>\n\n"), "body")
	v := NewVerifier(Options{Profile: Reference})
	_, err := r.Next()
	var fe *FrameError
	if !errors.As(err, &fe) {
		t.Fatalf("got %v, want a frame error", err)
	}
	v.PushFrame(fe)
	v.Finish()
	if got := v.Violations(); len(got) != 1 || got[0].Rule != RuleFrameJSON {
		t.Errorf("got %v, want one frame-json", got)
	}
}

func TestSchemaViolations(t *testing.T) {
	for _, tc := range []struct {
		name  string
		event string
		field string
		msg   string
	}{
		{"missing toolCallName", `{"type":"TOOL_CALL_START","toolCallId":"c"}`, "/toolCallName", "Invalid input: expected string, received undefined"},
		{"delta not an array", `{"type":"STATE_DELTA","delta":{"op":"add"}}`, "/delta", "Invalid input: expected array, received object"},
		{"delta not a string", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":5}`, "/delta", "expected string, received number"},
		{"bad pointer", `{"type":"STATE_DELTA","delta":[{"op":"add","path":"a","value":1}]}`, "/delta/0/path", "Invalid string: must match pattern"},
		{"subagentRunId null", `{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":null}`, "/subagentRunId", "received null"},
		{"role tool", `{"type":"TEXT_MESSAGE_START","messageId":"m","role":"tool"}`, "/role", `Invalid option: expected one of "developer"|"system"|"assistant"|"user"`},
		{"timestamp fraction", `{"type":"CUSTOM","name":"n","value":1,"timestamp":1.5}`, "/timestamp", "expected int, received number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Verify(events(t, runStarted, tc.event), Options{Profile: Reference})
			if len(got) != 1 {
				t.Fatalf("got %v, want one schema violation", got)
			}
			if got[0].Rule != RuleSchema || got[0].Field != tc.field || !strings.Contains(got[0].Message, tc.msg) {
				t.Errorf("got %+v, want schema at %s with %q", got[0], tc.field, tc.msg)
			}
		})
	}
	// Stripped material is not a violation of the reference profile:
	// unknown fields, a patch operation of an unknown kind, an outcome of
	// an unknown type. Strict reports each (unknown-field), but not the
	// extra members of a patch operation, which RFC 6902 keeps.
	ok := events(t, runStarted,
		`{"type":"STATE_DELTA","delta":[{"op":"frob"},{"op":"add","path":"/a","value":1,"extra":true}],"vendor":{"x":1}}`,
		`{"type":"RUN_FINISHED","threadId":"t1","runId":"r1","outcome":{"type":"someday"}}`)
	if got := Verify(ok, Options{Profile: Reference, Client: ClientV100}); len(got) != 0 {
		t.Errorf("stripped material reported: %v", got)
	}
	// Strict reports what 1.0.0 strips (unknown-field), but not the extra
	// members of a patch operation, which RFC 6902 keeps; 0.0.59 rejects
	// the outcome of an unknown type, and Strict (every client) says whose
	// frontend breaks.
	var fields []string
	var by0059 []Violation
	for _, v := range Verify(ok, Options{}) {
		if v.Client == ClientV0059 {
			by0059 = append(by0059, v)
			continue
		}
		require.Equal(t, RuleUnknownField, v.Rule, v.Error())
		fields = append(fields, v.Field)
	}
	if diff := cmp.Diff([]string{"/delta/0", "/vendor", "/outcome"}, fields); diff != "" {
		t.Errorf("strict unknown-field paths (-want +got):\n%s", diff)
	}
	require.Len(t, by0059, 1)
	if !strings.HasPrefix(by0059[0].Message, "rejected by @ag-ui/client 0.0.59 (pinned by CopilotKit 1.74/1.75): RUN_FINISHED /outcome/type: Invalid discriminator value") {
		t.Errorf("got %+v, want the 0.0.59 client's rejection of the outcome", by0059[0])
	}
}

func TestUnknownTypesAreDropped(t *testing.T) {
	// The 1.0.0 client drops what it does not know, even as the first
	// event, and Strict says so; 0.0.59's transport fails the run on it.
	stream := events(t, `{"type":"PING"}`, runStarted, `{"type":"vendor.progress","p":1}`, runFinished)
	if got := Verify(stream, Options{Profile: Reference, Client: ClientV100}); len(got) != 0 {
		t.Errorf("reference: got %v", got)
	}
	want := []brief{{0, "unknown-event"}, {2, "unknown-event"}}
	if diff := cmp.Diff(want, briefs(Verify(stream, Options{Client: ClientV100}))); diff != "" {
		t.Errorf("strict (-want +got):\n%s", diff)
	}
	got := Verify(stream, Options{Profile: Reference, Client: ClientV0059})
	if len(got) != 2 || got[0].Rule != RuleSchema || got[0].Field != "/type" || got[1].Index != 2 {
		t.Errorf("got %v, want 0.0.59's schema violations of events 1 and 3", got)
	}
}

func TestLegacyThinkingTranslated(t *testing.T) {
	got := Verify(events(t, runStarted,
		`{"type":"THINKING_START","title":"plan"}`,
		`{"type":"THINKING_TEXT_MESSAGE_START"}`,
		`{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hmm"}`,
		`{"type":"THINKING_TEXT_MESSAGE_END"}`,
		`{"type":"THINKING_END"}`,
		runFinished), Options{})
	if len(got) != 0 {
		t.Errorf("got %v", got)
	}
	// A continuation with no opener names an id the client invents.
	got = Verify(events(t, runStarted, `{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"x"}`, runFinished), Options{Profile: Reference})
	if len(got) != 1 || got[0].Rule != RuleReasoningNotOpen || !strings.Contains(got[0].Message, mintedPrefix) {
		t.Errorf("got %v, want reasoning-not-open naming a minted id", got)
	}
}

func TestParseRules(t *testing.T) {
	rs, err := ParseRules("reopened-id, empty-delta,")
	if err != nil || len(rs) != 2 || rs[0] != RuleReopenedID || rs[1] != RuleEmptyDelta {
		t.Errorf("ParseRules = %v, %v", rs, err)
	}
	if _, err := ParseRules("reopened-ids"); err == nil || !strings.Contains(err.Error(), "reopened-id") {
		t.Errorf("unknown rule: err = %v; want the list of rules", err)
	}
	if !RuleEmptyDelta.OptIn() || RuleSchema.OptIn() || Rule("x").Known() {
		t.Error("OptIn/Known")
	}
}

// TestRulesDocumented checks the rule table of the package documentation
// against Rules: every rule, in order, each once.
func TestRulesDocumented(t *testing.T) {
	f, err := os.Open("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := regexp.MustCompile(`^//\t([a-z-]+) {2,}\S`)
	var doc []Rule
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := row.FindStringSubmatch(sc.Text()); m != nil {
			doc = append(doc, Rule(m[1]))
		}
	}
	if diff := cmp.Diff(Rules(), doc); diff != "" {
		t.Errorf("doc.go's rule table differs from Rules() (-Rules +doc):\n%s", diff)
	}
	for _, r := range Rules() {
		if len(r) == 0 || !r.Known() {
			t.Errorf("rule %q", r)
		}
	}
}

// TestChunksContinueText: a framework that streams text as
// TEXT_MESSAGE_CHUNK under one id between tool-call chunks (Mastra through
// @ag-ui/mastra does) makes one message for the client; chunk expansion
// closes and reopens it, which is not reopened-id. An explicit reopen is,
// and so is a call continued after its end (its arguments would run into
// one call).
func TestChunksContinueText(t *testing.T) {
	mastra := events(t, runStarted,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","role":"assistant","delta":"Let me "}`,
		`{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"weather","parentMessageId":"m1","delta":"{\"city\":\"Seoul\"}"}`,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"check."}`,
		`{"type":"TOOL_CALL_CHUNK","toolCallId":"c2","toolCallName":"weather","parentMessageId":"m1","delta":"{}"}`,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":" Done."}`,
		runFinished)
	if got := Verify(mastra, Options{}); len(got) != 0 {
		t.Errorf("chunked text between calls: %v", got)
	}
	explicit := events(t, runStarted,
		`{"type":"TEXT_MESSAGE_START","messageId":"m1"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"x"}`,
		`{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"w","delta":"{"}`,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m2","delta":"y"}`,
		`{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"w","delta":"}"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m2"}`,
		runFinished)
	got := briefs(Verify(explicit, Options{}))
	// The chunk text m1 after an explicit END (event 4) continues it
	// quietly; the call c1 continued after its END (event 6) and the
	// explicit reopen of m2 (event 7) are reported.
	want := []brief{{5, "args-not-json"}, {6, "reopened-id"}, {7, "args-not-json"}, {7, "reopened-id"}, {8, "run-finished-open"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s\n%v", diff, Verify(explicit, Options{}))
	}
}
