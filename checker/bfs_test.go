package checker

import (
	"reflect"
	"strings"
	"testing"
)

func sumIs(n int) Property[cstate] {
	return Property[cstate]{Name: "SumNot" + itoa(n), Kind: Invariant,
		State: func(s *cstate) bool { return s.sum() != n }}
}

// TestAgainstNaive compares distinct states, states generated and depth with a map-based
// search. Reference: TLC's statistics (states generated, distinct states, depth).
func TestAgainstNaive(t *testing.T) {
	defer small()()
	tests := []struct {
		name string
		m    Model[cstate]
		sym  bool
	}{
		{"box3", counters{N: 3}, false},
		{"box5-nomove", counters{N: 5, noMove: true}, false},
		{"dag4", counters{N: 4, noDec: true, noMove: true}, false},
		{"box4-sym", symCounters{counters{N: 4}}, true},
	}
	for _, tc := range tests {
		for _, w := range []int{1, 2, 4, 7} {
			var canon func(*cstate)
			if tc.sym {
				canon = symCounters{}.Canonicalize
			}
			want := naiveBFS(tc.m, canon)
			got := Check(tc.m, nil, Options{Workers: w, Symmetry: tc.sym})
			if got.Verdict != OK {
				t.Fatalf("%s w=%d: got verdict %s (%s), want ok", tc.name, w, got.Verdict, got.Reason)
			}
			if got.Stats.Distinct != want.distinct || got.Stats.Generated != want.generated || got.Stats.Depth != want.depth {
				t.Errorf("%s w=%d: got distinct %d generated %d depth %d, want %d %d %d", tc.name, w,
					got.Stats.Distinct, got.Stats.Generated, got.Stats.Depth, want.distinct, want.generated, want.depth)
			}
			if got.Stats.Queue != 0 || got.Stats.Workers != w {
				t.Errorf("%s w=%d: got queue %d workers %d, want 0 %d", tc.name, w, got.Stats.Queue, got.Stats.Workers, w)
			}
		}
	}
}

// TestPlantedInvariant checks that a planted violation yields a shortest trace, the same for
// every worker count. Reference: TLC's shortest counterexamples from breadth-first search.
func TestPlantedInvariant(t *testing.T) {
	defer small()()
	m := counters{N: 3}
	ref := naiveBFS(m, nil)
	for _, target := range []int{0, 1, 5, 9, 12} {
		wantLen := 1 << 30
		for k, d := range ref.depthOf {
			var s cstate
			m.Decode([]byte(k), &s)
			if s.sum() == target && d < wantLen {
				wantLen = d
			}
		}
		var first *Result
		for _, w := range []int{1, 2, 4, 7} {
			got := Check(m, []Property[cstate]{sumIs(target)}, Options{Workers: w})
			if got.Verdict != Violated || got.Property != sumIs(target).Name {
				t.Fatalf("sum %d w=%d: got %s %q, want violated %s", target, w, got.Verdict, got.Property, sumIs(target).Name)
			}
			tr := got.Trace
			if len(tr.States) != wantLen {
				t.Errorf("sum %d w=%d: got trace of %d states, want %d", target, w, len(tr.States), wantLen)
			}
			if tr.Loop != -1 || tr.States[0].Action != "" {
				t.Errorf("sum %d w=%d: got loop %d first action %q, want -1 and none", target, w, tr.Loop, tr.States[0].Action)
			}
			if first == nil {
				first = &got
				continue
			}
			if !reflect.DeepEqual(got.Trace, first.Trace) || got.Stats.Distinct != first.Stats.Distinct ||
				got.Stats.Generated != first.Stats.Generated || got.Stats.Depth != first.Stats.Depth {
				t.Errorf("sum %d w=%d: got %+v, want the same as with 1 worker %+v", target, w, got.Stats, first.Stats)
			}
		}
		// The trace is a real behaviour and it violates the property.
		r := Bind[cstate](m, []Property[cstate]{sumIs(target)})
		rep, err := r.Replay(first.Trace)
		if err != nil || rep.Steps != wantLen || !reflect.DeepEqual(rep.Violates, []string{sumIs(target).Name}) {
			t.Errorf("sum %d: replay got %+v, %v; want %d steps violating %s", target, rep, err, wantLen, sumIs(target).Name)
		}
	}
}

// TestActionProperty checks a planted step violation: the trace ends with the violating
// step. Reference: TLC action properties ([][A]_vars).
func TestActionProperty(t *testing.T) {
	defer small()()
	m := counters{N: 3}
	prop := Property[cstate]{Name: "NoMoveOutOfThreeAt2", Kind: ActionProperty,
		Step: func(from *cstate, a uint64, to *cstate) bool {
			return !(a>>8 == kMove && a>>4&15 == 3 && from.C[3] == 2)
		}}
	// Shortest: Inc(3) twice (3 states) then the move: 4 states.
	var first *Trace
	for _, w := range []int{1, 2, 7} {
		got := Check(m, []Property[cstate]{prop}, Options{Workers: w})
		if got.Verdict != Violated || got.Property != prop.Name {
			t.Fatalf("w=%d: got %s %q, want violated", w, got.Verdict, got.Property)
		}
		tr := got.Trace
		if len(tr.States) != 4 || tr.States[3].Action != "Move(3,0)" {
			t.Errorf("w=%d: got %d states ending %q, want 4 ending Move(3,0)", w, len(tr.States), tr.States[len(tr.States)-1].Action)
		}
		if first == nil {
			first = tr
		} else if !reflect.DeepEqual(tr, first) {
			t.Errorf("w=%d: got a different trace", w)
		}
	}
}

// TestInvariantBeforeStep checks that in one level a state violation (shorter trace) wins
// over a step violation from an earlier state. Reference: TLC (invariants before actions).
func TestInvariantBeforeStep(t *testing.T) {
	defer small()()
	m := counters{N: 3}
	step := Property[cstate]{Name: "NoInc0", Kind: ActionProperty,
		Step: func(from *cstate, a uint64, to *cstate) bool { return a != kInc<<8 }}
	inv := Property[cstate]{Name: "C3Not1", Kind: Invariant,
		State: func(s *cstate) bool { return s.C[3] != 1 }}
	got := Check(m, []Property[cstate]{step, inv}, Options{Workers: 2})
	// Depth 1: Inc(0) from the initial state violates the step property (trace of 2 states);
	// C3Not1 fails first at depth 2 (also 2 states); equal length: the earlier level wins.
	if got.Property != "NoInc0" || len(got.Trace.States) != 2 {
		t.Errorf("got %s with %d states, want NoInc0 with 2", got.Property, len(got.Trace.States))
	}
	step.Step = func(from *cstate, a uint64, to *cstate) bool { return !(a == kInc<<8|1<<4 && from.C[3] == 1) }
	got = Check(m, []Property[cstate]{step, inv}, Options{Workers: 2})
	if got.Property != "C3Not1" || len(got.Trace.States) != 2 {
		t.Errorf("got %s with %d states, want C3Not1 with 2", got.Property, len(got.Trace.States))
	}
}

// TestDeadlock: a DAG's far corner has no successors. Reference: TLC's deadlock check.
func TestDeadlock(t *testing.T) {
	defer small()()
	m := counters{N: 2, noDec: true, noMove: true}
	got := Check(m, nil, Options{Workers: 2, Deadlock: true})
	if got.Verdict != Violated || got.Property != "Deadlock" || len(got.Trace.States) != 9 {
		t.Fatalf("got %s %q, want violated Deadlock with 9 states", got.Verdict, got.Property)
	}
	last := got.Trace.States[8].Values
	for v := range last {
		if last[v] != `{"#bigint":"2"}` {
			t.Errorf("last state: got %s = %s, want 2", m.Vars()[v], last[v])
		}
	}
	if got := Check(m, nil, Options{Workers: 2}); got.Verdict != OK {
		t.Errorf("without deadlock check: got %s, want ok", got.Verdict)
	}
	if got := Check(counters{N: 2}, nil, Options{Deadlock: true}); got.Verdict != OK {
		t.Errorf("with Dec: got %s, want ok", got.Verdict)
	}
}

// TestSometimes: a Sometimes property with a witness is ok; without one it is violated as
// vacuous, without a trace. Reference: issue 2 (Sometimes catches vacuous specs).
func TestSometimes(t *testing.T) {
	m := counters{N: 3}
	tests := []struct {
		target  int
		verdict Verdict
	}{{12, OK}, {13, Violated}}
	for _, tc := range tests {
		p := Property[cstate]{Name: "SumReaches", Kind: Sometimes,
			State: func(s *cstate) bool { return s.sum() == tc.target }}
		got := Check(m, []Property[cstate]{p}, Options{Workers: 2})
		if got.Verdict != tc.verdict {
			t.Errorf("sum %d: got %s, want %s", tc.target, got.Verdict, tc.verdict)
		}
		if tc.verdict == Violated && (got.Property != "SumReaches" || !strings.HasPrefix(got.Reason, "vacuous") || got.Trace != nil) {
			t.Errorf("sum %d: got %q %q %v, want SumReaches, vacuous, no trace", tc.target, got.Property, got.Reason, got.Trace)
		}
	}
}

// TestLimits: each limit stops the search with verdict incomplete, the limit in the reason
// and partial statistics. Reference: issue 2 (limits stop cleanly, exit 3).
func TestLimits(t *testing.T) {
	defer small()()
	m := counters{N: 4}
	ref := naiveBFS(m, nil)
	within := func(d int) int64 {
		n := int64(0)
		for _, x := range ref.depthOf {
			if x <= d {
				n++
			}
		}
		return n
	}
	stop := make(chan struct{})
	close(stop)
	tests := []struct {
		name     string
		opts     Options
		reason   string
		distinct int64 // -1: only less than complete
		depth    int
	}{
		{"max-states", Options{MaxStates: 100}, "max states 100 reached", 100, -1},
		{"max-depth", Options{MaxDepth: 3}, "max depth 3 reached", within(3), 3},
		{"time", Options{Time: 1}, "time 1ns reached", 1, 1},
		{"memory", Options{MemoryBytes: 1}, "memory 1 bytes reached", 1, 1},
		{"stop", Options{Stop: stop}, "stopped", 1, 1},
	}
	for _, tc := range tests {
		for _, w := range []int{1, 3} {
			tc.opts.Workers = w
			got := Check(m, nil, tc.opts)
			if got.Verdict != Incomplete || got.Reason != tc.reason {
				t.Errorf("%s w=%d: got %s %q, want incomplete %q", tc.name, w, got.Verdict, got.Reason, tc.reason)
			}
			if got.Stats.Distinct != tc.distinct {
				t.Errorf("%s w=%d: got distinct %d, want %d", tc.name, w, got.Stats.Distinct, tc.distinct)
			}
			if tc.depth >= 0 && got.Stats.Depth != tc.depth {
				t.Errorf("%s w=%d: got depth %d, want %d", tc.name, w, got.Stats.Depth, tc.depth)
			}
			if got.Stats.Queue <= 0 || got.Stats.Queue > got.Stats.Distinct+ref.distinct {
				t.Errorf("%s w=%d: got queue %d, want some states left", tc.name, w, got.Stats.Queue)
			}
		}
	}
	// A depth bound at the graph's depth or beyond is a complete search.
	if got := Check(m, nil, Options{MaxDepth: ref.depth}); got.Verdict != OK || got.Stats.Distinct != ref.distinct {
		t.Errorf("max depth %d: got %s %d states, want ok %d", ref.depth, got.Verdict, got.Stats.Distinct, ref.distinct)
	}
	// A violation found before the limit wins.
	got := Check(m, []Property[cstate]{sumIs(2)}, Options{MaxStates: 30})
	if got.Verdict != Violated {
		t.Errorf("violation before limit: got %s %q, want violated", got.Verdict, got.Reason)
	}
}

// TestProgress: the progress callback is called with statistics when ProgressEvery is tiny.
// Reference: issue 2 (a progress line every few seconds).
func TestProgress(t *testing.T) {
	defer small()()
	calls := 0
	var last Stats
	got := Check(counters{N: 3}, nil, Options{Workers: 2, ProgressEvery: 1, Progress: func(s Stats) { calls++; last = s }})
	if calls == 0 || last.Distinct <= 0 || last.Distinct > got.Stats.Distinct {
		t.Errorf("got %d calls, last distinct %d, want some calls with 0 < distinct <= %d", calls, last.Distinct, got.Stats.Distinct)
	}
}

// TestReplay: a real trace replays; an edited one is rejected with the step number.
// Reference: kmc replay (issue 2): traces rebuilt and checked against the model.
func TestReplay(t *testing.T) {
	m := counters{N: 3}
	props := []Property[cstate]{sumIs(6)}
	res := Check(m, props, Options{Workers: 1})
	if len(res.Trace.States) != 7 {
		t.Fatalf("got %d states, want 7", len(res.Trace.States))
	}
	r := Bind[cstate](m, props)
	edit := func(f func(tr *Trace)) *Trace {
		tr := *res.Trace
		tr.States = append([]TraceState(nil), tr.States...)
		for i := range tr.States {
			tr.States[i].Values = append([]string(nil), tr.States[i].Values...)
		}
		f(&tr)
		return &tr
	}
	tests := []struct {
		name string
		tr   *Trace
		err  string
	}{
		{"real", res.Trace, ""},
		{"value", edit(func(tr *Trace) { tr.States[3].Values[2] = `{"#bigint":"3"}` }), "step 4: no successor by "},
		{"action", edit(func(tr *Trace) { tr.States[4].Action = "Dance(1)" }), "step 5: no successor by Dance(1) (not enabled)"},
		{"init", edit(func(tr *Trace) { tr.States[0].Values[1] = `{"#bigint":"1"}` }), "step 1: no initial state matches (first difference in variable c1)"},
		{"loop", edit(func(tr *Trace) { tr.Loop = 0; tr.BackAction = "Dec(0)" }), "back to state 1: "},
	}
	for _, tc := range tests {
		rep, err := r.Replay(tc.tr)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: got error %v, want none", tc.name, err)
		case tc.err == "" && (rep.Steps != 7 || len(rep.Violates) != 1):
			t.Errorf("%s: got %+v, want 7 steps violating SumNot6", tc.name, rep)
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("%s: got error %v, want prefix %q", tc.name, err, tc.err)
		}
	}
	// The value edit names the variable.
	_, err := r.Replay(tests[1].tr)
	if err == nil || !strings.Contains(err.Error(), "first difference in variable c2") {
		t.Errorf("got %v, want first difference in variable c2", err)
	}
}

// TestNondeterministicPanics: a model whose successor order changes between calls breaks
// trace replay, which panics naming the likely cause. Reference: STYLE.md §2.
func TestNondeterministicPanics(t *testing.T) {
	calls := 0
	m := counters{N: 3, nondet: true, calls: &calls}
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, "not deterministic") {
			t.Errorf("got panic %v, want one naming non-deterministic successors", r)
		}
	}()
	Check(m, []Property[cstate]{sumIs(6)}, Options{Workers: 1})
	t.Errorf("got no panic, want one")
}

// TestGraph: the whole graph has every state once and every edge. Reference: kmc check
// --dump-graph (issue 2).
func TestGraph(t *testing.T) {
	m := counters{N: 2}
	ref := naiveBFS(m, nil)
	g, err := Bind[cstate](m, nil).Graph(1000, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(g.Nodes)) != ref.distinct || int64(len(g.Edges)) != ref.generated-1 || !g.Nodes[0].Initial || g.Nodes[1].Initial {
		t.Errorf("got %d nodes %d edges, want %d and %d", len(g.Nodes), len(g.Edges), ref.distinct, ref.generated-1)
	}
	for i, n := range g.Nodes {
		want := m.AppendValue(&ref.order[i], 0, nil)
		if n.Values[0] != string(want) {
			t.Errorf("node %d: got c0 %s, want %s (BFS order)", i, n.Values[0], want)
		}
	}
	if _, err := Bind[cstate](m, nil).Graph(10, Options{}); err == nil {
		t.Errorf("got no error for a graph over the bound, want one")
	}
}

// TestSymmetryTrace: with symmetry the trace is a real behaviour (replayable) of the same
// length as without. Reference: TLC symmetry sets (traces are real behaviours).
func TestSymmetryTrace(t *testing.T) {
	m := symCounters{counters{N: 3}}
	// Symmetric properties only: no counter at 3; the sum not 7.
	prop := Property[cstate]{Name: "NoneAt3", Kind: Invariant, State: func(s *cstate) bool {
		return s.C[0] != 3 && s.C[1] != 3 && s.C[2] != 3 && s.C[3] != 3
	}}
	sumProp := Property[cstate]{Name: "Sum", Kind: Invariant, State: func(s *cstate) bool { return s.sum() != 7 }}
	// A symmetric action property: no Move fills a counter.
	moveFills := Property[cstate]{Name: "NoMoveFills", Kind: ActionProperty, Step: func(from *cstate, a uint64, to *cstate) bool {
		return a>>8 != kMove || to.C[a&15] != 3
	}}
	for _, p := range []Property[cstate]{prop, sumProp, moveFills} {
		plain := Check(m.counters, []Property[cstate]{p}, Options{Workers: 2})
		sym := Check(m, []Property[cstate]{p}, Options{Workers: 2, Symmetry: true})
		if sym.Verdict != Violated || len(sym.Trace.States) != len(plain.Trace.States) {
			t.Fatalf("%s: got %s with %d states, want violated with %d", p.Name, sym.Verdict, len(sym.Trace.States), len(plain.Trace.States))
		}
		rep, err := Bind[cstate](m, []Property[cstate]{p}).Replay(sym.Trace)
		if err != nil || len(rep.Violates) != 1 {
			t.Errorf("%s: replay of the symmetric trace: got %+v, %v; want it to violate %s", p.Name, rep, err, p.Name)
		}
	}
}

// TestUnreducedCount: a complete search under symmetry reports the plain search's distinct
// states from its classes' sizes, the same whether the model gives them after the search
// (Orbiter) or with each candidate (CanonicalEncoder), with the same reduced counts, for any
// worker count. Reference: issue 14.
func TestUnreducedCount(t *testing.T) {
	defer small()()
	plain := Check[cstate](counters{N: 4}, nil, Options{Workers: 1})
	for _, w := range []int{1, 2, 4} {
		orb := Check[cstate](orbCounters{symCounters{counters{N: 4}}}, nil, Options{Workers: w, Symmetry: true})
		enc := Check[cstate](encCounters{orbCounters{symCounters{counters{N: 4}}}}, nil, Options{Workers: w, Symmetry: true})
		if orb.Stats.Unreduced != plain.Stats.Distinct || enc.Stats.Unreduced != plain.Stats.Distinct {
			t.Errorf("w=%d: unreduced %d (Orbiter), %d (CanonicalEncoder), want %d", w, orb.Stats.Unreduced, enc.Stats.Unreduced, plain.Stats.Distinct)
		}
		if enc.Stats.Distinct != orb.Stats.Distinct || enc.Stats.Generated != orb.Stats.Generated || enc.Stats.Distinct >= plain.Stats.Distinct {
			t.Errorf("w=%d: distinct %d / %d, generated %d / %d (CanonicalEncoder / Orbiter); plain %d", w,
				enc.Stats.Distinct, orb.Stats.Distinct, enc.Stats.Generated, orb.Stats.Generated, plain.Stats.Distinct)
		}
	}
}
