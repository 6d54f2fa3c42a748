package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"kmc/checker"
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
}

// afterSearch is called when a check's search returns; tests replace it.
var afterSearch = func() {}

func runCheck(args []string, stdout, stderr io.Writer) int {
	var f checkFlags
	fs := newFlags("check", checkSynopsis, checkExamples, stdout)
	fs.StringVar(&f.check, "check", "", "run only the check called `NAME` (default: every check of the spec)")
	fs.StringArrayVar(&f.sets, "set", nil, "override a spec value, `KEY=VALUE`: a constant or fault by name (rms=4) or a path (limits.max_states=1000); repeatable")
	fixes := fs.StringArray("fix", nil, "turn on the fix switch `NAME` in every check run (as --set fixes+=NAME); repeatable")
	fs.IntVar(&f.workers, "workers", 0, "`N` search workers (default: the spec's, else all cores)")
	fs.Int64Var(&f.maxStates, "max-states", 0, "stop after `N` distinct states (0: the spec's limit, else none)")
	fs.IntVar(&f.maxDepth, "max-depth", 0, "stop at BFS depth `N` (0: the spec's limit, else none)")
	fs.StringVar(&f.memory, "memory", "", "memory budget of the search, a `SIZE` such as 4GiB (default: the spec's, else from the RAM, cgroup and ulimit limits: see README)")
	fs.StringVar(&f.spillDir, "spill-dir", "", "write the frontier and the liveness graph to temporary files in `DIR` when each outgrows a quarter of the memory budget (default: the system's temporary folder); they are removed when the search ends")
	fs.StringVar(&f.timeBudget, "time", "", "time budget of the search, a `DURATION` such as 10m (default: the spec's, else none)")
	fs.BoolVar(&f.deadlock, "deadlock", false, "report a reachable state without successors as a deadlock")
	fs.BoolVar(&f.symmetry, "symmetry", false, "use the model's symmetry reduction (the kafka model uses it by default in safety checks where it applies; --symmetry=false: never)")
	fs.BoolVar(&f.fullStates, "full-states", false, "print every variable of every trace state, not only what changed")
	fs.StringVar(&f.view, "view", "", viewFlagHelp)
	fs.BoolVar(&f.coverage, "coverage", false, "print, per kind of action, the states where it was enabled and the steps it took, and the kinds never taken")
	fs.StringVar(&f.out, "out", "", "write each violated check's counterexample under `DIR`/CHECK/: trace.txt, trace.itf.json, trace.dot, trace.svg, trace.png, sequence.svg, sequence.png, report.html, views.png (the last state's --view tables, when the model has them), and "+traces.ManifestName)
	fs.BoolVar(&f.force, "force", false, "with --out, replace a DIR/CHECK that holds files kmc did not write: it is moved aside to DIR/kmc-previous-*/, never deleted")
	fs.StringVar(&f.format, "format", "text", "output `FORMAT`: text, or json for one event per line")
	fs.StringVar(&f.dumpGraph, "dump-graph", "", "write the whole reachable state graph of the check as DOT to `FILE` (small models only)")
	fs.IntVar(&f.dumpMax, "dump-graph-max", 500, "refuse --dump-graph above `N` reachable states")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "write checkpoints of the search into `DIR`, to go on with it later with --resume (one check)")
	fs.StringVar(&f.ckptEvery, "checkpoint-every", "10m", "take a checkpoint about every `DURATION`, and one more when a limit or an interrupt stops the search")
	fs.StringVar(&f.resume, "resume", "", "go on with the search of the newest checkpoint in `DIR` (the same spec, check and configuration; any workers) and keep writing checkpoints there unless --checkpoint names another folder")
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
	if fs.Changed("checkpoint-every") && f.checkpoint == "" && f.resume == "" {
		return usageError(stderr, "check", "--checkpoint-every needs --checkpoint or --resume")
	}
	var over checker.Options
	over.Workers, over.MaxStates, over.MaxDepth = f.workers, f.maxStates, f.maxDepth
	over.Deadlock, over.Symmetry = f.deadlock, f.symmetry
	over.SpillDir = f.spillDir
	if code, ok := parseBudgets(stderr, "check", f.memory, "time", f.timeBudget, &over); !ok {
		return code
	}
	path := fs.Arg(0)
	f.sets = withFixes(f.sets, *fixes)
	spec, code := loadSpec(path, f.sets, stderr)
	if spec == nil {
		return code
	}
	views, err := resolveViews(fs, f.view, spec.Family.Views, spec.Family.DefaultView)
	if err != nil {
		return usageError(stderr, "check", "%v", err)
	}
	if over.Symmetry && !spec.Family.Symmetry {
		return usageError(stderr, "check", "--symmetry: model %s has no symmetry reduction%s", spec.Model, specs.Because(spec.Family.SymmetryNote))
	}
	if f.coverage && f.resume != "" {
		return usageError(stderr, "check", "--coverage counts a whole search: it cannot go with --resume")
	}
	var resumed *loadedCheckpoint
	if f.resume != "" {
		lc, err := latestCheckpoint(f.resume)
		if err != nil {
			fmt.Fprintf(stderr, "kmc: check: --resume: %v\n", err)
			if errors.Is(err, errNoCheckpoint) || errors.Is(err, os.ErrNotExist) {
				hint(stderr, "--resume takes the folder that --checkpoint wrote")
			} else {
				hint(stderr, "the checkpoint cannot be used; start the search over without --resume")
			}
			return exitUsage
		}
		if f.check != "" && f.check != lc.man.Check {
			fmt.Fprintf(stderr, "kmc: check: --resume: %s is of check %s, not %s\n", lc.path, lc.man.Check, f.check)
			return exitUsage
		}
		f.check, resumed = lc.man.Check, lc
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

	forceMemory, restore := applyMemoryBudget(spec.Options, &over)
	defer restore()
	stop, release := newStop()
	defer release()
	over.Stop = stop

	out := &checkOutput{w: stdout, stderr: stderr, json: f.format == "json", full: f.fullStates, views: views}
	result := exitOK
	var raise []string  // bounds that incomplete liveness verdicts depend on
	var notRun []string // checks skipped after an interrupt
	cut := false        // an interrupt cut a search short
	resumeHint := ""    // how to resume a search stopped with a checkpoint
	for i := range checks {
		c := &checks[i]
		if i > 0 && stopped(stop) { // the signal came after the previous check's search
			for _, c := range checks[i:] {
				notRun = append(notRun, c.Name)
			}
			break
		}
		r, opts, code := runnable("check", spec, c, stderr)
		if r == nil {
			return code
		}
		opts = specs.MergeOptions(opts, over, forceMemory)
		if fs.Changed("symmetry") && !f.symmetry {
			opts.Symmetry = false
		}
		if opts.Workers == 0 {
			opts.Workers = min(runtime.NumCPU(), specs.MaxWorkers)
		}
		opts.Progress = out.progress
		opts.Phase = out.phase
		opts.Coverage = f.coverage
		opts.Vacuity = true // Vacuity ignores it with --resume: a resumed search saw part of the steps
		out.weak, out.strong, out.live = fairnessOf(r, opts)
		var ck *checkpointer
		if f.checkpoint != "" || resumed != nil {
			var code int
			if ck, code = setupCheckpoint(&f, spec, c, &opts, resumed, every, out, stderr); ck == nil {
				return code
			}
		}
		if f.dumpGraph != "" {
			if len(checks) > 1 {
				return usageError(stderr, "check", "--dump-graph needs one check: name it with --check")
			}
			if code := dumpGraph(f.dumpGraph, f.dumpMax, r, opts, stderr); code != exitOK {
				return code
			}
		}
		if i > 0 && !out.json {
			fmt.Fprintln(stdout)
		}
		out.start(spec, c, opts)
		res := r.Check(opts)
		afterSearch()
		if res.Verdict == checker.Incomplete && stopped(stop) {
			res.Reason, cut = "interrupted", true
		}
		var written traces.Written
		var werr error
		if res.Verdict == checker.Violated && res.Trace != nil && f.out != "" {
			written, werr = writeOutputs(filepath.Join(f.out, c.Name), spec, c, res, args, traces.WriteOptions{FullStates: f.fullStates, Force: f.force, Views: views})
		}
		out.done(spec, c, res, written.Paths, werr)
		if written.Aside != "" {
			fmt.Fprintf(stderr, "kmc: check: moved the previous %s, which holds files kmc did not write, to %s\n",
				filepath.Join(f.out, c.Name), written.Aside)
		}
		if werr != nil {
			fmt.Fprintf(stderr, "kmc: check: --out: %v\n", werr)
		}
		result = worse(result, exitCode(spec, res))
		for _, b := range res.Raise {
			if !containsStr(raise, b) {
				raise = append(raise, b)
			}
		}
		if ck != nil {
			resumeHint = ck.finish(spec, c, res)
		}
		if cut {
			for _, c := range checks[i+1:] {
				notRun = append(notRun, c.Name)
			}
			break
		}
	}
	if cut || len(notRun) > 0 {
		// Interrupted: the run is incomplete, unless a check found a violation before.
		result = worse(result, exitIncomplete)
		if out.json {
			out.event(map[string]any{"event": "interrupted", "partial": cut, "not_run": append([]string{}, notRun...)})
			return result
		}
		if cut {
			fmt.Fprintln(stderr, "kmc: check: interrupted; the statistics above are partial")
			if resumeHint != "" {
				hint(stderr, "go on with the search: "+resumeHint)
			}
		}
		if len(notRun) > 0 {
			fmt.Fprintf(stderr, "kmc: check: interrupted; not run: %s\n", strings.Join(notRun, ", "))
		}
		return result
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
	c, ok := spec.CheckByName(name)
	if !ok {
		fmt.Fprintf(stderr, "kmc: %s: %s has no check %q%s\n", cmd, spec.Path, name, specs.DidYouMean(name, checkNameList(spec)))
		hint(stderr, "its checks are: "+checkNames(spec))
		return nil, exitUsage
	}
	return []specs.Check{*c}, exitOK
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

// interrupted ends a run of checks that a signal cut short (cut: a search was under way)
// or stopped before the checks notRun; the exit code is result, made incomplete unless a
// check found a violation before.
func (o *checkOutput) interrupted(cmd string, result int, cut bool, notRun []string) int {
	result = worse(result, exitIncomplete)
	if o.json {
		o.event(map[string]any{"event": "interrupted", "partial": cut, "not_run": append([]string{}, notRun...)})
		return result
	}
	if cut {
		fmt.Fprintf(o.stderr, "kmc: %s: interrupted; the statistics above are partial\n", cmd)
	}
	if len(notRun) > 0 {
		fmt.Fprintf(o.stderr, "kmc: %s: interrupted; not run: %s\n", cmd, strings.Join(notRun, ", "))
	}
	return result
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// loadSpec loads a spec, printing its errors (exit 2) or an I/O failure (exit 1).
func loadSpec(path string, sets []string, stderr io.Writer) (*specs.Spec, int) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		fmt.Fprintf(stderr, "kmc: %s is a folder, not a spec file\n", path)
		hint(stderr, "to run every spec under it: kmc suite "+path+"; to run one: kmc check "+filepath.Join(path, "NAME.toml"))
		return nil, exitUsage
	}
	spec, err := specs.Load(path, sets)
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
		hint(stderr, "spec files are under specs/; run 'kmc suite specs/' to run them all")
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

// heapBytes is the memory of the live and not yet collected objects of the heap.
func heapBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// writeOutputs renders the counterexample of check c in every format (text, ITF, DOT, SVG,
// PNG, sequence chart, HTML report) into dir, all or nothing (see traces.WriteAll).
func writeOutputs(dir string, spec *specs.Spec, c *specs.Check, res checker.Result, args []string, opts traces.WriteOptions) (traces.Written, error) {
	st := res.Stats
	info := traces.ReportInfo{Verdict: res.Verdict, Property: res.Property, Reason: res.Reason, Stats: &st,
		Command: "kmc check " + strings.Join(args, " ")}
	return writeTrace(dir, spec, c, res.Trace, info, opts)
}

// writeTrace renders trace t of check c in every format into dir, all or nothing, with
// info (title, spec and check filled in here) for the HTML report.
func writeTrace(dir string, spec *specs.Spec, c *specs.Check, t *checker.Trace, info traces.ReportInfo, opts traces.WriteOptions) (traces.Written, error) {
	info.Title, info.Spec, info.Check = spec.Path+", check "+c.Name, spec.Path, c.Name
	return traces.WriteAll(dir, t, info, opts)
}

// checkOutput prints a check's progress and result as TLC-style text or as JSON events.
type checkOutput struct {
	w, stderr io.Writer
	json      bool
	full      bool
	views     traces.ViewSelection
	live      bool // the check has a liveness property; weak and strong are its fairness
	weak      []string
	strong    []string
	last      checker.Stats     // at the previous progress report
	resumed   *loadedCheckpoint // the checkpoint the search goes on from
}

func (o *checkOutput) event(v map[string]any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("kmc: marshal event: " + err.Error()) // only plain values are marshalled
	}
	fmt.Fprintf(o.w, "%s\n", b)
}

func (o *checkOutput) start(spec *specs.Spec, c *specs.Check, opts checker.Options) {
	o.last = checker.Stats{}
	if o.json {
		ev := map[string]any{"event": "start", "spec": spec.Path, "check": c.Name, "model": spec.Model,
			"expected": c.Expected(), "config": configString(spec, c), "workers": opts.Workers,
			"memory_budget_bytes": opts.MemoryBytes, "symmetry": opts.Symmetry}
		if r := o.resumed; r != nil {
			ev["resume"] = map[string]any{"checkpoint": r.path, "level": r.man.Level, "generated": r.man.Generated,
				"distinct": r.man.Distinct, "queue": r.man.Queue, "elapsed_seconds": r.man.Elapsed.Seconds()}
		}
		o.event(ev)
		return
	}
	fmt.Fprintf(o.w, "Checking %s, check %s: model %s, %s\n", spec.Path, c.Name, spec.Model, configString(spec, c))
	workers := "1 worker"
	if opts.Workers != 1 {
		workers = strconv.Itoa(opts.Workers) + " workers"
	}
	if opts.Symmetry {
		workers += " and symmetry reduction (--symmetry=false: without)"
	}
	fmt.Fprintf(o.w, "Running breadth-first search with %s.\n", workers)
	if r := o.resumed; r != nil {
		fmt.Fprintf(o.w, "Resuming from checkpoint %s: level %d, %d states generated, %d distinct states found, %d states left on queue, after %s.\n",
			r.path, r.man.Level, r.man.Generated, r.man.Distinct, r.man.Queue, specs.FormatElapsed(r.man.Elapsed))
	}
}

// configString describes a check's configuration: constants, faults, fixes and the guards
// turned off.
func configString(spec *specs.Spec, c *specs.Check) string {
	var parts []string
	for _, ps := range [][]specs.Param{spec.Family.Constants, spec.Family.Faults} {
		for _, p := range ps {
			if p.Quiet && c.Config.Values[p.Name] == p.Default {
				continue
			}
			parts = append(parts, p.Name+"="+paramValue(p, c.Config.Values[p.Name]))
		}
	}
	fixes := "none"
	if len(c.Fixes) > 0 {
		fixes = strings.Join(c.Fixes, ",")
	}
	parts = append(parts, "fixes="+fixes)
	if len(c.Mutate) > 0 {
		parts = append(parts, "mutate="+strings.Join(c.Mutate, ","))
	}
	return strings.Join(parts, " ")
}

func paramValue(p specs.Param, v int) string {
	switch p.Kind {
	case specs.Bool:
		return strconv.FormatBool(v != 0)
	case specs.Enum:
		if v >= 0 && v < len(p.Enum) {
			return p.Enum[v]
		}
	}
	return strconv.Itoa(v)
}

// phaseAfter is how long a search must have run before kmc reports the phases it enters: a
// short check prints none (and its output stays the same from run to run).
const phaseAfter = time.Second

// phase reports, on a search that has run phaseAfter or more, that it enters a phase
// (checker.Options.Phase): the liveness graph, then each liveness property.
func (o *checkOutput) phase(name string, st checker.Stats) {
	if st.Elapsed < phaseAfter {
		return
	}
	if o.json {
		o.event(map[string]any{"event": "phase", "phase": name, "distinct": st.Distinct, "elapsed_seconds": st.Elapsed.Seconds()})
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
		o.event(map[string]any{"event": "progress", "depth": st.Depth, "generated": st.Generated,
			"distinct": st.Distinct, "queue": st.Queue, "distinct_per_second": int64(rate)})
		return
	}
	fmt.Fprintf(o.stderr, "Progress(%d): %d states generated, %d distinct states found, %d states left on queue, %.0f distinct states/s.\n",
		st.Depth, st.Generated, st.Distinct, st.Queue, rate)
}

func (o *checkOutput) done(spec *specs.Spec, c *specs.Check, res checker.Result, files []string, writeErr error) {
	if files == nil {
		files = []string{}
	}
	if o.json {
		if res.Trace != nil {
			ev := map[string]any{"event": "violation", "check": c.Name, "property": res.Property,
				"trace": traceJSON(res.Trace), "files": files}
			if writeErr != nil {
				ev["write_error"] = writeErr.Error()
			}
			o.event(ev)
		}
		st := res.Stats
		ev := map[string]any{"event": "done", "check": c.Name, "verdict": string(res.Verdict),
			"property": res.Property, "reason": res.Reason, "expected": c.Expected(),
			"matches": len(c.Compare(res)) == 0,
			"stats": map[string]any{"generated": st.Generated, "distinct": st.Distinct, "queue": st.Queue,
				"depth": st.Depth, "collision": st.Collision, "elapsed_seconds": st.Elapsed.Seconds(),
				"memory_bytes": st.MemoryBytes, "workers": st.Workers, "unreduced": st.Unreduced, "deferred": st.Deferred,
				"spilled_bytes": st.Spilled + st.GraphSpilled}}
		if len(res.Raise) > 0 {
			ev["raise"] = res.Raise
		}
		if o.live {
			ev["fairness"] = map[string]any{"weak": o.weak, "strong": o.strong}
		}
		if res.Verdict == checker.OK {
			ev["vacuous"] = append([]string{}, spec.Vacuity(c.Config, res)...)
		}
		if res.Coverage != nil {
			var cov []map[string]any
			for _, k := range res.Coverage {
				cov = append(cov, map[string]any{"kind": k.Kind, "enabled": k.Enabled, "taken": k.Taken})
			}
			ev["coverage"] = cov
		}
		o.event(ev)
		return
	}
	w := o.w
	switch res.Verdict {
	case checker.OK:
		fmt.Fprintln(w, "Model checking completed. No error has been found.")
	case checker.Violated:
		o.violation("check", spec, res.Property, res.Trace)
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
	if st.Spilled+st.GraphSpilled > 0 {
		fmt.Fprintf(w, "Spilled to disk: %s (frontier %s, liveness graph %s).\n", specs.FormatSize(st.Spilled+st.GraphSpilled),
			specs.FormatSize(st.Spilled), specs.FormatSize(st.GraphSpilled))
	}
	if res.Verdict == checker.Incomplete && (len(res.Raise) == 0 || st.Queue > 0) {
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
	}
	if o.live {
		fmt.Fprintln(w, fairnessText(o.weak, o.strong))
	}
	why := spec.Vacuity(c.Config, res)
	got := specs.VacuousText(res.Verdict, res.Property, why)
	diffs := c.Compare(res)
	if d := c.CompareVacuous(res, why); d != "" && len(diffs) == 0 {
		diffs = append(diffs, d)
	}
	// Wrapped at 100 columns as the other lines: a vacuous verdict can name many reasons.
	if len(diffs) > 0 {
		fmt.Fprintln(w, wrap(fmt.Sprintf("Result: %s; the spec expects %s (%s)", got, c.Expected(), strings.Join(diffs, "; ")), 100, "  "))
	} else {
		fmt.Fprintln(w, wrap(fmt.Sprintf("Result: %s, as the spec expects.", got), 100, "  "))
	}
}

// violation prints TLC's headline for a violation of property and its trace, if any.
func (o *checkOutput) violation(cmd string, spec *specs.Spec, property string, t *checker.Trace) {
	fmt.Fprintln(o.w, violationHeadline(spec, property))
	if t != nil {
		fmt.Fprintln(o.w, "Error: The behavior up to this point is:")
		if err := traces.Text(o.w, t, traces.TextOptions{FullStates: o.full, Views: o.views}); err != nil {
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

// dumpGraph writes the whole reachable graph of r as DOT to path, refusing (exit 2) when it
// has more than max states. It honours opts.Stop and opts.MemoryBytes (the heap, sampled):
// either stops it with nothing written (exit 3). The engine's Graph does not poll them, so
// its exploration is left to run on until the process exits.
func dumpGraph(path string, max int, r checker.Runnable, opts checker.Options, stderr io.Writer) int {
	type graphResult struct {
		g   *checker.Graph
		err error
	}
	over := func() bool { return opts.MemoryBytes > 0 && heapBytes() > opts.MemoryBytes }
	var res graphResult
	if !stopped(opts.Stop) && !over() {
		done := make(chan graphResult, 1)
		go func() {
			g, err := r.Graph(max, opts)
			done <- graphResult{g, err}
		}()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
	wait:
		for {
			select {
			case res = <-done:
				break wait
			case <-opts.Stop:
				break wait
			case <-tick.C:
				if over() {
					break wait
				}
			}
		}
	}
	if res.g == nil && res.err == nil {
		if stopped(opts.Stop) {
			fmt.Fprintf(stderr, "kmc: check: --dump-graph: interrupted; no graph written\n")
		} else {
			fmt.Fprintf(stderr, "kmc: check: --dump-graph: memory budget %s reached; no graph written\n", specs.FormatSize(opts.MemoryBytes))
			hint(stderr, "the graph dump is for small models: shrink the spec's constants or raise --memory")
		}
		return exitIncomplete
	}
	g, err := res.g, res.err
	if err != nil {
		fmt.Fprintf(stderr, "kmc: check: --dump-graph: %v\n", err)
		hint(stderr, "the graph dump is for small models: shrink the spec's constants or raise --dump-graph-max")
		return exitUsage
	}
	var b bytes.Buffer
	if err := traces.GraphDOT(&b, g); err != nil {
		fmt.Fprintf(stderr, "kmc: check: --dump-graph: %v\n", err)
		return exitInternal
	}
	if err := writeFileAtomic(path, b.Bytes()); err != nil {
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

// fairnessOf is the fairness a check with a liveness property assumes: the kinds of action
// that are weakly and strongly fair (nil, nil, false without a liveness property).
func fairnessOf(r checker.Runnable, opts checker.Options) (weak, strong []string, live bool) {
	fair, live := r.Fairness(opts)
	if !live {
		return nil, nil, false
	}
	kinds := r.ActionKinds()
	weak, strong = []string{}, []string{}
	for k, f := range fair {
		switch f {
		case checker.Weak:
			weak = append(weak, kinds[k])
		case checker.Strong:
			strong = append(strong, kinds[k])
		}
	}
	return weak, strong, true
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

// runnable builds check c of spec for command cmd; a configuration the model refuses is a
// usage error (nil, exit 2).
func runnable(cmd string, spec *specs.Spec, c *specs.Check, stderr io.Writer) (checker.Runnable, checker.Options, int) {
	r, opts, err := spec.Runnable(c)
	if err != nil {
		fmt.Fprintf(stderr, "kmc: %s: %v\n", cmd, err)
		hint(stderr, "run 'kmc list "+spec.Model+"' for the model's parameters")
		return nil, opts, exitUsage
	}
	return r, opts, exitOK
}
