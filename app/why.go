package app

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"kmc/checker"
	"kmc/specs"
	"kmc/traces"
)

// WhyOptions say which fix switches Why turns, and how each whole check runs.
type WhyOptions struct {
	// Switches are the fix switches to turn, in the family's order; nil: every one.
	Switches []string
	// ReplayOnly only replays the trace under each variant; the whole checks are not run.
	ReplayOnly bool
	// Search is how each variant's whole check runs.
	Search Search
	// OnEvent, when set, gets VariantStarted and VariantDone.
	OnEvent func(Event)
}

// Outcomes of a trace under a variant (Variant.Outcome).
const (
	TraceImpossible = "impossible" // a step of the trace is no step of the variant's model
	TraceHolds      = "holds"      // the trace replays and the property holds on it
	TraceViolated   = "violated"   // the trace replays and still violates the property
)

// Statuses of a variant (Variant.Status).
const (
	VariantRun       = "run"        // tried: replayed, and checked unless ReplayOnly
	VariantInProfile = "in_profile" // not tried: the check's release line has the switch already
	VariantRefused   = "refused"    // not tried: the model rejects the configuration
)

// Variant is the check with one fix switch turned on or off, and what Why found.
type Variant struct {
	Switch string
	On     bool        // the variant turns Switch on (false: off)
	Check  specs.Check // the variant's configuration
	Status string
	Reason string // why not tried (in_profile, refused)

	Outcome string // for status run: TraceImpossible, TraceHolds or TraceViolated
	Step    int    // for TraceImpossible: the first impossible state, 1-based as printed
	Back    int    // for an impossible loop-back step: the state it goes back to (1-based), else 0
	Action  string // the action of that step ("" for the initial state)
	Detail  string // the model's words on the impossible step
	Checked bool   // the whole check ran (not ReplayOnly)
	Result  checker.Result
}

// Set is "on" or "off".
func (v *Variant) Set() string {
	if v.On {
		return "on"
	}
	return "off"
}

// RemovesTrace reports whether the variant takes the violation off the trace: the trace
// is impossible, or it replays and the property holds.
func (v *Variant) RemovesTrace() bool {
	return v.Status == VariantRun && (v.Outcome == TraceImpossible || v.Outcome == TraceHolds)
}

// Passes reports whether the whole check ran and found no violation.
func (v *Variant) Passes() bool { return v.Checked && v.Result.Verdict == checker.OK }

// WhyResult is what Why found.
type WhyResult struct {
	Check    *specs.Check
	Property string // the property the trace violates
	States   int    // the trace's length
	// WholeCheck says that each variant's whole check ran (not ReplayOnly).
	WholeCheck  bool
	Variants    []Variant // the variants done, in order
	Total       int       // of all the variants
	Interrupted bool
}

// About is the variants that take the violation off the trace and make the whole check
// pass (with ReplayOnly: that take the violation off the trace), and NotEnough those that
// take it off the trace but leave the whole check violated or incomplete.
func (w *WhyResult) About() (about, notEnough []*Variant) {
	for i := range w.Variants {
		v := &w.Variants[i]
		switch {
		case !v.RemovesTrace():
		case !w.WholeCheck || v.Passes():
			about = append(about, v)
		default:
			notEnough = append(notEnough, v)
		}
	}
	return about, notEnough
}

// TraceProblem is what is wrong with a trace that Why cannot explain.
type TraceProblem int

// Trace problems.
const (
	WrongSpec     TraceProblem = iota + 1 // its variables or property are another spec's
	WrongCheck                            // it is no behaviour of the check, or does not violate its property
	NoViolation                           // it names no violated property, nor does the check expect one
	DeadlockTrace                         // it is a deadlock, not a property violation
)

// TraceError is a trace that Why cannot explain under the spec's check.
type TraceError struct {
	Problem TraceProblem
	Msg     string
}

func (e *TraceError) Error() string { return e.Msg }

// Why explains a trace that violates a property of the check called name of spec (its
// only check when name is ""; a trace written with Check's Out records its check in its
// ITF metadata): for each fix switch of the family in turn, the check with that switch
// turned alone (on where it is off, off where it is on), it says whether the trace is
// still a behaviour and still violates the property, and runs the whole check. The
// switches under which the trace loses its violation and the check passes are what the
// trace is about (WhyResult.About). Cancelling ctx stops it: the variant cut short is not
// in the result. Refusals before anything runs: UnknownCheckError, NoCheckError,
// UnknownNameError, ModelError, TraceError.
func Why(ctx context.Context, spec *specs.Spec, t *checker.Trace, name string, o WhyOptions) (*WhyResult, error) {
	emit := emitter(o.OnEvent)
	c, err := PickCheck(spec, name)
	if err != nil {
		return nil, err
	}
	var known []string
	for _, sw := range spec.Family.Switches {
		known = append(known, sw.Name)
	}
	for _, sw := range o.Switches {
		if !slices.Contains(known, sw) {
			return nil, &UnknownNameError{What: "fix switch", Model: spec.Model, Name: sw, Known: known}
		}
	}
	canon, err := traces.CanonicalTrace(t)
	if err != nil {
		return nil, fmt.Errorf("the trace's values: %w", err)
	}
	prop, err := baseline(spec, c, canon)
	if err != nil {
		return nil, err
	}
	variants := whyVariants(spec, c, o.Switches)
	res := &WhyResult{Check: c, Property: prop, States: len(t.States), WholeCheck: !o.ReplayOnly, Total: len(variants)}
	for i := range variants {
		if ctx.Err() != nil {
			res.Interrupted = true
			break
		}
		v := &variants[i]
		if v.Status == VariantRun {
			emit(VariantStarted{N: i + 1, Total: len(variants), Variant: v})
			if err := o.explain(ctx, spec, v, canon, prop); err != nil {
				return nil, err
			}
			if v.Checked && v.Result.Verdict == checker.Incomplete && ctx.Err() != nil {
				res.Interrupted = true // stopped half way: not a variant done
				break
			}
		}
		res.Variants = append(res.Variants, *v)
		emit(VariantDone{N: i + 1, Total: len(variants), Variant: v})
	}
	return res, nil
}

// baseline makes sure that the trace is a behaviour of check c that violates its property,
// and returns the property: what the variants are compared with.
func baseline(spec *specs.Spec, c *specs.Check, t *checker.Trace) (string, error) {
	r, err := spec.ReplayRunnable(c, traces.AppendCanonical)
	if err != nil {
		return "", &ModelError{Model: spec.Model, Err: err}
	}
	if msg := varsMismatch(t.Vars, r.Vars()); msg != "" {
		return "", &TraceError{WrongSpec, fmt.Sprintf("the trace's variables do not match model %s of %s: %s", spec.Model, spec.Path, msg)}
	}
	prop := t.Property
	if prop == "" && c.Expect == checker.Violated {
		prop = c.Property
	}
	switch {
	case prop == "":
		return "", &TraceError{NoViolation, "the trace names no violated property (#meta kmc::property), nor does check " + c.Name + " expect one"}
	case prop == specs.DeadlockProperty:
		return "", &TraceError{DeadlockTrace, "the trace is a deadlock, not a property violation"}
	case !slices.Contains(spec.Properties, prop):
		return "", &TraceError{WrongSpec, fmt.Sprintf("the trace violates %s, which %s does not check (it checks %s)",
			prop, spec.Path, strings.Join(spec.Properties, ", "))}
	}
	rep, err := r.Replay(t)
	if err != nil {
		return "", &TraceError{WrongCheck, fmt.Sprintf("not a behaviour of %s, check %s: %v", spec.Path, c.Name, err)}
	}
	if !slices.Contains(rep.Violates, prop) {
		return "", &TraceError{WrongCheck, fmt.Sprintf("the trace does not violate %s under %s, check %s", prop, spec.Path, c.Name)}
	}
	return prop, nil
}

// varsMismatch says how the trace's variables differ from the model's, or "" when they are
// the same (a trace that names none is compared by its values only).
func varsMismatch(trace, model []string) string {
	if len(trace) == 0 {
		return ""
	}
	var lacks, extra []string
	for _, v := range model {
		if !slices.Contains(trace, v) {
			lacks = append(lacks, v)
		}
	}
	for _, v := range trace {
		if !slices.Contains(model, v) {
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
func whyVariants(spec *specs.Spec, c *specs.Check, only []string) []Variant {
	var out []Variant
	for _, sw := range spec.Family.Switches {
		if len(only) > 0 && !slices.Contains(only, sw.Name) {
			continue
		}
		v := Variant{Switch: sw.Name, On: !slices.Contains(c.Fixes, sw.Name), Status: VariantRun}
		fixes, without := c.Fixes, c.Without
		version := profileWith(spec, c, sw.Name)
		switch {
		case !v.On:
			fixes = without1(c.Fixes, sw.Name)
			if version != "" {
				without = append(append([]string(nil), c.Without...), sw.Name)
			}
		case slices.Contains(c.Without, sw.Name):
			without = without1(c.Without, sw.Name)
		case version != "":
			v.Status, v.Reason = VariantInProfile, "version "+version+" has it"
		default:
			fixes = append(append([]string(nil), c.Fixes...), sw.Name)
		}
		v.Check = variantCheck(c, fixes, without)
		if v.Status == VariantRun {
			if err := validVariant(spec, &v.Check); err != nil {
				v.Status, v.Reason = VariantRefused, Reason(err)
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
		name := ParamValue(p, c.Config.Values[p.Name])
		for _, v := range spec.Family.Versions {
			if v.Name == name && slices.Contains(v.Has, "fix "+sw) {
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

// explain replays the trace under variant v and, unless ReplayOnly, runs v's whole check.
// A model that cannot be built here was built by validVariant: an internal failure.
func (o *WhyOptions) explain(ctx context.Context, spec *specs.Spec, v *Variant, t *checker.Trace, prop string) error {
	r, err := spec.ReplayRunnable(&v.Check, traces.AppendCanonical)
	if err != nil {
		return fmt.Errorf("variant %s %s: %v", v.Switch, v.Set(), err) // built by validVariant: an internal failure
	}
	rep, err := r.Replay(t)
	switch {
	case err != nil:
		v.Outcome = TraceImpossible
		v.Step, v.Detail = firstImpossible(r, t)
		switch {
		case v.Step > len(t.States):
			v.Back, v.Action = t.Loop+1, t.BackAction
		default:
			v.Action = t.States[v.Step-1].Action
		}
	case slices.Contains(rep.Violates, prop):
		v.Outcome = TraceViolated
	default:
		v.Outcome = TraceHolds
	}
	if o.ReplayOnly {
		return nil
	}
	res, err := o.Search.run(ctx, spec, &v.Check, nil)
	if err != nil {
		return fmt.Errorf("variant %s %s: %v", v.Switch, v.Set(), err) // built by validVariant: an internal failure
	}
	v.Result, v.Checked = res, true
	return nil
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
