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
		if !opts.Symmetry {
			t.Errorf("%s: the kafka family's symmetry reduction is off by default here, want on", check)
		}
		opts.Symmetry = false
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

// TestSymmetryDefault: a check runs under the symmetry reduction by default exactly where
// its family says the reduction applies to it: the kafka family's safety checks where at
// least two brokers are interchangeable (no broker stops, one controller, ZooKeeper era),
// never with a liveness property, never where options.symmetry says otherwise, and never in
// the families that port a TLA+ spec (TLC's counts). Reference: issue 14.
func TestSymmetryDefault(t *testing.T) {
	tests := []struct {
		spec, check string
		set         []string
		want        bool
	}{
		{"kafka-18723.toml", "buggy", nil, true},
		{"kafka-18723.toml", "fixed", nil, true},
		{"kafka-18723.toml", "fixed", []string{"brokers=2"}, false}, // one interchangeable broker
		{"kafka-18723.toml", "fixed", []string{"crash=1"}, false},   // a crash elects by assignment order
		{"kafka-13077.toml", "buggy", nil, false},
		{"kafka-13077.toml", "fixed", nil, false},
		{"kafka-5480.toml", "buggy", nil, false}, // liveness, a crash, two controllers
		{"kafka-5480.toml", "fixed", nil, false},
		{"kafka-14154.toml", "buggy", nil, false},                   // liveness, two controllers
		{"kafka-14154.toml", "fixed", nil, false},                   // liveness, and crashes
		{"kafka-mechanisms.toml", "preferred", nil, false},          // liveness
		{"kafka-kraft.toml", "crash-r2", nil, false},                // KRaft
		{"twophase.toml", "fixed", nil, false},                      // TLC's counts
		{"reference/kip320-theorems.toml", "kip320-r3", nil, false}, // TLC's counts
		{"vanlightly/v3-5-simple.toml", "rf2", nil, false},          // no reduction
	}
	for _, tc := range tests {
		s, err := Load(tc.spec, tc.set)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := s.CheckByName(tc.check)
		if !ok {
			t.Fatalf("%s: no check %s", tc.spec, tc.check)
		}
		_, opts, err := s.Runnable(c)
		if err != nil {
			t.Fatal(err)
		}
		if opts.Symmetry != tc.want {
			t.Errorf("%s %s %v: symmetry %v by default, want %v", tc.spec, tc.check, tc.set, opts.Symmetry, tc.want)
		}
	}
	src := "model = \"kafka\"\nproperties = [\"LeaderInISR\"]\n[options]\nsymmetry = false\n[[check]]\nname = \"a\"\nexpect = \"ok\"\n"
	s, err := Parse("s.toml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, opts, _ := s.Runnable(&s.Checks[0]); opts.Symmetry {
		t.Errorf("options.symmetry = false: got symmetry on")
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

// TestCompareUnreduced: a check that pins both counts is compared with the reduced count
// under symmetry (and its unreduced count with the classes' sizes), and with the unreduced
// count when the search ran without symmetry. Reference: issue 14.
func TestCompareUnreduced(t *testing.T) {
	c := Check{Expect: checker.OK, States: 50, Unreduced: 100}
	tests := []struct {
		name              string
		distinct, unreduc int64
		want              []string
	}{
		{"symmetry, both match", 50, 100, nil},
		{"symmetry, reduced differs", 51, 100, []string{"states: got 51, want 50"}},
		{"symmetry, unreduced differs", 50, 99, []string{"unreduced states: got 99, want 100"}},
		{"plain search matches", 100, 0, nil},
		{"plain search differs", 98, 0, []string{"states: got 98, want 100"}},
	}
	for _, tc := range tests {
		got := c.Compare(checker.Result{Verdict: checker.OK, Stats: checker.Stats{Distinct: tc.distinct, Unreduced: tc.unreduc}})
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestUnreducedOnlyForOK: unreduced is a count of a complete search, so a check that
// expects a violation cannot pin it.
func TestUnreducedOnlyForOK(t *testing.T) {
	src := "model = \"twophase\"\nproperties = [\"TCConsistent\"]\n[[check]]\nname = \"a\"\nexpect = \"violated\"\nproperty = \"TCConsistent\"\nunreduced = 7\n"
	_, err := Parse("s.toml", []byte(src), nil)
	want := `s.toml:7:13: check[0].unreduced: only allowed when expect = "ok" (got 7)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
