package kafka_test

import (
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
	c.Version, c.Fix18723SendSide = "3.9.0", false
	out["two-brokers-fetch-2"] = c
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
