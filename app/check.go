package app

import (
	"context"
	"os"
	"time"

	"kmc/app/checkpoint"
	"kmc/checker"
	"kmc/specs"
	"kmc/traces"
)

// CheckOptions say how Check runs a check. The zero value runs it with the spec's options.
type CheckOptions struct {
	Search
	lock *os.File // the checkpoint folder's lock, while Check runs
	// Coverage counts, per kind of action, the states where it was enabled and the steps it
	// took (Result.Coverage). It counts a whole search: with Resume only of a checkpoint
	// whose search counted it too.
	Coverage bool
	// Checkpoint is the folder the search writes checkpoints into (package checkpoint), to
	// go on with it later with Resume: about every CheckpointEvery (0: never), and once more
	// when ctx, the time or the memory budget stops it. "" writes none, unless Resume is
	// set: then they go to Resume's folder. A folder that holds a checkpoint already is
	// refused, unless it is Resume's.
	Checkpoint      string
	CheckpointEvery time.Duration
	// CheckpointAt, when set, is asked between two segments of the search, with the level
	// being expanded and the states expanded so far, whether to take a checkpoint there
	// (checker.Options.CheckpointAt: for tests).
	CheckpointAt func(depth int, expanded int64) bool
	// Resume is a folder whose newest checkpoint the search goes on from, to the result the
	// search would have had without the stop: a checkpoint of the same spec, check and
	// configuration (any Workers, limits and budgets) written by this kmc.
	Resume string
	// Out is the folder a counterexample is written into, in every format, all or nothing
	// (traces.WriteAll with Write); "" writes none. A folder that cannot take it is
	// CheckResult.WriteErr, the result standing: traces.PrepareDir checks one before the
	// search, as kmc check does for each check's folder before the first.
	Out   string
	Write traces.WriteOptions
	// Command is the command line that the HTML report names as the one that found it.
	Command string
	// OnEvent, when set, gets CheckStarted, Progress, Phase, CheckpointWritten,
	// CheckpointFailed and Searched.
	OnEvent func(Event)
	// Run, when set, runs the search instead of the single-process engine (r.Check): kmc
	// check --partitions and --cluster (package cluster). An error is the search's refusal.
	Run func(c *specs.Check, r checker.Runnable, opts checker.Options) (checker.Result, error)
}

// CheckResult is what Check found.
type CheckResult struct {
	checker.Result
	Expectation
	// Interrupted says that ctx stopped the search: the verdict is incomplete, the
	// statistics partial, with the reason Interrupted.
	Interrupted bool
	// Fairness is the fairness a check with a liveness property assumed; nil without one.
	Fairness *Fairness
	// Branches are the counts of the model's switch branches and guard refusals over the
	// search (specs.BranchCounter), a resumed checkpoint's and every part's included; nil
	// when the model counts none, or the search resumed a checkpoint without them.
	Branches []specs.BranchCount
	// Written are the counterexample's files (with Out), or WriteErr why they could not
	// be written: the result stands either way.
	Written  traces.Written
	WriteErr error
	// Checkpoint is the folder the checkpoints went to ("": none). A search stopped before
	// it was complete keeps its checkpoint there (Resumable: Resume goes on with it); a
	// complete one (a verdict, or nothing left on the queue) needs it no more: it is
	// removed (CheckpointRemoved).
	Checkpoint        string
	Resumable         bool
	CheckpointRemoved bool
	// CheckpointRemoveErr says why the checkpoint of a complete search could not be
	// removed (a read-only file system): it is still in Checkpoint.
	CheckpointRemoveErr error
}

// Fairness is the fairness a check with a liveness property assumes: the kinds of action
// that are weakly and strongly fair; every other kind is unfair.
type Fairness struct {
	Weak, Strong []string
}

// Expectation is how a result compares with what its check expects.
type Expectation struct {
	// Vacuity says why a search that found no violation tested little (specs.Spec.Vacuity).
	Vacuity []string
	// Differs lists how the verdict, property and pinned counts differ from the check's
	// (specs.Check.Compare), and VacuityDiffers how Vacuity differs from its vacuous pin
	// (specs.Check.CompareVacuous), or "".
	Differs        []string
	VacuityDiffers string
}

// Mismatches is every way the result differs from its check: Differs, else VacuityDiffers.
func (e *Expectation) Mismatches() []string {
	if len(e.Differs) == 0 && e.VacuityDiffers != "" {
		return []string{e.VacuityDiffers}
	}
	return e.Differs
}

// expect compares result r of check c with what c expects.
func expect(spec *specs.Spec, c *specs.Check, r checker.Result, branches []specs.BranchCount) Expectation {
	why := append(spec.Vacuity(c.Config, r), spec.BranchVacuity(c.Config, r, branches)...)
	return Expectation{Vacuity: why, Differs: c.Compare(r), VacuityDiffers: c.CompareVacuous(r, why)}
}

// Check runs the check called name of spec (its only check when name is "", or with Resume
// the checkpoint's) with options o, and returns what it found, its counterexample written
// to o.Out. A refusal of the check, the options or the checkpoints is an error before
// anything runs: UnknownCheckError, NoCheckError, ModelError, NoSymmetryError,
// ErrCoverageResumed, ResumeError, CheckpointDirError, CheckpointTakenError.
func Check(ctx context.Context, spec *specs.Spec, name string, o CheckOptions) (*CheckResult, error) {
	emit := emitter(o.OnEvent)
	if o.Symmetry == SymmetryOn && !spec.Family.Symmetry {
		return nil, &NoSymmetryError{Model: spec.Model, Note: spec.Family.SymmetryNote}
	}
	var resumed *checkpoint.Checkpoint
	if o.Resume != "" {
		var err error
		if resumed, err = latest(o.Resume, name); err != nil {
			return nil, err
		}
		name = resumed.Manifest.Check
	}
	c, r, opts, err := build(spec, name)
	if err != nil {
		return nil, err
	}
	opts = o.Search.options(opts)
	opts.Coverage = o.Coverage
	opts.Vacuity = true // a resumed search reports it when its checkpoint counted the kinds taken (format 4)
	opts.Stop = ctx.Done()
	opts.Progress = func(st checker.Stats) { emit(Progress{st}) }
	opts.Phase = func(name string, st checker.Stats) { emit(Phase{name, st}) }
	res := &CheckResult{Fairness: fairness(r, opts)}
	if o.Checkpoint != "" || resumed != nil {
		res.Checkpoint, err = o.checkpoints(spec, c, &opts, resumed, emit)
		if o.lock != nil {
			defer o.lock.Close() // the folder's lock, held until its checkpoints are finished
		}
		if err != nil {
			return nil, err
		}
	}
	emit(CheckStarted{Spec: spec, Check: c, Options: opts, Resumed: resumed})
	restore := withMemoryLimit(opts.MemoryBytes)
	var found checker.Result
	if o.Run != nil {
		if found, err = o.Run(c, r, opts); err != nil {
			restore()
			return nil, err
		}
	} else {
		found = r.Check(opts)
	}
	res.Result, res.Interrupted = interrupted(ctx, found)
	restore()
	emit(Searched{})
	if bc, ok := r.(specs.BranchCounter); ok {
		res.Branches = bc.Branches(res.Result.Tallies)
	}
	res.Expectation = expect(spec, c, res.Result, res.Branches)
	if res.Verdict == checker.Violated && res.Trace != nil && o.Out != "" {
		st := res.Stats
		info := traces.ReportInfo{Verdict: res.Verdict, Property: res.Property, Reason: res.Reason, Stats: &st, Command: o.Command}
		o.Write.Stop = ctx.Done() // an interrupt ends the drawing of the pictures
		res.Written, res.WriteErr = writeTrace(o.Out, spec, c, res.Trace, info, o.Write)
	}
	if res.Checkpoint != "" {
		res.Resumable, res.CheckpointRemoved, res.CheckpointRemoveErr = finishCheckpoints(res.Checkpoint, res.Result)
	}
	return res, nil
}

// fairness is the fairness a search of r with opts assumes, or nil when it checks no
// liveness property.
func fairness(r checker.Runnable, opts checker.Options) *Fairness {
	fair, live := r.Fairness(opts)
	if !live {
		return nil
	}
	kinds := r.ActionKinds()
	f := &Fairness{Weak: []string{}, Strong: []string{}}
	for k, x := range fair {
		switch x {
		case checker.Weak:
			f.Weak = append(f.Weak, kinds[k])
		case checker.Strong:
			f.Strong = append(f.Strong, kinds[k])
		}
	}
	return f
}

// writeTrace renders trace t of check c in every format into dir, all or nothing, with
// info (title, spec and check filled in here) for the HTML report.
func writeTrace(dir string, spec *specs.Spec, c *specs.Check, t *checker.Trace, info traces.ReportInfo, opts traces.WriteOptions) (traces.Written, error) {
	info.Title, info.Spec, info.Check = spec.Path+", check "+c.Name, spec.Path, c.Name
	if opts.Params == nil && spec.Family.Params != nil {
		opts.Params = spec.Family.Params
	}
	opts.Config = RunConfig(spec, c)
	return traces.WriteAll(dir, t, info, opts)
}
