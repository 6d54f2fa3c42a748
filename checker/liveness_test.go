package checker

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// TestMutexFairness: the textbook answers. Reference: Lamport, Specifying Systems §8.
func TestMutexFairness(t *testing.T) {
	defer small()()
	tests := []struct {
		name    string
		m       mutex
		verdict Verdict
		stutter bool
	}{
		// No fairness: process 0 may try and then nothing happens forever.
		{"lock-unfair", mutex{fair: allFair(Unfair)}, Violated, true},
		// Weak fairness: process 1 may enter and leave forever while 0 tries; Enter(0) is
		// enabled only when the lock is free, not continuously.
		{"lock-weak", mutex{fair: allFair(Weak)}, Violated, false},
		// Strong fairness: Enter(0) is enabled infinitely often, so it is taken.
		{"lock-strong", mutex{fair: allFair(Strong)}, OK, false},
		// Peterson's algorithm starves without fairness and is live with weak fairness.
		{"peterson-unfair", mutex{peterson: true, fair: allFair(Unfair)}, Violated, true},
		{"peterson-weak", mutex{peterson: true, fair: allFair(Weak)}, OK, false},
	}
	for _, tc := range tests {
		props := []Property[mstate]{enters(0), enters(1)}
		var first *Result
		for _, w := range []int{1, 2, 7} {
			got := Check(tc.m, props, Options{Workers: w})
			if got.Verdict != tc.verdict {
				t.Fatalf("%s w=%d: got %s %q, want %s", tc.name, w, got.Verdict, got.Reason, tc.verdict)
			}
			if first == nil {
				first = &got
			} else if !reflect.DeepEqual(got.Trace, first.Trace) || got.Property != first.Property || got.Stats.Distinct != first.Stats.Distinct {
				t.Errorf("%s w=%d: got a different result than with 1 worker", tc.name, w)
			}
		}
		if tc.verdict != Violated {
			continue
		}
		tr := first.Trace
		if first.Property != "Process0Enters" || tr.Stutter != tc.stutter || (tc.stutter != (tr.Loop < 0)) {
			t.Errorf("%s: got %s stutter %v loop %d, want Process0Enters stutter %v", tc.name, first.Property, tr.Stutter, tr.Loop, tc.stutter)
		}
		// The lasso is a real, fair behaviour of the model violating the property.
		rep, err := Bind[mstate](tc.m, props).Replay(tr)
		if err != nil || !reflect.DeepEqual(rep.Violates, []string{"Process0Enters"}) {
			t.Errorf("%s: replay got %+v, %v; want it to violate Process0Enters", tc.name, rep, err)
		}
		for i, s := range tr.States {
			if i > 0 && s.Values[0] == `{"#tup":[{"#bigint":"3"},{"#bigint":"0"}]}` {
				t.Errorf("%s: state %d has process 0 critical", tc.name, i+1)
			}
		}
	}
}

// TestFairnessOverride: Options.FairnessOverride replaces the model's fairness per kind.
// Reference: issue 4 (fairness overridable in a spec).
func TestFairnessOverride(t *testing.T) {
	m := mutex{fair: allFair(Weak)}
	got := Check(m, []Property[mstate]{enters(0)}, Options{FairnessOverride: []Fairness{-1, -1, Strong, -1}})
	if got.Verdict != OK {
		t.Errorf("Enter strong: got %s, want ok", got.Verdict)
	}
	got = Check(m, []Property[mstate]{enters(0)}, Options{FairnessOverride: []Fairness{-1, -1, Unfair, -1}})
	if got.Verdict != Violated || !got.Trace.Stutter {
		t.Errorf("Enter unfair: got %s, want violated by stuttering", got.Verdict)
	}
}

// TestEventuallyKinds: <>P and []<>P on chains. Reference: TLC's <> and []<> checking.
func TestEventuallyKinds(t *testing.T) {
	defer small()()
	at := func(v uint32) func(*uint32) bool { return func(s *uint32) bool { return *s == v } }
	tests := []struct {
		name    string
		m       chain
		p       Property[uint32]
		verdict Verdict
		loop    int // -2: not a lasso; -1: stuttering
		states  int
	}{
		{"eventually-end", chain{n: 10}, Property[uint32]{Name: "P", Kind: Eventually, State: at(9)}, OK, -2, 0},
		{"eventually-never", chain{n: 10, wrap: true}, Property[uint32]{Name: "P", Kind: Eventually, State: at(10)}, Violated, 0, 10},
		{"always-eventually-cycle", chain{n: 10, wrap: true}, Property[uint32]{Name: "P", Kind: AlwaysEventually, State: at(3)}, OK, -2, 0},
		// Without wrap the end state stutters forever, after 5 has held once.
		{"always-eventually-end", chain{n: 10}, Property[uint32]{Name: "P", Kind: AlwaysEventually, State: at(5)}, Violated, -1, 10},
		// A single state without successors: the initial state stutters forever.
		{"eventually-stuck-initial", chain{n: 1}, Property[uint32]{Name: "P", Kind: Eventually, State: at(5)}, Violated, -1, 1},
		{"leadsto", chain{n: 10, wrap: true}, Property[uint32]{Name: "P", Kind: LeadsTo, P: at(8), Q: at(2)}, OK, -2, 0},
	}
	for _, tc := range tests {
		got := Check(tc.m, []Property[uint32]{tc.p}, Options{Workers: 2})
		if got.Verdict != tc.verdict {
			t.Errorf("%s: got %s %q, want %s", tc.name, got.Verdict, got.Reason, tc.verdict)
			continue
		}
		if tc.verdict != Violated {
			continue
		}
		tr := got.Trace
		loop := tr.Loop
		if tr.Stutter {
			loop = -1
		}
		if loop != tc.loop || len(tr.States) != tc.states {
			t.Errorf("%s: got loop %d with %d states, want %d with %d", tc.name, loop, len(tr.States), tc.loop, tc.states)
		}
		if rep, err := Bind[uint32](tc.m, []Property[uint32]{tc.p}).Replay(tr); err != nil || len(rep.Violates) != 1 {
			t.Errorf("%s: replay got %+v, %v; want a violation of P", tc.name, rep, err)
		}
	}
}

// TestDeepChain: a million-state chain and a million-state cycle: the SCC search and the
// backward searches are iterative. Reference: issue 4 (no recursion that overflows).
func TestDeepChain(t *testing.T) {
	const n = 1000000
	at := func(v uint32) func(*uint32) bool { return func(s *uint32) bool { return *s == v } }
	tests := []struct {
		m chain
		p Property[uint32]
	}{
		{chain{n: n}, Property[uint32]{Name: "ReachesEnd", Kind: Eventually, State: at(n - 1)}},
		{chain{n: n, wrap: true}, Property[uint32]{Name: "ZeroInfinitelyOften", Kind: AlwaysEventually, State: at(0)}},
	}
	for _, tc := range tests {
		got := Check(tc.m, []Property[uint32]{tc.p}, Options{Workers: 2})
		if got.Verdict != OK || got.Stats.Distinct != n || got.Stats.Depth != n {
			t.Errorf("%s: got %s %q, %d states, depth %d; want ok, %d, %d", tc.p.Name, got.Verdict, got.Reason,
				got.Stats.Distinct, got.Stats.Depth, n, n)
		}
	}
	// One SCC of a million states (the wrap cycle, Q never holds) through the SCC search.
	eoff, etgt := make([]uint32, n), make([]uint32, n)
	for v := range n {
		eoff[v] = uint32(v + 1)
		etgt[v] = uint32((v + 1) % n)
	}
	g := testGraph(eoff, etgt, make([]uint32, n))
	label := make([]int32, n)
	roots := make([]uint32, n)
	for v := range n {
		label[v] = 1
		roots[v] = uint32(v)
	}
	sizes := []int{}
	newSCCFinder(g, label).run(roots, 1, make([]uint32, n), func(c []uint32) { sizes = append(sizes, len(c)) })
	if !reflect.DeepEqual(sizes, []int{n}) {
		t.Errorf("got components of sizes %v, want one of %d", sizes[:min(len(sizes), 5)], n)
	}
}

// TestSCCAgainstNaive compares Tarjan's components with reachability both ways on the
// counters graph. Reference: STYLE.md §6 (reference comparisons).
func TestSCCAgainstNaive(t *testing.T) {
	// A graph with several components: v -> 2v mod n, v -> v+1 when v % 5 != 4.
	const n = 300
	var eoff, etgt, ecode []uint32
	for v := range n {
		for _, w := range []int{2 * v % n, v + 1} {
			if w == v+1 && (v%5 == 4 || w >= n) || w == v {
				continue
			}
			etgt = append(etgt, uint32(w))
			ecode = append(ecode, 0)
		}
		eoff = append(eoff, uint32(len(etgt)))
	}
	g := testGraph(eoff, etgt, ecode)
	reach := make([][]bool, n)
	for v := range n {
		reach[v] = make([]bool, n)
		stack := []uint32{uint32(v)}
		reach[v][v] = true
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			it := g.out(u)
			for w, _, ok := g.next(&it); ok; w, _, ok = g.next(&it) {
				if !reach[v][w] {
					reach[v][w] = true
					stack = append(stack, w)
				}
			}
		}
	}
	label := make([]int32, n)
	roots := make([]uint32, n)
	for v := range n {
		label[v], roots[v] = 1, uint32(v)
	}
	comp := make([]int, n)
	k := 0
	newSCCFinder(g, label).run(roots, 1, make([]uint32, n), func(c []uint32) {
		k++
		for _, v := range c {
			comp[v] = k
		}
	})
	for v := range n {
		for w := range n {
			same := reach[v][w] && reach[w][v]
			if same != (comp[v] == comp[w]) {
				t.Fatalf("states %d, %d: got same component %v, want %v", v, w, comp[v] == comp[w], same)
			}
		}
	}
}

// TestTruncatedLiveness: a liveness verdict that depends on states cut by a bound is
// incomplete, never ok; a violation that avoids them is still reported.
// Reference: issue 4 (truncated states).
func TestTruncatedLiveness(t *testing.T) {
	at := func(v uint32) func(*uint32) bool { return func(s *uint32) bool { return *s == v } }
	p := Property[uint32]{Name: "ReachesEnd", Kind: Eventually, State: at(99)}
	got := Check(chain{n: 100}, []Property[uint32]{p}, Options{MaxDepth: 10})
	want := "ReachesEnd: 1 states at the depth bound were not expanded (max depth 10 reached)"
	if got.Verdict != Incomplete || got.Reason != want {
		t.Errorf("depth bound: got %s %q, want incomplete %q", got.Verdict, got.Reason, want)
	}
	got = Check(chain{n: 100}, []Property[uint32]{p}, Options{MaxStates: 50})
	if got.Verdict != Incomplete || !strings.HasPrefix(got.Reason, "ReachesEnd: ") {
		t.Errorf("state limit: got %s %q, want incomplete naming ReachesEnd", got.Verdict, got.Reason)
	}
	// The mutex without fairness stutters in a state of depth 2, expanded with a bound of 3:
	// reported despite the bound (a stutter in a truncated state would not be).
	r := Check(mutex{fair: allFair(Unfair)}, []Property[mstate]{enters(0)}, Options{MaxDepth: 3})
	if r.Verdict != Violated || !r.Trace.Stutter {
		t.Errorf("violation within the bound: got %s %q, want violated by stuttering", r.Verdict, r.Reason)
	}
	// A property the truncated states cannot affect is decided: here ok at the bound.
	q := Property[uint32]{Name: "Early", Kind: LeadsTo, P: at(1), Q: at(3)}
	r2 := Check(chain{n: 100}, []Property[uint32]{q}, Options{MaxDepth: 10})
	if r2.Verdict != Incomplete || r2.Reason != "max depth 10 reached" {
		t.Errorf("independent of the bound: got %s %q, want incomplete for the bound only", r2.Verdict, r2.Reason)
	}
	// Every P-state at the depth bound is truncated, and the fair lasso is reachable only
	// through one of them (by its edges to states already found): still reported, from the
	// truncated start (this panicked with "no start state reaches the bad component").
	back := Property[cstate]{Name: "BackToZero", Kind: LeadsTo,
		P: func(s *cstate) bool { return s.sum() == 3 }, Q: func(s *cstate) bool { return s.sum() == 0 }}
	m := counters{N: 3, fair: Weak}
	r3 := Check(m, []Property[cstate]{back}, Options{MaxDepth: 4})
	if r3.Verdict != Violated || r3.Property != "BackToZero" {
		t.Fatalf("lasso through a truncated state: got %s %q", r3.Verdict, r3.Reason)
	}
	if rep, err := Bind[cstate](m, []Property[cstate]{back}).Replay(r3.Trace); err != nil || len(rep.Violates) != 1 {
		t.Errorf("lasso through a truncated state: replay got %+v, %v; want it to violate BackToZero", rep, err)
	}
}

// TestSymmetryLivenessRefused: symmetry with a liveness property is refused unless the
// model's symmetry is declared sound for liveness. Reference: issue 4 (symmetry with
// liveness: sound or refused).
func TestSymmetryLivenessRefused(t *testing.T) {
	m := symCounters{counters{N: 2}}
	p := Property[cstate]{Name: "Back", Kind: AlwaysEventually, State: func(s *cstate) bool { return s.sum() == 0 }}
	got := Check(m, []Property[cstate]{p}, Options{Symmetry: true})
	want := "symmetry reduction is not sound for liveness property Back; run without --symmetry"
	if got.Verdict != Incomplete || got.Reason != want {
		t.Errorf("got %s %q, want incomplete %q", got.Verdict, got.Reason, want)
	}
	got = Check(m, []Property[cstate]{p}, Options{Symmetry: true, LivenessSymmetrySound: true})
	if got.Verdict != Violated {
		t.Errorf("declared sound: got %s %q, want violated (all actions unfair)", got.Verdict, got.Reason)
	}
}

// evChain is chain with sequence-chart events: each step sends a message from p to q.
type evChain struct{ chain }

func (m evChain) Actors() []string { return []string{"p", "q"} }
func (m evChain) AppendEvents(from *uint32, a uint64, to *uint32, buf []byte) []byte {
	buf = append(buf, `[{"type":"send","actor":"p","peer":"q","msg":"m`...)
	buf = append(buf, itoa(int(*to))...)
	return append(buf, `","label":"Step"}]`...)
}

// TestTraceShape: a lasso trace carries the loop, the back action, its kind and events, the
// variables, the actors and each step's events. Reference: TLC's "Back to state N".
func TestTraceShape(t *testing.T) {
	m := evChain{chain{n: 3, wrap: true}}
	p := Property[uint32]{Name: "Never", Kind: Eventually, State: func(s *uint32) bool { return *s == 7 }}
	got := Check[uint32](m, []Property[uint32]{p}, Options{})
	tr := got.Trace
	if got.Verdict != Violated || tr == nil {
		t.Fatalf("got %s, want violated with a trace", got.Verdict)
	}
	want := &Trace{Property: "Never", Vars: []string{"x"}, Loop: 0, BackAction: "Wrap", BackKind: "Wrap",
		BackEvents: `[{"type":"send","actor":"p","peer":"q","msg":"m0","label":"Step"}]`, Actors: []string{"p", "q"},
		Witness: "Never: the goal holds in no state; states 1..3 repeat forever. Fair steps taken in the loop: Step, Wrap.",
		States: []TraceState{
			{Values: []string{`{"#bigint":"0"}`}},
			{Action: "Step", Kind: "Step", Values: []string{`{"#bigint":"1"}`},
				Events: `[{"type":"send","actor":"p","peer":"q","msg":"m1","label":"Step"}]`},
			{Action: "Step", Kind: "Step", Values: []string{`{"#bigint":"2"}`},
				Events: `[{"type":"send","actor":"p","peer":"q","msg":"m2","label":"Step"}]`},
		}}
	if !reflect.DeepEqual(tr, want) {
		t.Errorf("got %+v, want %+v", tr, want)
	}
}

// TestLivenessWorkers: liveness verdicts and lassos are the same for every worker count, on
// a graph big enough for many chunks and segments. Reference: issue 4.
func TestLivenessWorkers(t *testing.T) {
	defer small()()
	m := counters{N: 3, fair: Weak}
	props := []Property[cstate]{
		{Name: "FullZeroEmpties", Kind: LeadsTo, P: func(s *cstate) bool { return s.C[0] == 3 }, Q: func(s *cstate) bool { return s.C[0] == 0 }},
		{Name: "FullZeroDrains", Kind: LeadsTo, P: func(s *cstate) bool { return s.C[0] == 3 }, Q: func(s *cstate) bool { return s.C[0] < 3 }},
	}
	for _, p := range props {
		var first *Result
		for _, w := range []int{1, 2, 4, 7} {
			got := Check(m, []Property[cstate]{p}, Options{Workers: w})
			if first == nil {
				first = &got
				continue
			}
			if got.Verdict != first.Verdict || !reflect.DeepEqual(got.Trace, first.Trace) || got.Stats.Distinct != first.Stats.Distinct {
				t.Errorf("%s w=%d: got %s, want the 1-worker result %s with the same trace", p.Name, w, got.Verdict, first.Verdict)
			}
		}
		want := map[string]Verdict{"FullZeroEmpties": Violated, "FullZeroDrains": OK}[p.Name]
		if first.Verdict != want {
			t.Errorf("%s: got %s, want %s", p.Name, first.Verdict, want)
		}
		if want == Violated {
			if rep, err := Bind[cstate](m, []Property[cstate]{p}).Replay(first.Trace); err != nil || len(rep.Violates) != 1 {
				t.Errorf("%s: replay got %+v, %v; want a fair lasso violating it", p.Name, rep, err)
			}
		}
	}
}

// TestTruncatedWorkers: at a depth bound that cuts levels spread over many segments, the
// truncated states and the verdict are the same for every worker count; the count in the
// reason is the number of not-Q states at the bound, reachable from a P-state, that have a
// successor beyond it (computed here from the naive search). Reference: issue 4.
func TestTruncatedWorkers(t *testing.T) {
	defer small()()
	m := counters{N: 3, fair: Weak}
	const bound = 5
	oneOne := func(s *cstate) bool { return s.C[0] == 1 && s.C[1] == 1 }
	p := Property[cstate]{Name: "OneOneLeaves", Kind: LeadsTo,
		P: oneOne, Q: func(s *cstate) bool { return !oneOne(s) }}
	// Naive: BFS depths; F within depth <= bound; count the cut states of F.
	ref := naiveBFS(m, nil)
	depth := func(s cstate) int { return ref.depthOf[string(m.Encode(&s, nil))] }
	inF := map[string]bool{}
	var queue []cstate
	for _, s := range ref.order {
		if depth(s) <= bound && p.P(&s) && !p.Q(&s) {
			inF[string(m.Encode(&s, nil))] = true
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if depth(s) >= bound {
			continue // not expanded beyond the bound
		}
		succ, _ := m.Next(&s, nil, nil)
		for _, u := range succ {
			k := string(m.Encode(&u, nil))
			if !inF[k] && !p.Q(&u) {
				inF[k] = true
				queue = append(queue, u)
			}
		}
	}
	cut := 0
	for _, s := range ref.order {
		if !inF[string(m.Encode(&s, nil))] || depth(s) != bound {
			continue
		}
		succ, _ := m.Next(&s, nil, nil)
		for _, u := range succ {
			if depth(u) > bound {
				cut++
				break
			}
		}
	}
	want := "OneOneLeaves: " + itoa(cut) + " states at the depth bound were not expanded (max depth 5 reached)"
	for _, w := range []int{1, 2, 7} {
		got := Check(m, []Property[cstate]{p}, Options{Workers: w, MaxDepth: bound})
		if got.Verdict != Incomplete || got.Reason != want || cut == 0 {
			t.Errorf("w=%d: got %s %q, want incomplete %q", w, got.Verdict, got.Reason, want)
		}
	}
	// Without the bound the property holds (Inc(0) is weakly fair and always enabled there).
	if got := Check(m, []Property[cstate]{p}, Options{Workers: 2}); got.Verdict != OK {
		t.Errorf("no bound: got %s, want ok", got.Verdict)
	}
	// A fair cycle among the states within the bound is reported despite the bound, the same
	// for every worker count.
	q := Property[cstate]{Name: "OneOneEmpties", Kind: LeadsTo, P: oneOne, Q: func(s *cstate) bool { return s.C[0] == 0 }}
	var first *Trace
	for _, w := range []int{1, 2, 7} {
		got := Check(m, []Property[cstate]{q}, Options{Workers: w, MaxDepth: bound})
		if got.Verdict != Violated {
			t.Fatalf("w=%d: got %s %q, want violated", w, got.Verdict, got.Reason)
		}
		if first == nil {
			first = got.Trace
		} else if !reflect.DeepEqual(got.Trace, first) {
			t.Errorf("w=%d: got a different lasso", w)
		}
	}
}

// testGraph is the liveness graph of the CSR arrays (the edges of v are
// etgt/ecode[eoff[v-1]:eoff[v]]), every state expanded, every code weakly fair.
func testGraph(eoff, etgt, ecode []uint32) *lgraph {
	n := len(eoff)
	es := &edgeStore{}
	es.fromArrays(eoff, etgt, ecode)
	nc := 1
	for _, c := range ecode {
		nc = max(nc, int(c)+1)
	}
	fair := make([]Fairness, nc)
	for c := range fair {
		fair[c] = Weak
	}
	g := &lgraph{n: n, expanded: n, es: es, d: es.data, trunc: newBitset(n), fair: fair, anyFair: newBitset(n)}
	for v := range n {
		if v == 0 && eoff[0] > 0 || v > 0 && eoff[v] > eoff[v-1] {
			g.anyFair.set(uint32(v))
		}
	}
	return g
}

// scratch is what the liveness phase allocated on a model: bytes allocated, what liveBytes
// reserves, the checker (its buffers as the last check left them) and the lasso steps.
type scratch struct {
	alloc, bound int64
	lc           *liveChecker
	steps        int
}

// scratchCase searches m for props with the graph in memory, then builds the liveness graph
// and checks every liveness property again (both passes where steps are cut), measuring
// what that allocates, and what the checker holds at most, which must be within liveBytes.
func scratchCase[S any](t *testing.T, m Model[S], props []Property[S]) scratch {
	t.Helper()
	e, res, ok := newEngine(m, props, Options{Workers: 2, SpillBytes: -1})
	if !ok {
		t.Fatalf("got %s %q, want a search", res.Verdict, res.Reason)
	}
	e.run()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g, err := e.liveGraph(&stopper{})
	if err != nil {
		t.Fatal(err)
	}
	r := scratch{lc: newLiveChecker(g), bound: e.liveBytes(e.distinct)}
	held := int64(0)
	for j, pi := range e.live {
		for _, strict := range []bool{true, false} {
			if !strict && len(g.cutState) == 0 {
				continue
			}
			held = max(held, r.lc.scratchBytes())
			_, l := r.lc.check(e.props[pi].Kind, e.flags[j], strict)
			held = max(held, r.lc.scratchBytes())
			r.steps += len(l.path) + len(l.cycle)
		}
	}
	runtime.ReadMemStats(&after)
	if held > r.bound {
		t.Errorf("got %d bytes held by the liveness checker, more than the %d of liveBytes", held, r.bound)
	}
	r.alloc = int64(after.TotalAlloc - before.TotalAlloc)
	return r
}

// TestLivenessScratch: the liveness phase allocates no more than liveBytes reserves for it
// (liveBytesPerState a state), on graphs that take its buffers to their worst case: one
// component of every state, searched as deep (a cycle), a component split by strong
// fairness into large parts (rings), and the counters' dense graph, with a fair cycle and
// without. A lasso's own steps are allowed 128 bytes each besides. Reference: issue 14.
func TestLivenessScratch(t *testing.T) {
	at := func(v uint32) func(*uint32) bool { return func(s *uint32) bool { return *s == v } }
	for _, tc := range []struct {
		name string
		run  func() scratch
		deep bool // the call stack went as deep as the states
		aux  bool // a component was split
	}{
		{"cycle", func() scratch {
			return scratchCase[uint32](t, chain{n: 200000, wrap: true}, []Property[uint32]{{Name: "ZeroInfinitelyOften", Kind: AlwaysEventually, State: at(0)}})
		}, true, false},
		{"rings", func() scratch {
			return scratchCase[uint32](t, rings{k: 200, l: 1000}, []Property[uint32]{{Name: "ReachesSink", Kind: Eventually, State: at(200 * 1000)}})
		}, false, true},
		{"counters-heavy", func() scratch { return scratchCase(t, counters{N: 24, fair: Weak}, heavyBench()) }, false, false},
		{"counters-light", func() scratch { return scratchCase(t, counters{N: 24, fair: Weak}, lightBench()) }, false, false},
	} {
		r := tc.run()
		n := int64(len(r.lc.label))
		t.Logf("%s: %d states, %.1f bytes a state allocated, %d lasso steps", tc.name, n, float64(r.alloc)/float64(n), r.steps)
		if limit := r.bound + 128*int64(r.steps); r.alloc > limit {
			t.Errorf("%s: got %d bytes allocated (%.1f a state), want at most %d", tc.name, r.alloc, float64(r.alloc)/float64(n), limit)
		}
		if deep := r.lc.scc.call.bytes() >= 16*n; deep != tc.deep {
			t.Errorf("%s: got a call stack of %d bytes for %d states, want as deep as the states %v", tc.name, r.lc.scc.call.bytes(), n, tc.deep)
		}
		if split := len(r.lc.aux) > 0; split != tc.aux {
			t.Errorf("%s: got a component split %v, want %v", tc.name, split, tc.aux)
		}
	}
}
