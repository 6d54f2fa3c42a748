package checker

import "testing"

// TestSimulateBlocks: walks taken in blocks and merged (sums, the longest walk, registers by
// maximum, the lowest violating walk) give what one Simulate gives for the same seed.
func TestSimulateBlocks(t *testing.T) {
	inv := Property[cstate]{Name: "SumBelow9", Kind: Invariant, State: func(s *cstate) bool { return s.sum() < 9 }}
	for _, props := range [][]Property[cstate]{nil, {inv}} {
		b := Bind(counters{N: 3}, props).(SimBlocker)
		opts := SimOptions{Seed: 5, Runs: 1000, Depth: 40, Workers: 2}
		want := Simulate(counters{N: 3}, props, opts)
		var regs []byte
		var got SimResult
		got.Verdict = OK
		for first := int64(0); first < opts.Runs; first += 150 {
			o := opts
			o.FirstRun, o.Runs = first, min(150, opts.Runs-first)
			r, rg := b.SimulateBlock(o)
			regs = MergeRegisters(regs, rg)
			got.Stats.Walks += r.Stats.Walks
			got.Stats.States += r.Stats.States
			got.Stats.Generated += r.Stats.Generated
			got.Stats.MaxDepth = max(got.Stats.MaxDepth, r.Stats.MaxDepth)
			if r.Verdict == Violated && got.Verdict != Violated {
				got.Verdict, got.Property, got.Run, got.Trace = r.Verdict, r.Property, r.Run, r.Trace
			}
		}
		got.Stats.Distinct = SimDistinct(regs)
		if !simSame(got, want) {
			t.Errorf("props %d: blocks give %s %s walk %d, one run %s %s walk %d", len(props), got.Verdict, got.Property, got.Run, want.Verdict, want.Property, want.Run)
		}
		if want.Verdict == OK {
			g, w := got.Stats, want.Stats
			if g.Walks != w.Walks || g.States != w.States || g.Generated != w.Generated || g.MaxDepth != w.MaxDepth || g.Distinct != w.Distinct {
				t.Errorf("blocks: %+v, one run: %+v", g, w)
			}
		} else if want.Trace == nil {
			t.Error("no trace for the violation")
		}
	}
}
