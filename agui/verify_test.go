package agui

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// events parses one event per line.
func events(t testing.TB, lines ...string) []Event {
	t.Helper()
	out := make([]Event, len(lines))
	for i, l := range lines {
		e, err := ParseEvent([]byte(l))
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		out[i] = e
	}
	return out
}

const (
	runStarted  = `{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}`
	runFinished = `{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}`
)

// brief is what a test compares of a violation.
type brief struct {
	Index int
	Rule  string
}

func briefs(vs []Violation) []brief {
	var out []brief
	for _, v := range vs {
		out = append(out, brief{v.Index, string(v.Rule)})
	}
	return out
}

func TestVerifyStrict(t *testing.T) {
	tests := []struct {
		name   string
		stream []string
		want   []brief
		client Client
	}{
		{
			name: "interleaved parallel calls with distinct ids conform",
			stream: []string{runStarted,
				`{"type":"TOOL_CALL_START","toolCallId":"a","toolCallName":"add_task","parentMessageId":"m1"}`,
				`{"type":"TOOL_CALL_START","toolCallId":"b","toolCallName":"move_task","parentMessageId":"m1"}`,
				`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"{\"title\":"}`,
				`{"type":"TOOL_CALL_ARGS","toolCallId":"b","delta":"{\"id\":1}"}`,
				`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"\"ship\"}"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"a"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"b"}`,
				`{"type":"TOOL_CALL_RESULT","messageId":"t1","toolCallId":"a","content":"ok"}`,
				runFinished},
		},
		{
			name:   "a stream that stops before RUN_FINISHED is truncated",
			stream: []string{runStarted, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`},
			want:   []brief{{2, "truncated"}, {2, "unclosed"}},
		},
		{
			name:   "an empty stream has no events",
			stream: nil,
			want:   []brief{{0, "no-events"}},
		},
		{
			name: "a result before the call's end",
			stream: []string{runStarted,
				`{"type":"TOOL_CALL_START","toolCallId":"a","toolCallName":"x"}`,
				`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"{}"}`,
				`{"type":"TOOL_CALL_RESULT","messageId":"t","toolCallId":"a","content":"ok"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"a"}`,
				runFinished},
			want: []brief{{3, "result-before-end"}},
		},
		{
			name: "a result for an unknown call and a second result",
			stream: []string{runStarted,
				`{"type":"TOOL_CALL_RESULT","messageId":"t","toolCallId":"ghost","content":"ok"}`,
				`{"type":"TOOL_CALL_START","toolCallId":"a","toolCallName":"x"}`,
				`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"{}"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"a"}`,
				`{"type":"TOOL_CALL_RESULT","messageId":"t2","toolCallId":"a","content":"ok"}`,
				`{"type":"TOOL_CALL_RESULT","messageId":"t3","toolCallId":"a","content":"again"}`,
				runFinished},
			want: []brief{{1, "result-unknown-call"}, {6, "duplicate-result"}},
		},
		{
			name: "a result for a call from the input history is fine",
			stream: []string{
				`{"type":"RUN_STARTED","threadId":"t1","runId":"r2","input":{"threadId":"t1","runId":"r2","messages":[{"id":"m0","role":"assistant","toolCalls":[{"id":"old","type":"function","function":{"name":"x","arguments":"{}"}}]}],"tools":[],"context":[]}}`,
				`{"type":"TOOL_CALL_RESULT","messageId":"t","toolCallId":"old","content":"ok"}`,
				`{"type":"RUN_FINISHED","threadId":"t1","runId":"r2"}`},
		},
		{
			name: "arguments that are not JSON at TOOL_CALL_END",
			stream: []string{runStarted,
				`{"type":"TOOL_CALL_START","toolCallId":"a","toolCallName":"x"}`,
				`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"{\"city\":"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"a"}`,
				`{"type":"TOOL_CALL_START","toolCallId":"b","toolCallName":"y"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"b"}`,
				runFinished},
			want: []brief{{3, "args-not-json"}},
		},
		{
			name: "arguments cut inside escapes join into JSON",
			stream: []string{runStarted,
				`{"type":"TOOL_CALL_START","toolCallId":"a","toolCallName":"x"}`,
				`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"{\"q\":\"caf\\"}`,
				`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"u00e9 \\"}`,
				`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"\"x\\\"\"}"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"a"}`,
				runFinished},
		},
		{
			name: "interleaved chunks across ids reopen a call",
			stream: []string{runStarted,
				`{"type":"TOOL_CALL_CHUNK","toolCallId":"a","toolCallName":"x","delta":"{\"n\":"}`,
				`{"type":"TOOL_CALL_CHUNK","toolCallId":"b","toolCallName":"y","delta":"{}"}`,
				`{"type":"TOOL_CALL_CHUNK","toolCallId":"a","toolCallName":"x","delta":"1}"}`,
				runFinished},
			// the second "a" chunk reopens a call that the "b" chunk closed
			want: []brief{{2, "args-not-json"}, {3, "reopened-id"}, {4, "args-not-json"}},
		},
		{
			name: "a text message reopened after its end",
			stream: []string{runStarted,
				`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
				`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
				`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
				`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
				runFinished},
			want: []brief{{3, "reopened-id"}},
		},
		{
			name: "the same ids in a later run are fine",
			stream: []string{runStarted,
				`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
				`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
				runFinished, runStarted,
				`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
				`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
				runFinished},
		},
		{
			name:   "RUN_FINISHED after RUN_ERROR",
			stream: []string{runStarted, `{"type":"RUN_ERROR","message":"boom"}`, runFinished},
			want:   []brief{{2, "finished-after-error"}},
		},
		{
			name: "a parentMessageId that names no message is legal",
			stream: []string{runStarted,
				`{"type":"TOOL_CALL_START","toolCallId":"a","toolCallName":"x","parentMessageId":"nowhere"}`,
				`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"{}"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"a"}`,
				runFinished},
		},
		{
			name: "every violation is reported, not only the first",
			stream: []string{runStarted,
				`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"c1"}`,
				`{"type":"STEP_FINISHED","stepName":"plan"}`,
				runFinished},
			want: []brief{{1, "message-not-open"}, {2, "tool-call-not-open"}, {3, "step-not-started"}},
		},
		{
			name: "events after the run finished are reported once",
			stream: []string{runStarted, runFinished,
				`{"type":"CUSTOM","name":"a","value":1}`,
				`{"type":"CUSTOM","name":"b","value":2}`},
			want: []brief{{2, "after-run-finished"}},
		},
		{
			name:   "legacy event types pass",
			stream: []string{runStarted, `{"type":"THINKING_START"}`, `{"type":"THINKING_END"}`, runFinished},
		},
		{
			name:   "unknown event types break the 0.0.59 client",
			stream: []string{runStarted, `{"type":"THINKING_START"}`, `{"type":"VENDOR_THING","x":1}`, `{"type":"THINKING_END"}`, runFinished},
			want:   []brief{{Index: 2, Rule: string(RuleUnknownEvent)}, {Index: 2, Rule: string(RuleSchema)}},
		},
		{
			name:   "the 1.0.0 client drops unknown event types, which Strict reports",
			stream: []string{runStarted, `{"type":"VENDOR_THING","x":1}`, runFinished},
			client: ClientV100,
			want:   []brief{{Index: 1, Rule: string(RuleUnknownEvent)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Verify(events(t, tt.stream...), Options{Client: tt.client})
			if diff := cmp.Diff(tt.want, briefs(got)); diff != "" {
				t.Errorf("violations (-want +got):\n%s\nall: %v", diff, got)
			}
		})
	}
}

func TestVerifyReferenceIgnoresStrictRules(t *testing.T) {
	stream := events(t, runStarted,
		`{"type":"TOOL_CALL_START","toolCallId":"a","toolCallName":"x"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"a","delta":"{\"n\":"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"a"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"t","toolCallId":"ghost","content":"ok"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`)
	if got := Verify(stream, Options{Profile: Reference}); got != nil {
		t.Errorf("Reference: got %v, want no violations", got)
	}
	if got := Verify(stream, Options{Profile: Strict}); len(got) == 0 {
		t.Error("Strict: got no violations, want some")
	}
}

func TestViolationCarriesIDs(t *testing.T) {
	got := Verify(events(t, runStarted,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c7","delta":"{}","subagentRunId":"s1"}`,
		runFinished), Options{})
	want := []Violation{{
		Index:         1,
		Type:          ToolCallArgs,
		Rule:          "tool-call-not-open",
		Message:       "Cannot send 'TOOL_CALL_ARGS' event: No active tool call found with ID 'c7'. Start a tool call with 'TOOL_CALL_START' first.",
		ToolCallID:    "c7",
		SubagentRunID: "s1",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	if s := got[0].Error(); !strings.HasPrefix(s, "event 2 (TOOL_CALL_ARGS): tool-call-not-open: ") {
		t.Errorf("Error() = %q", s)
	}
}

func TestVerifierStreaming(t *testing.T) {
	v := NewVerifier(Options{})
	stream := events(t, runStarted,
		`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"x"}`,
		`{"type":"STEP_STARTED","stepName":"plan"}`)
	for i, e := range stream {
		if vs := v.Push(e); vs != nil {
			t.Fatalf("event %d: unexpected %v", i, vs)
		}
	}
	wantOpen := []string{"text message 'm1'", "tool call 'c1'", `step "plan"`}
	if diff := cmp.Diff(wantOpen, v.Open()); diff != "" {
		t.Errorf("Open() (-want +got):\n%s", diff)
	}
	got := briefs(v.Finish())
	want := []brief{{4, "truncated"}, {4, "unclosed"}, {4, "unclosed"}, {4, "unclosed"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Finish (-want +got):\n%s", diff)
	}
}

func TestParseProfile(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Profile
		ok   bool
	}{{"strict", Strict, true}, {"Reference", Reference, true}, {"lax", 0, false}} {
		got, err := ParseProfile(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseProfile(%q) = %v, %v", tt.in, got, err)
		}
	}
}
