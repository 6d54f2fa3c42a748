// Package invariants holds the Kafka model's properties as descriptor values, the way
// analyzers are values in golang.org/x/tools/go/analysis: each has a name, a doc saying
// what it rules out, its kind, its reference (JIRA issue or KIP) and a function building
// the checker.Property for a model (kmc/model/kafka). It stays a package of its own because
// the Kafka properties are the project's subject: they read across the model's actors and
// explain a violation in Kafka's terms. The other models (model/reference, model/vanlightly,
// model/twophase) keep their properties beside their Next, as the TLA+ modules they port keep
// their invariants beside their actions, so that a port reads against its source file.
package invariants

import (
	"math/bits"

	"kmc/checker"
	"kmc/model/kafka"
)

// Descriptor describes one property of the Kafka model.
type Descriptor struct {
	Name string
	Doc  string
	Kind checker.Kind
	Ref  string
	// Views names the model's views (kafka.ViewNames) that show what the property reads,
	// the first the one a reader needs most: a check's trace prints them unless its spec
	// or --view says otherwise.
	Views []string
	// Build returns the property for model m.
	Build func(m *kafka.Model) checker.Property[kafka.State]
}

// All lists the properties, in a fixed order.
func All() []Descriptor {
	return []Descriptor{
		NoCommittedDataLoss,
		NoPermanentDivergence,
		LogMatching,
		LeaderInISR,
		OneLeaderPerEpoch,
		HighWatermarkMonotonic,
		AckedOnMinISR,
		EpochCacheMatchesLog,
		NoMissingEpoch,
		NoPhantomEpoch,
		FollowerEventuallyCatchesUp,
		NoLeaderlessPartitionWithLiveISR,
		NoStuckAlterPartition,
		CaughtUpFollowerEventuallyInISR,
		ControllerCacheMatchesStore,
		PreferredLeaderRestored,
		ValidControllerIsrAndElr,
		MinIsrRecoveryQuorum,
		LeaderCandidateCompleteness,
	}
}

// ByName returns the property called name.
func ByName(name string) (Descriptor, bool) {
	for _, d := range All() {
		if d.Name == name {
			return d, true
		}
	}
	return Descriptor{}, false
}

// invariant builds an invariant from its predicate f and its explanation (the witness text
// of a state in which f is false).
func invariant(name string, f func(m *kafka.Model, s *kafka.State) bool, explain func(m *kafka.Model, s *kafka.State) string) func(m *kafka.Model) checker.Property[kafka.State] {
	return func(m *kafka.Model) checker.Property[kafka.State] {
		return checker.Property[kafka.State]{Name: name, Kind: checker.Invariant,
			State:   func(s *kafka.State) bool { return f(m, s) },
			Explain: func(s *kafka.State) string { return explain(m, s) }}
	}
}

// NoCommittedDataLoss: every acknowledged record is still at its offset on the leader and
// on every live ISR member.
var NoCommittedDataLoss = Descriptor{
	Name:  "NoCommittedDataLoss",
	Views: []string{"logs"},
	Doc: "every record acknowledged to an acks=all producer (the leader's high watermark passed it) " +
		"is still at its offset on the controller's leader and on every member of the controller's ISR that is " +
		"up and registered; rules out the data loss of KIP-101's high-watermark truncation and of an unsafe " +
		"election. Members that are down, or restarted and not yet registered, are not checked: an unclean " +
		"crash may lose unflushed data (Kafka relies on replication, not fsync) and the controller removes a " +
		"bounced broker from the ISR, unless it is the last member (KIP-966's Last Replica Standing)",
	Kind:  checker.Invariant,
	Ref:   "KIP-101",
	Build: invariant("NoCommittedDataLoss", noCommittedDataLoss, explainCommittedDataLoss),
}

func noCommittedDataLoss(m *kafka.Model, s *kafka.State) bool {
	_, _, ok := lostRecord(m, s)
	return !ok
}

// lostRecord finds an acknowledged record (id index) missing at its offset on broker b, the
// controller's leader or a member of its ISR that is up and registered.
func lostRecord(m *kafka.Model, s *kafka.State) (id, b int, ok bool) {
	for id := 0; id < m.C.MaxRecords; id++ {
		if s.Acked[id] == 0 {
			continue
		}
		off := s.Acked[id] - 1
		for b := 0; b < m.C.Brokers; b++ {
			r := &s.B[b]
			member := int(s.Ctrl.Leader) == b+1 || s.Ctrl.ISR&(1<<b) != 0
			if !member || !r.Alive || r.Register {
				continue
			}
			if off >= r.LEO || r.Log[off].ID != uint8(id+1) {
				return id, b, true
			}
		}
	}
	return 0, 0, false
}

// NoPermanentDivergence: any two replicas hold the same record at every offset below
// both of their high watermarks.
var NoPermanentDivergence = Descriptor{
	Name:  "NoPermanentDivergence",
	Views: []string{"logs"},
	Doc: "any two replicas hold the same record at every offset below both of their high watermarks " +
		"(Vanlightly's LogMatchingProperty): what a consumer of either replica reads as committed is the same. " +
		"DESIGN lists equal (offset, epoch) implies equal prefix as its second clause; that clause is the " +
		"separate property LogMatching, so that this one's counterexample shows a wrong record below the " +
		"high watermark (KAFKA-18723: a fetch response mixing two log versions)",
	Kind:  checker.Invariant,
	Ref:   "KAFKA-18723",
	Build: invariant("NoPermanentDivergence", noPermanentDivergence, explainPermanentDivergence),
}

func noPermanentDivergence(m *kafka.Model, s *kafka.State) bool {
	for i := 0; i < m.C.Brokers; i++ {
		for j := i + 1; j < m.C.Brokers; j++ {
			a, b := &s.B[i], &s.B[j]
			hw := min(a.HW, b.HW)
			for o := uint8(0); o < hw; o++ {
				if a.Log[o] != b.Log[o] {
					return false
				}
			}
		}
	}
	return true
}

// LogMatching: Raft's Log Matching on (offset, epoch).
var LogMatching = Descriptor{
	Name:  "LogMatching",
	Views: []string{"logs"},
	Doc: "if two replicas hold records of the same leader epoch at the same offset, their logs are equal " +
		"up to and including that offset (Raft's Log Matching on (offset, epoch), EpochOffsetLogMatching in " +
		"the published TLA+ specs of Kafka replication). " +
		"A diagnostic: it flags KAFKA-18723 as soon as a mixed response is appended, before any high " +
		"watermark passes the wrong record; the second clause of NoPermanentDivergence",
	Kind:  checker.Invariant,
	Ref:   "KAFKA-18723",
	Build: invariant("LogMatching", logMatching, explainLogMatching),
}

func logMatching(m *kafka.Model, s *kafka.State) bool {
	for i := 0; i < m.C.Brokers; i++ {
		for j := i + 1; j < m.C.Brokers; j++ {
			a, b := &s.B[i], &s.B[j]
			n := min(a.LEO, b.LEO)
			// The last offset where the epochs agree must have an equal prefix.
			for o := int(n) - 1; o >= 0; o-- {
				if a.Log[o].Epoch != b.Log[o].Epoch || a.Log[o].Epoch == kafka.NoEpoch {
					continue // a hole (epoch 0) is no batch
				}
				for p := 0; p <= o; p++ {
					if a.Log[p] != b.Log[p] {
						return false
					}
				}
				break
			}
		}
	}
	return true
}

// LeaderInISR: the controller's leader is in its ISR, and a broker acting as leader is in
// its own ISR.
var LeaderInISR = Descriptor{
	Name:  "LeaderInISR",
	Views: []string{"controlPlane", "logs"},
	Doc: "the controller's leader is a member of the controller's ISR, and every broker acting as leader " +
		"has itself in its ISR; rules out electing or keeping a leader outside the ISR (unclean election is " +
		"disabled) and an AlterPartition that drops the leader",
	Kind:  checker.Invariant,
	Ref:   "hachikuji/kafka-specification LeaderInIsr; Vanlightly ReplicationQuorumSupersetProperty",
	Build: invariant("LeaderInISR", leaderInISR, explainLeaderInISR),
}

func leaderInISR(m *kafka.Model, s *kafka.State) bool {
	if l := s.Ctrl.Leader; l != 0 && s.Ctrl.ISR&(1<<(l-1)) == 0 {
		return false
	}
	for b := 0; b < m.C.Brokers; b++ {
		if r := &s.B[b]; r.Role == kafka.RoleLeader && r.ISR&(1<<b) == 0 {
			return false
		}
	}
	return true
}

// OneLeaderPerEpoch: no two brokers act as leader in the same leader epoch.
var OneLeaderPerEpoch = Descriptor{
	Name:  "OneLeaderPerEpoch",
	Views: []string{"controlPlane", "logs"},
	Doc: "no two brokers act as leader in the same leader epoch; rules out two leaders writing records " +
		"stamped with one epoch, which would make (offset, epoch) ambiguous and break the divergence check",
	Kind:  checker.Invariant,
	Ref:   "KIP-101",
	Build: invariant("OneLeaderPerEpoch", oneLeaderPerEpoch, explainOneLeaderPerEpoch),
}

func oneLeaderPerEpoch(m *kafka.Model, s *kafka.State) bool {
	var seen uint16
	for b := 0; b < m.C.Brokers; b++ {
		if r := &s.B[b]; r.Role == kafka.RoleLeader {
			if seen&(1<<r.Epoch) != 0 {
				return false
			}
			seen |= 1 << r.Epoch
		}
	}
	return true
}

// HighWatermarkMonotonic: a leader's high watermark never goes down within its epoch.
var HighWatermarkMonotonic = Descriptor{
	Name:  "HighWatermarkMonotonic",
	Views: []string{"logs"},
	Doc: "on every step, a broker that leads the same epoch before and after has a high watermark at least " +
		"as high as before (Partition.maybeIncrementLeaderHW only raises it); a follower's high watermark " +
		"is min(leader's, own LEO) and may go down, so it is not checked",
	Kind: checker.ActionProperty,
	Ref:  "KIP-101 (high watermark); Partition.maybeIncrementLeaderHW",
	Build: func(m *kafka.Model) checker.Property[kafka.State] {
		return checker.Property[kafka.State]{Name: "HighWatermarkMonotonic", Kind: checker.ActionProperty,
			Step: func(from *kafka.State, _ uint64, to *kafka.State) bool {
				for b := 0; b < m.C.Brokers; b++ {
					x, y := &from.B[b], &to.B[b]
					if x.Role == kafka.RoleLeader && y.Role == kafka.RoleLeader && x.Epoch == y.Epoch && y.HW < x.HW {
						return false
					}
				}
				return true
			},
			ExplainStep: func(from *kafka.State, _ uint64, to *kafka.State) string {
				return explainHighWatermarkMonotonic(m, from, to)
			}}
	},
}

// AckedOnMinISR: an acks=all write is acknowledged only once min.insync.replicas replicas
// hold it.
var AckedOnMinISR = Descriptor{
	Name:  "AckedOnMinISR",
	Views: []string{"logs"},
	Doc: "on every step that acknowledges a record to an acks=all producer (the leader's high watermark " +
		"passes it), at least min_isr replicas hold that record at its offset: Kafka's contract for " +
		"min.insync.replicas (\"the minimum number of replicas that must acknowledge a write for the write to " +
		"be considered successful\"), kept by the append-time check (NOT_ENOUGH_REPLICAS), the high watermark " +
		"gate (KAFKA-15583, 3.7) and the completion check (NOT_ENOUGH_REPLICAS_AFTER_APPEND). A record acknowledged " +
		"on fewer replicas is lost by fewer failures than the producer was promised",
	Kind: checker.ActionProperty,
	Ref:  "TopicConfig.MIN_IN_SYNC_REPLICAS_DOC; Partition.appendRecordsToLeader, checkEnoughReplicasReachOffset",
	Build: func(m *kafka.Model) checker.Property[kafka.State] {
		return checker.Property[kafka.State]{Name: "AckedOnMinISR", Kind: checker.ActionProperty,
			Step: func(from *kafka.State, _ uint64, to *kafka.State) bool {
				_, _, ok := ackedOnFew(m, from, to)
				return !ok
			},
			ExplainStep: func(from *kafka.State, _ uint64, to *kafka.State) string {
				return explainAckedOnMinISR(m, from, to)
			}}
	},
}

// ackedOnFew finds a record (id index) that the step from -> to acknowledges while fewer
// than min_isr replicas hold it at its offset, with the set of those that do.
func ackedOnFew(m *kafka.Model, from, to *kafka.State) (id int, holders uint8, ok bool) {
	for id := 0; id < m.C.MaxRecords; id++ {
		if from.Acked[id] != 0 || to.Acked[id] == 0 {
			continue
		}
		off, holders := to.Acked[id]-1, uint8(0)
		for b := 0; b < m.C.Brokers; b++ {
			if r := &to.B[b]; off < r.LEO && r.Log[off].ID == uint8(id+1) {
				holders |= 1 << b
			}
		}
		if n := bits.OnesCount8(holders); n < m.C.MinISR {
			return id, holders, true
		}
	}
	return 0, 0, false
}

// EpochCacheMatchesLog: every replica's leader-epoch cache describes its log.
var EpochCacheMatchesLog = Descriptor{
	Name:  "EpochCacheMatchesLog",
	Views: []string{"logs", "epochCaches"},
	Doc: "on every replica, every epoch carried by a batch in the log has a cache entry, and the cache's " +
		"floor entry for each batch's offset is that batch's epoch. A diagnostic: an unclean restart with a " +
		"stale leader-epoch checkpoint and partial recovery breaks it, the precondition of the KAFKA-13077 " +
		"fetch loop (endOffsetFor answers a missing epoch with an older one)",
	Kind:  checker.Invariant,
	Ref:   "KAFKA-13077",
	Build: invariant("EpochCacheMatchesLog", epochCacheMatchesLog, explainEpochCacheMatchesLog),
}

// NoMissingEpoch: no replica's cache answers an epoch its log carries with an older one.
var NoMissingEpoch = Descriptor{
	Name:  "NoMissingEpoch",
	Views: []string{"epochCaches"},
	Doc: "on every replica, every epoch E carried by a batch in the log is answered by the replica's " +
		"endOffsetFor(E) with E itself: the cache holds E, or holds no epoch below it. A violation is exactly " +
		"the KAFKA-13077 precondition: asked for E, the replica answers an older epoch, which diverges",
	Kind:  checker.Invariant,
	Ref:   "KAFKA-13077",
	Build: invariant("NoMissingEpoch", noMissingEpoch, explainMissingEpoch),
}

// NoPhantomEpoch: no replica's leader-epoch cache holds an epoch that no batch of its log
// carries.
var NoPhantomEpoch = Descriptor{
	Name:  "NoPhantomEpoch",
	Views: []string{"epochCaches"},
	Doc: "on every replica, every leader-epoch cache entry below the log end names an epoch that some " +
		"batch of the log carries. A violation is a phantom epoch: an entry a truncation removed that came " +
		"back at a restart from a checkpoint file whose scheduled write was lost (KAFKA-16541, 3.8 and later), " +
		"over batches of other epochs; endOffsetFor then answers with it and may make a follower truncate " +
		"records the leader holds",
	Kind:  checker.Invariant,
	Ref:   "KAFKA-16541",
	Build: invariant("NoPhantomEpoch", noPhantomEpoch, explainPhantomEpoch),
}

func noPhantomEpoch(m *kafka.Model, s *kafka.State) bool {
	for b := 0; b < m.C.Brokers; b++ {
		if _, ok := s.B[b].PhantomEpoch(); ok {
			return false
		}
	}
	return true
}

func noMissingEpoch(m *kafka.Model, s *kafka.State) bool {
	for b := 0; b < m.C.Brokers; b++ {
		if !s.B[b].AnswersLogEpochs() {
			return false
		}
	}
	return true
}

func epochCacheMatchesLog(m *kafka.Model, s *kafka.State) bool {
	for b := 0; b < m.C.Brokers; b++ {
		if !s.B[b].CacheMatchesLog() {
			return false
		}
	}
	return true
}

// FollowerEventuallyCatchesUp: a live follower of a leader that stays leader reaches the
// leader's log end offset.
var FollowerEventuallyCatchesUp = Descriptor{
	Name:  "FollowerEventuallyCatchesUp",
	Views: []string{"epochCaches"},
	Doc: "whenever a live follower of the controller's leader, which is live and leads that epoch, is " +
		"behind the leader's log end offset, eventually no such follower is behind: each has reached the " +
		"leader's log end offset, or the leader, its epoch or a broker's liveness changed (P ~> not P under " +
		"weak fairness of the protocol steps; producer writes and faults are unfair and bounded). Rules out " +
		"an endless fetch, diverging answer, truncate loop (KAFKA-13077)",
	Kind:  checker.LeadsTo,
	Ref:   "KAFKA-13077",
	Build: followerCatchesUp,
}

// behind reports whether some live follower follows the controller's leader, which is live
// and leading in that epoch, and has not reached the leader's log end offset.
func behind(m *kafka.Model, s *kafka.State) bool { return behindFollower(m, s) >= 0 }

// behindFollower is the first such follower (broker index), or -1.
func behindFollower(m *kafka.Model, s *kafka.State) int {
	l, lr, ok := stableLeader(s)
	if !ok {
		return -1
	}
	for f := 0; f < m.C.Brokers; f++ {
		r := &s.B[f]
		if f != l && r.Alive && r.Role == kafka.RoleFollower && int(r.Leader) == l+1 && r.Epoch == lr.Epoch && r.LEO < lr.LEO {
			return f
		}
	}
	return -1
}

func followerCatchesUp(m *kafka.Model) checker.Property[kafka.State] {
	return checker.Property[kafka.State]{Name: "FollowerEventuallyCatchesUp", Kind: checker.LeadsTo,
		P:       func(s *kafka.State) bool { return behind(m, s) },
		Q:       func(s *kafka.State) bool { return !behind(m, s) },
		Explain: func(s *kafka.State) string { return explainBehind(m, s) }}
}

// stableLeader returns the controller's leader (broker index) and its replica when that
// broker is live and acts as leader in the controller's leader epoch.
func stableLeader(s *kafka.State) (int, *kafka.Replica, bool) {
	l := int(s.Ctrl.Leader) - 1
	if l < 0 {
		return 0, nil, false
	}
	lr := &s.B[l]
	if !lr.Alive || lr.Role != kafka.RoleLeader || lr.Epoch != s.Ctrl.Epoch {
		return 0, nil, false
	}
	return l, lr, true
}
