package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"kmc/app"
	"kmc/checker"
	"kmc/specs"
	"kmc/traces"
)

const sweepSynopsis = "kmc sweep SPEC [--check NAME] --vary KEY=LO..HI [--vary ...] [--set KEY=VALUE]... [flags]"

const sweepExamples = `  kmc sweep specs/kafka-14154.toml --check buggy --vary max_epoch=1..3
  kmc sweep specs/twophase.toml --check fixed --vary rms=2..5 --max-states 2000
  kmc sweep specs/kafka-18723.toml --check buggy --vary max_records=2,4 --vary max_fetch_records=1..2
  kmc sweep specs/kafka-14154.toml --check buggy --vary max_epoch=1..3 --format json
`

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
	search := app.Search{Workers: *workers, MaxStates: *maxStates}
	if code, ok := parseBudgets(stderr, "sweep", *memory, "max-time-per-point", *perPoint, &search); !ok {
		return code
	}
	path := fs.Arg(0)
	*sets = withFixes(*sets, *fixes)
	spec, code := loadSpec(path, *sets, *check, stderr)
	if spec == nil {
		return code
	}
	ctx, release := signalContext()
	defer release()
	res, err := app.Sweep(ctx, spec, *check, app.SweepOptions{Vary: *vary, Sets: *sets, Search: search,
		OnEvent: func(e app.Event) { sweepProgress(stderr, e) }})
	var bad *app.VaryError
	switch {
	case errors.As(err, &bad) && bad.Conflict:
		return usageError(stderr, "sweep", "--vary %v", err)
	case errors.As(err, &bad):
		fmt.Fprintf(stderr, "kmc: sweep: --vary %v\n", err)
		hint(stderr, "the keys of "+spec.Family.Name+" are: "+paramRanges(spec.Family))
		return exitUsage
	case err != nil:
		return appError(stderr, "sweep", err, nil)
	}
	if *format == "json" {
		sweepJSON(stdout, spec, res)
	} else {
		sweepTable(stdout, res)
		if res.Interrupted {
			fmt.Fprintf(stdout, "interrupted after %d of %d points\n", len(res.Points), res.Total)
		}
	}
	if res.Interrupted {
		fmt.Fprintln(stderr, "kmc: sweep: interrupted; the output above holds the points done")
		return exitIncomplete
	}
	return exitOK
}

// sweepProgress prints a line on stderr as each point starts and ends.
func sweepProgress(stderr io.Writer, e app.Event) {
	switch e := e.(type) {
	case app.PointStarted:
		fmt.Fprintf(stderr, "sweep: point %d/%d: %s\n", e.N, e.Total, e.Label)
	case app.PointDone:
		p, at := e.Point, fmt.Sprintf("sweep: point %d/%d", e.N, e.Total)
		switch p.Verdict {
		case app.Invalid:
			fmt.Fprintf(stderr, "%s done: invalid: %s\n", at, p.Reason)
		case checker.Incomplete:
			runDone(stderr, at, "incomplete ("+orUnknown(p.Reason)+")", p.Distinct, p.Elapsed)
		default:
			runDone(stderr, at, p.Shown(), p.Distinct, p.Elapsed)
		}
	}
}

// runDone is the progress line of one run of a sweep or of kmc mutate that is done: at
// names it ("sweep: point 2/3"), outcome says what it gave.
func runDone(stderr io.Writer, at, outcome string, distinct int64, elapsed time.Duration) {
	fmt.Fprintf(stderr, "%s done: %s, %d distinct states, %s\n", at, outcome, distinct, specs.FormatElapsed(elapsed))
}

// paramRanges lists the constants and faults of fam with their ranges, for a hint.
func paramRanges(fam specs.Family) string {
	var parts []string
	for _, p := range append(append([]specs.Param(nil), fam.Constants...), fam.Faults...) {
		if p.Kind == specs.Int {
			parts = append(parts, fmt.Sprintf("%s (%d..%d)", p.Name, p.Min, p.Max))
		} else {
			parts = append(parts, p.Name+" ("+strings.Join(app.ValueNames(p), "|")+")")
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
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
func sweepTable(w io.Writer, res *app.SweepResult) {
	axes, points, c := res.Axes, res.Points, res.Check
	keyW := make([]int, len(axes))
	for k, a := range axes {
		keyW[k] = len(a.Param.Name)
		for _, v := range a.Values {
			keyW[k] = max(keyW[k], len(app.ParamValue(a.Param, v)))
		}
	}
	prop := func(p *app.Point) string {
		if p.Verdict == checker.Violated {
			return p.Property
		}
		return shortReason(p.Reason)
	}
	verdict := func(p *app.Point) string {
		if len(p.Vacuous) > 0 {
			return string(p.Verdict) + " (vacuous)"
		}
		return string(p.Verdict)
	}
	propW, verdictW := len("PROPERTY"), 10
	vacuous := false
	for i := range points {
		propW = max(propW, len(prop(&points[i])))
		verdictW = max(verdictW, len(verdict(&points[i])))
		vacuous = vacuous || len(points[i].Vacuous) > 0
	}
	row := func(mark string, keys []string, verdict, property, states, depth, t string) {
		var b strings.Builder
		b.WriteString(mark)
		for k, s := range keys {
			fmt.Fprintf(&b, "  %-*s", keyW[k], s)
		}
		fmt.Fprintf(&b, "  %-*s  %-*s  %10s  %5s  %s", verdictW, verdict, propW, property, states, depth, t)
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	head := make([]string, len(axes))
	for k, a := range axes {
		head[k] = a.Param.Name
	}
	row(" ", head, "VERDICT", "PROPERTY", "STATES", "DEPTH", "TIME")
	marked := false
	for i := range points {
		p := &points[i]
		keys := make([]string, len(axes))
		for k, a := range axes {
			keys[k] = app.ParamValue(a.Param, a.Values[p.Index[k]])
		}
		mark := " "
		if p.Differs {
			mark, marked = "*", true
		}
		if p.Verdict == app.Invalid {
			row(mark, keys, string(p.Verdict), prop(p), "-", "-", "-")
		} else {
			row(mark, keys, verdict(p), prop(p), strconv.FormatInt(p.Distinct, 10), strconv.Itoa(p.Depth), specs.FormatElapsed(p.Elapsed))
		}
		if p.Verdict != checker.Violated && p.Reason != "" && prop(p) != p.Reason {
			fmt.Fprintf(w, "     %s: %s\n", p.Verdict, p.Reason)
		}
		if len(p.Vacuous) > 0 {
			for _, line := range traces.WrapWords("vacuous: "+strings.Join(p.Vacuous, "; "), 95, "  ") {
				fmt.Fprintln(w, "     "+line)
			}
		}
	}
	if marked {
		fmt.Fprintln(w, "* the outcome differs from that of a grid neighbour (one step in one varied key)")
	}
	notVacuous := ""
	if vacuous && !(c.PinVacuous && c.WantVacuous) {
		notVacuous = ", not vacuous" // a vacuous point passes by testing nothing
	}
	if res.Smallest < 0 {
		fmt.Fprintf(w, "no point gives the expected verdict %s%s\n", c.Expected(), notVacuous)
		return
	}
	best := &points[res.Smallest]
	fmt.Fprintf(w, "smallest point with the expected verdict %s%s: %s (%d distinct states)\n",
		c.Expected(), notVacuous, res.Label(best), best.Distinct)
}

// sweepJSON writes one "point" event per point and a "summary" event, one JSON object per
// line.
func sweepJSON(w io.Writer, spec *specs.Spec, res *app.SweepResult) {
	axes, c := res.Axes, res.Check
	keys := make([]string, len(axes))
	for k, a := range axes {
		keys[k] = a.Param.Name
	}
	values := func(idx []int) []any {
		vs := make([]any, len(axes))
		for k, a := range axes {
			x := a.Values[idx[k]]
			switch a.Param.Kind {
			case specs.Int:
				vs[k] = x
			case specs.Bool:
				vs[k] = x != 0
			default:
				vs[k] = app.ParamValue(a.Param, x)
			}
		}
		return vs
	}
	for i := range res.Points {
		p := &res.Points[i]
		jsonLine(w, map[string]any{"event": "point", "index": i + 1, "keys": keys, "values": values(p.Index),
			"verdict": string(p.Verdict), "property": p.Property, "reason": p.Reason, "distinct": p.Distinct,
			"depth": p.Depth, "elapsed_seconds": p.Elapsed.Seconds(), "differs_from_neighbour": p.Differs,
			"vacuous": append([]string{}, p.Vacuous...)})
	}
	var smallest any
	if res.Smallest >= 0 {
		best := &res.Points[res.Smallest]
		smallest = map[string]any{"keys": keys, "values": values(best.Index), "distinct": best.Distinct}
	}
	jsonLine(w, map[string]any{"event": "summary", "spec": spec.Path, "check": c.Name, "expected": c.Expected(),
		"points": res.Total, "done": len(res.Points), "interrupted": res.Interrupted, "smallest": smallest})
}
