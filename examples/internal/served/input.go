package served

import (
	"crypto/sha1"
	"encoding/json"
	"fmt"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
)

// Input is a case's first run, the user's message text with the client's
// tools declared, on a thread of its own whose id, like the run's and the
// message's, is a UUID made of the case's name: LangGraph's API takes only
// UUIDs as thread ids, and a server that keeps threads (LangGraph's, the
// Strands adapter's) must not answer one case from another's thread.
func Input(name, text string, tools []harness.Tool, followUps ...string) harness.Input {
	var decl []agui.Tool
	for _, tool := range tools {
		decl = append(decl, agui.Tool{Name: tool.Name, Description: tool.Description, Parameters: tool.Parameters})
	}
	return harness.Input{
		RunAgentInput: &agui.RunAgentInput{
			ThreadID:       UUID("thread " + name),
			RunID:          UUID("run " + name),
			State:          json.RawMessage(`{}`),
			Messages:       []agui.Message{agui.UserMessage(UUID("user "+name), text)},
			Tools:          decl,
			ForwardedProps: json.RawMessage(`{}`),
		},
		FollowUps: followUps,
	}
}

// UUID returns a UUID (of version 5 in form) made of s.
func UUID(s string) string {
	h := sha1.Sum([]byte(s))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}
