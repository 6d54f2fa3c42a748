package app

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"kmc/checker"
	"kmc/specs"
)

// SuiteOptions say how Suite runs each check.
type SuiteOptions struct {
	Workers int   // search workers per check; 0: the spec's, else every core
	Memory  int64 // memory budget of the specs that set none; 0: DefaultMemory
	// ComparePOR runs each check that its search ran under the partial-order reduction
	// (and reduced a state) a second time without it, and counts as a difference another
	// verdict or property, another trace length, or a reduced search's trace that does not
	// replay as a violation of its property (SuiteRow.Plain).
	ComparePOR bool
	// OnEvent, when set, gets SuiteLoaded, then SuiteRowDone for each check and each
	// robustness neighbour as it comes.
	OnEvent func(Event)
	// Run, when set, runs each search instead of r.Check: kmc suite --partitions.
	Run func(r checker.Runnable, opts checker.Options) checker.Result
	// RunCheck, when set, runs the searches in place of Run, told the spec, the check and
	// the neighbour (nil: the check itself) that r was built from (kmc suite --cluster: the
	// nodes build it again from them).
	RunCheck func(spec *specs.Spec, c *specs.Check, n *specs.Neighbour, r checker.Runnable, opts checker.Options) checker.Result
}

// SuiteRow is one check of a suite, or one of its robustness neighbours, and what it gave.
type SuiteRow struct {
	Spec      *specs.Spec
	Check     *specs.Check
	Neighbour *specs.Neighbour // the robustness neighbour (check[max_epoch+1]), or nil
	Result    checker.Result
	// Interrupted says that ctx cut the search short: no outcome, nothing compared.
	Interrupted bool
	// Expectation compares a check's result with its spec (for a neighbour, Differs holds
	// specs.Check.CompareNeighbour's line, if any).
	Expectation
	// Plain, with SuiteOptions.ComparePOR, is the result of the search without the
	// partial-order reduction, when the check's search reduced a state; its differences
	// from Result are in Differs, each starting "por: ".
	Plain *checker.Result
}

// Name is the row's check: "buggy", or "buggy[max_epoch+1]" for a neighbour.
func (r *SuiteRow) Name() string {
	if r.Neighbour != nil {
		return r.Check.Name + "[" + r.Neighbour.String() + "]"
	}
	return r.Check.Name
}

// Expected is what the row must give: the check's expectation, or for a neighbour
// specs.Check.NeighbourExpected.
func (r *SuiteRow) Expected() string {
	if r.Neighbour != nil {
		return r.Check.NeighbourExpected()
	}
	return r.Check.Expected()
}

// SuiteResult is what Suite found.
type SuiteResult struct {
	Specs []*specs.Spec
	Rows  []SuiteRow
	// Checks and Neighbours count the checks and robustness neighbours run to the end, of
	// Total checks; Mismatches those that differ from their expectations, of which
	// NeighbourMismatches are neighbours.
	Checks, Neighbours              int
	Total                           int
	Mismatches, NeighbourMismatches int
	// Interrupted says that ctx stopped the suite: the checks after the rows were not run.
	Interrupted bool
}

// Suite loads every spec under dir (recursively, sorted: specs.FindSpecs), runs each of
// their checks with the spec's options and o on top, then each check's robustness
// neighbours (specs.Check.CompareNeighbour), and compares what each gave with what its spec
// expects, vacuity pins included. A spec that fails to load stops the suite before anything
// runs: the error joins each spec's specs.ErrorList. Cancelling ctx stops it: the search it
// cuts short is a row marked Interrupted (not a difference), and no further check runs.
func Suite(ctx context.Context, dir string, o SuiteOptions) (*SuiteResult, error) {
	emit := emitter(o.OnEvent)
	paths, err := specs.FindSpecs(dir)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("suite: no *.toml files under %s", dir)
	}
	res := &SuiteResult{}
	var errs []error
	for _, p := range paths {
		s, err := specs.Load(p, nil)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		res.Specs = append(res.Specs, s)
		res.Total += len(s.Checks)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	emit(SuiteLoaded{Specs: res.Specs, Checks: res.Total})
	over := checker.Options{Workers: o.Workers, MemoryBytes: o.Memory, Stop: ctx.Done(),
		Vacuity: true} // a pinned vacuous = false is compared (Check.CompareVacuous)
	if over.MemoryBytes == 0 {
		over.MemoryBytes = DefaultMemory()
	}
	// The Go runtime's soft limit is the budget of the specs that set none, as Check sets
	// it (a spec's own limits.memory bounds its search, not the process).
	defer withMemoryLimit(over.MemoryBytes)()
	run := func(row SuiteRow) (*SuiteRow, error) {
		r, opts, err := runnable(row.Spec, row.Check, row.Neighbour)
		if err != nil {
			return nil, err
		}
		search := r.Check
		if o.Run != nil {
			search = func(opts checker.Options) checker.Result { return o.Run(r, opts) }
		}
		if o.RunCheck != nil {
			search = func(opts checker.Options) checker.Result {
				return o.RunCheck(row.Spec, row.Check, row.Neighbour, r, opts)
			}
		}
		merged := specs.MergeOptions(opts, over, false)
		row.Result, row.Interrupted = interrupted(ctx, search(merged))
		var porDiffs []string
		if o.ComparePOR && !row.Interrupted && row.Result.Stats.POR && row.Result.Stats.Reduced > 0 {
			merged.POR = false
			plain, intr := interrupted(ctx, search(merged))
			row.Interrupted = intr
			if !intr {
				row.Plain = &plain
				porDiffs = comparePOR(r, row.Result, plain)
			}
		}
		switch {
		case row.Interrupted:
			res.Interrupted = true
		case row.Neighbour != nil:
			res.Neighbours++
			if d := row.Check.CompareNeighbour(*row.Neighbour, row.Result); d != "" {
				row.Differs = []string{d}
				res.Mismatches++
				res.NeighbourMismatches++
			}
		default:
			res.Checks++
			var branches []specs.BranchCount
			if bc, ok := r.(specs.BranchCounter); ok {
				branches = bc.Branches(row.Result.Tallies)
			}
			row.Expectation = expect(row.Spec, row.Check, row.Result, branches)
			row.Differs = append(row.Differs, porDiffs...)
			if len(row.Mismatches()) > 0 {
				res.Mismatches++
			}
		}
		res.Rows = append(res.Rows, row)
		emit(SuiteRowDone{&res.Rows[len(res.Rows)-1]})
		return &res.Rows[len(res.Rows)-1], nil
	}
	for _, s := range res.Specs {
		for i := range s.Checks {
			c := &s.Checks[i]
			if res.Interrupted = res.Checks > 0 && ctx.Err() != nil; res.Interrupted {
				return res, nil
			}
			row, err := run(SuiteRow{Spec: s, Check: c})
			if err != nil {
				return res, err
			}
			if row.Interrupted {
				return res, nil
			}
			for _, n := range c.Robust {
				row, err := run(SuiteRow{Spec: s, Check: c, Neighbour: &n})
				if err != nil {
					return res, err
				}
				if row.Interrupted {
					return res, nil
				}
			}
		}
	}
	return res, nil
}

// comparePOR lists how a search under the partial-order reduction (red) differs from the
// plain one: verdict, property, trace length, and whether its trace replays on r as a
// violation of its property.
func comparePOR(r checker.Runnable, red, plain checker.Result) []string {
	if red.Verdict != plain.Verdict || red.Property != plain.Property {
		return []string{"por: got " + specs.Outcome(red.Verdict, red.Property) + ", without the reduction " + specs.Outcome(plain.Verdict, plain.Property)}
	}
	if red.Verdict != checker.Violated || red.Trace == nil {
		return nil
	}
	var out []string
	if a, b := len(red.Trace.States), len(plain.Trace.States); a != b {
		out = append(out, fmt.Sprintf("por: trace of %d states, without the reduction %d", a, b))
	}
	rep, err := r.Replay(red.Trace)
	switch {
	case err != nil:
		out = append(out, "por: the trace does not replay: "+err.Error())
	case red.Property != specs.DeadlockProperty && !slices.Contains(rep.Violates, red.Property):
		out = append(out, "por: the trace replays but does not violate "+red.Property)
	}
	return out
}
