package agent

import "github.com/aguitest/aguitest/agui"

// Step is a named step of the run: STEP_STARTED when it is made,
// STEP_FINISHED at End.
type Step struct {
	r     *Run
	name  string
	ended bool
}

// Step starts a step. A step of the same name still open is an *Error
// (RuleStepActive).
func (r *Run) Step(name string) (*Step, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	const op = "Run.Step"
	if err := r.live(op, name); err != nil {
		return nil, err
	}
	if r.enforced(agui.RuleStepActive) {
		for _, h := range r.open {
			if s, ok := h.(*Step); ok && s.name == name {
				return nil, &Error{Op: op, ID: name, Rule: agui.RuleStepActive, Msg: "a step of that name is open"}
			}
		}
	}
	if err := r.emit(op, name, agui.NewStepStarted(name)); err != nil {
		return nil, err
	}
	s := &Step{r: r, name: name}
	r.opened(s)
	return s, nil
}

// Name returns the step's name.
func (s *Step) Name() string { return s.name }

func (s *Step) describe() string { return "step " + s.name }

// End sends STEP_FINISHED. It is idempotent and safe to defer.
func (s *Step) End() error {
	r := s.r
	r.mu.Lock()
	defer r.mu.Unlock()
	const op = "Step.End"
	if s.ended || r.ended == agui.RunError {
		return nil
	}
	if err := r.live(op, s.name); err != nil {
		return err
	}
	if err := r.emit(op, s.name, agui.NewStepFinished(s.name)); err != nil {
		return err
	}
	s.ended = true
	r.closed(s)
	return nil
}
