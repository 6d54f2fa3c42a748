package checker

import (
	"reflect"
	"runtime"
	"strconv"
	"testing"
)

// Reference: issue 11 (simulation: random walks with an explicit seed, for bounds too large
// to exhaust; TLC's -simulate).

// simSame reports how two simulation results differ in what must not depend on the number
// of workers: verdict, property, walk and trace.
func simSame(a, b SimResult) bool {
	return a.Verdict == b.Verdict && a.Property == b.Property && a.Run == b.Run && reflect.DeepEqual(a.Trace, b.Trace)
}

// sameStats reports whether two simulations of the same walks counted the same: at a
// violation, the walks up to it, whatever the number of workers (issue 26, defect 13: they
// counted the walks done by then, as many as the workers had taken).
func sameStats(a, b SimStats) bool {
	a.Elapsed, a.Workers, b.Elapsed, b.Workers = 0, 0, 0, 0
	return a == b
}

// TestSimulateSafety: an invariant, an action property and a deadlock are found, by the
// same walk and with the same trace for any number of workers; the trace replays and
// violates the property.
func TestSimulateSafety(t *testing.T) {
	inv := Property[cstate]{Name: "SumBelow7", Kind: Invariant, State: func(s *cstate) bool { return s.sum() < 7 }}
	step := Property[cstate]{Name: "NoMove03", Kind: ActionProperty,
		Step: func(from *cstate, a uint64, to *cstate) bool { return a != kMove<<8|0<<4|3 }}
	tests := []struct {
		name  string
		m     counters
		props []Property[cstate]
		opts  SimOptions
		want  string
	}{
		{"invariant", counters{N: 3}, []Property[cstate]{inv}, SimOptions{Seed: 1, Depth: 50}, "SumBelow7"},
		{"action", counters{N: 3}, []Property[cstate]{step}, SimOptions{Seed: 2, Depth: 50}, "NoMove03"},
		{"deadlock", counters{N: 2, noDec: true, noMove: true}, nil, SimOptions{Seed: 3, Deadlock: true}, "Deadlock"},
	}
	for _, tc := range tests {
		for _, bias := range Biases {
			opts := tc.opts
			opts.Bias = bias
			simulateSafety(t, tc.name+"/"+string(bias), tc.m, tc.props, opts, tc.want)
		}
	}
	// Without the deadlock check a state without successors only ends the walk.
	got := Simulate[cstate](counters{N: 2, noDec: true, noMove: true}, nil, SimOptions{Seed: 3, Runs: 20})
	if got.Verdict != OK || got.Stats.Walks != 20 || got.Stats.MaxDepth != 9 {
		t.Errorf("no deadlock check: got %s, %d walks, longest %d; want ok, 20, 9", got.Verdict, got.Stats.Walks, got.Stats.MaxDepth)
	}
}

func simulateSafety(t *testing.T, name string, m counters, props []Property[cstate], opts SimOptions, want string) {
	t.Helper()
	var first SimResult
	for _, w := range []int{1, 2, 7} {
		opts.Workers = w
		got := Simulate[cstate](m, props, opts)
		if got.Verdict != Violated || got.Property != want {
			t.Fatalf("%s w=%d: got %s %q %q, want violated %s", name, w, got.Verdict, got.Property, got.Reason, want)
		}
		if w == 1 {
			first = got
		} else if !simSame(got, first) {
			t.Errorf("%s w=%d: got walk %d, a different result than with 1 worker (walk %d)", name, w, got.Run, first.Run)
		} else if !sameStats(got.Stats, first.Stats) {
			t.Errorf("%s w=%d: got %+v, want the statistics of 1 worker, %+v", name, w, got.Stats, first.Stats)
		}
	}
	rep, err := Bind[cstate](m, props).Replay(first.Trace)
	if err != nil {
		t.Errorf("%s: replay: %v", name, err)
	} else if want != "Deadlock" && !reflect.DeepEqual(rep.Violates, []string{want}) {
		t.Errorf("%s: replay violates %v, want [%s]", name, rep.Violates, want)
	}
	// The walk alone, by its index, finds the same.
	opts.FirstRun, opts.Runs, opts.Workers = first.Run, 1, 1
	if alone := Simulate[cstate](m, props, opts); !simSame(alone, first) {
		t.Errorf("%s: walk %d alone: got %s %q walk %d, want the same result", name, first.Run, alone.Verdict, alone.Property, alone.Run)
	}
}

// TestSimulateMutex: the textbook fairness answers, found as lassos of random walks.
// Reference: Lamport, Specifying Systems §8; TestMutexFairness for the exhaustive verdicts.
func TestSimulateMutex(t *testing.T) {
	tests := []struct {
		name    string
		m       mutex
		verdict Verdict
		stutter bool
	}{
		{"lock-unfair", mutex{fair: allFair(Unfair)}, Violated, true},
		// Process 1 enters and leaves forever while 0 tries: a cycle, weakly fair.
		{"lock-weak", mutex{fair: allFair(Weak)}, Violated, false},
		{"lock-strong", mutex{fair: allFair(Strong)}, OK, false},
		{"peterson-unfair", mutex{peterson: true, fair: allFair(Unfair)}, Violated, true},
		{"peterson-weak", mutex{peterson: true, fair: allFair(Weak)}, OK, false},
	}
	for _, tc := range tests {
		props := []Property[mstate]{enters(0), enters(1)}
		for _, bias := range Biases {
			simulateMutex(t, tc.name+"/"+string(bias), tc.m, props, bias, tc.verdict, tc.stutter)
		}
	}
}

func simulateMutex(t *testing.T, name string, m mutex, props []Property[mstate], bias Bias, verdict Verdict, stutter bool) {
	t.Helper()
	var first SimResult
	for _, w := range []int{1, 2} {
		got := Simulate[mstate](m, props, SimOptions{Seed: 42, Runs: 300, Depth: 40, Workers: w, Bias: bias})
		if got.Verdict != verdict {
			t.Fatalf("%s w=%d: got %s %q, want %s", name, w, got.Verdict, got.Reason, verdict)
		}
		if w == 1 {
			first = got
		} else if !simSame(got, first) {
			t.Errorf("%s w=%d: got a different result than with 1 worker", name, w)
		} else if !sameStats(got.Stats, first.Stats) {
			t.Errorf("%s w=%d: got %+v, want the statistics of 1 worker, %+v", name, w, got.Stats, first.Stats)
		}
	}
	if verdict != Violated {
		if first.Stats.Walks != 300 || first.Stats.States == 0 || first.Stats.MaxDepth != 40 {
			t.Errorf("%s: got %+v, want 300 walks of 40 states", name, first.Stats)
		}
		return
	}
	tr := first.Trace
	if tr.Stutter != stutter || stutter != (tr.Loop < 0) {
		t.Errorf("%s: got stutter %v loop %d, want stutter %v", name, tr.Stutter, tr.Loop, stutter)
	}
	rep, err := Bind[mstate](m, props).Replay(tr)
	if err != nil || !containsString(rep.Violates, first.Property) || first.Property != tr.Property {
		t.Errorf("%s: replay got %+v, %v; want it to violate %s", name, rep, err, first.Property)
	}
}

// TestSimulateCuts: steps cut by a model bound count as enabled for fairness, as in the
// exhaustive engine: a lasso that needs the cut to be fair is never reported, and a state
// whose only steps are cut is no deadlock. Reference: issue 10; TestCutSteps.
func TestSimulateCuts(t *testing.T) {
	names := []string{"Spin", "Back", "Recover", "Other"}
	w, s, u := Weak, Strong, Unfair
	spin := []tstep{{0, 1, 0}, {1, 0, 1}}
	goal := Property[uint32]{Name: "ReachesGoal", Kind: Eventually, State: func(s *uint32) bool { return *s == 2 }}
	tests := []struct {
		name     string
		m        tiny
		violated bool
		stutter  bool
	}{
		{"weak-cut-everywhere", tiny{steps: spin, cuts: []tstep{{0, 2, 2}, {1, 2, 2}}, fair: []Fairness{w, w, w, w}}, false, false},
		{"weak-cut-once", tiny{steps: spin, cuts: []tstep{{0, 2, 2}}, fair: []Fairness{w, w, w, w}}, true, false},
		{"strong-cut-once", tiny{steps: spin, cuts: []tstep{{0, 2, 2}}, fair: []Fairness{w, w, s, w}}, false, false},
		{"unfair-cut", tiny{steps: spin, cuts: []tstep{{0, 2, 2}, {1, 2, 2}}, fair: []Fairness{w, w, u, w}}, true, false},
		{"stutter-cut", tiny{cuts: []tstep{{0, 2, 2}}, fair: []Fairness{w, w, w, w}}, false, false},
		{"stutter-unfair-cut", tiny{cuts: []tstep{{0, 2, 2}}, fair: []Fairness{w, w, u, w}}, true, true},
		{"other-cycle", tiny{steps: append([]tstep{{0, 3, 3}, {3, 4, 0}, {4, 3, 1}}, spin...), cuts: []tstep{{0, 2, 2}, {1, 2, 2}}, fair: []Fairness{w, w, w, u}}, true, false},
	}
	for _, tc := range tests {
		tc.m.names = names
		got := Simulate[uint32](tc.m, []Property[uint32]{goal}, SimOptions{Seed: 7, Runs: 50, Depth: 20, Workers: 2})
		if (got.Verdict == Violated) != tc.violated || (!tc.violated && got.Verdict != OK) {
			t.Errorf("%s: got %s, want violated %v", tc.name, got.Verdict, tc.violated)
			continue
		}
		if !tc.violated {
			continue
		}
		if got.Trace.Stutter != tc.stutter {
			t.Errorf("%s: got stutter %v, want %v", tc.name, got.Trace.Stutter, tc.stutter)
		}
		rep, err := Bind[uint32](tc.m, []Property[uint32]{goal}).Replay(got.Trace)
		if err != nil || !reflect.DeepEqual(rep.Violates, []string{"ReachesGoal"}) {
			t.Errorf("%s: replay got %+v, %v; want it to violate ReachesGoal", tc.name, rep, err)
		}
	}
	for _, tc := range []struct {
		name     string
		m        tiny
		violated bool
	}{
		{"cut-fair", tiny{steps: []tstep{{0, 1, 0}}, cuts: []tstep{{1, 2, 0}}, fair: []Fairness{Weak, Unfair}}, false},
		{"cut-unfair", tiny{steps: []tstep{{0, 1, 0}}, cuts: []tstep{{1, 2, 1}}, fair: []Fairness{Weak, Unfair}}, false},
		{"no-cut", tiny{steps: []tstep{{0, 1, 0}}, fair: []Fairness{Weak, Unfair}}, true},
	} {
		tc.m.names = []string{"Step", "Write"}
		got := Simulate[uint32](tc.m, nil, SimOptions{Deadlock: true, Runs: 5, Workers: 1})
		if (got.Verdict == Violated) != tc.violated || (tc.violated && got.Property != "Deadlock") {
			t.Errorf("deadlock %s: got %s %s, want violated %v", tc.name, got.Verdict, got.Property, tc.violated)
		}
	}
}

// TestSimulateEventually: <>P, []<>P and P ~> Q on chains, as cycles and as stuttering.
func TestSimulateEventually(t *testing.T) {
	at := func(v uint32) func(*uint32) bool { return func(s *uint32) bool { return *s == v } }
	tests := []struct {
		name     string
		m        chain
		p        Property[uint32]
		violated bool
		loop     int // -1: stuttering
		states   int
	}{
		{"eventually-end", chain{n: 10}, Property[uint32]{Name: "P", Kind: Eventually, State: at(9)}, false, 0, 0},
		{"eventually-never", chain{n: 10, wrap: true}, Property[uint32]{Name: "P", Kind: Eventually, State: at(10)}, true, 0, 10},
		{"always-eventually-cycle", chain{n: 10, wrap: true}, Property[uint32]{Name: "P", Kind: AlwaysEventually, State: at(3)}, false, 0, 0},
		{"always-eventually-end", chain{n: 10}, Property[uint32]{Name: "P", Kind: AlwaysEventually, State: at(5)}, true, -1, 10},
		{"leadsto", chain{n: 10, wrap: true}, Property[uint32]{Name: "P", Kind: LeadsTo, P: at(8), Q: at(2)}, false, 0, 0},
		{"leadsto-end", chain{n: 10}, Property[uint32]{Name: "P", Kind: LeadsTo, P: at(8), Q: at(2)}, true, -1, 10},
	}
	for _, tc := range tests {
		got := Simulate[uint32](tc.m, []Property[uint32]{tc.p}, SimOptions{Seed: 1, Runs: 3, Depth: 30, Workers: 1})
		if (got.Verdict == Violated) != tc.violated {
			t.Errorf("%s: got %s, want violated %v", tc.name, got.Verdict, tc.violated)
			continue
		}
		if !tc.violated {
			continue
		}
		loop := got.Trace.Loop
		if got.Trace.Stutter {
			loop = -1
		}
		if loop != tc.loop || len(got.Trace.States) != tc.states {
			t.Errorf("%s: got loop %d with %d states, want %d with %d", tc.name, loop, len(got.Trace.States), tc.loop, tc.states)
		}
	}
}

// TestSimulateStop: a closed Stop ends the simulation incomplete; a time budget ends an
// unlimited one ok; the statistics count whole walks.
func TestSimulateStop(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	m := counters{N: 3}
	got := Simulate[cstate](m, nil, SimOptions{Runs: -1, Stop: stop, Workers: 2})
	if got.Verdict != Incomplete || got.Reason != "interrupted" {
		t.Errorf("stopped: got %s %q, want incomplete interrupted", got.Verdict, got.Reason)
	}
	got = Simulate[cstate](m, nil, SimOptions{Runs: -1, Time: 1, Workers: 2})
	if got.Verdict != OK || got.Reason != "time budget reached" {
		t.Errorf("time budget: got %s %q, want ok, time budget reached", got.Verdict, got.Reason)
	}
	var calls int
	got = Simulate[cstate](m, nil, SimOptions{Runs: 10, Depth: 5, Workers: 1, Progress: func(SimStats) { calls++ }})
	if got.Stats.Walks != 10 || got.Stats.States != 50 || got.Stats.Generated == 0 {
		t.Errorf("got %+v, want 10 walks of 5 states", got.Stats)
	}
	bad := Simulate[cstate](m, []Property[cstate]{{Name: "X", Kind: Invariant}}, SimOptions{})
	if bad.Verdict != Incomplete || bad.Reason == "" {
		t.Errorf("bad property: got %s %q, want incomplete with a reason", bad.Verdict, bad.Reason)
	}
}

// TestSimulateDistinct: the HyperLogLog estimate of the distinct states visited is close to
// the exact count, and the same for any number of workers.
func TestSimulateDistinct(t *testing.T) {
	m := counters{N: 3} // 4^4 = 256 states, all visited by enough walks
	var first SimStats
	for _, w := range []int{1, 2} {
		got := Simulate[cstate](m, nil, SimOptions{Seed: 9, Runs: 400, Depth: 60, Workers: w})
		if got.Stats.Distinct < 250 || got.Stats.Distinct > 262 {
			t.Errorf("w=%d: got %d distinct states, want about 256", w, got.Stats.Distinct)
		}
		s := got.Stats
		s.Elapsed, s.Workers = 0, 0
		if w == 1 {
			first = s
		} else if s != first {
			t.Errorf("w=%d: got %+v, want %+v as with 1 worker", w, s, first)
		}
	}
	// A large chain: the estimate is within a few percent.
	c := chain{n: 200000}
	got := Simulate[uint32](c, nil, SimOptions{Runs: 1, Depth: 200000, Workers: 1})
	if d := got.Stats.Distinct; d < 194000 || d > 206000 {
		t.Errorf("chain: got %d distinct states, want about 200000", d)
	}
}

// TestSimulateAllocationFree: once a worker's buffers have grown, a walk allocates nothing:
// safety checks, the lasso checks on every revisit and the stuttering checks included.
func TestSimulateAllocationFree(t *testing.T) {
	inv := Property[cstate]{Name: "True", Kind: Invariant, State: func(*cstate) bool { return true }}
	sc, _, _ := newSim[cstate](counters{N: 3}, []Property[cstate]{inv}, SimOptions{Depth: 200})
	// Peterson's algorithm under weak fairness is live: its walks revisit states all the
	// time, and every lasso they close (a process trying while the other cycles) is checked
	// for a violation and for fairness, and found unfair.
	sm, _, _ := newSim[mstate](mutex{peterson: true, fair: allFair(Weak)}, []Property[mstate]{enters(0), enters(1)}, SimOptions{Depth: 200})
	for _, bias := range Biases {
		sc.opts.Bias, sm.opts.Bias = bias, bias
		wc, wm := newSimWorker(sc), newSimWorker(sm)
		for run := range int64(50) {
			wc.walk(run)
			wm.walk(run)
		}
		run := int64(0)
		allocs := testing.AllocsPerRun(50, func() {
			if v, done := wc.walk(run % 50); v != nil || !done {
				t.Fatal("counters walk: want a complete walk without a violation")
			}
			if v, done := wm.walk(run % 50); v != nil || !done {
				t.Fatal("peterson walk: want a complete walk without a violation")
			}
			run++
		})
		if allocs != 0 {
			t.Errorf("bias %s: got %v allocations per walk, want 0", bias, allocs)
		}
	}
}

// fan is a line 0..n-1 where each state steps to the next by one action of kind One or by
// any of nine actions of kind Nine, all weakly fair.
type fan struct{ chain }

func (m fan) Next(s *uint32, succ []uint32, acts []uint64) ([]uint32, []uint64) {
	if *s+1 < m.n {
		for k := range uint64(10) {
			succ, acts = append(succ, *s+1), append(acts, k)
		}
	}
	return succ, acts
}
func (m fan) ActionName(a uint64) string { return m.ActionKinds()[m.ActionKind(a)] }
func (m fan) ActionKind(a uint64) int    { return min(int(a), 1) }
func (m fan) ActionKinds() []string      { return []string{"One", "Nine"} }

// TestSimulateBiasKinds: BiasKinds takes each enabled kind of action alike, BiasUniform each
// successor alike.
func TestSimulateBiasKinds(t *testing.T) {
	m := fan{chain{n: 10001}}
	for _, tc := range []struct {
		bias   Bias
		lo, hi int // share of One in 10000 steps, per mille
	}{{BiasUniform, 80, 120}, {BiasKinds, 470, 530}} {
		// A liveness property that holds, so that the walk keeps its positions' actions.
		holds := Property[uint32]{Name: "Holds", Kind: AlwaysEventually, State: func(*uint32) bool { return true }}
		s, _, _ := newSim[uint32](m, []Property[uint32]{holds}, SimOptions{Seed: 5, Depth: 10001, Bias: tc.bias})
		w := newSimWorker(s)
		w.walk(0)
		one := 0
		for _, a := range w.codes[1:] {
			if a == 0 {
				one++
			}
		}
		if got := one * 1000 / (len(w.codes) - 1); got < tc.lo || got > tc.hi {
			t.Errorf("%s: One took %d per mille of the steps, want %d..%d", tc.bias, got, tc.lo, tc.hi)
		}
	}
}

// TestSimulateWalkMemory: a walk that checks safety keeps what its distinct states need,
// not every state it visits: a walk of a million states through the counters' 256 states
// allocates some kilobytes. Reference: issue 26, defect 3 (kmc simulate grew about 200 MB/s
// on the 288-state two-phase model).
func TestSimulateWalkMemory(t *testing.T) {
	inv := Property[cstate]{Name: "True", Kind: Invariant, State: func(*cstate) bool { return true }}
	const depth = 1_000_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := Simulate[cstate](counters{N: 3}, []Property[cstate]{inv}, SimOptions{Seed: 3, Runs: 1, Depth: depth, Workers: 1})
	runtime.ReadMemStats(&after)
	if got.Verdict != OK || got.Stats.States != depth {
		t.Fatalf("got %s %q, %d states; want ok, a walk of %d", got.Verdict, got.Reason, got.Stats.States, depth)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("a walk of %d states through 256 allocated %d bytes, want at most 1 MiB", depth, alloc)
	}
}

// TestSimulateMemoryBudget: a walk that would grow the simulation's buffers beyond
// SimOptions.MemoryBytes ends it, incomplete, with the statistics of the walks done; the
// buffers stay within the budget. A walk that checks liveness keeps its positions.
func TestSimulateMemoryBudget(t *testing.T) {
	holds := Property[uint32]{Name: "Holds", Kind: AlwaysEventually, State: func(*uint32) bool { return true }}
	// The budget counts the runtime's memory when a simulation starts: leave 64 MiB for the
	// walks, which would take some GiB (the liveness walk keeps its 2^26 positions).
	var meter memMeter
	runtime.GC()
	budget := meter.overhead(0) + 64<<20
	m := chain{n: 1 << 30}
	for _, w := range []int{1, 2} {
		got := Simulate[uint32](m, []Property[uint32]{holds}, SimOptions{Runs: 3, Depth: 1 << 26, Workers: w, MemoryBytes: budget})
		want := "memory " + strconv.FormatInt(budget, 10) + " bytes reached"
		if got.Verdict != Incomplete || got.Reason != want || got.Stats.Walks != 0 {
			t.Errorf("w=%d: got %s %q after %d walks, want incomplete %q after none", w, got.Verdict, got.Reason, got.Stats.Walks, want)
		}
	}
	s, _, _ := newSim[uint32](m, []Property[uint32]{holds}, SimOptions{Depth: 1 << 26, MemoryBytes: budget})
	wk := newSimWorker(s)
	if _, done := wk.walk(0); done || s.used.Load() > budget {
		t.Errorf("a walk past the budget: done %v, %d bytes held of %d", done, s.used.Load(), budget)
	}
	// Walks that fit are done and counted.
	got := Simulate[uint32](chain{n: 50, wrap: true}, []Property[uint32]{holds}, SimOptions{Runs: 20, Depth: 100, Workers: 2, MemoryBytes: budget})
	if got.Verdict != OK || got.Stats.Walks != 20 || got.Stats.States != 2000 {
		t.Errorf("walks within the budget: got %s %q, %+v; want ok, 20 walks of 100 states", got.Verdict, got.Reason, got.Stats)
	}
}

// TestSimulateViewTraces: with a view (Projected), a walk tells states apart by their whole
// encoding, so that the trace of a violation, made loop-free, is a behaviour of the model
// (they did not replay when loops were cut by the view: an auxiliary variable's value came
// from a step cut out).
func TestSimulateViewTraces(t *testing.T) {
	inv := Property[cstate]{Name: "SumBelow7", Kind: Invariant, State: func(s *cstate) bool { return s.sum() < 7 }}
	m := viewCounters{counters{N: 3}}
	for seed := range uint64(40) {
		got := Simulate[cstate](m, []Property[cstate]{inv}, SimOptions{Seed: seed, Runs: 200, Depth: 50, Workers: 2})
		if got.Verdict != Violated {
			t.Fatalf("seed %d: got %s, want violated", seed, got.Verdict)
		}
		if _, err := Bind[cstate](m, []Property[cstate]{inv}).Replay(got.Trace); err != nil {
			t.Errorf("seed %d: the trace does not replay: %v", seed, err)
		}
	}
}
