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
