package reference

import "testing"

// TestCutsAreExactlyTheBoundedSteps: in every reachable state of small configurations,
// the steps that raising one of the module's bounds adds are exactly the steps NextCut
// reported as cut by it, and Next and NextCut agree on the successors. Reference: issue 10
// (bounds are cuts, not guards; TLC's constraints and finite sequences alike).
func TestCutsAreExactlyTheBoundedSteps(t *testing.T) {
	for v := TruncateToHighWatermark; v < AsyncIsr; v++ {
		cfg := Config{Variant: v, Replicas: 2, LogSize: 2, MaxRecords: 3, MaxLeaderEpoch: 2}
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		raised := [3]Config{cfg, cfg, cfg}
		raised[boundMaxLeaderEpoch].MaxLeaderEpoch++
		raised[boundMaxRecords].MaxRecords++
		raised[boundLogSize].LogSize++
		all, err := New(Config{Variant: v, Replicas: 2, LogSize: 3, MaxRecords: 4, MaxLeaderEpoch: 3})
		if err != nil {
			t.Fatal(err)
		}
		states := m.Init(nil)
		seen := map[string]bool{}
		var succ []State
		var acts []uint64
		counts := [3]int{}
		for i := 0; i < len(states); i++ {
			s := &states[i]
			succ, acts = m.Next(s, succ[:0], acts[:0])
			s2, a2, cut, by := m.NextCut(s, nil, nil, nil, nil)
			if len(s2) != len(succ) {
				t.Fatalf("%v: Next and NextCut differ", v)
			}
			for k := range succ {
				if s2[k] != succ[k] || a2[k] != acts[k] {
					t.Fatalf("%v: Next and NextCut differ at successor %d", v, k)
				}
				key := string(m.Encode(&succ[k], nil))
				if !seen[key] {
					seen[key] = true
					states = append(states, succ[k])
				}
			}
			for b := range raised {
				r, err := New(raised[b])
				if err != nil {
					t.Fatal(err)
				}
				_, ra := r.Next(s, nil, nil)
				var added []uint64
				for _, a := range ra {
					if !hasCode(acts, a) {
						added = append(added, a)
					}
				}
				var reported []uint64
				for j, a := range cut {
					if by[j] == b {
						reported = append(reported, a)
					}
				}
				counts[b] += len(reported)
				// A step may need more than one bound raised (a full log and no record id
				// left): a reported cut is a step once all are raised.
				_, rall := all.Next(s, nil, nil)
				for _, a := range reported {
					if !hasCode(rall, a) {
						t.Errorf("%v state %d: %s reported cut by %s, not a step with the bounds raised", v, i, m.ActionName(a), m.Bounds()[b])
					}
				}
				for _, a := range added {
					if !hasCode(reported, a) {
						t.Errorf("%v state %d: raising %s adds %s, not reported cut", v, i, m.Bounds()[b], m.ActionName(a))
					}
				}
			}
			if t.Failed() {
				return
			}
		}
		for b, n := range counts {
			if n == 0 {
				t.Errorf("%v: nothing cut by %s over %d states", v, m.Bounds()[b], len(states))
			}
		}
	}
}

// TestAsyncCuts: AsyncIsr's state constraint cuts exactly the steps whose successor lies
// outside it.
func TestAsyncCuts(t *testing.T) {
	m, err := NewAsyncIsr(AsyncConfig{Replicas: 2, MaxOffset: 2, MaxVersion: 2})
	if err != nil {
		t.Fatal(err)
	}
	states := m.Init(nil)
	seen := map[string]bool{}
	total := [2]int{}
	for i := 0; i < len(states); i++ {
		s := &states[i]
		succ, acts := m.Next(s, nil, nil)
		all, allActs := m.successors(s, nil, nil)
		s2, _, cut, by := m.NextCut(s, nil, nil, nil, nil)
		if len(s2) != len(succ) || len(s2)+len(cut) != len(all) {
			t.Fatalf("state %d: %d successors, %d cut, %d in all", i, len(s2), len(cut), len(all))
		}
		for k := range all {
			if !m.inConstraint(&all[k]) && !hasCode(cut, allActs[k]) {
				t.Errorf("state %d: %s leaves the constraint but is not cut", i, m.ActionName(allActs[k]))
			}
		}
		for j := range by {
			total[by[j]]++
		}
		for k := range succ {
			if key := string(m.Encode(&succ[k], nil)); !seen[key] {
				seen[key] = true
				states = append(states, succ[k])
			}
		}
		_ = acts
	}
	if total[0] == 0 || total[1] == 0 {
		t.Errorf("cuts by bound: %v, want some of each", total)
	}
}

func hasCode(s []uint64, a uint64) bool {
	for _, x := range s {
		if x == a {
			return true
		}
	}
	return false
}
