package vanlightly

import (
	"fmt"
	"strings"
)

// The six invariants of the module's cfg (v3_5_properties.tla), each with its
// explanation for the witness printed after a counterexample.

// isNonStaleLeader is IsNonStaleLeader(b).
func (s *State) isNonStaleLeader(b int) bool {
	return s.Status[b] == RoleLeader && s.RepMD[b].LeaderEpoch == s.PartMD.LeaderEpoch
}

// ValidLeaderMaximalISR: a leader of the controller's leader epoch has maximal ISR =
// ISR when no AlterPartition response is pending, and its maximal ISR contains the
// controller's ISR.
func (m *Model) ValidLeaderMaximalISR(s *State) bool { return m.ExplainValidLeaderMaximalISR(s) == "" }

// ExplainValidLeaderMaximalISR names the leader and the conjunct it breaks.
func (m *Model) ExplainValidLeaderMaximalISR(s *State) string {
	for b := 0; b < m.n; b++ {
		if !s.isNonStaleLeader(b) {
			continue
		}
		md := &s.RepMD[b]
		if !s.pendingAPResponse(b) && md.MaximalISR != md.ISR {
			return fmt.Sprintf("broker %s leads epoch %d with no AlterPartition pending, yet its maximal ISR %s is not its ISR %s",
				BrokerName(b), md.LeaderEpoch, m.setName(md.MaximalISR), m.setName(md.ISR))
		}
		if s.PartMD.ISR&^md.MaximalISR != 0 {
			return fmt.Sprintf("broker %s leads epoch %d with maximal ISR %s, which lacks %s of the controller's ISR %s",
				BrokerName(b), md.LeaderEpoch, m.setName(md.MaximalISR), m.setName(s.PartMD.ISR&^md.MaximalISR), m.setName(s.PartMD.ISR))
		}
	}
	return ""
}

// ControllerIsrHasUpToTrueHWM: no RUNNING member of the controller's ISR has an LEO
// below the true high watermark.
func (m *Model) ControllerIsrHasUpToTrueHWM(s *State) bool {
	return m.ExplainControllerIsrHasUpToTrueHWM(s) == ""
}

// ExplainControllerIsrHasUpToTrueHWM names the ISR member that misses committed records.
func (m *Model) ExplainControllerIsrHasUpToTrueHWM(s *State) string {
	for b := 0; b < m.n; b++ {
		if s.PartMD.ISR.Has(b) && s.leo(b) < int(s.TrueHWM) && s.Broker[b].Status == Running {
			return fmt.Sprintf("broker %s is RUNNING in the controller's ISR %s with LEO %d below the true high watermark %d",
				BrokerName(b), m.setName(s.PartMD.ISR), s.leo(b), s.TrueHWM)
		}
	}
	return ""
}

// LeaderHasCompleteCommittedLog: the controller's leader, if any, holds every
// positively acknowledged value.
func (m *Model) LeaderHasCompleteCommittedLog(s *State) bool {
	return m.ExplainLeaderHasCompleteCommittedLog(s) == ""
}

// ExplainLeaderHasCompleteCommittedLog names the acknowledged value the leader lacks.
func (m *Model) ExplainLeaderHasCompleteCommittedLog(s *State) string {
	l := int(s.PartMD.Leader)
	if l == NoLeader {
		return ""
	}
	for v := 0; v < m.cfg.Values; v++ {
		if s.PosAcked&(1<<uint(v)) == 0 {
			continue
		}
		found := false
		for i := 0; i < int(s.Data[l].Len); i++ {
			if int(s.Data[l].Log[i].Value) == v {
				found = true
			}
		}
		if !found {
			return fmt.Sprintf("value %s was acknowledged but the controller's leader, broker %s, does not hold it",
				ValueName(v), BrokerName(l))
		}
	}
	return ""
}

// NoPartitionLogDivergence: two replicas agree on every offset below both their LEOs
// and both their high watermarks (offsets 1..Cardinality(Values)).
func (m *Model) NoPartitionLogDivergence(s *State) bool {
	return m.ExplainNoPartitionLogDivergence(s) == ""
}

// ExplainNoPartitionLogDivergence names the offset and the two replicas that differ.
func (m *Model) ExplainNoPartitionLogDivergence(s *State) string {
	for off := 1; off <= m.cfg.Values; off++ {
		for b1 := 0; b1 < m.n; b1++ {
			for b2 := 0; b2 < m.n; b2++ {
				if s.leo(b1) > off && s.leo(b2) > off && s.hwm(b1) > off && s.hwm(b2) > off &&
					s.Data[b1].Log[off-1].Value != s.Data[b2].Log[off-1].Value {
					return fmt.Sprintf("brokers %s and %s both hold offset %d below their high watermarks, with values %s and %s",
						BrokerName(b1), BrokerName(b2), off, ValueName(int(s.Data[b1].Log[off-1].Value)),
						ValueName(int(s.Data[b2].Log[off-1].Value)))
				}
			}
		}
	}
	return ""
}

// NoMetadataLogDivergence: every broker's metadata log agrees with the controller's on
// the offsets it holds. The port holds a broker's metadata log as the length of the prefix
// of the controller's it is (State, invariant 4), so it holds by construction whenever
// that length is within the controller's log; the check is of that.
func (m *Model) NoMetadataLogDivergence(s *State) bool {
	return m.ExplainNoMetadataLogDivergence(s) == ""
}

// ExplainNoMetadataLogDivergence names a broker whose metadata log is longer than the
// controller's.
func (m *Model) ExplainNoMetadataLogDivergence(s *State) string {
	for b := 0; b < m.n; b++ {
		if s.BrokerMDLen[b] > s.MDLen {
			return fmt.Sprintf("broker %s's metadata log has %d records, the controller's %d",
				BrokerName(b), s.BrokerMDLen[b], s.MDLen)
		}
	}
	return ""
}

// ConsumedRecordsMatchLeaderLog: a leader of the controller's leader epoch holds every
// consumed record at its offset.
func (m *Model) ConsumedRecordsMatchLeaderLog(s *State) bool {
	return m.ExplainConsumedRecordsMatchLeaderLog(s) == ""
}

// ExplainConsumedRecordsMatchLeaderLog names the leader and the consumed offset it lacks
// or holds differently.
func (m *Model) ExplainConsumedRecordsMatchLeaderLog(s *State) string {
	for b := 0; b < m.n; b++ {
		if !s.isNonStaleLeader(b) {
			continue
		}
		for i := 0; i < int(s.ConsumedLen); i++ {
			c := s.Consumed[i]
			if i >= int(s.Data[b].Len) {
				return fmt.Sprintf("offset %d (value %s, epoch %d) was consumed but leader %s's log ends before it",
					i+1, ValueName(int(c.Value)), c.Epoch, BrokerName(b))
			}
			if r := s.Data[b].Log[i]; r != c {
				return fmt.Sprintf("offset %d was consumed as value %s of epoch %d but leader %s holds value %s of epoch %d there",
					i+1, ValueName(int(c.Value)), c.Epoch, BrokerName(b), ValueName(int(r.Value)), r.Epoch)
			}
		}
	}
	return ""
}

func (m *Model) setName(x Set) string {
	var names []string
	for b := 0; b < m.n; b++ {
		if x.Has(b) {
			names = append(names, BrokerName(b))
		}
	}
	return "{" + strings.Join(names, ", ") + "}"
}
