package checker

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// Reference: issue 11, "Long runs": a search checkpointed between two segments and resumed
// ends with the same counts, depth, verdict and counterexample as one never stopped, for
// any number of workers on either side (TLC requires the same worker count; kmc does not).

// sameResult reports how got differs from want in what a resumed search must reproduce:
// verdict, property, reason, bounds to raise, counts, depth and the counterexample.
func sameResult(got, want Result) string {
	g, w := got.Stats, want.Stats
	var d []string
	if got.Verdict != want.Verdict || got.Property != want.Property || got.Reason != want.Reason {
		d = append(d, "verdict "+string(got.Verdict)+" "+got.Property+" "+got.Reason+", want "+string(want.Verdict)+" "+want.Property+" "+want.Reason)
	}
	if !reflect.DeepEqual(got.Raise, want.Raise) {
		d = append(d, "raise differs")
	}
	if g.Unreduced != w.Unreduced {
		d = append(d, "unreduced "+itoa(int(g.Unreduced))+", want "+itoa(int(w.Unreduced)))
	}
	if g.Generated != w.Generated || g.Distinct != w.Distinct || g.Queue != w.Queue || g.Depth != w.Depth || g.Collision != w.Collision {
		d = append(d, "stats "+itoa(int(g.Generated))+"/"+itoa(int(g.Distinct))+"/"+itoa(int(g.Queue))+" depth "+itoa(g.Depth)+
			", want "+itoa(int(w.Generated))+"/"+itoa(int(w.Distinct))+"/"+itoa(int(w.Queue))+" depth "+itoa(w.Depth))
	}
	if !reflect.DeepEqual(got.Trace, want.Trace) {
		d = append(d, "trace differs")
	}
	// Vacuity and coverage: a resumed search counts the steps taken before the snapshot.
	if !reflect.DeepEqual(got.Taken, want.Taken) || !reflect.DeepEqual(got.Vacuous, want.Vacuous) {
		d = append(d, fmt.Sprintf("taken %v vacuous %q, want %v %q", got.Taken, got.Vacuous, want.Taken, want.Vacuous))
	}
	if !reflect.DeepEqual(got.Coverage, want.Coverage) {
		d = append(d, fmt.Sprintf("coverage %v, want %v", got.Coverage, want.Coverage))
	}
	if !reflect.DeepEqual(got.Tallies, want.Tallies) {
		d = append(d, fmt.Sprintf("the model's own counts %v, want %v", got.Tallies, want.Tallies))
	}
	return strings.Join(d, "; ")
}

// writeSnap writes a snapshot and checks that Size tells its length.
func writeSnap(t *testing.T, s *Snapshot) []byte {
	t.Helper()
	var b bytes.Buffer
	n, err := s.WriteTo(&b)
	if err != nil || n != int64(b.Len()) || n != s.Size() {
		t.Fatalf("WriteTo: %d bytes, %v; buffer %d, Size %d", n, err, b.Len(), s.Size())
	}
	return b.Bytes()
}

func readSnap(t *testing.T, b []byte) *Snapshot {
	t.Helper()
	s, err := ReadSnapshot(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("ReadSnapshot: %v", err)
	}
	return s
}

// checkResume runs the search once without checkpoints (the reference), once with a
// checkpoint after every segment, and resumes each checkpoint with 1, 2 and 4 workers: every
// run must give the reference's result. It returns the checkpoints.
func checkResume[S any](t *testing.T, name string, m Model[S], props []Property[S], opts Options) [][]byte {
	t.Helper()
	opts.Workers = 1
	want := Check(m, props, opts)
	var snaps [][]byte
	opts.Workers = 3
	opts.CheckpointAt = func(int, int64) bool { return true }
	opts.Checkpoint = func(s *Snapshot) { snaps = append(snaps, writeSnap(t, s)) }
	if d := sameResult(Check(m, props, opts), want); d != "" {
		t.Fatalf("%s: with checkpoints: %s", name, d)
	}
	if len(snaps) < 2 {
		t.Fatalf("%s: got %d checkpoints, want some", name, len(snaps))
	}
	opts.CheckpointAt, opts.Checkpoint = nil, nil
	for i, b := range snaps {
		for _, w := range []int{1, 2, 4} {
			opts.Workers = w
			opts.Resume = readSnap(t, b)
			if d := sameResult(Check(m, props, opts), want); d != "" {
				t.Errorf("%s: resumed from checkpoint %d of %d (level %d, %d states expanded) with %d workers: %s",
					name, i+1, len(snaps), opts.Resume.Depth, opts.Resume.Expanded, w, d)
			}
		}
	}
	return snaps
}

func TestResume(t *testing.T) {
	defer small()()
	some := Property[cstate]{Name: "SumReaches2", Kind: Sometimes, State: func(s *cstate) bool { return s.sum() == 2 }}
	// A step property violated from several states of one level, so that the smallest
	// violation so far is carried across checkpoints inside the level.
	step := Property[cstate]{Name: "NoMoveAt5", Kind: ActionProperty,
		Step: func(from *cstate, a uint64, to *cstate) bool { return !(a>>8 == kMove && from.sum() == 5) }}
	checkResume(t, "ok", counters{N: 4}, []Property[cstate]{sumIs(100), some}, Options{})
	checkResume(t, "invariant", counters{N: 4}, []Property[cstate]{sumIs(9)}, Options{})
	checkResume(t, "step", counters{N: 4}, []Property[cstate]{step}, Options{})
	checkResume(t, "deadlock", counters{N: 3, noDec: true, noMove: true}, nil, Options{Deadlock: true})
	checkResume(t, "max-depth", counters{N: 4}, []Property[cstate]{sumIs(100)}, Options{MaxDepth: 6})
	checkResume(t, "symmetry", symCounters{counters{N: 4}}, []Property[cstate]{sumIs(10)}, Options{Symmetry: true})
	checkResume(t, "symmetry, the order open", priority{}, priorityProps(), Options{Symmetry: true})
	// The partial-order reduction: the seen set's indices for the proviso, a violation
	// found under it (its trace shortened by the plain search), and an ok.
	checkResume(t, "por", porCounters{counters{N: 4, noMove: true}}, porProps(4)[:1], Options{POR: true})
	checkResume(t, "por-ok", porCounters{counters{N: 4, noDec: true, noMove: true}}, porProps(4)[1:2], Options{POR: true})
	// The unreduced count (issue 26, defect 4: a resumed search reported none): the class
	// sizes of the states expanded (Orbiter) or committed (CanonicalEncoder) so far go
	// into the snapshot.
	checkResume(t, "symmetry, orbits", orbCounters{symCounters{counters{N: 4}}}, []Property[cstate]{sumIs(100)}, Options{Symmetry: true})
	checkResume(t, "symmetry, canonical encoder", encCounters{orbCounters{symCounters{counters{N: 4}}}}, []Property[cstate]{sumIs(100)}, Options{Symmetry: true})
	// Liveness: the recorded graph, flags, codes and truncated states.
	for _, tc := range []struct {
		name string
		m    mutex
	}{
		{"lock-weak", mutex{fair: allFair(Weak)}},
		{"lock-strong", mutex{fair: allFair(Strong)}},
		{"peterson-weak", mutex{peterson: true, fair: allFair(Weak)}},
	} {
		checkResume(t, tc.name, tc.m, []Property[mstate]{enters(0), enters(1)}, Options{})
	}
	back := Property[cstate]{Name: "BackToZero", Kind: LeadsTo,
		P: func(s *cstate) bool { return s.sum() == 3 }, Q: func(s *cstate) bool { return s.sum() == 0 }}
	checkResume(t, "leadsto", counters{N: 3, fair: Weak}, []Property[cstate]{back}, Options{})
	checkResume(t, "leadsto-max-depth", counters{N: 3, fair: Weak}, []Property[cstate]{back}, Options{MaxDepth: 4})
	// Steps cut by a model bound: cut records and their codes.
	goal := Property[uint32]{Name: "ReachesGoal", Kind: Eventually, State: func(s *uint32) bool { return *s == 2 }}
	cut := tiny{steps: []tstep{{0, 1, 0}, {1, 0, 1}, {0, 3, 3}, {3, 4, 0}, {4, 5, 1}, {5, 6, 0}, {6, 7, 1}},
		cuts: []tstep{{0, 2, 2}, {1, 2, 2}, {4, 2, 2}}, fair: []Fairness{Weak, Weak, Weak, Weak},
		names: []string{"Spin", "Back", "Recover", "Other"}}
	segmentStates = 1
	checkResume[uint32](t, "cut", cut, []Property[uint32]{goal}, Options{})
}

// TestResumeAfterLimit: a search that Stop, the time or the memory budget ends takes a last
// checkpoint where it stopped, and resuming it gives the complete result.
func TestResumeAfterLimit(t *testing.T) {
	defer small()()
	m := counters{N: 4}
	// A liveness property that holds (an incomplete search may find a lasso among the
	// states it expanded; this one has none), so that the liveness tables are recorded.
	holds := Property[cstate]{Name: "Holds", Kind: LeadsTo,
		P: func(s *cstate) bool { return s.sum() == 4 }, Q: func(s *cstate) bool { return s.sum() >= 4 }}
	props := []Property[cstate]{sumIs(100), holds, {Name: "SumReaches2", Kind: Sometimes, State: func(s *cstate) bool { return s.sum() == 2 }}}
	want := Check(m, props, Options{Workers: 1})
	if want.Verdict != OK {
		t.Fatalf("got %s %s, want ok", want.Verdict, want.Property)
	}
	for _, limit := range []string{"stopped", "memory", "time"} {
		stop := make(chan struct{})
		var once sync.Once
		var snaps [][]byte
		opts := Options{Workers: 2, Stop: stop, Checkpoint: func(s *Snapshot) { snaps = append(snaps, writeSnap(t, s)) }}
		switch limit {
		case "stopped":
			opts.CheckpointAt = func(depth int, expanded int64) bool {
				if expanded >= 300 {
					once.Do(func() { close(stop) })
				}
				return false
			}
		case "memory":
			opts.MemoryBytes = 1
		case "time":
			opts.Time = 1
		}
		got := Check(m, props, opts)
		if got.Verdict != Incomplete || !strings.Contains(got.Reason, limit) || len(snaps) != 1 {
			t.Fatalf("%s: got %s %q and %d checkpoints, want incomplete and 1", limit, got.Verdict, got.Reason, len(snaps))
		}
		s := readSnap(t, snaps[0])
		if s.Distinct != got.Stats.Distinct || s.Queue != got.Stats.Queue {
			t.Errorf("%s: the checkpoint has %d distinct, %d on queue; the result %d, %d", limit, s.Distinct, s.Queue, got.Stats.Distinct, got.Stats.Queue)
		}
		if d := sameResult(Check(m, props, Options{Workers: 3, Resume: s}), want); d != "" {
			t.Errorf("%s: resumed: %s", limit, d)
		}
	}
}

// TestResumeUnreducedAfterLimit: the last checkpoint of a search that a limit ends leaves
// out the segment it dropped, whose states were expanded in part: the resumed search
// reports the unreduced count of the one never stopped. Reference: issue 26, defect 4.
func TestResumeUnreducedAfterLimit(t *testing.T) {
	defer small()()
	for _, m := range []Model[cstate]{orbCounters{symCounters{counters{N: 4}}}, encCounters{orbCounters{symCounters{counters{N: 4}}}}} {
		props := []Property[cstate]{sumIs(100)}
		want := Check(m, props, Options{Workers: 1, Symmetry: true})
		if want.Verdict != OK || want.Stats.Unreduced == 0 {
			t.Fatalf("%T: got %s with %d unreduced, want ok with a count", m, want.Verdict, want.Stats.Unreduced)
		}
		stop := make(chan struct{})
		var once sync.Once
		var snaps [][]byte
		opts := Options{Workers: 2, Symmetry: true, Stop: stop, Checkpoint: func(s *Snapshot) { snaps = append(snaps, writeSnap(t, s)) },
			CheckpointAt: func(depth int, expanded int64) bool {
				if expanded >= 60 {
					once.Do(func() { close(stop) })
				}
				return false
			}}
		if got := Check(m, props, opts); got.Verdict != Incomplete || len(snaps) != 1 {
			t.Fatalf("%T: got %s %q and %d checkpoints, want incomplete and 1", m, got.Verdict, got.Reason, len(snaps))
		}
		if d := sameResult(Check(m, props, Options{Workers: 3, Symmetry: true, Resume: readSnap(t, snaps[0])}), want); d != "" {
			t.Errorf("%T: resumed: %s", m, d)
		}
	}
}

// enters0 is a liveness property of the counters: the sum gets back to 0 (unfair: violated
// by stuttering), so that the liveness tables are recorded.
func enters0() Property[cstate] {
	return Property[cstate]{Name: "BackToZero", Kind: LeadsTo,
		P: func(s *cstate) bool { return s.sum() == 4 }, Q: func(s *cstate) bool { return s.sum() == 0 }}
}

// TestResumeRefused: a snapshot is resumed only by the search it was taken from, once; a
// view is written only during its Checkpoint call.
func TestResumeRefused(t *testing.T) {
	defer small()()
	m := counters{N: 3}
	props := []Property[cstate]{sumIs(100), enters0()}
	var snap []byte
	var view *Snapshot
	Check(m, props, Options{Workers: 1, CheckpointAt: func(d int, _ int64) bool { return d == 3 && snap == nil },
		Checkpoint: func(s *Snapshot) { snap, view = writeSnap(t, s), s }})
	if _, err := view.WriteTo(&bytes.Buffer{}); err == nil {
		t.Error("a view written after its Checkpoint call: got no error")
	}
	if got := Check(m, props, Options{Resume: view}); got.Verdict != Incomplete || !strings.Contains(got.Reason, "view") {
		t.Errorf("resuming a view: got %s %q", got.Verdict, got.Reason)
	}
	tests := []struct {
		name  string
		m     Model[cstate]
		props []Property[cstate]
		opts  Options
		want  string
	}{
		{"property", m, []Property[cstate]{sumIs(99), enters0()}, Options{}, "property 1: the snapshot has invariant SumNot100, the search has invariant SumNot99"},
		{"no liveness", m, []Property[cstate]{sumIs(100)}, Options{}, "property 2: the snapshot has leadsto BackToZero, the search has none"},
		{"max depth", m, props, Options{MaxDepth: 7}, "max depth: the snapshot has 0, the search has 7"},
		{"deadlock", m, props, Options{Deadlock: true}, "deadlock: the snapshot has no, the search has yes"},
		{"symmetry", symCounters{m}, props, Options{Symmetry: true, LivenessSymmetrySound: true}, "symmetry: the snapshot has no, the search has yes"},
		{"fairness", m, props, Options{FairnessOverride: []Fairness{Strong}}, "fairness of Inc: the snapshot has unfair, the search has strong"},
		{"initial state", shifted{m}, props, Options{}, "initial state 1 of the model is not an initial state of the snapshot"},
	}
	for _, tc := range tests {
		tc.opts.Resume = readSnap(t, snap)
		got := Check(tc.m, tc.props, tc.opts)
		if got.Verdict != Incomplete || !strings.Contains(got.Reason, tc.want) {
			t.Errorf("%s: got %s %q, want incomplete %q", tc.name, got.Verdict, got.Reason, tc.want)
		}
	}
	s := readSnap(t, snap)
	Check(m, props, Options{Resume: s})
	if s.set != nil || s.links != nil || s.cur != nil || s.etgt != nil || s.flags != nil {
		t.Error("a snapshot taken over still holds its tables (it would keep their first copies alive)")
	}
	if got := Check(m, props, Options{Resume: s}); got.Verdict != Incomplete || !strings.Contains(got.Reason, "resumed already") {
		t.Errorf("resuming twice: got %s %q", got.Verdict, got.Reason)
	}
}

// shifted is counters starting from another state.
type shifted struct{ counters }

func (m shifted) Init(buf []cstate) []cstate { return append(buf, cstate{C: [4]uint8{1}}) }

// TestSnapshotCorrupt: every truncation and every changed byte of a snapshot is refused with
// an error, and WriteTo(ReadSnapshot(b)) gives b back.
func TestSnapshotCorrupt(t *testing.T) {
	defer small()()
	var snap []byte
	Check(counters{N: 2}, []Property[cstate]{enters0()}, Options{Workers: 1,
		CheckpointAt: func(d int, _ int64) bool { return d == 3 && snap == nil },
		Checkpoint:   func(s *Snapshot) { snap = writeSnap(t, s) }})
	if got := writeSnap(t, readSnap(t, snap)); !bytes.Equal(got, snap) {
		t.Fatal("a snapshot read back writes other bytes")
	}
	for n := 0; n < len(snap); n++ {
		if _, err := ReadSnapshot(bytes.NewReader(snap[:n]), int64(n)); err == nil {
			t.Fatalf("truncated to %d of %d bytes: got no error", n, len(snap))
		}
	}
	b := append([]byte(nil), snap...)
	for i := range b {
		b[i] ^= 0x5a
		if _, err := ReadSnapshot(bytes.NewReader(b), int64(len(b))); err == nil {
			t.Fatalf("byte %d of %d changed: got no error", i, len(b))
		}
		b[i] ^= 0x5a
	}
	// A snapshot whose checksums are right but whose contents disagree (a parent link to a
	// later state) is refused too.
	b = append(b[:0], snap...)
	off := sectionOffset(t, b, "PRNT") + 12 + 8
	binary.LittleEndian.PutUint32(b[off+4:], 1000)
	fixChecksums(b)
	if _, err := ReadSnapshot(bytes.NewReader(b), int64(len(b))); err == nil || !strings.Contains(err.Error(), "parent") {
		t.Errorf("a parent link to a later state: got %v", err)
	}
	// A snapshot of format version 2 (before the class sizes were carried) is refused,
	// saying why. Reference: issue 26, defect 4.
	b = append(b[:0], snap...)
	binary.LittleEndian.PutUint32(b[len(snapMagic):], 2)
	want := "snapshot: format version 2, written by an older kmc; this kmc reads versions 3 to 4: start the search over"
	if _, err := ReadSnapshot(bytes.NewReader(b), int64(len(b))); err == nil || err.Error() != want {
		t.Errorf("version 2: got %v, want %s", err, want)
	}
}

// sectionOffset is where section tag starts in snapshot b.
func sectionOffset(t testing.TB, b []byte, tag string) int {
	for off := len(snapMagic) + 4; off+12 <= len(b); {
		n := int(binary.LittleEndian.Uint64(b[off+4:]))
		if string(b[off:off+4]) == tag {
			return off
		}
		off += 12 + n + 4
	}
	t.Fatalf("no section %s", tag)
	return 0
}

// fixChecksums recomputes the CRC of every section of b whose framing holds, so that
// tests and the fuzz target reach the checks behind the checksums.
func fixChecksums(b []byte) {
	for off := len(snapMagic) + 4; off+16 <= len(b); {
		n := binary.LittleEndian.Uint64(b[off+4:])
		if n > uint64(len(b)-off-16) {
			return
		}
		end := off + 12 + int(n)
		binary.LittleEndian.PutUint32(b[end:], crc32.Checksum(b[off:end], castagnoli))
		off = end + 4
	}
}

// FuzzReadSnapshot: reading any bytes as a snapshot never panics, and a snapshot read
// without error writes back the same bytes. Seeded with real snapshots; each input is also
// tried with its checksums fixed, to reach the checks behind them.
func FuzzReadSnapshot(f *testing.F) {
	// Small searches, so that the seeds are small: safety, and liveness with cut steps.
	restore := small()
	seed := func(s *Snapshot) {
		var b bytes.Buffer
		s.WriteTo(&b)
		f.Add(b.Bytes())
	}
	at2 := func(d int, _ int64) bool { return d == 2 }
	Check(counters{N: 1}, []Property[cstate]{sumIs(100)}, Options{Workers: 1, CheckpointAt: at2, Checkpoint: seed})
	cut := tiny{steps: []tstep{{0, 1, 0}, {1, 0, 1}}, cuts: []tstep{{0, 2, 2}, {1, 2, 2}},
		fair: []Fairness{Weak, Weak, Weak}, names: []string{"Spin", "Back", "Recover"}}
	goal := Property[uint32]{Name: "ReachesGoal", Kind: Eventually, State: func(s *uint32) bool { return *s == 2 }}
	Check[uint32](cut, []Property[uint32]{goal}, Options{Workers: 1, CheckpointAt: at2, Checkpoint: seed})
	// Format version 4's counts of the steps taken, and its wide form (a partitioned search
	// from a global index beyond 2^32); a version 3 snapshot.
	counts := func(s *Snapshot) {
		var b bytes.Buffer
		s.WriteTo(&b)
		f.Add(b.Bytes())
		f.Add(toVersion3(f, b.Bytes()))
	}
	Check(counters{N: 1}, []Property[cstate]{sumIs(100)}, Options{Workers: 1, Coverage: true, Vacuity: true, CheckpointAt: at2, Checkpoint: counts})
	// A model's own counts (Tallier).
	Check[cstate](newTallying(counters{N: 1}), []Property[cstate]{sumIs(100)}, Options{Workers: 1, Coverage: true, CheckpointAt: at2, Checkpoint: counts})
	defer func(b uint64) { partIndexBase = b }(partIndexBase)
	partIndexBase = 1<<32 - 37
	b := Bind(counters{N: 1}, []Property[cstate]{sumIs(100)}).(Partitioner)
	tr := &memTransport{}
	p, _ := b.NewPart(Options{}, 1, 0, tr)
	tr.parts = []Part{p}
	b.CheckPartitioned(Options{Vacuity: true, CheckpointAt: at2, Checkpoint: seed}, 1, tr)
	restore()
	f.Add([]byte(snapMagic + "\x01\x00\x00\x00HEAD"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, fix := range []bool{false, true} {
			if fix {
				b = append([]byte(nil), b...)
				fixChecksums(b)
			}
			s, err := ReadSnapshot(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				continue
			}
			var out bytes.Buffer
			if binary.LittleEndian.Uint32(b[len(snapMagic):]) < snapVersion {
				// An older version is written as the current one: read that back.
				if _, err := s.WriteTo(&out); err != nil {
					t.Fatal(err)
				}
				if _, err := ReadSnapshot(bytes.NewReader(out.Bytes()), int64(out.Len())); err != nil {
					t.Fatalf("an older snapshot read, written and read again: %v", err)
				}
				continue
			}
			if _, err := s.WriteTo(&out); err != nil || !bytes.Equal(out.Bytes(), b) {
				t.Fatalf("read back and written: %v, equal %v", err, bytes.Equal(out.Bytes(), b))
			}
		}
	})
}
