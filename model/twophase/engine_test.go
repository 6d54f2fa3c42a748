package twophase

import (
	"fmt"
	"sort"
	"testing"

	"kmc/checker"
)

// Reference: TwoPhase.tla (tlaplus/Examples). The engine against the naive enumeration.

func TestEngineAgainstNaiveEnumeration(t *testing.T) {
	for n := 2; n <= 5; n++ {
		naive := naiveSearch(n)
		m := New(n)
		props := []checker.Property[State]{
			{Name: "TCConsistent", Kind: checker.Invariant, State: TCConsistent},
			{Name: "TCTypeOK", Kind: checker.Invariant, State: m.TCTypeOK},
		}
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("N=%d/workers=%d", n, workers), func(t *testing.T) {
				res := checker.Check[State](m, props, checker.Options{Workers: workers})
				if res.Verdict != checker.OK {
					t.Fatalf("verdict: got %s (%s), want ok", res.Verdict, res.Property)
				}
				if got, want := res.Stats.Distinct, int64(len(naive.depthOf)); got != want {
					t.Errorf("distinct states: got %d, want %d", got, want)
				}
				if got, want := res.Stats.Depth, naive.depth; got != want {
					t.Errorf("depth: got %d, want %d", got, want)
				}
				if got, want := res.Stats.Generated, int64(naive.generated); got != want {
					t.Errorf("states generated: got %d, want %d", got, want)
				}
				if got := res.Stats.Queue; got != 0 {
					t.Errorf("states left on queue: got %d, want 0", got)
				}
			})
		}
	}
}

func TestPlantedInvariantGivesShortestTrace(t *testing.T) {
	for n := 2; n <= 5; n++ {
		naive := naiveSearch(n)
		m := New(n)
		props := []checker.Property[State]{{Name: "NotAllCommitted", Kind: checker.Invariant, State: m.NotAllCommitted}}
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("N=%d/workers=%d", n, workers), func(t *testing.T) {
				res := checker.Check[State](m, props, checker.Options{Workers: workers})
				if res.Verdict != checker.Violated || res.Property != "NotAllCommitted" {
					t.Fatalf("got %s %q, want violated NotAllCommitted", res.Verdict, res.Property)
				}
				if res.Trace == nil {
					t.Fatal("no trace")
				}
				if got, want := len(res.Trace.States), naive.firstAllCommitted; got != want {
					t.Errorf("trace length: got %d, want %d (BFS depth of the first violating state)", got, want)
				}
				if got, want := naive.firstAllCommitted, 3*n+2; got != want {
					t.Errorf("naive depth of all-committed: got %d, want %d", got, want)
				}
				// The trace is a real behaviour: replay it by action name.
				s := m.Init(nil)[0]
				var succ []State
				var acts []uint64
				for i, ts := range res.Trace.States[1:] {
					succ, acts = m.Next(&s, succ[:0], acts[:0])
					found := false
					for j, a := range acts {
						if m.ActionName(a) == ts.Action {
							s, found = succ[j], true
							break
						}
					}
					if !found {
						t.Fatalf("step %d: %s is not enabled", i+2, ts.Action)
					}
				}
				if m.NotAllCommitted(&s) {
					t.Errorf("last trace state does not violate NotAllCommitted")
				}
			})
		}
	}
}

func TestEarlyCommitViolatesConsistency(t *testing.T) {
	m := New(3)
	m.EarlyCommit = true
	props := []checker.Property[State]{{Name: "TCConsistent", Kind: checker.Invariant, State: TCConsistent}}
	res := checker.Check[State](m, props, checker.Options{Workers: 1})
	if res.Verdict != checker.Violated || res.Trace == nil {
		t.Fatalf("got %s, want violated with a trace", res.Verdict)
	}
	// TMCommit, one RM receives Commit, another chooses to abort.
	if got, want := len(res.Trace.States), 4; got != want {
		t.Errorf("trace length: got %d, want %d", got, want)
	}
}

func TestSymmetryAgainstNaiveOrbits(t *testing.T) {
	// The reduced search finds one state per orbit of the naive states under permutations
	// of RMs; the naive orbit key sorts each RM's (state, prepared, sent) triple.
	for n := 2; n <= 5; n++ {
		naive := naiveSearch(n)
		m := New(n)
		_, states, _, _ := modelSearch(t, m)
		orbits := map[string]bool{}
		for i := range states {
			var rms []string
			for r := 0; r < n; r++ {
				rms = append(rms, fmt.Sprintf("%s/%v/%v", states[i].RM.Of(r), states[i].TMPrepared&(1<<r) != 0, states[i].MsgPrepared&(1<<r) != 0))
			}
			sort.Strings(rms)
			orbits[fmt.Sprint(rms, states[i].TM, states[i].MsgCommit, states[i].MsgAbort)] = true
		}
		if len(states) != len(naive.depthOf) {
			t.Fatalf("N=%d: model search found %d states, naive %d", n, len(states), len(naive.depthOf))
		}
		props := []checker.Property[State]{{Name: "TCConsistent", Kind: checker.Invariant, State: TCConsistent}}
		for _, workers := range []int{1, 2} {
			res := checker.Check[State](m, props, checker.Options{Workers: workers, Symmetry: true})
			if res.Verdict != checker.OK {
				t.Fatalf("N=%d: verdict %s", n, res.Verdict)
			}
			if got, want := res.Stats.Distinct, int64(len(orbits)); got != want {
				t.Errorf("N=%d workers=%d: distinct states with symmetry: got %d, want %d (orbits)", n, workers, got, want)
			}
			if got, want := res.Stats.Depth, naive.depth; got != want {
				t.Errorf("N=%d workers=%d: depth with symmetry: got %d, want %d", n, workers, got, want)
			}
		}
	}
}

func TestCanonicalizeIsAPermutationInvariant(t *testing.T) {
	m := New(4)
	_, states, _, _ := modelSearch(t, m)
	for i := range states {
		s := states[i]
		// swap RMs 0 and 3
		p := s
		p.RM = s.RM.With(0, s.RM.Of(3)).With(3, s.RM.Of(0))
		swap := func(b uint16) uint16 {
			x := b &^ 0b1001
			x |= (b & 1) << 3
			x |= (b >> 3) & 1
			return x
		}
		p.TMPrepared, p.MsgPrepared = swap(s.TMPrepared), swap(s.MsgPrepared)
		c1, c2 := s, p
		m.Canonicalize(&c1)
		m.Canonicalize(&c2)
		if c1 != c2 {
			t.Fatalf("Canonicalize(%+v) = %+v, but of its permutation %+v", s, c1, c2)
		}
		c3 := c1
		m.Canonicalize(&c3)
		if c3 != c1 || !m.TCTypeOK(&c1) || TCConsistent(&c1) != TCConsistent(&s) {
			t.Fatalf("Canonicalize(%+v) = %+v: not idempotent, or changes the invariants", s, c1)
		}
	}
	s := states[len(states)-1]
	if allocs := testing.AllocsPerRun(100, func() { m.Canonicalize(&s) }); allocs != 0 {
		t.Errorf("allocations per Canonicalize: got %v, want 0", allocs)
	}
}
