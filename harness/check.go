package harness

import (
	"context"
	"fmt"
	"sync"
)

// checkT is the T a Case's Check is given under Test: what it reports
// becomes the report's problems (ProblemCheck); Fatal and FailNow end the
// Check, as they end a test.
type checkT struct {
	ctx  context.Context
	name string
	rep  *report

	mu     sync.Mutex
	failed bool
}

// checkStop ends a Check that called FailNow.
type checkStop struct{}

// runCheck runs the case's Check over res and reports what it finds.
func runCheck(ctx context.Context, rep *report, c Case, res *Result) {
	t := &checkT{ctx: ctx, name: c.Name, rep: rep}
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(checkStop); !ok {
				panic(p)
			}
		}
	}()
	c.Check(t, res)
}

func (t *checkT) Helper()                  {}
func (t *checkT) Name() string             { return t.name }
func (t *checkT) Context() context.Context { return t.ctx }
func (t *checkT) Log(args ...any)          {}
func (t *checkT) Logf(string, ...any)      {}

func (t *checkT) Error(args ...any) { t.problem(fmt.Sprintln(args...)) }

func (t *checkT) Errorf(format string, args ...any) { t.problem(fmt.Sprintf(format, args...)) }

func (t *checkT) Fatal(args ...any) {
	t.Error(args...)
	t.FailNow()
}

func (t *checkT) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	t.FailNow()
}

func (t *checkT) Fail() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = true
}

func (t *checkT) FailNow() {
	t.Fail()
	panic(checkStop{})
}

func (t *checkT) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

// problem reports text, a line of fmt.Sprintln without its newline.
func (t *checkT) problem(text string) {
	t.Fail()
	if n := len(text); n > 0 && text[n-1] == '\n' {
		text = text[:n-1]
	}
	t.rep.errorf(ProblemCheck, 0, "%s", text)
}
