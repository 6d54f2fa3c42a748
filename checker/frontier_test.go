package checker

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSpillSameResult: a search whose frontier spills every full block to disk gives the
// same verdict, counts and counterexample as one that keeps it in memory, for 1 and 2
// workers, and removes its spill files. Reference: issue 14 (frontier spilling).
func TestSpillSameResult(t *testing.T) {
	defer small()()
	step := Property[cstate]{Name: "NoMoveAt5", Kind: ActionProperty,
		Step: func(from *cstate, a uint64, to *cstate) bool { return !(a>>8 == kMove && from.sum() == 5) }}
	back := Property[cstate]{Name: "BackToZero", Kind: LeadsTo,
		P: func(s *cstate) bool { return s.sum() == 3 }, Q: func(s *cstate) bool { return s.sum() == 0 }}
	tests := []struct {
		name  string
		m     Model[cstate]
		props []Property[cstate]
		opts  Options
	}{
		{"ok", counters{N: 5}, []Property[cstate]{sumIs(100)}, Options{}},
		{"invariant", counters{N: 5}, []Property[cstate]{sumIs(14)}, Options{}},
		{"step", counters{N: 5}, []Property[cstate]{step}, Options{}},
		{"deadlock", counters{N: 5, noDec: true, noMove: true}, nil, Options{Deadlock: true}},
		{"max-states", counters{N: 5}, []Property[cstate]{sumIs(100)}, Options{MaxStates: 700}},
		{"symmetry", symCounters{counters{N: 12}}, []Property[cstate]{sumIs(100)}, Options{Symmetry: true}},
		{"leadsto", counters{N: 4, fair: Weak}, []Property[cstate]{back}, Options{}},
		{"leadsto-max-depth", counters{N: 4, fair: Weak}, []Property[cstate]{back}, Options{MaxDepth: 6}},
	}
	for _, tc := range tests {
		for _, w := range []int{1, 2} {
			opts := tc.opts
			opts.Workers = w
			want := Check(tc.m, tc.props, opts)
			if want.Stats.Spilled != 0 {
				t.Fatalf("%s w=%d: got %d bytes spilled without a budget, want 0", tc.name, w, want.Stats.Spilled)
			}
			dir := t.TempDir()
			opts.SpillBytes, opts.SpillDir = 1, dir
			got := Check(tc.m, tc.props, opts)
			if d := sameResult(got, want); d != "" {
				t.Errorf("%s w=%d: spilling: %s", tc.name, w, d)
			}
			if got.Stats.Spilled == 0 {
				t.Errorf("%s w=%d: got nothing spilled, want some", tc.name, w)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("%s w=%d: got %d files left in the spill directory, want none", tc.name, w, len(left))
			}
		}
	}
}

// TestSpillResume: checkpoints taken while the frontier is on disk resume to the same result.
func TestSpillResume(t *testing.T) {
	defer small()()
	checkResume(t, "spill", counters{N: 4}, []Property[cstate]{sumIs(100)}, Options{SpillBytes: 1, SpillDir: t.TempDir()})
	checkResume(t, "spill-invariant", counters{N: 4}, []Property[cstate]{sumIs(9)}, Options{SpillBytes: 1, SpillDir: t.TempDir()})
}

// TestSpillRoundTrip writes frontier blocks to disk and reads them back; a block changed on
// disk fails its checksum.
func TestSpillRoundTrip(t *testing.T) {
	defer small()()
	dir := t.TempDir()
	var written int64
	var f frontier
	f.sp = &spillFile{dir: dir, total: &written}
	defer f.close()
	f.reset(7)
	var want [][]byte
	for k := range 95 {
		enc := make([]byte, k%13)
		for j := range enc {
			enc[j] = byte(k*31 + j)
		}
		want = append(want, enc)
		f.add(enc)
	}
	if err := f.spill(0); err != nil {
		t.Fatal(err)
	}
	if f.blocks[0].inMem() || !f.blocks[0].spilled || f.blocks[len(f.blocks)-1].spilled || written == 0 {
		t.Fatalf("got first block in memory %v spilled %v, last spilled %v, %d bytes written; want full blocks on disk only",
			f.blocks[0].inMem(), f.blocks[0].spilled, f.blocks[len(f.blocks)-1].spilled, written)
	}
	n := 0
	if err := f.each(0, func(k int, enc []byte) {
		if string(enc) != string(want[k]) {
			t.Errorf("state %d: got %v, want %v", k, enc, want[k])
		}
		n++
	}); err != nil || n != len(want) {
		t.Fatalf("each: %d states, %v; want %d", n, err, len(want))
	}
	total := 0
	for _, enc := range want {
		total += len(enc)
	}
	if got, w := f.size(0), int64(total); got != w {
		t.Errorf("size: got %d, want %d", got, w)
	}
	// The file is unlinked once created (nothing left behind however the process ends):
	// it is changed through the open file.
	if names, _ := filepath.Glob(filepath.Join(dir, "kmc-frontier-*.spill")); len(names) != 0 || !f.sp.unlinked {
		t.Errorf("got spill files %v (unlinked %v), want none in the folder", names, f.sp.unlinked)
	}
	if !strings.HasPrefix(filepath.Base(f.sp.f.Name()), "kmc-frontier-"+strconv.Itoa(os.Getpid())+"-") {
		t.Errorf("spill file %s: want the pid in its name", f.sp.f.Name())
	}
	b := make([]byte, f.sp.size)
	if _, err := f.sp.f.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if _, err := f.sp.f.WriteAt(b, 0); err != nil {
		t.Fatal(err)
	}
	err := f.each(0, func(int, []byte) {})
	if !errors.Is(err, errSpillCorrupt) {
		t.Errorf("read of a changed block: got %v, want %v", err, errSpillCorrupt)
	}
	f.close()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("got %d files left after close, want none", len(left))
	}
}
