package harness

import (
	"time"

	"github.com/aguitest/aguitest/agui"
)

// Leave makes the client leave a run part way through (Case.Leave), as a
// user who closes the tab or navigates away: it closes the connection once
// it has received After events (of type At, when set), or once Wait has
// passed since it posted the run, whichever comes first. What came before is the run's events, and
// the end of the stream is not verified; the client keeps what it applied,
// as HttpAgent keeps it when a run is aborted, and the case goes on with
// its follow-ups, which show whether the agent still serves the thread.
type Leave struct {
	// Run is the run to leave, numbered from 1; 0 means the first.
	Run int
	// After is how many events the client takes before leaving; 0 means 1.
	After int
	// At, when set, counts only the events of this type; a chunk counts
	// as the type it expands to (TEXT_MESSAGE_CHUNK as
	// TEXT_MESSAGE_CONTENT, TOOL_CALL_CHUNK as TOOL_CALL_ARGS,
	// REASONING_MESSAGE_CHUNK as REASONING_MESSAGE_CONTENT). Leaving at the
	// model's first text, the client leaves while the model streams.
	At agui.EventType
	// Wait, when not 0, bounds how long the client waits for them.
	Wait time.Duration
}

func (l *Leave) run() int {
	if l.Run <= 0 {
		return 1
	}
	return l.Run
}

func (l *Leave) after() int {
	if l.After <= 0 {
		return 1
	}
	return l.After
}

// counts says whether an event counts towards After.
func (l *Leave) counts(e agui.Event) bool {
	if l.At == "" || e.Type() == l.At {
		return true
	}
	switch e.Type() {
	case agui.TextMessageChunk:
		return l.At == agui.TextMessageContent
	case agui.ToolCallChunk:
		return l.At == agui.ToolCallArgs
	case agui.ReasoningMessageChunk:
		return l.At == agui.ReasoningMessageContent
	}
	return false
}
