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
// least two brokers are interchangeable (brokers 2..N, or those on one side of the
// ZooKeeper plane's controller host), never with a liveness property, never where
// options.symmetry says otherwise, and never in the families that port a TLA+ spec (TLC's
// counts). Reference: issue 14.
func TestSymmetryDefault(t *testing.T) {
	tests := []struct {
		spec, check string
		set         []string
		want        bool
	}{
		{"kafka-18723.toml", "buggy", nil, true},
		{"kafka-18723.toml", "fixed", nil, true},
		{"kafka-18723.toml", "fixed", []string{"brokers=2"}, false},                            // one interchangeable broker
		{"kafka-18723.toml", "fixed", []string{"crash=1"}, true},                               // the order left open
		{"kafka-guards.toml", "isr", nil, true},                                                // a crash, the order left open
		{"kafka-guards.toml", "leader-writes", nil, true},                                      // 1.1, two controllers
		{"kafka-kraft-guards.toml", "b3-session-KRaftAlterPartitionPartitionEpoch", nil, true}, // KRaft
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
		opts.POR = false // the partial-order reduction (on for two-phase commit) keeps no class sizes
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
// under symmetry (and its unreduced count with the classes' sizes, when the search gives
// them), and with the unreduced count when the search ran without symmetry. A search
// under symmetry that should have given the unreduced count and did not (a resumed one
// did not) is a difference, not a match. Reference: issue 14; issue 26, defect 4.
func TestCompareUnreduced(t *testing.T) {
	c := Check{Expect: checker.OK, States: 50, Unreduced: 100}
	tests := []struct {
		name              string
		distinct, unreduc int64
		sym, deferred     bool
		want              []string
	}{
		{"symmetry, both match", 50, 100, true, false, nil},
		{"symmetry, reduced differs", 51, 100, true, false, []string{"states: got 51, want 50"}},
		{"symmetry, unreduced differs", 50, 99, true, false, []string{"unreduced states: got 99, want 100"}},
		{"symmetry, unreduced missing", 50, 0, true, false, []string{"unreduced states: got none, want 100"}},
		{"symmetry with the order open: no unreduced count", 50, 0, true, true, nil},
		{"plain search matches", 100, 0, false, false, nil},
		{"plain search differs", 98, 0, false, false, []string{"states: got 98, want 100"}},
	}
	for _, tc := range tests {
		st := checker.Stats{Distinct: tc.distinct, Unreduced: tc.unreduc, Symmetry: tc.sym, Deferred: tc.deferred}
		got := c.Compare(checker.Result{Verdict: checker.OK, Stats: st})
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

// TestDeferredSymmetrySameVerdicts: every check of the suite that runs under symmetry with
// the assignment order left open (model/kafka/order.go: a broker can stop, or the control plane
// elects) gives the plain search's verdict, property and, for a violation, counterexample
// length (breadth-first, both find a shortest one); its trace is a behaviour of the plain
// model that replays and violates the property; it explores fewer states. Reference:
// issue 14.
func TestDeferredSymmetrySameVerdicts(t *testing.T) {
	paths, err := FindSpecs(".")
	if err != nil {
		t.Fatal(err)
	}
	deferred := 0
	for _, path := range paths {
		s, err := Load(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s.Model != "kafka" {
			continue
		}
		for i := range s.Checks {
			c := &s.Checks[i]
			r, opts, err := s.Runnable(c)
			if err != nil {
				t.Fatal(err)
			}
			if !opts.Symmetry {
				continue
			}
			opts.Workers = 2
			sym := r.Check(opts)
			if !sym.Stats.Deferred {
				continue
			}
			deferred++
			opts.Symmetry = false
			plain := r.Check(opts)
			name := path + " " + c.Name
			if sym.Verdict != plain.Verdict || sym.Property != plain.Property {
				t.Errorf("%s: with symmetry %s %q, without %s %q", name, sym.Verdict, sym.Property, plain.Verdict, plain.Property)
				continue
			}
			if sym.Stats.Distinct >= plain.Stats.Distinct || sym.Stats.Unreduced != 0 {
				t.Errorf("%s: %d states with symmetry (unreduced %d), %d without; want fewer, no unreduced count",
					name, sym.Stats.Distinct, sym.Stats.Unreduced, plain.Stats.Distinct)
			}
			if sym.Verdict != checker.Violated {
				continue
			}
			if len(sym.Trace.States) != len(plain.Trace.States) {
				t.Errorf("%s: a trace of %d states with symmetry, %d without", name, len(sym.Trace.States), len(plain.Trace.States))
			}
			rep, err := r.Replay(sym.Trace)
			if err != nil || !slices.Contains(rep.Violates, sym.Property) {
				t.Errorf("%s: replay of the trace found with symmetry: got %+v, %v; want it to violate %s", name, rep, err, sym.Property)
			}
		}
	}
	if deferred < 10 {
		t.Errorf("%d checks ran with the order open, want at least 10 (the kafka-guards bases and mutants)", deferred)
	}
}
