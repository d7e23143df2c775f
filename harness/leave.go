package harness

import "time"

// Leave makes the client leave a run part way through (Case.Leave), as a
// user who closes the tab or navigates away: it closes the connection once
// it has received After events, or once Wait has passed since it posted the
// run, whichever comes first. What came before is the run's events, and
// the end of the stream is not verified; the client keeps what it applied,
// as HttpAgent keeps it when a run is aborted, and the case goes on with
// its follow-ups, which show whether the agent still serves the thread.
type Leave struct {
	// Run is the run to leave, numbered from 1; 0 means the first.
	Run int
	// After is how many events the client takes before leaving; 0 means 1.
	After int
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
