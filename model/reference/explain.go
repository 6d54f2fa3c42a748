package reference

import (
	"fmt"
	"strings"
)

// The explanations of the invariants (the witness printed after a counterexample): each says
// which part of the state breaks the invariant, in the module's own terms.

func (m *Model) setName(x Set) string {
	var names []string
	for r := 0; r < MaxReplicas; r++ {
		if x.Has(r) {
			names = append(names, ReplicaName(r))
		}
	}
	return "{" + strings.Join(names, ", ") + "}"
}

func optReplica(r int8) string {
	if r == None {
		return "None"
	}
	return ReplicaName(int(r))
}

// ExplainTypeOk names the first conjunct of TypeOk that s breaks.
func (m *Model) ExplainTypeOk(s *State) string {
	c := m.cfg
	if s.NextLeaderEpoch < 0 || int(s.NextLeaderEpoch) > c.MaxLeaderEpoch+1 {
		return fmt.Sprintf("nextLeaderEpoch = %d is outside 0..MaxLeaderEpoch+1 = %d", s.NextLeaderEpoch, c.MaxLeaderEpoch+1)
	}
	if s.NextRecordID < 0 || int(s.NextRecordID) > c.MaxRecords {
		return fmt.Sprintf("nextRecordId = %d is outside 0..MaxRecords = %d", s.NextRecordID, c.MaxRecords)
	}
	for r := 0; r < m.n; r++ {
		name := ReplicaName(r)
		if s.end(r) < 0 || s.end(r) > c.LogSize {
			return fmt.Sprintf("the end offset %d of %s's log is outside 0..LogSize = %d", s.end(r), name, c.LogSize)
		}
		for o := 0; o < s.end(r); o++ {
			rec := s.rec(r, o)
			if rec.ID < 0 || int(rec.ID) > c.MaxRecords-1 || rec.Epoch < 0 || int(rec.Epoch) > c.MaxLeaderEpoch {
				return fmt.Sprintf("%s's record at offset %d, [id |-> %d, epoch |-> %d], is not in LogRecords", name, o, rec.ID, rec.Epoch)
			}
		}
		rs := &s.Replicas[r]
		if rs.HW < 0 || int(rs.HW) > c.LogSize || !m.epochOpt(rs.LeaderEpoch) || !m.replicaOpt(rs.Leader) || !m.subset(rs.ISR) {
			return fmt.Sprintf("replicaState[%q] = [hw |-> %d, leaderEpoch |-> %d, leader |-> %s, isr |-> %s] is not in ReplicaState",
				name, rs.HW, rs.LeaderEpoch, optReplica(rs.Leader), m.setName(rs.ISR))
		}
	}
	q := s.Quorum
	if !m.epochOpt(q.LeaderEpoch) || !m.replicaOpt(q.Leader) || !m.subset(q.ISR) {
		return fmt.Sprintf("quorumState = [leaderEpoch |-> %d, leader |-> %s, isr |-> %s] is not in QuorumState",
			q.LeaderEpoch, optReplica(q.Leader), m.setName(q.ISR))
	}
	for e := 0; e < int(s.NextLeaderEpoch); e++ {
		if !m.epochOpt(int8(e)) || !m.replicaOpt(s.Requests[e].Leader) || !m.subset(s.Requests[e].ISR) {
			return fmt.Sprintf("the LeaderAndIsr request of epoch %d is not in QuorumState", e)
		}
	}
	return ""
}

// ExplainTypeOkLiteral says why TypeOk as written fails: an unwritten offset (TLC's
// evaluation error), or the conjunct of TypeOk that fails.
func (m *Model) ExplainTypeOkLiteral(s *State) string {
	for r := 0; r < m.n; r++ {
		if s.end(r) < m.cfg.LogSize {
			return fmt.Sprintf("%s's log has unwritten offsets (end offset %d < LogSize %d), whose Nil TLC cannot test for membership in LogRecords (an evaluation error in TLC)",
				ReplicaName(r), s.end(r), m.cfg.LogSize)
		}
	}
	return m.ExplainTypeOk(s)
}

// explainIsr names a presumed leader whose high watermark covers an offset at which a member
// of isr(r) lacks the leader's record.
func (m *Model) explainIsr(s *State, isr func(r int) Set, whose string) string {
	for r1 := 0; r1 < m.n; r1++ {
		if !s.presumes(r1) {
			continue
		}
		hw := int(s.Replicas[r1].HW)
		set := isr(r1)
		for r2 := 0; r2 < m.n; r2++ {
			if !set.Has(r2) {
				continue
			}
			for o := 0; o < hw; o++ {
				if !s.hasOffset(r1, o) {
					return fmt.Sprintf("%s presumes leadership with high watermark %d but its log ends at %d", ReplicaName(r1), hw, s.end(r1))
				}
				if !s.hasEntry(r2, s.rec(r1, o), o) {
					rec := s.rec(r1, o)
					has := "nothing"
					if s.hasOffset(r2, o) {
						got := s.rec(r2, o)
						has = fmt.Sprintf("[id |-> %d, epoch |-> %d]", got.ID, got.Epoch)
					}
					return fmt.Sprintf("%s presumes leadership with high watermark %d; at offset %d it holds [id |-> %d, epoch |-> %d] but %s, in %s %s, holds %s",
						ReplicaName(r1), hw, o, rec.ID, rec.Epoch, ReplicaName(r2), whose, m.setName(set), has)
				}
			}
		}
	}
	return ""
}

// ExplainWeakIsr says which presumed leader disagrees with a member of its own ISR.
func (m *Model) ExplainWeakIsr(s *State) string {
	return m.explainIsr(s, func(r int) Set { return s.Replicas[r].ISR }, "its cached ISR")
}

// ExplainStrongIsr says which presumed leader disagrees with a member of the true ISR.
func (m *Model) ExplainStrongIsr(s *State) string {
	return m.explainIsr(s, func(int) Set { return s.Quorum.ISR }, "the quorum's ISR")
}

// ExplainLeaderInIsr says that the quorum's leader is outside its ISR.
func (m *Model) ExplainLeaderInIsr(s *State) string {
	return fmt.Sprintf("quorumState.leader = %s is not in quorumState.isr = %s", optReplica(s.Quorum.Leader), m.setName(s.Quorum.ISR))
}

// ExplainLeaderInIsrLiteral is ExplainLeaderInIsr; with no leader it says that None is no
// replica.
func (m *Model) ExplainLeaderInIsrLiteral(s *State) string {
	if s.Quorum.Leader == None {
		return "quorumState.leader = None, which is in no ISR (None \\notin Replicas)"
	}
	return m.ExplainLeaderInIsr(s)
}

// ExplainTypeOk names the first conjunct of AsyncIsr's TypeOk (as intended) that s breaks.
func (m *AsyncModel) ExplainTypeOk(s *AsyncState) string {
	switch {
	case !m.subset(s.CtrlISR) || !m.subset(s.LeaderISR) || !m.subset(s.PendingISR):
		return "an ISR is not a subset of Replicas"
	case s.CtrlVersion < 0 || s.LeaderVersion < 0:
		return fmt.Sprintf("a version is negative (controller %d, leader %d)", s.CtrlVersion, s.LeaderVersion)
	case s.PendingVersion < Nil:
		return fmt.Sprintf("leaderState.pendingVersion = %d is neither Nil nor in Nat", s.PendingVersion)
	}
	for r := 0; r < m.n; r++ {
		if s.Offsets[r] < 0 {
			return fmt.Sprintf("%s's offset %d is negative", ReplicaName(r), s.Offsets[r])
		}
	}
	return "a request or an update is not over Replicas"
}

// ExplainTypeOkLiteral says why AsyncIsr's TypeOk as written fails.
func (m *AsyncModel) ExplainTypeOkLiteral(s *AsyncState) string {
	if s.PendingVersion < 0 {
		return fmt.Sprintf("leaderState.pendingVersion = %d (Nil) is not in Nat", s.PendingVersion)
	}
	return m.ExplainTypeOk(s)
}

// ExplainValidHighWatermark names a member of the controller's ISR below the high watermark.
func (m *AsyncModel) ExplainValidHighWatermark(s *AsyncState) string {
	hw := m.HighWatermark(s)
	for r := 0; r < m.n; r++ {
		if s.CtrlISR.Has(r) && int(s.Offsets[r]) < hw {
			return fmt.Sprintf("%s, in the controller's ISR (version %d), has offset %d, below the high watermark %d", ReplicaName(r), s.CtrlVersion, s.Offsets[r], hw)
		}
	}
	return ""
}
