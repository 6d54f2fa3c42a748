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
	"kmc/traces"
)

const whySynopsis = "kmc why TRACE.itf.json [--spec SPEC] [--check NAME] [--set KEY=VALUE]... [flags]"

const whyExamples = `  kmc why out/buggy/trace.itf.json
  kmc why out/buggy/trace.itf.json --spec specs/kafka-18723.toml
  kmc why out/buggy/trace.itf.json --spec specs/kafka-14154.toml --check buggy --format json
  kmc why out/buggy/trace.itf.json --spec specs/kafka-13077.toml --no-check
`

// traceText is the TRACE cell of kmc why's table.
func traceText(v *app.Variant) string {
	switch v.Status {
	case app.VariantInProfile:
		return "not tried: " + v.Reason
	case app.VariantRefused:
		return "not tried: the model refuses it"
	}
	switch v.Outcome {
	case app.TraceImpossible:
		switch {
		case v.Back > 0:
			return fmt.Sprintf("impossible at the loop back to state %d (%s)", v.Back, v.Action)
		case v.Action == "":
			return "impossible at step 1 (initial state)"
		}
		return fmt.Sprintf("impossible at step %d (%s)", v.Step, v.Action)
	case app.TraceHolds:
		return "replays, property holds"
	}
	return "replays, still violated"
}

// checkText is the WHOLE CHECK cell of the table.
func checkText(v *app.Variant) string {
	switch {
	case v.Status != app.VariantRun:
		return "-"
	case !v.Checked:
		return "not run"
	}
	return specs.Outcome(v.Result.Verdict, v.Result.Property)
}

// stepName is how the table's note names the impossible step: "12", or "back to state 3".
func stepName(v *app.Variant) string {
	if v.Back > 0 {
		return "back to state " + strconv.Itoa(v.Back)
	}
	return strconv.Itoa(v.Step)
}

// whyFlags are the flags of kmc why.
type whyFlags struct {
	spec     string
	check    string
	sets     []string
	format   string
	perPoint string
	maxState int64
	memory   string
	workers  int
	noCheck  bool
	switches []string
}

func runWhy(args []string, stdout, stderr io.Writer) int {
	var f whyFlags
	fs := newFlags("why", whySynopsis, whyExamples, stdout)
	fs.StringVar(&f.spec, "spec", "", "the spec `FILE` whose model the trace is replayed against (default: the configuration the trace records; with --spec and no --set, the trace's --set overrides apply)")
	fs.StringVar(&f.check, "check", "", "the spec's check (protocol variant) whose switches are turned; default: the one the trace records, or the spec's only check")
	fs.StringArrayVar(&f.sets, "set", nil, "override a spec value, `KEY=VALUE` as for kmc check; repeatable")
	fs.StringVar(&f.format, "format", "text", "output `FORMAT`: text (a table), or json for one object")
	fs.StringVar(&f.perPoint, "max-time-per-point", "60s", "time budget of each variant's whole check, a `DURATION` (0: the spec's, else none); one that runs out is incomplete")
	fs.Int64Var(&f.maxState, "max-states", 0, "stop each variant's whole check after `N` distinct states (0: the spec's limit, else none)")
	fs.StringVar(&f.memory, "memory", "", "memory budget of each variant's whole check, a `SIZE` such as 4GiB (default: the spec's, else 60% of RAM)")
	fs.IntVar(&f.workers, "workers", 0, "`N` search workers (default: the spec's, else all cores)")
	fs.StringArrayVar(&f.switches, "switch", nil, "turn only the fix switch `NAME` (repeatable; default: every switch of the spec's family)")
	maxSize := traceSizeFlag(fs)
	fs.BoolVar(&f.noCheck, "no-check", false, "only replay the trace under each variant; do not run the whole check")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "why", "want one trace file (got %d arguments)", fs.NArg())
	}
	if f.format != "text" && f.format != "json" {
		return usageError(stderr, "why", "--format must be text or json (got %q)", f.format)
	}
	if f.workers < 0 || f.maxState < 0 {
		return usageError(stderr, "why", "--workers and --max-states must not be negative")
	}
	if f.workers > specs.MaxWorkers {
		return usageError(stderr, "why", "--workers must be at most %d, the engine's most (got %d)", specs.MaxWorkers, f.workers)
	}
	search := app.Search{Workers: f.workers, MaxStates: f.maxState}
	if code, ok := parseBudgets(stderr, "why", f.memory, "max-time-per-point", f.perPoint, &search); !ok {
		return code
	}

	path := fs.Arg(0)
	t, meta, code := loadTrace(path, "why", *maxSize, stderr)
	if t == nil {
		return code
	}
	ts, code := resolveTraceSpec("why", path, meta, f.spec, f.sets, f.check, stderr)
	if ts == nil {
		return code
	}
	spec, name, from := ts.spec, ts.check, ts.from
	ctx, release := signalContext()
	defer release()
	res, err := app.Why(ctx, spec, t, name, app.WhyOptions{Switches: f.switches, ReplayOnly: f.noCheck, Search: search,
		OnEvent: func(e app.Event) { whyProgress(stderr, e) }})
	if err != nil {
		return whyError(stderr, err, path, from, spec, meta)
	}
	w := whyReport{path: path, spec: spec, against: ts.against, res: res}
	if f.format == "json" {
		w.json(stdout)
	} else {
		w.text(stdout)
	}
	if res.Interrupted {
		fmt.Fprintln(stderr, "kmc: why: interrupted; the output above holds the variants done")
		return exitIncomplete
	}
	return exitOK
}

// whyError reports what app.Why refused, about the trace at path: a check named by from (a
// flag, or the trace's metadata), a switch, or a trace of another spec or check.
func whyError(stderr io.Writer, err error, path, from string, spec *specs.Spec, meta traces.ITFOptions) int {
	var (
		unknown *app.UnknownCheckError
		none    *app.NoCheckError
		name    *app.UnknownNameError
		bad     *app.TraceError
	)
	recorded := ""
	if meta.Source != "" {
		recorded = " (it records spec " + meta.Source
		if meta.Check != "" {
			recorded += ", check " + meta.Check
		}
		recorded += ")"
	}
	switch {
	case errors.As(err, &unknown):
		fmt.Fprintf(stderr, "kmc: why: %s: %v\n", from, err)
		hint(stderr, "its checks are: "+strings.Join(unknown.Checks, ", "))
	case errors.As(err, &none):
		return usageError(stderr, "why", "%s has %d checks and the trace names none: pick one with --check (%s)",
			spec.Path, len(none.Checks), strings.Join(none.Checks, ", "))
	case errors.As(err, &name):
		fmt.Fprintf(stderr, "kmc: why: --switch: %v\n", err)
		hint(stderr, "its switches are: "+strings.Join(name.Known, ", "))
	case errors.As(err, &bad) && bad.Problem == app.DeadlockTrace:
		fmt.Fprintf(stderr, "kmc: why: %s: the trace is a deadlock; kmc why explains property violations only\n", path)
	case errors.As(err, &bad):
		fmt.Fprintf(stderr, "kmc: why: %s: %v\n", path, err)
		switch bad.Problem {
		case app.WrongSpec:
			hint(stderr, "was the trace made with another spec?"+recorded)
		case app.WrongCheck:
			hint(stderr, "was the trace made with another check or other constants? try --check or --set"+recorded)
		case app.NoViolation:
			hint(stderr, "kmc why explains the counterexamples that 'kmc check --out DIR' writes")
		}
	default:
		return appError(stderr, "why", err, nil)
	}
	return exitUsage
}

// whyProgress prints a line on stderr as each variant starts and ends.
func whyProgress(stderr io.Writer, e app.Event) {
	switch e := e.(type) {
	case app.VariantStarted:
		fmt.Fprintf(stderr, "why: variant %d/%d: %s %s\n", e.N, e.Total, e.Variant.Switch, e.Variant.Set())
	case app.VariantDone:
		v := e.Variant
		if v.Status != app.VariantRun {
			fmt.Fprintf(stderr, "why: variant %d/%d: %s %s: %s\n", e.N, e.Total, v.Switch, v.Set(), traceText(v))
			if v.Status == app.VariantRefused {
				fmt.Fprintf(stderr, "     %s\n", v.Reason)
			}
			return
		}
		line := traceText(v)
		if v.Checked {
			st := v.Result.Stats
			line += fmt.Sprintf("; whole check %s, %d distinct states, %s", checkText(v), st.Distinct, specs.FormatElapsed(st.Elapsed))
		}
		fmt.Fprintf(stderr, "why: variant %d/%d done: %s\n", e.N, e.Total, line)
	}
}

// whyReport is what kmc why prints: the trace at path explained under spec.
type whyReport struct {
	path    string
	spec    *specs.Spec
	against string // names the configuration: the spec file's path, or the trace's own
	res     *app.WhyResult
}

// switchList names variants as "KAFKA-18723 on, KAFKA-6082 off".
func switchList(vs []*app.Variant) string {
	var parts []string
	for _, v := range vs {
		parts = append(parts, v.Switch+" "+v.Set())
	}
	return strings.Join(parts, ", ")
}

func (w *whyReport) text(out io.Writer) {
	res := w.res
	fmt.Fprintf(out, "Trace %s (%d states) violates %s under %s, check %s: %s\n",
		w.path, res.States, res.Property, w.against, res.Check.Name, app.Config(w.spec, res.Check))
	fmt.Fprintln(out, "Each fix switch turned in turn, the rest of the check unchanged:")
	swW, traceW, checkW := len("SWITCH"), len("TRACE"), len("WHOLE CHECK")
	for i := range res.Variants {
		v := &res.Variants[i]
		swW = max(swW, len(v.Switch))
		traceW = max(traceW, len(traceText(v)))
		checkW = max(checkW, len(checkText(v)))
	}
	row := func(sw, set, trace, check, states, t string) {
		line := fmt.Sprintf("  %-*s  %-3s  %-*s  %-*s  %10s  %s", swW, sw, set, traceW, trace, checkW, check, states, t)
		fmt.Fprintln(out, strings.TrimRight(line, " "))
	}
	row("SWITCH", "SET", "TRACE", "WHOLE CHECK", "STATES", "TIME")
	for i := range res.Variants {
		v := &res.Variants[i]
		states, t := "-", "-"
		if v.Checked {
			states, t = strconv.FormatInt(v.Result.Stats.Distinct, 10), specs.FormatElapsed(v.Result.Stats.Elapsed)
		}
		row(v.Switch, v.Set(), traceText(v), checkText(v), states, t)
		switch {
		case v.Status == app.VariantRefused:
			fmt.Fprintf(out, "      %s\n", v.Reason)
		case v.Outcome == app.TraceImpossible:
			fmt.Fprintf(out, "      step %s: %s\n", stepName(v), v.Detail)
		}
		if v.Checked && v.Result.Verdict == checker.Incomplete {
			fmt.Fprintf(out, "      whole check incomplete: %s\n", orUnknown(v.Result.Reason))
		}
	}
	if res.Interrupted {
		fmt.Fprintf(out, "interrupted after %d of %d variants\n", len(res.Variants), res.Total)
	}
	about, notEnough := res.About()
	switch {
	case !res.WholeCheck && len(about) > 0:
		fmt.Fprintf(out, "The violation leaves the trace with: %s (whole checks not run: --no-check).\n", switchList(about))
	case !res.WholeCheck:
		fmt.Fprintln(out, "No switch turned alone takes the violation off the trace (whole checks not run: --no-check).")
	case len(about) > 0:
		fmt.Fprintf(out, "The trace is about %s: the violation leaves the trace and the whole check passes.\n", switchList(about))
	default:
		fmt.Fprintln(out, "No switch turned alone both takes the violation off the trace and makes the whole check pass.")
	}
	for _, v := range notEnough {
		fmt.Fprintf(out, "With %s %s the violation leaves the trace, but the whole check is %s.\n", v.Switch, v.Set(), checkText(v))
	}
}

// whyJSONReport is kmc why's --format json output (docs/commands.md: kmc why).
type whyJSONReport struct {
	Trace       string           `json:"trace"`
	TraceStates int              `json:"trace_states"`
	Spec        string           `json:"spec"`
	Check       string           `json:"check"`
	Config      string           `json:"config"`
	Property    string           `json:"property"`
	WholeCheck  bool             `json:"whole_check"`
	Variants    []whyJSONVariant `json:"variants"`
	About       []whyJSONSwitch  `json:"about"`
	NotEnough   []whyJSONSwitch  `json:"not_enough"`
	Done        int              `json:"done"`
	Total       int              `json:"total"`
	Interrupted bool             `json:"interrupted"`
}

type whyJSONSwitch struct {
	Switch string `json:"switch"`
	Set    string `json:"set"`
}

type whyJSONVariant struct {
	Switch  string          `json:"switch"`
	Set     string          `json:"set"`
	Fixes   []string        `json:"fixes"`
	Without []string        `json:"without"`
	Status  string          `json:"status"`
	Reason  string          `json:"reason,omitempty"`
	Trace   *whyJSONTrace   `json:"trace"`
	Check   *whyJSONOutcome `json:"check"`
}

type whyJSONTrace struct {
	Outcome string `json:"outcome"`
	Step    int    `json:"step,omitempty"`
	BackTo  int    `json:"back_to,omitempty"`
	Action  string `json:"action,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

type whyJSONOutcome struct {
	Verdict        string  `json:"verdict"`
	Property       string  `json:"property,omitempty"`
	Reason         string  `json:"reason,omitempty"`
	Generated      int64   `json:"generated"`
	Distinct       int64   `json:"distinct"`
	Depth          int     `json:"depth"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
}

func (w *whyReport) json(out io.Writer) {
	res := w.res
	r := whyJSONReport{Trace: w.path, TraceStates: res.States, Spec: w.spec.Path, Check: res.Check.Name,
		Config: app.Config(w.spec, res.Check), Property: res.Property, WholeCheck: res.WholeCheck,
		Variants: []whyJSONVariant{}, About: []whyJSONSwitch{}, NotEnough: []whyJSONSwitch{},
		Done: len(res.Variants), Total: res.Total, Interrupted: res.Interrupted}
	orEmpty := func(l []string) []string {
		if l == nil {
			return []string{}
		}
		return l
	}
	for i := range res.Variants {
		v := &res.Variants[i]
		j := whyJSONVariant{Switch: v.Switch, Set: v.Set(), Fixes: orEmpty(v.Check.Fixes), Without: orEmpty(v.Check.Without),
			Status: v.Status, Reason: v.Reason}
		if v.Status == app.VariantRun {
			j.Trace = &whyJSONTrace{Outcome: v.Outcome, Step: v.Step, BackTo: v.Back, Action: v.Action, Detail: v.Detail}
		}
		if v.Checked {
			st := v.Result.Stats
			j.Check = &whyJSONOutcome{Verdict: string(v.Result.Verdict), Property: v.Result.Property, Reason: v.Result.Reason,
				Generated: st.Generated, Distinct: st.Distinct, Depth: specs.ResultDepth(v.Result), ElapsedSeconds: st.Elapsed.Seconds()}
		}
		r.Variants = append(r.Variants, j)
	}
	about, notEnough := res.About()
	for _, v := range about {
		r.About = append(r.About, whyJSONSwitch{v.Switch, v.Set()})
	}
	for _, v := range notEnough {
		r.NotEnough = append(r.NotEnough, whyJSONSwitch{v.Switch, v.Set()})
	}
	jsonLine(out, r)
}
