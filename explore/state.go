package explore

import (
	"fmt"
	"slices"

	"kmc/checker"
	"kmc/traces"
)

// stateView is the answer of GET /api/state: one state of a path and everything the page
// shows about it.
type stateView struct {
	Path  []pathEntry `json:"path"`
	At    int         `json:"at"` // the state shown, 1-based
	Lasso *lassoView  `json:"lasso,omitempty"`
	// Changes are the changes into the state, as the text trace prints them.
	Changes    []string       `json:"changes"`
	Vars       []varView      `json:"vars"`
	Views      []traces.Table `json:"views"`
	Properties []propValue    `json:"properties"`
	Enabled    []actionView   `json:"enabled"`
	Disabled   []kindView     `json:"disabled"`
	// Verdict is the whole path judged by the engine (checker's Replay): the properties it
	// violates, a liveness property only when the path is a lasso.
	Verdict []violation `json:"verdict"`
}

type pathEntry struct {
	N      int    `json:"n"`
	Index  int    `json:"index"`
	Action string `json:"action"`
	Kind   string `json:"kind"`
	// Broken names the properties false in the state (an invariant) or broken by the step
	// into it (an action property).
	Broken []string `json:"broken,omitempty"`
}

type lassoView struct {
	Loop    int    `json:"loop"` // 1-based; 0 when the lasso stutters
	Action  string `json:"action,omitempty"`
	Back    int    `json:"back"`
	Stutter bool   `json:"stutter"`
}

type varView struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Changed bool   `json:"changed"`
}

type propValue struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Evaluated bool   `json:"evaluated"`
	Holds     bool   `json:"holds"`
	P         bool   `json:"p"`
	// Status is what the page shows: "holds", "violated" (an invariant or action property
	// false here), "true"/"false" (the state predicate of a liveness or sometimes property,
	// which no single state violates), "-" (not evaluated).
	Status string `json:"status"`
	Why    string `json:"why,omitempty"`
}

// actionView is one enabled step.
type actionView struct {
	Index  int    `json:"index"`
	Action string `json:"action"`
	Kind   string `json:"kind"`
	// Changes are what the step changes, as the text trace prints them.
	Changes []string `json:"changes"`
	// OnPath is true when the path's next step is this one.
	OnPath bool `json:"onPath"`
	// Guards name the guards that shape the step: without one, the step does something else.
	Guards []string `json:"guards,omitempty"`
	// Broken names the properties the step breaks: an action property, or an invariant that
	// holds in the state and is false in the one the step reaches.
	Broken []string `json:"broken,omitempty"`
}

// kindView says why a kind of action has no step, or some of its steps are missing.
type kindView struct {
	Kind    string   `json:"kind"`
	Doc     string   `json:"doc,omitempty"`
	Enabled int      `json:"enabled"` // the kind's enabled steps in the state
	Reasons []reason `json:"reasons"`
}

// reason is one cause: "cut" (a model bound), "guard" (a named guard refuses the steps
// Actions), or "precondition" (none of the kind's steps is possible here).
type reason struct {
	Type    string   `json:"type"`
	Bound   string   `json:"bound,omitempty"`
	Guard   string   `json:"guard,omitempty"`
	Doc     string   `json:"doc,omitempty"`
	Ref     string   `json:"ref,omitempty"`
	Actions []string `json:"actions,omitempty"`
}

type violation struct {
	Property string `json:"property"`
	Witness  string `json:"witness"`
}

// state builds the view of state at (1-based) of the walked path.
func (s *Server) state(w *walked, at int) (*stateView, error) {
	if at < 1 || at > len(w.states) {
		return nil, fmt.Errorf("at: the path has no state %d (it has %d)", at, len(w.states))
	}
	t := s.trace(w, len(w.states), false)
	v := &stateView{At: at, Changes: []string{}, Views: []traces.Table{}, Enabled: []actionView{}, Disabled: []kindView{}, Verdict: []violation{}}
	for i, st := range w.states {
		e := pathEntry{N: i + 1, Index: w.index[i], Action: st.Name, Kind: st.Kind}
		if i == 0 {
			e.Action = "Initial predicate"
		}
		var from []byte
		if i > 0 {
			from = w.states[i-1].State
		}
		e.Broken = broken(s.st.Evaluate(from, st.Action, st.State))
		v.Path = append(v.Path, e)
	}
	if w.back != nil {
		v.Lasso = &lassoView{Loop: w.loop + 1, Action: w.back.Name, Back: w.backIdx}
	} else if w.stut {
		v.Lasso = &lassoView{Stutter: true}
	}
	cur := w.states[at-1]
	for _, c := range traces.TextChanges(t, at-1) {
		v.Changes = append(v.Changes, c.String())
	}
	values := t.States[at-1].Values
	for i, name := range t.Vars {
		v.Vars = append(v.Vars, varView{Name: name, Value: traces.Format(values[i]),
			Changed: at > 1 && traces.Format(t.States[at-2].Values[i]) != traces.Format(values[i])})
	}
	if views := s.st.Views(cur.State); views != "" {
		ts, err := traces.ParseViews(views)
		if err != nil {
			return nil, fmt.Errorf("the model's views of state %d: %w", at, err)
		}
		v.Views = ts
	}
	var from []byte
	if at > 1 {
		from = w.states[at-2].State
	}
	for _, pv := range s.st.Evaluate(from, cur.Action, cur.State) {
		v.Properties = append(v.Properties, propView(pv))
	}
	s.actions(v, w, at, values)
	rep, err := s.run.Replay(t)
	if err != nil {
		return nil, fmt.Errorf("the path is no behaviour of the model: %w", err)
	}
	for i, p := range rep.Violates {
		v.Verdict = append(v.Verdict, violation{Property: p, Witness: rep.Witnesses[i]})
	}
	return v, nil
}

func propView(pv checker.PropertyValue) propValue {
	out := propValue{Name: pv.Name, Kind: string(pv.Kind), Evaluated: pv.Evaluated, Holds: pv.Holds, P: pv.P, Why: pv.Why}
	switch {
	case !pv.Evaluated:
		out.Status = "-"
	case pv.Kind == checker.Invariant || pv.Kind == checker.ActionProperty:
		out.Status = "holds"
		if !pv.Holds {
			out.Status = "violated"
		}
	default:
		out.Status = fmt.Sprint(pv.Holds)
	}
	return out
}

// broken names the invariants false and the action properties broken in pvs.
func broken(pvs []checker.PropertyValue) []string {
	var out []string
	for _, pv := range pvs {
		if pv.Evaluated && !pv.Holds && (pv.Kind == checker.Invariant || pv.Kind == checker.ActionProperty) {
			out = append(out, pv.Name)
		}
	}
	return out
}

// actions fills in the enabled steps of state at and, per kind of action, why it has no
// step (or fewer): the steps a bound cut, those a named guard refuses (found by taking the
// state's successors in the model with that guard off: steps that appear there are refused
// by it; steps whose result differs are shaped by it), else its precondition.
func (s *Server) actions(v *stateView, w *walked, at int, values []string) {
	cur := w.states[at-1]
	steps, cuts := s.st.Next(cur.State)
	next := -1
	if at < len(w.states) {
		next = w.index[at]
	}
	counts := make(map[string]int)
	vars := s.st.Vars()
	holds := s.st.Evaluate(nil, 0, cur.State)
	for k, st := range steps {
		tt := &checker.Trace{Vars: vars, Loop: -1, States: []checker.TraceState{{Values: values}, {Values: s.st.Values(st.State)}}}
		a := actionView{Index: k, Action: st.Name, Kind: st.Kind, Changes: []string{}, OnPath: k == next}
		for i, pv := range s.st.Evaluate(cur.State, st.Action, st.State) {
			if pv.Evaluated && !pv.Holds && (pv.Kind == checker.ActionProperty || pv.Kind == checker.Invariant && holds[i].Holds) {
				a.Broken = append(a.Broken, pv.Name)
			}
		}
		for _, c := range traces.TextChanges(tt, 1) {
			a.Changes = append(a.Changes, c.String())
		}
		v.Enabled = append(v.Enabled, a)
		counts[st.Kind]++
	}
	reasons := make(map[string][]reason)
	for _, c := range cuts {
		rs := reasons[c.Kind]
		if i := slices.IndexFunc(rs, func(r reason) bool { return r.Type == "cut" && r.Bound == c.Bound }); i >= 0 {
			rs[i].Actions = appendNew(rs[i].Actions, c.Name)
			continue
		}
		reasons[c.Kind] = append(rs, reason{Type: "cut", Bound: c.Bound, Actions: []string{c.Name}})
	}
	for _, g := range s.guards {
		gsteps, _ := g.st.Next(cur.State)
		for _, gs := range gsteps {
			if i := slices.IndexFunc(steps, func(x checker.Step) bool { return x.Action == gs.Action }); i >= 0 {
				if !hasStep(steps, gs) {
					for k := range v.Enabled {
						if v.Enabled[k].Action == gs.Name {
							v.Enabled[k].Guards = appendNew(v.Enabled[k].Guards, g.name)
						}
					}
				}
				continue
			}
			rs := reasons[gs.Kind]
			if i := slices.IndexFunc(rs, func(r reason) bool { return r.Type == "guard" && r.Guard == g.name }); i >= 0 {
				rs[i].Actions = appendNew(rs[i].Actions, gs.Name)
				continue
			}
			reasons[gs.Kind] = append(rs, reason{Type: "guard", Guard: g.name, Doc: g.doc, Ref: g.ref, Actions: []string{gs.Name}})
		}
	}
	for _, k := range s.info.Kinds {
		rs := reasons[k.Name]
		if counts[k.Name] > 0 && len(rs) == 0 {
			continue
		}
		if counts[k.Name] == 0 && len(rs) == 0 {
			rs = []reason{{Type: "precondition"}}
		}
		v.Disabled = append(v.Disabled, kindView{Kind: k.Name, Doc: k.Doc, Enabled: counts[k.Name], Reasons: rs})
	}
}

// hasStep reports whether steps has gs: the same action to the same state.
func hasStep(steps []checker.Step, gs checker.Step) bool {
	for _, x := range steps {
		if x.Action == gs.Action && string(x.State) == string(gs.State) {
			return true
		}
	}
	return false
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
