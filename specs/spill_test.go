package specs

import (
	"reflect"
	"testing"

	"kmc/checker"
)

// TestKafkaSpill: the liveness checks of KAFKA-14154 (buggy: a violation with its lasso;
// fixed: ok) and KAFKA-5480 (buggy) give the same verdict, counts and lasso when the
// liveness graph spills to disk after every segment as when it stays in memory, for 1 and
// 2 workers. Reference: KAFKA-14154, KAFKA-5480; issue 14.
func TestKafkaSpill(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	for _, tc := range []struct{ path, check string }{
		{"kafka-14154.toml", "buggy"}, {"kafka-14154.toml", "fixed"}, {"kafka-5480.toml", "buggy"},
	} {
		spec, err := Load(tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := spec.CheckByName(tc.check)
		if !ok {
			t.Fatalf("%s: no check %s", tc.path, tc.check)
		}
		r, opts, err := spec.Runnable(c)
		if err != nil {
			t.Fatal(err)
		}
		var first checker.Result
		for _, w := range []int{1, 2} {
			opts.Workers = w
			opts.SpillBytes = -1
			plain := r.Check(opts)
			opts.SpillBytes = 1
			spilled := r.Check(opts)
			if plain.Verdict != c.Expect || plain.Stats.Distinct != c.States {
				t.Fatalf("%s %s w=%d: got %s, %d states; want %s, %d", tc.path, tc.check, w, plain.Verdict, plain.Stats.Distinct, c.Expect, c.States)
			}
			if spilled.Stats.GraphSpilled == 0 || plain.Stats.GraphSpilled != 0 {
				t.Errorf("%s %s w=%d: got %d and %d bytes spilled, want some and none", tc.path, tc.check, w, spilled.Stats.GraphSpilled, plain.Stats.GraphSpilled)
			}
			if spilled.Verdict != plain.Verdict || spilled.Property != plain.Property || spilled.Stats.Distinct != plain.Stats.Distinct ||
				spilled.Stats.GraphEdges != plain.Stats.GraphEdges || !reflect.DeepEqual(spilled.Trace, plain.Trace) {
				t.Errorf("%s %s w=%d: spilled got %s %d states %d edges, want %s %d %d with the same lasso", tc.path, tc.check, w,
					spilled.Verdict, spilled.Stats.Distinct, spilled.Stats.GraphEdges, plain.Verdict, plain.Stats.Distinct, plain.Stats.GraphEdges)
			}
			if w == 1 {
				first = spilled
			} else if !reflect.DeepEqual(spilled.Trace, first.Trace) || spilled.Stats.Distinct != first.Stats.Distinct {
				t.Errorf("%s %s: 2 workers got another result than 1", tc.path, tc.check)
			}
		}
		if c.Expect == checker.Violated && first.Trace == nil {
			t.Errorf("%s %s: got no lasso", tc.path, tc.check)
		}
	}
}
