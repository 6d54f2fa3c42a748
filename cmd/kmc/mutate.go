package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"kmc/checker"
	"kmc/specs"
)

const mutateSynopsis = "kmc mutate SPEC [--check NAME] [--guard NAME]... [--set KEY=VALUE]... [flags]"

const mutateExamples = `  kmc mutate specs/twophase.toml --check fixed
  kmc mutate specs/kafka-guards.toml --check isr
  kmc mutate specs/kafka-guards.toml --check epochs --guard FetchDivergence --guard FetchResponseEpoch
  kmc mutate specs/kafka-kraft-guards.toml --check power-elr
  kmc mutate specs/vanlightly/v3-5-guards.toml --check rf2
  kmc mutate specs/twophase.toml --check fixed --format json
`

// Outcomes of a mutant, as the table prints them.
const (
	mutCaught      = "caught"
	mutNotCovered  = "not covered"
	mutNotApplied  = "n/a"
	mutIncomplete  = "incomplete"
	mutBaseline    = "baseline"
	defaultRaiseMx = 2_000_000
)

// mutant is one row of kmc mutate: the check run with one guard off ("" for the check as
// it is), and for a guard no property caught, the bound to raise first.
type mutant struct {
	guard    string
	outcome  string // caught, not covered, n/a, incomplete, baseline
	verdict  checker.Verdict
	property string
	reason   string // why n/a or incomplete
	depth    int    // specs.ResultDepth: the trace length when caught
	distinct int64
	elapsed  time.Duration
	// raise, for a guard not covered, is the neighbour one step up that catches it with the
	// fewest states ("max_epoch+1"), with what it found; tried lists the neighbours run.
	raise         string
	raiseProperty string
	raiseStates   int64
	tried         []string
}

func runMutate(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("mutate", mutateSynopsis, mutateExamples, stdout)
	check := fs.String("check", "", "mutate the check called `NAME` (required when the spec has more than one); it should pass as it is")
	guards := fs.StringArray("guard", nil, "turn off only the guard `NAME` (default: every guard of the model, one at a time); repeatable")
	sets := fs.StringArray("set", nil, "override a spec value in every run, `KEY=VALUE` as for kmc check; repeatable")
	fixes := fs.StringArray("fix", nil, "turn on the fix switch `NAME` in every run (as --set fixes+=NAME); repeatable")
	format := fs.String("format", "text", "output `FORMAT`: text (a table), or json for one event per mutant and a summary")
	perMutant := fs.String("max-time-per-mutant", "", "time budget of each run, a `DURATION` such as 10m (default: the spec's, else none)")
	workers := fs.Int("workers", 0, "`N` search workers (default: the spec's, else all cores)")
	memory := fs.String("memory", "", "memory budget of each run, a `SIZE` such as 4GiB (default: the spec's, else 60% of RAM)")
	maxStates := fs.Int64("max-states", 0, "stop each run after `N` distinct states (0: the spec's limit, else none)")
	raise := fs.Bool("raise", true, "for a guard no property catches, run the check's neighbours one step up (its robust entries, else each integer constant and fault) to find the bound to raise first")
	raiseMax := fs.Int64("raise-max-states", defaultRaiseMx, "stop each neighbour run of --raise after `N` distinct states")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "mutate", "want one spec file, got %d arguments", fs.NArg())
	}
	if *format != "text" && *format != "json" {
		return usageError(stderr, "mutate", "--format must be text or json (got %q)", *format)
	}
	if *workers < 0 || *maxStates < 0 || *raiseMax < 0 {
		return usageError(stderr, "mutate", "--workers, --max-states and --raise-max-states must not be negative")
	}
	over := checker.Options{Workers: *workers, MaxStates: *maxStates}
	if code, ok := parseBudgets(stderr, "mutate", *memory, "max-time-per-mutant", *perMutant, &over); !ok {
		return code
	}
	path := fs.Arg(0)
	spec, code := loadSpec(path, withFixes(*sets, *fixes), stderr)
	if spec == nil {
		return code
	}
	c, code := pickCheck("mutate", spec, path, *check, stderr)
	if c == nil {
		return code
	}
	all := spec.Family.GuardNames()
	if len(all) == 0 {
		fmt.Fprintf(stderr, "kmc: mutate: model %s has no named guards\n", spec.Family.Name)
		hint(stderr, "kmc list shows each model's guards")
		return exitUsage
	}
	list := all
	if len(*guards) > 0 {
		list = nil
		for _, g := range *guards {
			if !containsStr(all, g) {
				fmt.Fprintf(stderr, "kmc: mutate: model %s has no guard %q%s\n", spec.Family.Name, g, specs.DidYouMean(g, all))
				hint(stderr, "its guards are: "+strings.Join(all, ", "))
				return exitUsage
			}
			if containsStr(list, g) {
				return usageError(stderr, "mutate", "--guard %s is given twice", g)
			}
			list = append(list, g)
		}
	}

	forceMemory, restore := applyMemoryBudget(spec.Options, &over)
	defer restore()
	stop, release := newStop()
	defer release()
	over.Stop = stop

	run := func(ck *specs.Check, n *specs.Neighbour, o checker.Options) (checker.Result, error) {
		var r checker.Runnable
		var opts checker.Options
		var err error
		if n != nil {
			r, opts, err = spec.NeighbourRunnable(ck, *n)
		} else {
			r, opts, err = spec.Runnable(ck)
		}
		if err != nil {
			return checker.Result{}, err
		}
		opts = specs.MergeOptions(opts, o, forceMemory)
		if opts.Workers == 0 {
			opts.Workers = runtime.NumCPU()
		}
		return r.Check(opts), nil
	}
	interrupted := func() bool { return stopped(stop) }

	var rows []mutant
	total := len(list)
	fmt.Fprintf(stderr, "mutate: baseline: check %s with every guard on\n", c.Name)
	base, err := run(c, nil, over)
	if err != nil {
		fmt.Fprintf(stderr, "kmc: mutate: %v\n", err)
		return exitInternal
	}
	if interrupted() {
		fmt.Fprintln(stderr, "kmc: mutate: interrupted during the baseline; no mutant was run")
		return exitIncomplete
	}
	rows = append(rows, mutant{outcome: mutBaseline, verdict: base.Verdict, property: base.Property, reason: base.Reason,
		depth: specs.ResultDepth(base), distinct: base.Stats.Distinct, elapsed: base.Stats.Elapsed})
	if base.Verdict != checker.OK {
		fmt.Fprintf(stderr, "kmc: mutate: check %s is %s with every guard on: a mutant can only be caught by a check that passes\n",
			c.Name, specs.Outcome(base.Verdict, base.Property))
		hint(stderr, "mutate a check that expects ok (a fixed check), or raise its limits")
		mutateOutput(stdout, *format, spec, c, rows, total, *raiseMax, false)
		return exitUsage
	}
	stoppedAt := false
	baselines := map[string]checker.Result{} // --raise: the check at each neighbour, every guard on
	for i, g := range list {
		fmt.Fprintf(stderr, "mutate: guard %d/%d: %s off\n", i+1, total, g)
		if interrupted() {
			stoppedAt = true
			break
		}
		mc := c.Mutant(g)
		res, err := run(&mc, nil, over)
		row := mutant{guard: g}
		if err != nil {
			row.outcome, row.reason = mutNotApplied, pointError(err)
			fmt.Fprintf(stderr, "mutate: guard %d/%d done: n/a: %s\n", i+1, total, row.reason)
			rows = append(rows, row)
			continue
		}
		if interrupted() && res.Verdict == checker.Incomplete {
			stoppedAt = true
			break
		}
		row.verdict, row.property, row.reason = res.Verdict, res.Property, res.Reason
		row.depth, row.distinct, row.elapsed = specs.ResultDepth(res), res.Stats.Distinct, res.Stats.Elapsed
		switch res.Verdict {
		case checker.Violated:
			row.outcome = mutCaught
			fmt.Fprintf(stderr, "mutate: guard %d/%d done: caught by %s (trace of %d states), %d distinct states, %s\n",
				i+1, total, res.Property, row.depth, row.distinct, specs.FormatElapsed(row.elapsed))
		case checker.OK:
			row.outcome = mutNotCovered
			fmt.Fprintf(stderr, "mutate: guard %d/%d done: not covered, %d distinct states, %s\n",
				i+1, total, row.distinct, specs.FormatElapsed(row.elapsed))
		default:
			row.outcome = mutIncomplete
			fmt.Fprintf(stderr, "mutate: guard %d/%d done: incomplete (%s), %d distinct states, %s\n",
				i+1, total, orUnknown(res.Reason), row.distinct, specs.FormatElapsed(row.elapsed))
		}
		if row.outcome != mutCaught && *raise {
			ro := over
			ro.MaxStates = *raiseMax
			if stoppedAt = raiseFirst(spec, &mc, &row, func(n specs.Neighbour) (checker.Result, error) {
				// The neighbour must pass with every guard on, or its violation says nothing
				// about the guard: its baseline is run once and kept.
				b, ok := baselines[n.String()]
				if !ok {
					fmt.Fprintf(stderr, "mutate: baseline at %s\n", n)
					var err error
					if b, err = run(c, &n, ro); err != nil {
						return b, err
					}
					if interrupted() && b.Verdict == checker.Incomplete {
						return b, nil
					}
					baselines[n.String()] = b
				}
				if b.Verdict == checker.Violated {
					return checker.Result{}, errBaselineFails
				}
				fmt.Fprintf(stderr, "mutate: guard %d/%d: %s off at %s\n", i+1, total, g, n)
				return run(&mc, &n, ro)
			}, interrupted); stoppedAt {
				break
			}
		}
		rows = append(rows, row)
	}
	mutateOutput(stdout, *format, spec, c, rows, total, *raiseMax, stoppedAt)
	if stoppedAt {
		fmt.Fprintln(stderr, "kmc: mutate: interrupted; the output above holds the guards done")
		return exitIncomplete
	}
	return exitOK
}

// pickCheck is the check called name, or the spec's only check when name is "".
func pickCheck(cmd string, spec *specs.Spec, path, name string, stderr io.Writer) (*specs.Check, int) {
	var names []string
	for _, c := range spec.Checks {
		names = append(names, c.Name)
	}
	switch {
	case name != "":
		c, ok := spec.CheckByName(name)
		if !ok {
			fmt.Fprintf(stderr, "kmc: %s: %s has no check %q%s\n", cmd, path, name, specs.DidYouMean(name, names))
			hint(stderr, "its checks are: "+strings.Join(names, ", "))
			return nil, exitUsage
		}
		return c, exitOK
	case len(spec.Checks) == 1:
		return &spec.Checks[0], exitOK
	}
	fmt.Fprintf(stderr, "kmc: %s: %s has %d checks: name one with --check\n", cmd, path, len(spec.Checks))
	hint(stderr, "its checks are: "+strings.Join(names, ", "))
	return nil, exitUsage
}

// errBaselineFails marks a --raise neighbour at which the check fails with every guard on.
var errBaselineFails = errors.New("the check fails there with every guard on")

// raiseCandidates are the neighbours one step up that --raise tries for check c: its
// robust entries that move a value up, else every integer constant and fault of the
// family below its maximum, in the family's order.
func raiseCandidates(spec *specs.Spec, c *specs.Check) []specs.Neighbour {
	var out []specs.Neighbour
	for _, n := range c.Robust {
		if n.Delta > 0 {
			out = append(out, specs.Neighbour{Param: n.Param, Delta: n.Delta})
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, p := range append(append([]specs.Param(nil), spec.Family.Constants...), spec.Family.Faults...) {
		if p.Kind == specs.Int && c.Config.Values[p.Name] < p.Max {
			out = append(out, specs.Neighbour{Param: p.Name, Delta: 1})
		}
	}
	return out
}

// raiseFirst runs the raise candidates of a mutant no property caught and records in row
// the one that catches it with the fewest distinct states (the first on a tie). It
// reports whether the run was interrupted.
func raiseFirst(spec *specs.Spec, mc *specs.Check, row *mutant, run func(specs.Neighbour) (checker.Result, error), interrupted func() bool) bool {
	for _, n := range raiseCandidates(spec, mc) {
		res, err := run(n)
		if err != nil {
			continue // the model rejects the neighbour (min_isr above brokers, ...), or the check fails there
		}
		if interrupted() && res.Verdict == checker.Incomplete {
			return true
		}
		row.tried = append(row.tried, n.String())
		if res.Verdict == checker.Violated && (row.raise == "" || res.Stats.Distinct < row.raiseStates) {
			row.raise, row.raiseProperty, row.raiseStates = n.String(), res.Property, res.Stats.Distinct
		}
	}
	return false
}

// note is the line printed under a row that is not caught: why, and what to raise.
func (m *mutant) note(raiseMax int64) string {
	switch m.outcome {
	case mutNotApplied:
		return "n/a: " + m.reason
	case mutIncomplete, mutNotCovered:
		var parts []string
		if m.outcome == mutIncomplete {
			parts = append(parts, "incomplete: "+orUnknown(m.reason))
		}
		switch {
		case m.raise != "":
			parts = append(parts, fmt.Sprintf("raise %s first: %s there (%d distinct states)", m.raise,
				specs.Outcome(checker.Violated, m.raiseProperty), m.raiseStates))
		case len(m.tried) > 0:
			parts = append(parts, fmt.Sprintf("no neighbour one step up catches it within %d states (tried %s): the guard is redundant there, or a property is missing",
				raiseMax, strings.Join(m.tried, ", ")))
		}
		return strings.Join(parts, "; ")
	}
	return ""
}

// mutateOutput writes the rows as a table or JSON events.
func mutateOutput(w io.Writer, format string, spec *specs.Spec, c *specs.Check, rows []mutant, total int, raiseMax int64, interrupted bool) {
	caught, uncovered, na := 0, 0, 0
	for _, r := range rows {
		switch r.outcome {
		case mutCaught:
			caught++
		case mutNotCovered, mutIncomplete:
			uncovered++
		case mutNotApplied:
			na++
		}
	}
	done := len(rows) - 1
	if format == "json" {
		event := func(v map[string]any) {
			b, err := json.Marshal(v)
			if err != nil {
				panic("kmc: marshal event: " + err.Error()) // only plain values are marshalled
			}
			fmt.Fprintf(w, "%s\n", b)
		}
		for i, r := range rows {
			ev := map[string]any{"event": "mutant", "index": i, "guard": r.guard, "outcome": r.outcome,
				"verdict": string(r.verdict), "property": r.property, "reason": r.reason, "distinct": r.distinct,
				"depth": r.depth, "elapsed_seconds": r.elapsed.Seconds()}
			if r.outcome == mutNotCovered || r.outcome == mutIncomplete {
				ev["raise"], ev["raise_property"], ev["raise_distinct"] = r.raise, r.raiseProperty, r.raiseStates
				ev["tried"] = append([]string{}, r.tried...)
			}
			event(ev)
		}
		event(map[string]any{"event": "summary", "spec": spec.Path, "check": c.Name, "guards": total, "done": max(done, 0),
			"caught": caught, "not_covered": uncovered, "not_applicable": na, "interrupted": interrupted})
		return
	}
	guardW, outW, propW := len("GUARD"), len("RESULT"), len("PROPERTY")
	label := func(r *mutant) string {
		if r.outcome == mutBaseline {
			return specs.Outcome(r.verdict, "") // the property has its own column
		}
		return r.outcome
	}
	for i := range rows {
		guardW = max(guardW, len(guardLabel(rows[i].guard)))
		outW = max(outW, len(label(&rows[i])))
		propW = max(propW, len(rows[i].property))
	}
	row := func(g, out, prop, trace, states, t string) {
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("%-*s  %-*s  %-*s  %5s  %10s  %s", guardW, g, outW, out, propW, prop, trace, states, t), " "))
	}
	row("GUARD", "RESULT", "PROPERTY", "TRACE", "STATES", "TIME")
	for _, r := range rows {
		trace := "-"
		if r.verdict == checker.Violated {
			trace = strconv.Itoa(r.depth)
		}
		if r.outcome == mutNotApplied {
			row(guardLabel(r.guard), r.outcome, "-", "-", "-", "-")
		} else {
			out := label(&r)
			prop := r.property
			if prop == "" {
				prop = "-"
			}
			row(guardLabel(r.guard), out, prop, trace, strconv.FormatInt(r.distinct, 10), specs.FormatElapsed(r.elapsed))
		}
		if n := r.note(raiseMax); n != "" {
			fmt.Fprintf(w, "    %s\n", n)
		}
	}
	switch {
	case interrupted:
		fmt.Fprintf(w, "interrupted after %d of %d guards: %d caught, %d not covered, %d n/a\n", max(done, 0), total, caught, uncovered, na)
	default:
		fmt.Fprintf(w, "%d guards: %d caught, %d not covered, %d n/a\n", max(done, 0), caught, uncovered, na)
	}
}

// guardLabel is the first column of a row: the guard, or "(none)" for the baseline.
func guardLabel(g string) string {
	if g == "" {
		return "(none)"
	}
	return g
}
