package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"kmc/checker"
	"kmc/specs"
)

// SweepOptions say over what grid Sweep runs a check, and how.
type SweepOptions struct {
	// Vary are the grid's axes, the first outermost: KEY=LO..HI (integers, inclusive),
	// KEY=N or KEY=A,B,C (names for booleans and enums) over a constant or fault budget.
	Vary []string
	// Sets are the overrides the spec was loaded with (specs.Load): each point is the spec
	// file parsed again with them and the point's values. A key may not be both.
	Sets []string
	// Search is how each point's search runs.
	Search Search
	// OnEvent, when set, gets PointStarted and PointDone for each point.
	OnEvent func(Event)
}

// Axis is one axis of a sweep: a constant or fault budget and its values, in order.
type Axis struct {
	Param  specs.Param
	Values []int // as specs.Config holds them: a Bool as 0 or 1, an Enum as an index
}

// Invalid is the verdict of a point whose configuration the spec loader or the model
// rejects (min_isr above brokers, a cross-field rule of the model).
const Invalid checker.Verdict = "invalid"

// Point is one point of a sweep's grid and what its check gave.
type Point struct {
	Index    []int           // into each axis's Values
	Verdict  checker.Verdict // ok, violated, incomplete or Invalid
	Property string          // the violated property
	Reason   string          // why incomplete, or why invalid
	Distinct int64
	Depth    int // specs.ResultDepth
	Elapsed  time.Duration
	Differs  bool // the outcome differs from a grid neighbour's
	// Vacuous says why a point whose search found no violation tested little (only one
	// distinct state, a property whose condition never held, a fault budget never spent, a
	// fix that never fired: specs.Spec.Vacuity and BranchVacuity); nil when it did not.
	Vacuous []string
}

// Outcome is the point's verdict with its violated property (specs.Outcome).
func (p *Point) Outcome() string { return specs.Outcome(p.Verdict, p.Property) }

// Shown is Outcome, with " (vacuous)" for a vacuous point: what the table prints and
// what grid neighbours are compared by.
func (p *Point) Shown() string {
	if len(p.Vacuous) > 0 {
		return p.Outcome() + " (vacuous)"
	}
	return p.Outcome()
}

// SweepResult is what Sweep found.
type SweepResult struct {
	Check  *specs.Check
	Axes   []Axis
	Points []Point // in grid order; fewer than Total when interrupted
	Total  int
	// Smallest is the index in Points of the point with the fewest distinct states whose
	// outcome is the one the check expects and that is not vacuous (unless the check pins
	// vacuous = true), the first on a tie; or -1. A vacuous point is never recommended: it
	// passes because it tests nothing (one state, a condition that never held).
	Smallest    int
	Interrupted bool
}

// Label names point p by its values, as --set takes them: "brokers=3 max_epoch=4".
func (r *SweepResult) Label(p *Point) string { return label(r.Axes, p.Index) }

// VaryError is a Vary entry that does not parse, names no constant or fault budget of the
// family, has a value out of range, or varies a key twice or one the Sets give (Conflict).
type VaryError struct {
	Arg      string
	Err      error
	Conflict bool
}

func (e *VaryError) Error() string { return e.Arg + ": " + e.Err.Error() }
func (e *VaryError) Unwrap() error { return e.Err }

// Sweep runs the check called name of spec (its only check when name is "") at every
// point of a grid of its constants and fault budgets, and marks the points whose outcome
// differs from a grid neighbour's: where the verdict depends on a bound. A point whose
// configuration is refused has the verdict Invalid. Cancelling ctx stops it: a point cut
// short is not in the result. Refusals before anything runs: UnknownCheckError,
// NoCheckError, VaryError.
func Sweep(ctx context.Context, spec *specs.Spec, name string, o SweepOptions) (*SweepResult, error) {
	emit := emitter(o.OnEvent)
	c, err := PickCheck(spec, name)
	if err != nil {
		return nil, err
	}
	res := &SweepResult{Check: c, Total: 1}
	for _, arg := range o.Vary {
		a, err := ParseVary(spec.Family, arg)
		if err != nil {
			return nil, &VaryError{Arg: arg, Err: err}
		}
		if err := varyConflict(a, res.Axes, o.Sets); err != nil {
			return nil, &VaryError{Arg: arg, Err: err, Conflict: true}
		}
		res.Axes = append(res.Axes, a)
		res.Total *= len(a.Values)
	}
	src, err := os.ReadFile(spec.Path)
	if err != nil {
		return nil, err
	}
	for i := 0; i < res.Total; i++ {
		idx := gridIndex(res.Axes, i)
		emit(PointStarted{N: i + 1, Total: res.Total, Label: label(res.Axes, idx)})
		p := runPoint(ctx, spec.Path, src, o.Sets, res.Axes, idx, c.Name, o.Search)
		if ctx.Err() != nil {
			res.Interrupted = true
			if p.Verdict == checker.Incomplete {
				break // stopped half way: not a point done
			}
		}
		res.Points = append(res.Points, p)
		emit(PointDone{N: i + 1, Total: res.Total, Point: &res.Points[len(res.Points)-1]})
		if res.Interrupted {
			break
		}
	}
	markNeighbours(res.Axes, res.Points)
	res.Smallest = smallestExpected(c, res.Points)
	return res, nil
}

// ParseVary reads one axis, KEY=LO..HI (integers, inclusive), KEY=N or KEY=A,B,C, against
// the constants and fault budgets of fam, and checks every value against the parameter's
// range.
func ParseVary(fam specs.Family, arg string) (Axis, error) {
	key, text, ok := strings.Cut(arg, "=")
	key, text = strings.TrimSpace(key), strings.TrimSpace(text)
	if !ok || key == "" || text == "" {
		return Axis{}, errors.New("want KEY=LO..HI, KEY=N or KEY=A,B,C")
	}
	var p specs.Param
	found := false
	for _, q := range append(append([]specs.Param(nil), fam.Constants...), fam.Faults...) {
		if q.Name == key {
			p, found = q, true
		}
	}
	if !found {
		return Axis{}, fmt.Errorf("unknown key %q: not a constant or fault of %s", key, fam.Name)
	}
	a := Axis{Param: p}
	if lo, hi, isRange := strings.Cut(text, ".."); isRange {
		if p.Kind != specs.Int {
			return Axis{}, fmt.Errorf("%s is not an integer: list its values, such as %s=%s", key, key, strings.Join(ValueNames(p), ","))
		}
		l, err1 := strconv.Atoi(strings.TrimSpace(lo))
		h, err2 := strconv.Atoi(strings.TrimSpace(hi))
		if err1 != nil || err2 != nil {
			return Axis{}, errors.New("want a range of integers LO..HI, such as 1..3")
		}
		if l > h {
			return Axis{}, fmt.Errorf("empty range %d..%d: LO is above HI", l, h)
		}
		if l < p.Min || h > p.Max {
			return Axis{}, fmt.Errorf("%s must be %d..%d (got %d..%d)", key, p.Min, p.Max, l, h)
		}
		for x := l; x <= h; x++ {
			a.Values = append(a.Values, x)
		}
		return a, nil
	}
	for _, item := range strings.Split(text, ",") {
		item = strings.TrimSpace(item)
		x, err := paramIndex(p, item)
		if err != nil {
			return Axis{}, err
		}
		for _, y := range a.Values {
			if y == x {
				return Axis{}, fmt.Errorf("duplicate value %s", item)
			}
		}
		a.Values = append(a.Values, x)
	}
	return a, nil
}

// paramIndex reads one value of p as the spec loader holds it.
func paramIndex(p specs.Param, s string) (int, error) {
	switch p.Kind {
	case specs.Bool:
		switch s {
		case "false":
			return 0, nil
		case "true":
			return 1, nil
		}
	case specs.Enum:
		for i, e := range p.Enum {
			if e == s {
				return i, nil
			}
		}
	default:
		x, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("%s takes integers (got %q)", p.Name, s)
		}
		if x < p.Min || x > p.Max {
			return 0, fmt.Errorf("%s must be %d..%d (got %d)", p.Name, p.Min, p.Max, x)
		}
		return x, nil
	}
	return 0, fmt.Errorf("%s must be one of %s (got %q)", p.Name, strings.Join(ValueNames(p), ", "), s)
}

// ValueNames lists the values of a Bool or Enum parameter by name.
func ValueNames(p specs.Param) []string {
	if p.Kind == specs.Bool {
		return []string{"false", "true"}
	}
	return p.Enum
}

// varyConflict rejects a key varied twice, or both varied and given in sets.
func varyConflict(a Axis, axes []Axis, sets []string) error {
	for _, b := range axes {
		if b.Param.Name == a.Param.Name {
			return fmt.Errorf("%s is varied twice", a.Param.Name)
		}
	}
	for _, s := range sets {
		key, _, _ := strings.Cut(s, "=")
		key = strings.TrimSpace(key)
		if _, name, ok := strings.Cut(key, "."); ok && (strings.HasPrefix(key, "constants.") || strings.HasPrefix(key, "faults.")) {
			key = name
		}
		if key == a.Param.Name {
			return fmt.Errorf("%s is also given with --set %s", a.Param.Name, s)
		}
	}
	return nil
}

// gridIndex is the i-th point of the grid, the first axis outermost.
func gridIndex(axes []Axis, i int) []int {
	idx := make([]int, len(axes))
	for k := len(axes) - 1; k >= 0; k-- {
		n := len(axes[k].Values)
		idx[k] = i % n
		i /= n
	}
	return idx
}

// label names a point as KEY=VALUE pairs: "brokers=3 max_epoch=4".
func label(axes []Axis, idx []int) string {
	parts := make([]string, len(axes))
	for k, a := range axes {
		parts[k] = a.Param.Name + "=" + ParamValue(a.Param, a.Values[idx[k]])
	}
	return strings.Join(parts, " ")
}

// runPoint runs check name of the spec src (at path) with sets and the point's values as
// overrides, under s. A configuration that the loader or the model rejects gives verdict
// Invalid with the reason.
func runPoint(ctx context.Context, path string, src []byte, sets []string, axes []Axis, idx []int, name string, s Search) Point {
	p := Point{Index: idx}
	all := append([]string(nil), sets...)
	for k, a := range axes {
		all = append(all, a.Param.Name+"="+ParamValue(a.Param, a.Values[idx[k]]))
	}
	invalid := func(err error) Point {
		p.Verdict, p.Reason = Invalid, Reason(err)
		return p
	}
	spec, err := specs.ParseCheck(path, src, all, name)
	if err != nil {
		return invalid(err)
	}
	c, ok := spec.CheckByName(name)
	if !ok {
		return invalid(fmt.Errorf("no check %q", name))
	}
	r, opts, err := runnable(spec, c, nil)
	if err != nil {
		return invalid(err)
	}
	opts = s.options(opts)
	opts.Stop = ctx.Done()
	opts.Vacuity = true
	restore := withMemoryLimit(opts.MemoryBytes)
	res, _ := interrupted(ctx, r.Check(opts))
	restore()
	var branches []specs.BranchCount
	if bc, ok := r.(specs.BranchCounter); ok {
		branches = bc.Branches(res.Tallies)
	}
	p.Vacuous = append(spec.Vacuity(c.Config, res), spec.BranchVacuity(c.Config, res, branches)...)
	p.Verdict, p.Property, p.Reason = res.Verdict, res.Property, res.Reason
	p.Distinct, p.Depth, p.Elapsed = res.Stats.Distinct, specs.ResultDepth(res), res.Stats.Elapsed
	return p
}

// markNeighbours sets Differs on every point whose outcome differs from that of a grid
// neighbour: a point one step away in exactly one axis. Points not run (after an
// interrupt) have no outcome and are skipped.
func markNeighbours(axes []Axis, points []Point) {
	stride := make([]int, len(axes))
	s := 1
	for k := len(axes) - 1; k >= 0; k-- {
		stride[k] = s
		s *= len(axes[k].Values)
	}
	for i := range points {
		p := &points[i]
		for k := range axes {
			for _, d := range []int{-1, 1} {
				x := p.Index[k] + d
				j := i + d*stride[k]
				if x < 0 || x >= len(axes[k].Values) || j >= len(points) {
					continue
				}
				if points[j].Shown() != p.Shown() {
					p.Differs = true
				}
			}
		}
	}
}

// smallestExpected is the index of the point with the fewest distinct states whose
// verdict and property are what check c expects and which is not vacuous unless c pins
// vacuous = true (the first such in grid order on a tie), or -1.
func smallestExpected(c *specs.Check, points []Point) int {
	best := -1
	for i := range points {
		p := &points[i]
		if p.Verdict != c.Expect || (c.Expect == checker.Violated && p.Property != c.Property) {
			continue
		}
		if len(p.Vacuous) > 0 && !(c.PinVacuous && c.WantVacuous) {
			continue
		}
		if best < 0 || p.Distinct < points[best].Distinct {
			best = i
		}
	}
	return best
}
