package invariants

import (
	"kmc/checker"
	"kmc/model/kafka"
)

// Properties of the control plane (model/kafka/controlplane.go): KAFKA-5480 and KAFKA-14154.

// NoLeaderlessPartitionWithLiveISR: a partition without a leader but with a live ISR member
// gets a leader.
var NoLeaderlessPartitionWithLiveISR = Descriptor{
	Name:  "NoLeaderlessPartitionWithLiveISR",
	Views: []string{"controlPlane"},
	Doc: "whenever the store (the controller's state without the control plane) says leader none while a " +
		"live, registered broker is in the ISR (under KRaft: in the ISR or ELR, registered with its current " +
		"incarnation and not shutting down, so waiting to be unfenced), eventually a leader is elected (P ~> Q under weak fairness of the " +
		"protocol and controller steps; crashes and controller failovers are unfair and bounded). Rules out " +
		"KAFKA-5480: a zombie controller's election write leaves the new controller's cache stale, and its " +
		"removeReplicaFromIsr then writes leader -1 with a live ISR member and elects nobody",
	Kind:  checker.LeadsTo,
	Ref:   "KAFKA-5480",
	Build: leaderlessWithLiveISR,
}

func leaderless(m *kafka.Model, s *kafka.State) bool {
	return s.Ctrl.Leader == 0 && waiting(m, s) != 0
}

// waiting is the set of brokers that a partition without a leader waits for: under ZooKeeper,
// the live ISR members registered with the controller; under KRaft, the live ISR and ELR
// members registered with their current incarnation (ClusterControlManager's RegisterBroker
// Record written) and not in controlled shutdown. A KRaft controller elects a broker in the
// same step that unfences it (ReplicationControlManager.handleBrokerUnfenced), so "live" there
// cannot mean unfenced: the partition waits from the registration on, for the broker to
// replay the log, heartbeat and be unfenced.
func waiting(m *kafka.Model, s *kafka.State) uint8 {
	var w uint8
	for b := 0; b < m.C.Brokers; b++ {
		bit := uint8(1) << b
		switch {
		case !s.B[b].Alive:
		case m.C.KRaft:
			if (s.Ctrl.ISR|s.KR.ELR)&bit != 0 && !s.B[b].Register && s.KR.Down&bit == 0 {
				w |= bit
			}
		case s.Ctrl.ISR&bit != 0 && s.Ctrl.Live&bit != 0:
			w |= bit
		}
	}
	return w
}

func leaderlessWithLiveISR(m *kafka.Model) checker.Property[kafka.State] {
	return checker.Property[kafka.State]{Name: "NoLeaderlessPartitionWithLiveISR", Kind: checker.LeadsTo,
		P:       func(s *kafka.State) bool { return leaderless(m, s) },
		Q:       func(s *kafka.State) bool { return s.Ctrl.Leader != 0 },
		Explain: func(s *kafka.State) string { return explainLeaderless(m, s) }}
}

// NoStuckAlterPartition: a pending AlterPartition is resolved.
var NoStuckAlterPartition = Descriptor{
	Name:  "NoStuckAlterPartition",
	Views: []string{"controlPlane"},
	Doc: "whenever a live leader has an AlterPartition pending (Partition's partitionState.isInflight, which " +
		"blocks every further ISR change), eventually no leader has one: it was committed, rejected with a reset, " +
		"or superseded by a LeaderAndIsr or a crash (P ~> not P under weak fairness; Vanlightly's " +
		"AlterPartitionEpochEventuallyReachedOrZero). Rules out KAFKA-14154: FENCED_LEADER_EPOCH from a zombie " +
		"controller leaves the leader waiting for a LeaderAndIsr that never comes",
	Kind:  checker.LeadsTo,
	Ref:   "KAFKA-14154",
	Build: stuckAlterPartition,
}

func pendingAlter(m *kafka.Model, s *kafka.State) bool {
	for b := 0; b < m.C.Brokers; b++ {
		if r := &s.B[b]; r.Alive && r.Role == kafka.RoleLeader && r.Pending {
			return true
		}
	}
	return false
}

func stuckAlterPartition(m *kafka.Model) checker.Property[kafka.State] {
	return checker.Property[kafka.State]{Name: "NoStuckAlterPartition", Kind: checker.LeadsTo,
		P:       func(s *kafka.State) bool { return pendingAlter(m, s) },
		Q:       func(s *kafka.State) bool { return !pendingAlter(m, s) },
		Explain: func(s *kafka.State) string { return explainPendingAlter(m, s) }}
}

// CaughtUpFollowerEventuallyInISR: a caught-up follower outside the ISR rejoins it.
var CaughtUpFollowerEventuallyInISR = Descriptor{
	Name:  "CaughtUpFollowerEventuallyInISR",
	Views: []string{"controlPlane"},
	Doc: "whenever a live, registered follower of the store's leader (live, leading the store's epoch) has " +
		"reached the leader's log end offset but is outside the leader's ISR, eventually no such follower exists: " +
		"it is back in the ISR, or the leader, its epoch or a broker's liveness changed (P ~> not P under weak " +
		"fairness). The second half of the stuck-AlterPartition condition: the persistent under-replicated " +
		"partition KAFKA-14154 reports",
	Kind:  checker.LeadsTo,
	Ref:   "KAFKA-14154",
	Build: caughtUpOutsideISR,
}

func caughtUpOutside(m *kafka.Model, s *kafka.State) bool {
	l, lr, ok := stableLeader(s)
	if !ok {
		return false
	}
	for f := 0; f < m.C.Brokers; f++ {
		r := &s.B[f]
		if f != l && r.Alive && s.Ctrl.Live&(1<<f) != 0 && r.Role == kafka.RoleFollower && int(r.Leader) == l+1 &&
			r.Epoch == lr.Epoch && r.LEO >= lr.LEO && lr.ISR&(1<<f) == 0 {
			return true
		}
	}
	return false
}

func caughtUpOutsideISR(m *kafka.Model) checker.Property[kafka.State] {
	return checker.Property[kafka.State]{Name: "CaughtUpFollowerEventuallyInISR", Kind: checker.LeadsTo,
		P:       func(s *kafka.State) bool { return caughtUpOutside(m, s) },
		Q:       func(s *kafka.State) bool { return !caughtUpOutside(m, s) },
		Explain: func(s *kafka.State) string { return explainCaughtUpOutside(m, s) }}
}

// ControllerCacheMatchesStore: the active controller's cache is the store's partition state.
var ControllerCacheMatchesStore = Descriptor{
	Name:  "ControllerCacheMatchesStore",
	Views: []string{"controlPlane"},
	Doc: "the controller that holds /controller (active, session alive: not a zombie) caches exactly the store's " +
		"partition state (leader, leader epoch, zkVersion, ISR). A diagnostic: a zombie controller's successful " +
		"write breaks it, the precondition of KAFKA-5480; with KAFKA-6082 zombie writes fail. Trivially true " +
		"without the control plane",
	Kind:  checker.Invariant,
	Ref:   "KAFKA-5480; KAFKA-6082",
	Build: invariant("ControllerCacheMatchesStore", cacheMatchesStore, explainCacheMatchesStore),
}

func cacheMatchesStore(m *kafka.Model, s *kafka.State) bool {
	p := &s.CP
	if p.N == 0 {
		return true
	}
	c := &p.C[p.N-1]
	if !c.Active || !c.Session {
		return true
	}
	return c.Leader == s.Ctrl.Leader && c.LEpoch == s.Ctrl.Epoch && c.ZkVer == s.Ctrl.PEpoch && c.ISR == s.Ctrl.ISR
}
