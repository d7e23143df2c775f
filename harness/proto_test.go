package harness_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
)

// streamAgent answers every run with the same events, in the encoding the
// request's Accept header asks for (or always in one, when forced), plus
// raw extra frames when it answers in protobuf.
func streamAgent(forced agui.Encoding, extra ...[]byte) harness.Agent {
	return harness.Handler(func(harness.Env) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var in agui.RunAgentInput
			json.NewDecoder(r.Body).Decode(&in)
			enc := forced
			if enc == "" {
				enc = agui.Negotiate(r.Header.Get("Accept"))
			}
			w.Header().Set("Content-Type", enc.ContentType())
			e := agui.NewEncoder(w, enc)
			for _, ev := range []agui.Event{
				agui.NewRunStarted(in.ThreadID, in.RunID),
				agui.NewStateSnapshot(map[string]any{"tasks": []string{"a"}}),
				agui.NewTextMessageStart("m1"),
				agui.NewTextMessageContent("m1", "Adding “b”… "),
				agui.NewTextMessageEnd("m1"),
				agui.NewToolCallStart("c1", "add_task", "m1"),
				agui.NewToolCallArgs("c1", `{"title":`),
				agui.NewToolCallArgs("c1", `"b"}`),
				agui.NewToolCallEnd("c1"),
				agui.NewToolCallResult("r1", "c1", `{"ok":true}`),
				agui.NewStateDelta([]any{map[string]any{"op": "add", "path": "/tasks/-", "value": "b"}}),
				agui.NewRunFinished(in.ThreadID, in.RunID),
			} {
				e.Encode(ev)
			}
			if pe, ok := e.(*agui.ProtoEncoder); ok {
				for _, x := range extra {
					pe.EncodeFrame(x)
				}
			}
		})
	})
}

var protoCase = harness.Case{Name: "stream", Input: harness.User("Add b."), NoGolden: true}

// TestProtobufPath runs a case over each encoding: the client's view must
// not depend on it.
func TestProtobufPath(t *testing.T) {
	sse := harness.Options{}.RunCase(t, streamAgent(""), protoCase)
	proto := harness.Options{Accept: agui.MediaTypeProto}.RunCase(t, streamAgent(""), protoCase)
	if sse == nil || proto == nil {
		t.Fatal("the agent did not start")
	}
	if d := cmp.Diff(sse.Messages, proto.Messages); d != "" {
		t.Errorf("messages differ (-sse +protobuf):\n%s", d)
	}
	if string(sse.State) != string(proto.State) || !strings.Contains(string(proto.State), `"b"`) {
		t.Errorf("state: SSE %s, protobuf %s", sse.State, proto.State)
	}
	se, pe := sse.Events(), proto.Events()
	if len(se) != len(pe) || len(se) != 12 {
		t.Fatalf("%d events over SSE, %d over protobuf", len(se), len(pe))
	}
	for i := range se {
		var a, b any
		json.Unmarshal(se[i].Raw(), &a)
		json.Unmarshal(pe[i].Raw(), &b)
		if !cmp.Equal(a, b) {
			t.Errorf("event %d: SSE %s, protobuf %s", i, se[i].Raw(), pe[i].Raw())
		}
	}
}

func TestProtobufPathFailures(t *testing.T) {
	for _, tt := range []struct {
		name  string
		agent harness.Agent
		want  string
	}{
		{"agent ignores Accept", streamAgent(agui.EncodingSSE),
			`asked for protobuf (Accept: application/vnd.ag-ui.event+proto), the agent answered Content-Type "text/event-stream"`},
		{"frame the client cannot read whole", streamAgent("", []byte{0x1a, 0x0a, 0x0a, 0x02, 0x08, 0x02, 0x12, 0x01, 0x6d, 0xf8, 0x03, 0x01}),
			"run 1: event 13 (TEXT_MESSAGE_END) [messageId=m]: proto-loss: the client's decoder drops /#63: unknown field 63 of TextMessageEndEvent (wire type 0) dropped"},
		{"future event", streamAgent("", []byte{0xfa, 0x03, 0x02, 0x08, 0x01}),
			"proto-loss: frame 13 at byte 427 holds an event of a later protocol version: skipped, as the reference client skips it"},
		// The trap of @ag-ui/encoder's encode(), which writes SSE whatever
		// getContentType() announced.
		{"SSE under the protobuf Content-Type", harness.Handler(func(harness.Env) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", agui.MediaTypeProto)
				agui.NewSSEEncoder(w).Encode(agui.NewRunStarted("thread-1", "run-1"))
			})
		}), `run 1: frame 1 at byte 0: frame-size: Protobuf message size exceeded maximum limit of 10485760 bytes (a frame of 1684108385 bytes); the bytes read as the text "data": is this server-sent events?`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := protoCase
			c.Accept = agui.MediaTypeProto
			r := harness.Options{}.Test(t.Context(), tt.agent, c)
			if err := r.Err(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("reported:\n%v\nwant a report containing %q", err, tt.want)
			}
		})
	}
}
