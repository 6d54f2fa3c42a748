package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"

	"kmc/checker"
	"kmc/specs"
	"kmc/traces"
)

const whySynopsis = "kmc why TRACE.itf.json --spec SPEC [--check NAME] [--set KEY=VALUE]... [flags]"

const whyExamples = `  kmc why out/buggy/trace.itf.json --spec specs/kafka-18723.toml
  kmc why out/buggy/trace.itf.json --spec specs/kafka-14154.toml --check buggy --format json
  kmc why out/buggy/trace.itf.json --spec specs/kafka-13077.toml --no-check
`

// Outcomes of a trace under a variant (whyVariant.outcome).
const (
	traceImpossible = "impossible" // a step of the trace is no step of the variant's model
	traceHolds      = "holds"      // the trace replays and the property holds on it
	traceViolated   = "violated"   // the trace replays and still violates the property
)

// Statuses of a variant (whyVariant.status).
const (
	variantRun       = "run"        // tried: replayed, and checked unless --no-check
	variantInProfile = "in_profile" // not tried: the check's release line has the switch already
	variantRefused   = "refused"    // not tried: the model rejects the configuration
)

// whyVariant is the check with one fix switch turned on or off, and what kmc why found.
type whyVariant struct {
	sw     string
	on     bool        // the variant turns sw on (false: off)
	check  specs.Check // the variant's configuration
	status string
	reason string // why not tried (in_profile, refused)

	outcome string // for status run: traceImpossible, traceHolds or traceViolated
	step    int    // for traceImpossible: the first impossible state, 1-based as printed
	back    int    // for an impossible loop-back step: the state it goes back to (1-based), else 0
	action  string // the action of that step ("" for the initial state)
	detail  string // the model's words on the impossible step
	checked bool   // the whole check ran (not --no-check)
	result  checker.Result
}

// set is "on" or "off".
func (v *whyVariant) set() string {
	if v.on {
		return "on"
	}
	return "off"
}

// removesTrace reports whether the variant takes the violation off the trace: the trace is
// impossible, or it replays and the property holds.
func (v *whyVariant) removesTrace() bool {
	return v.status == variantRun && (v.outcome == traceImpossible || v.outcome == traceHolds)
}

// passes reports whether the whole check ran and found no violation.
func (v *whyVariant) passes() bool { return v.checked && v.result.Verdict == checker.OK }

// traceText is the TRACE cell of the table.
func (v *whyVariant) traceText() string {
	switch v.status {
	case variantInProfile:
		return "not tried: " + v.reason
	case variantRefused:
		return "not tried: the model refuses it"
	}
	switch v.outcome {
	case traceImpossible:
		switch {
		case v.back > 0:
			return fmt.Sprintf("impossible at the loop back to state %d (%s)", v.back, v.action)
		case v.action == "":
			return "impossible at step 1 (initial state)"
		}
		return fmt.Sprintf("impossible at step %d (%s)", v.step, v.action)
	case traceHolds:
		return "replays, property holds"
	}
	return "replays, still violated"
}

// checkText is the WHOLE CHECK cell of the table.
func (v *whyVariant) checkText() string {
	switch {
	case v.status != variantRun:
		return "-"
	case !v.checked:
		return "not run"
	}
	return specs.Outcome(v.result.Verdict, v.result.Property)
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
	fs.StringVar(&f.spec, "spec", "", "the spec `FILE` whose model the trace is replayed against")
	fs.StringVar(&f.check, "check", "", "the spec's check (protocol variant) whose switches are turned; default: the one the trace records, or the spec's only check")
	fs.StringArrayVar(&f.sets, "set", nil, "override a spec value, `KEY=VALUE` as for kmc check; repeatable")
	fs.StringVar(&f.format, "format", "text", "output `FORMAT`: text (a table), or json for one object")
	fs.StringVar(&f.perPoint, "max-time-per-point", "60s", "time budget of each variant's whole check, a `DURATION` (0: the spec's, else none); one that runs out is incomplete")
	fs.Int64Var(&f.maxState, "max-states", 0, "stop each variant's whole check after `N` distinct states (0: the spec's limit, else none)")
	fs.StringVar(&f.memory, "memory", "", "memory budget of each variant's whole check, a `SIZE` such as 4GiB (default: the spec's, else 60% of RAM)")
	fs.IntVar(&f.workers, "workers", 0, "`N` search workers (default: the spec's, else all cores)")
	fs.StringArrayVar(&f.switches, "switch", nil, "turn only the fix switch `NAME` (repeatable; default: every switch of the spec's family)")
	fs.BoolVar(&f.noCheck, "no-check", false, "only replay the trace under each variant; do not run the whole check")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "why", "want one trace file (got %d arguments)", fs.NArg())
	}
	if f.spec == "" {
		return usageError(stderr, "why", "--spec is required")
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
	over := checker.Options{Workers: f.workers, MaxStates: f.maxState}
	if code, ok := parseBudgets(stderr, "why", f.memory, "max-time-per-point", f.perPoint, &over); !ok {
		return code
	}

	path := fs.Arg(0)
	t, meta, code := loadTrace(path, "why", stderr)
	if t == nil {
		return code
	}
	spec, code := loadSpec(f.spec, f.sets, stderr)
	if spec == nil {
		return code
	}
	c, code := whyCheck(spec, f.check, meta.Check, stderr)
	if c == nil {
		return code
	}
	var known []string
	for _, sw := range spec.Family.Switches {
		known = append(known, sw.Name)
	}
	for _, sw := range f.switches {
		if !containsStr(known, sw) {
			fmt.Fprintf(stderr, "kmc: why: --switch: model %s has no fix switch %q%s\n", spec.Model, sw, specs.DidYouMean(sw, known))
			hint(stderr, "its switches are: "+strings.Join(known, ", "))
			return exitUsage
		}
	}
	canon, err := traces.CanonicalTrace(t)
	if err != nil { // LoadITF has parsed every value already
		fmt.Fprintf(stderr, "kmc: why: %s: %v\n", path, err)
		return exitInternal
	}
	prop, code := whyBaseline(spec, c, canon, path, meta, stderr)
	if prop == "" {
		return code
	}

	forceMemory := over.MemoryBytes != 0
	if !f.noCheck {
		var restore func()
		forceMemory, restore = applyMemoryBudget(spec.Options, &over)
		defer restore()
	}
	stop, release := newStop()
	defer release()
	over.Stop = stop

	variants := whyVariants(spec, c, f.switches)
	var done []whyVariant
	interrupted := false
	for i := range variants {
		if stopped(stop) {
			interrupted = true
			break
		}
		v := variants[i]
		n := fmt.Sprintf("%d/%d", i+1, len(variants))
		if v.status != variantRun {
			fmt.Fprintf(stderr, "why: variant %s: %s %s: %s\n", n, v.sw, v.set(), v.traceText())
			if v.status == variantRefused {
				fmt.Fprintf(stderr, "     %s\n", v.reason)
			}
			done = append(done, v)
			continue
		}
		fmt.Fprintf(stderr, "why: variant %s: %s %s\n", n, v.sw, v.set())
		if code := whyRun(spec, &v, canon, prop, over, forceMemory, !f.noCheck, stderr); code != exitOK {
			return code
		}
		if v.checked && v.result.Verdict == checker.Incomplete && stopped(stop) {
			interrupted = true // stopped half way: not a variant done
			break
		}
		line := v.traceText()
		if v.checked {
			st := v.result.Stats
			line += fmt.Sprintf("; whole check %s, %d distinct states, %s", v.checkText(), st.Distinct, specs.FormatElapsed(st.Elapsed))
		}
		fmt.Fprintf(stderr, "why: variant %s done: %s\n", n, line)
		done = append(done, v)
	}
	w := whyReport{path: path, states: len(t.States), spec: spec, c: c, property: prop, check: !f.noCheck,
		variants: done, total: len(variants), interrupted: interrupted}
	if f.format == "json" {
		w.json(stdout)
	} else {
		w.text(stdout)
	}
	if interrupted {
		fmt.Fprintln(stderr, "kmc: why: interrupted; the output above holds the variants done")
		return exitIncomplete
	}
	return exitOK
}

// whyCheck picks the check whose switches kmc why turns: the one named by --check, else the
// one the trace records, else the spec's only check. A name the spec lacks is a usage error.
func whyCheck(spec *specs.Spec, flag, recorded string, stderr io.Writer) (*specs.Check, int) {
	name, from := flag, "--check"
	if name == "" {
		name, from = recorded, "the trace's #meta kmc::check"
	}
	switch {
	case name != "":
		c, ok := spec.CheckByName(name)
		if !ok {
			fmt.Fprintf(stderr, "kmc: why: %s: %s has no check %q%s\n", from, spec.Path, name, specs.DidYouMean(name, checkNameList(spec)))
			hint(stderr, "its checks are: "+checkNames(spec))
			return nil, exitUsage
		}
		return c, exitOK
	case len(spec.Checks) == 1:
		return &spec.Checks[0], exitOK
	}
	return nil, usageError(stderr, "why", "%s has %d checks and the trace names none: pick one with --check (%s)",
		spec.Path, len(spec.Checks), checkNames(spec))
}

// whyProperty is the property the trace violates: the one it records (#meta kmc::property),
// else the one check c expects violated. None, a deadlock, or one the spec does not check is
// a usage error ("", exit 2); recorded names the spec the trace records, for the hint.
func whyProperty(spec *specs.Spec, c *specs.Check, t *checker.Trace, path, recorded string, stderr io.Writer) (string, int) {
	prop := t.Property
	if prop == "" && c.Expect == checker.Violated {
		prop = c.Property
	}
	switch {
	case prop == "":
		fmt.Fprintf(stderr, "kmc: why: %s: the trace names no violated property (#meta kmc::property), nor does check %s expect one\n", path, c.Name)
		hint(stderr, "kmc why explains the counterexamples that 'kmc check --out DIR' writes")
		return "", exitUsage
	case prop == specs.DeadlockProperty:
		fmt.Fprintf(stderr, "kmc: why: %s: the trace is a deadlock; kmc why explains property violations only\n", path)
		return "", exitUsage
	case !containsStr(spec.Properties, prop):
		fmt.Fprintf(stderr, "kmc: why: %s: the trace violates %s, which %s does not check (it checks %s)\n",
			path, prop, spec.Path, strings.Join(spec.Properties, ", "))
		hint(stderr, "was the trace made with another spec?"+recorded)
		return "", exitUsage
	}
	return prop, exitOK
}

// whyBaseline makes sure that the trace is a behaviour of check c that violates its
// property, and returns the property: what the variants are compared with. Anything else is
// a usage error ("", exit 2) that says which.
func whyBaseline(spec *specs.Spec, c *specs.Check, t *checker.Trace, path string, meta traces.ITFOptions, stderr io.Writer) (string, int) {
	r, err := spec.ReplayRunnable(c, traces.AppendCanonical)
	if err != nil {
		fmt.Fprintf(stderr, "kmc: why: %v\n", err)
		hint(stderr, "run 'kmc list "+spec.Model+"' for the model's parameters")
		return "", exitUsage
	}
	recorded := ""
	if meta.Source != "" {
		recorded = " (it records spec " + meta.Source
		if meta.Check != "" {
			recorded += ", check " + meta.Check
		}
		recorded += ")"
	}
	if msg := varsMismatch(t.Vars, r.Vars()); msg != "" {
		fmt.Fprintf(stderr, "kmc: why: %s: the trace's variables do not match model %s of %s: %s\n", path, spec.Model, spec.Path, msg)
		hint(stderr, "was the trace made with another spec?"+recorded)
		return "", exitUsage
	}
	prop, code := whyProperty(spec, c, t, path, recorded, stderr)
	if prop == "" {
		return "", code
	}
	made := "was the trace made with another check or other constants? try --check or --set" + recorded
	rep, err := r.Replay(t)
	if err != nil {
		fmt.Fprintf(stderr, "kmc: why: %s: not a behaviour of %s, check %s: %v\n", path, spec.Path, c.Name, err)
		hint(stderr, made)
		return "", exitUsage
	}
	if !containsStr(rep.Violates, prop) {
		fmt.Fprintf(stderr, "kmc: why: %s: the trace does not violate %s under %s, check %s\n", path, prop, spec.Path, c.Name)
		hint(stderr, made)
		return "", exitUsage
	}
	return prop, exitOK
}

// varsMismatch says how the trace's variables differ from the model's, or "" when they are
// the same (a trace that names none is compared by its values only).
func varsMismatch(trace, model []string) string {
	if len(trace) == 0 {
		return ""
	}
	var lacks, extra []string
	for _, v := range model {
		if !containsStr(trace, v) {
			lacks = append(lacks, v)
		}
	}
	for _, v := range trace {
		if !containsStr(model, v) {
			extra = append(extra, v)
		}
	}
	var parts []string
	if len(lacks) > 0 {
		parts = append(parts, "the model has "+strings.Join(lacks, ", ")+", which the trace lacks")
	}
	if len(extra) > 0 {
		parts = append(parts, "the trace has "+strings.Join(extra, ", ")+", which the model lacks")
	}
	if len(parts) > 0 {
		return strings.Join(parts, "; ")
	}
	if strings.Join(trace, ",") != strings.Join(model, ",") {
		return "the same names in another order (the model's: " + strings.Join(model, ", ") + ")"
	}
	return ""
}

// whyVariants lists, for each fix switch of the spec's family in order, the variant of check
// c that turns it: on when it is off in c (out of c's without list if it is there), off when
// c turns it on (into the without list too if c's release line has it). A switch that c's
// release line has and c keeps is not tried, and neither is a configuration the model
// refuses. A non-empty only restricts the switches to those it names.
func whyVariants(spec *specs.Spec, c *specs.Check, only []string) []whyVariant {
	var out []whyVariant
	for _, sw := range spec.Family.Switches {
		if len(only) > 0 && !containsStr(only, sw.Name) {
			continue
		}
		v := whyVariant{sw: sw.Name, on: !containsStr(c.Fixes, sw.Name), status: variantRun}
		fixes, without := c.Fixes, c.Without
		version := profileWith(spec, c, sw.Name)
		switch {
		case !v.on:
			fixes = without1(c.Fixes, sw.Name)
			if version != "" {
				without = append(append([]string(nil), c.Without...), sw.Name)
			}
		case containsStr(c.Without, sw.Name):
			without = without1(c.Without, sw.Name)
		case version != "":
			v.status, v.reason = variantInProfile, "version "+version+" has it"
		default:
			fixes = append(append([]string(nil), c.Fixes...), sw.Name)
		}
		v.check = variantCheck(c, fixes, without)
		if v.status == variantRun {
			if err := validVariant(spec, &v.check); err != nil {
				v.status, v.reason = variantRefused, pointError(err)
			}
		}
		out = append(out, v)
	}
	return out
}

// variantCheck is check c with the fix switches fixes and without list without.
func variantCheck(c *specs.Check, fixes, without []string) specs.Check {
	v := *c
	v.Fixes, v.Without = fixes, without
	v.Config.Switches = map[string]bool{}
	for _, f := range fixes {
		v.Config.Switches[f] = true
	}
	v.Config.Without = nil
	for _, f := range without {
		if v.Config.Without == nil {
			v.Config.Without = map[string]bool{}
		}
		v.Config.Without[f] = true
	}
	return v
}

// validVariant checks a variant's configuration as the spec loader would, then builds it.
func validVariant(spec *specs.Spec, c *specs.Check) error {
	if spec.Family.Validate != nil {
		if err := spec.Family.Validate(c.Config); err != nil {
			return err
		}
	}
	_, _, err := spec.Runnable(c)
	return err
}

// profileWith is the name of check c's release line (the family's version constant) when
// that line has the fix switch sw, else "".
func profileWith(spec *specs.Spec, c *specs.Check, sw string) string {
	for _, p := range spec.Family.Constants {
		if p.Name != "version" || p.Kind != specs.Enum || len(spec.Family.Versions) == 0 {
			continue
		}
		name := paramValue(p, c.Config.Values[p.Name])
		for _, v := range spec.Family.Versions {
			if v.Name == name && containsStr(v.Has, "fix "+sw) {
				return name
			}
		}
	}
	return ""
}

// without1 is list without s.
func without1(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// whyRun replays the trace under variant v and, when check is true, runs v's whole check.
// A model that cannot be built here was built by validVariant: an internal failure.
func whyRun(spec *specs.Spec, v *whyVariant, t *checker.Trace, prop string, over checker.Options, forceMemory, check bool, stderr io.Writer) int {
	r, err := spec.ReplayRunnable(&v.check, traces.AppendCanonical)
	if err != nil {
		fmt.Fprintf(stderr, "kmc: why: %v\n", err)
		return exitInternal
	}
	rep, err := r.Replay(t)
	switch {
	case err != nil:
		v.outcome = traceImpossible
		v.step, v.detail = firstImpossible(r, t)
		switch {
		case v.step > len(t.States):
			v.back, v.action = t.Loop+1, t.BackAction
		default:
			v.action = t.States[v.step-1].Action
		}
	case containsStr(rep.Violates, prop):
		v.outcome = traceViolated
	default:
		v.outcome = traceHolds
	}
	if !check {
		return exitOK
	}
	cr, opts, err := spec.Runnable(&v.check)
	if err != nil {
		fmt.Fprintf(stderr, "kmc: why: %v\n", err)
		return exitInternal
	}
	opts = specs.MergeOptions(opts, over, forceMemory)
	if opts.Workers == 0 {
		opts.Workers = min(runtime.NumCPU(), specs.MaxWorkers)
	}
	v.result, v.checked = cr.Check(opts), true
	if v.result.Verdict == checker.Incomplete && stopped(over.Stop) {
		v.result.Reason = "interrupted"
	}
	return exitOK
}

// firstImpossible finds the first step of t that is no step of r's model, t being no
// behaviour of it: the 1-based number of the first state that no prefix reaches (as the text
// trace numbers states), or len(t.States)+1 for the loop's back step, and the model's words.
// Every prefix of a behaviour is one, so a binary search over prefixes finds it.
func firstImpossible(r checker.Runnable, t *checker.Trace) (int, string) {
	prefix := func(k int) error {
		p := *t
		p.States = t.States[:k]
		p.Loop, p.BackAction, p.BackKind, p.Stutter = -1, "", "", false
		_, err := r.Replay(&p)
		return err
	}
	n := len(t.States)
	if err := prefix(n); err == nil {
		_, err := r.Replay(t)
		return n + 1, err.Error()
	}
	lo, hi := 1, n // prefix(hi) fails
	for lo < hi {
		mid := (lo + hi) / 2
		if prefix(mid) != nil {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	msg := prefix(lo).Error()
	return lo, strings.TrimPrefix(msg, "step "+strconv.Itoa(lo)+": ")
}

// whyReport is what kmc why prints.
type whyReport struct {
	path        string
	states      int
	spec        *specs.Spec
	c           *specs.Check
	property    string
	check       bool // the whole checks ran (not --no-check)
	variants    []whyVariant
	total       int
	interrupted bool
}

// about is the variants that take the violation off the trace and make the whole check pass
// (with --no-check: that take the violation off the trace), and those that take it off the
// trace but leave the whole check violated or incomplete.
func (w *whyReport) about() (about, notEnough []*whyVariant) {
	for i := range w.variants {
		v := &w.variants[i]
		switch {
		case !v.removesTrace():
		case !w.check || v.passes():
			about = append(about, v)
		default:
			notEnough = append(notEnough, v)
		}
	}
	return about, notEnough
}

// switchList names variants as "KAFKA-18723 on, KAFKA-6082 off".
func switchList(vs []*whyVariant) string {
	var parts []string
	for _, v := range vs {
		parts = append(parts, v.sw+" "+v.set())
	}
	return strings.Join(parts, ", ")
}

func (w *whyReport) text(out io.Writer) {
	fmt.Fprintf(out, "Trace %s (%d states) violates %s under %s, check %s: %s\n",
		w.path, w.states, w.property, w.spec.Path, w.c.Name, configString(w.spec, w.c))
	fmt.Fprintln(out, "Each fix switch turned in turn, the rest of the check unchanged:")
	swW, traceW, checkW := len("SWITCH"), len("TRACE"), len("WHOLE CHECK")
	for i := range w.variants {
		v := &w.variants[i]
		swW = max(swW, len(v.sw))
		traceW = max(traceW, len(v.traceText()))
		checkW = max(checkW, len(v.checkText()))
	}
	row := func(sw, set, trace, check, states, t string) {
		line := fmt.Sprintf("  %-*s  %-3s  %-*s  %-*s  %10s  %s", swW, sw, set, traceW, trace, checkW, check, states, t)
		fmt.Fprintln(out, strings.TrimRight(line, " "))
	}
	row("SWITCH", "SET", "TRACE", "WHOLE CHECK", "STATES", "TIME")
	for i := range w.variants {
		v := &w.variants[i]
		states, t := "-", "-"
		if v.checked {
			states, t = strconv.FormatInt(v.result.Stats.Distinct, 10), specs.FormatElapsed(v.result.Stats.Elapsed)
		}
		row(v.sw, v.set(), v.traceText(), v.checkText(), states, t)
		switch {
		case v.status == variantRefused:
			fmt.Fprintf(out, "      %s\n", v.reason)
		case v.outcome == traceImpossible:
			fmt.Fprintf(out, "      step %s: %s\n", v.stepName(), v.detail)
		}
		if v.checked && v.result.Verdict == checker.Incomplete {
			fmt.Fprintf(out, "      whole check incomplete: %s\n", orUnknown(v.result.Reason))
		}
	}
	if w.interrupted {
		fmt.Fprintf(out, "interrupted after %d of %d variants\n", len(w.variants), w.total)
	}
	about, notEnough := w.about()
	switch {
	case !w.check && len(about) > 0:
		fmt.Fprintf(out, "The violation leaves the trace with: %s (whole checks not run: --no-check).\n", switchList(about))
	case !w.check:
		fmt.Fprintln(out, "No switch turned alone takes the violation off the trace (whole checks not run: --no-check).")
	case len(about) > 0:
		fmt.Fprintf(out, "The trace is about %s: the violation leaves the trace and the whole check passes.\n", switchList(about))
	default:
		fmt.Fprintln(out, "No switch turned alone both takes the violation off the trace and makes the whole check pass.")
	}
	for _, v := range notEnough {
		fmt.Fprintf(out, "With %s %s the violation leaves the trace, but the whole check is %s.\n", v.sw, v.set(), v.checkText())
	}
}

// stepName is how the table's note names the impossible step: "12", or "back to state 3".
func (v *whyVariant) stepName() string {
	if v.back > 0 {
		return "back to state " + strconv.Itoa(v.back)
	}
	return strconv.Itoa(v.step)
}

// whyJSONReport is kmc why's --format json output (README: kmc why).
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
	r := whyJSONReport{Trace: w.path, TraceStates: w.states, Spec: w.spec.Path, Check: w.c.Name,
		Config: configString(w.spec, w.c), Property: w.property, WholeCheck: w.check,
		Variants: []whyJSONVariant{}, About: []whyJSONSwitch{}, NotEnough: []whyJSONSwitch{},
		Done: len(w.variants), Total: w.total, Interrupted: w.interrupted}
	orEmpty := func(l []string) []string {
		if l == nil {
			return []string{}
		}
		return l
	}
	for i := range w.variants {
		v := &w.variants[i]
		j := whyJSONVariant{Switch: v.sw, Set: v.set(), Fixes: orEmpty(v.check.Fixes), Without: orEmpty(v.check.Without),
			Status: v.status, Reason: v.reason}
		if v.status == variantRun {
			j.Trace = &whyJSONTrace{Outcome: v.outcome, Step: v.step, BackTo: v.back, Action: v.action, Detail: v.detail}
		}
		if v.checked {
			st := v.result.Stats
			j.Check = &whyJSONOutcome{Verdict: string(v.result.Verdict), Property: v.result.Property, Reason: v.result.Reason,
				Generated: st.Generated, Distinct: st.Distinct, Depth: specs.ResultDepth(v.result), ElapsedSeconds: st.Elapsed.Seconds()}
		}
		r.Variants = append(r.Variants, j)
	}
	about, notEnough := w.about()
	for _, v := range about {
		r.About = append(r.About, whyJSONSwitch{v.sw, v.set()})
	}
	for _, v := range notEnough {
		r.NotEnough = append(r.NotEnough, whyJSONSwitch{v.sw, v.set()})
	}
	b, err := json.Marshal(r)
	if err != nil {
		panic("kmc: marshal why report: " + err.Error()) // only plain values are marshalled
	}
	fmt.Fprintf(out, "%s\n", b)
}
