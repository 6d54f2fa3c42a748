package checker

import "errors"

// graph explores the whole reachable graph of m sequentially, keeping every state, for
// small models (DOT output). Symmetry is applied when opts.Symmetry is set, unless the model
// would leave a choice open for it (Deferring); every edge is kept, self-loops and edges to
// states seen before included.
func graph[S any](m Model[S], max int, opts Options) (*Graph, error) {
	var sym Symmetric[S]
	if opts.Symmetry {
		sym, _ = any(m).(Symmetric[S])
		if deferringOf(m) != nil {
			sym = nil // its states would differ by a choice that no variable shows
		}
	}
	view := viewOf(m)
	var set fpSet
	var states []S
	var enc []byte
	kinds := m.ActionKinds()
	g := &Graph{Vars: m.Vars()}
	tooMany := errors.New("the reachable graph has more than " + itoa(max) + " states")
	add := func(s S) (int, error) {
		if sym != nil {
			sym.Canonicalize(&s)
		}
		enc = m.Encode(&s, enc[:0])
		fp := fpView(view, enc)
		sh := &set.shards[shardOf(fp)]
		v, inserted := sh.insert(fp, uint32(len(states)), true)
		if !inserted {
			return int(v), nil
		}
		if len(states) >= max {
			return 0, tooMany
		}
		states = append(states, s)
		return int(v), nil
	}
	inits := m.Init(nil)
	for _, s := range inits {
		if _, err := add(s); err != nil {
			return nil, err
		}
	}
	ninit := len(states)
	var succ []S
	var acts []uint64
	for i := 0; i < len(states); i++ {
		cur := states[i]
		succ, acts = m.Next(&cur, succ[:0], acts[:0])
		for j := range succ {
			to, err := add(succ[j])
			if err != nil {
				return nil, err
			}
			g.Edges = append(g.Edges, GraphEdge{From: i, To: to, Action: m.ActionName(acts[j]),
				Kind: kindName(kinds, m.ActionKind(acts[j]))})
		}
	}
	var buf []byte
	for i := range states {
		n := GraphNode{Values: make([]string, len(g.Vars)), Initial: i < ninit}
		for v := range g.Vars {
			buf = m.AppendValue(&states[i], v, buf[:0])
			n.Values[v] = string(buf)
		}
		g.Nodes = append(g.Nodes, n)
	}
	return g, nil
}
