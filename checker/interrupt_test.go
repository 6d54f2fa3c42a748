package checker

import (
	"strings"
	"sync"
	"testing"
)

// Reference: issue 26, defect 2 (an interrupted liveness check reported its partial graph
// as complete; a stop during the liveness phase was ignored).

// TestInterruptedLiveness: a liveness check whose search a limit ends says so in
// Result.Interrupted whatever the verdict, a lasso it finds among the expanded states
// included; a complete one says nothing.
func TestInterruptedLiveness(t *testing.T) {
	back := Property[cstate]{Name: "BackToZero", Kind: LeadsTo,
		P: func(s *cstate) bool { return s.sum() == 3 }, Q: func(s *cstate) bool { return s.sum() == 0 }}
	m := counters{N: 3, fair: Weak}
	complete := Check(m, []Property[cstate]{back}, Options{Workers: 1})
	if complete.Verdict != Violated || complete.Interrupted != "" || complete.Stats.Queue != 0 {
		t.Fatalf("complete: got %s, interrupted %q, queue %d; want violated, not interrupted", complete.Verdict, complete.Interrupted, complete.Stats.Queue)
	}
	tests := []struct {
		name    string
		opts    Options
		verdict Verdict
		want    string
	}{
		{"max depth", Options{MaxDepth: 4}, Violated, "max depth 4 reached"},
		{"max states", Options{MaxStates: 40}, Violated, "max states 40 reached"},
		{"max states, no lasso yet", Options{MaxStates: 5}, Incomplete, "max states 5 reached"},
	}
	for _, tc := range tests {
		for _, w := range []int{1, 2} {
			tc.opts.Workers = w
			got := Check(m, []Property[cstate]{back}, tc.opts)
			if got.Verdict != tc.verdict || got.Interrupted != tc.want {
				t.Errorf("%s, %d workers: got %s %q, interrupted %q; want %s, interrupted %q", tc.name, w, got.Verdict, got.Reason, got.Interrupted, tc.verdict, tc.want)
			}
			if got.Verdict == Violated {
				if _, err := Bind[cstate](m, []Property[cstate]{back}).Replay(got.Trace); err != nil {
					t.Errorf("%s: the lasso of the partial graph does not replay: %v", tc.name, err)
				}
			}
		}
	}
}

// TestStopDuringLiveness: a stop request during the liveness phase (the graph made ready,
// or a property's component search) ends it, incomplete, where the complete check would
// report a violation; a stop during the search ends the liveness phase too.
func TestStopDuringLiveness(t *testing.T) {
	defer small()()
	back := Property[cstate]{Name: "BackToZero", Kind: LeadsTo,
		P: func(s *cstate) bool { return s.sum() == 3 }, Q: func(s *cstate) bool { return s.sum() == 0 }}
	m := counters{N: 3, fair: Weak}
	for _, at := range []string{PhaseLivenessGraph, PhaseLiveness + back.Name} {
		stop := make(chan struct{})
		var once sync.Once
		opts := Options{Workers: 2, Stop: stop, Phase: func(phase string, _ Stats) {
			if phase == at {
				once.Do(func() { close(stop) })
			}
		}}
		got := Check(m, []Property[cstate]{back}, opts)
		if got.Verdict != Incomplete || got.Interrupted != "stopped" || !strings.HasPrefix(got.Reason, "stopped during the liveness check") {
			t.Errorf("stopped at %q: got %s %q, interrupted %q; want incomplete, stopped during the liveness check", at, got.Verdict, got.Reason, got.Interrupted)
		}
		if got.Stats.Queue != 0 {
			t.Errorf("stopped at %q: got %d states on queue, want the complete graph's 0", at, got.Stats.Queue)
		}
	}
	stop := make(chan struct{})
	var once sync.Once
	opts := Options{Workers: 2, Stop: stop, Checkpoint: func(*Snapshot) {}, CheckpointAt: func(_ int, expanded int64) bool {
		if expanded >= 30 {
			once.Do(func() { close(stop) })
		}
		return false
	}}
	got := Check(m, []Property[cstate]{back}, opts)
	if got.Verdict != Incomplete || got.Reason != "stopped" || got.Interrupted != "stopped" || got.Stats.Queue == 0 {
		t.Errorf("stopped in the search: got %s %q, interrupted %q, queue %d; want incomplete, stopped, a queue", got.Verdict, got.Reason, got.Interrupted, got.Stats.Queue)
	}
}

// TestStopPolledInLoops: a stop request seen in the middle of a component search ends it
// within stopEvery states: Tarjan's run over a chain of 100,000 states returns having
// emitted a few of its components, and the lasso search (bfs) gives up.
func TestStopPolledInLoops(t *testing.T) {
	const n = 100_000
	eoff, etgt, ecode := make([]uint32, n), make([]uint32, 0, n), make([]uint32, 0, n)
	for v := range n {
		if v+1 < n {
			etgt, ecode = append(etgt, uint32(v+1)), append(ecode, 0)
		}
		eoff[v] = uint32(len(etgt))
	}
	g := testGraph(eoff, etgt, ecode)
	closed := make(chan struct{})
	close(closed)
	lc := newLiveChecker(g)
	lc.order = make([]uint32, n)
	for v := range n {
		lc.label[v] = 1
	}
	// Not looked at until the stopEvery-th poll: the search is under way by then.
	lc.stop = &stopper{ch: closed, n: 1}
	lc.scc.stop = lc.stop
	emitted := 0
	lc.scc.run(nil, 1, lc.order, func([]uint32) { emitted++ })
	if !lc.stop.hit || emitted >= n || emitted > stopEvery {
		t.Errorf("Tarjan's run: stop seen %v, %d of %d components emitted; want it stopped within %d states", lc.stop.hit, emitted, n, stopEvery)
	}
	lc.stop = &stopper{ch: closed, n: 1}
	if _, _, ok := lc.bfs(0, func(uint32) bool { return true }, func(v uint32) bool { return v == n-1 }); ok || !lc.stop.hit {
		t.Errorf("bfs: got a path (%v) or no stop seen (%v); want it stopped", ok, lc.stop.hit)
	}
}
