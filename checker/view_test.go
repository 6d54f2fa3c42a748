package checker

import "testing"

// viewCounters is counters whose last counter is auxiliary, like a variable left out of
// TLC's VIEW: a state is known by the first three counters only (Projected), though its
// successors depend on the fourth (Inc(3), Move to and from it).
type viewCounters struct{ counters }

func (m viewCounters) View(enc []byte) []byte { return enc[:nCounters-1] }

// viewBFS is the reference: a breadth-first search keyed by the view that keeps, as TLC
// does, the first state it meets with each view.
func viewBFS(m viewCounters) (distinct, depth int) {
	seen := map[string]bool{}
	level := m.Init(nil)
	for i := range level {
		seen[string(m.View(m.Encode(&level[i], nil)))] = true
	}
	for len(level) > 0 {
		depth++
		var next []cstate
		for i := range level {
			succ, _ := m.Next(&level[i], nil, nil)
			for _, t := range succ {
				if k := string(m.View(m.Encode(&t, nil))); !seen[k] {
					seen[k] = true
					next = append(next, t)
				}
			}
		}
		level = next
	}
	return len(seen), depth
}

// TestProjectedView checks contract item 7: the engine identifies states by the view, keeps
// the first state of each view in breadth-first order (the reference's counts), the same
// for any number of workers, and replays a counterexample through the states it kept.
func TestProjectedView(t *testing.T) {
	defer small()()
	m := viewCounters{counters{N: 3, noDec: true}}
	distinct, depth := viewBFS(m)
	if full := naiveBFS(m.counters, nil); full.distinct <= int64(distinct) {
		t.Fatalf("the view does not merge states: %d by view, %d whole", distinct, full.distinct)
	}
	for _, w := range []int{1, 2, 3} {
		r := Check[cstate](m, nil, Options{Workers: w})
		if r.Stats.Distinct != int64(distinct) || r.Stats.Depth != depth {
			t.Errorf("%d workers: got %d states, depth %d; want %d, %d", w, r.Stats.Distinct, r.Stats.Depth, distinct, depth)
		}
	}
	prop := []Property[cstate]{{Name: "Below", Kind: Invariant, State: func(s *cstate) bool { return s.C[0]+s.C[1]+s.C[2] < 7 }}}
	var first *Trace
	for _, w := range []int{1, 2, 3} {
		r := Check[cstate](m, prop, Options{Workers: w})
		if r.Verdict != Violated || r.Trace == nil {
			t.Fatalf("%d workers: got %v, want a violation with a trace", w, r.Verdict)
		}
		if first == nil {
			first = r.Trace
			continue
		}
		if len(r.Trace.States) != len(first.States) {
			t.Fatalf("%d workers: a trace of %d states, 1 worker's has %d", w, len(r.Trace.States), len(first.States))
		}
		for i := range first.States {
			if r.Trace.States[i].Action != first.States[i].Action {
				t.Errorf("%d workers: step %d is %s, 1 worker's %s", w, i, r.Trace.States[i].Action, first.States[i].Action)
			}
		}
	}
}
