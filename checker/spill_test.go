package checker

import (
	"os"
	"reflect"
	"testing"
)

// checkSpilled is Check, and reports whether the liveness phase read the graph from the
// spill file's mapping and whether the fingerprint set went to disk.
func checkSpilled[S any](m Model[S], props []Property[S], opts Options) (res Result, mapped, setOnDisk bool) {
	e, res, ok := newEngine(m, props, opts)
	if !ok {
		return res, false, false
	}
	res = e.run()
	mapped, setOnDisk = e.es.mapped(), e.set.spilled()
	e.es.close()
	e.set.closeSpill()
	return res, mapped, setOnDisk
}

// spillCase checks m with props twice for each worker count, with the liveness graph in
// memory and spilled to disk after every segment (and mapped for the liveness phase, where
// the OS maps files), and wants the same result: verdict, reason, property, counts and
// lasso. It returns the spilling result.
func spillCase[S any](t *testing.T, name string, m Model[S], props []Property[S], opts Options) Result {
	t.Helper()
	var first Result
	for _, w := range []int{1, 2} {
		opts.Workers = w
		opts.SpillBytes = -1
		plain := Check(m, props, opts)
		opts.SpillBytes = 1
		spilled, mapped, _ := checkSpilled(m, props, opts)
		if want := spilled.Stats.GraphSpilled > 0 && mapsFiles; mapped != want {
			t.Errorf("%s w=%d: got the graph mapped %v, want %v", name, w, mapped, want)
		}
		if plain.Stats.GraphSpilled != 0 {
			t.Errorf("%s w=%d: got %d bytes spilled without spilling, want 0", name, w, plain.Stats.GraphSpilled)
		}
		if spilled.Stats.GraphEdges > 0 && spilled.Stats.GraphSpilled == 0 {
			t.Errorf("%s w=%d: got nothing spilled with SpillBytes 1, want the graph on disk", name, w)
		}
		same := func(a, b Result) bool {
			return a.Verdict == b.Verdict && a.Reason == b.Reason && a.Property == b.Property &&
				a.Stats.Distinct == b.Stats.Distinct && a.Stats.Generated == b.Stats.Generated &&
				a.Stats.Depth == b.Stats.Depth && a.Stats.GraphEdges == b.Stats.GraphEdges &&
				a.Stats.GraphBytes == b.Stats.GraphBytes && reflect.DeepEqual(a.Trace, b.Trace)
		}
		if !same(spilled, plain) {
			t.Errorf("%s w=%d: spilled got %s %q %d states, want the in-memory %s %q %d states with the same lasso",
				name, w, spilled.Verdict, spilled.Reason, spilled.Stats.Distinct, plain.Verdict, plain.Reason, plain.Stats.Distinct)
		}
		// The fingerprint set on disk for the liveness phase and the counterexample's replay
		// (forceSetSpill), with the graph on disk too.
		// The call stack spills too, past one chunk in memory.
		forceSetSpill, keepChunks = true, 1
		setSpilled, _, onDisk := checkSpilled(m, props, opts)
		forceSetSpill, keepChunks = false, 16
		if onDisk != mapsFiles {
			t.Errorf("%s w=%d: got the set spilled %v, want %v", name, w, onDisk, mapsFiles)
		}
		if !same(setSpilled, plain) {
			t.Errorf("%s w=%d: with the set spilled got %s %q %d states, want the in-memory %s %q %d states with the same lasso",
				name, w, setSpilled.Verdict, setSpilled.Reason, setSpilled.Stats.Distinct, plain.Verdict, plain.Reason, plain.Stats.Distinct)
		}
		if w == 1 {
			first = spilled
		} else if !same(spilled, first) {
			t.Errorf("%s: 2 workers got %s %q, want the 1-worker result %s %q", name, spilled.Verdict, spilled.Reason, first.Verdict, first.Reason)
		}
	}
	return first
}

// TestSpillSameResult: a liveness search whose graph spills to disk after every segment
// gives exactly the result of the search that keeps it in memory, on every liveness test
// model (fair cycles, stuttering, cut steps and their strict and lax passes, truncation by
// depth, a component split by strong fairness), for 1 and 2 workers, with the liveness
// phase reading the spill file's mapping; the same with the fingerprint set on disk for the
// liveness phase (the lassos' replay looks their states up in the mapped set); and the spill
// files are gone afterwards. Reference: issues 14 and 31.
func TestGraphSpillSameResult(t *testing.T) {
	defer small()()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	verdicts := map[string]Verdict{}
	for _, tc := range []struct {
		name string
		m    mutex
	}{
		{"lock-unfair", mutex{fair: allFair(Unfair)}}, {"lock-weak", mutex{fair: allFair(Weak)}},
		{"lock-strong", mutex{fair: allFair(Strong)}}, {"peterson-weak", mutex{peterson: true, fair: allFair(Weak)}},
	} {
		verdicts[tc.name] = spillCase(t, tc.name, tc.m, []Property[mstate]{enters(0), enters(1)}, Options{}).Verdict
	}
	full := func(s *cstate) bool { return s.C[0] == 3 }
	for _, p := range []Property[cstate]{
		{Name: "FullZeroEmpties", Kind: LeadsTo, P: full, Q: func(s *cstate) bool { return s.C[0] == 0 }},
		{Name: "FullZeroDrains", Kind: LeadsTo, P: full, Q: func(s *cstate) bool { return s.C[0] < 3 }},
	} {
		m := counters{N: 3, fair: Weak}
		verdicts[p.Name] = spillCase(t, p.Name, m, []Property[cstate]{p}, Options{}).Verdict
		verdicts[p.Name+"-depth"] = spillCase(t, p.Name+"-depth", m, []Property[cstate]{p}, Options{MaxDepth: 5}).Verdict
	}
	w := Weak
	spin := []tstep{{0, 1, 0}, {1, 0, 1}}
	names := []string{"Spin", "Back", "Recover", "Other"}
	goal := Property[uint32]{Name: "ReachesGoal", Kind: Eventually, State: func(s *uint32) bool { return *s == 2 }}
	for _, tc := range []struct {
		name string
		m    tiny
	}{
		{"weak-cut-everywhere", tiny{steps: spin, cuts: []tstep{{0, 2, 2}, {1, 2, 2}}, fair: []Fairness{w, w, w, w}}},
		{"stutter-unfair-cut", tiny{cuts: []tstep{{0, 2, 2}}, fair: []Fairness{w, w, Unfair, w}}},
		{"other-cycle", tiny{steps: append([]tstep{{0, 3, 3}, {3, 4, 0}, {4, 3, 1}}, spin...), cuts: []tstep{{0, 2, 2}, {1, 2, 2}}, fair: []Fairness{w, w, w, Unfair}}},
	} {
		tc.m.names = names
		verdicts[tc.name] = spillCase[uint32](t, tc.name, tc.m, []Property[uint32]{goal}, Options{}).Verdict
	}
	at := func(v uint32) func(*uint32) bool { return func(s *uint32) bool { return *s == v } }
	before := stackChunksWritten.Load()
	verdicts["chain"] = spillCase[uint32](t, "chain", chain{n: 50000, wrap: true},
		[]Property[uint32]{{Name: "NeverEnds", Kind: AlwaysEventually, State: at(70000)}}, Options{}).Verdict
	if written := stackChunksWritten.Load() - before; written == 0 {
		t.Errorf("chain: got no call stack chunk written to disk for a 50,000-state chain, want some")
	}
	verdicts["rings"] = spillCase[uint32](t, "rings", rings{k: 7, l: 30},
		[]Property[uint32]{{Name: "ReachesSink", Kind: Eventually, State: at(7 * 30)}}, Options{}).Verdict
	// The table covers every verdict (a test that always compared two ok results would not).
	want := map[string]Verdict{"lock-unfair": Violated, "lock-weak": Violated, "lock-strong": OK, "peterson-weak": OK,
		"FullZeroEmpties": Violated, "FullZeroDrains": OK, "FullZeroEmpties-depth": Violated, "FullZeroDrains-depth": Incomplete,
		"weak-cut-everywhere": Incomplete, "stutter-unfair-cut": Violated, "other-cycle": Violated, "chain": Violated, "rings": Violated}
	if !reflect.DeepEqual(verdicts, want) {
		t.Errorf("got verdicts %v, want %v", verdicts, want)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("got %d files left in the temp dir, want none", len(left))
	}
}

// TestGraphSpillRoundTrip: a stream spilled in frames, with or without a part left in
// memory, decodes from the mapped file to the edges written, and the mapping is not counted
// as memory the engine holds; a frame changed on disk, or a file cut short, is an error that
// names the frame, not a wrong graph.
func TestGraphSpillRoundTrip(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	// build records 100 states, spilling after every 10 states up to state last.
	build := func(last uint32) *edgeStore {
		s := &edgeStore{}
		for v := range uint32(100) {
			if v%edgeBlock == 0 {
				s.blk = append(s.blk, s.base+uint64(len(s.data)))
			}
			s.data, _ = appendRecord(s.data, v, []uint32{v + 1, noIndex, v / 2, 1 << 30}, []uint32{v % 3, 0, 2, 900})
			s.n++
			if v%10 == 9 && v <= last {
				if err := s.spillOut(""); err != nil {
					t.Fatal(err)
				}
			}
		}
		return s
	}
	// frameStart is the stream offset of frame k (from 1).
	frameStart := func(s *edgeStore, k int) int64 {
		var at int64
		for _, fr := range s.spill.frames[:k-1] {
			at += int64(fr.n)
		}
		return at
	}
	for _, tc := range []struct {
		name   string
		last   uint32
		change func(s *edgeStore) error
		want   string
	}{
		{"all spilled", 99, nil, ""},
		{"tail in memory", 89, nil, ""},
		{"corrupt frame", 99, func(s *edgeStore) error {
			_, err := s.spill.f.WriteAt([]byte{0xff}, frameStart(s, 3)+5)
			return err
		}, "liveness graph: spill: frame 3 of 10 (stream bytes 240 to 360): checksum mismatch"},
		{"truncated", 99, func(s *edgeStore) error {
			return s.spill.f.Truncate(frameStart(s, 10) + 3)
		}, "liveness graph: spill: frame 10 of 10 (stream bytes 1080 to 1200): the file ends at byte 1083"},
	} {
		s := build(tc.last)
		if s.base == 0 || s.spilled != int64(s.base) {
			t.Fatalf("%s: got base %d, %d bytes spilled; want the stream spilled", tc.name, s.base, s.spilled)
		}
		size := int64(s.base) + int64(len(s.data))
		if tc.change != nil {
			if err := s.spill.w.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := tc.change(s); err != nil {
				t.Fatal(err)
			}
		}
		err := s.load()
		if tc.want != "" {
			if err == nil || err.Error() != tc.want {
				t.Errorf("%s: got error %v, want %q", tc.name, err, tc.want)
			}
			s.close()
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if int64(len(s.data)) != size || s.base != 0 {
			t.Errorf("%s: got %d bytes from %d, want the %d of the stream from 0", tc.name, len(s.data), s.base, size)
		}
		if s.mapped() != mapsFiles || mapsFiles && s.bytes() != 8*int64(cap(s.blk)) {
			t.Errorf("%s: got mapped %v, %d bytes held; want mapped %v and only the index held", tc.name, s.mapped(), s.bytes(), mapsFiles)
		}
		s.releaseTo(len(s.data) / 2) // pages handed back are read again
		s.releaseAll()
		for v := range uint32(100) {
			it := s.edges(v)
			var got [][2]uint32
			for w, c, ok := it.next(s.data); ok; w, c, ok = it.next(s.data) {
				got = append(got, [2]uint32{w, c})
			}
			want := [][2]uint32{{v + 1, v % 3}, {v / 2, 2}, {1 << 30, 900}}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: state %d: got edges %v, want %v", tc.name, v, got, want)
			}
		}
		s.close()
		if s.data != nil || s.spill != nil {
			t.Errorf("%s: got the stream still readable after close", tc.name)
		}
	}
}

// TestSetSpillRoundTrip: a fingerprint set with values written to its spill file and mapped
// answers every lookup as it did in memory (present fingerprints with their values, absent
// ones absent), counts as no memory held, and its file is gone once closed; a set without
// values too.
func TestSetSpillRoundTrip(t *testing.T) {
	if !mapsFiles {
		t.Skip("the set is spilled only where files are mapped")
	}
	for _, vals := range []bool{true, false} {
		tmp := t.TempDir()
		s := &fpSet{vals: vals}
		fp := func(i int) uint64 { return uint64(i)*0x9e3779b97f4a7c15 | 1 }
		const n = 50000
		for i := range n {
			sh := &s.shards[shardOf(fp(i))]
			sh.insert(fp(i), uint32(i), vals)
		}
		want := map[uint64]uint32{}
		for i := range n {
			v, ok := s.lookup(fp(i))
			if !ok {
				t.Fatalf("vals=%v: fingerprint %d absent before the spill", vals, i)
			}
			want[fp(i)] = v
		}
		if err := s.spillOut(tmp); err != nil {
			t.Fatalf("vals=%v: spillOut: %v", vals, err)
		}
		if !s.spilled() || s.bytes() != 0 {
			t.Errorf("vals=%v: got spilled %v and %d bytes held, want true and 0", vals, s.spilled(), s.bytes())
		}
		for f, v := range want {
			if got, ok := s.lookup(f); !ok || got != v {
				t.Fatalf("vals=%v: lookup(%x) = %d %v after the spill, want %d true", vals, f, got, ok, v)
			}
		}
		for i := n; i < n+1000; i++ {
			if _, ok := s.lookup(fp(i)); ok {
				t.Fatalf("vals=%v: lookup of absent fingerprint %d found it after the spill", vals, i)
			}
		}
		s.closeSpill()
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("vals=%v: got %d files left in the spill folder, want none", vals, len(left))
		}
		if s.len() != 0 {
			t.Errorf("vals=%v: got %d fingerprints after closeSpill, want 0", vals, s.len())
		}
	}
}
