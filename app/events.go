package app

import (
	"time"

	"kmc/app/checkpoint"
	"kmc/checker"
	"kmc/specs"
)

// An Event is what an operation reports while it runs, to the OnEvent func of its options:
// one of the types below, each delivered synchronously, one at a time (a slow OnEvent slows
// the work down). The operation that reports each is named in its comment.
type Event interface{ event() }

// CheckStarted (Check): the search of check Check is about to start, with Options (the
// spec's, the caller's on top); Resumed is the checkpoint it goes on from, or nil.
type CheckStarted struct {
	Spec    *specs.Spec
	Check   *specs.Check
	Options checker.Options
	Resumed *checkpoint.Checkpoint
}

// Progress (Check): the statistics of the search so far, about every 5 seconds.
type Progress struct{ Stats checker.Stats }

// Phase (Check): the search enters a phase of its work (checker.PhaseSearch,
// PhaseLivenessGraph, PhaseLiveness + a property's name), with the statistics so far.
type Phase struct {
	Name  string
	Stats checker.Stats
}

// CheckpointWritten (Check): a checkpoint of the search, at Path, of Bytes bytes, written
// in Took.
type CheckpointWritten struct {
	Path                       string
	Level                      int
	Generated, Distinct, Queue int64
	Bytes                      int64
	Took                       time.Duration
}

// CheckpointFailed (Check): a checkpoint could not be written; the search goes on. Last
// is the last checkpoint written, or "".
type CheckpointFailed struct {
	Err  error
	Last string
}

// Searched (Check, Simulate): the search or the walks returned; what follows writes the
// counterexample.
type Searched struct{}

// SimulateStarted (Simulate): the walks of check Check are about to start, with Options.
type SimulateStarted struct {
	Spec    *specs.Spec
	Check   *specs.Check
	Options checker.SimOptions
}

// SimulateProgress (Simulate): the statistics of the walks so far, about every 5 seconds.
type SimulateProgress struct{ Stats checker.SimStats }

// SuiteLoaded (Suite): every spec under the folder loaded, with Checks checks among them,
// before any runs.
type SuiteLoaded struct {
	Specs  []*specs.Spec
	Checks int
}

// SuiteRowDone (Suite): a check or a robustness neighbour has run.
type SuiteRowDone struct{ Row *SuiteRow }

// PointStarted (Sweep): point N of Total (1-based), Label ("brokers=3 max_epoch=4").
type PointStarted struct {
	N, Total int
	Label    string
}

// PointDone (Sweep): point N of Total has run. A point that ctx stopped half way is not done.
type PointDone struct {
	N, Total int
	Point    *Point
}

// MutantStarted (Mutate): the check with guard N of Total turned off is about to run; the
// baseline (every guard on) is N 0 with Guard "".
type MutantStarted struct {
	N, Total int
	Guard    string
}

// MutantDone (Mutate): the mutant of guard N of Total has run. For one that no property
// caught, the neighbours of MutateOptions.Raise run after it.
type MutantDone struct {
	N, Total int
	Mutant   *Mutant
}

// NeighbourStarted (Mutate): a neighbour one step up is about to run, for the mutant of
// guard N of Total; Guard "" is the baseline there (every guard on), run once.
type NeighbourStarted struct {
	N, Total  int
	Guard     string
	Neighbour specs.Neighbour
}

// VariantStarted (Why): variant N of Total is about to be replayed and checked.
type VariantStarted struct {
	N, Total int
	Variant  *Variant
}

// VariantDone (Why): variant N of Total is done, or was not tried (Variant.Status).
type VariantDone struct {
	N, Total int
	Variant  *Variant
}

// BenchStarted (Bench): a row of the table is about to run with Workers workers.
type BenchStarted struct {
	Run     *BenchRun
	Workers int
}

// BenchDone (Bench): a row has run with Result.Workers workers.
type BenchDone struct {
	Run    *BenchRun
	Result *BenchResult
}

func (CheckStarted) event()      {}
func (Progress) event()          {}
func (Phase) event()             {}
func (CheckpointWritten) event() {}
func (CheckpointFailed) event()  {}
func (Searched) event()          {}
func (SimulateStarted) event()   {}
func (SimulateProgress) event()  {}
func (SuiteLoaded) event()       {}
func (SuiteRowDone) event()      {}
func (PointStarted) event()      {}
func (PointDone) event()         {}
func (MutantStarted) event()     {}
func (MutantDone) event()        {}
func (NeighbourStarted) event()  {}
func (VariantStarted) event()    {}
func (VariantDone) event()       {}
func (BenchStarted) event()      {}
func (BenchDone) event()         {}

// emitter is an OnEvent func, or one that drops the events when there is none.
func emitter(f func(Event)) func(Event) {
	if f == nil {
		return func(Event) {}
	}
	return f
}
