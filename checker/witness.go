package checker

import "strings"

// A witness is the text printed after a counterexample that says why it is one: the
// model's own explanation of the violated property at the state (or step) that breaks it
// (Property.Explain, Property.ExplainStep) and, for a lasso, what holds forever on the
// loop and which fair steps the loop takes or leaves untaken. It is built only when a
// trace is, never during the search.

// witnessFair is what the loop's fairness analysis of a witness needs: the model, its
// bounds (cut steps count as enabled) and the fairness the search assumed.
type witnessFair[S any] struct {
	m        Model[S]
	bnd      Bounded[S]
	fairness func(kind int) Fairness
}

// stateWitness explains an invariant p violated in states[i] (1-based i+1 as printed).
func stateWitness[S any](p *Property[S], s *S, i int) string {
	w := p.Name + " is false in state " + itoa(i+1)
	if p.Explain != nil {
		if x := p.Explain(s); x != "" {
			w += ": " + x
		}
	}
	return w
}

// stepWitness explains an action property p broken by the step from states[i-1] by a.
func stepWitness[S any](m Model[S], p *Property[S], from *S, a uint64, to *S, i int) string {
	w := p.Name + " is broken by the step into state " + itoa(i+1) + " (" + m.ActionName(a) + ")"
	if p.ExplainStep != nil {
		if x := p.ExplainStep(from, a, to); x != "" {
			w += ": " + x
		}
	}
	return w
}

// deadlockWitness explains a deadlock in states[i].
func deadlockWitness(i int) string {
	return "no action is enabled in state " + itoa(i+1) + " and no step of it was cut by a model bound"
}

// lassoWitness explains liveness property p violated by the behaviour states[:from], then
// states[from:] forever (closed by back, or stuttering in the last state when !closed).
func lassoWitness[S any](wf witnessFair[S], p *Property[S], states []S, acts []uint64, from int, back uint64, closed bool) string {
	var b strings.Builder
	last := len(states)
	loop := "states " + itoa(from+1) + ".." + itoa(last) + " repeat forever"
	if !closed {
		loop = "the behaviour stays in state " + itoa(last) + " forever"
	}
	switch p.Kind {
	case Eventually:
		b.WriteString(p.Name + ": the goal holds in no state; " + loop)
	case AlwaysEventually:
		b.WriteString(p.Name + ": the goal holds in no state of the loop; " + loop)
	default:
		// The first P-state after the last Q-state: from it on Q never holds.
		lastQ := -1
		for i := range states {
			if p.Q(&states[i]) {
				lastQ = i
			}
		}
		k := from
		for i := lastQ + 1; i < len(states); i++ {
			if p.P(&states[i]) {
				k = i
				break
			}
		}
		b.WriteString(p.Name + ": its condition holds in state " + itoa(k+1) + " and its goal in no later state; " + loop)
	}
	if p.Explain != nil {
		if x := p.Explain(&states[from]); x != "" {
			b.WriteString("; in state " + itoa(from+1) + ": " + x)
		}
	}
	b.WriteString(". ")
	b.WriteString(wf.loopSteps(states, acts, from, back, closed))
	return b.String()
}

// loopSteps says which fair steps the loop takes and which fair steps are enabled on it
// but not taken (each disabled in some state of the loop, so weak fairness allows it), or,
// for a stuttering end, that no fair step is enabled there.
func (wf witnessFair[S]) loopSteps(states []S, acts []uint64, from int, back uint64, closed bool) string {
	var taken []uint64
	if closed {
		for i := from + 1; i < len(states); i++ {
			taken = wf.appendFair(taken, acts[i-1])
		}
		taken = wf.appendFair(taken, back)
	}
	var enabled, cutSteps []uint64
	var cutBy []string
	var succ []S
	var as, cut []uint64
	var by []int
	var bounds []string
	if wf.bnd != nil {
		bounds = wf.bnd.Bounds()
	}
	for i := from; i < len(states); i++ {
		cur := states[i]
		succ, as, cut, by = stepsOf(wf.m, wf.bnd, &cur, succ, as, cut, by)
		enc := wf.m.Encode(&cur, nil)
		for k, a := range as {
			if containsCode(taken, a) || string(wf.m.Encode(&succ[k], nil)) == string(enc) {
				continue // taken, or a step that changes nothing (stuttering)
			}
			enabled = wf.appendFair(enabled, a)
		}
		for j, a := range cut {
			if wf.fairness(wf.m.ActionKind(a)) != Unfair && !containsCode(cutSteps, a) {
				cutSteps = append(cutSteps, a)
				cutBy = append(cutBy, bounds[by[j]])
			}
		}
	}
	var b strings.Builder
	if closed {
		b.WriteString("Fair steps taken in the loop: " + wf.names(taken))
		if len(enabled) > 0 {
			b.WriteString("; enabled in some state of the loop but not in all, so weak fairness does not force them: " + wf.names(enabled))
		}
	} else {
		b.WriteString("No fair step that changes the state is enabled in state " + itoa(len(states)))
	}
	if len(cutSteps) > 0 {
		b.WriteString("; cut by a model bound (enabled without it): ")
		for j, a := range cutSteps {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(wf.m.ActionName(a) + " (" + cutBy[j] + ")")
		}
	}
	b.WriteString(".")
	return b.String()
}

func (wf witnessFair[S]) names(codes []uint64) string {
	if len(codes) == 0 {
		return "none"
	}
	var b strings.Builder
	for j, a := range codes {
		if j > 0 {
			b.WriteString(", ")
		}
		b.WriteString(wf.m.ActionName(a))
	}
	return b.String()
}

// appendFair appends c to s when its kind is fair and s does not hold it yet.
func (wf witnessFair[S]) appendFair(s []uint64, c uint64) []uint64 {
	if wf.fairness(wf.m.ActionKind(c)) == Unfair || containsCode(s, c) {
		return s
	}
	return append(s, c)
}
