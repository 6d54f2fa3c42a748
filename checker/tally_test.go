package checker

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// tallying is counters that counts, as a Tallier, the successors of each kind its Next
// gives, when on: the shape of the Kafka model's counts of its fix branches and guards
// (atomic adds from every worker, kept in the model).
type tallying struct {
	counters
	on   bool
	hits *[3]atomic.Uint64
	// stop, when set, is closed by the stopAt-th call of Next (an interrupt mid-segment).
	stop   chan struct{}
	stopAt int64
	calls  *atomic.Int64
}

func newTallying(c counters) tallying {
	return tallying{counters: c, on: true, hits: new([3]atomic.Uint64)}
}

// fresh is the model of a part of a partitioned search: its counts its own (freshModel).
func (m tallying) fresh() Model[cstate] {
	f := newTallying(m.counters)
	f.on = m.on
	return f
}

func (m tallying) Next(s *cstate, succ []cstate, acts []uint64) ([]cstate, []uint64) {
	start := len(acts)
	if m.stop != nil && m.calls.Add(1) == m.stopAt {
		close(m.stop)
	}
	succ, acts = m.counters.Next(s, succ, acts)
	if m.on {
		for _, a := range acts[start:] {
			m.hits[a>>8].Add(1)
		}
	}
	return succ, acts
}

func (m tallying) Tallies(dst []uint64) []uint64 {
	if !m.on {
		return dst
	}
	for i := range m.hits {
		dst = append(dst, m.hits[i].Load())
	}
	return dst
}

// TestTallies: a Tallier model's own counts (Result.Tallies) are those of one process never
// stopped, whatever ran the search: 1 to 3 parts, each on a model of its own, a search
// resumed from any of the single-process engine's checkpoints (1, 2 and 4 workers) or of a
// partitioned search's level checkpoints (by one process and by 1 to 3 parts), and a search
// that a violation stops in the middle of a level (its counts through the violation's
// segment: the parts send theirs per piece). The counts are cross-checked against the
// engine's own count of the states generated; a model that counts nothing reports none, and
// two parts on one counting model are refused.
func TestTallies(t *testing.T) {
	defer small()()
	for _, tc := range []struct {
		name string
		c    counters
		opts Options
	}{
		{"complete", counters{N: 4}, Options{}},
		{"complete, coverage", counters{N: 4, noMove: true}, Options{Coverage: true, Vacuity: true}},
		{"max depth", counters{N: 4}, Options{MaxDepth: 5}},
	} {
		tallyCase(t, tc.name, tc.c, []Property[cstate]{sumIs(100)}, tc.opts)
	}
	// Violations, and a state limit, in the middle of a level: the counts through the
	// segment where one process stops. (small() makes segments of a few states.)
	for _, n := range []int{3, 5, 7, 9} {
		props := []Property[cstate]{sumIs(n)}
		want := Check[cstate](newTallying(counters{N: 4}), props, Options{Workers: 1})
		if want.Verdict != Violated || want.Tallies == nil {
			t.Fatalf("sum %d: %s, counts %v", n, want.Verdict, want.Tallies)
		}
		for _, w := range []int{1, 2, 3} {
			if d := sameResult(partitioned[cstate](t, newTallying(counters{N: 4}), props, Options{}, w, false), want); d != "" {
				t.Errorf("violation of sum %d, %d parts: %s", n, w, d)
			}
		}
	}
	for _, max := range []int64{50, 333} {
		want := Check[cstate](newTallying(counters{N: 4}), nil, Options{Workers: 1, MaxStates: max})
		for _, w := range []int{1, 2, 3} {
			if d := sameResult(partitioned[cstate](t, newTallying(counters{N: 4}), nil, Options{MaxStates: max}, w, false), want); d != "" {
				t.Errorf("max states %d, %d parts: %s", max, w, d)
			}
		}
	}
	off := newTallying(counters{N: 3})
	off.on = false
	if r := Check[cstate](off, nil, Options{}); r.Tallies != nil {
		t.Errorf("a model that counts nothing: counts %v", r.Tallies)
	}
	// Two parts on one counting model: refused, as their counts would mix.
	b := Bind[cstate](newTallying(counters{N: 3}), nil).(Partitioner)
	if _, err := b.NewPart(Options{}, 2, 0, &memTransport{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.NewPart(Options{}, 2, 1, &memTransport{}); err == nil || !strings.Contains(err.Error(), "a model of its own") {
		t.Errorf("a second part on one counting model: %v", err)
	}
}

// tallyCase checks the counts of m's search with opts (see TestTallies).
func tallyCase(t *testing.T, name string, c counters, props []Property[cstate], opts Options) {
	t.Helper()
	m := newTallying(c)
	o := opts
	o.Coverage, o.Workers = true, 2
	want := Check[cstate](m, props, o)
	if len(want.Tallies) != 3 {
		t.Fatalf("%s: %d counts of the model's own, want 3", name, len(want.Tallies))
	}
	sum := uint64(0)
	for _, n := range want.Tallies {
		sum += n
	}
	if sum+1 != uint64(want.Stats.Generated) {
		t.Errorf("%s: the model counted %d successors, the engine generated %d states (the initial one included)", name, sum, want.Stats.Generated)
	}
	// The same search again on the same model: the counts start from it.
	if again := Check[cstate](m, props, o); !slices.Equal(again.Tallies, want.Tallies) {
		t.Errorf("%s: the second search on one model counted %v, want %v", name, again.Tallies, want.Tallies)
	}
	want = Check[cstate](m, props, opts)
	for _, w := range []int{1, 2, 3} {
		if d := sameResult(partitioned[cstate](t, m, props, opts, w, false), want); d != "" {
			t.Errorf("%s: %d parts: %s", name, w, d)
		}
	}
	checkResume[cstate](t, name, m, props, opts)
	partitionedResume[cstate](t, name, m, props, opts)
}
