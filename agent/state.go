package agent

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wI2L/jsondiff"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/internal/jsonpatch"
)

// ErrPatch is returned (wrapped) by Run.StatePatch when the patch does not
// apply to the state the client holds.
var ErrPatch = errors.New("agent: the patch does not apply to the client's state")

// The run's state is a JSON document the client holds: the input's state
// when the run starts, then each snapshot and delta the run publishes. The
// agent edits a Go value of its own and publishes it; the run remembers
// what the client holds, so that a delta is computed against it.

// DecodeState decodes the state the client holds into v: the input's
// state, or what the run last published.
func (r *Run) DecodeState(v any) error {
	r.mu.Lock()
	data := r.state
	r.mu.Unlock()
	return json.Unmarshal(data, v)
}

// State returns the state the client holds, as JSON.
func (r *Run) State() json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return json.RawMessage(r.state)
}

// StateSnapshot publishes doc, encoded as JSON, as the whole state
// (STATE_SNAPSHOT). It may be called while calls, messages or steps are
// open: working while a call is open is what streaming a call is for.
func (r *Run) StateSnapshot(doc any) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("agent: Run.StateSnapshot: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	const op = "Run.StateSnapshot"
	if err := r.live(op, ""); err != nil {
		return err
	}
	if err := r.emit(op, "", agui.NewStateSnapshot(json.RawMessage(b))); err != nil {
		return err
	}
	r.state = b
	return nil
}

// StateDelta publishes doc as a JSON Patch (RFC 6902) from the state the
// client holds to doc (STATE_DELTA), computed by github.com/wI2L/jsondiff
// (arrays compared by longest common subsequence). When nothing changed it
// sends nothing.
//
// The diff uses add, remove and replace only: jsondiff's Factorize option
// (move and copy) makes patches that do not apply in v0.7.1
// (TestJSONDiffFactorize).
func (r *Run) StateDelta(doc any) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("agent: Run.StateDelta: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	const op = "Run.StateDelta"
	if err := r.live(op, ""); err != nil {
		return err
	}
	patch, err := jsondiff.CompareJSON(r.state, b, jsondiff.LCS())
	if err != nil {
		return fmt.Errorf("agent: Run.StateDelta: %w", err)
	}
	if len(patch) == 0 {
		return nil
	}
	ops, err := marshalPatch(patch)
	if err != nil {
		return fmt.Errorf("agent: Run.StateDelta: %w", err)
	}
	if err := r.emit(op, "", agui.NewStateDelta(json.RawMessage(ops))); err != nil {
		return err
	}
	r.state = b
	return nil
}

// StatePatch publishes ops, a JSON Patch (RFC 6902) operation list encoded
// with encoding/json, as STATE_DELTA: for an agent that knows its change
// better than a diff would say it. The patch must apply to the state the
// client holds; otherwise StatePatch returns an error wrapping ErrPatch and
// sends nothing.
func (r *Run) StatePatch(ops any) error {
	b, err := json.Marshal(ops)
	if err != nil {
		return fmt.Errorf("agent: Run.StatePatch: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	const op = "Run.StatePatch"
	if err := r.live(op, ""); err != nil {
		return err
	}
	// Applied as the client applies it (jsonpatch.Apply is fast-json-patch's
	// behaviour, held to it by a differential test).
	next, err := jsonpatch.Apply(r.state, b)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPatch, err)
	}
	if err := r.emit(op, "", agui.NewStateDelta(json.RawMessage(b))); err != nil {
		return err
	}
	r.state = next
	return nil
}

// patchOp is a JSON Patch operation with its members in the order RFC 6902
// writes them.
type patchOp struct {
	Op    string          `json:"op"`
	From  string          `json:"from,omitempty"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
}

// marshalPatch encodes a patch op, from, path, value: the order people read.
func marshalPatch(p jsondiff.Patch) ([]byte, error) {
	ops := make([]patchOp, len(p))
	for i, o := range p {
		ops[i] = patchOp{Op: o.Type, From: o.From, Path: o.Path}
		switch o.Type {
		case jsondiff.OperationAdd, jsondiff.OperationReplace, jsondiff.OperationTest:
			v, err := json.Marshal(o.Value)
			if err != nil {
				return nil, err
			}
			ops[i].Value = v
		}
	}
	return json.Marshal(ops)
}
