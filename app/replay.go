package app

import (
	"fmt"

	"kmc/checker"
	"kmc/specs"
	"kmc/traces"
)

// ReplayResult is what Replay found.
type ReplayResult struct {
	Check *specs.Check
	// NotBehaviour says why the trace is no behaviour of the check's model: the step
	// (1-based, as printed) and the reason. Nil for a behaviour.
	NotBehaviour error
	// ReplayReport is, for a behaviour, the states replayed and the check's properties it
	// violates, each with why.
	checker.ReplayReport
}

// Replay says whether t is a behaviour of the check called name of spec (its only check
// when name is ""; a trace written with Check's Out records its check in its ITF
// metadata): its first state is initial and each later one the successor of the one before
// by the action named, a lasso's back step too; and which of the check's properties it
// violates. Values compare in canonical form: ITF leaves the order of sets, maps and
// record fields free, and another tool may write them in another order than the model.
// Refusals: UnknownCheckError, NoCheckError, ModelError.
func Replay(spec *specs.Spec, t *checker.Trace, name string) (*ReplayResult, error) {
	c, err := PickCheck(spec, name)
	if err != nil {
		return nil, err
	}
	r, err := spec.ReplayRunnable(c, traces.AppendCanonical)
	if err != nil {
		return nil, &ModelError{Model: spec.Model, Err: err}
	}
	canon, err := traces.CanonicalTrace(t)
	if err != nil {
		return nil, fmt.Errorf("the trace's values: %w", err)
	}
	res := &ReplayResult{Check: c}
	res.ReplayReport, res.NotBehaviour = r.Replay(canon)
	return res, nil
}
