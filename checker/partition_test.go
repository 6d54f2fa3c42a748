package checker

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// memTransport calls the parts directly, in this process. With dup set, every claim batch is
// delivered twice (the owner's minimum key makes a repeated claim change nothing).
type memTransport struct {
	parts []Part
	dup   bool
}

func (t *memTransport) Call(to int, req []byte) ([]byte, error) {
	if t.dup && req[0] == opClaim {
		if _, err := t.parts[to].Handle(req); err != nil {
			return nil, err
		}
	}
	return t.parts[to].Handle(req)
}

// freshModel is a test model that gives each part a model of its own (a Tallier must).
type freshModel[S any] interface{ fresh() Model[S] }

func partitioned[S any](t *testing.T, m Model[S], props []Property[S], opts Options, w int, dup bool) Result {
	t.Helper()
	b := Bind(m, props).(Partitioner)
	tr := &memTransport{dup: dup}
	for i := range w {
		pb := b
		if f, ok := any(m).(freshModel[S]); ok {
			pb = Bind(f.fresh(), props).(Partitioner)
		}
		p, err := pb.NewPart(opts, w, i, tr)
		if err != nil {
			t.Fatal(err)
		}
		tr.parts = append(tr.parts, p)
	}
	return b.CheckPartitioned(opts, w, tr)
}

// same compares what a partitioned search must give exactly as the single machine: every
// field of the result but time, memory and workers, and the trace.
func same(t *testing.T, name string, got, want Result) {
	t.Helper()
	g, w := got.Stats, want.Stats
	g.Elapsed, w.Elapsed, g.MemoryBytes, w.MemoryBytes, g.Workers, w.Workers = 0, 0, 0, 0, 0, 0
	got.Stats, want.Stats = g, w
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: partitioned\n%+v\nsingle machine\n%+v", name, got, want)
		if got.Trace != nil && want.Trace != nil && !reflect.DeepEqual(got.Trace, want.Trace) {
			t.Errorf("%s: traces differ", name)
		}
	}
}

// TestPartitionedParity: for 1, 2, 3 and 5 parts, with shrunk segments and chunks so that
// levels span many segments, the partitioned search gives the single machine's result:
// complete searches, planted invariants, action properties, deadlock, Sometimes, state and
// depth limits, symmetry with class sizes, coverage and vacuity. Reference: SCALE-OUT.md §4.4.
func TestPartitionedParity(t *testing.T) {
	defer small()()
	step := Property[cstate]{Name: "NoMove23", Kind: ActionProperty,
		Step: func(from *cstate, a uint64, to *cstate) bool { return a != kMove<<8|2<<4|3 || from.sum() < 3 }}
	some := Property[cstate]{Name: "SumReaches", Kind: Sometimes, State: func(s *cstate) bool { return s.sum() == 12 }}
	never := Property[cstate]{Name: "SumNever", Kind: Sometimes, State: func(s *cstate) bool { return s.sum() == 99 }}
	tests := []struct {
		name  string
		m     Model[cstate]
		props []Property[cstate]
		opts  Options
	}{
		{"box3", counters{N: 3}, nil, Options{}},
		{"box4-coverage", counters{N: 4}, []Property[cstate]{some}, Options{Coverage: true, Vacuity: true}},
		{"box4-vacuous", counters{N: 4}, []Property[cstate]{never}, Options{}},
		{"inv5", counters{N: 3}, []Property[cstate]{sumIs(5)}, Options{Coverage: true, Vacuity: true}},
		{"inv9", counters{N: 4}, []Property[cstate]{sumIs(9)}, Options{}},
		{"inv0", counters{N: 3}, []Property[cstate]{sumIs(0)}, Options{}},
		{"step", counters{N: 3}, []Property[cstate]{step}, Options{Vacuity: true}},
		{"deadlock", counters{N: 2, noDec: true, noMove: true}, nil, Options{Deadlock: true}},
		{"max-states", counters{N: 4}, nil, Options{MaxStates: 100}},
		{"max-states-step", counters{N: 4}, []Property[cstate]{step}, Options{MaxStates: 60}},
		{"max-states-1", counters{N: 4}, nil, Options{MaxStates: 1}},
		{"max-depth", counters{N: 4}, nil, Options{MaxDepth: 3}},
		{"max-depth-inv", counters{N: 4}, []Property[cstate]{sumIs(3)}, Options{MaxDepth: 3}},
		{"sym", symCounters{counters{N: 4}}, []Property[cstate]{sumIs(7)}, Options{Symmetry: true}},
		{"sym-orbits", orbCounters{symCounters{counters{N: 4}}}, nil, Options{Symmetry: true}},
		{"sym-enc", encCounters{orbCounters{symCounters{counters{N: 3}}}}, nil, Options{Symmetry: true, Vacuity: true}},
	}
	for _, tc := range tests {
		want := Check(tc.m, tc.props, tc.opts)
		for _, w := range []int{1, 2, 3, 5} {
			got := partitioned(t, tc.m, tc.props, tc.opts, w, w == 3)
			same(t, tc.name+" parts="+itoa(w), got, want)
		}
	}
}

// TestPartitionRefusal: the partial-order reduction stays on one machine; checkpoints and
// resume do not; a liveness property is gathered, with checkpoints, resume and a state
// limit too.
func TestPartitionRefusal(t *testing.T) {
	live := Property[cstate]{Name: "Ev", Kind: Eventually, State: func(s *cstate) bool { return true }}
	lb := Bind(counters{N: 2}, []Property[cstate]{live})
	for name, o := range map[string]Options{
		"":             {},
		"--checkpoint": {Checkpoint: func(*Snapshot) {}},
		"--resume":     {Resume: &Snapshot{}},
		"--max-states": {MaxStates: 10},
	} {
		if why := PartitionRefusal(lb, o); why != "" {
			t.Errorf("liveness with %q: refused: %s", name, why)
		}
	}
	if why := PartitionRefusal(Bind(counters{N: 2}, nil), Options{Checkpoint: func(*Snapshot) {}}); why != "" {
		t.Errorf("checkpoint: refused: %s", why)
	}
	if why := PartitionRefusal(Bind(counters{N: 2}, nil), Options{}); why != "" {
		t.Errorf("safety: refused: %s", why)
	}
}

// partitionedResume checks level checkpoints across engines for one model: the partitioned
// search with a checkpoint at every level gives the reference result, and each checkpoint,
// resumed by the single-process engine (1 and 3 workers) and by 1, 2 and 3 parts, does too;
// the single-process engine's checkpoints (after every segment, mid-level ones among them)
// resume on 2 and 3 parts. With a liveness property, each resumed search's graph is the
// uninterrupted one's too. Reference: issue 30, "Failures".
func partitionedResume[S any](t *testing.T, name string, m Model[S], props []Property[S], opts Options) {
	t.Helper()
	opts.Workers = 1
	want := Check(m, props, opts)
	_, we := singleEngine(m, props, opts)
	live := we != nil && we.rec
	// resumed runs o on w parts, and compares its graph with the uninterrupted one's.
	resumed := func(o Options, w int, what string) Result {
		if !live {
			return partitioned(t, m, props, o, w, false)
		}
		res, ge, _ := partitionedEngine(t, m, props, o, w, false)
		sameGraph(t, name+": "+what, ge, we)
		return res
	}
	var snaps [][]byte
	ck := opts
	ck.CheckpointAt = func(int, int64) bool { return true }
	ck.Checkpoint = func(s *Snapshot) { snaps = append(snaps, writeSnap(t, s)) }
	if d := sameResult(partitioned(t, m, props, ck, 3, false), want); d != "" {
		t.Fatalf("%s: 3 parts with checkpoints: %s", name, d)
	}
	if len(snaps) < 2 {
		t.Fatalf("%s: %d level checkpoints, want some", name, len(snaps))
	}
	for i, b := range snaps {
		for _, w := range []int{1, 3} {
			o := opts
			o.Workers, o.Resume = w, readSnap(t, b)
			if d := sameResult(Check(m, props, o), want); d != "" {
				t.Errorf("%s: level checkpoint %d of %d (level %d) resumed by one process, %d workers: %s", name, i+1, len(snaps), o.Resume.Depth, w, d)
			}
			if live {
				o.Resume = readSnap(t, b)
				_, e1 := singleEngine(m, props, o)
				sameGraph(t, name+": level checkpoint "+itoa(i+1)+" resumed by one process", e1, we)
			}
		}
		for _, w := range []int{1, 2, 3} {
			o := opts
			o.Resume = readSnap(t, b)
			if d := sameResult(resumed(o, w, "level checkpoint "+itoa(i+1)+" resumed by "+itoa(w)+" parts"), want); d != "" {
				t.Errorf("%s: level checkpoint %d of %d (level %d) resumed by %d parts: %s", name, i+1, len(snaps), o.Resume.Depth, w, d)
			}
		}
	}
	var single [][]byte
	ck = opts
	ck.Workers = 2
	ck.CheckpointAt = func(int, int64) bool { return true }
	ck.Checkpoint = func(s *Snapshot) { single = append(single, writeSnap(t, s)) }
	Check(m, props, ck)
	mid := 0
	for i, b := range single {
		for _, w := range []int{2, 3} {
			o := opts
			o.Resume = readSnap(t, b)
			if o.Resume.Queue != o.Resume.Distinct-o.Resume.Expanded || o.Resume.next.n() > 0 {
				mid++
			}
			if d := sameResult(resumed(o, w, "single-process checkpoint "+itoa(i+1)+" resumed by "+itoa(w)+" parts"), want); d != "" {
				t.Errorf("%s: single-process checkpoint %d of %d (level %d, %d expanded) resumed by %d parts: %s", name, i+1, len(single), o.Resume.Depth, o.Resume.Expanded, w, d)
			}
		}
	}
	if mid == 0 && len(single) > 2 {
		t.Errorf("%s: no single-process checkpoint was taken mid-level", name)
	}
}

// TestPartitionedResume: level checkpoints of the partitioned search resume on any engine,
// and the single-process engine's on parts, with the uninterrupted search's verdict, counts,
// depth and trace.
func TestPartitionedResume(t *testing.T) {
	defer small()()
	step := Property[cstate]{Name: "NoMove23", Kind: ActionProperty,
		Step: func(from *cstate, a uint64, to *cstate) bool { return a != kMove<<8|2<<4|3 || from.sum() < 3 }}
	some := Property[cstate]{Name: "SumReaches", Kind: Sometimes, State: func(s *cstate) bool { return s.sum() == 2 }}
	partitionedResume(t, "ok", counters{N: 4}, []Property[cstate]{sumIs(100), some}, Options{})
	partitionedResume(t, "invariant", counters{N: 4}, []Property[cstate]{sumIs(9)}, Options{})
	partitionedResume(t, "step", counters{N: 4}, []Property[cstate]{step}, Options{})
	partitionedResume(t, "deadlock", counters{N: 3, noDec: true, noMove: true}, nil, Options{Deadlock: true})
	partitionedResume(t, "max-depth", counters{N: 4}, []Property[cstate]{sumIs(100)}, Options{MaxDepth: 6})
	partitionedResume(t, "max-states", counters{N: 4}, nil, Options{MaxStates: 400})
	partitionedResume(t, "symmetry", symCounters{counters{N: 4}}, []Property[cstate]{sumIs(10)}, Options{Symmetry: true})
	partitionedResume(t, "symmetry, orbits", orbCounters{symCounters{counters{N: 4}}}, nil, Options{Symmetry: true})
	partitionedResume(t, "symmetry, canonical encoder", encCounters{orbCounters{symCounters{counters{N: 4}}}}, nil, Options{Symmetry: true})
	// A liveness property: the checkpoints hold the gathered graph (the seen set with the
	// states' indices), and the lasso of a resumed search is the uninterrupted one's.
	oneOne := func(s *cstate) bool { return s.C[0] == 1 && s.C[1] == 1 }
	leaves := Property[cstate]{Name: "OneOneLeaves", Kind: LeadsTo, P: oneOne, Q: func(s *cstate) bool { return !oneOne(s) }}
	empties := Property[cstate]{Name: "OneOneEmpties", Kind: LeadsTo, P: oneOne, Q: func(s *cstate) bool { return s.C[0] == 0 }}
	at := func(n uint32) func(*uint32) bool { return func(s *uint32) bool { return *s == n } }
	partitionedResume(t, "liveness", counters{N: 4, fair: Weak}, []Property[cstate]{leaves, sumIs(100)}, Options{Vacuity: true})
	partitionedResume(t, "liveness violated", counters{N: 4, fair: Weak}, []Property[cstate]{empties}, Options{Coverage: true})
	partitionedResume(t, "liveness, max states", counters{N: 4, fair: Weak}, []Property[cstate]{empties, leaves}, Options{MaxStates: 400})
	partitionedResume(t, "liveness, max depth", counters{N: 4, fair: Weak}, []Property[cstate]{leaves}, Options{MaxDepth: 6})
	partitionedResume(t, "liveness, strong fairness", mutex{fair: allFair(Strong)}, []Property[mstate]{enters(0), enters(1)}, Options{})
	partitionedResume(t, "liveness, rings", rings{k: 4, l: 9}, []Property[uint32]{{Name: "Sink", Kind: Eventually, State: at(36)}}, Options{})
	partitionedResume(t, "liveness, cut steps", tiny{steps: append([]tstep{{0, 3, 3}, {3, 4, 0}, {4, 3, 1}}, tstep{0, 1, 0}, tstep{1, 0, 1}),
		cuts: []tstep{{0, 2, 2}, {1, 2, 2}}, fair: []Fairness{Weak, Weak, Weak, Unfair}, names: []string{"Spin", "Back", "Recover", "Other"}},
		[]Property[uint32]{{Name: "ReachesGoal", Kind: Eventually, State: at(2)}}, Options{})
}

// TestPartitionedLastCheckpoint: a partitioned search that Stop ends takes a last checkpoint
// at the start of the level it stopped in (CheckpointAt is asked at level 5 before it
// starts), from which 2 parts end as the search never
// stopped.
func TestPartitionedLastCheckpoint(t *testing.T) {
	defer small()()
	m, props := counters{N: 4}, []Property[cstate]{sumIs(100)}
	want := Check(m, props, Options{})
	stop := make(chan struct{})
	var snaps [][]byte
	opts := Options{Stop: stop, Checkpoint: func(s *Snapshot) { snaps = append(snaps, writeSnap(t, s)) },
		CheckpointAt: func(depth int, expanded int64) bool {
			if depth == 5 {
				close(stop)
			}
			return false
		}}
	got := partitioned(t, m, props, opts, 3, false)
	if got.Verdict != Incomplete || len(snaps) != 1 {
		t.Fatalf("stopped: %v %s, %d checkpoints; want incomplete and one", got.Verdict, got.Reason, len(snaps))
	}
	s := readSnap(t, snaps[0])
	if s.Depth != 5 {
		t.Errorf("the last checkpoint is at level %d, want 5 (the level stopped)", s.Depth)
	}
	if d := sameResult(partitioned(t, m, props, Options{Resume: s}, 2, false), want); d != "" {
		t.Errorf("resumed on 2 parts: %s", d)
	}
}

// FuzzPartHandle: a part refuses a malformed message with an error, never a panic.
func FuzzPartHandle(f *testing.F) {
	var w wr
	w.b = append(w.b, opExpand)
	w.u32(1)
	w.u64(0)
	w.u64(1)
	w.u64(0)
	w.u64(1)
	w.u64(0)
	f.Add(w.b)
	f.Add([]byte{opClaim, 1, 0, 0, 0})
	f.Add([]byte{opWins, 2, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{opNext, 0, 0, 0, 0, 0, 0, 0, 0, 5})
	f.Add([]byte{opXfer, 0, 0, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3})
	f.Add([]byte{opLink, 9, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{opResolve})
	f.Add([]byte{opCommit})
	f.Add([]byte{opFinish})
	f.Add([]byte{opAnswer, 0, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Add([]byte{opSeen, 1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0})
	w = wr{b: []byte{opRecord}}
	w.u64(0)
	f.Add(w.b)
	// A part of a safety search, and one that records a liveness graph.
	live := Property[cstate]{Name: "Ev", Kind: Eventually, State: func(s *cstate) bool { return s.sum() == 2 }}
	f.Fuzz(func(t *testing.T, msg []byte) {
		for _, b := range []Runnable{Bind(counters{N: 2}, []Property[cstate]{sumIs(3)}), Bind(counters{N: 2, fair: Weak}, []Property[cstate]{live})} {
			tr := &memTransport{}
			p, err := b.(Partitioner).NewPart(Options{Workers: 1}, 1, 0, tr)
			if err != nil {
				t.Fatal(err)
			}
			tr.parts = []Part{p}
			_, _ = p.Handle(msg)
			_, _ = p.Handle([]byte{opExpand, 1, 0, 0, 0})
			_, _ = p.Handle([]byte{opRecord, 0, 0, 0, 0, 0, 0, 0, 0})
		}
	})
}

// TestPartitionedIndexBase: with the global index of the first state moved above 2^32
// (partIndexBase), and across 2^32 within the search, every partitioned search above (and
// its checkpoints and resumes) still gives the single machine's result: the claims' keys,
// ranges, parent links, prefix sums, violations and the checkpoints' gathering carry 64-bit
// indices. With any of them 32-bit, the keys' parents, the violating state or the links of a
// trace would be cut to the wrong state.
func TestPartitionedIndexBase(t *testing.T) {
	for _, base := range []uint64{1<<32 - 37, 1<<40 + 5, maxGlobal - 1<<20} {
		t.Run(strconv.FormatUint(base, 10), func(t *testing.T) {
			defer func(b uint64) { partIndexBase = b }(partIndexBase)
			partIndexBase = base
			TestPartitionedParity(t)
			TestPartitionedResume(t)
			TestPartitionedLastCheckpoint(t)
			TestPartitionedLiveness(t)
		})
	}
}

// TestPartBounds: a part refuses a level whose global indices pass maxGlobal, or a range
// larger than its frontier numbers.
func TestPartBounds(t *testing.T) {
	expand := func(base, size uint64) []byte {
		w := wr{b: []byte{opExpand}}
		w.u32(1)
		w.u64(base)
		w.u64(size)
		w.u64(base)
		w.u64(base + size)
		w.u64(0) // the search's first state
		return w.b
	}
	for _, tc := range []struct {
		name       string
		base, size uint64
		want       string
	}{
		{"beyond maxGlobal", maxGlobal - 2, 5, "do not cover it"},
		{"a range beyond a part's frontier", 1 << 40, maxState + 1, "more than a part's frontier numbers"},
	} {
		p, err := Bind(counters{N: 2}, nil).(Partitioner).NewPart(Options{Workers: 1}, 1, 0, &memTransport{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Handle(expand(tc.base, tc.size)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}
