package app

import (
	"context"
	"errors"
	"slices"
	"time"

	"kmc/checker"
	"kmc/specs"
)

// MutateOptions say which guards Mutate turns off, and how each run goes.
type MutateOptions struct {
	// Guards are the guards to turn off, one at a time, in order; nil: every guard of the
	// model (specs.Family.GuardNames).
	Guards []string
	// Search is how each run's search goes.
	Search Search
	// Raise, for a guard that no property catches, runs the check's neighbours one step up
	// (its robust entries that move a value up, else each integer constant and fault budget
	// below its maximum) to find the bound to raise first, each run stopped after
	// RaiseMaxStates distinct states (0: the spec's limit).
	Raise          bool
	RaiseMaxStates int64
	// OnEvent, when set, gets MutantStarted, MutantDone and NeighbourStarted.
	OnEvent func(Event)
}

// MutantOutcome is what turning a guard off gave.
type MutantOutcome string

// Outcomes of a mutant.
const (
	Caught           MutantOutcome = "caught"      // a property is violated: the guard earns its place
	NotCovered       MutantOutcome = "not covered" // the check still passes
	NotApplicable    MutantOutcome = "n/a"         // the model refuses the configuration
	MutantIncomplete MutantOutcome = "incomplete"  // a limit stopped the search
	Baseline         MutantOutcome = "baseline"    // the check as it is, every guard on
)

// Mutant is the check run with one guard off ("" for the baseline), and for a guard that no
// property caught, the bound to raise first.
type Mutant struct {
	Guard    string
	Outcome  MutantOutcome
	Verdict  checker.Verdict
	Property string
	Reason   string // why n/a or incomplete
	Depth    int    // specs.ResultDepth: the trace length when caught
	Distinct int64
	Elapsed  time.Duration
	// Raise, for a guard not covered, is the neighbour one step up that catches it with
	// the fewest states ("max_epoch+1"), with what it found there; Tried lists the
	// neighbours run.
	Raise         string
	RaiseProperty string
	RaiseStates   int64
	Tried         []string
}

// MutateResult is what Mutate found.
type MutateResult struct {
	Check *specs.Check
	// Mutants are the rows: the baseline first, then one per guard run, in order.
	Mutants []Mutant
	Total   int // guards to run
	// Interrupted says that ctx stopped Mutate: the guards after the rows were not run.
	Interrupted bool
}

// Count counts the guards run with outcome x.
func (r *MutateResult) Count(x MutantOutcome) int {
	n := 0
	for i := range r.Mutants {
		if r.Mutants[i].Outcome == x {
			n++
		}
	}
	return n
}

// NoGuardsError is a model without named guards to turn off.
type NoGuardsError struct{ Model string }

func (e *NoGuardsError) Error() string { return "model " + e.Model + " has no named guards" }

// TwiceError is a guard named twice.
type TwiceError struct{ Name string }

func (e *TwiceError) Error() string { return e.Name + " is given twice" }

// errBaselineFails marks a raise neighbour at which the check fails with every guard on.
var errBaselineFails = errors.New("the check fails there with every guard on")

// Mutate runs the check called name of spec (its only check when name is "") as it is,
// then with each named guard of the model turned off in turn: a property that catches the
// mutant shows that the guard earns its place; one that no property catches is a guard
// redundant at these bounds, or a property missing. A check that does not pass as it is can
// catch nothing: Mutate then returns its baseline alone. Cancelling ctx stops it: a run cut
// short is not in the result, and ctx during the baseline leaves no row. Refusals before
// anything runs: UnknownCheckError, NoCheckError, NoGuardsError, UnknownNameError,
// TwiceError; the baseline's model refusing is a ModelError.
func Mutate(ctx context.Context, spec *specs.Spec, name string, o MutateOptions) (*MutateResult, error) {
	emit := emitter(o.OnEvent)
	c, err := PickCheck(spec, name)
	if err != nil {
		return nil, err
	}
	all := spec.Family.GuardNames()
	if len(all) == 0 {
		return nil, &NoGuardsError{Model: spec.Family.Name}
	}
	list := all
	if len(o.Guards) > 0 {
		list = nil
		for _, g := range o.Guards {
			if !slices.Contains(all, g) {
				return nil, &UnknownNameError{What: "guard", Model: spec.Family.Name, Name: g, Known: all}
			}
			if slices.Contains(list, g) {
				return nil, &TwiceError{Name: g}
			}
			list = append(list, g)
		}
	}
	res := &MutateResult{Check: c, Total: len(list)}
	emit(MutantStarted{Total: res.Total})
	base, err := o.Search.run(ctx, spec, c, nil)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		res.Interrupted = true
		return res, nil
	}
	res.Mutants = append(res.Mutants, Mutant{Outcome: Baseline, Verdict: base.Verdict, Property: base.Property,
		Reason: base.Reason, Depth: specs.ResultDepth(base), Distinct: base.Stats.Distinct, Elapsed: base.Stats.Elapsed})
	if base.Verdict != checker.OK {
		return res, nil
	}
	raise := o.Search
	raise.MaxStates = o.RaiseMaxStates
	baselines := map[string]checker.Result{} // the check at each neighbour, every guard on
	for i, g := range list {
		emit(MutantStarted{N: i + 1, Total: res.Total, Guard: g})
		if ctx.Err() != nil {
			res.Interrupted = true
			break
		}
		mc := c.Mutant(g)
		m := Mutant{Guard: g}
		r, err := o.Search.run(ctx, spec, &mc, nil)
		if err != nil {
			m.Outcome, m.Reason = NotApplicable, Reason(err)
			res.Mutants = append(res.Mutants, m)
			emit(MutantDone{N: i + 1, Total: res.Total, Mutant: &res.Mutants[len(res.Mutants)-1]})
			continue
		}
		if ctx.Err() != nil && r.Verdict == checker.Incomplete {
			res.Interrupted = true
			break
		}
		m.Verdict, m.Property, m.Reason = r.Verdict, r.Property, r.Reason
		m.Depth, m.Distinct, m.Elapsed = specs.ResultDepth(r), r.Stats.Distinct, r.Stats.Elapsed
		switch r.Verdict {
		case checker.Violated:
			m.Outcome = Caught
		case checker.OK:
			m.Outcome = NotCovered
		default:
			m.Outcome = MutantIncomplete
		}
		emit(MutantDone{N: i + 1, Total: res.Total, Mutant: &m})
		if m.Outcome != Caught && o.Raise {
			res.Interrupted = raiseFirst(ctx, spec, &mc, &m, func(n specs.Neighbour) (checker.Result, error) {
				// The neighbour must pass with every guard on, or its violation says nothing
				// about the guard: its baseline is run once and kept.
				b, ok := baselines[n.String()]
				if !ok {
					emit(NeighbourStarted{N: i + 1, Total: res.Total, Neighbour: n})
					var err error
					if b, err = raise.run(ctx, spec, c, &n); err != nil {
						return b, err
					}
					if ctx.Err() != nil && b.Verdict == checker.Incomplete {
						return b, nil
					}
					baselines[n.String()] = b
				}
				if b.Verdict == checker.Violated {
					return checker.Result{}, errBaselineFails
				}
				emit(NeighbourStarted{N: i + 1, Total: res.Total, Guard: g, Neighbour: n})
				return raise.run(ctx, spec, &mc, &n)
			})
			if res.Interrupted {
				break
			}
		}
		res.Mutants = append(res.Mutants, m)
	}
	return res, nil
}

// raiseCandidates are the neighbours one step up that Raise tries for check c: its robust
// entries that move a value up, else every integer constant and fault of the family below
// its maximum, in the family's order.
func raiseCandidates(spec *specs.Spec, c *specs.Check) []specs.Neighbour {
	var out []specs.Neighbour
	for _, n := range c.Robust {
		if n.Delta > 0 {
			out = append(out, specs.Neighbour{Param: n.Param, Delta: n.Delta})
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, p := range append(append([]specs.Param(nil), spec.Family.Constants...), spec.Family.Faults...) {
		if p.Kind == specs.Int && c.Config.Values[p.Name] < p.Max {
			out = append(out, specs.Neighbour{Param: p.Name, Delta: 1})
		}
	}
	return out
}

// raiseFirst runs the raise candidates of a mutant no property caught and records in m the
// one that catches it with the fewest distinct states (the first on a tie). It reports
// whether ctx stopped it.
func raiseFirst(ctx context.Context, spec *specs.Spec, mc *specs.Check, m *Mutant, run func(specs.Neighbour) (checker.Result, error)) bool {
	for _, n := range raiseCandidates(spec, mc) {
		res, err := run(n)
		if err != nil {
			continue // the model rejects the neighbour (min_isr above brokers, ...), or the check fails there
		}
		if ctx.Err() != nil && res.Verdict == checker.Incomplete {
			return true
		}
		m.Tried = append(m.Tried, n.String())
		if res.Verdict == checker.Violated && (m.Raise == "" || res.Stats.Distinct < m.RaiseStates) {
			m.Raise, m.RaiseProperty, m.RaiseStates = n.String(), res.Property, res.Stats.Distinct
		}
	}
	return false
}
