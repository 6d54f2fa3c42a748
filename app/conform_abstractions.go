package app

// The known reasons why Kafka's classes may not follow a model step: abstractions the model
// makes on purpose (each listed in the README's "Conformance" section with why it is sound for
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
		Name:   "reelected-leader-keeps-follower-leo",
		Defect: true,
		Doc: "the model resets a leader's record of its followers' log end offsets on every new leader epoch; Kafka " +
			"resets them only when the broker becomes leader anew (Partition.makeLeader -> Replica.resetReplicaState with " +
			"isNewLeader false keeps them), so a leader re-elected in a later epoch without having followed in between " +
			"keeps its followers' offsets from the earlier epoch",
		match: func(act string, diffs []string, o *observed, s map[string]any) bool {
			if act != "BrokerHandleLeaderAndIsr" {
				return false
			}
			for _, d := range diffs {
				if !strings.Contains(d, "log end offset of follower") || !strings.Contains(d, "the model has 0;") {
					return false
				}
			}
			return true
		},
	},
	{
		Name:   "stale-broker-epoch",
		Defect: true,
		Doc: "the model lets a restarted broker act on a LeaderAndIsr and fetch before the controller has registered " +
			"it (ControllerHandleBrokerStartup), so its fetch carries its previous broker epoch; Kafka's leader fences such " +
			"a fetch (KIP-903: Replica.updateFetchStateOrThrow, NOT_LEADER_OR_FOLLOWER), and a broker acts on partition " +
			"state only after it registers",
		match: func(act string, diffs []string, o *observed, s map[string]any) bool {
			if act != "LeaderHandleFetch" {
				return false
			}
			for _, e := range o.Events {
				if strings.Contains(e, "Received stale fetch state update") {
					return true
				}
			}
			return false
		},
	},
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
