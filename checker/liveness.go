package checker

import (
	"errors"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// Liveness checking runs after the search, over the recorded graph, one property at a time.
// Every liveness property is reduced to P ~> Q: Eventually Q is (initial state) ~> Q and
// AlwaysEventually Q is TRUE ~> Q. P ~> Q fails when from a reachable P-state where Q does
// not hold a fair behaviour can avoid Q forever, that is, reach through not-Q states either
//   - a strongly connected set of not-Q states containing a fair cycle (found by splitting
//     components the Streett way: a strongly fair action enabled in the component but never
//     taken in it removes the states where it is enabled; a weakly fair action enabled in
//     every state and never taken rules the component out), or
//   - a not-Q state where no fair action is enabled, which may stutter forever.
// Cycles and stuttering are only looked for among fully expanded states; truncated states
// (successors cut by a limit of the engine) can only make the verdict incomplete.
//
// Steps cut by a model bound (Bounded) are enabled in the model without the bound, so
// fairness counts them as enabled and never taken: a component in which a weakly fair
// action is enabled or cut in every state, or a strongly fair one in some state, holds no
// fair cycle, and a state with a fair cut step cannot stutter. That is the strict pass,
// whose lassos are real counterexamples. When it finds none, a lax pass treats cut steps as
// disabled; a lasso it finds exists only because a bound cut a step, and the verdict is
// incomplete, naming the bound.

const (
	liveOK = iota
	liveViolated
	liveIncomplete
	liveStopped // a stop request (Options.Stop) ended the check
)

// stopper polls a stop channel from the liveness phase's loops: every stopEvery calls of
// poll (the first included) it looks at the channel, so that a stop request ends the phase
// after a few thousand states' work. Once it has seen the request, poll reports true.
type stopper struct {
	ch  <-chan struct{}
	n   uint32
	hit bool
	err error // a failure that ends the phase as a stop request would (fail)
	// release, when set, is called every releaseEvery polls: it hands the pages of the
	// graph's mapping back, so that a search that reads it out of order keeps at most
	// releaseEvery states' pages of it resident (the mapping is not counted in the budget).
	release func()
}

// releaseEvery is how many polls (about one per state visited) pass between two calls of
// stopper.release: at most 16 MiB of 4-KiB pages touched, one a state (mapWindow).
const releaseEvery = 1 << 12

// fail ends the phase: poll reports true from now on, and err says why.
func (s *stopper) fail(err error) {
	s.hit = true
	if s.err == nil {
		s.err = err
	}
}

const stopEvery = 1 << 12

func (s *stopper) poll() bool {
	if s.hit {
		return true
	}
	if s.n%stopEvery == 0 {
		select {
		case <-s.ch:
			s.hit = true
		default:
		}
		if s.release != nil && s.n%releaseEvery == 0 {
			s.release()
		}
	}
	s.n++
	return s.hit
}

// now looks at the channel at once (at the start of a piece of work).
func (s *stopper) now() bool {
	s.n = 0
	return s.poll()
}

// errLiveStopped is the error of a liveness phase that a stop request ended.
var errLiveStopped = errors.New("stopped")

// liveGraph assembles the recorded graph, reading its spilled part back; errLiveStopped
// when stop sees a stop request.
func (e *engine[S]) liveGraph(stop *stopper) (*lgraph, error) {
	if stop.now() {
		return nil, errLiveStopped
	}
	if err := e.es.load(); err != nil {
		return nil, err
	}
	g := &lgraph{n: int(e.distinct), expanded: e.es.n, es: &e.es, d: e.es.data,
		truncByDepth: e.opts.MaxDepth > 0}
	g.trunc = newBitset(g.n)
	for v := g.expanded; v < g.n; v++ {
		g.trunc.set(uint32(v))
	}
	for _, v := range e.partial {
		g.trunc.set(v)
	}
	for g.ninit < g.n && e.links.parent(uint32(g.ninit)) == noIndex {
		g.ninit++
	}
	g.fair = make([]Fairness, len(e.codes.codes))
	for id, c := range e.codes.codes {
		g.fair[id] = e.fairness(e.m.ActionKind(c))
	}
	if len(e.cutState) > 0 {
		g.cutState, g.ccode, g.cby = e.cutState, e.cutCode, e.cutBy
		g.hasCut = newBitset(g.n)
		for _, v := range e.cutState {
			g.hasCut.set(v)
		}
	}
	g.anyFair = newBitset(g.n)
	for v := 0; v < g.expanded; v++ {
		if v%(1<<16) == 0 {
			e.es.releaseTo(int(e.es.blk[v/edgeBlock]))
		}
		if stop.poll() {
			e.es.releaseAll()
			return nil, errLiveStopped
		}
		it := g.out(uint32(v))
		for _, c, ok := g.next(&it); ok; _, c, ok = g.next(&it) {
			if g.fair[c] != Unfair {
				g.anyFair.set(uint32(v))
				break
			}
		}
	}
	e.es.releaseAll()
	return g, nil
}

// checkLiveness checks every bound liveness property and returns the first violation, or
// else the first property whose verdict depends on truncated states or on steps cut by a
// model bound.
//
// A stop request (Options.Stop) ends it, with status liveStopped and an incomplete result
// that says where.
func (e *engine[S]) checkLiveness(st Stats) (Result, int) {
	stop := &stopper{ch: e.opts.Stop}
	if mapsFiles {
		stop.release = e.es.releaseAll // a no-op unless the graph is read from its mapping
	}
	stopped := func(where string) (Result, int) {
		if stop.err != nil {
			return Result{Verdict: Incomplete, Stats: st, Reason: stop.err.Error()}, liveIncomplete
		}
		return Result{Verdict: Incomplete, Stats: st, Reason: "stopped during the liveness check" + where}, liveStopped
	}
	e.phase(PhaseLivenessGraph, st)
	if e.needsSetSpill() {
		if err := e.set.spillOut(e.opts.SpillDir); err != nil {
			return Result{Verdict: Incomplete, Stats: st, Reason: err.Error()}, liveIncomplete
		}
		debug.FreeOSMemory() // the tables in memory are garbage now: hand them back before the arrays come
	}
	g, err := e.liveGraph(stop)
	if err == errLiveStopped {
		return stopped("")
	}
	if err != nil {
		return Result{Verdict: Incomplete, Stats: st, Reason: err.Error()}, liveIncomplete
	}
	lc := newLiveChecker(g)
	lc.stop = stop
	if e.spillsStack() {
		cs := &lc.scc.call
		cs.spill, cs.dir, cs.stop = true, e.opts.SpillDir, stop
		defer cs.release()
	}
	incomplete := Result{}
	found := false
	for j, pi := range e.live {
		p := &e.props[pi]
		e.phase(PhaseLiveness+p.Name, st)
		status, lasso := lc.check(p.Kind, e.flags[j], true)
		e.es.releaseAll() // the component search read the stream out of order
		if status == liveStopped {
			return stopped(" of " + p.Name)
		}
		if status == liveViolated {
			return Result{Verdict: Violated, Property: p.Name, Stats: st, Trace: e.lassoTrace(p, lasso)}, liveViolated
		}
		var why []string
		var raise []string
		if len(g.cutState) > 0 {
			lax, l := lc.check(p.Kind, e.flags[j], false)
			e.es.releaseAll()
			if lax == liveStopped {
				return stopped(" of " + p.Name)
			}
			if lax == liveViolated {
				var because string
				because, raise = e.cutCause(lc, l)
				why = append(why, "a fair lasso exists only because "+because+"; raise "+strings.Join(raise, ", "))
			}
		}
		if status == liveIncomplete {
			w := " states left on the queue by a limit were not expanded"
			if g.truncByDepth && len(e.partial) > 0 {
				w = " states at the depth bound were not expanded"
			}
			why = append(why, strconv.Itoa(lc.truncCount)+w)
		}
		if len(why) > 0 && !found {
			found = true
			incomplete = Result{Verdict: Incomplete, Stats: st, Reason: p.Name + ": " + strings.Join(why, "; "), Raise: raise}
		}
	}
	if found {
		return incomplete, liveIncomplete
	}
	return Result{Verdict: OK, Stats: st}, liveOK
}

// cutCause names the cut steps that make lasso l (found by the lax pass) unfair once they
// count as enabled, with the bounds that cut them, and the names of those bounds: for a
// stuttering end every fair step cut in its state; for a cycle every weakly fair step not
// taken on it that is enabled or cut in all its states, and every strongly fair one not
// taken that is cut in one of them. The strict pass found no lasso, so there is one.
func (e *engine[S]) cutCause(lc *liveChecker, l lasso) (string, []string) {
	g := lc.g
	var loop []uint32
	if l.stutter {
		b := l.start
		if len(l.path) > 0 {
			b = l.path[len(l.path)-1].target
		}
		loop = []uint32{b}
	} else {
		for _, s := range l.cycle {
			if !containsIdx(loop, s.target) {
				loop = append(loop, s.target)
			}
		}
	}
	taken := func(c uint32) bool {
		for _, s := range l.cycle {
			if s.code == c {
				return true
			}
		}
		return false
	}
	enabledOrCut := func(v, c uint32) bool {
		it := g.out(v)
		for _, d, ok := g.next(&it); ok; _, d, ok = g.next(&it) {
			if d == c {
				return true
			}
		}
		clo, chi := g.cuts(v)
		for i := clo; i < chi; i++ {
			if g.ccode[i] == c {
				return true
			}
		}
		return false
	}
	type culprit struct {
		code uint32
		by   uint16
	}
	var found []culprit
	for _, v := range loop {
		clo, chi := g.cuts(v)
		for i := clo; i < chi; i++ {
			c := g.ccode[i]
			dup := false
			for _, f := range found {
				dup = dup || f.code == c
			}
			if dup || taken(c) {
				continue
			}
			ok := l.stutter || g.fair[c] == Strong
			if !ok {
				ok = true
				for _, u := range loop {
					ok = ok && enabledOrCut(u, c)
				}
			}
			if ok {
				found = append(found, culprit{code: c, by: g.cby[i]})
			}
		}
	}
	if len(found) == 0 {
		panic("checker: liveness: a lasso of the lax pass has no cut step that makes it unfair")
	}
	bounds := e.bnd.Bounds()
	var parts, raise []string
	for _, f := range found {
		name := e.m.ActionName(e.codes.codes[f.code])
		bound := "bound " + strconv.Itoa(int(f.by))
		if int(f.by) < len(bounds) {
			bound = bounds[f.by]
		}
		key, _, _ := strings.Cut(bound, "=")
		idx := -1
		for i, p := range parts {
			if strings.HasPrefix(p, bound+" cut ") {
				idx = i
			}
		}
		if idx >= 0 {
			parts[idx] += ", " + name
		} else {
			parts = append(parts, bound+" cut "+name)
		}
		if !containsString(raise, key) {
			raise = append(raise, key)
		}
	}
	return strings.Join(parts, "; "), raise
}

func containsIdx(s []uint32, v uint32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// fairness is the fairness of a kind of action: the model's, unless overridden.
func (e *engine[S]) fairness(k int) Fairness {
	if k < 0 || k >= len(e.m.ActionKinds()) {
		return Unfair
	}
	if k < len(e.opts.FairnessOverride) && e.opts.FairnessOverride[k] >= 0 {
		return e.opts.FairnessOverride[k]
	}
	return Fairness(e.m.Fairness(k))
}

// liveChecker holds the per-state scratch arrays shared by the properties (what
// liveBytesPerState adds up): a label (4 bytes), Tarjan's index and low link (8 bytes,
// reused by the lasso searches as their stamp and predecessor), a buffer of a state index
// for each state of F (4 bytes: the searches' queue, and Tarjan's stack), a second one for
// the components split by fairness (4 bytes, grown to the largest such component), the
// call stack (16 bytes a frame, as deep as the search goes), and bitsets. A fair
// component's states keep a label of their own, which no other state has, until the next
// check.
type liveChecker struct {
	g          *lgraph
	label      []int32
	scc        *sccFinder
	order      []uint32 // the searches' queue and Tarjan's stack, as long as the largest F
	aux        []uint32 // the stack of the runs that split a component
	starts     bitset   // where the parts of the component being split start in it
	bad        bitset   // in a fair component, or may stutter
	inF        bitset
	reach      bitset // in a component that reaches a bad state
	nextLab    int32
	stamp      int32 // lasso search stamps, negative (Tarjan's indices are positive)
	truncCount int
	strict     bool // cut steps count as enabled and never taken
	stop       *stopper

	// per code id scratch
	taken   []bool
	seen    []bool
	enCount []int32
	enStamp []int32
	touched []uint32
}

func newLiveChecker(g *lgraph) *liveChecker {
	lc := &liveChecker{g: g, label: make([]int32, g.n), starts: newBitset(g.n),
		bad: newBitset(g.n), inF: newBitset(g.n), reach: newBitset(g.n), nextLab: 2}
	lc.scc = newSCCFinder(g, lc.label)
	lc.stop = &stopper{}
	lc.scc.stop = lc.stop
	nc := len(g.fair)
	lc.taken, lc.seen, lc.enCount, lc.enStamp = make([]bool, nc), make([]bool, nc), make([]int32, nc), make([]int32, nc)
	lc.touched = make([]uint32, 0, nc)
	return lc
}

// scratchBytes is the memory the checker holds: what liveBytesPerState bounds.
func (lc *liveChecker) scratchBytes() int64 {
	b := 4*int64(len(lc.label)+len(lc.order)+len(lc.aux)) + 8*int64(len(lc.scc.nodes)) + lc.scc.call.bytes()
	for _, s := range []bitset{lc.starts, lc.bad, lc.inF, lc.reach, lc.scc.onStack, lc.g.trunc, lc.g.anyFair, lc.g.hasCut} {
		b += 8 * int64(len(s))
	}
	return b
}

// check looks for a fair lasso that violates the property of kind with the given state
// flags; strict says whether cut steps count as enabled (see the top of this file). It
// polls lc.stop in its loops, and returns liveStopped once that sees a stop request.
func (lc *liveChecker) check(kind Kind, flags []byte, strict bool) (int, lasso) {
	g := lc.g
	lc.strict = strict
	lc.scc.stop = lc.stop
	if lc.stop.now() {
		return liveStopped, lasso{}
	}
	notQ := func(v uint32) bool { return flags[v]&2 == 0 }
	isStart := func(v uint32) bool {
		switch kind {
		case LeadsTo:
			return flags[v]&1 != 0 && notQ(v)
		case Eventually:
			return int(v) < g.ninit && notQ(v)
		default:
			return notQ(v)
		}
	}
	// F: the not-Q states reachable from a start state through not-Q states. Only there can
	// a counterexample run; label 1 marks those of F that are fully expanded, where
	// components are searched. The search's queue is the label array, free until then; the
	// buffer of the searches that follow, all within F, is sized to F.
	inF := lc.inF
	clear(lc.bad)
	clear(inF)
	clear(lc.reach)
	queue, qn := lc.label, 0
	for v := 0; v < g.n; v++ {
		if lc.stop.poll() {
			return liveStopped, lasso{}
		}
		if isStart(uint32(v)) {
			inF.set(uint32(v))
			queue[qn] = int32(v)
			qn++
		}
	}
	for qi := 0; qi < qn; qi++ {
		if lc.stop.poll() {
			return liveStopped, lasso{}
		}
		it := g.out(uint32(queue[qi]))
		for w, _, ok := g.next(&it); ok; w, _, ok = g.next(&it) {
			if !inF.get(w) && notQ(w) {
				inF.set(w)
				queue[qn] = int32(w)
				qn++
			}
		}
	}
	clear(lc.label)
	if len(lc.order) < qn {
		lc.order = nil
		lc.order = make([]uint32, qn)
	}
	truncated := 0
	for v := 0; v < g.n; v++ {
		if !inF.get(uint32(v)) {
			continue
		}
		if g.trunc.get(uint32(v)) {
			truncated++
			continue
		}
		lc.label[v] = 1
	}
	// Components of F, in Tarjan's order: every edge leaves a component for one emitted
	// earlier (or stays inside). As each comes out: whether it holds a fair cycle or a state
	// that may stutter; then whether it reaches one (every edge leaving it goes to a component
	// before it, whose states are marked in lc.reach if it reaches one).
	anyBad := false
	clear(lc.scc.nodes)
	lc.scc.run(nil, 1, lc.order[:qn], func(comp []uint32) {
		if len(comp) > 1 {
			lc.findFair(comp)
		}
		reach := false
		for _, v := range comp {
			if lc.mayStutter(v) {
				lc.bad.set(v)
			}
			if lc.bad.get(v) {
				reach = true
			}
			if reach {
				continue
			}
			it := g.out(v)
			for w, _, ok := g.next(&it); ok; w, _, ok = g.next(&it) {
				if lc.reach.get(w) {
					reach = true
					break
				}
			}
		}
		if reach {
			for _, v := range comp {
				lc.reach.set(v)
			}
		}
		anyBad = anyBad || reach
	})
	if lc.stop.hit {
		return liveStopped, lasso{}
	}
	if anyBad {
		// The lasso's steps take the call stack's place.
		lc.scc.call.release()
		// The first start state (in BFS order: a shortest prefix) that reaches a bad state.
		for v := 0; v < g.n; v++ {
			if isStart(uint32(v)) && !g.trunc.get(uint32(v)) && lc.reach.get(uint32(v)) {
				return lc.lassoFrom(uint32(v), notQ)
			}
		}
		// Only through truncated states (a state at the depth bound keeps the edges to the
		// states it found): the first start state from which a bad state is reachable. A
		// state a failed search visited reaches none, so no state is visited twice.
		dead := inF
		clear(dead)
		queue := lc.order
		for v := 0; v < g.n; v++ {
			if !isStart(uint32(v)) || dead.get(uint32(v)) {
				continue
			}
			dead.set(uint32(v))
			queue[0], qn = uint32(v), 1
			for qi := 0; qi < qn; qi++ {
				if lc.stop.poll() {
					return liveStopped, lasso{}
				}
				u := queue[qi]
				if lc.bad.get(u) {
					return lc.lassoFrom(uint32(v), notQ)
				}
				it := g.out(u)
				for w, _, ok := g.next(&it); ok; w, _, ok = g.next(&it) {
					if !dead.get(w) && notQ(w) {
						dead.set(w)
						queue[qn] = w
						qn++
					}
				}
			}
		}
		panic("checker: liveness: no start state reaches the bad component")
	}
	// No violation among expanded states: the verdict depends on the truncated states of F.
	lc.truncCount = truncated
	if truncated > 0 {
		return liveIncomplete, lasso{}
	}
	return liveOK, lasso{}
}

// mayStutter reports whether a behaviour may stay in v forever: no fair step is enabled
// there (nor, in the strict pass, cut).
func (lc *liveChecker) mayStutter(v uint32) bool {
	if lc.g.anyFair.get(v) {
		return false
	}
	if lc.strict {
		if lo, hi := lc.g.cuts(v); hi > lo {
			return false
		}
	}
	return true
}

// cutRange is the range of v's cut steps in the strict pass, and empty in the lax pass.
func (lc *liveChecker) cutRange(v uint32) (uint32, uint32) {
	if !lc.strict {
		return 0, 0
	}
	return lc.g.cuts(v)
}

// findFair splits a strongly connected component of F until each part is fair or ruled
// out, and marks the states of the fair parts bad. It works in place: comp holds the parts
// still to look at, back to back (lc.starts marks where each starts), then the states done
// with, so that comp holds the same states, reordered, when it returns. A part split by
// fairness is searched for components again with lc.aux as the stack, which they are
// copied from back into the part's place.
func (lc *liveChecker) findFair(comp []uint32) {
	g := lc.g
	nextLab := lc.nextLab
	defer func() { lc.nextLab = nextLab }()
	starts := lc.starts
	starts.set(0)
	end := uint32(len(comp)) // comp[:end] holds the parts to look at
	for end > 0 && !lc.stop.poll() {
		at := starts.prevSet(end - 1)
		starts.clear(at)
		part := comp[at:end]
		end = at
		if len(part) == 1 {
			continue // no self-loops are recorded: a single state is no cycle
		}
		lab := nextLab
		nextLab++
		for _, v := range part {
			lc.label[v] = lab
		}
		// Which fair codes are enabled and which are taken inside; then, for the ones not
		// taken only, in how many states each is enabled. (A code found taken is skipped, so
		// the random reads of the edge targets' labels soon stop.)
		touched := lc.touched[:0]
		for _, v := range part {
			it := g.out(v)
			for w, c, ok := g.next(&it); ok; w, c, ok = g.next(&it) {
				if g.fair[c] == Unfair || lc.taken[c] {
					continue
				}
				if !lc.seen[c] {
					lc.seen[c] = true
					touched = append(touched, c)
				}
				if lc.label[w] == lab {
					lc.taken[c] = true
				}
			}
			clo, chi := lc.cutRange(v)
			for i := clo; i < chi; i++ {
				c := g.ccode[i]
				if !lc.taken[c] && !lc.seen[c] {
					lc.seen[c] = true
					touched = append(touched, c)
				}
			}
		}
		lc.touched = touched
		untaken := false
		for _, c := range touched {
			untaken = untaken || !lc.taken[c]
		}
		if untaken {
			for _, v := range part {
				it := g.out(v)
				for _, c, ok := g.next(&it); ok; _, c, ok = g.next(&it) {
					if g.fair[c] != Unfair && !lc.taken[c] && lc.enStamp[c] != int32(v)+1 {
						lc.enStamp[c] = int32(v) + 1
						lc.enCount[c]++
					}
				}
				clo, chi := lc.cutRange(v)
				for i := clo; i < chi; i++ {
					c := g.ccode[i]
					if !lc.taken[c] && lc.enStamp[c] != int32(v)+1 {
						lc.enStamp[c] = int32(v) + 1
						lc.enCount[c]++
					}
				}
			}
		}
		strongMissing, weakMissing := false, false
		for _, c := range touched {
			if lc.taken[c] {
				continue
			}
			if g.fair[c] == Strong {
				strongMissing = true
			} else if int(lc.enCount[c]) == len(part) {
				weakMissing = true
			}
		}
		if strongMissing && !weakMissing {
			// Remove the states where an untaken strongly fair action is enabled: the rest
			// moves to the front of the part, in order.
			rest := 0
			for i, v := range part {
				keep := true
				it := g.out(v)
				for _, c, ok := g.next(&it); ok; _, c, ok = g.next(&it) {
					if g.fair[c] == Strong && !lc.taken[c] {
						keep = false
						break
					}
				}
				clo, chi := lc.cutRange(v)
				for i := clo; i < chi && keep; i++ {
					if c := g.ccode[i]; g.fair[c] == Strong && !lc.taken[c] {
						keep = false
					}
				}
				if keep {
					part[rest], part[i] = part[i], part[rest]
					rest++
				} else {
					lc.label[v] = 0
				}
			}
			if rest > 1 {
				sub := nextLab
				nextLab++
				for _, v := range part[:rest] {
					lc.label[v] = sub
				}
				if had := len(lc.aux); had < rest {
					lc.aux = nil
					lc.aux = make([]uint32, min(max(rest, 2*had), g.n))
				}
				buf := lc.aux[:rest]
				out := 0
				lc.scc.run(part[:rest], sub, buf, func(c []uint32) {
					// The part's components go to buf's front, as parts to look at.
					starts.set(at + uint32(out))
					out += copy(buf[out:], c)
				})
				copy(part, buf)
				end = at + uint32(rest)
			}
		} else if !strongMissing && !weakMissing {
			for _, v := range part {
				lc.bad.set(v) // and its label stays lab, the part's own
			}
		} else {
			for _, v := range part {
				lc.label[v] = 0
			}
		}
		for _, c := range touched {
			lc.taken[c], lc.seen[c], lc.enCount[c], lc.enStamp[c] = false, false, 0, 0
		}
	}
}

// phase reports that the search enters a phase (Options.Phase), with the statistics st and
// the time since the search began.
func (e *engine[S]) phase(name string, st Stats) {
	if e.opts.Phase != nil {
		st.Elapsed = time.Since(e.start)
		e.opts.Phase(name, st)
	}
}
