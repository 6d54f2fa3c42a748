package checker

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
)

// TestResumeCounts: a resumed search reports the vacuity (Result.Taken, Result.Vacuous) and
// the coverage (Result.Coverage) of a search never stopped, since the snapshot carries the
// kinds of action taken and the per-kind counts so far: the single-process engine's
// checkpoints after every segment resumed with 1, 2 and 4 workers, and a partitioned
// search's level checkpoints resumed by one process and by 1, 2 and 3 parts (sameResult
// compares Taken, Vacuous and Coverage). Before format version 4 a resumed search reported
// no vacuity at all, and a partitioned search rolled back to a checkpoint (kmc check
// --cluster after a lost node) counted coverage from the checkpoint on only.
func TestResumeCounts(t *testing.T) {
	defer small()()
	// Move is never taken without moves: the vacuity report must say so after a resume too.
	for _, tc := range []struct {
		name string
		m    counters
		opts Options
	}{
		{"vacuity", counters{N: 4}, Options{Vacuity: true}},
		{"vacuity, a kind never taken", counters{N: 4, noMove: true}, Options{Vacuity: true}},
		{"coverage", counters{N: 4}, Options{Coverage: true}},
		{"coverage and vacuity, a kind never taken", counters{N: 4, noMove: true}, Options{Coverage: true, Vacuity: true}},
		{"vacuity, max depth", counters{N: 4}, Options{Vacuity: true, Coverage: true, MaxDepth: 5}},
	} {
		want := Check(tc.m, []Property[cstate]{sumIs(100)}, tc.opts)
		if tc.opts.Vacuity && len(want.Taken) == 0 || tc.opts.Coverage && len(want.Coverage) == 0 {
			t.Fatalf("%s: the reference reports no vacuity or coverage", tc.name)
		}
		checkResume(t, tc.name, tc.m, []Property[cstate]{sumIs(100)}, tc.opts)
		partitionedResume(t, tc.name, tc.m, []Property[cstate]{sumIs(100)}, tc.opts)
	}
	// A search that finds a violation: its counts through the segment where it stops.
	checkResume(t, "vacuity, invariant", counters{N: 4}, []Property[cstate]{sumIs(9)}, Options{Vacuity: true, Coverage: true})
	partitionedResume(t, "vacuity, invariant", counters{N: 4}, []Property[cstate]{sumIs(9)}, Options{Vacuity: true, Coverage: true})
	// Too few states: vacuous.
	checkResume(t, "vacuous", counters{N: 1, noDec: true}, nil, Options{Vacuity: true})
}

// TestResumeCountsIndexBase: the same with the partitioned search's first state at a global
// index beyond 2^32 (its checkpoints then hold 64-bit parent links, format version 4's wide
// snapshots).
func TestResumeCountsIndexBase(t *testing.T) {
	defer small()()
	defer func(b uint64) { partIndexBase = b }(partIndexBase)
	for _, base := range []uint64{1<<32 - 37, maxGlobal - 1<<20} {
		partIndexBase = base
		partitionedResume(t, "coverage and vacuity at "+strconv.FormatUint(base, 10), counters{N: 4, noMove: true},
			[]Property[cstate]{sumIs(100)}, Options{Coverage: true, Vacuity: true})
	}
}

// levelSnaps runs the partitioned search of m on 3 parts with a level checkpoint at every
// level and returns the checkpoints.
func levelSnaps[S any](t *testing.T, m Model[S], props []Property[S], opts Options) [][]byte {
	t.Helper()
	var snaps [][]byte
	opts.CheckpointAt = func(int, int64) bool { return true }
	opts.Checkpoint = func(s *Snapshot) { snaps = append(snaps, writeSnap(t, s)) }
	partitioned(t, m, props, opts, 3, false)
	if len(snaps) < 3 {
		t.Fatalf("%d level checkpoints, want some", len(snaps))
	}
	return snaps
}

// TestWideSnapshot: a partitioned search whose indices pass maxState (here: its first state
// moved to 2^32-37) writes 64-bit parent links and global indices; read back, they are the
// partitioned search's, beyond 32 bits. The single-process engine resumes such a snapshot
// when it holds at most OneProcessStates states, and refuses it otherwise, naming the count
// and the way out, while any number of parts still resume it to the result of a search
// never stopped.
func TestWideSnapshot(t *testing.T) {
	defer small()()
	defer func(b uint64) { partIndexBase = b }(partIndexBase)
	defer func(n int64) { OneProcessStates = n }(OneProcessStates)
	m, props := counters{N: 4}, []Property[cstate]{sumIs(100)}
	opts := Options{Vacuity: true, Coverage: true}
	want := Check(m, props, opts)

	partIndexBase = 0
	for _, b := range levelSnaps(t, m, props, opts) {
		if s := readSnap(t, b); s.wide || s.first != 0 {
			t.Fatalf("a search from state 0 of %d states wrote a wide snapshot (first %d)", s.Distinct, s.first)
		}
	}

	partIndexBase = 1<<32 - 37
	snaps := levelSnaps(t, m, props, opts)
	last := readSnap(t, snaps[len(snaps)-1])
	switch {
	case !last.wide || last.first != partIndexBase:
		t.Fatalf("wide %v, first state %d; want a wide snapshot from %d", last.wide, last.first, partIndexBase)
	case last.curBase != partIndexBase+uint64(last.Expanded) || last.nextBase != partIndexBase+uint64(last.Distinct):
		t.Errorf("frontiers from %d and %d, want global indices %d and %d", last.curBase, last.nextBase,
			partIndexBase+uint64(last.Expanded), partIndexBase+uint64(last.Distinct))
	}
	beyond := 0
	for i, p := range last.par64 {
		if p != noParent && p >= 1<<32 {
			beyond++
		}
		if p != noParent && (p < partIndexBase || p >= partIndexBase+uint64(i)) {
			t.Fatalf("state %d's parent is %d, not a global index of an earlier state", i, p)
		}
	}
	if beyond == 0 {
		t.Error("no parent link beyond 2^32: the test does not test 64-bit links")
	}
	// Written back, the same bytes.
	if got := writeSnap(t, readSnap(t, snaps[len(snaps)-1])); !bytes.Equal(got, snaps[len(snaps)-1]) {
		t.Error("a wide snapshot read back writes other bytes")
	}
	for i, b := range snaps {
		s := readSnap(t, b)
		// It fits in one process: resumed there (narrowed), and on parts.
		OneProcessStates = maxState
		if d := sameResult(Check(m, props, Options{Vacuity: true, Coverage: true, Resume: readSnap(t, b), Workers: 2}), want); d != "" {
			t.Errorf("wide checkpoint %d resumed by one process: %s", i+1, d)
		}
		// One process numbers fewer states than it holds: refused, saying how many.
		OneProcessStates = s.Distinct - 1
		got := Check(m, props, Options{Vacuity: true, Coverage: true, Resume: readSnap(t, b), Workers: 2})
		wantWhy := "resume: the snapshot holds " + strconv.FormatInt(s.Distinct, 10) + " states, more than one process numbers (" +
			strconv.FormatInt(s.Distinct-1, 10) + "): resume it as a partitioned search (--partitions or --cluster)"
		if got.Verdict != Incomplete || got.Reason != wantWhy {
			t.Errorf("wide checkpoint %d of %d states, one process numbering %d: %s %q, want incomplete %q", i+1, s.Distinct, s.Distinct-1, got.Verdict, got.Reason, wantWhy)
		}
		if err := s.OneProcess(); err == nil || !strings.Contains(err.Error(), strconv.FormatInt(s.Distinct, 10)+" states") {
			t.Errorf("OneProcess: %v", err)
		}
		for _, w := range []int{1, 2, 3} {
			if d := sameResult(partitioned(t, m, props, Options{Vacuity: true, Coverage: true, Resume: readSnap(t, b)}, w, false), want); d != "" {
				t.Errorf("wide checkpoint %d resumed by %d parts: %s", i+1, w, d)
			}
		}
		// Its checkpoints, taken again by parts from state 0, are narrow and resume in one
		// process numbering as few states as they hold.
		partIndexBase = 0
		var again [][]byte
		o := Options{Vacuity: true, Coverage: true, Resume: readSnap(t, b), CheckpointAt: func(int, int64) bool { return true },
			Checkpoint: func(s *Snapshot) { again = append(again, writeSnap(t, s)) }}
		partitioned(t, m, props, o, 2, false)
		for _, a := range again {
			n := readSnap(t, a)
			OneProcessStates = n.Distinct
			if n.wide {
				t.Errorf("a checkpoint from state 0 is wide")
			}
			if d := sameResult(Check(m, props, Options{Vacuity: true, Coverage: true, Resume: n}), want); d != "" {
				t.Errorf("wide checkpoint %d resumed on parts, then checkpointed and resumed by one process: %s", i+1, d)
			}
		}
		partIndexBase = 1<<32 - 37
	}
}

// TestSnapshotVersion3: a snapshot of format version 3 (no counts of the steps taken, no
// wide links) is still read and resumed, to the result of a search never stopped but
// without vacuity or coverage, which it cannot know.
func TestSnapshotVersion3(t *testing.T) {
	defer small()()
	m, props := counters{N: 4}, []Property[cstate]{sumIs(100)}
	opts := Options{Vacuity: true, Coverage: true}
	want := Check(m, props, opts)
	var snaps [][]byte
	o := opts
	o.Workers = 2
	o.CheckpointAt = func(int, int64) bool { return true }
	o.Checkpoint = func(s *Snapshot) { snaps = append(snaps, writeSnap(t, s)) }
	Check(m, props, o)
	if len(snaps) < 2 {
		t.Fatalf("%d checkpoints", len(snaps))
	}
	for i, b := range snaps {
		v3 := toVersion3(t, b)
		s, err := ReadSnapshot(bytes.NewReader(v3), int64(len(v3)))
		if err != nil {
			t.Fatalf("checkpoint %d as version 3: %v", i+1, err)
		}
		if s.counted != 0 || s.wide || s.first != 0 {
			t.Fatalf("a version 3 snapshot read with counts %d, wide %v, first %d", s.counted, s.wide, s.first)
		}
		w := want
		w.Taken, w.Vacuous, w.Coverage = nil, nil, nil
		r := opts
		r.Resume = s
		if d := sameResult(Check(m, props, r), w); d != "" {
			t.Errorf("version 3 checkpoint %d resumed: %s", i+1, d)
		}
		r.Resume, _ = ReadSnapshot(bytes.NewReader(v3), int64(len(v3)))
		if d := sameResult(partitioned(t, m, props, r, 2, false), w); d != "" {
			t.Errorf("version 3 checkpoint %d resumed by 2 parts: %s", i+1, d)
		}
	}
}

// toVersion3 rewrites a version 4 snapshot (narrow) as version 3: HEAD without its last
// fields.
func toVersion3(t testing.TB, b []byte) []byte {
	t.Helper()
	s, err := ReadSnapshot(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if s.wide {
		t.Fatal("a wide snapshot has no version 3 form")
	}
	tail := 1 + 8*4 + 8 + 8*len(s.cov) + 8 + 1
	if s.counted&countTally != 0 {
		tail += 8 + 8*len(s.tallies)
	}
	off := sectionOffset(t, b, "HEAD")
	n := int(binary.LittleEndian.Uint64(b[off+4:]))
	out := append([]byte(nil), b[:off+12+n-tail]...)
	binary.LittleEndian.PutUint64(out[off+4:], uint64(n-tail))
	binary.LittleEndian.PutUint32(out[len(snapMagic):], 3)
	out = append(out, 0, 0, 0, 0) // the checksum, fixed below
	out = append(out, b[off+12+n+4:]...)
	fixChecksums(out)
	return out
}
