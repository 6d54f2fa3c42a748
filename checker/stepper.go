package checker

import (
	"errors"
	"strconv"
)

// Stepper is a bound model taken one state at a time, with the state type hidden, for a
// caller that walks the state graph by hand (kmc explore). A state travels as its encoding
// (Model.Encode): every method that takes one expects an encoding that this Stepper, or one
// of the same model built with other guards turned off, returned; a caller that stores
// states on behalf of someone else keeps them and hands out paths, never takes encodings
// back from outside (Decode trusts its input). Nothing here runs in a search's hot path;
// each call allocates what it returns.
type Stepper interface {
	// Vars and ActionKinds describe the model, as in Model.
	Vars() []string
	ActionKinds() []string
	// Actors are the lifelines of the model's sequence charts (Eventer), nil without.
	Actors() []string
	// Bounds name the bounds that can cut a step (Bounded), nil without.
	Bounds() []string
	// Properties are the bound properties, in their order.
	Properties() []PropertyInfo
	// Init is the initial states, in the model's order.
	Init() []Step
	// Next is the successors of state in Next's order, and the steps a model bound cut there
	// (Bounded.NextCut), each with the bound that cut it.
	Next(state []byte) ([]Step, []CutStep)
	// Values is the ITF JSON of each variable of state, in Vars order.
	Values(state []byte) []string
	// Views is the JSON array of the state's tables (Viewer), or "" without.
	Views(state []byte) string
	// Events is the JSON array of the messages of the step (Eventer), or "" without.
	Events(from []byte, action uint64, to []byte) string
	// Same reports whether two states are the same state for the search (the view of their
	// encodings, Projected, when the model has one).
	Same(a, b []byte) bool
	// Evaluate evaluates the state predicates of every property in state, in Properties
	// order; an action property is evaluated on the step from `from` by action into state
	// when from is not nil, and left unevaluated (Evaluated false) otherwise.
	Evaluate(from []byte, action uint64, state []byte) []PropertyValue
	// Search runs the engine from state (as the only initial state) for goal, with opts
	// (symmetry and checkpoints are not used), and returns the shortest path it found as
	// indexes into Next's successors.
	Search(state []byte, goal Goal, opts Options) SearchResult
}

// Step is one initial state or successor.
type Step struct {
	Action     uint64 // the action's code; 0 for an initial state
	Name, Kind string // ActionName and the name of its kind; "" for an initial state
	State      []byte // the encoding of the state reached
}

// CutStep is a step that a model bound cut (contract item 5).
type CutStep struct {
	Action     uint64
	Name, Kind string
	Bound      string // the bound, as Bounds names it: "max_epoch=2"
}

// PropertyInfo names a bound property and its kind.
type PropertyInfo struct {
	Name string
	Kind Kind
}

// PropertyValue is a property's predicates evaluated in one state (or on one step).
type PropertyValue struct {
	Name string
	Kind Kind
	// Evaluated is false for an action property evaluated without a step (the initial
	// state).
	Evaluated bool
	// Holds is State in the state (Invariant, Sometimes, Eventually, AlwaysEventually),
	// Step on the step (ActionProperty), or Q (LeadsTo).
	Holds bool
	// P is LeadsTo's P in the state.
	P bool
	// Why is the model's explanation (Explain, ExplainStep) where an invariant or an action
	// property fails, "" elsewhere.
	Why string
}

// Goal is what a Search looks for: a violation of the bound property called Property (a
// state that breaks an invariant, a step that breaks an action property, a fair lasso
// that breaks a liveness property), or, when State is not nil, a state where State holds.
// State reads a state's variables through value (ITF JSON of variable v, in Vars order; the
// slice is valid until the next call) and must be safe for concurrent use.
type Goal struct {
	Property string
	Name     string // what State stands for, for the result's property name ("" : "Goal")
	State    func(value func(v int) []byte) bool
}

// SearchResult is what Search found.
type SearchResult struct {
	Verdict Verdict // Violated: found (Path is set); OK: none is reachable; Incomplete: a limit
	Reason  string
	Stats   Stats
	// Path is the successor index of each step from the start state (Next's order).
	Path []int
	// Loop, for a lasso, is the index in the path's states (0: the start state) the last
	// state goes back to, by successor Back of the last state; -1 otherwise. Stutter is a
	// lasso that stays in its last state forever.
	Loop, Back int
	Stutter    bool
	Witness    string
}

// ErrNoGoal is the error of a Search whose goal names no bound property and has no State.
var ErrNoGoal = errors.New("no such property")

// Stepper returns b as a Stepper.
func (b *bound[S]) Stepper() Stepper { return &stepper[S]{m: b.m, props: b.props} }

type stepper[S any] struct {
	m     Model[S]
	props []Property[S]
}

func (st *stepper[S]) decode(enc []byte) S {
	var s S
	st.m.Decode(enc, &s)
	return s
}

func (st *stepper[S]) Vars() []string        { return st.m.Vars() }
func (st *stepper[S]) ActionKinds() []string { return st.m.ActionKinds() }

func (st *stepper[S]) Actors() []string {
	if ev, ok := any(st.m).(Eventer[S]); ok {
		return ev.Actors()
	}
	return nil
}

func (st *stepper[S]) Bounds() []string {
	if bnd, ok := any(st.m).(Bounded[S]); ok {
		return bnd.Bounds()
	}
	return nil
}

func (st *stepper[S]) Properties() []PropertyInfo {
	out := make([]PropertyInfo, len(st.props))
	for i, p := range st.props {
		out[i] = PropertyInfo{Name: p.Name, Kind: p.Kind}
	}
	return out
}

func (st *stepper[S]) Init() []Step {
	var out []Step
	for _, s := range st.m.Init(nil) {
		out = append(out, Step{State: st.m.Encode(&s, nil)})
	}
	return out
}

func (st *stepper[S]) Next(state []byte) ([]Step, []CutStep) {
	s := st.decode(state)
	bnd, _ := any(st.m).(Bounded[S])
	succ, acts, cut, by := stepsOf(st.m, bnd, &s, nil, nil, nil, nil)
	kinds := st.m.ActionKinds()
	steps := make([]Step, len(succ))
	for k := range succ {
		steps[k] = Step{Action: acts[k], Name: st.m.ActionName(acts[k]), Kind: kinds[st.m.ActionKind(acts[k])],
			State: st.m.Encode(&succ[k], nil)}
	}
	var cuts []CutStep
	if len(cut) > 0 {
		bounds := bnd.Bounds()
		for k, a := range cut {
			c := CutStep{Action: a, Name: st.m.ActionName(a), Kind: kinds[st.m.ActionKind(a)]}
			if by[k] >= 0 && by[k] < len(bounds) {
				c.Bound = bounds[by[k]]
			}
			cuts = append(cuts, c)
		}
	}
	return steps, cuts
}

func (st *stepper[S]) Values(state []byte) []string {
	s := st.decode(state)
	out := make([]string, len(st.m.Vars()))
	var buf []byte
	for v := range out {
		buf = st.m.AppendValue(&s, v, buf[:0])
		out[v] = string(buf)
	}
	return out
}

func (st *stepper[S]) Views(state []byte) string {
	vw, ok := any(st.m).(Viewer[S])
	if !ok {
		return ""
	}
	s := st.decode(state)
	return string(vw.AppendViews(&s, nil))
}

func (st *stepper[S]) Events(from []byte, action uint64, to []byte) string {
	ev, ok := any(st.m).(Eventer[S])
	if !ok {
		return ""
	}
	a, b := st.decode(from), st.decode(to)
	return string(ev.AppendEvents(&a, action, &b, nil))
}

func (st *stepper[S]) Same(a, b []byte) bool {
	if pr, ok := any(st.m).(Projected); ok {
		return string(pr.View(a)) == string(pr.View(b))
	}
	return string(a) == string(b)
}

func (st *stepper[S]) Evaluate(from []byte, action uint64, state []byte) []PropertyValue {
	s := st.decode(state)
	var f S
	if from != nil {
		f = st.decode(from)
	}
	out := make([]PropertyValue, len(st.props))
	for i := range st.props {
		p := &st.props[i]
		v := PropertyValue{Name: p.Name, Kind: p.Kind, Evaluated: true}
		switch p.Kind {
		case ActionProperty:
			if from == nil {
				v.Evaluated = false
				break
			}
			v.Holds = p.Step(&f, action, &s)
			if !v.Holds && p.ExplainStep != nil {
				v.Why = p.ExplainStep(&f, action, &s)
			}
		case LeadsTo:
			v.P, v.Holds = p.P(&s), p.Q(&s)
		default:
			v.Holds = p.State(&s)
			if !v.Holds && p.Kind == Invariant && p.Explain != nil {
				v.Why = p.Explain(&s)
			}
		}
		out[i] = v
	}
	return out
}

func (st *stepper[S]) Search(state []byte, goal Goal, opts Options) SearchResult {
	var props []Property[S]
	switch {
	case goal.State != nil:
		name := goal.Name
		if name == "" {
			name = "Goal"
		}
		vars := len(st.m.Vars())
		props = []Property[S]{{Name: name, Kind: Invariant, State: func(s *S) bool {
			var buf []byte
			value := func(v int) []byte {
				if v < 0 || v >= vars {
					return nil
				}
				buf = st.m.AppendValue(s, v, buf[:0])
				return buf
			}
			return !goal.State(value)
		}}}
	default:
		for _, p := range st.props {
			if p.Name == goal.Property {
				props = []Property[S]{p}
			}
		}
		if props == nil {
			return SearchResult{Verdict: Incomplete, Reason: ErrNoGoal.Error() + ": " + strconv.Quote(goal.Property), Loop: -1}
		}
		if props[0].Kind == Sometimes {
			return SearchResult{Verdict: Incomplete, Reason: "a sometimes property has no violation to search for", Loop: -1}
		}
	}
	opts.Symmetry, opts.Checkpoint, opts.Resume, opts.CheckpointAt = false, nil, nil, nil
	start := st.decode(state)
	res := Check(Model[S](&fromState[S]{Model: st.m, start: start}), props, opts)
	out := SearchResult{Verdict: res.Verdict, Reason: res.Reason, Stats: res.Stats, Loop: -1, Back: -1}
	if res.Verdict != Violated || res.Trace == nil {
		return out
	}
	path, loop, back, err := st.indexes(state, res.Trace)
	if err != nil {
		panic("checker: search from a state: " + err.Error() + nondetHint)
	}
	out.Path, out.Loop, out.Back, out.Stutter, out.Witness = path, loop, back, res.Trace.Stutter, res.Trace.Witness
	return out
}

// indexes maps a trace that starts in state to successor indexes, and its lasso's back step.
func (st *stepper[S]) indexes(state []byte, t *Trace) (path []int, loop, back int, err error) {
	r := replayer[S]{m: st.m, nvars: len(st.m.Vars())}
	cur := st.decode(state)
	states := []S{cur}
	var succ []S
	var acts []uint64
	for i := 1; i < len(t.States); i++ {
		succ, acts = st.m.Next(&cur, succ[:0], acts[:0])
		k, why := r.match(succ, acts, t.States[i].Action, t.States[i].Values)
		if k < 0 {
			return nil, -1, -1, errors.New("step " + itoa(i+1) + ": " + why)
		}
		path = append(path, k)
		cur = succ[k]
		states = append(states, cur)
	}
	loop, back = t.Loop, -1
	if loop >= 0 {
		succ, acts = st.m.Next(&cur, succ[:0], acts[:0])
		k, why := r.match(succ, acts, t.BackAction, t.States[loop].Values)
		if k < 0 {
			return nil, -1, -1, errors.New("back to state " + itoa(loop+1) + ": " + why)
		}
		back = k
	}
	return path, loop, back, nil
}

// fromState is a model whose only initial state is start: a search from a state of the
// model. It keeps the model's bounds and view (an identity view and no cut without them,
// which change nothing), and hides its symmetry, events and views, which a search from a
// state does not use.
type fromState[S any] struct {
	Model[S]
	start S
}

func (m *fromState[S]) Init(buf []S) []S { return append(buf, m.start) }

func (m *fromState[S]) View(enc []byte) []byte {
	if pr, ok := any(m.Model).(Projected); ok {
		return pr.View(enc)
	}
	return enc
}

func (m *fromState[S]) Bounds() []string {
	if bnd, ok := any(m.Model).(Bounded[S]); ok {
		return bnd.Bounds()
	}
	return nil
}

func (m *fromState[S]) NextCut(s *S, succ []S, acts []uint64, cut []uint64, by []int) ([]S, []uint64, []uint64, []int) {
	if bnd, ok := any(m.Model).(Bounded[S]); ok {
		return bnd.NextCut(s, succ, acts, cut, by)
	}
	succ, acts = m.Model.Next(s, succ, acts)
	return succ, acts, cut, by
}
