package checker

import (
	"reflect"
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

func partitioned[S any](t *testing.T, m Model[S], props []Property[S], opts Options, w int, dup bool) Result {
	t.Helper()
	b := Bind(m, props).(Partitioner)
	tr := &memTransport{dup: dup}
	for i := range w {
		p, err := b.NewPart(opts, w, i, tr)
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

// TestPartitionRefusal: liveness and checkpoints stay on one machine.
func TestPartitionRefusal(t *testing.T) {
	live := Property[cstate]{Name: "Ev", Kind: Eventually, State: func(s *cstate) bool { return true }}
	if why := PartitionRefusal(Bind(counters{N: 2}, []Property[cstate]{live}), Options{}); why == "" {
		t.Error("liveness: no refusal")
	}
	if why := PartitionRefusal(Bind(counters{N: 2}, nil), Options{Checkpoint: func(*Snapshot) {}}); why == "" {
		t.Error("checkpoint: no refusal")
	}
	if why := PartitionRefusal(Bind(counters{N: 2}, nil), Options{}); why != "" {
		t.Errorf("safety: refused: %s", why)
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
	f.Add(w.b)
	f.Add([]byte{opClaim, 1, 0, 0, 0})
	f.Add([]byte{opWins, 2, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{opNext, 0, 0, 0, 0, 0, 0, 0, 0, 5})
	f.Add([]byte{opXfer, 0, 0, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3})
	f.Add([]byte{opLink, 9, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{opResolve})
	f.Add([]byte{opCommit})
	f.Add([]byte{opFinish})
	f.Fuzz(func(t *testing.T, msg []byte) {
		tr := &memTransport{}
		p, err := Bind(counters{N: 2}, []Property[cstate]{sumIs(3)}).(Partitioner).NewPart(Options{Workers: 1}, 1, 0, tr)
		if err != nil {
			t.Fatal(err)
		}
		tr.parts = []Part{p}
		_, _ = p.Handle(msg)
		_, _ = p.Handle([]byte{opExpand, 1, 0, 0, 0})
	})
}
