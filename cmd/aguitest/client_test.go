package main

import (
	"strings"
	"testing"
)

// TestVerifyClient: a tool result with content parts is fine for
// @ag-ui/client 1.0.0 and fails the run in 0.0.59, which CopilotKit pins;
// strict (every client) names the client that breaks.
func TestVerifyClient(t *testing.T) {
	const stream = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"x"}
{"type":"TOOL_CALL_END","toolCallId":"c"}
{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":[{"type":"text","text":"ok"}]}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
`
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"verify", "-"}, 1, "<stdin>:4: event 4 TOOL_CALL_RESULT [messageId=m toolCallId=c]: schema: rejected by @ag-ui/client 0.0.59 (pinned by CopilotKit 1.74/1.75): TOOL_CALL_RESULT /content: Expected string, received array"},
		{[]string{"verify", "--client", "1.0.0", "-"}, 0, "ok: 5 events in 1 run conform to the strict profile"},
		{[]string{"verify", "--profile", "reference", "-"}, 0, "conform to the reference profile"},
		{[]string{"verify", "--profile", "reference", "--client", "0.0.59", "-"}, 1, "schema: TOOL_CALL_RESULT /content: Expected string, received array"},
	} {
		code, out, errOut := runCmd(t, stream, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, output:\n%s%s\nwant exit %d and %q", tc.args, code, out, errOut, tc.code, tc.want)
		}
	}
	code, _, errOut := runCmd(t, stream, "verify", "--client", "0.0.58", "-")
	if code != 2 || !strings.Contains(errOut, `unknown client version "0.0.58" (want 1.0.0 or 0.0.59)`) {
		t.Errorf("--client 0.0.58: exit %d, %s", code, errOut)
	}
}

// TestShowMessagesClient: show --messages --client 0.0.59 prints what that
// client ends with. A falsy STATE_SNAPSHOT replaces the state in 1.0.0;
// 0.0.59 keeps the state it had (it tests the snapshot for truth).
func TestShowMessagesClient(t *testing.T) {
	const stream = `data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}

data: {"type":"STATE_SNAPSHOT","snapshot":{"n":1}}

data: {"type":"STATE_SNAPSHOT","snapshot":0}

data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}

`
	_, v100, _ := runCmd(t, stream, "show", "--messages", "-")
	code, v0059, errOut := runCmd(t, stream, "show", "--messages", "--client", "0.0.59", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(v100, `"state":0`) {
		t.Errorf("1.0.0: got %s, want the state 0", v100)
	}
	if !strings.Contains(v0059, `"state":{"n":1}`) {
		t.Errorf("0.0.59: got %s, want the state {\"n\":1}", v0059)
	}
}
