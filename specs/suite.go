package specs

import (
	"fmt"
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

// Expected is the outcome the check expects, "-" for an exploratory check (no expect).
func (c *Check) Expected() string {
	if c.Exploratory() {
		return "-"
	}
	return Outcome(c.Expect, c.Property)
}

// Exploratory reports whether the check has no expect: its result is reported, not compared.
func (c *Check) Exploratory() bool { return c.Expect == "" }

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
	if c.Exploratory() {
		return nil
	}
	var diffs []string
	if r.Verdict != c.Expect {
		diffs = append(diffs, fmt.Sprintf("verdict: got %s, want %s", Outcome(r.Verdict, r.Property), c.Expected()))
		return diffs
	}
	if c.Expect == checker.Violated && r.Property != c.Property {
		diffs = append(diffs, fmt.Sprintf("property: got %s, want %s", r.Property, c.Property))
		return diffs
	}
	if c.Overridden {
		return diffs // the counts pinned are the file's configuration's
	}
	states := c.States
	if c.Unreduced != 0 && !r.Stats.Symmetry {
		states = c.Unreduced // a search without the symmetry reduction (--symmetry=false)
	}
	reduced := r.Stats.POR && r.Stats.Reduced > 0 // else the search was the plain one, state for state
	if reduced {
		states = c.PORStates // the pins of states and depth are the search's without it
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
	if c.Depth != 0 && !(reduced && r.Verdict != checker.Violated) {
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
	o.POR = o.POR || over.POR
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

// FormatElapsed prints a duration in seconds with two decimals: "0.01s", "12.34s".
func FormatElapsed(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
}
