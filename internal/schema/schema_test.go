package schema_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/internal/fuzzmain"
	"github.com/aguitest/aguitest/internal/jsonx"
	"github.com/aguitest/aguitest/internal/schema"
)

func TestMain(m *testing.M) { os.Exit(fuzzmain.Run(m)) }

func TestCheck(t *testing.T) {
	var c schema.Checker
	s := schema.Event("TOOL_CALL_START")
	require.NotNil(t, s)
	assert.Empty(t, c.Check([]byte(`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}`), s))
	issues := c.Check([]byte(`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":7}`), s)
	require.Len(t, issues, 1)
	assert.Equal(t, "/toolCallName", issues[0].Path)
	assert.Nil(t, schema.Event("NOT_AN_EVENT"))
}

func TestStripAndRemovals(t *testing.T) {
	raw := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","detla":"y"}`)
	s := schema.Event("TEXT_MESSAGE_CONTENT")
	sp, _, err := jsonx.ScanSpan(raw, 0)
	require.NoError(t, err)
	require.True(t, schema.NeedsStrip(raw, sp, s))
	assert.JSONEq(t, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}`, string(schema.AppendStripped(nil, raw, sp, s)))
	rs := schema.Removals(raw, sp, "TEXT_MESSAGE_CONTENT")
	require.Len(t, rs, 1)
	assert.Equal(t, "/detla", rs[0].Pointer)
	assert.Contains(t, rs[0].Text, "did you mean delta?")
}

// FuzzStrip: on any JSON value of any known event type, the engine never
// panics, and stripping is final: what AppendStripped writes is JSON that
// needs no more stripping and in which Removals finds nothing.
func FuzzStrip(f *testing.F) {
	f.Add("TEXT_MESSAGE_CONTENT", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","detla":"y"}`)
	f.Add("MESSAGES_SNAPSHOT", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"robot"},{"id":"2","role":"user","content":"hi","x":1}]}`)
	f.Add("STATE_DELTA", `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1,"extra":2}]}`)
	f.Add("RUN_STARTED", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[],"state":null,"forwardedProps":{}}}`)
	f.Fuzz(func(t *testing.T, typ, raw string) {
		var c schema.Checker
		_ = schema.Check0059([]byte(raw))
		s := schema.Event(typ)
		if s == nil || !json.Valid([]byte(raw)) || !strings.HasPrefix(strings.TrimLeft(raw, " \t\r\n"), "{") {
			return
		}
		b := []byte(raw)
		_ = c.Check(b, s)
		sp, _, err := jsonx.ScanSpan(b, 0)
		if err != nil {
			return
		}
		rs := schema.Removals(b, sp, typ)
		if !schema.NeedsStrip(b, sp, s) {
			return
		}
		out := schema.AppendStripped(nil, b, sp, s)
		if !json.Valid(out) {
			t.Fatalf("stripped %s into invalid JSON %s", raw, out)
		}
		osp, _, err := jsonx.ScanSpan(out, 0)
		require.NoError(t, err)
		if schema.NeedsStrip(out, osp, s) {
			t.Fatalf("stripped %s into %s, which needs stripping again", raw, out)
		}
		if again := schema.Removals(out, osp, typ); len(again) > 0 {
			t.Fatalf("stripped %s into %s, where removals remain: %v (before: %v)", raw, out, again, rs)
		}
	})
}
