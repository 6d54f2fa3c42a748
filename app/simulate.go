package app

import (
	"context"
	"fmt"
	"runtime"

	"kmc/checker"
	"kmc/specs"
	"kmc/traces"
)

// SimulateOptions say how Simulate takes its random walks.
type SimulateOptions struct {
	// Walks are the walks to take (checker.SimOptions): Seed, Runs, FirstRun, Depth, Time,
	// Bias as there; Workers 0 is the spec's, else every core; Deadlock is on when the spec
	// or Walks says so. FairnessOverride is the spec's, Progress and Stop are set here.
	Walks checker.SimOptions
	// Memory is the walks' memory budget in bytes (checker.SimOptions.MemoryBytes): 0 is
	// the spec's, else DefaultMemory, as for a check's search. The Go runtime's soft
	// memory limit is the budget while the walks run.
	Memory int64
	// Out, Write: as in CheckOptions. Command, when set, is the command line that takes walk
	// run alone, which the HTML report names.
	Out     string
	Write   traces.WriteOptions
	Command func(run int64) string
	// OnEvent, when set, gets SimulateStarted, SimulateProgress and Searched.
	OnEvent func(Event)
	// Run, when set, takes the walks instead of this process (r.Simulate): kmc simulate
	// --cluster (package cluster). An error is its refusal.
	Run func(c *specs.Check, r checker.Runnable, so checker.SimOptions) (checker.SimResult, error)
}

// SimulateResult is what Simulate found.
type SimulateResult struct {
	checker.SimResult
	Interrupted bool // ctx stopped the walks: incomplete, with the reason Interrupted
	Written     traces.Written
	WriteErr    error
}

// Simulate takes random walks through the model of the check called name of spec (its
// only check when name is "") and checks its properties on them. Refusals are errors
// before any walk: UnknownCheckError, NoCheckError, ModelError.
func Simulate(ctx context.Context, spec *specs.Spec, name string, o SimulateOptions) (*SimulateResult, error) {
	emit := emitter(o.OnEvent)
	c, r, opts, err := build(spec, name)
	if err != nil {
		return nil, err
	}
	so := o.Walks
	if so.Workers == 0 {
		so.Workers = opts.Workers
	}
	if so.Workers == 0 {
		so.Workers = min(runtime.NumCPU(), specs.MaxWorkers)
	}
	so.Deadlock = so.Deadlock || opts.Deadlock
	so.FairnessOverride = opts.FairnessOverride
	so.Progress = func(st checker.SimStats) { emit(SimulateProgress{st}) }
	so.Stop = ctx.Done()
	so.MemoryBytes = o.Memory
	if so.MemoryBytes == 0 {
		so.MemoryBytes = opts.MemoryBytes
	}
	if so.MemoryBytes == 0 {
		so.MemoryBytes = DefaultMemory()
	}
	emit(SimulateStarted{Spec: spec, Check: c, Options: so})
	restore := withMemoryLimit(so.MemoryBytes)
	res := &SimulateResult{}
	if o.Run != nil {
		res.SimResult, err = o.Run(c, r, so)
	} else {
		res.SimResult = r.Simulate(so)
	}
	restore()
	if err != nil {
		return nil, err
	}
	emit(Searched{})
	if res.Verdict == checker.Incomplete && ctx.Err() != nil {
		res.Reason, res.Interrupted = Interrupted, true
	}
	if res.Verdict == checker.Violated && res.Trace != nil && o.Out != "" {
		info := traces.ReportInfo{Verdict: res.Verdict, Property: res.Property,
			Reason: fmt.Sprintf("found by walk %d of a random simulation with seed %d", res.Run, res.Seed)}
		if o.Command != nil {
			info.Command = o.Command(res.Run)
		}
		o.Write.Stop = ctx.Done() // an interrupt ends the drawing of the pictures
		res.Written, res.WriteErr = writeTrace(o.Out, spec, c, res.Trace, info, o.Write)
	}
	return res, nil
}
