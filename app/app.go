// Package app is kmc's application: what its commands do, as a Go API that the command line,
// and any other Go program, calls.
//
//   - Check runs a check of a spec, with checkpoints, resume and its counterexample written
//     to a folder; Graph builds the whole reachable graph of a small one.
//   - Simulate takes random walks through a check's model.
//   - Suite runs every check of every spec under a folder against its expectations.
//   - Sweep runs a check over a grid of constants and fault budgets.
//   - Mutate turns each named guard of the model off in turn.
//   - Why replays a violation under each fix switch turned, and runs the whole check.
//   - Bench runs the benchmark table, each row in a child kmc process.
//
// Each takes a context: cancelling it stops the work as a limit would, and the partial
// result comes back marked interrupted (no error). Progress is reported as typed events
// (events.go) to the OnEvent func of the operation's options, from the goroutine that
// called it; results are values. Nothing here prints: a refusal of the input is an error
// value (a spec's errors carry their file, line and column, specs.ErrorList; the others
// are the types in errors.go), which the caller reports.
package app

import (
	"context"
	"runtime"
	"strings"
	"time"

	"kmc/checker"
	"kmc/specs"
)

// Search says how each search of an operation runs, on top of the options of the spec and
// its check (specs.MergeOptions). The zero value keeps the spec's.
type Search struct {
	Workers   int           // 0: the spec's, else every core (at most specs.MaxWorkers)
	MaxStates int64         // distinct states; 0: the spec's limit, else none
	MaxDepth  int           // 0: the spec's limit, else none
	Memory    int64         // budget in bytes, over the spec's; 0: the spec's, else DefaultMemory
	Time      time.Duration // 0: the spec's budget, else none
	SpillDir  string        // "": the spec's, else the system's temporary folder
	Deadlock  bool          // report a reachable state without successors
	Symmetry  Symmetry
	POR       POR
}

// POR says whether a search uses the partial-order reduction (checker.Options.POR).
type POR int

const (
	// PORDefault is the spec's choice: on in a safety check (where the model declares
	// independence), off in a liveness check.
	PORDefault POR = iota
	// POROn asks for it; a check with a liveness property is then refused by the engine
	// (verdict incomplete, the reason naming the property).
	POROn
	// POROff never uses it.
	POROff
)

// Symmetry says whether a search uses the model's symmetry reduction.
type Symmetry int

const (
	// SymmetryDefault is the spec's choice, which for the kafka model is on in a safety
	// check where brokers are interchangeable.
	SymmetryDefault Symmetry = iota
	// SymmetryOn asks for it; a model without one is refused (NoSymmetryError).
	SymmetryOn
	// SymmetryOff never uses it.
	SymmetryOff
)

// options is the spec's options spec with s on top: a memory budget that neither sets is
// DefaultMemory, and no worker count is every core.
func (s Search) options(spec checker.Options) checker.Options {
	over := checker.Options{Workers: s.Workers, MaxStates: s.MaxStates, MaxDepth: s.MaxDepth, MemoryBytes: s.Memory,
		Time: s.Time, SpillDir: s.SpillDir, Deadlock: s.Deadlock, Symmetry: s.Symmetry == SymmetryOn}
	if s.Memory == 0 && spec.MemoryBytes == 0 {
		over.MemoryBytes = DefaultMemory()
	}
	o := specs.MergeOptions(spec, over, s.Memory != 0)
	if s.Symmetry == SymmetryOff {
		o.Symmetry = false
	}
	switch s.POR {
	case POROn:
		o.POR = true
	case POROff:
		o.POR = false
	}
	if o.Workers == 0 {
		o.Workers = min(runtime.NumCPU(), specs.MaxWorkers)
	}
	return o
}

// run builds the check (or its robustness neighbour n, when not nil) and runs its search
// with s over the spec's options, stopped by ctx; a search that ctx stopped is incomplete
// with the reason "interrupted". The Go runtime's memory limit is the search's budget while
// it runs.
func (s Search) run(ctx context.Context, spec *specs.Spec, c *specs.Check, n *specs.Neighbour) (checker.Result, error) {
	r, opts, err := runnable(spec, c, n)
	if err != nil {
		return checker.Result{}, err
	}
	opts = s.options(opts)
	opts.Stop = ctx.Done()
	defer withMemoryLimit(opts.MemoryBytes)()
	res, _ := interrupted(ctx, r.Check(opts))
	return res, nil
}

// build picks the check called name of spec (PickCheck) and builds its model.
func build(spec *specs.Spec, name string) (*specs.Check, checker.Runnable, checker.Options, error) {
	c, err := PickCheck(spec, name)
	if err != nil {
		return nil, nil, checker.Options{}, err
	}
	r, opts, err := runnable(spec, c, nil)
	return c, r, opts, err
}

// runnable builds the model of check c of spec, or of its robustness neighbour n when n is
// not nil, with the spec's options for its search; a configuration the model refuses is a
// ModelError.
func runnable(spec *specs.Spec, c *specs.Check, n *specs.Neighbour) (checker.Runnable, checker.Options, error) {
	var r checker.Runnable
	var opts checker.Options
	var err error
	if n != nil {
		r, opts, err = spec.NeighbourRunnable(c, *n)
	} else {
		r, opts, err = spec.Runnable(c)
	}
	if err != nil {
		return nil, opts, &ModelError{Model: spec.Model, Err: err}
	}
	return r, opts, nil
}

// interrupted marks an incomplete result of a search that ctx stopped, and reports whether
// it did. A stop in the liveness phase of a complete graph keeps saying where it came
// ("interrupted during the liveness check of P"); the result's Interrupted, the engine's,
// names what cut the search short whatever the verdict.
func interrupted(ctx context.Context, res checker.Result) (checker.Result, bool) {
	if res.Verdict == checker.Incomplete && ctx.Err() != nil {
		if rest, ok := strings.CutPrefix(res.Reason, "stopped during the liveness check"); ok {
			res.Reason = Interrupted + " during the liveness check" + rest
		} else {
			res.Reason = Interrupted
		}
		return res, true
	}
	return res, false
}

// Interrupted is the reason of an incomplete result whose search the context stopped.
const Interrupted = "interrupted"
