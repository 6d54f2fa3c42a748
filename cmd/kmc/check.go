package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"kmc/app"
	"kmc/checker"
	"kmc/cluster"
	"kmc/fsx"
	"kmc/specs"
	"kmc/traces"
)

const checkSynopsis = "kmc check SPEC [--check NAME] [--set key=value]... [flags]"

const checkExamples = `  kmc check specs/twophase.toml
  kmc check specs/twophase.toml --check buggy --out out/
  kmc check specs/twophase.toml --set rms=5 --workers 2
  kmc check specs/twophase.toml --check fixed --max-states 100
  kmc check specs/twophase.toml --check fixed --set rms=9 --checkpoint cp/
  kmc check specs/twophase.toml --set rms=9 --resume cp/
`

// checkFlags are the flags of kmc check.
type checkFlags struct {
	check      string
	sets       []string
	workers    int
	maxStates  int64
	maxDepth   int
	memory     string
	timeBudget string
	deadlock   bool
	symmetry   bool
	por        bool
	fullStates bool
	out        string
	force      bool
	format     string
	dumpGraph  string
	dumpMax    int
	checkpoint string
	ckptEvery  string
	resume     string
	coverage   bool
	view       string
	spillDir   string
	dist       distFlags
}

// afterSearch is called when a check's search returns, and atPhase when it enters a phase
// (the liveness graph, a liveness property); tests replace them.
var (
	afterSearch = func() {}
	atPhase     = func(string) {}
)

func runCheck(args []string, stdout, stderr io.Writer) int {
	var f checkFlags
	fs := newFlags("check", checkSynopsis, checkExamples, stdout)
	fs.StringVar(&f.check, "check", "", "run only the check called `NAME` (default: every check of the spec)")
	fs.StringArrayVar(&f.sets, "set", nil, "override a spec value, `KEY=VALUE`: a constant or fault by name (rms=4) or a path (limits.max_states=1000); repeatable")
	fixes := fs.StringArray("fix", nil, "turn on the fix switch `NAME` in every check run (as --set fixes+=NAME); repeatable")
	showSrcs := fs.StringArray("show", nil, "add the value of `EXPR`, a CEL expression over the variables kmc prints, to each state of the trace printed (TLC's ALIAS), as show1, show2, ...; repeatable")
	invariants := fs.StringArray("invariant", nil, "also check the invariant `EXPR`, a CEL expression over the variables kmc prints (hw, log, ...), named inv1, inv2, ...; repeatable")
	fs.IntVar(&f.workers, "workers", 0, "`N` search workers (default: the spec's, else all cores)")
	fs.Int64Var(&f.maxStates, "max-states", 0, "stop after `N` distinct states (0: the spec's limit, else none)")
	fs.IntVar(&f.maxDepth, "max-depth", 0, "stop at BFS depth `N` (0: the spec's limit, else none)")
	fs.StringVar(&f.memory, "memory", "", "memory budget of the search, a `SIZE` such as 4GiB (default: the spec's, else from the RAM, cgroup and ulimit limits: see README)")
	fs.StringVar(&f.spillDir, "spill-dir", "", "write the frontier and the liveness graph to temporary files in `DIR` when each outgrows a quarter of the memory budget, and a liveness search's fingerprint set and call stack when the liveness check would not fit beside them (default: the system's temporary folder); they are removed when the search ends")
	fs.StringVar(&f.timeBudget, "time", "", "time budget of the search, a `DURATION` such as 10m (default: the spec's, else none)")
	fs.BoolVar(&f.deadlock, "deadlock", false, "report a reachable state without successors as a deadlock")
	fs.BoolVar(&f.symmetry, "symmetry", false, "use the model's symmetry reduction (the kafka model uses it by default in safety checks where it applies; --symmetry=false: never)")
	fs.BoolVar(&f.por, "por", true, "use the partial-order reduction in a safety check where the model declares which steps are independent (--por=false: never; a liveness check runs without it)")
	fs.BoolVar(&f.fullStates, "full-states", false, "print every variable of every trace state, not only what changed")
	fs.StringVar(&f.view, "view", "", viewFlagHelp)
	fs.BoolVar(&f.coverage, "coverage", false, "print, per kind of action, the states where it was enabled and the steps it took, and the kinds never taken")
	fs.StringVar(&f.out, "out", "", "write each violated check's counterexample under `DIR`/CHECK/: trace.txt, trace.itf.json, trace.dot, sequence.svg, sequence.png, report.html, views.png (the last state's --view tables, when the model has them), and "+traces.ManifestName)
	fs.BoolVar(&f.force, "force", false, "with --out, replace a DIR/CHECK that holds files kmc did not write: it is moved aside to DIR/kmc-previous-*/, never deleted")
	fs.StringVar(&f.format, "format", "text", "output `FORMAT`: text, or json for one event per line")
	fs.StringVar(&f.dumpGraph, "dump-graph", "", "write the whole reachable state graph of the check as DOT to `FILE` (small models only): a regular file all or nothing, a device, named pipe or stream in place")
	fs.IntVar(&f.dumpMax, "dump-graph-max", 500, "refuse --dump-graph above `N` reachable states")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "write checkpoints of the search into `DIR`, to go on with it later with --resume (one check)")
	fs.StringVar(&f.ckptEvery, "checkpoint-every", "10m", "take a checkpoint about every `DURATION`, and one more when a limit or an interrupt stops the search")
	fs.StringVar(&f.resume, "resume", "", "go on with the search of the newest checkpoint in `DIR` (the same spec, check and configuration; any workers) and keep writing checkpoints there unless --checkpoint names another folder")
	f.dist.add(fs)
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "check", "want one spec file, got %d arguments", fs.NArg())
	}
	if f.format != "text" && f.format != "json" {
		return usageError(stderr, "check", "--format must be text or json (got %q)", f.format)
	}
	if f.dumpMax < 1 {
		return usageError(stderr, "check", "--dump-graph-max must be at least 1 (got %d)", f.dumpMax)
	}
	if f.workers < 0 || f.maxStates < 0 || f.maxDepth < 0 {
		return usageError(stderr, "check", "--workers, --max-states and --max-depth must not be negative")
	}
	if f.workers > specs.MaxWorkers {
		return usageError(stderr, "check", "--workers must be at most %d, the engine's most (got %d)", specs.MaxWorkers, f.workers)
	}
	every, err := specs.ParseDuration(f.ckptEvery)
	if err == nil && every == 0 {
		err = errors.New("must be positive")
	}
	if err != nil {
		return usageError(stderr, "check", "--checkpoint-every: %v (got %q)", err, f.ckptEvery)
	}
	for _, name := range []string{"checkpoint", "resume", "out", "dump-graph", "spill-dir"} {
		if fs.Changed(name) && fs.Lookup(name).Value.String() == "" {
			return usageError(stderr, "check", "--%s needs a folder or file, not an empty name", name)
		}
	}
	if fs.Changed("checkpoint-every") && f.checkpoint == "" && f.resume == "" {
		return usageError(stderr, "check", "--checkpoint-every needs --checkpoint or --resume")
	}
	search := app.Search{Workers: f.workers, MaxStates: f.maxStates, MaxDepth: f.maxDepth, Deadlock: f.deadlock, SpillDir: f.spillDir}
	switch {
	case f.symmetry:
		search.Symmetry = app.SymmetryOn
	case fs.Changed("symmetry"):
		search.Symmetry = app.SymmetryOff
	}
	switch {
	case fs.Changed("por") && f.por:
		search.POR = app.POROn
	case fs.Changed("por"):
		search.POR = app.POROff
	}
	if code, ok := parseBudgets(stderr, "check", f.memory, "time", f.timeBudget, &search); !ok {
		return code
	}
	if code, ok := f.dist.check(stderr); !ok {
		return code
	}
	if stale, err := app.CheckSpillDir(f.spillDir); err != nil {
		if f.spillDir != "" {
			fmt.Fprintf(stderr, "kmc: check: %v\n", err)
			hint(stderr, "--spill-dir needs a folder kmc can create and write files in, on a disk with room (default: the system's temporary folder)")
			return exitUsage
		}
	} else if len(stale) > 0 {
		fmt.Fprintf(stderr, "kmc: check: removed %d spill files that kmc processes now gone left in %s\n", len(stale), filepath.Dir(stale[0]))
	}
	path := fs.Arg(0)
	f.sets = withFixes(f.sets, *fixes)
	spec, code := loadSpec(path, f.sets, f.check, stderr)
	if spec == nil {
		return code
	}
	for _, src := range *invariants {
		if err := spec.AddInvariant(src); err != nil {
			fmt.Fprintln(stderr, err)
			return usageError(stderr, "check", "--invariant %q does not compile", src)
		}
	}
	views, err := resolveViews(fs, f.view, spec.Family.Views, spec.Family.DefaultView)
	if err != nil {
		return usageError(stderr, "check", "%v", err)
	}
	shows, err := specs.CompileShows(spec, *showSrcs, compileShows)
	if err != nil {
		return usageError(stderr, "check", "--show: %v", err)
	}
	if f.coverage && f.resume != "" {
		return usageError(stderr, "check", "--coverage counts a whole search: it cannot go with --resume")
	}
	if f.resume != "" {
		if f.check, err = app.ResumedCheck(f.resume, f.check); err != nil {
			return appError(stderr, "check", err, &f)
		}
	}
	checks, code := selectChecks("check", spec, f.check, stderr)
	if checks == nil {
		return code
	}
	if code := prepareOut("check", f.out, checks, f.force, stderr); code != exitOK {
		return code
	}
	if (f.checkpoint != "" || f.resume != "") && len(checks) > 1 {
		return usageError(stderr, "check", "--checkpoint and --resume need one check: name it with --check")
	}
	if f.dumpGraph != "" && len(checks) > 1 {
		return usageError(stderr, "check", "--dump-graph needs one check: name it with --check")
	}

	ctx, release := signalContext()
	defer release()
	out := &checkOutput{w: stdout, stderr: stderr, json: f.format == "json", full: f.fullStates, views: views, shows: shows}
	result := exitOK
	var raise []string  // bounds that incomplete liveness verdicts depend on
	var notRun []string // checks skipped after an interrupt
	cut := false        // an interrupt cut a search short
	resumeHint := ""    // how to resume a search stopped with a checkpoint
	for i := range checks {
		c := &checks[i]
		if i > 0 && ctx.Err() != nil { // the signal came after the previous check's search
			for _, c := range checks[i:] {
				notRun = append(notRun, c.Name)
			}
			break
		}
		if f.dumpGraph != "" {
			if code := dumpGraph(ctx, spec, c, f.dumpGraph, f.dumpMax, search, stderr); code != exitOK {
				return code
			}
		}
		o := app.CheckOptions{Search: search, Coverage: f.coverage, Checkpoint: f.checkpoint, CheckpointEvery: every,
			CheckpointAt: checkpointAt, Resume: f.resume, Command: "kmc check " + strings.Join(args, " "),
			Write: traces.WriteOptions{FullStates: f.fullStates, Force: f.force, Views: views}, OnEvent: out.event}
		if f.out != "" {
			o.Out = filepath.Join(f.out, c.Name)
		}
		o.Run = f.dist.runner(path, f.sets, out.json, stderr, out.emit)
		res, err := app.Check(ctx, spec, c.Name, o)
		var refused *cluster.RefusedError
		if errors.As(err, &refused) {
			return usageError(stderr, "check", "%v", err)
		}
		if err != nil {
			return appError(stderr, "check", err, &f)
		}
		cut = res.Interrupted
		out.done(spec, c, res)
		outNotes(stderr, "check", o.Out, res.Written, res.WriteErr)
		result = worse(result, exitCode(spec, res.Result))
		for _, b := range res.Raise {
			if !slices.Contains(raise, b) {
				raise = append(raise, b)
			}
		}
		if res.CheckpointRemoved && !out.json {
			fmt.Fprintf(stderr, "kmc: check: the search is complete; removed its checkpoint from %s\n", res.Checkpoint)
		}
		if err := res.CheckpointRemoveErr; err != nil {
			fmt.Fprintf(stderr, "kmc: check: the search is complete, but its checkpoint could not be removed from %s: %v\n", res.Checkpoint, err)
			hint(stderr, "remove it yourself before another --checkpoint there (it holds a complete search: --resume would only finish it again)")
		}
		if res.Resumable {
			resumeHint = resumeCommand(&f, spec, c, res.Checkpoint)
		}
		if cut {
			for _, c := range checks[i+1:] {
				notRun = append(notRun, c.Name)
			}
			break
		}
	}
	if cut || len(notRun) > 0 {
		return out.interrupted("check", result, cut, notRun, resumeHint)
	}
	if result == exitIncomplete && !out.json {
		if len(raise) > 0 {
			hint(stderr, "raise "+strings.Join(raise, ", ")+" (--set "+raise[0]+"=N), or run 'kmc sweep' over it")
		} else if resumeHint != "" {
			hint(stderr, "go on with the search, with the limit that was hit raised: "+resumeHint)
		} else {
			hint(stderr, "raise the limit that was hit (--max-states, --max-depth, --memory, --time) or shrink the spec's constants")
		}
	}
	return result
}

// selectChecks returns the checks of spec that a command runs: the one called name, or
// every check when name is empty. An unknown name is a usage error (nil, exit 2).
func selectChecks(cmd string, spec *specs.Spec, name string, stderr io.Writer) ([]specs.Check, int) {
	if name == "" {
		return spec.Checks, exitOK
	}
	c, err := app.PickCheck(spec, name)
	if err != nil {
		return nil, appError(stderr, cmd, err, nil)
	}
	return []specs.Check{*c}, exitOK
}

// pickCheck is the check called name, or the spec's only check when name is "". An unknown
// name, or none for a spec of several checks, is a usage error (nil, exit 2).
func pickCheck(cmd string, spec *specs.Spec, name string, stderr io.Writer) (*specs.Check, int) {
	c, err := app.PickCheck(spec, name)
	if err != nil {
		return nil, appError(stderr, cmd, err, nil)
	}
	return c, exitOK
}

// prepareOut makes sure, before a search, that the output folder of each check under out
// can be written (traces.PrepareDir); out "" writes nothing, and then force is a usage error.
func prepareOut(cmd, out string, checks []specs.Check, force bool, stderr io.Writer) int {
	if out == "" {
		if force {
			return usageError(stderr, cmd, "--force needs --out")
		}
		return exitOK
	}
	for i := range checks {
		if err := traces.PrepareDir(filepath.Join(out, checks[i].Name), force); err != nil {
			fmt.Fprintf(stderr, "kmc: %s: --out: %v\n", cmd, err)
			if errors.Is(err, traces.ErrNotKmcOutput) {
				hint(stderr, "move it away, or pass --force to have kmc move it aside (kmc deletes nothing it did not write)")
			} else {
				hint(stderr, "--out needs a folder kmc can create and write in")
			}
			return exitUsage
		}
	}
	return exitOK
}

// outNotes reports what writing a counterexample into dir did beside writing its files: a
// previous dir moved aside, or the error that kept them from being written.
func outNotes(stderr io.Writer, cmd, dir string, w traces.Written, err error) {
	if w.Aside != "" {
		fmt.Fprintf(stderr, "kmc: %s: moved the previous %s, which holds files kmc did not write or changed since, to %s\n", cmd, dir, w.Aside)
	}
	if err != nil {
		fmt.Fprintf(stderr, "kmc: %s: --out: %v\n", cmd, err)
	}
}

// interrupted ends a run of checks that a signal cut short (cut: a search was under way,
// which resume, when not "", goes on with) or stopped before the checks notRun; the exit
// code is result, made incomplete unless a check found a violation before.
func (o *checkOutput) interrupted(cmd string, result int, cut bool, notRun []string, resume string) int {
	result = worse(result, exitIncomplete)
	if o.json {
		o.emit(map[string]any{"event": "interrupted", "partial": cut, "not_run": append([]string{}, notRun...)})
		return result
	}
	if cut {
		fmt.Fprintf(o.stderr, "kmc: %s: interrupted; the statistics above are partial\n", cmd)
		if resume != "" {
			hint(o.stderr, "go on with the search: "+resume)
		}
	}
	if len(notRun) > 0 {
		fmt.Fprintf(o.stderr, "kmc: %s: interrupted; not run: %s\n", cmd, strings.Join(notRun, ", "))
	}
	return result
}

// loadSpec loads a spec for a run of the check called check (every check when ""; see
// specs.LoadCheck), printing its errors (exit 2) or an I/O failure (exit 1).
func loadSpec(path string, sets []string, check string, stderr io.Writer) (*specs.Spec, int) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		fmt.Fprintf(stderr, "kmc: %s is a folder, not a spec file\n", path)
		hint(stderr, "to run every spec under it: kmc suite "+path+"; to run one: kmc check "+filepath.Join(path, "NAME.toml"))
		return nil, exitUsage
	}
	spec, err := specs.LoadCheck(path, sets, check)
	if err == nil {
		return spec, exitOK
	}
	var list specs.ErrorList
	if errors.As(err, &list) {
		fmt.Fprintln(stderr, list.Error())
		n := "1 error"
		if list.Total() != 1 {
			n = strconv.Itoa(list.Total()) + " errors"
		}
		fmt.Fprintf(stderr, "kmc: %s: %s\n", path, n)
		hint(stderr, "run 'kmc list' for the models' constants, switches and properties")
		return nil, exitUsage
	}
	fmt.Fprintf(stderr, "kmc: %v\n", err)
	if errors.Is(err, os.ErrNotExist) {
		// A spec named that does not exist is bad usage, as a spec that does not parse is.
		hint(stderr, "spec files are under specs/; run 'kmc suite specs/' to run them all")
		return nil, exitUsage
	}
	return nil, exitInternal
}

// exitCode maps a result to the exit code: 0 ok, 3 incomplete, 11 deadlock, 12 safety
// and 13 liveness violation.
func exitCode(spec *specs.Spec, res checker.Result) int {
	return verdictExit(spec, res.Verdict, res.Property)
}

// verdictExit maps a verdict and its violated property to the exit code.
func verdictExit(spec *specs.Spec, v checker.Verdict, property string) int {
	switch v {
	case checker.OK:
		return exitOK
	case checker.Violated:
		if property == specs.DeadlockProperty {
			return exitDeadlock
		}
		if spec.PropertyKind(property).Liveness() {
			return exitLiveness
		}
		return exitSafety
	}
	return exitIncomplete
}

// checkOutput prints a check's progress and result as TLC-style text or as JSON events.
type checkOutput struct {
	w, stderr io.Writer
	json      bool
	full      bool
	views     traces.ViewSelection
	started   bool          // a check has started: the next one is set apart
	last      checker.Stats // at the previous progress report
	shows     []shown       // --show expressions, added to the trace printed
}

// event prints what app.Check reports as it runs.
func (o *checkOutput) event(e app.Event) {
	switch e := e.(type) {
	case app.CheckStarted:
		o.start(e)
	case app.Progress:
		o.progress(e.Stats)
	case app.Phase:
		atPhase(e.Name)
		o.phase(e.Name, e.Stats)
	case app.CheckpointWritten:
		o.checkpointWritten(e)
	case app.CheckpointFailed:
		o.checkpointFailed(e.Err, e.Last)
	case app.Searched:
		afterSearch()
	}
}

// emit prints one JSON event on a line.
func (o *checkOutput) emit(v map[string]any) { jsonLine(o.w, v) }

func (o *checkOutput) start(e app.CheckStarted) {
	spec, c, opts := e.Spec, e.Check, e.Options
	o.last = checker.Stats{}
	if o.started && !o.json {
		fmt.Fprintln(o.w)
	}
	o.started = true
	if o.json {
		ev := map[string]any{"event": "start", "spec": spec.Path, "check": c.Name, "model": spec.Model,
			"expected": c.Expected(), "config": app.Config(spec, c), "workers": opts.Workers,
			"memory_budget_bytes": opts.MemoryBytes, "symmetry": opts.Symmetry, "por": opts.POR}
		if r := e.Resumed; r != nil {
			m := r.Manifest
			ev["resume"] = map[string]any{"checkpoint": r.Path, "level": m.Level, "generated": m.Generated,
				"distinct": m.Distinct, "queue": m.Queue, "elapsed_seconds": m.Elapsed.Seconds()}
		}
		o.emit(ev)
		return
	}
	printWrapped(o.w, fmt.Sprintf("Checking %s, check %s: model %s, %s", spec.Path, c.Name, spec.Model, app.Config(spec, c)))
	workers := "1 worker"
	if opts.Workers != 1 {
		workers = strconv.Itoa(opts.Workers) + " workers"
	}
	if opts.Symmetry {
		workers += " and symmetry reduction (--symmetry=false: without)"
	}
	fmt.Fprintf(o.w, "Running breadth-first search with %s.\n", workers)
	if r := e.Resumed; r != nil {
		m := r.Manifest
		fmt.Fprintf(o.w, "Resuming from checkpoint %s: level %d, %d states generated, %d distinct states found, %d states left on queue, after %s.\n",
			r.Path, m.Level, m.Generated, m.Distinct, m.Queue, specs.FormatElapsed(m.Elapsed))
	}
}

// phaseAfter is how long a search must have run before kmc reports the phases it enters: a
// short check prints none (and its output stays the same from run to run).
const phaseAfter = time.Second

// phase reports, on a search that has run phaseAfter or more, that it enters a phase: the
// liveness graph, then each liveness property.
func (o *checkOutput) phase(name string, st checker.Stats) {
	if st.Elapsed < phaseAfter {
		return
	}
	if o.json {
		o.emit(map[string]any{"event": "phase", "phase": name, "distinct": st.Distinct, "elapsed_seconds": st.Elapsed.Seconds()})
		return
	}
	fmt.Fprintf(o.stderr, "Phase: %s (%d distinct states), after %s.\n", name, st.Distinct, specs.FormatElapsed(st.Elapsed))
}

func (o *checkOutput) progress(st checker.Stats) {
	rate := 0.0
	if dt := (st.Elapsed - o.last.Elapsed).Seconds(); dt > 0 {
		rate = float64(st.Distinct-o.last.Distinct) / dt
	}
	o.last = st
	if o.json {
		o.emit(map[string]any{"event": "progress", "depth": st.Depth, "generated": st.Generated,
			"distinct": st.Distinct, "queue": st.Queue, "distinct_per_second": int64(rate)})
		return
	}
	fmt.Fprintf(o.stderr, "Progress(%d): %d states generated, %d distinct states found, %d states left on queue, %.0f distinct states/s.\n",
		st.Depth, st.Generated, st.Distinct, st.Queue, rate)
}

func (o *checkOutput) done(spec *specs.Spec, c *specs.Check, res *app.CheckResult) {
	files := res.Written.Paths
	if files == nil {
		files = []string{}
	}
	if o.json {
		if res.Trace != nil {
			ev := map[string]any{"event": "violation", "check": c.Name, "property": res.Property,
				"trace": traceJSON(res.Trace), "files": files}
			if res.WriteErr != nil {
				ev["write_error"] = res.WriteErr.Error()
			}
			o.emit(ev)
		}
		st := res.Stats
		ev := map[string]any{"event": "done", "check": c.Name, "verdict": string(res.Verdict),
			"property": res.Property, "reason": res.Reason, "expected": c.Expected(),
			"matches": len(res.Mismatches()) == 0, "interrupted": res.Result.Interrupted,
			"graph_complete": graphComplete(res),
			"stats": map[string]any{"generated": st.Generated, "distinct": st.Distinct, "queue": st.Queue,
				"depth": st.Depth, "collision": st.Collision, "elapsed_seconds": st.Elapsed.Seconds(),
				"memory_bytes": st.MemoryBytes, "workers": st.Workers, "unreduced": st.Unreduced, "deferred": st.Deferred, "por": st.POR, "por_reduced": st.Reduced, "por_proviso": st.Proviso, "por_shortened": st.Shortened,
				"spilled_bytes": st.Spilled + st.GraphSpilled}}
		if len(res.Raise) > 0 {
			ev["raise"] = res.Raise
		}
		if f := res.Fairness; f != nil {
			ev["fairness"] = map[string]any{"weak": f.Weak, "strong": f.Strong}
		}
		if res.Verdict == checker.OK {
			ev["vacuous"] = append([]string{}, res.Vacuity...)
		}
		if res.Coverage != nil {
			var cov []map[string]any
			for _, k := range res.Coverage {
				cov = append(cov, map[string]any{"kind": k.Kind, "enabled": k.Enabled, "taken": k.Taken})
			}
			ev["coverage"] = cov
			var br []map[string]any
			for _, b := range res.Branches {
				br = append(br, map[string]any{"switch": b.Switch, "guard": b.Guard, "branch": b.Branch, "on": b.On, "hits": b.Hits})
			}
			if br != nil {
				ev["branches"] = br
			}
		}
		o.emit(ev)
		return
	}
	w := o.w
	switch res.Verdict {
	case checker.OK:
		fmt.Fprintln(w, "Model checking completed. No error has been found.")
	case checker.Violated:
		o.violation("check", spec, res.Property, res.Trace)
		if !graphComplete(res) {
			fmt.Fprintln(w, wrap("The search was cut short ("+res.Result.Interrupted+") before the state graph was complete: "+
				"this counterexample lies in the part explored and is a real one, but the statistics below are partial.", 100, "  "))
		}
	case checker.Incomplete:
		if len(res.Raise) > 0 && res.Stats.Queue == 0 {
			fmt.Fprintf(w, "The search is complete, but the verdict depends on a bound of the model: %s.\n", res.Reason)
		} else {
			fmt.Fprintf(w, "Search stopped before it was complete: %s.\n", orUnknown(res.Reason))
		}
	}
	st := res.Stats
	fmt.Fprintf(w, "%d states generated, %d distinct states found, %d states left on queue.\n", st.Generated, st.Distinct, st.Queue)
	if st.Unreduced > 0 && st.Distinct > 0 {
		fmt.Fprintf(w, "Symmetry: the %d distinct states stand for %d states of the unreduced search (x%.2f).\n",
			st.Distinct, st.Unreduced, float64(st.Unreduced)/float64(st.Distinct))
	}
	if st.Deferred {
		fmt.Fprintln(w, "Symmetry: one state per class, the assignment order left open (each election reveals it);")
		fmt.Fprintln(w, "a trace is renamed to the order 1..N. --symmetry=false gives the unreduced search.")
	}
	if st.POR && st.Reduced > 0 {
		fmt.Fprintf(w, "Partial-order reduction: %d states expanded with a stubborn set of their steps, %d in full by the cycle proviso (--por=false: without).\n",
			st.Reduced, st.Proviso)
	}
	if st.Shortened > 0 {
		fmt.Fprintf(w, "The reduced search found a counterexample of %d states; the one printed is the shortest, from a plain search bounded by that length (%d distinct states).\n",
			st.Shortened, st.ShortenStates)
	}
	if res.Trace != nil && res.Trace.Reduced {
		fmt.Fprintln(w, "The counterexample was found under the partial-order reduction and could not be shortened: it need not be a shortest one.")
	}
	if st.Spilled+st.GraphSpilled > 0 {
		fmt.Fprintf(w, "Spilled to disk: %s (frontier %s, liveness graph %s).\n", specs.FormatSize(st.Spilled+st.GraphSpilled),
			specs.FormatSize(st.Spilled), specs.FormatSize(st.GraphSpilled))
	}
	if !graphComplete(res) {
		fmt.Fprintf(w, "The depth of the partial state graph search is %d.\n", st.Depth)
	} else {
		fmt.Fprintf(w, "The depth of the complete state graph search is %d.\n", st.Depth)
	}
	fmt.Fprintln(w, "The probability that a fingerprint collision hid a state:")
	fmt.Fprintf(w, "  calculated (optimistic):  val = %.1E\n", st.Collision)
	fmt.Fprintf(w, "Finished in %s.\n", specs.FormatElapsed(st.Elapsed))
	for _, p := range files {
		fmt.Fprintf(w, "Wrote %s\n", p)
	}
	if res.Coverage != nil {
		printCoverage(w, res.Coverage)
		printBranches(w, res.Branches)
	}
	if f := res.Fairness; f != nil {
		fmt.Fprintln(w, fairnessText(f.Weak, f.Strong))
	}
	got := specs.VacuousText(res.Verdict, res.Property, res.Vacuity)
	// Wrapped at 100 columns as the other lines: a vacuous verdict can name many reasons.
	if diffs := res.Mismatches(); c.Exploratory() {
		fmt.Fprintln(w, wrap(fmt.Sprintf("Result: %s (an exploratory check: the spec expects nothing).", got), 100, "  "))
	} else if len(diffs) > 0 {
		fmt.Fprintln(w, wrap(fmt.Sprintf("Result: %s; the spec expects %s (%s)", got, c.Expected(), strings.Join(diffs, "; ")), 100, "  "))
	} else {
		fmt.Fprintln(w, wrap(fmt.Sprintf("Result: %s, as the spec expects.", got), 100, "  "))
	}
}

// graphComplete reports whether the search behind res explored the whole state graph: no
// limit or interrupt cut it short (checker.Result.Interrupted; a stop in the liveness phase
// of a complete graph leaves the graph complete), and a verdict left incomplete is one that
// a model bound decided with nothing left on the queue.
func graphComplete(res *app.CheckResult) bool {
	if cut := res.Result.Interrupted; cut != "" && (res.Stats.Queue > 0 || !strings.Contains(res.Reason, "during the liveness check")) {
		return false
	}
	return res.Verdict != checker.Incomplete || (len(res.Raise) > 0 && res.Stats.Queue == 0) ||
		strings.Contains(res.Reason, "during the liveness check")
}

// violation prints TLC's headline for a violation of property and its trace, if any.
func (o *checkOutput) violation(cmd string, spec *specs.Spec, property string, t *checker.Trace) {
	fmt.Fprintln(o.w, violationHeadline(spec, property))
	if t != nil {
		fmt.Fprintln(o.w, "Error: The behavior up to this point is:")
		if err := traces.Text(o.w, withShows(t, o.shows), traces.TextOptions{FullStates: o.full, Views: o.views}); err != nil {
			fmt.Fprintf(o.stderr, "kmc: %s: %v\n", cmd, err)
		}
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "a limit was hit"
	}
	return s
}

// violationHeadline is TLC's first line for a violation.
func violationHeadline(spec *specs.Spec, property string) string {
	if property == specs.DeadlockProperty {
		return "Error: Deadlock reached."
	}
	switch k := spec.PropertyKind(property); {
	case k.Liveness():
		return "Error: Temporal property " + property + " is violated."
	case k == checker.ActionProperty:
		return "Error: Action property " + property + " is violated."
	case k == checker.Sometimes:
		return "Error: Property " + property + " is vacuous: no reachable state satisfies it."
	}
	return "Error: Invariant " + property + " is violated."
}

// traceJSON is a trace as plain JSON values, with each variable's ITF value inline.
func traceJSON(t *checker.Trace) map[string]any {
	states := make([]map[string]any, len(t.States))
	for i, st := range t.States {
		vals := map[string]json.RawMessage{}
		for v, val := range st.Values {
			vals[t.Vars[v]] = json.RawMessage(val)
		}
		states[i] = map[string]any{"action": st.Action, "kind": st.Kind, "values": vals}
	}
	return map[string]any{"property": t.Property, "vars": t.Vars, "states": states, "loop": t.Loop,
		"back_action": t.BackAction, "stutter": t.Stutter, "witness": t.Witness}
}

// dumpGraph writes the whole reachable graph of check c as DOT to path (app.Graph),
// refusing (exit 2) one of more than max states; an interrupt or the memory budget stops it
// with nothing written (exit 3).
func dumpGraph(ctx context.Context, spec *specs.Spec, c *specs.Check, path string, max int, s app.Search, stderr io.Writer) int {
	g, err := app.Graph(ctx, spec, c.Name, max, s)
	var mem *app.MemoryError
	switch {
	case errors.Is(err, app.ErrInterrupted):
		fmt.Fprintf(stderr, "kmc: check: --dump-graph: interrupted; no graph written\n")
		return exitIncomplete
	case errors.As(err, &mem):
		fmt.Fprintf(stderr, "kmc: check: --dump-graph: %v; no graph written\n", err)
		hint(stderr, "the graph dump is for small models: shrink the spec's constants or raise --memory")
		return exitIncomplete
	case errors.As(err, new(*app.ModelError)):
		return appError(stderr, "check", err, nil)
	case err != nil:
		fmt.Fprintf(stderr, "kmc: check: --dump-graph: %v\n", err)
		hint(stderr, "the graph dump is for small models: shrink the spec's constants or raise --dump-graph-max")
		return exitUsage
	}
	var b bytes.Buffer
	if err := traces.GraphDOT(&b, g); err != nil {
		fmt.Fprintf(stderr, "kmc: check: --dump-graph: %v\n", err)
		return exitInternal
	}
	if err := fsx.WriteFile(path, b.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "kmc: check: --dump-graph: %v\n", err)
		return exitInternal
	}
	fmt.Fprintf(stderr, "kmc: check: wrote the reachable graph (%d states, %d edges) to %s\n", len(g.Nodes), len(g.Edges), path)
	return exitOK
}

// withFixes appends a --set fixes+=NAME for each --fix NAME.
func withFixes(sets, fixes []string) []string {
	for _, n := range fixes {
		sets = append(sets, "fixes+="+n)
	}
	return sets
}

// fairnessText says which fairness a liveness check assumed, wrapped at 100 columns.
func fairnessText(weak, strong []string) string {
	none := func(l []string) string {
		if len(l) == 0 {
			return "none"
		}
		return strings.Join(l, ", ")
	}
	return wrap("Fairness assumed by the liveness properties: weak (WF): "+none(weak)+"; strong (SF): "+
		none(strong)+"; every other kind of action is unfair.", 100, "  ")
}

// wrap breaks text at spaces into lines of at most width columns (a longer word stays whole),
// the lines after the first indented by indent.
func wrap(text string, width int, indent string) string {
	return strings.Join(traces.WrapWords(text, width, indent), "\n")
}

// printBranches prints how often each branch of a fix switch in force fired and each guard
// with a code path refused a step (specs.BranchCounter), then the ones that never did.
func printBranches(w io.Writer, br []specs.BranchCount) {
	if len(br) == 0 {
		return
	}
	name := func(b specs.BranchCount) string {
		if b.Switch != "" {
			return "fix " + b.Switch + ": " + b.Branch
		}
		return "guard " + b.Guard
	}
	width := len("BRANCH")
	for _, b := range br {
		width = max(width, len(name(b)))
	}
	fmt.Fprintln(w, "Coverage, per branch of a fix in force and per guard (times it changed or refused a step):")
	fmt.Fprintf(w, "  %-*s  %12s\n", width, "BRANCH", "FIRED")
	var never []string
	for _, b := range br {
		if !b.On {
			continue
		}
		fmt.Fprintf(w, "  %-*s  %12d\n", width, name(b), b.Hits)
		if b.Hits == 0 {
			never = append(never, name(b))
		}
	}
	if len(never) > 0 {
		fmt.Fprintln(w, wrap("Never fired at these bounds: "+strings.Join(never, ", ")+".", 100, "  "))
	}
}

// printCoverage prints, per kind of action, the states where it was enabled and the steps it
// took (TLC's coverage), then the kinds never taken: a part of the model these bounds never
// exercise, which a passing check says nothing about.
func printCoverage(w io.Writer, cov []checker.KindCoverage) {
	width := len("ACTION")
	for _, k := range cov {
		width = max(width, len(k.Kind))
	}
	fmt.Fprintln(w, "Coverage, per kind of action (over the states this search expanded):")
	fmt.Fprintf(w, "  %-*s  %12s  %12s\n", width, "ACTION", "ENABLED IN", "STEPS TAKEN")
	var never []string
	for _, k := range cov {
		fmt.Fprintf(w, "  %-*s  %12d  %12d\n", width, k.Kind, k.Enabled, k.Taken)
		if k.Taken == 0 {
			never = append(never, k.Kind)
		}
	}
	if len(never) > 0 {
		fmt.Fprintln(w, wrap("Never taken at these bounds: "+strings.Join(never, ", ")+".", 100, "  "))
	}
}

// printWrapped prints text wrapped at 100 columns, its later lines indented by two spaces,
// as kmc prints its long lines.
func printWrapped(w io.Writer, text string) {
	for _, line := range traces.WrapWords(text, 100, "  ") {
		fmt.Fprintln(w, line)
	}
}
