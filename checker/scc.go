package checker

// lgraph is the recorded state graph for liveness checking: successor lists in CSR form
// (states [0, expanded) have their edges recorded; self-loops are left out) and the
// fairness of each action code id.
type lgraph struct {
	n, expanded  int
	eoff         []uint32 // edges of v: [eoff[v-1], eoff[v])
	etgt, ecode  []uint32
	trunc        []bool // successors not (all) recorded
	fair         []Fairness
	anyFair      []bool // some weakly or strongly fair action is enabled
	ninit        int
	truncByDepth bool
	// Fair steps cut by a model bound: those of v are ccode/cby[coff[v]:coff[v+1]]; coff
	// is nil when no fair step was cut.
	coff  []uint32
	ccode []uint32
	cby   []uint16
}

// cuts returns the range of v's cut steps in ccode and cby.
func (g *lgraph) cuts(v uint32) (uint32, uint32) {
	if g.coff == nil || int(v) >= g.expanded {
		return 0, 0
	}
	return g.coff[v], g.coff[v+1]
}

func (g *lgraph) out(v uint32) (uint32, uint32) {
	if int(v) >= g.expanded {
		return 0, 0
	}
	lo := uint32(0)
	if v > 0 {
		lo = g.eoff[v-1]
	}
	return lo, g.eoff[v]
}

// sccFinder is Tarjan's algorithm with an explicit stack, so that a graph of any depth
// is handled without recursion. It visits only the states whose label equals the label
// of the run.
type sccFinder struct {
	g       *lgraph
	label   []int32
	nodes   []sccNode
	onStack []bool
	stack   []uint32
	call    []sccFrame
}

// sccNode is Tarjan's per-state data, side by side for locality.
type sccNode struct {
	index int32 // 0: not visited in this run
	low   int32
}

type sccFrame struct {
	v      uint32
	ei, hi uint32
}

func newSCCFinder(g *lgraph, label []int32) *sccFinder {
	return &sccFinder{g: g, label: label, nodes: make([]sccNode, g.n), onStack: make([]bool, g.n)}
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
	etgt, label, nodes, onStack := g.etgt, f.label, f.nodes, f.onStack
	push := func(w uint32) {
		counter++
		nodes[w] = sccNode{index: counter, low: counter}
		f.stack = append(f.stack, w)
		onStack[w] = true
		lo, hi := g.out(w)
		f.call = append(f.call, sccFrame{v: w, ei: lo, hi: hi})
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
			for fr.ei < fr.hi {
				w := etgt[fr.ei]
				fr.ei++
				if label[w] != lab {
					continue
				}
				nw := nodes[w]
				if nw.index == 0 {
					push(w)
					descended = true
					break
				}
				if nw.index < nodes[v].low && onStack[w] {
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
					onStack[w] = false
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
