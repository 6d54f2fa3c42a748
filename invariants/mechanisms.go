package invariants

import (
	"kmc/checker"
	"kmc/model/kafka"
)

// PreferredLeaderRestored: leadership left broker 1, the preferred replica, and came back.
var PreferredLeaderRestored = Descriptor{
	Name:  "PreferredLeaderRestored",
	Views: []string{"controlPlane"},
	Doc: "a witness (sometimes): the store's leader is broker 1, the preferred replica (the head of the " +
		"assignment), in a leader epoch above 2, and broker 1 leads that epoch: leadership left it and came " +
		"back. With leader_change = 1 and no crash only a preferred-replica election (preferred_election) " +
		"brings it back; without one the property is vacuous, which kmc reports as a violation",
	Kind:  checker.Sometimes,
	Ref:   "auto.leader.rebalance.enable; KafkaController.checkAndTriggerAutoLeaderRebalance",
	Build: sometimes("PreferredLeaderRestored", preferredLeaderRestored, explainPreferredLeader),
}

func preferredLeaderRestored(m *kafka.Model, s *kafka.State) bool {
	r := &s.B[0]
	return s.Ctrl.Leader == 1 && s.Ctrl.Epoch > 2 && r.Alive && r.Role == kafka.RoleLeader && r.Epoch == s.Ctrl.Epoch
}

// sometimes builds a Sometimes property; explain describes a state in which f is false (a
// Sometimes property has no counterexample trace: its explanation serves tests and tools).
func sometimes(name string, f func(m *kafka.Model, s *kafka.State) bool, explain func(m *kafka.Model, s *kafka.State) string) func(m *kafka.Model) checker.Property[kafka.State] {
	return func(m *kafka.Model) checker.Property[kafka.State] {
		return checker.Property[kafka.State]{Name: name, Kind: checker.Sometimes,
			State:   func(s *kafka.State) bool { return f(m, s) },
			Explain: func(s *kafka.State) string { return explain(m, s) }}
	}
}
