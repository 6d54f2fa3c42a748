package checker

// hop is one step of a walk through the stored graph: to state target (noIndex: a state
// that was not stored, checked by nothing), either by successor position pos (parent links)
// or, when pos < 0, by the first successor with action code code that reaches target.
type hop struct {
	target uint32
	pos    int
	code   uint64
}

// pathTo returns the BFS path of state indices from an initial state to idx.
func (e *engine[S]) pathTo(idx uint32) []uint32 {
	var rev []uint32
	for i := idx; i != noIndex; i = e.links.parent(i) {
		rev = append(rev, i)
	}
	path := make([]uint32, len(rev))
	for j, i := range rev {
		path[len(rev)-1-j] = i
	}
	return path
}

// parentHops turns a BFS path into hops along parent links.
func (e *engine[S]) parentHops(path []uint32) []hop {
	hops := make([]hop, 0, len(path))
	for _, i := range path[1:] {
		hops = append(hops, hop{target: i, pos: int(e.links.position(i))})
	}
	return hops
}

const nondetHint = "; the model's successors are probably not deterministic (Next must give the same successors in the same order for the same state, and Encode must be canonical)"

// lookupState returns the index of the canonical form of s, or noIndex. In a set without
// values (a safety search) it returns anyIndex for a state stored.
func (e *engine[S]) lookupState(s S, enc []byte) (uint32, uint64, []byte) {
	if e.sym != nil {
		e.sym.Canonicalize(&s)
	}
	enc = e.m.Encode(&s, enc[:0])
	fp := e.fp(enc)
	v, ok := e.set.lookup(fp)
	if e.lookupFP != nil {
		v, ok = e.lookupFP(fp) // a partitioned search's coordinator asks the owner
	}
	switch {
	case !ok || (e.set.vals && v&pendBit != 0):
		return noIndex, fp, enc
	case !e.set.vals:
		return anyIndex, fp, enc
	}
	return v, fp, enc
}

// anyIndex is what lookupState returns for a state stored in a set without values.
const anyIndex = noIndex - 1

// isState reports whether got, from lookupState, can be state want: the same index, or
// any stored state in a set without values (the replay then checks less: that each state
// it reaches was stored).
func isState(got, want uint32) bool {
	return got == want || (got == anyIndex && want != noIndex)
}

// canonWalk replays a walk from initial state start through the stored (canonical) graph,
// checking at every step that the state reached has the expected index. It returns the
// states (canonical, except the last of a hop to noIndex, which is the successor as Next
// gave it) and the action code of each step.
func (e *engine[S]) canonWalk(start uint32, hops []hop) ([]S, []uint64) {
	var enc []byte
	states := make([]S, 0, len(hops)+1)
	init := e.inits[e.links.position(start)]
	if e.sym != nil {
		e.sym.Canonicalize(&init)
	}
	var got uint32
	got, _, enc = e.lookupState(init, enc)
	if !isState(got, start) {
		panic("checker: trace replay: initial state " + itoa(int(e.links.position(start))) + " does not have its index" + nondetHint)
	}
	states = append(states, init)
	codes := make([]uint64, 0, len(hops))
	var succ []S
	var acts []uint64
	for n, h := range hops {
		cur := states[len(states)-1]
		succ, acts = e.m.Next(&cur, succ[:0], acts[:0])
		found := -1
		if h.pos >= 0 {
			if h.pos < len(succ) {
				got, _, enc = e.lookupState(succ[h.pos], enc)
				if h.target == noIndex || isState(got, h.target) {
					found = h.pos
				}
			}
		} else {
			for j := range succ {
				if acts[j] != h.code {
					continue
				}
				got, _, enc = e.lookupState(succ[j], enc)
				if isState(got, h.target) {
					found = j
					break
				}
			}
		}
		if found < 0 {
			panic("checker: trace replay: step " + itoa(n+2) + " does not reach state " + itoa(int(h.target)) + nondetHint)
		}
		t := succ[found]
		if e.sym != nil && h.target != noIndex {
			e.sym.Canonicalize(&t)
		}
		states = append(states, t)
		codes = append(codes, acts[found])
	}
	return states, codes
}

// actualWalk turns a walk through the canonical graph into a real behaviour when symmetry
// is on: from the real initial state it takes, at each step, a successor whose canonical form
// is the next state of the walk (preferring the same action, and for the last step a successor
// that violates action property lastProp when lastProp >= 0). Without symmetry the canonical
// walk is the behaviour.
func (e *engine[S]) actualWalk(start uint32, canon []S, codes []uint64, lastProp int) ([]S, []uint64) {
	return e.actualWalkFrom(int(e.links.position(start)), canon, codes, lastProp)
}

// actualWalkFrom is actualWalk from the initial state at position init of the model's.
func (e *engine[S]) actualWalkFrom(init int, canon []S, codes []uint64, lastProp int) ([]S, []uint64) {
	if e.sym == nil {
		return canon, codes
	}
	var enc []byte
	want := make([]uint64, len(canon))
	for j := range canon {
		c := canon[j]
		e.sym.Canonicalize(&c)
		enc = e.m.Encode(&c, enc[:0])
		want[j] = e.fp(enc)
	}
	states := []S{e.inits[init]}
	var out []uint64
	var succ []S
	var acts []uint64
	for j := 1; j < len(canon); j++ {
		cur := states[len(states)-1]
		succ, acts = e.m.Next(&cur, succ[:0], acts[:0])
		best := e.pickStep(&cur, succ, acts, j == len(canon)-1, lastProp, func(k int) bool {
			c := succ[k]
			e.sym.Canonicalize(&c)
			enc = e.m.Encode(&c, enc[:0])
			return e.fp(enc) == want[j]
		}, func(a uint64) bool { return a == codes[j-1] })
		if best < 0 {
			panic("checker: trace replay: no successor of step " + itoa(j) + " is symmetric to the stored state" + nondetHint)
		}
		states = append(states, succ[best])
		out = append(out, acts[best])
	}
	return states, out
}

// deferringOf is m as a Deferring model when it leaves a choice open in its configuration,
// else nil.
func deferringOf[S any](m Model[S]) Deferring[S] {
	if d, ok := any(m).(Deferring[S]); ok {
		if _, open := d.InitDeferred(nil); open {
			return d
		}
	}
	return nil
}

// initStates is the model's initial states, or with a choice left open (Deferring) those
// of the search under symmetry.
func (e *engine[S]) initStates() []S {
	if e.dfr != nil {
		inits, _ := e.dfr.InitDeferred(nil)
		return inits
	}
	return e.m.Init(nil)
}

// settle turns a behaviour of the search with the model's choice left open into one of the
// model (Deferring.Settle), then checks it step by step: its first state must be initial
// and each later one a successor of the one before by Next (the same encoding). Each
// step's action is taken from Next again: of the successors with that encoding, one of the
// same kind as the open behaviour's step, and for the last step of an action property's
// violation (lastProp >= 0) one that breaks it. Without an open choice it returns its
// arguments.
func (e *engine[S]) settle(states []S, acts []uint64, lastProp int) ([]S, []uint64) {
	if e.dfr == nil {
		return states, acts
	}
	e.dfr.Settle(states)
	var enc, got []byte
	enc = e.m.Encode(&states[0], enc)
	found := false
	for _, s := range e.m.Init(nil) {
		got = e.m.Encode(&s, got[:0])
		found = found || string(got) == string(enc)
	}
	if !found {
		panic("checker: trace settle: the first state is not initial" + settleHint)
	}
	out := make([]uint64, len(acts))
	var succ []S
	var codes []uint64
	for j := 1; j < len(states); j++ {
		succ, codes = e.m.Next(&states[j-1], succ[:0], codes[:0])
		enc = e.m.Encode(&states[j], enc[:0])
		best := e.pickStep(&states[j-1], succ, codes, j == len(states)-1, lastProp, func(k int) bool {
			got = e.m.Encode(&succ[k], got[:0])
			return string(got) == string(enc)
		}, func(a uint64) bool { return e.m.ActionKind(a) == e.m.ActionKind(acts[j-1]) })
		if best < 0 {
			panic("checker: trace settle: step " + itoa(j+1) + " is no step of the model" + settleHint)
		}
		out[j-1] = codes[best]
	}
	return states, out
}

const settleHint = "; the model's Settle (Deferring) does not give a behaviour of the model"

// pickStep returns the index of the successor of cur that a rebuilt trace takes, or -1:
// of those match accepts, one whose action like prefers, and at the last step of an action
// property's violation (last, lastProp >= 0) first one that breaks the property.
func (e *engine[S]) pickStep(cur *S, succ []S, acts []uint64, last bool, lastProp int, match func(k int) bool, like func(a uint64) bool) int {
	best, bestScore := -1, -1
	for k := range succ {
		if !match(k) {
			continue
		}
		score := 0
		if like(acts[k]) {
			score++
		}
		if last && lastProp >= 0 && !e.props[lastProp].Step(cur, acts[k], &succ[k]) {
			score += 2
		}
		if score > bestScore {
			best, bestScore = k, score
		}
	}
	return best
}

// safetyTrace builds the counterexample of a safety violation.
func (e *engine[S]) safetyTrace(v violation) *Trace {
	path := e.pathTo(v.idx)
	hops := e.parentHops(path)
	lastProp := -1
	if v.step {
		hops = append(hops, hop{target: noIndex, pos: int(v.pos)})
		lastProp = v.prop
	}
	canon, codes := e.canonWalk(path[0], hops)
	if v.fp != 0 {
		enc := e.m.Encode(&canon[len(path)-1], nil)
		if e.fp(enc) != v.fp {
			panic("checker: trace replay: state " + itoa(len(path)) + " is not the violating state" + nondetHint)
		}
	}
	states, acts := e.actualWalk(path[0], canon, codes, lastProp)
	states, acts = e.settle(states, acts, lastProp)
	return e.violationTrace(v, states, acts)
}

// makeTrace renders states (and the action codes between them) for the renderers.
func (e *engine[S]) makeTrace(prop string, states []S, acts []uint64) *Trace {
	return makeTrace(e.m, e.ev, prop, states, acts)
}

// makeTrace renders states of m (and the action codes between them: acts[j-1] leads to
// states[j]) for the renderers; ev, when not nil, describes each step's messages, and a
// model that implements Viewer gives each state its views.
func makeTrace[S any](m Model[S], ev Eventer[S], prop string, states []S, acts []uint64) *Trace {
	t := &Trace{Property: prop, Vars: m.Vars(), Loop: -1}
	if ev != nil {
		t.Actors = ev.Actors()
	}
	kinds := m.ActionKinds()
	vw, _ := any(m).(Viewer[S])
	var buf []byte
	for j := range states {
		ts := TraceState{Values: make([]string, len(t.Vars))}
		for v := range t.Vars {
			buf = m.AppendValue(&states[j], v, buf[:0])
			ts.Values[v] = string(buf)
		}
		if vw != nil {
			ts.Views = string(vw.AppendViews(&states[j], nil))
		}
		if j > 0 {
			a := acts[j-1]
			ts.Action = m.ActionName(a)
			ts.Kind = kindName(kinds, m.ActionKind(a))
			if ev != nil {
				ts.Events = string(ev.AppendEvents(&states[j-1], a, &states[j], nil))
			}
		}
		t.States = append(t.States, ts)
	}
	return t
}

func kindName(kinds []string, k int) string {
	if k >= 0 && k < len(kinds) {
		return kinds[k]
	}
	return ""
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// violationTrace is the trace of violation v along states and acts (the path to its state,
// settled), with the witness its kind of violation gives.
func (e *engine[S]) violationTrace(v violation, states []S, acts []uint64) *Trace {
	t := e.makeTrace(e.violName(v), states, acts)
	n := len(states) - 1
	switch {
	case v.prop < 0:
		t.Witness = deadlockWitness(n)
	case v.step:
		t.Witness = stepWitness(e.m, &e.props[v.prop], &states[n-1], acts[n-1], &states[n], n)
	default:
		t.Witness = stateWitness(&e.props[v.prop], &states[n], n)
	}
	return t
}
