package checker

// lgraph is the recorded state graph for liveness checking: the compressed successor lists
// (states [0, expanded) have their edges recorded; self-loops are left out) and the
// fairness of each action code id. Per-state flags are bitsets.
type lgraph struct {
	n, expanded  int
	es           *edgeStore
	d            []byte // the whole edge stream, in memory
	trunc        bitset // successors not (all) recorded
	fair         []Fairness
	anyFair      bitset // some weakly or strongly fair action is enabled
	ninit        int
	truncByDepth bool
	// Fair steps cut by a model bound, sorted by state: state cutState[k] has the step with
	// code id ccode[k] cut by bound cby[k]; hasCut marks the states that have one.
	cutState []uint32
	ccode    []uint32
	cby      []uint16
	hasCut   bitset
}

// bitset is a set of state indices.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) get(v uint32) bool { return b[v/64]&(1<<(v%64)) != 0 }

func (b bitset) set(v uint32) { b[v/64] |= 1 << (v % 64) }

func (b bitset) clear(v uint32) { b[v/64] &^= 1 << (v % 64) }

// cuts returns the range of v's cut steps in ccode and cby.
func (g *lgraph) cuts(v uint32) (uint32, uint32) {
	if len(g.cutState) == 0 || !g.hasCut.get(v) {
		return 0, 0
	}
	return cutsOf(g.cutState, v)
}

// out returns an iterator over the edges of v (none if v was not expanded).
func (g *lgraph) out(v uint32) edgeIter {
	if int(v) >= g.expanded {
		return edgeIter{}
	}
	return g.es.edges(v)
}

// next returns the next edge of it, or ok false.
func (g *lgraph) next(it *edgeIter) (uint32, uint32, bool) { return it.next(g.d) }

// sccFinder is Tarjan's algorithm with an explicit stack, so that a graph of any depth
// is handled without recursion. It visits only the states whose label equals the label
// of the run.
type sccFinder struct {
	g       *lgraph
	label   []int32
	nodes   []sccNode
	onStack bitset
	stack   []uint32
	call    []sccFrame
}

// sccNode is Tarjan's per-state data, side by side for locality.
type sccNode struct {
	index int32 // 0: not visited in this run
	low   int32
}

type sccFrame struct {
	v  uint32
	it edgeIter
}

func newSCCFinder(g *lgraph, label []int32) *sccFinder {
	return &sccFinder{g: g, label: label, nodes: make([]sccNode, g.n), onStack: newBitset(g.n)}
}

// run finds the strongly connected components of the subgraph induced by the states in
// roots (all of which carry label lab), visiting roots in order, and calls emit with each
// component (a slice valid only during the call). Components come out in reverse
// topological order: an edge leaving a component goes to one emitted before it.
func (f *sccFinder) run(roots []uint32, lab int32, emit func(comp []uint32)) {
	for _, v := range roots {
		f.nodes[v].index = 0
	}
	var counter int32
	g := f.g
	label, nodes, onStack := f.label, f.nodes, f.onStack
	push := func(w uint32) {
		counter++
		nodes[w] = sccNode{index: counter, low: counter}
		f.stack = append(f.stack, w)
		onStack.set(w)
		f.call = append(f.call, sccFrame{v: w, it: g.out(w)})
	}
	for _, r := range roots {
		if nodes[r].index != 0 {
			continue
		}
		push(r)
		for len(f.call) > 0 {
			fr := &f.call[len(f.call)-1]
			v := fr.v
			descended := false
			for {
				w, _, ok := g.next(&fr.it)
				if !ok {
					break
				}
				if label[w] != lab {
					continue
				}
				nw := nodes[w]
				if nw.index == 0 {
					push(w)
					descended = true
					break
				}
				if nw.index < nodes[v].low && onStack.get(w) {
					nodes[v].low = nw.index
				}
			}
			if descended {
				continue
			}
			f.call = f.call[:len(f.call)-1]
			if nodes[v].low == nodes[v].index {
				k := len(f.stack) - 1
				for f.stack[k] != v {
					k--
				}
				comp := f.stack[k:]
				for _, w := range comp {
					onStack.clear(w)
				}
				emit(comp)
				f.stack = f.stack[:k]
			}
			if len(f.call) > 0 {
				u := f.call[len(f.call)-1].v
				if nodes[v].low < nodes[u].low {
					nodes[u].low = nodes[v].low
				}
			}
		}
	}
}
