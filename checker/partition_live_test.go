package checker

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// partitionedEngine runs the partitioned search like partitioned and also returns the
// coordinator's engine, whose liveness graph the test compares with one process's, and the
// bytes of each kind of message.
func partitionedEngine[S any](t *testing.T, m Model[S], props []Property[S], opts Options, w int, dup bool) (Result, *engine[S], map[byte]int64) {
	t.Helper()
	tr := &countTransport{memTransport: memTransport{dup: dup}, bytes: map[byte]int64{}}
	for i := range w {
		p, err := newPart(m, props, opts, w, i, tr)
		if err != nil {
			t.Fatal(err)
		}
		tr.parts = append(tr.parts, p)
	}
	var eng *engine[S]
	res := checkPartitionedEngine(m, props, opts, w, tr, &eng)
	return res, eng, tr.bytes
}

// countTransport is memTransport counting each message's bytes (request and reply) by kind.
type countTransport struct {
	memTransport
	mu    sync.Mutex
	bytes map[byte]int64
}

func (t *countTransport) Call(to int, req []byte) ([]byte, error) {
	b, err := t.memTransport.Call(to, req)
	t.mu.Lock()
	t.bytes[req[0]] += int64(len(req) + len(b))
	t.mu.Unlock()
	return b, err
}

// singleEngine runs the single-process engine and returns it with its result.
func singleEngine[S any](m Model[S], props []Property[S], opts Options) (Result, *engine[S]) {
	e, res, ok := newEngine(m, props, opts)
	if !ok {
		return res, nil
	}
	res = e.run()
	return res, e
}

// sameGraph compares two engines' liveness graphs: the stream, its index, the code table,
// the flags, the truncated states, the cut steps and the parent links.
func sameGraph[S any](t *testing.T, name string, got, want *engine[S]) {
	t.Helper()
	if got == nil || want == nil {
		t.Fatalf("%s: no engine", name)
	}
	g, w := &got.es, &want.es
	if err := g.load(); err != nil {
		t.Fatal(err)
	}
	if err := w.load(); err != nil {
		t.Fatal(err)
	}
	switch {
	case g.n != w.n || g.nedges != w.nedges:
		t.Errorf("%s: %d states, %d edges recorded; one process %d, %d", name, g.n, g.nedges, w.n, w.nedges)
	case !bytes.Equal(g.data, w.data):
		t.Errorf("%s: the edge streams differ (%d and %d bytes)", name, len(g.data), len(w.data))
	case !slices.Equal(g.blk, w.blk):
		t.Errorf("%s: the stream indices differ", name)
	case !slices.Equal(got.codes.codes, want.codes.codes):
		t.Errorf("%s: code ids %v, one process %v", name, got.codes.codes, want.codes.codes)
	case !slices.Equal(got.partial, want.partial):
		t.Errorf("%s: truncated states %v, one process %v", name, got.partial, want.partial)
	case !slices.Equal(got.cutState, want.cutState) || !slices.Equal(got.cutCode, want.cutCode) || !slices.Equal(got.cutBy, want.cutBy):
		t.Errorf("%s: cut steps differ", name)
	}
	for j := range want.flags {
		if !bytes.Equal(got.flags[j], want.flags[j]) {
			t.Errorf("%s: flags of property %d differ", name, j)
		}
	}
	if got.links.len() != want.links.len() {
		t.Fatalf("%s: %d parent links, one process %d", name, got.links.len(), want.links.len())
	}
	for i := range want.links.len() {
		if got.links.parent(uint32(i)) != want.links.parent(uint32(i)) || got.links.position(uint32(i)) != want.links.position(uint32(i)) {
			t.Fatalf("%s: the parent link of state %d differs", name, i)
		}
	}
}

// TestPartitionedLiveness: a liveness property across 1, 2, 3 and 5 parts (with every claim
// batch delivered twice for 3) gives one process's result, lasso included, and the
// coordinator's gathered graph is one process's byte for byte: weak and strong fairness,
// LeadsTo, Eventually and AlwaysEventually, violations by a cycle and by stuttering, the
// depth bound (truncated states), steps cut by a model bound (code ids in the single
// machine's order), symmetry where the model vouches for it, vacuity, and levels spread over
// many segments and chunks. Reference: issue 30, "Liveness: the graph gathered to one node".
func TestPartitionedLiveness(t *testing.T) {
	defer small()()
	oneOne := func(s *cstate) bool { return s.C[0] == 1 && s.C[1] == 1 }
	leaves := Property[cstate]{Name: "OneOneLeaves", Kind: LeadsTo, P: oneOne, Q: func(s *cstate) bool { return !oneOne(s) }}
	empties := Property[cstate]{Name: "OneOneEmpties", Kind: LeadsTo, P: oneOne, Q: func(s *cstate) bool { return s.C[0] == 0 }}
	zero := Property[cstate]{Name: "FullZeroEmpties", Kind: LeadsTo, P: func(s *cstate) bool { return s.C[0] == 3 }, Q: func(s *cstate) bool { return s.C[0] == 0 }}
	drains := Property[cstate]{Name: "FullZeroDrains", Kind: LeadsTo, P: func(s *cstate) bool { return s.C[0] == 3 }, Q: func(s *cstate) bool { return s.C[0] < 3 }}
	at := func(n uint32) func(*uint32) bool { return func(s *uint32) bool { return *s == n } }
	names := []string{"Spin", "Back", "Recover", "Other"}
	w, s, u := Weak, Strong, Unfair
	spin := []tstep{{0, 1, 0}, {1, 0, 1}}
	goal := Property[uint32]{Name: "ReachesGoal", Kind: Eventually, State: func(s *uint32) bool { return *s == 2 }}
	type tcase struct {
		name string
		run  func(t *testing.T, parts int, dup bool)
	}
	cs := func(name string, m Model[cstate], props []Property[cstate], opts Options) tcase {
		return tcase{name, func(t *testing.T, parts int, dup bool) { liveParity(t, name, m, props, opts, parts, dup) }}
	}
	u32 := func(name string, m Model[uint32], props []Property[uint32], opts Options) tcase {
		return tcase{name, func(t *testing.T, parts int, dup bool) { liveParity(t, name, m, props, opts, parts, dup) }}
	}
	ms := func(name string, m Model[mstate], props []Property[mstate], opts Options) tcase {
		return tcase{name, func(t *testing.T, parts int, dup bool) { liveParity(t, name, m, props, opts, parts, dup) }}
	}
	tests := []tcase{
		cs("counters-ok", counters{N: 3, fair: Weak}, []Property[cstate]{drains}, Options{Vacuity: true}),
		cs("counters-violated", counters{N: 3, fair: Weak}, []Property[cstate]{zero}, Options{}),
		cs("counters-two", counters{N: 3, fair: Weak}, []Property[cstate]{drains, zero}, Options{Coverage: true}),
		cs("counters-depth-bound", counters{N: 3, fair: Weak}, []Property[cstate]{leaves}, Options{MaxDepth: 5}),
		cs("counters-depth-bound-violated", counters{N: 3, fair: Weak}, []Property[cstate]{empties}, Options{MaxDepth: 5}),
		cs("counters-4", counters{N: 4, fair: Weak}, []Property[cstate]{leaves}, Options{}),
		cs("counters-4-workers", counters{N: 4, fair: Weak}, []Property[cstate]{empties}, Options{Workers: 3}),
		cs("counters-4-spilled", counters{N: 4, fair: Weak}, []Property[cstate]{leaves}, Options{SpillBytes: 200, SpillDir: t.TempDir()}),
		cs("counters-4-spilled-violated", counters{N: 4, fair: Weak}, []Property[cstate]{empties}, Options{SpillBytes: 300, SpillDir: t.TempDir()}),
		cs("symmetry", symCounters{counters{N: 3, fair: Weak}}, []Property[cstate]{drains, zero}, Options{Symmetry: true, LivenessSymmetrySound: true}),
		cs("symmetry-orbits", orbCounters{symCounters{counters{N: 3, fair: Weak}}}, []Property[cstate]{drains}, Options{Symmetry: true, LivenessSymmetrySound: true}),
		ms("mutex-weak", mutex{fair: allFair(Weak)}, []Property[mstate]{enters(0)}, Options{}),
		ms("mutex-strong", mutex{fair: allFair(Strong)}, []Property[mstate]{enters(0), enters(1)}, Options{}),
		ms("peterson-unfair", mutex{peterson: true, fair: allFair(Unfair)}, []Property[mstate]{enters(1)}, Options{}),
		ms("peterson-weak", mutex{peterson: true, fair: allFair(Weak)}, []Property[mstate]{enters(0)}, Options{}),
		u32("eventually-never", chain{n: 40, wrap: true}, []Property[uint32]{{Name: "P", Kind: Eventually, State: at(45)}}, Options{}),
		u32("always-eventually-end", chain{n: 30}, []Property[uint32]{{Name: "P", Kind: AlwaysEventually, State: at(5)}}, Options{}),
		u32("leadsto", chain{n: 30, wrap: true}, []Property[uint32]{{Name: "P", Kind: LeadsTo, P: at(8), Q: at(2)}}, Options{}),
		u32("rings", rings{k: 4, l: 9}, []Property[uint32]{{Name: "Sink", Kind: Eventually, State: at(36)}}, Options{}),
		u32("cut-weak", tiny{steps: spin, cuts: []tstep{{0, 2, 2}, {1, 2, 2}}, fair: []Fairness{w, w, w, w}, names: names}, []Property[uint32]{goal}, Options{}),
		u32("cut-strong", tiny{steps: spin, cuts: []tstep{{0, 2, 2}}, fair: []Fairness{w, w, s, w}, names: names}, []Property[uint32]{goal}, Options{}),
		u32("cut-other-cycle", tiny{steps: append([]tstep{{0, 3, 3}, {3, 4, 0}, {4, 3, 1}}, spin...), cuts: []tstep{{0, 2, 2}, {1, 2, 2}}, fair: []Fairness{w, w, w, u}, names: names}, []Property[uint32]{goal}, Options{}),
		u32("cut-stutter", tiny{cuts: []tstep{{0, 2, 2}}, fair: []Fairness{w, w, u, w}, names: names}, []Property[uint32]{goal}, Options{}),
	}
	for _, tc := range tests {
		for _, parts := range []int{1, 2, 3, 5} {
			tc.run(t, parts, parts == 3)
		}
	}
}

// TestPartitionedLivenessMaxStates: a liveness property with --max-states across 1, 2 and 3
// parts gives one process's result and graph, at every limit from 1 to past the whole graph
// for small models and at limits spread over larger ones: the stop in the middle of a segment
// and of a level, the states beyond it unexpanded with their flags, a lasso among the states
// expanded, and the cut steps, weak and strong fairness.
func TestPartitionedLivenessMaxStates(t *testing.T) {
	defer small()()
	oneOne := func(s *cstate) bool { return s.C[0] == 1 && s.C[1] == 1 }
	empties := Property[cstate]{Name: "OneOneEmpties", Kind: LeadsTo, P: oneOne, Q: func(s *cstate) bool { return s.C[0] == 0 }}
	drains := Property[cstate]{Name: "FullZeroDrains", Kind: LeadsTo, P: func(s *cstate) bool { return s.C[0] == 3 }, Q: func(s *cstate) bool { return s.C[0] < 3 }}
	at := func(n uint32) func(*uint32) bool { return func(s *uint32) bool { return *s == n } }
	names := []string{"Spin", "Back", "Recover", "Other"}
	w, u := Weak, Unfair
	spin := []tstep{{0, 1, 0}, {1, 0, 1}}
	goal := Property[uint32]{Name: "ReachesGoal", Kind: Eventually, State: at(2)}
	type tcase struct {
		name  string
		whole int64 // the states of the whole graph (from one process, checked)
		every int64 // the limits tried: 1 to whole+1 by this step
		run   func(t *testing.T, name string, opts Options, parts int)
	}
	cs := func(name string, m Model[cstate], props []Property[cstate], opts Options, every int64) tcase {
		whole := Check(m, props, Options{Workers: opts.Workers}).Stats.Distinct
		return tcase{name, whole, every, func(t *testing.T, name string, o Options, parts int) {
			o.Workers = opts.Workers
			liveParity(t, name, m, props, o, parts, parts == 3)
		}}
	}
	ms := func(name string, m Model[mstate], props []Property[mstate], every int64) tcase {
		whole := Check(m, props, Options{}).Stats.Distinct
		return tcase{name, whole, every, func(t *testing.T, name string, o Options, parts int) {
			liveParity(t, name, m, props, o, parts, parts == 3)
		}}
	}
	u32 := func(name string, m Model[uint32], props []Property[uint32], every int64) tcase {
		whole := Check(m, props, Options{}).Stats.Distinct
		return tcase{name, whole, every, func(t *testing.T, name string, o Options, parts int) {
			liveParity(t, name, m, props, o, parts, parts == 3)
		}}
	}
	tests := []tcase{
		cs("counters-ok", counters{N: 3, fair: Weak}, []Property[cstate]{drains}, Options{}, 1),
		cs("counters-violated", counters{N: 3, fair: Weak}, []Property[cstate]{empties}, Options{}, 1),
		cs("counters-4-workers", counters{N: 4, fair: Weak}, []Property[cstate]{empties, drains}, Options{Workers: 3}, 7),
		ms("mutex-strong", mutex{fair: allFair(Strong)}, []Property[mstate]{enters(0), enters(1)}, 1),
		ms("peterson-weak", mutex{peterson: true, fair: allFair(Weak)}, []Property[mstate]{enters(0)}, 1),
		u32("rings", rings{k: 4, l: 9}, []Property[uint32]{{Name: "Sink", Kind: Eventually, State: at(36)}}, 1),
		u32("cut-other-cycle", tiny{steps: append([]tstep{{0, 3, 3}, {3, 4, 0}, {4, 3, 1}}, spin...), cuts: []tstep{{0, 2, 2}, {1, 2, 2}}, fair: []Fairness{w, w, w, u}, names: names}, []Property[uint32]{goal}, 1),
	}
	for _, tc := range tests {
		if tc.name == "counters-4-workers" && tc.whole < 3*int64(segmentStates) {
			t.Fatalf("%s: %d states, too few to stop in the middle of a level's segments", tc.name, tc.whole)
		}
		for limit := int64(1); limit <= tc.whole+1; limit += tc.every {
			for _, parts := range []int{1, 2, 3} {
				tc.run(t, tc.name+" max-states="+strconv.FormatInt(limit, 10), Options{MaxStates: limit}, parts)
			}
		}
	}
}

func liveParity[S any](t *testing.T, name string, m Model[S], props []Property[S], opts Options, parts int, dup bool) {
	t.Helper()
	name += " parts=" + strconv.Itoa(parts)
	want := Check(m, props, opts)
	_, we := singleEngine(m, props, opts)
	got, ge, _ := partitionedEngine(t, m, props, opts, parts, dup)
	got.Stats.Spilled, want.Stats.Spilled = 0, 0 // the frontier's spill: the parts hold the frontier
	same(t, name, got, want)
	if got.Verdict == Violated && got.Trace == nil && want.Trace != nil {
		t.Errorf("%s: no lasso", name)
	}
	sameGraph(t, name, ge, we)
}

// TestPartitionedLivenessFit: a gathered graph beyond the coordinator's --memory budget stops
// the search, incomplete, saying so and naming what to do instead; a spill folder that
// cannot be written does too.
func TestPartitionedLivenessFit(t *testing.T) {
	defer small()()
	p := Property[cstate]{Name: "OneOneLeaves", Kind: LeadsTo, P: func(s *cstate) bool { return s.C[0] == 1 && s.C[1] == 1 },
		Q: func(s *cstate) bool { return s.C[0] != 1 || s.C[1] != 1 }}
	for _, tc := range []struct {
		name string
		opts Options
		want []string
	}{
		{"memory", Options{MemoryBytes: 1 << 10, SpillBytes: -1}, []string{"more than --memory 1024", "--spill-dir", "--max-depth"}},
		{"spill", Options{SpillBytes: 10, SpillDir: "/nonexistent/kmc-spill"}, []string{"spill", "--memory", "--max-depth"}},
	} {
		got, _, _ := partitionedEngine(t, counters{N: 4, fair: Weak}, []Property[cstate]{p}, tc.opts, 2, false)
		if got.Verdict != Incomplete {
			t.Errorf("%s: %s %q, want incomplete", tc.name, got.Verdict, got.Reason)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(got.Reason, w) {
				t.Errorf("%s: reason %q does not say %q", tc.name, got.Reason, w)
			}
		}
	}
}

// TestPartitionedLivenessWire reports the bytes the gathering adds per edge of the graph,
// by kind of message (go test -run LivenessWire -v ./checker): the owners' answers to every
// claim, the claimants' indices of their winners, and the records with the parent links.
func TestPartitionedLivenessWire(t *testing.T) {
	zero := Property[cstate]{Name: "FullZeroDrains", Kind: LeadsTo, P: func(s *cstate) bool { return s.C[0] == 3 }, Q: func(s *cstate) bool { return s.C[0] < 3 }}
	for _, parts := range []int{2, 3} {
		got, _, by := partitionedEngine(t, counters{N: 5, fair: Weak}, []Property[cstate]{zero}, Options{}, parts, false)
		extra := by[opIdx] + by[opAnswer] + by[opAns] + by[opRecord]
		var all int64
		for _, b := range by {
			all += b
		}
		t.Logf("%d parts: %d states, %d edges; liveness adds %d bytes (%.2f per edge: answers %d, indices %d, records %d) to the search's %d",
			parts, got.Stats.Distinct, got.Stats.GraphEdges, extra, float64(extra)/float64(got.Stats.GraphEdges), by[opAns], by[opIdx], by[opRecord], all-extra)
		if extra == 0 {
			t.Error("no bytes gathered")
		}
	}
}

// badRecords is memTransport whose parts answer the coordinator's first request for records
// with garbage.
type badRecords struct {
	memTransport
	mu   sync.Mutex
	done bool
}

func (t *badRecords) Call(to int, req []byte) ([]byte, error) {
	b, err := t.memTransport.Call(to, req)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err == nil && req[0] == opRecord && !t.done && len(b) > 12 {
		t.done = true
		b = append([]byte(nil), b...)
		for i := 8; i < len(b); i++ {
			b[i] = 0xff
		}
	}
	return b, err
}

// TestPartitionedLivenessMalformed: records that do not parse stop the search with an error,
// not a panic of the coordinator.
func TestPartitionedLivenessMalformed(t *testing.T) {
	zero := Property[cstate]{Name: "FullZeroEmpties", Kind: LeadsTo, P: func(s *cstate) bool { return s.C[0] == 3 }, Q: func(s *cstate) bool { return s.C[0] == 0 }}
	m, props := counters{N: 3, fair: Weak}, []Property[cstate]{zero}
	tr := &badRecords{}
	for i := range 2 {
		p, err := newPart[cstate](m, props, Options{}, 2, i, tr)
		if err != nil {
			t.Fatal(err)
		}
		tr.parts = append(tr.parts, p)
	}
	res := checkPartitioned[cstate](m, props, Options{}, 2, tr)
	if res.Verdict != Incomplete || !strings.HasPrefix(res.Reason, "partitioned search: ") {
		t.Errorf("got %s %q, want incomplete with the partitioned search's error", res.Verdict, res.Reason)
	}
}

// TestCheckpointSkippable: a search with a liveness property and checkpoints keeps its graph
// in memory, unless the checkpoints can be skipped (a cluster's rollback): then the graph
// spills past SpillBytes, the search takes checkpoints until it does and none after, and
// each checkpoint taken resumes to the uninterrupted result. One process and 2 parts.
func TestCheckpointSkippable(t *testing.T) {
	defer small()()
	oneOne := func(s *cstate) bool { return s.C[0] == 1 && s.C[1] == 1 }
	empties := Property[cstate]{Name: "OneOneEmpties", Kind: LeadsTo, P: oneOne, Q: func(s *cstate) bool { return s.C[0] == 0 }}
	m, props := counters{N: 4, fair: Weak}, []Property[cstate]{empties}
	want := Check(m, props, Options{})
	for _, parts := range []int{0, 2} {
		all := 0 // the checkpoints taken when none can be skipped
		for _, skip := range []bool{false, true} {
			name := "parts=" + itoa(parts) + " skippable=" + strconv.FormatBool(skip)
			var snaps [][]byte
			var at []int
			opts := Options{SpillBytes: 300, SpillDir: t.TempDir(), CheckpointSkippable: skip,
				CheckpointAt: func(depth int, _ int64) bool { at = append(at, depth); return true },
				Checkpoint:   func(s *Snapshot) { snaps = append(snaps, writeSnap(t, s)) }}
			var got Result
			if parts == 0 {
				got = Check(m, props, opts)
			} else {
				got = partitioned(t, m, props, opts, parts, false)
			}
			if d := sameResult(got, want); d != "" {
				t.Errorf("%s: %s", name, d)
			}
			switch {
			case !skip && (got.Stats.GraphSpilled != 0 || len(snaps) != len(at) || len(snaps) < 3):
				t.Errorf("%s: %d bytes of the graph spilled, %d checkpoints of %d asked; want none spilled, all taken", name, got.Stats.GraphSpilled, len(snaps), len(at))
			case skip && (got.Stats.GraphSpilled == 0 || len(snaps) == 0 || len(snaps) >= all):
				t.Errorf("%s: %d bytes of the graph spilled, %d checkpoints (%d without spilling); want some spilled, the checkpoints before it taken", name, got.Stats.GraphSpilled, len(snaps), all)
			}
			if !skip {
				all = len(snaps)
			}
			for i, b := range snaps {
				if d := sameResult(Check(m, props, Options{Resume: readSnap(t, b)}), want); d != "" {
					t.Errorf("%s: checkpoint %d resumed: %s", name, i+1, d)
				}
			}
		}
	}
}
