package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"kmc/app"
	"kmc/checker"
	"kmc/cluster"
	"kmc/specs"
	"kmc/traces"
)

const simulateSynopsis = "kmc simulate SPEC [--check NAME] [--seed S] [--runs N] [--depth D] [--set key=value]... [flags]"

const simulateExamples = `  kmc simulate specs/twophase.toml --check buggy --seed 1
  kmc simulate specs/kafka-14154.toml --check buggy --set brokers=4 --runs 0 --time 10m --depth 200
  kmc simulate specs/kafka-18723.toml --check buggy --seed 7 --first-run 1234 --runs 1 --depth 300
`

// simFlags are the flags of kmc simulate.
type simFlags struct {
	check      string
	sets       []string
	seed       uint64
	runs       int64
	firstRun   int64
	depth      int
	workers    int
	timeBudget string
	deadlock   bool
	fullStates bool
	view       string
	out        string
	force      bool
	format     string
	bias       string
	memory     string
	dist       distFlags
	block      int64
}

// simNow is the clock the default seed is derived from; tests replace it.
var simNow = time.Now

func runSimulate(args []string, stdout, stderr io.Writer) int {
	var f simFlags
	fs := newFlags("simulate", simulateSynopsis, simulateExamples, stdout)
	fs.StringVar(&f.check, "check", "", "simulate only the check called `NAME` (default: every check of the spec)")
	fs.StringArrayVar(&f.sets, "set", nil, "override a spec value, `KEY=VALUE`, as for kmc check; repeatable")
	fixes := fs.StringArray("fix", nil, "turn on the fix switch `NAME` in every check run (as --set fixes+=NAME); repeatable")
	fs.Uint64Var(&f.seed, "seed", 0, "the random seed `S`: walk k is drawn from (S, k) alone (default: derived from the clock, and printed)")
	fs.Int64Var(&f.runs, "runs", checker.DefaultSimRuns, "take `N` random walks; 0: no limit, until --time or Ctrl-C (with --time the default is 0)")
	fs.Int64Var(&f.firstRun, "first-run", 0, "number the walks from `K`: --first-run K --runs 1 takes walk K alone")
	fs.IntVar(&f.depth, "depth", checker.DefaultSimDepth, "end each walk after `D` states (the initial one included)")
	fs.IntVar(&f.workers, "workers", 0, "`N` workers taking walks (default: the spec's, else all cores); the result does not depend on it")
	fs.StringVar(&f.timeBudget, "time", "", "stop taking walks after a `DURATION` such as 10m (default: none)")
	fs.StringVar(&f.memory, "memory", "", "memory budget of the walks, a `SIZE` such as 4GiB: a walk that would go beyond it ends the simulation, incomplete (default: the spec's, else as kmc check's: see README)")
	fs.StringVar(&f.bias, "bias", string(checker.BiasUniform), "how a walk picks its next step, `BIAS`: uniform (every successor alike), kinds (every enabled kind of action alike, then one of its successors), or delay (each action waits a random, heavy-tailed number of steps once enabled); see README")
	fs.BoolVar(&f.deadlock, "deadlock", false, "report a state without successors as a deadlock")
	fs.BoolVar(&f.fullStates, "full-states", false, "print every variable of every trace state, not only what changed")
	fs.StringVar(&f.view, "view", "", viewFlagHelp)
	fs.StringVar(&f.out, "out", "", "write each violated check's counterexample under `DIR`/CHECK/, as kmc check --out does")
	fs.BoolVar(&f.force, "force", false, "with --out, replace a DIR/CHECK that holds files kmc did not write (moved aside, never deleted)")
	fs.StringVar(&f.format, "format", "text", "output `FORMAT`: text, or json for one event per line")
	f.dist.addCluster(fs)
	fs.Int64Var(&f.block, "block", cluster.DefaultBlock, "with --cluster, hand out the walks in blocks of `N`")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if code, ok := f.dist.checkCluster("simulate", stderr); !ok {
		return code
	}
	if f.block < 1 {
		return usageError(stderr, "simulate", "--block must be at least 1 (got %d)", f.block)
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "simulate", "want one spec file, got %d arguments", fs.NArg())
	}
	if f.format != "text" && f.format != "json" {
		return usageError(stderr, "simulate", "--format must be text or json (got %q)", f.format)
	}
	if f.runs < 0 || f.firstRun < 0 || f.workers < 0 {
		return usageError(stderr, "simulate", "--runs, --first-run and --workers must not be negative")
	}
	if f.depth < 1 {
		return usageError(stderr, "simulate", "--depth must be at least 1 (got %d)", f.depth)
	}
	if f.workers > specs.MaxWorkers {
		return usageError(stderr, "simulate", "--workers must be at most %d (got %d)", specs.MaxWorkers, f.workers)
	}
	if !slices.Contains(biasNames(), f.bias) {
		return usageError(stderr, "simulate", "--bias must be one of %s (got %q)", strings.Join(biasNames(), ", "), f.bias)
	}
	var budgets app.Search
	if code, ok := parseBudgets(stderr, "simulate", f.memory, "time", f.timeBudget, &budgets); !ok {
		return code
	}
	budget := budgets.Time
	if budget > 0 && !fs.Changed("runs") {
		f.runs = 0
	}
	if !fs.Changed("seed") {
		f.seed = uint64(simNow().UnixNano())
	}
	path := fs.Arg(0)
	f.sets = withFixes(f.sets, *fixes)
	spec, code := loadSpec(path, f.sets, f.check, stderr)
	if spec == nil {
		return code
	}
	views, err := resolveViews(fs, f.view, spec.Family.Views, spec.Family.DefaultView)
	if err != nil {
		return usageError(stderr, "simulate", "%v", err)
	}
	checks, code := selectChecks("simulate", spec, f.check, stderr)
	if checks == nil {
		return code
	}
	if code := prepareOut("simulate", f.out, checks, f.force, stderr); code != exitOK {
		return code
	}
	ctx, release := signalContext()
	defer release()

	out := &simOutput{checkOutput: checkOutput{w: stdout, stderr: stderr, json: f.format == "json", full: f.fullStates, views: views}, sets: f.sets}
	result := exitOK
	var notRun []string
	cut := false
	for i := range checks {
		c := &checks[i]
		if i > 0 && ctx.Err() != nil {
			for _, c := range checks[i:] {
				notRun = append(notRun, c.Name)
			}
			break
		}
		walks := checker.SimOptions{Seed: f.seed, Runs: f.runs, FirstRun: f.firstRun, Depth: f.depth,
			Workers: f.workers, Time: budget, Deadlock: f.deadlock, Bias: checker.Bias(f.bias)}
		if f.runs == 0 {
			walks.Runs = -1
		}
		o := app.SimulateOptions{Walks: walks, Memory: budgets.Memory, Write: traces.WriteOptions{FullStates: f.fullStates, Force: f.force, Views: views},
			OnEvent: out.event, Command: func(run int64) string { return simCommand(spec.Path, c.Name, out.sets, out.so, run) }}
		if f.out != "" {
			o.Out = filepath.Join(f.out, c.Name)
		}
		o.Run = f.dist.simRunner(path, f.sets, f.block)
		res, err := app.Simulate(ctx, spec, c.Name, o)
		var refused *cluster.RefusedError
		if errors.As(err, &refused) {
			return usageError(stderr, "simulate", "%v", err)
		}
		if err != nil {
			return appError(stderr, "simulate", err, nil)
		}
		cut = res.Interrupted
		out.done(spec, c, res)
		outNotes(stderr, "simulate", o.Out, res.Written, res.WriteErr)
		result = worse(result, verdictExit(spec, res.Verdict, res.Property))
		if cut {
			for _, c := range checks[i+1:] {
				notRun = append(notRun, c.Name)
			}
			break
		}
	}
	if cut || len(notRun) > 0 {
		return out.interrupted("simulate", result, cut, notRun, "")
	}
	return result
}

// plural is n and a noun, with an s unless n is 1.
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}

func biasNames() []string {
	var names []string
	for _, b := range checker.Biases {
		names = append(names, string(b))
	}
	return names
}

// simCommand is the command line that takes walk run of a simulation alone.
func simCommand(path, check string, sets []string, so checker.SimOptions, run int64) string {
	parts := []string{"kmc simulate", path, "--check", check}
	for _, s := range sets {
		parts = append(parts, "--set", s)
	}
	parts = append(parts, "--seed", strconv.FormatUint(so.Seed, 10), "--first-run", strconv.FormatInt(run, 10),
		"--runs", "1", "--depth", strconv.Itoa(so.Depth))
	if so.Bias != checker.BiasUniform {
		parts = append(parts, "--bias", string(so.Bias))
	}
	if so.Deadlock {
		parts = append(parts, "--deadlock")
	}
	return strings.Join(parts, " ")
}

// simOutput prints a simulation's progress and result, as text or JSON events, in kmc
// check's formats where they are the same thing.
type simOutput struct {
	checkOutput
	sets    []string           // the --set arguments, for the command that takes a walk alone
	so      checker.SimOptions // the walks of the check under way
	lastSim checker.SimStats
}

// event prints what app.Simulate reports as it runs.
func (o *simOutput) event(e app.Event) {
	switch e := e.(type) {
	case app.SimulateStarted:
		o.start(e.Spec, e.Check, e.Options)
	case app.SimulateProgress:
		o.progress(e.Stats)
	case app.Searched:
		afterSearch()
	}
}

func (o *simOutput) start(spec *specs.Spec, c *specs.Check, so checker.SimOptions) {
	o.so, o.lastSim = so, checker.SimStats{}
	if o.started && !o.json {
		fmt.Fprintln(o.w)
	}
	o.started = true
	if o.json {
		o.emit(map[string]any{"event": "start", "mode": "simulate", "spec": spec.Path, "check": c.Name,
			"model": spec.Model, "expected": c.Expected(), "config": app.Config(spec, c), "workers": so.Workers,
			"seed": so.Seed, "runs": max(so.Runs, 0), "first_run": so.FirstRun, "depth": so.Depth,
			"memory_budget_bytes": so.MemoryBytes})
		return
	}
	printWrapped(o.w, fmt.Sprintf("Simulating %s, check %s: model %s, %s", spec.Path, c.Name, spec.Model, app.Config(spec, c)))
	var walks string
	switch {
	case so.Runs < 0:
		walks = "random walks"
	case so.Runs == 1:
		walks = "random walk " + strconv.FormatInt(so.FirstRun, 10)
	default:
		walks = plural(so.Runs, "random walk")
	}
	walks += " of at most " + strconv.Itoa(so.Depth) + " states"
	if so.FirstRun > 0 && so.Runs != 1 {
		walks += ", from walk " + strconv.FormatInt(so.FirstRun, 10)
	}
	if so.Runs < 0 {
		walks += ", until stopped"
	}
	workers := "1 worker"
	if so.Workers != 1 {
		workers = strconv.Itoa(so.Workers) + " workers"
	}
	fmt.Fprintf(o.w, "Running %s, with seed %d, %s.\n", walks, so.Seed, workers)
}

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

func (o *simOutput) progress(st checker.SimStats) {
	r := rate(st.Walks-o.lastSim.Walks, st.Elapsed-o.lastSim.Elapsed)
	o.lastSim = st
	if o.json {
		o.emit(map[string]any{"event": "progress", "walks": st.Walks, "states": st.States,
			"distinct_estimate": st.Distinct, "max_depth": st.MaxDepth, "walks_per_second": int64(r)})
		return
	}
	fmt.Fprintf(o.stderr, "Progress: %d walks, %d states visited, about %d distinct states, longest walk %d states, %.0f walks/s.\n",
		st.Walks, st.States, st.Distinct, st.MaxDepth, r)
}

func (o *simOutput) done(spec *specs.Spec, c *specs.Check, res *app.SimulateResult) {
	so, files, writeErr := o.so, res.Written.Paths, res.WriteErr
	if files == nil {
		files = []string{}
	}
	walkAlone := simCommand(spec.Path, c.Name, o.sets, so, res.Run)
	got := specs.Outcome(res.Verdict, res.Property)
	matches := got == c.Expected()
	st := res.Stats
	if o.json {
		if res.Trace != nil {
			ev := map[string]any{"event": "violation", "check": c.Name, "property": res.Property, "walk": res.Run,
				"trace": traceJSON(res.Trace), "files": files, "command": walkAlone}
			if writeErr != nil {
				ev["write_error"] = writeErr.Error()
			}
			o.emit(ev)
		}
		ev := map[string]any{"event": "done", "mode": "simulate", "check": c.Name, "verdict": string(res.Verdict),
			"property": res.Property, "reason": res.Reason, "expected": c.Expected(), "matches": matches, "seed": res.Seed,
			"stats": map[string]any{"walks": st.Walks, "states": st.States, "generated": st.Generated,
				"distinct_estimate": st.Distinct, "max_depth": st.MaxDepth, "elapsed_seconds": st.Elapsed.Seconds(),
				"workers": st.Workers, "walks_per_second": int64(rate(st.Walks, st.Elapsed))}}
		if res.Verdict == checker.Violated {
			ev["walk"] = res.Run
		}
		o.emit(ev)
		return
	}
	w := o.w
	switch res.Verdict {
	case checker.Violated:
		o.violation("simulate", spec, res.Property, res.Trace)
		fmt.Fprintf(w, "Found by walk %d of seed %d; to take that walk alone:\n  %s\n", res.Run, res.Seed, walkAlone)
	case checker.OK:
		why := ""
		if res.Reason != "" {
			why = " (" + res.Reason + ")"
		}
		fmt.Fprintf(w, "No violation found in %s of at most %d states%s.\n", plural(st.Walks, "random walk"), so.Depth, why)
		fmt.Fprintln(w, "Simulation is not exhaustive: no walk found a violation, which does not mean that none exists ('kmc check' explores every state).")
	case checker.Incomplete:
		fmt.Fprintf(w, "Simulation stopped: %s. No violation found in %s.\n", orUnknown(res.Reason), plural(st.Walks, "random walk"))
	}
	fmt.Fprintf(w, "%s, %d states visited, %d states generated; about %d distinct states (a HyperLogLog estimate, standard error about 1%%).\n",
		plural(st.Walks, "walk"), st.States, st.Generated, st.Distinct)
	fmt.Fprintf(w, "The longest walk has %d states.\n", st.MaxDepth)
	fmt.Fprintf(w, "Finished in %s (%.0f walks/s). Seed: %d.\n", specs.FormatElapsed(st.Elapsed), rate(st.Walks, st.Elapsed), res.Seed)
	for _, p := range files {
		fmt.Fprintf(w, "Wrote %s\n", p)
	}
	if c.Exploratory() {
		fmt.Fprintf(w, "Result: %s (an exploratory check: the spec expects nothing).\n", got)
	} else if matches {
		fmt.Fprintf(w, "Result: %s, as the spec expects.\n", got)
	} else {
		fmt.Fprintf(w, "Result: %s; the spec expects %s.\n", got, c.Expected())
	}
}
