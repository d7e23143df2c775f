package harness

import (
	"fmt"
	"strings"
)

// Frontend names the client the harness plays where the protocol leaves
// the client a choice: what it posts for a frontend tool that failed, and
// whether it posts a run after it. The zero value is FrontendCopilotKit.
type Frontend string

// The frontends the harness can play.
const (
	// FrontendCopilotKit does what @copilotkit/core 1.75 does
	// (CopilotKitCore's executeToolHandler and processAgentResult): a
	// failed tool is posted as a tool message whose content is
	// "Error: <message>", with no error field, and a failed tool asks for
	// no follow-up run: the client posts the next run after a round of
	// calls only when one of them succeeded, and otherwise waits for the
	// user (the case's next follow-up). It is the default (the zero
	// value).
	FrontendCopilotKit Frontend = "copilotkit"
	// FrontendHTTPAgent does what an application on HttpAgent of
	// @ag-ui/client does: HttpAgent runs no tool itself (runAgent applies
	// the events and returns the new messages), so the application runs
	// the calls and posts their results in a new run, a failed tool as a
	// tool message with empty content and the error in its error field,
	// as @ag-ui/core's ToolMessage schema allows.
	FrontendHTTPAgent Frontend = "httpagent"
)

// Frontends lists the frontends the harness can play, the default first.
func Frontends() []Frontend { return []Frontend{FrontendCopilotKit, FrontendHTTPAgent} }

// ParseFrontend returns the frontend named s ("" is the default), or an
// error naming the choices.
func ParseFrontend(s string) (Frontend, error) {
	for _, f := range Frontends() {
		if s == string(f) {
			return f, nil
		}
	}
	if s == "" {
		return FrontendCopilotKit, nil
	}
	names := make([]string, len(Frontends()))
	for i, f := range Frontends() {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown frontend %q: want one of %s", s, strings.Join(names, ", "))
}

// String returns the frontend's name, "copilotkit" for the zero value.
func (f Frontend) String() string {
	if f == "" {
		return string(FrontendCopilotKit)
	}
	return string(f)
}

// toolResult is the content and error field of the tool message the
// frontend posts for a call that gave content or failed with err.
func (f Frontend) toolResult(content string, err error) (string, string) {
	if err == nil {
		return content, ""
	}
	if f == FrontendHTTPAgent {
		return "", err.Error()
	}
	return "Error: " + err.Error(), ""
}

// followsUp reports whether the frontend posts a run after a round of
// calls of which failed failed, out of n.
func (f Frontend) followsUp(n, failed int) bool {
	if f == FrontendHTTPAgent {
		return true
	}
	return failed < n
}
