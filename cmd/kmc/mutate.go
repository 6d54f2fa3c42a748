package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"kmc/app"
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

// defaultRaiseMax is the default of --raise-max-states.
const defaultRaiseMax = 2_000_000

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
	raiseMax := fs.Int64("raise-max-states", defaultRaiseMax, "stop each neighbour run of --raise after `N` distinct states")
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
	search := app.Search{Workers: *workers, MaxStates: *maxStates}
	if code, ok := parseBudgets(stderr, "mutate", *memory, "max-time-per-mutant", *perMutant, &search); !ok {
		return code
	}
	path := fs.Arg(0)
	spec, code := loadSpec(path, withFixes(*sets, *fixes), *check, stderr)
	if spec == nil {
		return code
	}
	c, code := pickCheck("mutate", spec, *check, stderr)
	if c == nil {
		return code
	}
	ctx, release := signalContext()
	defer release()
	res, err := app.Mutate(ctx, spec, c.Name, app.MutateOptions{Guards: *guards, Search: search, Raise: *raise,
		RaiseMaxStates: *raiseMax, OnEvent: func(e app.Event) { mutateProgress(stderr, c, e) }})
	var (
		noGuards *app.NoGuardsError
		unknown  *app.UnknownNameError
		twice    *app.TwiceError
		model    *app.ModelError
	)
	switch {
	case errors.As(err, &noGuards):
		fmt.Fprintf(stderr, "kmc: mutate: %v\n", err)
		hint(stderr, "kmc list shows each model's guards")
		return exitUsage
	case errors.As(err, &unknown):
		fmt.Fprintf(stderr, "kmc: mutate: %v\n", err)
		hint(stderr, "its guards are: "+strings.Join(unknown.Known, ", "))
		return exitUsage
	case errors.As(err, &twice):
		return usageError(stderr, "mutate", "--guard %v", err)
	case errors.As(err, &model): // the baseline: the spec loader built it already
		fmt.Fprintf(stderr, "kmc: mutate: %v\n", err)
		return exitInternal
	case err != nil:
		return appError(stderr, "mutate", err, nil)
	}
	if res.Interrupted && len(res.Mutants) == 0 {
		fmt.Fprintln(stderr, "kmc: mutate: interrupted during the baseline; no mutant was run")
		return exitIncomplete
	}
	if base := res.Mutants[0]; base.Verdict != checker.OK {
		fmt.Fprintf(stderr, "kmc: mutate: check %s is %s with every guard on: a mutant can only be caught by a check that passes\n",
			c.Name, specs.Outcome(base.Verdict, base.Property))
		hint(stderr, "mutate a check that expects ok (a fixed check), or raise its limits")
		mutateOutput(stdout, *format, spec, res, *raiseMax)
		return exitUsage
	}
	mutateOutput(stdout, *format, spec, res, *raiseMax)
	if res.Interrupted {
		fmt.Fprintln(stderr, "kmc: mutate: interrupted; the output above holds the guards done")
		return exitIncomplete
	}
	return exitOK
}

// mutateProgress prints a line on stderr as each run of kmc mutate starts and ends.
func mutateProgress(stderr io.Writer, c *specs.Check, e app.Event) {
	switch e := e.(type) {
	case app.MutantStarted:
		if e.Guard == "" {
			fmt.Fprintf(stderr, "mutate: baseline: check %s with every guard on\n", c.Name)
		} else {
			fmt.Fprintf(stderr, "mutate: guard %d/%d: %s off\n", e.N, e.Total, e.Guard)
		}
	case app.MutantDone:
		m, at := e.Mutant, fmt.Sprintf("mutate: guard %d/%d", e.N, e.Total)
		switch m.Outcome {
		case app.NotApplicable:
			fmt.Fprintf(stderr, "%s done: n/a: %s\n", at, m.Reason)
		case app.Caught:
			runDone(stderr, at, fmt.Sprintf("caught by %s (trace of %d states)", m.Property, m.Depth), m.Distinct, m.Elapsed)
		case app.NotCovered:
			runDone(stderr, at, "not covered", m.Distinct, m.Elapsed)
		default:
			runDone(stderr, at, "incomplete ("+orUnknown(m.Reason)+")", m.Distinct, m.Elapsed)
		}
	case app.NeighbourStarted:
		if e.Guard == "" {
			fmt.Fprintf(stderr, "mutate: baseline at %s\n", e.Neighbour)
		} else {
			fmt.Fprintf(stderr, "mutate: guard %d/%d: %s off at %s\n", e.N, e.Total, e.Guard, e.Neighbour)
		}
	}
}

// note is the line printed under a row that is not caught: why, and what to raise.
func note(m *app.Mutant, raiseMax int64) string {
	switch m.Outcome {
	case app.NotApplicable:
		return "n/a: " + m.Reason
	case app.MutantIncomplete, app.NotCovered:
		var parts []string
		if m.Outcome == app.MutantIncomplete {
			parts = append(parts, "incomplete: "+orUnknown(m.Reason))
		}
		switch {
		case m.Raise != "":
			parts = append(parts, fmt.Sprintf("raise %s first: %s there (%d distinct states)", m.Raise,
				specs.Outcome(checker.Violated, m.RaiseProperty), m.RaiseStates))
		case len(m.Tried) > 0:
			parts = append(parts, fmt.Sprintf("no neighbour one step up catches it within %d states (tried %s): the guard is redundant there, or a property is missing",
				raiseMax, strings.Join(m.Tried, ", ")))
		}
		return strings.Join(parts, "; ")
	}
	return ""
}

// mutateOutput writes the rows as a table or JSON events.
func mutateOutput(w io.Writer, format string, spec *specs.Spec, res *app.MutateResult, raiseMax int64) {
	rows := res.Mutants
	caught, na := res.Count(app.Caught), res.Count(app.NotApplicable)
	uncovered := res.Count(app.NotCovered) + res.Count(app.MutantIncomplete)
	done := len(rows) - 1
	if format == "json" {
		for i, r := range rows {
			ev := map[string]any{"event": "mutant", "index": i, "guard": r.Guard, "outcome": string(r.Outcome),
				"verdict": string(r.Verdict), "property": r.Property, "reason": r.Reason, "distinct": r.Distinct,
				"depth": r.Depth, "elapsed_seconds": r.Elapsed.Seconds()}
			if r.Outcome == app.NotCovered || r.Outcome == app.MutantIncomplete {
				ev["raise"], ev["raise_property"], ev["raise_distinct"] = r.Raise, r.RaiseProperty, r.RaiseStates
				ev["tried"] = append([]string{}, r.Tried...)
			}
			jsonLine(w, ev)
		}
		jsonLine(w, map[string]any{"event": "summary", "spec": spec.Path, "check": res.Check.Name, "guards": res.Total, "done": max(done, 0),
			"caught": caught, "not_covered": uncovered, "not_applicable": na, "interrupted": res.Interrupted})
		return
	}
	guardW, outW, propW := len("GUARD"), len("RESULT"), len("PROPERTY")
	label := func(r *app.Mutant) string {
		if r.Outcome == app.Baseline {
			return specs.Outcome(r.Verdict, "") // the property has its own column
		}
		return string(r.Outcome)
	}
	for i := range rows {
		guardW = max(guardW, len(guardLabel(rows[i].Guard)))
		outW = max(outW, len(label(&rows[i])))
		propW = max(propW, len(rows[i].Property))
	}
	row := func(g, out, prop, trace, states, t string) {
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("%-*s  %-*s  %-*s  %5s  %10s  %s", guardW, g, outW, out, propW, prop, trace, states, t), " "))
	}
	row("GUARD", "RESULT", "PROPERTY", "TRACE", "STATES", "TIME")
	for i := range rows {
		r := &rows[i]
		trace := "-"
		if r.Verdict == checker.Violated {
			trace = strconv.Itoa(r.Depth)
		}
		if r.Outcome == app.NotApplicable {
			row(guardLabel(r.Guard), string(r.Outcome), "-", "-", "-", "-")
		} else {
			prop := r.Property
			if prop == "" {
				prop = "-"
			}
			row(guardLabel(r.Guard), label(r), prop, trace, strconv.FormatInt(r.Distinct, 10), specs.FormatElapsed(r.Elapsed))
		}
		if n := note(r, raiseMax); n != "" {
			fmt.Fprintf(w, "    %s\n", n)
		}
	}
	switch {
	case res.Interrupted:
		fmt.Fprintf(w, "interrupted after %d of %d guards: %d caught, %d not covered, %d n/a\n", max(done, 0), res.Total, caught, uncovered, na)
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
