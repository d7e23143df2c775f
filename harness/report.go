package harness

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aguitest/aguitest/agui"
)

// WantError is the RUN_ERROR a case expects (Case.WantError). Its zero
// value accepts any RUN_ERROR.
type WantError struct {
	// Message, when not "", is a regular expression (package regexp) that
	// the RUN_ERROR's message must match; it matches anywhere in the
	// message unless anchored with ^ and $.
	Message string
	// Code, when not "", is the RUN_ERROR's code, exactly.
	Code string
}

// String describes what is wanted, as in `message matching "x", code "Y"`.
func (w WantError) String() string {
	var parts []string
	if w.Message != "" {
		parts = append(parts, "message matching "+strconv.Quote(w.Message))
	}
	if w.Code != "" {
		parts = append(parts, "code "+strconv.Quote(w.Code))
	}
	if len(parts) == 0 {
		return "any message and code"
	}
	return strings.Join(parts, ", ")
}

// wantError is a WantError ready to match.
type wantError struct {
	WantError
	message *regexp.Regexp
}

// compile returns w ready to match, or nil for a nil w.
func (w *WantError) compile() (*wantError, error) {
	if w == nil {
		return nil, nil
	}
	re, err := regexp.Compile(w.Message)
	if err != nil {
		return nil, fmt.Errorf("WantError.Message is not a regular expression: %w", err)
	}
	return &wantError{WantError: *w, message: re}, nil
}

// check reports the runs of res that ended with RUN_ERROR, against what
// the case wants (nothing when w is nil).
func (w *wantError) check(rep *report, res *Result) {
	errored := false
	var endings []string
	for i, run := range res.Runs {
		n := i + 1
		msg, code, ok := runError(run.Events)
		if !ok {
			endings = append(endings, fmt.Sprintf("run %d %s", n, ending(run)))
			continue
		}
		errored = true
		got := describeRunError(msg, code)
		switch {
		case w == nil:
			rep.causef("run %d ended with RUN_ERROR: %s (set Case.WantError if the case expects it)", n, got)
		case !w.message.MatchString(msg) || w.Code != "" && w.Code != code:
			rep.causef("run %d ended with RUN_ERROR: got %s, want %s", n, got, w.WantError)
		}
	}
	if w != nil && !errored {
		rep.errorf("want a run ending with RUN_ERROR (%s), got none: %s", w.WantError, strings.Join(endings, ", "))
	}
}

// runError returns the message and code of a run's RUN_ERROR.
func runError(events []agui.Event) (message, code string, ok bool) {
	for _, e := range events {
		if e.Type() != agui.RunError {
			continue
		}
		var f struct {
			Message any `json:"message"`
			Code    any `json:"code"`
		}
		_ = json.Unmarshal(e.Raw(), &f)
		return text(f.Message), text(f.Code), true
	}
	return "", "", false
}

// text returns a string as it is, and anything else as its JSON.
func text(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func describeRunError(message, code string) string {
	s := "message " + strconv.Quote(message)
	if code == "" {
		return s + ", no code"
	}
	return s + ", code " + strconv.Quote(code)
}

// ending says how a run without RUN_ERROR ended.
func ending(run RunResult) string {
	switch {
	case run.Err != nil:
		return "failed"
	case len(run.Events) == 0:
		return "sent no events"
	}
	for i := len(run.Events) - 1; i >= 0; i-- {
		if run.Events[i].Type() == agui.RunFinished {
			return "finished"
		}
	}
	return "ended without RUN_FINISHED"
}

// report collects the failures of a case, from any goroutine, to report
// them on the test's goroutine when the case is over: causes first (what
// ended a run early), then the rest in the order found.
type report struct {
	mu       sync.Mutex
	causes   []string
	problems []string
}

// causef records what ended a run early.
func (r *report) causef(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.causes = append(r.causes, fmt.Sprintf(format, args...))
}

// errorf records a failure.
func (r *report) errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

// flush reports what was recorded on t, causes first.
func (r *report) flush(t testing.TB) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range append(r.causes, r.problems...) {
		t.Error(s)
	}
	r.causes, r.problems = nil, nil
}
