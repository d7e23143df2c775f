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
