package harness

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

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
			rep.causef(ProblemRunError, n, "run %d ended with RUN_ERROR: %s (set Case.WantError if the case expects it)", n, got)
		case !w.message.MatchString(msg) || w.Code != "" && w.Code != code:
			rep.causef(ProblemRunError, n, "run %d ended with RUN_ERROR: got %s, want %s", n, got, w.WantError)
		}
	}
	if w != nil && !errored {
		rep.errorf(ProblemRunError, 0, "want a run ending with RUN_ERROR (%s), got none: %s", w.WantError, strings.Join(endings, ", "))
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

// report collects the problems of a case, from any goroutine: causes
// first (what ended a run early), then the rest in the order found. Each
// is told to on, if set, as it is found.
type report struct {
	mu     sync.Mutex
	causes []Problem
	rest   []Problem
	on     func(Problem)
}

func (r *report) add(p Problem) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p.Cause {
		r.causes = append(r.causes, p)
	} else {
		r.rest = append(r.rest, p)
	}
	if r.on != nil {
		r.on(p)
	}
}

// causef records what ended a run early.
func (r *report) causef(kind ProblemKind, run int, format string, args ...any) {
	r.add(Problem{Kind: kind, Run: run, Cause: true, Text: fmt.Sprintf(format, args...)})
}

// errorf records a problem.
func (r *report) errorf(kind ProblemKind, run int, format string, args ...any) {
	r.add(Problem{Kind: kind, Run: run, Text: fmt.Sprintf(format, args...)})
}

// fidelity records a failed fidelity check.
func (r *report) fidelity(check Fidelity, format string, args ...any) {
	r.add(Problem{Kind: ProblemFidelity, Fidelity: check, Text: fmt.Sprintf(format, args...)})
}

// violation records a verifier's finding.
func (r *report) violation(run int, v agui.Violation, text string) {
	r.add(Problem{Kind: ProblemViolation, Run: run, Violation: &v, Text: text})
}

// hasCauses reports whether a problem ended a run early.
func (r *report) hasCauses() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.causes) > 0
}

// problems returns what was recorded, causes first.
func (r *report) problems() []Problem {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append(append([]Problem(nil), r.causes...), r.rest...)
}
