package specs

import (
	"os"
	"reflect"
	"testing"
)

// TestSpillSeeds: with every full frontier block spilled to disk (SpillBytes 1), the seed
// specs. checks give the same verdict, counts and counterexample as in memory, with one and
// two workers, and leave no file behind. Reference: issue 14 (frontier spilling).
func TestSpillSeeds(t *testing.T) {
	tests := []struct {
		path, check string
		sets        []string
	}{
		{"twophase.toml", "fixed", []string{"rms=6"}},
		{"kafka-18723.toml", "buggy", nil},
		{"kafka-13077.toml", "fixed", nil},
	}
	for _, tc := range tests {
		s, c := loadCheck(t, tc.path, tc.check, tc.sets...)
		r, opts, err := s.Runnable(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{1, 2} {
			opts.Workers = w
			opts.SpillBytes, opts.SpillDir = 0, ""
			want := r.Check(opts)
			dir := t.TempDir()
			opts.SpillBytes, opts.SpillDir = 1, dir
			got := r.Check(opts)
			name := tc.path + " " + tc.check
			if got.Verdict != want.Verdict || got.Property != want.Property || got.Reason != want.Reason {
				t.Errorf("%s w=%d: got %s %s %s, want %s %s %s", name, w, got.Verdict, got.Property, got.Reason, want.Verdict, want.Property, want.Reason)
			}
			g, x := got.Stats, want.Stats
			if g.Distinct != x.Distinct || g.Generated != x.Generated || g.Depth != x.Depth || g.Queue != x.Queue {
				t.Errorf("%s w=%d: got %d distinct %d generated depth %d queue %d, want %d %d %d %d",
					name, w, g.Distinct, g.Generated, g.Depth, g.Queue, x.Distinct, x.Generated, x.Depth, x.Queue)
			}
			if !reflect.DeepEqual(got.Trace, want.Trace) {
				t.Errorf("%s w=%d: the counterexample differs", name, w)
			}
			if g.Spilled == 0 {
				t.Errorf("%s w=%d: got nothing spilled (%d distinct states), want some", name, w, g.Distinct)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("%s w=%d: got %d files left in the spill folder, want none", name, w, len(left))
			}
		}
	}
}
