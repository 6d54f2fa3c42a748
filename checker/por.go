package checker

import "math/bits"

// Partial-order reduction of a safety search (Options.POR, contract item 9).
//
// The model declares a fixed set of groups of steps and, per group, the objects its steps
// may read and write (Independent). From the footprints the engine derives, once per
// search, two relations between groups, as LTSmin's guard-based reduction does from its
// dependency matrices (Laarman, Pater, van de Pol, Weber, SPIN 2013):
//   - g and h conflict when one writes what the other reads: steps of groups that do not
//     conflict accord (they commute and neither disables the other);
//   - the enablers of g are the groups that write what g reads: a step of g can become
//     enabled only by one of them (a necessary enabling set, the same in every state); a
//     group that declares guards has a smaller one in a state where a guard is false: the
//     groups that write what that guard reads, or the model's own set for that guard in
//     that state where it declares one (Enabling, below).
//
// In each state the engine computes a strong stubborn set T (Valmari) from each enabled
// group that is invisible to the properties, the closure of:
//
//	an enabled group of T brings in every group it conflicts with;
//	a disabled group of T brings in a necessary enabling set (for one of its false guards,
//	the model's set or the guard's writers: the one with the fewest enabled groups);
//
// and takes the steps of T's enabled groups (its ample set) when T leaves some enabled
// group out, choosing the T with the fewest steps (ties: the smallest key group). The
// reduction is of the model as its bounds leave it: a step a bound cut (Bounded) is no step
// (safety verdicts do not depend on cuts, contract item 5), and a group whose steps are all
// cut is disabled, its necessary enabling set from a false guard (a fault budget used up,
// max_records reached). A state with no step but a cut one is no deadlock; stubborn sets
// keep every state without a step that the full search reaches, so the reduced search
// reports the same deadlocks. These are the conditions
//
//	C0: the ample set is empty only when the state has no step (the key group has one);
//	C1: along any path from the state made of steps outside T, every step accords with the
//	    steps of T and none of T's disabled groups becomes enabled (the closure);
//	C2: a reduced set's steps are invisible to every invariant, action property and
//	    Sometimes property checked (they write nothing the property reads, Property.Reads);
//	    when no action property is checked, the weaker C2' below;
//	C3: the cycle proviso in its breadth-first form: a state whose reduced set reaches a
//	    state that is closed (expanded already: an index below its own in the search's
//	    order) is expanded in full. Every cycle of the reduced graph has such a step (its
//	    indices cannot all grow), so every cycle holds a state expanded in full. A step
//	    back to the state itself is left out (it reaches nothing), and a set must have a
//	    step that is not one (else another set, or the full one): so from every reduced
//	    state a path of the set's other steps leads, in a finite graph, to a state expanded
//	    in full, and no step enabled on the way is ignored forever (the condition safety
//	    needs, Valmari's S). This is the closed-set proviso of
//	    Bošnački, Leue and Lluch-Lafuente ("Partial-order reduction for general state
//	    exploring algorithms", SPIN 2006, STTT 11(1) 2009) instantiated for breadth-first
//	    search, where the closed set is the states below the current one in BFS order, which
//	    the engine knows from the seen set's state indices (a search with the reduction keeps
//	    them, as a liveness search does); it is the BFS counterpart of Holzmann and Peled's
//	    stack proviso that Bošnački and Holzmann describe ("Improving Spin's partial-order
//	    reduction for breadth-first search", SPIN 2005).
//
// C2' (state properties only). When every property checked is an invariant or a Sometimes
// property (a set of states to reach; deadlocks need only C0 and C1), a set may hold visible
// groups, provided one of its invisible groups (its key is one) has a step that is not a
// stuttering step (reducedSet counts only such steps as moves). Proof, by induction on the
// length k of a shortest path s = s0, t1, ..., tk in the full graph from a state s of the reduced graph to
// a state sk in the set (violating the invariant, or satisfying the Sometimes property):
//   - some ti is a step of the set T: let ti be the first; t1..t(i-1) are outside T, so (C1)
//     ti's group was enabled in s, and a step of it from s followed by t1..t(i-1) reaches
//     the state ti reached (the groups accord: both orders reach the same states). That
//     step is in the reduced graph, and from its target sk is k-1 steps away;
//   - no ti is in T: take a, that invisible step; its group is enabled in s and in T, so no
//     ti (outside T) conflicts with it or disables it (C1), and from a(s) the steps
//     t1..tk lead to a(sk), which is in the set as sk is: a
//     writes nothing the property reads. a(s) is a reduced successor of s, still k steps
//     from the set. Following such steps (non-stuttering, so the walk moves) either meets
//     the first case or, the graph being finite, closes a cycle of the reduced graph, which
//     holds a state expanded in full (C3), where the first case holds.
// So a state in the set is reachable in the reduced graph whenever it is in the full graph.
// Nothing in the argument needs T's other steps to be invisible: only one invisible step is
// ever prepended to a path, and a moved step of T leaves the path's last state as it was.
// An action property needs C2 (a moved step may be the violating one), and liveness more
// (below).
//
// Necessary enabling sets the model declares (Enabling). C1 needs, of each disabled group g
// of T, that no path from s of steps outside T gives g a step. Write N(u) for the set of a
// false guard k of g in a state u: the one the model declares in u (E(u)), or else the
// writers of what the guard reads. The closure puts N(s) in T for one false guard, so such a
// path has no step of N(s). CheckIndependence checks, on every reachable state u where
// guard k of g is false, and for every step u -> v of a group outside N(u): the guard is
// false in v, and N(v) is a subset of N(u). Along a path s = u0, u1, ..., un of steps
// outside N(s), by induction on i: the guard is false in ui and N(ui) is a subset of N(s).
// For i = 0 it is N(s) itself; the step ui -> u(i+1) is outside N(s), hence outside N(ui),
// so the guard is false in u(i+1) and N(u(i+1)) is a subset of N(ui). A false guard means no
// step (checked), so g has none along the path: N(s) is a necessary enabling set of g in s.
// A model's set may depend on the state (which message is in flight, which conjunct of the
// guard fails), which is why the check compares the sets of the two ends of each step. The
// check sees the states of the configurations it runs, the same footing as the footprints.
//
// With C0 to C3 the reduced graph has a state violating an invariant, a step violating an
// action property, a state satisfying a Sometimes property and a deadlock whenever the
// full graph has one (Peled; Clarke, Grumberg and Peled, Model Checking, ch. 10; deadlocks
// need only C0 and C1). The reduction composes with symmetry: the stubborn set is computed
// in the class representative, whose steps are the model's, and the proviso is checked on
// the canonical successors, as Emerson, Jha and Peled combine the two ("Combining partial
// order and symmetry reductions", TACAS 1997). A search under symmetry with the model's
// choice left open (Deferring) runs the open model, whose declarations the tests check too.
//
// Liveness is refused: preserving it needs the proviso to keep every fair cycle's steps
// and visibility of each fairness condition, which this reduction does not provide.

// gset is a set of groups.
type gset [MaxGroups / 64]uint64

func (s *gset) add(g int)      { s[g>>6] |= 1 << (g & 63) }
func (s *gset) has(g int) bool { return s[g>>6]&(1<<(g&63)) != 0 }

func (s *gset) or(o *gset) {
	for i := range s {
		s[i] |= o[i]
	}
}

func (s *gset) empty() bool {
	var x uint64
	for _, w := range s {
		x |= w
	}
	return x == 0
}

func (s *gset) andNot(o *gset) gset {
	var r gset
	for i := range s {
		r[i] = s[i] &^ o[i]
	}
	return r
}

func (s *gset) and(o *gset) gset {
	var r gset
	for i := range s {
		r[i] = s[i] & o[i]
	}
	return r
}

func (s *gset) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

func objectsMeet(a, b *Objects) bool {
	return a[0]&b[0]|a[1]&b[1]|a[2]&b[2]|a[3]&b[3] != 0
}

// por is what the engine derived from the model's declarations for one search.
type por[S any] struct {
	ind      Independent[S]
	groups   int
	conflict []gset // per group: the groups it conflicts with (itself included)
	enablers []gset // per group: the groups that write what it reads
	visible  gset   // groups whose steps may change a checked property
	// stateOnly: every property the reduction preserves is a state property (invariants,
	// Sometimes; no action property), so a set may hold visible groups (C2', above).
	stateOnly bool
	// Per group, per guard: the groups that write what the guard reads, and how many.
	guardEn  [][]gset
	guardCnt [][]int
	// The model's own necessary enabling sets per guard (Enabling), or nil; all holds the
	// groups 0..groups-1, which bounds what it declares.
	en  Enabling[S]
	all gset
}

// newPOR derives the relations from m's footprints, with the properties of props that the
// reduction must preserve (invariants, action properties, Sometimes). It returns "" or why
// the declarations cannot be used.
func newPOR[S any](ind Independent[S], props []Property[S]) (*por[S], string) {
	n := ind.Groups()
	if n <= 0 || n > MaxGroups {
		return nil, "the model declares " + itoa(n) + " groups of steps (1.." + itoa(MaxGroups) + ")"
	}
	p := &por[S]{ind: ind, groups: n, conflict: make([]gset, n), enablers: make([]gset, n)}
	p.en, _ = any(ind).(Enabling[S])
	for g := range n {
		p.all.add(g)
	}
	reads, writes := make([]Objects, n), make([]Objects, n)
	for g := range n {
		reads[g], writes[g] = ind.Footprint(g)
		for i := range writes[g] {
			if writes[g][i]&^reads[g][i] != 0 {
				return nil, "group " + itoa(g) + " writes objects it does not read"
			}
		}
	}
	var seen Objects // what the properties read
	all := false
	p.stateOnly = true
	for i := range props {
		if props[i].Kind == ActionProperty {
			p.stateOnly = false
		}
		switch props[i].Kind {
		case Invariant, ActionProperty, Sometimes:
			if props[i].Reads == nil {
				all = true
			} else {
				for k, w := range props[i].Reads {
					seen[k] |= w
				}
			}
		}
	}
	for g := range n {
		for h := range n {
			if objectsMeet(&writes[g], &reads[h]) || objectsMeet(&reads[g], &writes[h]) {
				p.conflict[g].add(h)
			}
			if objectsMeet(&writes[h], &reads[g]) {
				p.enablers[g].add(h)
			}
		}
		if all || objectsMeet(&writes[g], &seen) {
			p.visible.add(g)
		}
	}
	p.guardEn, p.guardCnt = make([][]gset, n), make([][]int, n)
	for g := range n {
		k := ind.Guards(g)
		if k < 0 || k > MaxGuards {
			return nil, "group " + itoa(g) + " declares " + itoa(k) + " guards (0.." + itoa(MaxGuards) + ")"
		}
		p.guardEn[g], p.guardCnt[g] = make([]gset, k), make([]int, k)
		for j := range k {
			r := ind.GuardReads(g, j)
			for h := range n {
				if objectsMeet(&writes[h], &r) {
					p.guardEn[g][j].add(h)
					p.guardCnt[g][j]++
				}
			}
		}
	}
	return p, ""
}

// necessary stores in dst a necessary enabling set of group g, which has no step in s (decl
// is scratch): for one of its false guards (any false guard's is one: the guard must turn
// true first), the set the model declares for it in s (Enabling), or else the writers of
// what it reads; or, when no guard is false, the writers of what g reads. Of the false guards it takes the one
// whose set has the fewest groups enabled in s (en), then the fewest groups: enabled groups
// are what make a stubborn set large (each brings in what it conflicts with), disabled ones
// bring in only their own enabling sets.
func (p *por[S]) necessary(s *S, g int, en, dst, decl *gset) {
	best, bestEn, bestCnt := -1, 0, 0
	for k := range p.guardEn[g] {
		if p.ind.Guard(s, g, k) {
			continue
		}
		set, cnt := &p.guardEn[g][k], p.guardCnt[g][k]
		if p.en != nil {
			*decl = gset{}
			if p.en.GuardEnablers(s, g, k, (*Groups)(decl)) {
				*decl = decl.and(&p.all)
				set, cnt = decl, decl.count()
			}
		}
		ek := set.and(en)
		n := ek.count()
		if best < 0 || n < bestEn || n == bestEn && cnt < bestCnt {
			best, bestEn, bestCnt = k, n, cnt
			*dst = *set
		}
	}
	if best < 0 {
		*dst = p.enablers[g]
	}
}

// porBuf is a worker's scratch for the reduction, reused from state to state.
type porBuf struct {
	en    gset  // groups with a step
	steps []int // per group: its steps in the state (counted only for enabled groups)
	grp   []int // per successor: its group
	keep  []int // the successors of the chosen set, in Next's order
	kept  int   // how many of them joined the batch (stuttering steps do not)
	keys  gset  // the chosen set's enabled groups
	noKey gset  // groups not to start a set from (their steps only stutter)
	retry bool  // stubborn is called again for the same state (noKey stands)
	// The necessary enabling set chosen for each disabled group in this state, once
	// computed (nesOf), and which are computed.
	nes     []gset
	nesDone gset
	decl    gset // scratch for a set the model declares (Enabling)
	// The kept successors' canonical encodings, fingerprints and class sizes, computed for
	// the proviso before they join the batch.
	encs  []byte
	ends  []uint32
	fps   []uint64
	orbit []uint32
}

// stubborn chooses the reduced set of the current state, whose steps are w.succ and w.acts:
// it fills w.pb.keep with the positions of its steps and
// reports true, or reports false when the state is to be expanded in full.
func (w *worker[S]) stubborn() bool {
	p, b := w.e.por, &w.pb
	if len(w.succ) == 0 {
		return false
	}
	if !b.retry {
		b.noKey = gset{}
	}
	b.nesDone = gset{}
	if len(b.nes) < p.groups {
		b.nes = make([]gset, p.groups)
	}
	if cap(b.steps) < p.groups {
		b.steps = make([]int, p.groups)
	}
	b.steps = b.steps[:p.groups]
	b.en = gset{}
	b.grp = b.grp[:0]
	for _, a := range w.acts {
		g := p.ind.Group(a)
		if g < 0 || g >= p.groups {
			panic("checker: partial-order reduction: action " + w.e.m.ActionName(a) + " has group " + itoa(g) + " outside 0.." + itoa(p.groups-1))
		}
		if !b.en.has(g) {
			b.en.add(g)
			b.steps[g] = 0
		}
		b.steps[g]++
		b.grp = append(b.grp, g)
	}
	enabled := b.en
	if enabled.count() <= 1 {
		return false
	}
	best, bestSteps := gset{}, len(w.succ)
	for k := range enabled {
		for word := b.en[k] &^ p.visible[k] &^ b.noKey[k]; word != 0; word &= word - 1 {
			key := k*64 + bits.TrailingZeros64(word)
			t, steps, ok := w.closure(key, &enabled, bestSteps)
			if ok && steps < bestSteps {
				best, bestSteps = t, steps
			}
			if bestSteps == 1 {
				break // no set is smaller
			}
		}
	}
	if bestSteps == len(w.succ) {
		return false
	}
	b.keep = b.keep[:0]
	b.keys = best.and(&b.en)
	for i, g := range b.grp {
		if best.has(g) {
			b.keep = append(b.keep, i)
		}
	}
	return true
}

// closure is the stubborn set from key group key in the current state (enabled: the groups
// with a step), with the number of steps it takes, or false when it holds a
// visible group with a step (unless the properties are state properties only: C2'), every
// enabled group, or no fewer steps than limit.
func (w *worker[S]) closure(key int, enabled *gset, limit int) (gset, int, bool) {
	p, b := w.e.por, &w.pb
	var t, done gset
	t.add(key)
	for {
		todo := t.andNot(&done)
		if todo.empty() {
			break
		}
		for k := range todo {
			for word := todo[k]; word != 0; word &= word - 1 {
				g := k*64 + bits.TrailingZeros64(word)
				done.add(g)
				switch {
				case enabled.has(g):
					t.or(&p.conflict[g])
				case b.nesDone.has(g):
					t.or(&b.nes[g])
				default:
					p.necessary(&w.cur, g, &b.en, &b.nes[g], &b.decl)
					b.nesDone.add(g)
					t.or(&b.nes[g])
				}
			}
		}
		in := t.and(&b.en)
		if vis := in.and(&p.visible); !vis.empty() && !p.stateOnly {
			return t, 0, false
		}
		if rest := enabled.andNot(&t); rest.empty() {
			return t, 0, false
		}
		steps := 0
		for k := range in {
			for word := in[k]; word != 0; word &= word - 1 {
				steps += b.steps[k*64+bits.TrailingZeros64(word)]
			}
		}
		if steps >= limit {
			return t, 0, false
		}
	}
	steps := 0
	in := t.and(&b.en)
	for k := range in {
		for word := in[k]; word != 0; word &= word - 1 {
			steps += b.steps[k*64+bits.TrailingZeros64(word)]
		}
	}
	return t, steps, true
}
