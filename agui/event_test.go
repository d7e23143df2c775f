package agui

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseEventKeepsBytes(t *testing.T) {
	for _, in := range []string{
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"h\u00e9\"","unknown":[1,{"a":null}],"z":null}`,
		`{"delta":"x","type":"VENDOR_EVENT","type2":true}`,
		`{ "type" : "RUN_STARTED" ,"threadId":"t","runId":"r","input":{"messages":[]} }`,
		`{"type":"THINKING_START","title":"legacy"}`,
	} {
		e, err := ParseEvent([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := string(e.Raw()); got != in {
			t.Errorf("Raw() = %s, want %s", got, in)
		}
		if b, _ := e.MarshalJSON(); !bytes.Equal(b, []byte(in)) {
			t.Errorf("MarshalJSON() = %s", b)
		}
	}
}

func TestEventAccessors(t *testing.T) {
	e, err := ParseEvent([]byte(`{"type":"TOOL_CALL_START","toolCallId":"c\u00e9","toolCallName":"add","parentMessageId":"m1",` +
		`"subagentRunId":"s1","timestamp":1700000000123,"runId":"r","threadId":"t","stepName":"plan","role":"assistant","delta":"d","messageId":"m","name":"n"}`))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{string(e.Type()), e.ToolCallID(), e.ToolCallName(), e.ParentMessageID(), e.SubagentRunID(),
		e.RunID(), e.ThreadID(), e.StepName(), e.Role(), e.Delta(), e.MessageID(), e.Name()}
	want := []string{"TOOL_CALL_START", "cé", "add", "m1", "s1", "r", "t", "plan", "assistant", "d", "m", "n"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("accessors (-want +got):\n%s", diff)
	}
	if ts, ok := e.Timestamp(); !ok || ts != 1700000000123 {
		t.Errorf("Timestamp() = %d, %v", ts, ok)
	}
	if e.Has("absent") || !e.Has("timestamp") {
		t.Error("Has")
	}
}

func TestEventDuplicateKeysLastWins(t *testing.T) {
	e, err := ParseEvent([]byte(`{"type":"TEXT_MESSAGE_END","messageId":"a","messageId":"b"}`))
	if err != nil {
		t.Fatal(err)
	}
	if e.MessageID() != "b" {
		t.Errorf("MessageID() = %q, want b (JSON.parse keeps the last)", e.MessageID())
	}
}

func TestParseEventErrors(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", "empty event"},
		{"array", `[1,2]`, "not a JSON object"},
		{"string", `"RUN_STARTED"`, "not a JSON object"},
		{"no type", `{"messageId":"m"}`, `no string "type"`},
		{"type not a string", `{"type":5}`, `no string "type"`},
		{"truncated", `{"type":"RUN_STARTED","threadId":`, "unexpected end of input"},
		{"trailing data", `{"type":"RUN_STARTED"} {}`, "unexpected data after"},
		{"invalid UTF-8", "{\"type\":\"X\",\"d\":\"\xff\"}", "invalid UTF-8"},
		{"bad escape", `{"type":"X","d":"\q"}`, "invalid escape"},
		{"too deep", `{"type":"X","d":` + deep + `}`, "nesting deeper than"},
		{"control character", "{\"type\":\"X\",\"d\":\"a\nb\"}", "control character"},
		{"missing colon", `{"type" "X"}`, "':' expected"},
		{"trailing comma", `{"type":"X",}`, "object key expected"},
		{"bad number", `{"type":"X","n":01}`, "',' or '}' expected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseEvent([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseEvent(%.40q) error = %v, want it to contain %q", tt.in, err, tt.want)
			}
		})
	}
	var se *SyntaxError
	if _, err := ParseEvent([]byte(`{"type":"X","a":tru}`)); !errors.As(err, &se) || se.Offset != 16 {
		t.Errorf("SyntaxError offset: got %v", err)
	}
}

func TestConstructors(t *testing.T) {
	got := []string{
		NewRunStarted("t", "r").String(),
		NewToolCallStart("c1", "add", "").String(),
		NewToolCallStart("c1", "add", "m1").String(),
		NewToolCallArgs("c1", `{"q":"\"é"}`).String(),
		NewRunError("boom", "").String(),
		NewStateDelta([]map[string]any{{"op": "add", "path": "/a", "value": 1}}).String(),
		NewEvent(Custom, "name", "n", "value", map[string]int{"b": 1}).String(),
	}
	want := []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"add"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"add","parentMessageId":"m1"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"q\":\"\\\"é\"}"}`,
		`{"type":"RUN_ERROR","message":"boom"}`,
		`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1}]}`,
		`{"type":"CUSTOM","name":"n","value":{"b":1}}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if d := NewToolCallArgs("c1", `{"q":"\"é"}`).Delta(); d != `{"q":"\"é"}` {
		t.Errorf("Delta round trip: %q", d)
	}
}

func TestEventTypes(t *testing.T) {
	if len(EventTypes) != 31 {
		t.Errorf("%d event types, want the 31 of @ag-ui/core 1.0.0", len(EventTypes))
	}
	for _, et := range EventTypes {
		if !et.Known() || et.Legacy() {
			t.Errorf("%s: Known=%v Legacy=%v", et, et.Known(), et.Legacy())
		}
	}
	for _, et := range LegacyEventTypes {
		if et.Known() || !et.Legacy() {
			t.Errorf("%s: Known=%v Legacy=%v", et, et.Known(), et.Legacy())
		}
	}
}
