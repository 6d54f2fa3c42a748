package specs

import (
	"slices"
	"testing"

	"kmc/checker"
)

// TestKafkaSymmetrySameVerdict: where the Kafka model's symmetry reduction applies (no
// broker stops, one controller: KAFKA-18723's seed), the verdict and the violated property
// are those of the unreduced search, with fewer states, and the counterexample is a real
// behaviour that replays and violates the property. The fixed check at max_records 3,
// so that the test takes seconds. Reference: KAFKA-18723; issue 14.
func TestKafkaSymmetrySameVerdict(t *testing.T) {
	for _, check := range []string{"buggy", "fixed"} {
		s, c := loadCheck(t, "kafka-18723.toml", check)
		if check == "fixed" {
			c.Config.Values["max_records"] = 3
		}
		r, opts, err := s.Runnable(c)
		if err != nil {
			t.Fatal(err)
		}
		opts.Workers = 2
		plain := r.Check(opts)
		opts.Symmetry = true
		sym := r.Check(opts)
		if sym.Verdict != plain.Verdict || sym.Property != plain.Property {
			t.Fatalf("%s: with symmetry got %s %q, without %s %q", check, sym.Verdict, sym.Property, plain.Verdict, plain.Property)
		}
		if sym.Stats.Distinct >= plain.Stats.Distinct {
			t.Errorf("%s: got %d states with symmetry, want fewer than %d", check, sym.Stats.Distinct, plain.Stats.Distinct)
		}
		if sym.Verdict == checker.OK && sym.Stats.Unreduced != plain.Stats.Distinct {
			t.Errorf("%s: symmetry reports %d unreduced states, the plain search found %d", check, sym.Stats.Unreduced, plain.Stats.Distinct)
		}
		t.Logf("%s: %s, %d states unreduced, %d with symmetry (x%.2f)", check, plain.Verdict,
			plain.Stats.Distinct, sym.Stats.Distinct, float64(plain.Stats.Distinct)/float64(sym.Stats.Distinct))
		if sym.Verdict != checker.Violated {
			continue
		}
		if len(sym.Trace.States) != len(plain.Trace.States) {
			t.Errorf("%s: trace of %d states with symmetry, %d without; want the same length", check, len(sym.Trace.States), len(plain.Trace.States))
		}
		rep, err := r.Replay(sym.Trace)
		if err != nil || !slices.Contains(rep.Violates, sym.Property) {
			t.Errorf("%s: replay of the symmetric trace: got %+v, %v; want it to violate %s", check, rep, err, sym.Property)
		}
	}
}

// Under symmetry, a complete search of a model that gives its classes' sizes (Orbiter)
// reports exactly the plain search's distinct states (Stats.Unreduced). Reference: issue 14.
func TestUnreducedCountTwoPhase(t *testing.T) {
	for _, rms := range []int{3, 5, 7} {
		s, c := loadCheck(t, "twophase.toml", "fixed")
		c.Config.Values["rms"] = rms
		r, opts, err := s.Runnable(c)
		if err != nil {
			t.Fatal(err)
		}
		opts.Workers = 2
		plain := r.Check(opts)
		opts.Symmetry = true
		sym := r.Check(opts)
		if plain.Verdict != checker.OK || sym.Verdict != checker.OK || sym.Stats.Unreduced != plain.Stats.Distinct || sym.Stats.Distinct >= plain.Stats.Distinct {
			t.Errorf("rms=%d: plain %s %d states; symmetry %s %d states standing for %d; want ok, fewer, and %d",
				rms, plain.Verdict, plain.Stats.Distinct, sym.Verdict, sym.Stats.Distinct, sym.Stats.Unreduced, plain.Stats.Distinct)
		}
		if plain.Stats.Unreduced != 0 {
			t.Errorf("rms=%d: the plain search reports %d unreduced states, want 0", rms, plain.Stats.Unreduced)
		}
	}
}
