package checker

// lasso is a liveness counterexample in state indices: the BFS path to start, a path of
// (target, code id) steps to the loop's first state, and the cycle back to it (empty when
// the behaviour ends stuttering there).
type lasso struct {
	start   uint32
	path    []lstep
	cycle   []lstep
	stutter bool
}

type lstep struct {
	target uint32
	code   uint32
}

// lassoTrace replays a lasso into a trace.
func (e *engine[S]) lassoTrace(p *Property[S], l lasso) *Trace {
	prop := p.Name
	prefix := e.pathTo(l.start)
	hops := e.parentHops(prefix)
	for _, s := range append(append([]lstep(nil), l.path...), l.cycle...) {
		hops = append(hops, hop{target: s.target, pos: -1, code: e.codes.codes[s.code]})
	}
	canon, codes := e.canonWalk(prefix[0], hops)
	states, acts := e.actualWalk(prefix[0], canon, codes, -1)
	// Check fairness on the behaviour actually reported, with the fairness the search used.
	r := replayer[S]{m: e.m, nvars: len(e.m.Vars()), bnd: e.bnd}
	n := len(states) - 1
	from, closed, back := n, false, uint64(0)
	if !l.stutter {
		from, closed, back = n-len(l.cycle), true, acts[n-1]
	}
	if !r.fairLoop(states[:n+1-b2i(closed)], acts, from, back, closed, e.fairness) {
		panic("checker: liveness: the reported loop is not fair")
	}
	wf := witnessFair[S]{m: e.m, bnd: e.bnd, fairness: e.fairness}
	if l.stutter {
		t := e.makeTrace(prop, states, acts)
		t.Stutter = true
		t.Witness = lassoWitness(wf, p, states, acts, from, 0, false)
		return t
	}
	t := e.makeTrace(prop, states[:n], acts[:n-1])
	t.Witness = lassoWitness(wf, p, states[:n], acts[:n-1], from, back, true)
	t.Loop = n - len(l.cycle)
	t.BackAction = e.m.ActionName(acts[n-1])
	t.BackKind = kindName(e.m.ActionKinds(), e.m.ActionKind(acts[n-1]))
	if e.ev != nil {
		t.BackEvents = string(e.ev.AppendEvents(&states[n-1], acts[n-1], &states[n], nil))
	}
	return t
}

// bfs searches from src along edges to states with allowed true, for the nearest state with
// goal true (src itself included), and returns the path of steps to it, or ok false (also
// when lc.stop sees a stop request). Its queue is lc.order, free once the components are
// found.
func (lc *liveChecker) bfs(src uint32, allowed, goal func(uint32) bool) ([]lstep, uint32, bool) {
	g := lc.g
	st := lc.newStamp()
	nodes := lc.scc.nodes // index: stamp, low: predecessor
	nodes[src].index = st
	queue, qn := lc.order, 1
	queue[0] = src
	for qi := 0; qi < qn; qi++ {
		if lc.stop.poll() {
			return nil, 0, false
		}
		v := queue[qi]
		if goal(v) {
			k := 0
			for u := v; u != src; u = uint32(nodes[u].low) {
				k++
			}
			path := make([]lstep, k)
			for u := v; u != src; u = uint32(nodes[u].low) {
				k--
				path[k] = lstep{target: u, code: lc.firstCode(uint32(nodes[u].low), u)}
			}
			return path, v, true
		}
		it := g.out(v)
		for w, _, ok := g.next(&it); ok; w, _, ok = g.next(&it) {
			if nodes[w].index != st && allowed(w) {
				nodes[w] = sccNode{index: st, low: int32(v)}
				queue[qn] = w
				qn++
			}
		}
	}
	return nil, 0, false
}

// newStamp returns a stamp that no state's Tarjan index or earlier stamp equals.
func (lc *liveChecker) newStamp() int32 {
	lc.stamp--
	return lc.stamp
}

// firstCode returns the code id of v's first edge to w (the one a search from v takes).
func (lc *liveChecker) firstCode(v, w uint32) uint32 {
	it := lc.g.out(v)
	for t, c, ok := lc.g.next(&it); ok; t, c, ok = lc.g.next(&it) {
		if t == w {
			return c
		}
	}
	panic("checker: liveness: a lasso step has no edge")
}

// lassoFrom builds the lasso from start: the nearest bad state through not-Q states, then
// stuttering there, or a fair cycle in its component. It returns liveViolated with it, or
// liveStopped when lc.stop saw a stop request.
func (lc *liveChecker) lassoFrom(start uint32, notQ func(uint32) bool) (int, lasso) {
	path, b, ok := lc.bfs(start, notQ, func(v uint32) bool { return lc.bad.get(v) })
	if lc.stop.hit {
		return liveStopped, lasso{}
	}
	if !ok {
		panic("checker: liveness: a bad state reachable backwards is not reachable forwards")
	}
	l := lasso{start: start, path: path}
	if lc.mayStutter(b) {
		l.stutter = true
		return liveViolated, l
	}
	l.cycle = lc.fairCycle(b)
	if lc.stop.hit {
		return liveStopped, lasso{}
	}
	return liveViolated, l
}

// fairCycle builds a closed walk from b through b's fair component that satisfies fairness:
// the shortest cycle through b, extended by detours until every weakly fair action enabled
// in all its states and every strongly fair action enabled in one of its states is taken on
// it (or, for a weak one, the walk passes a state where it is disabled). It returns nil
// when lc.stop sees a stop request.
func (lc *liveChecker) fairCycle(b uint32) []lstep {
	g := lc.g
	comp := lc.label[b]
	in := func(v uint32) bool { return lc.label[v] == comp }
	// Shortest cycle through b: one search from b to the nearest state with an edge back.
	edgeTo := func(v uint32) (uint32, bool) {
		it := g.out(v)
		for w, c, ok := g.next(&it); ok; w, c, ok = g.next(&it) {
			if w == b {
				return c, true
			}
		}
		return 0, false
	}
	walk, u, ok := lc.bfs(b, in, func(v uint32) bool { _, ok := edgeTo(v); return ok })
	if lc.stop.hit {
		return nil
	}
	if !ok {
		panic("checker: liveness: a fair component has no cycle through its state")
	}
	code, _ := edgeTo(u)
	walk = append(walk, lstep{target: b, code: code})
	for range len(g.fair) + 1 {
		need, weak := lc.unmet(b, walk)
		if need < 0 {
			return walk
		}
		// Detour: to the nearest state with a need-labelled edge inside the component (or,
		// for a weak need, where it is disabled), through it, and back to b.
		var to []lstep
		var u uint32
		var ok bool
		to, u, ok = lc.bfs(b, in, func(v uint32) bool {
			it := g.out(v)
			has := false
			for w, c, ok := g.next(&it); ok; w, c, ok = g.next(&it) {
				if c == uint32(need) {
					if in(w) {
						return true
					}
					has = true
				}
			}
			clo, chi := lc.cutRange(v)
			for i := clo; i < chi; i++ {
				has = has || g.ccode[i] == uint32(need)
			}
			return weak && !has
		})
		if lc.stop.hit {
			return nil
		}
		if !ok {
			panic("checker: liveness: a fair component has no witness for an action")
		}
		// Take the need-labelled edge if there is one inside.
		it := g.out(u)
		for w, c, ok := g.next(&it); ok; w, c, ok = g.next(&it) {
			if c == uint32(need) && in(w) {
				to = append(to, lstep{target: w, code: c})
				u = w
				break
			}
		}
		back, _, _ := lc.bfs(u, in, func(v uint32) bool { return v == b })
		if lc.stop.hit {
			return nil
		}
		walk = append(walk, to...)
		walk = append(walk, back...)
	}
	panic("checker: liveness: could not build a fair cycle")
}

// unmet returns a fair action code id that the closed walk from b violates fairness of, and
// whether it is weakly fair, or -1 when the walk is fair.
func (lc *liveChecker) unmet(b uint32, walk []lstep) (int, bool) {
	g := lc.g
	st := lc.newStamp()
	nodes := lc.scc.nodes
	states := []uint32{}
	for _, s := range walk {
		if nodes[s.target].index != st {
			nodes[s.target].index = st
			states = append(states, s.target)
		}
	}
	if nodes[b].index != st {
		states = append(states, b)
	}
	var touched []uint32
	for _, s := range walk {
		lc.taken[s.code] = true
		touched = append(touched, s.code)
	}
	defer func() {
		for _, c := range touched {
			lc.taken[c], lc.enCount[c], lc.enStamp[c] = false, 0, 0
		}
	}()
	count := func(v, c uint32) {
		if g.fair[c] == Unfair || lc.enStamp[c] == int32(v)+1 {
			return
		}
		lc.enStamp[c] = int32(v) + 1
		lc.enCount[c]++
		touched = append(touched, c)
	}
	for _, v := range states {
		it := g.out(v)
		for _, c, ok := g.next(&it); ok; _, c, ok = g.next(&it) {
			count(v, c)
		}
		clo, chi := lc.cutRange(v)
		for i := clo; i < chi; i++ {
			count(v, g.ccode[i])
		}
	}
	best := -1
	weak := false
	for _, c := range touched {
		if lc.taken[c] || lc.enCount[c] == 0 {
			continue
		}
		if g.fair[c] == Strong || int(lc.enCount[c]) == len(states) {
			if best < 0 || int(c) < best {
				best, weak = int(c), g.fair[c] == Weak
			}
		}
	}
	return best, weak
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
