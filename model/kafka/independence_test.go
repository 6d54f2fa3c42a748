package kafka_test

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"kmc/checker"
	"kmc/invariants"
	"kmc/model/kafka"
)

// porProps are the properties whose reads the model declares, built for m with them.
func porProps(m *kafka.Model) []checker.Property[kafka.State] {
	var out []checker.Property[kafka.State]
	for _, d := range []invariants.Descriptor{invariants.NoPermanentDivergence, invariants.LogMatching, invariants.NoCommittedDataLoss} {
		p := d.Build(m)
		p.Reads = m.PropertyReads(p.Name)
		out = append(out, p)
	}
	return out
}

// porConfigs are small configurations of the single controller, between them with every
// fault and mechanism the detailed declarations cover, and one of the control plane (one
// group: nothing to reduce).
func porConfigs() map[string]kafka.Config {
	base := kafka.DefaultConfig()
	base.Brokers, base.MaxRecords, base.MaxEpoch = 3, 2, 2
	out := map[string]kafka.Config{}
	c := base
	c.LeaderChange = 1
	out["leader-change"] = c
	c = base
	c.Crash, c.Lag = 1, 1
	out["crash-lag"] = c
	c = base
	c.UncleanCrash, c.MessageLoss, c.MaxRecords = 1, 1, 1
	out["unclean-loss"] = c
	c = base
	c.Version = "0.11.0.2"
	c.LeaderChange, c.MaxRecords = 1, 1
	out["zk-leader-writes"] = c
	c = base
	c.PowerLoss, c.ControlledShutdown, c.PreferredElection, c.MaxRecords = 1, 1, 1, 1
	out["mechanisms"] = c
	c = base
	c.Brokers, c.MaxRecords, c.MaxFetchRecords, c.LeaderChange = 2, 3, 2, 1
	c.Version, c.Switches = "3.9.0", c.Switches.With(kafka.Kafka18723SendSide, false)
	out["two-brokers-fetch-2"] = c
	// Clean shutdowns in steps (3.8's asynchronous checkpoint writes: BrokerBeginShutdown,
	// BrokerStop) and a lost fetch-plane message.
	c = base
	c.Version, c.ControlledShutdown, c.MessageLoss, c.MaxRecords = "3.9.0", 1, 1, 1
	out["shutdown-loss-3.9"] = c
	// Guards off as kmc mutate turns them off: a fetch response at another offset, the
	// epoch checks gone (the acks' commutation relies on a record's offset being the same
	// in every log).
	c = base
	c.Version, c.LeaderChange, c.MaxRecords = "3.9.0", 1, 2
	c.Mutate = kafka.GuardBit(kafka.GuardFetchResponseOffset) | kafka.GuardBit(kafka.GuardFetchLeaderEpoch)
	out["mutated-offset-epoch"] = c
	c = base
	c.LeaderChange, c.Crash, c.MaxRecords = 1, 1, 2
	c.Mutate = kafka.GuardBit(kafka.GuardFetchDivergence) | kafka.GuardBit(kafka.GuardAckMinISR)
	out["mutated-divergence-ack"] = c
	return out
}

// TestIndependenceDeclarations checks the declarations (independence.go) on every
// reachable state of small configurations, plain and with the assignment order open.
// Reference: issue 31.
func TestIndependenceDeclarations(t *testing.T) {
	for name, c := range porConfigs() {
		t.Run(name, func(t *testing.T) {
			m, err := kafka.New(c)
			if err != nil {
				t.Fatal(err)
			}
			n, err := checker.CheckIndependence[kafka.State](m, porProps(m), nil, 20000)
			if err != nil {
				t.Fatal(err)
			}
			if n < 100 {
				t.Errorf("checked %d states", n)
			}
		})
	}
}

// TestPORDifferential: random small configurations of the single controller (2 or 3
// brokers, bounds, faults, a release, a guard turned off as kmc mutate does, a random subset
// of the three properties whose reads the model declares, symmetry, workers; a fixed seed),
// each searched with the reduction (asked for: the family runs without it unless --por) and
// without: the same verdict, property and trace length, and logs how many configurations
// the reduction reduced (4 of the 8 that make test runs; few states each: the leader's state
// is read or written by almost every step). TestPORDifferentialLong runs KMC_POR_DIFF of
// them (make por-diff). Reference: issue 31.
func TestPORDifferential(t *testing.T) {
	runDifferential(t, 8)
}

func TestPORDifferentialLong(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("KMC_POR_DIFF"))
	if n <= 0 {
		t.Skip("KMC_POR_DIFF not set (make por-diff sets it)")
	}
	runDifferential(t, n)
}

func runDifferential(t *testing.T, n int) {
	r := rand.New(rand.NewPCG(31, 7))
	versions := []string{"3.9.0", "0.11.0.2", "2.8.0", ""}
	done, fewer := 0, 0
	for i := 0; done < n && i < 20*n; i++ {
		c := kafka.DefaultConfig()
		c.Brokers = 2 + r.IntN(2)
		c.MaxRecords, c.MaxEpoch, c.MaxFetchRecords = 1+r.IntN(2), 1+r.IntN(2), 1+r.IntN(2)
		c.Version = versions[r.IntN(len(versions))]
		c.LeaderChange, c.Crash, c.Lag, c.MessageLoss, c.UncleanCrash = r.IntN(2), r.IntN(2), r.IntN(2), r.IntN(2), r.IntN(2)
		if r.IntN(2) == 0 {
			c.Mutate = kafka.GuardBit(kafka.Guard(r.IntN(int(kafka.NumGuards))))
		}
		m, err := kafka.New(c)
		if err != nil {
			continue // a guard this release lacks, a fix the version has
		}
		all := porProps(m)
		var props []checker.Property[kafka.State]
		for _, p := range all {
			if r.IntN(2) == 0 {
				props = append(props, p)
			}
		}
		if len(props) == 0 {
			props = all[r.IntN(len(all)):][:1]
		}
		opts := checker.Options{Workers: 1 + r.IntN(2), Symmetry: r.IntN(2) == 0, MaxStates: 300000}
		plain := checker.Check[kafka.State](m, props, opts)
		opts.POR = true
		red := checker.Check[kafka.State](m, props, opts)
		if plain.Verdict == checker.Incomplete || red.Verdict == checker.Incomplete {
			continue
		}
		done++
		if red.Stats.Distinct < plain.Stats.Distinct {
			fewer++
		}
		if red.Verdict != plain.Verdict || red.Property != plain.Property {
			t.Fatalf("config %d %+v: reduced %s %s, plain %s %s", i, c, red.Verdict, red.Property, plain.Verdict, plain.Property)
		}
		if plain.Trace != nil && len(red.Trace.States) != len(plain.Trace.States) {
			t.Fatalf("config %d %+v: trace of %d states, plain %d", i, c, len(red.Trace.States), len(plain.Trace.States))
		}
	}
	if done < n {
		t.Errorf("%d configurations compared, want %d", done, n)
	}
	t.Logf("%d configurations compared, %d of them with fewer states under the reduction", done, fewer)
}

// TestGuardEnablersNoAllocs: the reduction asks for enabling sets while it expands a state,
// so GuardEnablers allocates nothing.
func TestGuardEnablersNoAllocs(t *testing.T) {
	m, err := kafka.New(porConfigs()["leader-change"])
	if err != nil {
		t.Fatal(err)
	}
	states := m.Init(nil)
	for range 6 {
		next, _ := m.Next(&states[len(states)-1], nil, nil)
		states = append(states, next...)
	}
	var e checker.Groups
	calls := 0
	allocs := testing.AllocsPerRun(10, func() {
		for i := range states {
			for g := 0; g < m.Groups(); g++ {
				for k := 0; k < m.Guards(g); k++ {
					if !m.Guard(&states[i], g, k) && m.GuardEnablers(&states[i], g, k, &e) {
						calls++
					}
				}
			}
		}
	})
	if allocs != 0 || calls == 0 {
		t.Errorf("%v allocations, %d sets declared", allocs, calls)
	}
}

// The model declares necessary enabling sets through its own alias of checker.Groups; were
// the engine's array to change size, the model would stop implementing Enabling without a
// compile error elsewhere.
var _ checker.Enabling[kafka.State] = (*kafka.Model)(nil)
