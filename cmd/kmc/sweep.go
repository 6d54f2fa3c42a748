package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"kmc/checker"
	"kmc/specs"
)

const sweepSynopsis = "kmc sweep SPEC [--check NAME] --vary KEY=LO..HI [--vary ...] [--set KEY=VALUE]... [flags]"

const sweepExamples = `  kmc sweep specs/kafka-14154.toml --check buggy --vary max_epoch=1..3
  kmc sweep specs/twophase.toml --check fixed --vary rms=2..5 --max-states 2000
  kmc sweep specs/kafka-18723.toml --check buggy --vary max_records=2,4 --vary max_fetch_records=1..2
  kmc sweep specs/kafka-14154.toml --check buggy --vary max_epoch=1..3 --format json
`

// verdictInvalid is the sweep's verdict for a point whose configuration the spec loader or
// the model rejects (min_isr above brokers, a cross-field rule of the model).
const verdictInvalid = "invalid"

// sweepAxis is one --vary: a constant or fault of the family and its values, in order.
type sweepAxis struct {
	param  specs.Param
	values []int // as specs.Config holds them: a Bool as 0 or 1, an Enum as an index
}

// sweepPoint is one point of the grid (an index into each axis) and its outcome.
type sweepPoint struct {
	idx      []int
	verdict  string // ok, violated, incomplete or invalid
	property string // the violated property
	reason   string // why incomplete, or why invalid
	distinct int64
	depth    int // specs.ResultDepth
	elapsed  time.Duration
	differs  bool // the outcome differs from a grid neighbour's
}

// outcome is the verdict with its violated property, as specs.Outcome writes it.
func (p *sweepPoint) outcome() string {
	return specs.Outcome(checker.Verdict(p.verdict), p.property)
}

func runSweep(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("sweep", sweepSynopsis, sweepExamples, stdout)
	check := fs.String("check", "", "sweep the check called `NAME` (required when the spec has more than one)")
	vary := fs.StringArray("vary", nil, "vary a constant or fault over `KEY=LO..HI`, KEY=N or KEY=A,B,C (names for enums); repeatable, the first --vary outermost")
	sets := fs.StringArray("set", nil, "override a spec value at every point, `KEY=VALUE` as for kmc check; repeatable")
	fixes := fs.StringArray("fix", nil, "turn on the fix switch `NAME` at every point (as --set fixes+=NAME); repeatable")
	format := fs.String("format", "text", "output `FORMAT`: text (a table), or json for one event per point and a summary")
	perPoint := fs.String("max-time-per-point", "", "time budget of each point, a `DURATION` such as 10m (default: the spec's, else none)")
	workers := fs.Int("workers", 0, "`N` search workers (default: the spec's, else all cores)")
	memory := fs.String("memory", "", "memory budget of each point, a `SIZE` such as 4GiB (default: the spec's, else 60% of RAM)")
	maxStates := fs.Int64("max-states", 0, "stop each point after `N` distinct states (0: the spec's limit, else none)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "sweep", "want one spec file, got %d arguments", fs.NArg())
	}
	if *format != "text" && *format != "json" {
		return usageError(stderr, "sweep", "--format must be text or json (got %q)", *format)
	}
	if *workers < 0 || *maxStates < 0 {
		return usageError(stderr, "sweep", "--workers and --max-states must not be negative")
	}
	if len(*vary) == 0 {
		return usageError(stderr, "sweep", "want at least one --vary KEY=LO..HI")
	}
	over := checker.Options{Workers: *workers, MaxStates: *maxStates}
	if code, ok := parseBudgets(stderr, "sweep", *memory, "max-time-per-point", *perPoint, &over); !ok {
		return code
	}
	path := fs.Arg(0)
	*sets = withFixes(*sets, *fixes)
	spec, code := loadSpec(path, *sets, stderr)
	if spec == nil {
		return code
	}
	var names []string
	for _, c := range spec.Checks {
		names = append(names, c.Name)
	}
	var c *specs.Check
	switch {
	case *check != "":
		var ok bool
		if c, ok = spec.CheckByName(*check); !ok {
			fmt.Fprintf(stderr, "kmc: sweep: %s has no check %q%s\n", path, *check, specs.DidYouMean(*check, names))
			hint(stderr, "its checks are: "+strings.Join(names, ", "))
			return exitUsage
		}
	case len(spec.Checks) == 1:
		c = &spec.Checks[0]
	default:
		fmt.Fprintf(stderr, "kmc: sweep: %s has %d checks: name one with --check\n", path, len(spec.Checks))
		hint(stderr, "its checks are: "+strings.Join(names, ", "))
		return exitUsage
	}
	var axes []sweepAxis
	for _, arg := range *vary {
		a, err := parseVary(spec.Family, arg)
		if err != nil {
			fmt.Fprintf(stderr, "kmc: sweep: --vary %s: %v\n", arg, err)
			hint(stderr, "the keys of "+spec.Family.Name+" are: "+paramRanges(spec.Family))
			return exitUsage
		}
		if err := varyConflict(a, axes, *sets); err != nil {
			return usageError(stderr, "sweep", "--vary %s: %v", arg, err)
		}
		axes = append(axes, a)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "kmc: sweep: %v\n", err)
		return exitInternal
	}

	forceMemory, restore := applyMemoryBudget(spec.Options, &over)
	defer restore()
	stop, release := newStop()
	defer release()
	over.Stop = stop

	total := 1
	for _, a := range axes {
		total *= len(a.values)
	}
	var points []sweepPoint
	interrupted := false
	for i := 0; i < total && !interrupted; i++ {
		idx := gridIndex(axes, i)
		fmt.Fprintf(stderr, "sweep: point %d/%d: %s\n", i+1, total, pointString(axes, idx))
		p := runPoint(path, src, *sets, axes, idx, c.Name, over, forceMemory)
		select {
		case <-stop:
			interrupted = true
			if p.verdict == string(checker.Incomplete) {
				continue // stopped half way: not a point done
			}
		default:
		}
		switch {
		case p.verdict == verdictInvalid:
			fmt.Fprintf(stderr, "sweep: point %d/%d done: invalid: %s\n", i+1, total, p.reason)
		case p.verdict == string(checker.Incomplete):
			fmt.Fprintf(stderr, "sweep: point %d/%d done: incomplete (%s), %d distinct states, %s\n",
				i+1, total, orUnknown(p.reason), p.distinct, specs.FormatElapsed(p.elapsed))
		default:
			fmt.Fprintf(stderr, "sweep: point %d/%d done: %s, %d distinct states, %s\n",
				i+1, total, p.outcome(), p.distinct, specs.FormatElapsed(p.elapsed))
		}
		points = append(points, p)
	}
	markNeighbours(axes, points)
	best := smallestExpected(c, points)
	if *format == "json" {
		sweepJSON(stdout, spec, c, axes, points, best, total, interrupted)
	} else {
		sweepTable(stdout, c, axes, points, best)
		if interrupted {
			fmt.Fprintf(stdout, "interrupted after %d of %d points\n", len(points), total)
		}
	}
	if interrupted {
		fmt.Fprintln(stderr, "kmc: sweep: interrupted; the output above holds the points done")
		return exitIncomplete
	}
	return exitOK
}

// parseVary reads one --vary argument, KEY=LO..HI (integers, inclusive), KEY=N or
// KEY=A,B,C, against the constants and faults of fam, and checks every value against the
// parameter's range.
func parseVary(fam specs.Family, arg string) (sweepAxis, error) {
	key, text, ok := strings.Cut(arg, "=")
	key, text = strings.TrimSpace(key), strings.TrimSpace(text)
	if !ok || key == "" || text == "" {
		return sweepAxis{}, errors.New("want KEY=LO..HI, KEY=N or KEY=A,B,C")
	}
	var p specs.Param
	found := false
	for _, q := range append(append([]specs.Param(nil), fam.Constants...), fam.Faults...) {
		if q.Name == key {
			p, found = q, true
		}
	}
	if !found {
		return sweepAxis{}, fmt.Errorf("unknown key %q: not a constant or fault of %s", key, fam.Name)
	}
	a := sweepAxis{param: p}
	if lo, hi, isRange := strings.Cut(text, ".."); isRange {
		if p.Kind != specs.Int {
			return sweepAxis{}, fmt.Errorf("%s is not an integer: list its values, such as %s=%s", key, key, strings.Join(kindValues(p), ","))
		}
		l, err1 := strconv.Atoi(strings.TrimSpace(lo))
		h, err2 := strconv.Atoi(strings.TrimSpace(hi))
		if err1 != nil || err2 != nil {
			return sweepAxis{}, errors.New("want a range of integers LO..HI, such as 1..3")
		}
		if l > h {
			return sweepAxis{}, fmt.Errorf("empty range %d..%d: LO is above HI", l, h)
		}
		if l < p.Min || h > p.Max {
			return sweepAxis{}, fmt.Errorf("%s must be %d..%d (got %d..%d)", key, p.Min, p.Max, l, h)
		}
		for x := l; x <= h; x++ {
			a.values = append(a.values, x)
		}
		return a, nil
	}
	for _, item := range strings.Split(text, ",") {
		item = strings.TrimSpace(item)
		x, err := paramIndex(p, item)
		if err != nil {
			return sweepAxis{}, err
		}
		for _, y := range a.values {
			if y == x {
				return sweepAxis{}, fmt.Errorf("duplicate value %s", item)
			}
		}
		a.values = append(a.values, x)
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
	return 0, fmt.Errorf("%s must be one of %s (got %q)", p.Name, strings.Join(kindValues(p), ", "), s)
}

// kindValues lists the values of a Bool or Enum parameter by name.
func kindValues(p specs.Param) []string {
	if p.Kind == specs.Bool {
		return []string{"false", "true"}
	}
	return p.Enum
}

// varyConflict rejects a key varied twice, or both varied and given with --set.
func varyConflict(a sweepAxis, axes []sweepAxis, sets []string) error {
	for _, b := range axes {
		if b.param.Name == a.param.Name {
			return fmt.Errorf("%s is varied twice", a.param.Name)
		}
	}
	for _, s := range sets {
		key, _, _ := strings.Cut(s, "=")
		key = strings.TrimSpace(key)
		if _, name, ok := strings.Cut(key, "."); ok && (strings.HasPrefix(key, "constants.") || strings.HasPrefix(key, "faults.")) {
			key = name
		}
		if key == a.param.Name {
			return fmt.Errorf("%s is also given with --set %s", a.param.Name, s)
		}
	}
	return nil
}

// paramRanges lists the constants and faults of fam with their ranges, for a hint.
func paramRanges(fam specs.Family) string {
	var parts []string
	for _, p := range append(append([]specs.Param(nil), fam.Constants...), fam.Faults...) {
		if p.Kind == specs.Int {
			parts = append(parts, fmt.Sprintf("%s (%d..%d)", p.Name, p.Min, p.Max))
		} else {
			parts = append(parts, p.Name+" ("+strings.Join(kindValues(p), "|")+")")
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// gridIndex is the i-th point of the grid, the first axis outermost.
func gridIndex(axes []sweepAxis, i int) []int {
	idx := make([]int, len(axes))
	for k := len(axes) - 1; k >= 0; k-- {
		n := len(axes[k].values)
		idx[k] = i % n
		i /= n
	}
	return idx
}

// pointString writes a point as KEY=VALUE pairs: "brokers=3 max_epoch=4".
func pointString(axes []sweepAxis, idx []int) string {
	parts := make([]string, len(axes))
	for k, a := range axes {
		parts[k] = a.param.Name + "=" + paramValue(a.param, a.values[idx[k]])
	}
	return strings.Join(parts, " ")
}

// runPoint runs check name of the spec src (at path) with sets and the point's values as
// --set overrides, under the options over. A configuration that the loader or the model
// rejects gives verdict invalid with the reason.
func runPoint(path string, src []byte, sets []string, axes []sweepAxis, idx []int, name string, over checker.Options, forceMemory bool) sweepPoint {
	p := sweepPoint{idx: idx}
	all := append([]string(nil), sets...)
	for k, a := range axes {
		all = append(all, a.param.Name+"="+paramValue(a.param, a.values[idx[k]]))
	}
	invalid := func(err error) sweepPoint {
		p.verdict, p.reason = verdictInvalid, pointError(err)
		return p
	}
	spec, err := specs.Parse(path, src, all)
	if err != nil {
		return invalid(err)
	}
	c, ok := spec.CheckByName(name)
	if !ok {
		return invalid(fmt.Errorf("no check %q", name))
	}
	r, opts, err := spec.Runnable(c)
	if err != nil {
		return invalid(err)
	}
	opts = specs.MergeOptions(opts, over, forceMemory)
	if opts.Workers == 0 {
		opts.Workers = runtime.NumCPU()
	}
	res := r.Check(opts)
	select {
	case <-over.Stop:
		if res.Verdict == checker.Incomplete {
			res.Reason = "interrupted"
		}
	default:
	}
	p.verdict, p.property, p.reason = string(res.Verdict), res.Property, res.Reason
	p.distinct, p.depth, p.elapsed = res.Stats.Distinct, specs.ResultDepth(res), res.Stats.Elapsed
	return p
}

// pointError is why a point is invalid, without the positions of the --set arguments the
// sweep made: the spec loader's problems, or the model's own words.
func pointError(err error) string {
	var list specs.ErrorList
	if errors.As(err, &list) {
		msgs := make([]string, len(list))
		for i, e := range list {
			msgs[i] = e.Problem
			if e.Key != "" {
				msgs[i] = e.Key + ": " + msgs[i]
			}
			if e.Got != "" {
				msgs[i] += " (got " + e.Got + ")"
			}
		}
		return strings.Join(msgs, "; ")
	}
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(err) {
		err = u
	}
	return err.Error()
}

// markNeighbours sets differs on every point whose outcome differs from that of a grid
// neighbour: a point one step away in exactly one axis. Points not run (after an
// interrupt) have no outcome and are skipped.
func markNeighbours(axes []sweepAxis, points []sweepPoint) {
	stride := make([]int, len(axes))
	s := 1
	for k := len(axes) - 1; k >= 0; k-- {
		stride[k] = s
		s *= len(axes[k].values)
	}
	for i := range points {
		p := &points[i]
		for k := range axes {
			for _, d := range []int{-1, 1} {
				x := p.idx[k] + d
				j := i + d*stride[k]
				if x < 0 || x >= len(axes[k].values) || j >= len(points) {
					continue
				}
				if points[j].outcome() != p.outcome() {
					p.differs = true
				}
			}
		}
	}
}

// smallestExpected is the index of the point with the fewest distinct states whose
// verdict and property are what check c expects (the first such in grid order on a tie),
// or -1.
func smallestExpected(c *specs.Check, points []sweepPoint) int {
	best := -1
	for i := range points {
		p := &points[i]
		if p.verdict != string(c.Expect) || (c.Expect == checker.Violated && p.property != c.Property) {
			continue
		}
		if best < 0 || p.distinct < points[best].distinct {
			best = i
		}
	}
	return best
}

// shortReason is the first clause of a reason, at most 40 characters, for the table.
func shortReason(s string) string {
	s, _, _ = strings.Cut(s, "; ")
	if r := []rune(s); len(r) > 40 {
		s = string(r[:37]) + "..."
	}
	return s
}

// sweepTable writes the points as a table, a legend when some point is marked, and the
// smallest point with the expected outcome.
func sweepTable(w io.Writer, c *specs.Check, axes []sweepAxis, points []sweepPoint, best int) {
	keyW := make([]int, len(axes))
	for k, a := range axes {
		keyW[k] = len(a.param.Name)
		for _, v := range a.values {
			keyW[k] = max(keyW[k], len(paramValue(a.param, v)))
		}
	}
	prop := func(p *sweepPoint) string {
		if p.verdict == string(checker.Violated) {
			return p.property
		}
		return shortReason(p.reason)
	}
	propW := len("PROPERTY")
	for i := range points {
		propW = max(propW, len(prop(&points[i])))
	}
	row := func(mark string, keys []string, verdict, property, states, depth, t string) {
		var b strings.Builder
		b.WriteString(mark)
		for k, s := range keys {
			fmt.Fprintf(&b, "  %-*s", keyW[k], s)
		}
		fmt.Fprintf(&b, "  %-10s  %-*s  %10s  %5s  %s", verdict, propW, property, states, depth, t)
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	head := make([]string, len(axes))
	for k, a := range axes {
		head[k] = a.param.Name
	}
	row(" ", head, "VERDICT", "PROPERTY", "STATES", "DEPTH", "TIME")
	marked := false
	for i := range points {
		p := &points[i]
		keys := make([]string, len(axes))
		for k, a := range axes {
			keys[k] = paramValue(a.param, a.values[p.idx[k]])
		}
		mark := " "
		if p.differs {
			mark, marked = "*", true
		}
		if p.verdict == verdictInvalid {
			row(mark, keys, p.verdict, prop(p), "-", "-", "-")
		} else {
			row(mark, keys, p.verdict, prop(p), strconv.FormatInt(p.distinct, 10), strconv.Itoa(p.depth), specs.FormatElapsed(p.elapsed))
		}
		if p.verdict != string(checker.Violated) && p.reason != "" && prop(p) != p.reason {
			fmt.Fprintf(w, "     %s: %s\n", p.verdict, p.reason)
		}
	}
	if marked {
		fmt.Fprintln(w, "* the outcome differs from that of a grid neighbour (one step in one varied key)")
	}
	if best < 0 {
		fmt.Fprintf(w, "no point gives the expected verdict %s\n", c.Expected())
		return
	}
	fmt.Fprintf(w, "smallest point with the expected verdict %s: %s (%d distinct states)\n",
		c.Expected(), pointString(axes, points[best].idx), points[best].distinct)
}

// sweepJSON writes one "point" event per point and a "summary" event, one JSON object per
// line.
func sweepJSON(w io.Writer, spec *specs.Spec, c *specs.Check, axes []sweepAxis, points []sweepPoint, best, total int, interrupted bool) {
	event := func(v map[string]any) {
		b, err := json.Marshal(v)
		if err != nil {
			panic("kmc: marshal event: " + err.Error()) // only plain values are marshalled
		}
		fmt.Fprintf(w, "%s\n", b)
	}
	keys := make([]string, len(axes))
	for k, a := range axes {
		keys[k] = a.param.Name
	}
	values := func(idx []int) []any {
		vs := make([]any, len(axes))
		for k, a := range axes {
			x := a.values[idx[k]]
			switch a.param.Kind {
			case specs.Int:
				vs[k] = x
			case specs.Bool:
				vs[k] = x != 0
			default:
				vs[k] = paramValue(a.param, x)
			}
		}
		return vs
	}
	for i := range points {
		p := &points[i]
		event(map[string]any{"event": "point", "index": i + 1, "keys": keys, "values": values(p.idx),
			"verdict": p.verdict, "property": p.property, "reason": p.reason, "distinct": p.distinct,
			"depth": p.depth, "elapsed_seconds": p.elapsed.Seconds(), "differs_from_neighbour": p.differs})
	}
	var smallest any
	if best >= 0 {
		smallest = map[string]any{"keys": keys, "values": values(points[best].idx), "distinct": points[best].distinct}
	}
	event(map[string]any{"event": "summary", "spec": spec.Path, "check": c.Name, "expected": c.Expected(),
		"points": total, "done": len(points), "interrupted": interrupted, "smallest": smallest})
}
