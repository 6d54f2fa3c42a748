package kafka

import "testing"

// TestFaultStepsAreUnfair checks that every step that spends a fault budget is of an
// unfair kind (faults are never fair actions), that the mechanisms' faults are reached in
// a sample of reachable states, and that ControllerElect, the protocol's reaction to a
// crashed controller host, is weakly fair. Reference: issue 12 (mechanisms); KIP-106,
// KafkaController.doControlledShutdown, checkAndTriggerAutoLeaderRebalance,
// NodeToControllerRequestThread.handleResponse, KafkaController.processReelect.
func TestFaultStepsAreUnfair(t *testing.T) {
	single := DefaultConfig()
	single.Brokers, single.MaxRecords, single.MaxEpoch = 2, 1, 3
	single.UncleanElection, single.ControlledShutdown, single.PreferredElection, single.LeaderChange, single.Lag = true, 1, 1, 1, 1
	cp := DefaultConfig()
	cp.MaxRecords, cp.MaxEpoch, cp.Controllers, cp.Failover, cp.Lag, cp.Crash = 1, 3, 2, 1, 1, 1
	cp.ControllerHostCrash, cp.ControlledShutdown, cp.PreferredElection, cp.ControlLoss = true, 1, 1, 1
	reached := map[int]bool{}
	for _, c := range []Config{single, cp} {
		m, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		states := m.Init(nil)
		var succ []State
		var acts []uint64
		for i := 0; i < len(states) && i < 20000; i++ {
			s := &states[i]
			succ, acts = m.Next(s, succ[:0], acts[:0])
			for k := range succ {
				kind := kindOf(acts[k])
				reached[kind] = true
				spends := succ[k].Used != s.Used || succ[k].CP.SessionLosses != s.CP.SessionLosses
				if spends && m.Fairness(kind) != Unfair {
					t.Errorf("%s spends a fault budget but is fair", m.ActionName(acts[k]))
				}
			}
			if len(states) < 20000 {
				states = append(states, succ...)
			}
		}
	}
	m, _ := New(DefaultConfig())
	for _, k := range []int{KindBrokerControlledShutdown, KindControllerElectPreferred, KindNetworkLoseControlMessage, KindControllerElect} {
		if !reached[k] {
			t.Errorf("%s not reached in the sample", kindNames[k])
		}
		want := Unfair
		if k == KindControllerElect {
			want = Weak
		}
		if got := m.Fairness(k); got != want {
			t.Errorf("Fairness(%s) = %d, want %d", kindNames[k], got, want)
		}
	}
}

// TestMechanismsOffByDefault checks that a configuration without the mechanisms encodes a
// state as before them: the budgets' counters are not in the encoding.
func TestMechanismsOffByDefault(t *testing.T) {
	c := DefaultConfig()
	m, _ := New(c)
	s := m.Init(nil)[0]
	base := len(m.Encode(&s, nil))
	c.PreferredElection = 1
	m2, _ := New(c)
	if got := len(m2.Encode(&s, nil)); got != base+2 {
		t.Errorf("with preferred_election the encoding has %d bytes, want %d", got, base+2)
	}
	var d State
	m2.Decode(m2.Encode(&s, nil), &d)
	if d != s {
		t.Errorf("decode(encode(s)) differs from s with preferred_election")
	}
}
