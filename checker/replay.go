package checker

import (
	"errors"
	"strconv"
)

// replay checks that t is a behaviour of m and reports the bound properties it violates.
// Liveness properties are judged with the model's default fairness: a lasso violates one
// when its loop is fair and the property fails on the infinite behaviour it stands for.
func replay[S any](m Model[S], props []Property[S], t *Trace) (ReplayReport, error) {
	vars := m.Vars()
	if len(t.States) == 0 {
		return ReplayReport{}, errors.New("trace has no states")
	}
	if len(t.Vars) > 0 {
		if len(t.Vars) != len(vars) {
			return ReplayReport{}, errors.New("trace has " + itoa(len(t.Vars)) + " variables, the model has " + itoa(len(vars)))
		}
		for i := range vars {
			if t.Vars[i] != vars[i] {
				return ReplayReport{}, errors.New("variable " + itoa(i+1) + " is " + strconv.Quote(t.Vars[i]) + ", the model's is " + strconv.Quote(vars[i]))
			}
		}
	}
	for i := range t.States {
		if len(t.States[i].Values) != len(vars) {
			return ReplayReport{}, errors.New("state " + itoa(i+1) + ": has " + itoa(len(t.States[i].Values)) + " values, the model has " + itoa(len(vars)) + " variables")
		}
	}
	r := replayer[S]{m: m, nvars: len(vars)}
	r.bnd, _ = any(m).(Bounded[S])
	inits := m.Init(nil)
	k, why := r.match(inits, nil, "", t.States[0].Values)
	if k < 0 {
		return ReplayReport{}, errors.New("step 1: no initial state matches (" + why + ")")
	}
	states := []S{inits[k]}
	var codes []uint64
	var succ []S
	var acts []uint64
	for i := 1; i < len(t.States); i++ {
		cur := states[i-1]
		succ, acts = m.Next(&cur, succ[:0], acts[:0])
		k, why := r.match(succ, acts, t.States[i].Action, t.States[i].Values)
		if k < 0 {
			return ReplayReport{}, errors.New("step " + itoa(i+1) + ": " + why)
		}
		states = append(states, succ[k])
		codes = append(codes, acts[k])
	}
	loop := t.Loop
	if loop >= len(t.States) {
		return ReplayReport{}, errors.New("loop goes back to state " + itoa(loop+1) + ", the trace has " + itoa(len(t.States)))
	}
	var back uint64
	if loop >= 0 {
		cur := states[len(states)-1]
		succ, acts = m.Next(&cur, succ[:0], acts[:0])
		k, why := r.match(succ, acts, t.BackAction, t.States[loop].Values)
		if k < 0 {
			return ReplayReport{}, errors.New("back to state " + itoa(loop+1) + ": " + why)
		}
		back = acts[k]
	}

	rep := ReplayReport{Steps: len(states)}
	for pi := range props {
		p := &props[pi]
		bad, wit := false, ""
		switch p.Kind {
		case Invariant:
			for i := range states {
				if !p.State(&states[i]) {
					bad, wit = true, stateWitness(p, &states[i], i)
					break
				}
			}
		case ActionProperty:
			for i := 1; i < len(states); i++ {
				if !p.Step(&states[i-1], codes[i-1], &states[i]) {
					bad, wit = true, stepWitness(m, p, &states[i-1], codes[i-1], &states[i], i)
					break
				}
			}
			if !bad && loop >= 0 {
				last := states[len(states)-1]
				to := states[loop]
				if !p.Step(&last, back, &to) {
					bad, wit = true, stepWitness(m, p, &last, back, &to, loop)
				}
			}
		case LeadsTo, Eventually, AlwaysEventually:
			cycleFrom := loop
			if t.Stutter && loop < 0 {
				cycleFrom = len(states) - 1
			}
			if cycleFrom < 0 {
				break
			}
			fair := func(k int) Fairness { return Fairness(m.Fairness(k)) }
			bad = lassoViolates(p, states, cycleFrom) && r.fairLoop(states, codes, cycleFrom, back, loop >= 0, fair)
			if bad {
				wit = lassoWitness(witnessFair[S]{m: m, bnd: r.bnd, fairness: fair}, p, states, codes, cycleFrom, back, loop >= 0)
			}
		}
		if bad {
			rep.Violates = append(rep.Violates, p.Name)
			rep.Witnesses = append(rep.Witnesses, wit)
		}
	}
	return rep, nil
}

// lassoViolates reports whether property p fails on the infinite behaviour
// states[:cycleFrom], then states[cycleFrom:] forever.
func lassoViolates[S any](p *Property[S], states []S, cycleFrom int) bool {
	switch p.Kind {
	case Eventually:
		for i := range states {
			if p.State(&states[i]) {
				return false
			}
		}
		return true
	case AlwaysEventually:
		for i := cycleFrom; i < len(states); i++ {
			if p.State(&states[i]) {
				return false
			}
		}
		return true
	default: // LeadsTo: some P-state from which Q never holds again
		for i := len(states) - 1; i >= 0; i-- {
			if p.Q(&states[i]) {
				return false // Q holds after every P-state before it, and on every lap
			}
			if p.P(&states[i]) {
				return true
			}
		}
		return false
	}
}

type replayer[S any] struct {
	m     Model[S]
	bnd   Bounded[S] // when the model has bounds: cut steps count as enabled for fairness
	nvars int
	buf   []byte
}

// match returns the first candidate (by action name when acts is not nil) whose values are
// want, or -1 and why not.
func (r *replayer[S]) match(cands []S, acts []uint64, action string, want []string) (int, string) {
	bestEq, bestVar, named := -1, -1, 0
	for k := range cands {
		if acts != nil && r.m.ActionName(acts[k]) != action {
			continue
		}
		named++
		eq, first := 0, -1
		for v := 0; v < r.nvars; v++ {
			r.buf = r.m.AppendValue(&cands[k], v, r.buf[:0])
			if string(r.buf) == want[v] {
				eq++
			} else if first < 0 {
				first = v
			}
		}
		if first < 0 {
			return k, ""
		}
		if eq > bestEq {
			bestEq, bestVar = eq, first
		}
	}
	vars := r.m.Vars()
	if acts != nil && named == 0 {
		return -1, "no successor by " + action + " (not enabled)"
	}
	diff := "first difference in variable " + vars[bestVar]
	if acts == nil {
		return -1, diff
	}
	return -1, "no successor by " + action + " matches (" + diff + ")"
}

// fairLoop reports whether the loop states[from:] (closed by the back action, or stuttering
// in the last state when !closed) satisfies the model's fairness: a weakly fair action
// enabled in every state of the loop is taken on it, a strongly fair action enabled in some
// state of the loop is taken on it. Steps to the same state count as stuttering. A step cut
// by a model bound (Bounded) counts as enabled: the loop must be fair without the bound.
func (r *replayer[S]) fairLoop(states []S, codes []uint64, from int, back uint64, closed bool, fairness func(kind int) Fairness) bool {
	var taken []uint64
	if closed {
		for i := from + 1; i < len(states); i++ {
			if !r.same(&states[i-1], &states[i]) {
				taken = append(taken, codes[i-1])
			}
		}
		if !r.same(&states[len(states)-1], &states[from]) {
			taken = append(taken, back)
		}
	}
	type en struct {
		code  uint64
		count int
		fair  Fairness
	}
	var enabled []en
	var succ []S
	var acts, cut []uint64
	var by []int
	for i := from; i < len(states); i++ {
		cur := states[i]
		succ, acts, cut, by = stepsOf(r.m, r.bnd, &cur, succ, acts, cut, by)
		var seen []uint64
		note := func(a uint64) {
			f := fairness(r.m.ActionKind(a))
			if f == Unfair || containsCode(seen, a) {
				return
			}
			seen = append(seen, a)
			j := 0
			for j < len(enabled) && enabled[j].code != a {
				j++
			}
			if j == len(enabled) {
				enabled = append(enabled, en{code: a, fair: f})
			}
			enabled[j].count++
		}
		for k := range succ {
			if !r.same(&cur, &succ[k]) {
				note(acts[k])
			}
		}
		for _, a := range cut {
			note(a)
		}
	}
	n := len(states) - from
	for _, x := range enabled {
		if containsCode(taken, x.code) {
			continue
		}
		if x.fair == Strong || x.count == n {
			return false
		}
	}
	return true
}

func (r *replayer[S]) same(a, b *S) bool {
	ea := r.m.Encode(a, nil)
	eb := r.m.Encode(b, nil)
	return string(ea) == string(eb)
}

func containsCode(s []uint64, c uint64) bool {
	for _, x := range s {
		if x == c {
			return true
		}
	}
	return false
}

// stepsOf is m's successors of s (into the emptied buffers) and, when the model has bounds,
// the steps they cut in s with the bound that cut each (Bounded.NextCut); off the hot path.
func stepsOf[S any](m Model[S], bnd Bounded[S], s *S, succ []S, acts, cut []uint64, by []int) ([]S, []uint64, []uint64, []int) {
	if bnd != nil {
		return bnd.NextCut(s, succ[:0], acts[:0], cut[:0], by[:0])
	}
	succ, acts = m.Next(s, succ[:0], acts[:0])
	return succ, acts, cut[:0], by[:0]
}
