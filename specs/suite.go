package specs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"kmc/checker"
)

// Outcome names a verdict with its property: "ok", "violated(TCConsistent)", "incomplete".
func Outcome(v checker.Verdict, property string) string {
	if v == checker.Violated && property != "" {
		return string(v) + "(" + property + ")"
	}
	return string(v)
}

// Expected is the outcome the check expects.
func (c *Check) Expected() string { return Outcome(c.Expect, c.Property) }

// ResultDepth is the figure a check's pinned depth is compared with: the length in states
// of the counterexample for a violation with a trace, else the depth of the search.
func ResultDepth(r checker.Result) int {
	if r.Verdict == checker.Violated && r.Trace != nil {
		return len(r.Trace.States)
	}
	return r.Stats.Depth
}

// Compare lists how result r differs from what check c expects, one line per difference
// ("states: got 290, want 288"); it is empty when they agree. Pinned figures are compared
// only when the verdict and property agree.
func (c *Check) Compare(r checker.Result) []string {
	var diffs []string
	if r.Verdict != c.Expect {
		diffs = append(diffs, fmt.Sprintf("verdict: got %s, want %s", Outcome(r.Verdict, r.Property), c.Expected()))
		return diffs
	}
	if c.Expect == checker.Violated && r.Property != c.Property {
		diffs = append(diffs, fmt.Sprintf("property: got %s, want %s", r.Property, c.Property))
		return diffs
	}
	states := c.States
	if c.Unreduced != 0 && !r.Stats.Symmetry {
		states = c.Unreduced // a search without the symmetry reduction (--symmetry=false)
	}
	if states != 0 && r.Stats.Distinct != states {
		diffs = append(diffs, fmt.Sprintf("states: got %d, want %d", r.Stats.Distinct, states))
	}
	switch {
	case c.Unreduced == 0 || !r.Stats.Symmetry || r.Stats.Deferred:
		// Nothing pinned, or a search that gives no unreduced count: plain (compared
		// above), or with the model's choice left open.
	case r.Stats.Unreduced == 0:
		diffs = append(diffs, fmt.Sprintf("unreduced states: got none, want %d", c.Unreduced))
	case r.Stats.Unreduced != c.Unreduced:
		diffs = append(diffs, fmt.Sprintf("unreduced states: got %d, want %d", r.Stats.Unreduced, c.Unreduced))
	}
	if c.Depth != 0 {
		what := "depth"
		if c.Expect == checker.Violated {
			what = "trace length"
		}
		if d := ResultDepth(r); d != c.Depth {
			diffs = append(diffs, fmt.Sprintf("%s: got %d, want %d", what, d, c.Depth))
		}
	}
	return diffs
}

// MergeOptions returns the spec's options with the caller's on top: a non-zero Workers,
// MaxStates, MaxDepth, Time or MemoryBytes in over replaces the spec's, Deadlock and
// Symmetry set in over turn the option on, and Progress, ProgressEvery and Stop are the
// caller's. A memory budget in over is a default: the spec's own budget wins when set
// unless force is true.
func MergeOptions(spec, over checker.Options, forceMemory bool) checker.Options {
	o := spec
	if over.Workers != 0 {
		o.Workers = over.Workers
	}
	if over.MaxStates != 0 {
		o.MaxStates = over.MaxStates
	}
	if over.MaxDepth != 0 {
		o.MaxDepth = over.MaxDepth
	}
	if over.Time != 0 {
		o.Time = over.Time
	}
	if over.MemoryBytes != 0 && (forceMemory || o.MemoryBytes == 0) {
		o.MemoryBytes = over.MemoryBytes
	}
	if over.SpillDir != "" {
		o.SpillDir = over.SpillDir
	}
	o.Deadlock = o.Deadlock || over.Deadlock
	o.Vacuity = o.Vacuity || over.Vacuity
	o.Symmetry = o.Symmetry || over.Symmetry
	o.Progress, o.ProgressEvery, o.Stop = over.Progress, over.ProgressEvery, over.Stop
	return o
}

// LargeDir is the name of the folders that hold the heavier specs, run by make bench:
// FindSpecs does not descend into one unless it is the folder it was given.
const LargeDir = "large"

// FindSpecs lists every *.toml file under dir, recursively, in sorted order, skipping
// any folder called LargeDir below dir (dir itself may be one, or be inside one).
func FindSpecs(dir string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == LargeDir && p != dir {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".toml") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("find specs: %w", err)
	}
	sort.Strings(paths)
	return paths, nil
}

// SuiteReport is what RunSuite found.
type SuiteReport struct {
	Checks     int // checks run to the end
	Neighbours int // robustness neighbours run to the end
	// Mismatches counts the checks and neighbours that differ from their expectations;
	// NeighbourMismatches is the part of it due to neighbours.
	Mismatches          int
	NeighbourMismatches int
	Interrupted         bool // opts.Stop was closed: the checks after these were not run
}

// NeighbourExpected is the outcome a robustness neighbour of check c must have: the
// check's violation, or for a check that expects ok, "not violated".
func (c *Check) NeighbourExpected() string {
	if c.Expect == checker.Violated {
		return c.Expected()
	}
	return "not violated"
}

// CompareNeighbour says how result r of neighbour n of check c differs from what it must
// be ("robust max_epoch+1: got ok, want violated(P)"), or "" when it agrees: for a check
// that expects violated(P), the neighbour must be violated(P); for one that expects ok,
// it must not be violated (incomplete is allowed). Counts are not compared.
func (c *Check) CompareNeighbour(n Neighbour, r checker.Result) string {
	got := Outcome(r.Verdict, r.Property)
	switch c.Expect {
	case checker.Violated:
		if r.Verdict == checker.Violated && r.Property == c.Property {
			return ""
		}
	case checker.OK:
		if r.Verdict != checker.Violated {
			return ""
		}
	default:
		return ""
	}
	return "robust " + n.String() + ": got " + got + ", want " + c.NeighbourExpected()
}

// RunSuite loads every spec under dir (recursively, sorted, see FindSpecs), runs each of
// their checks with the spec's options merged with opts (see MergeOptions), and writes one
// row per check to w: spec, check, expected and actual outcome, distinct states, depth
// (trace length for a violation) and time, then one indented line per difference from the
// expectation. After a check come its robustness neighbours, one row each, named
// "check[max_epoch+1]" (see CompareNeighbour). Only the time column varies between runs.
// A spec that fails to load stops the suite before anything runs: the error is an
// ErrorList per spec, joined. Closing opts.Stop interrupts the suite: a search it cuts
// short is shown as "interrupted" (not a difference), no further check runs, and the
// report says so.
func RunSuite(dir string, opts checker.Options, w io.Writer) (SuiteReport, error) {
	var rep SuiteReport
	opts.Vacuity = true // a pinned vacuous = false is compared (Check.CompareVacuous)
	paths, err := FindSpecs(dir)
	if err != nil {
		return rep, err
	}
	if len(paths) == 0 {
		return rep, fmt.Errorf("suite: no *.toml files under %s", dir)
	}
	var loaded []*Spec
	var errs []error
	for _, p := range paths {
		s, err := Load(p, nil)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		loaded = append(loaded, s)
	}
	if len(errs) > 0 {
		return rep, errors.Join(errs...)
	}
	specW, checkW, expW := len("SPEC"), len("CHECK"), len("EXPECTED")
	gotW := len("incomplete")
	for _, s := range loaded {
		specW = max(specW, len(s.Path))
		for _, p := range append([]string{DeadlockProperty}, s.Properties...) {
			gotW = max(gotW, len(Outcome(checker.Violated, p)))
		}
		for i := range s.Checks {
			c := &s.Checks[i]
			checkW = max(checkW, len(c.Name))
			expW = max(expW, len(c.Expected()))
			for _, n := range c.Robust {
				checkW = max(checkW, len(c.Name)+len(n.String())+2)
				expW = max(expW, len(c.NeighbourExpected()))
			}
		}
	}
	gotW = max(gotW, expW)
	row := func(spec, check, exp, got, states, depth, t string) {
		fmt.Fprintf(w, "%-*s  %-*s  %-*s  %-*s  %10s  %5s  %s\n", specW, spec, checkW, check, expW, exp, gotW, got, states, depth, t)
	}
	row("SPEC", "CHECK", "EXPECTED", "GOT", "STATES", "DEPTH", "TIME")
	total := 0
	for _, s := range loaded {
		total += len(s.Checks)
	}
run:
	for _, s := range loaded {
		for i := range s.Checks {
			c := &s.Checks[i]
			if rep.Interrupted = rep.Checks > 0 && stopped(opts.Stop); rep.Interrupted {
				break run
			}
			r, o, err := s.Runnable(c)
			if err != nil {
				return rep, err
			}
			res := r.Check(MergeOptions(o, opts, false))
			if res.Verdict == checker.Incomplete && stopped(opts.Stop) {
				rep.Interrupted = true
				row(s.Path, c.Name, c.Expected(), "interrupted",
					strconv.FormatInt(res.Stats.Distinct, 10), strconv.Itoa(ResultDepth(res)), FormatElapsed(res.Stats.Elapsed))
				break run
			}
			rep.Checks++
			row(s.Path, c.Name, c.Expected(), Outcome(res.Verdict, res.Property),
				strconv.FormatInt(res.Stats.Distinct, 10), strconv.Itoa(ResultDepth(res)), FormatElapsed(res.Stats.Elapsed))
			diffs := c.Compare(res)
			why := s.Vacuity(c.Config, res)
			if d := c.CompareVacuous(res, why); d != "" && len(diffs) == 0 {
				diffs = append(diffs, d)
			}
			if len(diffs) > 0 {
				rep.Mismatches++
			}
			for _, d := range diffs {
				fmt.Fprintf(w, "  mismatch: %s\n", d)
			}
			if len(why) > 0 && !(c.PinVacuous && c.WantVacuous) && len(diffs) == 0 {
				fmt.Fprintf(w, "  vacuous: %s\n", strings.Join(why, "; "))
			}
			if res.Verdict == checker.Incomplete && res.Reason != "" && c.Expect != checker.Incomplete {
				fmt.Fprintf(w, "  incomplete: %s\n", res.Reason)
			}
			for _, n := range c.Robust {
				nr, no, err := s.NeighbourRunnable(c, n)
				if err != nil {
					return rep, err
				}
				res := nr.Check(MergeOptions(no, opts, false))
				if res.Verdict == checker.Incomplete && stopped(opts.Stop) {
					rep.Interrupted = true
					row(s.Path, c.Name+"["+n.String()+"]", c.NeighbourExpected(), "interrupted",
						strconv.FormatInt(res.Stats.Distinct, 10), strconv.Itoa(ResultDepth(res)), FormatElapsed(res.Stats.Elapsed))
					break run
				}
				rep.Neighbours++
				row(s.Path, c.Name+"["+n.String()+"]", c.NeighbourExpected(), Outcome(res.Verdict, res.Property),
					strconv.FormatInt(res.Stats.Distinct, 10), strconv.Itoa(ResultDepth(res)), FormatElapsed(res.Stats.Elapsed))
				if d := c.CompareNeighbour(n, res); d != "" {
					rep.Mismatches++
					rep.NeighbourMismatches++
					fmt.Fprintf(w, "  mismatch: %s\n", d)
				}
				if res.Verdict == checker.Incomplete && res.Reason != "" {
					fmt.Fprintf(w, "  incomplete: %s\n", res.Reason)
				}
			}
		}
	}
	checks := plural(rep.Checks, "check")
	if rep.Neighbours > 0 {
		checks += " and " + plural(rep.Neighbours, "robustness neighbour")
	}
	switch {
	case rep.Interrupted && rep.Mismatches == 0:
		fmt.Fprintf(w, "interrupted after %d of %s; the rest were not run\n", rep.Checks, plural(total, "check"))
	case rep.Interrupted:
		fmt.Fprintf(w, "interrupted after %d of %s; %d of them differ from their expectations\n", rep.Checks, plural(total, "check"), rep.Mismatches)
	case rep.Mismatches == 0:
		fmt.Fprintf(w, "ok: %s in %s match their expectations\n", checks, plural(len(loaded), "spec file"))
	case rep.Neighbours == 0:
		fmt.Fprintf(w, "FAIL: %d of %d checks differ from their expectations\n", rep.Mismatches, rep.Checks)
	default:
		fmt.Fprintf(w, "FAIL: %d of %d checks and %d of %d robustness neighbours differ from their expectations\n",
			rep.Mismatches-rep.NeighbourMismatches, rep.Checks, rep.NeighbourMismatches, rep.Neighbours)
	}
	return rep, nil
}

// FormatElapsed prints a duration in seconds with two decimals: "0.01s", "12.34s".
func FormatElapsed(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
}

// stopped reports whether stop is closed (never, for nil).
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
