package app

// The known reasons why Kafka's classes may not follow a model step: abstractions the model
// makes on purpose (each listed in docs/conformance.md with why it is sound for
// the properties checked) and model defects the conformance runs found and reported. A walk
// whose first difference is one of these ends there; its earlier states are counted as agreeing,
// and the difference is reported under the reason's name rather than as unexplained.

import (
	"strconv"
	"strings"
)

// reason is one known cause of a difference.
type reason struct {
	Name string // short name, as reports print it
	// Defect is true for a model defect (reported, not yet fixed in the model), false for an
	// abstraction.
	Defect bool
	Doc    string
	// match reports whether the differences diffs at a step with action name act and Kafka's
	// observation o are this reason's.
	match func(act string, diffs []string, o *observed, s map[string]any) bool
}

var conformReasons = []reason{
	{
		Name: "isr-shrink",
		Doc: "the model's LeaderShrinkISR(l, f) drops one lagging follower per AlterPartition; Kafka's " +
			"Partition.maybeShrinkIsr drops every follower that has not caught up within replica.lag.time.max.ms, " +
			"so with two followers behind it proposes them both at once",
		match: matchShrink,
	},
	{
		Name:   "kraft-replay-same-partition-epoch",
		Defect: true,
		Doc: "the model's KRaft leader skips a replayed PartitionChangeRecord at the partition epoch it already " +
			"has (applyPartitionState's stalePartitionState, guard KRaftReplayPartitionEpoch); Kafka's " +
			"Partition.makeLeader skips only a lower one (4.1.1 Partition.scala line 743, 4.2.0-rc1 line 598) and " +
			"re-applies it: the leader's ISR becomes the record's and its AlterPartition in flight is forgotten. " +
			"The mutant without the guard is what the real classes of 4.0.0, 4.0.1, 4.1.1, 4.1.2, 4.2.1, 4.3.2 and 4.4.0 do (conformance/suite.txt, " +
			"kraft-guards-replay-KRaftReplayPartitionEpoch: its 16-state counterexample to NoCommittedDataLoss agrees)",
		match: matchReplaySameEpoch,
	},
}

// matchReplaySameEpoch: a leader's replay where Kafka re-applied the registration the model
// skipped: same leader and epochs on both sides, and every difference is the leader's ISR
// state (ISR, maximal ISR, the AlterPartition in flight) or what the ISR moves (the high
// watermark).
func matchReplaySameEpoch(act string, diffs []string, o *observed, s map[string]any) bool {
	if act != "BrokerReplayMetadata" || len(diffs) == 0 {
		return false
	}
	for _, d := range diffs {
		if !strings.Contains(d, "'s ISR:") && !strings.Contains(d, "maximal ISR") &&
			!strings.Contains(d, "AlterPartition in flight") && !strings.Contains(d, "high watermark") {
			return false
		}
	}
	for b := range o.Brokers {
		k := &o.Brokers[b]
		if k.Role == "leader" && itfStr(brokerVar(s, "role", b+1)) == "leader" && k.Pending != nil && !*k.Pending &&
			intOf(brokerVar(s, "partitionEpoch", b+1)) == k.PartitionEpoch {
			if p, _ := rec(brokerVar(s, "leaderState", b+1), "pendingAlterPartition").(bool); p {
				return true
			}
		}
	}
	return false
}

// classify is the known reason for the differences at a step, or nil.
func classify(act string, diffs []string, o *observed, s map[string]any) *reason {
	for i := range conformReasons {
		if conformReasons[i].match(act, diffs, o, s) {
			return &conformReasons[i]
		}
	}
	return nil
}

// matchShrink: every difference is the AlterPartition's proposed ISR (or the leader's maximal
// ISR that follows from it), Kafka's proposal is the model's without some followers, and each
// follower Kafka drops besides the model's is behind the leader's log end.
func matchShrink(act string, diffs []string, o *observed, s map[string]any) bool {
	if act != "LeaderShrinkISR" {
		return false
	}
	for _, d := range diffs {
		if !strings.Contains(d, "proposed ISR") && !strings.Contains(d, "maximal ISR") {
			return false
		}
	}
	for _, m := range o.Messages {
		if m.Type != "AlterPartition" {
			continue
		}
		want := findMsg(s, "AlterPartition", m.From, 0)
		if want == nil {
			return false
		}
		model := brokerSet(rec(want, "isr"))
		if m.From < 1 || m.From > len(o.Brokers) {
			return false
		}
		leader := &o.Brokers[m.From-1]
		for _, b := range m.ISR {
			if !containsInt(model, b) {
				return false // Kafka keeps a follower the model drops
			}
		}
		for _, b := range model {
			if !containsInt(m.ISR, b) && int64(leader.FLEO[strconv.Itoa(b)]) >= leader.LEO {
				return false // Kafka drops a follower that is caught up
			}
		}
		return true
	}
	return false
}
