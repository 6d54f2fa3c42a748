package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"kmc/app"
	"kmc/checker"
	"kmc/cluster"
	"kmc/specs"
)

const suiteSynopsis = "kmc suite DIR [--workers N] [--memory SIZE] [--por-compare] [--partitions N | --cluster URL --nodes N]"

const suiteExamples = `  kmc suite specs/
  kmc suite specs/ --workers 1
  kmc suite specs/ --por-compare
`

func runSuite(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("suite", suiteSynopsis, suiteExamples, stdout)
	workers := fs.Int("workers", 0, "`N` search workers per check (default: the spec's, else all cores)")
	comparePOR := fs.Bool("por-compare", false, "run each check that the partial-order reduction reduced a second time without it: a difference of verdict, property or trace length, or a trace that does not replay, is a mismatch; prints both counts")
	partitions := fs.Int("partitions", 0, "run each search as `N` parts over an embedded NATS server that opens no socket (kmc check --partitions; a liveness property's state graph is gathered to this process); checks under the partial-order reduction run in one process")
	clusterURL := fs.String("cluster", "", "run each search across the kmc nodes reached at NATS `URL` (kmc check --cluster; needs --nodes; a liveness property's state graph is gathered to this process); checks under the partial-order reduction run in this process")
	nodes := fs.Int("nodes", 0, "with --cluster, the `N` nodes each search runs on")
	token := fs.String("token", "", "with --cluster, the nodes' `TOKEN` (default: $KMC_NATS_TOKEN)")
	memory := fs.String("memory", "", "memory budget per check for specs that set none, a `SIZE` such as 4GiB (default: from the RAM, cgroup and ulimit limits: see README)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "suite", "want one folder of spec files, got %d arguments", fs.NArg())
	}
	if *partitions < 0 || *partitions > 256 {
		return usageError(stderr, "suite", "--partitions must be 0..256 (got %d)", *partitions)
	}
	switch {
	case *clusterURL != "" && *partitions > 0:
		return usageError(stderr, "suite", "--partitions and --cluster exclude each other")
	case *clusterURL != "" && (*nodes < 1 || *nodes > 256):
		return usageError(stderr, "suite", "--cluster needs --nodes 1..256 (got %d)", *nodes)
	case *clusterURL == "" && (*nodes != 0 || *token != ""):
		return usageError(stderr, "suite", "--nodes and --token need --cluster")
	}
	if *token == "" {
		*token = os.Getenv("KMC_NATS_TOKEN")
	}
	if *workers < 0 || *workers > specs.MaxWorkers {
		return usageError(stderr, "suite", "--workers must be 0..%d (got %d)", specs.MaxWorkers, *workers)
	}
	var budget app.Search
	if code, ok := parseBudgets(stderr, "suite", *memory, "", "", &budget); !ok {
		return code
	}
	dir := fs.Arg(0)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if err == nil {
			err = fmt.Errorf("%s: not a folder", dir)
		}
		return usageError(stderr, "suite", "%v", err)
	}
	if paths, err := specs.FindSpecs(dir); err == nil && len(paths) == 0 {
		return usageError(stderr, "suite", "no *.toml files under %s", dir)
	}
	ctx, release := signalContext()
	defer release()
	t := &suiteTable{w: stdout}
	o := app.SuiteOptions{Workers: *workers, Memory: budget.Memory, ComparePOR: *comparePOR, OnEvent: t.event}
	var parted, live, single int
	if *partitions > 0 {
		// Checks under the partial-order reduction (or anything else a partitioned search
		// refuses) run on the single-process engine, and the summary says how many; a
		// liveness property's graph is gathered.
		o.Run = func(r checker.Runnable, opts checker.Options) checker.Result {
			if checker.PartitionRefusal(r, opts) != "" {
				single++
				return r.Check(opts)
			}
			res, _, err := cluster.CheckPartitions(r, opts, *partitions)
			if err != nil {
				return checker.Result{Verdict: checker.Incomplete, Reason: err.Error()}
			}
			parted++
			if _, l := r.Fairness(opts); l {
				live++
			}
			return res
		}
	}
	if *clusterURL != "" {
		o.RunCheck = func(spec *specs.Spec, c *specs.Check, n *specs.Neighbour, r checker.Runnable, opts checker.Options) checker.Result {
			if checker.PartitionRefusal(r, opts) != "" {
				single++
				return r.Check(opts)
			}
			src, err := os.ReadFile(spec.Path)
			if err != nil {
				return checker.Result{Verdict: checker.Incomplete, Reason: "read spec: " + err.Error()}
			}
			res, _, err := cluster.CheckCluster(r, opts, cluster.ClusterRun{URL: *clusterURL, Token: *token, Nodes: *nodes,
				SpecPath: spec.Path, Spec: src, Check: c.Name, Neighbour: n, Log: stderr})
			if err != nil {
				return checker.Result{Verdict: checker.Incomplete, Reason: err.Error()}
			}
			parted++
			if _, l := r.Fairness(opts); l {
				live++
			}
			return res
		}
	}
	rep, err := app.Suite(ctx, dir, o)
	if err != nil {
		var list specs.ErrorList
		if errors.As(err, &list) { // every spec's errors, joined
			fmt.Fprintln(stderr, err)
			fmt.Fprintln(stderr, "kmc: suite: bad spec files; nothing was run")
			hint(stderr, "fix the errors above; 'kmc check FILE' shows one spec's errors")
			return exitUsage
		}
		fmt.Fprintf(stderr, "kmc: suite: %v\n", err)
		return exitInternal
	}
	t.summary(rep)
	if *partitions > 0 {
		fmt.Fprintf(stdout, "%d searches ran as %d partitions over NATS (%d with a liveness property, their state graph gathered to this process); %d ran in one process (the partial-order reduction runs on one machine only).\n", parted, *partitions, live, single)
	}
	if *clusterURL != "" {
		fmt.Fprintf(stdout, "%d searches ran across %d nodes at %s (%d with a liveness property, their state graph gathered to this process); %d ran in this process (the partial-order reduction runs on one machine only).\n", parted, *nodes, *clusterURL, live, single)
	}
	if rep.Mismatches > 0 {
		if rep.NeighbourMismatches > 0 {
			hint(stderr, "'kmc check SPEC --check NAME --set KEY=VALUE' runs a robustness neighbour; "+
				"'kmc sweep SPEC --check NAME --vary KEY=LO..HI' shows where the verdict changes")
		}
		if rep.Mismatches > rep.NeighbourMismatches {
			hint(stderr, "run 'kmc check SPEC --check NAME' for a differing check's statistics and counterexample")
		}
	}
	if rep.Interrupted {
		fmt.Fprintln(stderr, "kmc: suite: interrupted")
		if rep.Mismatches == 0 {
			return exitIncomplete
		}
	}
	if rep.Mismatches > 0 {
		return exitInternal
	}
	return exitOK
}

// suiteTable prints a suite's rows as they come: spec, check, expected and actual outcome,
// distinct states, depth (trace length for a violation) and time, then one indented line
// per difference from the expectation; only the time column varies between runs.
type suiteTable struct {
	w                         io.Writer
	specW, checkW, expW, gotW int
}

// event prints what app.Suite reports as it runs.
func (t *suiteTable) event(e app.Event) {
	switch e := e.(type) {
	case app.SuiteLoaded:
		t.widths(e.Specs)
		t.row("SPEC", "CHECK", "EXPECTED", "GOT", "STATES", "DEPTH", "TIME")
	case app.SuiteRowDone:
		t.print(e.Row)
	}
}

// widths sizes the columns for every check of the specs and every outcome they can have.
func (t *suiteTable) widths(loaded []*specs.Spec) {
	t.specW, t.checkW, t.expW, t.gotW = len("SPEC"), len("CHECK"), len("EXPECTED"), len("incomplete")
	for _, s := range loaded {
		t.specW = max(t.specW, len(s.Path))
		for _, p := range append([]string{specs.DeadlockProperty}, s.Properties...) {
			t.gotW = max(t.gotW, len(specs.Outcome(checker.Violated, p)))
		}
		for i := range s.Checks {
			c := &s.Checks[i]
			t.checkW = max(t.checkW, len(c.Name))
			t.expW = max(t.expW, len(c.Expected()))
			for _, n := range c.Robust {
				t.checkW = max(t.checkW, len(c.Name)+len(n.String())+2)
				t.expW = max(t.expW, len(c.NeighbourExpected()))
			}
		}
	}
	t.gotW = max(t.gotW, t.expW)
}

func (t *suiteTable) row(spec, check, exp, got, states, depth, time string) {
	fmt.Fprintf(t.w, "%-*s  %-*s  %-*s  %-*s  %10s  %5s  %s\n", t.specW, spec, t.checkW, check, t.expW, exp, t.gotW, got, states, depth, time)
}

func (t *suiteTable) print(r *app.SuiteRow) {
	res := r.Result
	got := specs.Outcome(res.Verdict, res.Property)
	if r.Interrupted {
		got = "interrupted"
	}
	t.row(r.Spec.Path, r.Name(), r.Expected(), got,
		strconv.FormatInt(res.Stats.Distinct, 10), strconv.Itoa(specs.ResultDepth(res)), specs.FormatElapsed(res.Stats.Elapsed))
	if r.Interrupted {
		return
	}
	if p := r.Plain; p != nil && p.Stats.Distinct > 0 && res.Stats.Distinct > 0 {
		fmt.Fprintf(t.w, "  por: %d distinct states, %d without the reduction (x%.2f), %s without it\n",
			res.Stats.Distinct, p.Stats.Distinct, float64(p.Stats.Distinct)/float64(res.Stats.Distinct), specs.FormatElapsed(p.Stats.Elapsed))
	}
	diffs := r.Mismatches()
	for _, d := range diffs {
		fmt.Fprintf(t.w, "  mismatch: %s\n", d)
	}
	c := r.Check
	if r.Neighbour == nil && len(r.Vacuity) > 0 && !(c.PinVacuous && c.WantVacuous) && len(diffs) == 0 {
		fmt.Fprintf(t.w, "  vacuous: %s\n", strings.Join(r.Vacuity, "; "))
	}
	if res.Verdict == checker.Incomplete && res.Reason != "" && (r.Neighbour != nil || c.Expect != checker.Incomplete) {
		fmt.Fprintf(t.w, "  incomplete: %s\n", res.Reason)
	}
}

// summary is the last line: what ran and whether it matched.
func (t *suiteTable) summary(rep *app.SuiteResult) {
	checks := plural(int64(rep.Checks), "check")
	if rep.Neighbours > 0 {
		checks += " and " + plural(int64(rep.Neighbours), "robustness neighbour")
	}
	switch {
	case rep.Interrupted && rep.Mismatches == 0:
		fmt.Fprintf(t.w, "interrupted after %d of %s; the rest were not run\n", rep.Checks, plural(int64(rep.Total), "check"))
	case rep.Interrupted:
		fmt.Fprintf(t.w, "interrupted after %d of %s; %d of them differ from their expectations\n", rep.Checks, plural(int64(rep.Total), "check"), rep.Mismatches)
	case rep.Mismatches == 0:
		fmt.Fprintf(t.w, "ok: %s in %s match their expectations\n", checks, plural(int64(len(rep.Specs)), "spec file"))
	case rep.Neighbours == 0:
		fmt.Fprintf(t.w, "FAIL: %d of %d checks differ from their expectations\n", rep.Mismatches, rep.Checks)
	default:
		fmt.Fprintf(t.w, "FAIL: %d of %d checks and %d of %d robustness neighbours differ from their expectations\n",
			rep.Mismatches-rep.NeighbourMismatches, rep.Checks, rep.NeighbourMismatches, rep.Neighbours)
	}
}
