package agui

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestUnknownReported: what HttpAgent drops or strips with only a console
// warning fails Strict, with the field's path and a did-you-mean; the
// reference profile, as the client, lets it through.
func TestUnknownReported(t *testing.T) {
	type finding struct {
		Index int
		Rule  Rule
		Field string
		Hint  string // a part of the message
	}
	tests := []struct {
		name   string
		stream []string
		want   []finding
	}{
		{
			name: "parentMessageID, a typo of parentMessageId (the issue's newcomer)",
			stream: []string{runStarted,
				`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
				`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
				`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"weather","parentMessageID":"m1"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"c1"}`,
				runFinished},
			want: []finding{{3, RuleUnknownField, "/parentMessageID", "did you mean parentMessageId?"}},
		},
		{
			name: "TEXT_MESSAGE_CHUNKS, a typo of TEXT_MESSAGE_CHUNK",
			stream: []string{runStarted,
				`{"type":"TEXT_MESSAGE_CHUNKS","messageId":"m1","role":"assistant","delta":"Hello"}`,
				runFinished},
			want: []finding{{1, RuleUnknownEvent, "/type", "did you mean TEXT_MESSAGE_CHUNK?"}},
		},
		{
			name: "a field of another event type",
			stream: []string{runStarted,
				`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","delta":"Hi"}`,
				`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
				runFinished},
			want: []finding{{1, RuleUnknownField, "/delta", "delta is a field of TEXT_MESSAGE_CONTENT"}},
		},
		{
			name: "snake case",
			stream: []string{runStarted,
				`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"w","parent_message_id":"m1"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"c1"}`,
				runFinished},
			want: []finding{{1, RuleUnknownField, "/parent_message_id", "did you mean parentMessageId?"}},
		},
		{
			name: "a message of MESSAGES_SNAPSHOT, and a field of a message of another role",
			stream: []string{runStarted,
				`{"type":"MESSAGES_SNAPSHOT","messages":[` +
					`{"id":"u1","role":"user","content":"hi","toolCalls":[]},` +
					`{"id":"a1","role":"assistant","content":"ok","toolcalls":[]}]}`,
				runFinished},
			want: []finding{
				{1, RuleUnknownField, "/messages/0/toolCalls", `toolCalls is a field of role "assistant"`},
				{1, RuleUnknownField, "/messages/1/toolcalls", "did you mean toolCalls?"},
			},
		},
		{
			name: "a content part of an unknown type is dropped",
			stream: []string{runStarted,
				`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u1","role":"user","content":[` +
					`{"type":"text","text":"look"},{"type":"imag","source":{"type":"url","value":"https://x/y.png"}}]}]}`,
				runFinished},
			want: []finding{{1, RuleUnknownField, "/messages/0/content/1", `did you mean "image"?`}},
		},
		{
			name: "RUN_STARTED's input",
			stream: []string{
				`{"type":"RUN_STARTED","threadId":"t1","runId":"r1","input":{"threadId":"t1","runId":"r1","messages":[],"tool":[],"forwardedProps":{"anything":1}}}`,
				runFinished},
			want: []finding{{0, RuleUnknownField, "/input/tool", "did you mean tools?"}},
		},
		{
			name: "an escaped key is named by its JSON Pointer",
			stream: []string{runStarted,
				`{"type":"STEP_STARTED","stepName":"s","a/b~c":1}`,
				`{"type":"STEP_FINISHED","stepName":"s"}`,
				runFinished},
			want: []finding{{1, RuleUnknownField, "/a~1b~0c", ""}},
		},
		{
			name: "the extension points are not findings",
			stream: []string{runStarted,
				`{"type":"CUSTOM","name":"n","value":{"any":"thing"},"extra":1}`,
				`{"type":"RAW","event":{"x":1},"source":"s","extra":2}`,
				`{"type":"STATE_SNAPSHOT","snapshot":{"whatever":true},"metadata":{"vendor":1},"rawEvent":{"y":2}}`,
				`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1,"note":"RFC 6902 keeps it"}]}`,
				runFinished},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stream := events(t, tt.stream...)
			ref := Verify(stream, Options{Profile: Reference, Client: ClientV100})
			require.Empty(t, ref, "the reference profile, as the client, accepts it")
			var got []finding
			for _, v := range Verify(stream, Options{Client: ClientV100}) {
				f := finding{v.Index, v.Rule, v.Field, ""}
				for _, w := range tt.want {
					if w.Index == f.Index && w.Field == f.Field && strings.Contains(v.Message, w.Hint) {
						f.Hint = w.Hint
					}
				}
				got = append(got, f)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, Verify(stream, Options{Client: ClientV100}))
			}
		})
	}
}

// TestUnknownWaived: each rule is waived by name, and the event still
// goes on, stripped, as the client takes it.
func TestUnknownWaived(t *testing.T) {
	stream := events(t, runStarted,
		`{"type":"TEXT_MESSAGE_CHUNKS","messageId":"m1","delta":"x"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"w","parentMessageID":"m1"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"c1"}`,
		runFinished)
	got := Verify(stream, Options{Client: ClientV100, Allow: []Rule{RuleUnknownEvent}})
	if diff := cmp.Diff([]brief{{2, "unknown-field"}}, briefs(got)); diff != "" {
		t.Errorf("allow unknown-event (-want +got):\n%s", diff)
	}
	got = Verify(stream, Options{Client: ClientV100, Allow: []Rule{RuleUnknownEvent, RuleUnknownField}})
	if len(got) != 0 {
		t.Errorf("both waived: got %v", got)
	}
}

// TestUnknownBeforeSchema: a misspelt required field is the cause of the
// schema violation that follows it, so both are reported, the cause
// first.
func TestUnknownBeforeSchema(t *testing.T) {
	stream := events(t, runStarted,
		`{"type":"TOOL_CALL_ARGS","toolCallID":"c1","delta":"{}"}`,
		runFinished)
	got := Verify(stream, Options{Client: ClientV100})
	require.NotEmpty(t, got)
	if got[0].Rule != RuleUnknownField || !strings.Contains(got[0].Message, "did you mean toolCallId?") {
		t.Errorf("got %v, want unknown-field /toolCallID first", got[0])
	}
	if len(got) < 2 || got[1].Rule != RuleSchema || got[1].Field != "/toolCallId" {
		t.Errorf("got %v, want the schema violation next", got)
	}
}
