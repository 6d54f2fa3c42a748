package invariants

import (
	"fmt"

	"kmc/checker"
	"kmc/model/kafka"
)

// Properties of KIP-966 (Eligible Leader Replicas) on the KRaft control plane
// (model/kafka/kraft.go), as Vanlightly's KIP-966 specification states them
// (kafka_data_replication/kraft/kip-966/kip_966_properties.tla, commit 823615e). Without
// control_plane = kraft they hold trivially (no ELR).

// ValidControllerIsrAndElr: the controller's ISR and ELR are legal.
var ValidControllerIsrAndElr = Descriptor{
	Name:  "ValidControllerIsrAndElr",
	Views: []string{"controlPlane"},
	Doc: "the active controller's partition state is legal: no ELR member is in the ISR, the ELR is empty while " +
		"the ISR has min.insync.replicas members or more, and (with ELR) no fenced broker is in the ISR " +
		"(Vanlightly's KIP-966 ValidControllerIsrAndElr and its fencing clause; PartitionChangeBuilder." +
		"maybePopulateTargetElr)",
	Kind:  checker.Invariant,
	Ref:   "KIP-966",
	Build: invariant("ValidControllerIsrAndElr", validIsrAndElr, explainIsrAndElr),
}

func validIsrAndElr(m *kafka.Model, s *kafka.State) bool { return isrAndElrProblem(m, s) == "" }

func isrAndElrProblem(m *kafka.Model, s *kafka.State) string {
	k, c := &s.KR, &s.Ctrl
	switch {
	case k.ELR&c.ISR != 0:
		return fmt.Sprintf("ELR %s and ISR %s share %s", brokerSet(m, k.ELR), brokerSet(m, c.ISR), brokerSet(m, k.ELR&c.ISR))
	case popcount(c.ISR) >= m.C.MinISR && k.ELR != 0:
		return fmt.Sprintf("the ISR %s has min.insync.replicas = %d members but the ELR is %s", brokerSet(m, c.ISR), m.C.MinISR, brokerSet(m, k.ELR))
	case m.ELR() && k.Fenced&c.ISR != 0:
		return fmt.Sprintf("fenced %s is in the ISR %s", brokerSet(m, k.Fenced&c.ISR), brokerSet(m, c.ISR))
	}
	return ""
}

func explainIsrAndElr(m *kafka.Model, s *kafka.State) string {
	return "the controller's " + isrAndElrProblem(m, s)
}

// MinIsrRecoveryQuorum: with ISR and ELR empty, the last known ELR names the last leader.
var MinIsrRecoveryQuorum = Descriptor{
	Name:  "MinIsrRecoveryQuorum",
	Views: []string{"controlPlane"},
	Doc: "whenever the controller's ISR and ELR are both empty, the last known ELR names exactly one broker, the " +
		"partition's last leader, which Kafka may elect (PartitionChangeBuilder.maybeUpdateLastKnownLeader, " +
		"useLastKnownLeaderInBalancedRecovery). Vanlightly's KIP-966 spec asks for min.insync.replicas members, " +
		"KIP-966's last known ELR; Kafka's code (4.0, 4.1) keeps the last leader instead",
	Kind:  checker.Invariant,
	Ref:   "KIP-966",
	Build: invariant("MinIsrRecoveryQuorum", minIsrRecoveryQuorum, explainMinIsrRecoveryQuorum),
}

func minIsrRecoveryQuorum(m *kafka.Model, s *kafka.State) bool {
	return !m.ELR() || s.Ctrl.ISR != 0 || s.KR.ELR != 0 || popcount(s.KR.LastELR) == 1
}

func explainMinIsrRecoveryQuorum(m *kafka.Model, s *kafka.State) string {
	return fmt.Sprintf("ISR and ELR are empty and the last known ELR %s has %d members, not the last leader alone",
		brokerSet(m, s.KR.LastELR), popcount(s.KR.LastELR))
}

// LeaderCandidateCompleteness: every ISR and ELR member holds every acknowledged record.
var LeaderCandidateCompleteness = Descriptor{
	Name:  "LeaderCandidateCompleteness",
	Views: []string{"controlPlane"},
	Doc: "every member of the controller's ISR or ELR that is up and registered (a leader candidate) holds every " +
		"acknowledged record at its offset (Vanlightly's KIP-966 LeaderCandidateCompletenessProperty): an election " +
		"from the ISR or the ELR cannot lose data. Without ELR it is NoCommittedDataLoss's ISR clause",
	Kind:  checker.Invariant,
	Ref:   "KIP-966",
	Build: invariant("LeaderCandidateCompleteness", candidatesComplete, explainCandidates),
}

func incompleteCandidate(m *kafka.Model, s *kafka.State) (id, b int, ok bool) {
	cand := s.Ctrl.ISR | s.KR.ELR
	for id := 0; id < m.C.MaxRecords; id++ {
		if s.Acked[id] == 0 {
			continue
		}
		off := s.Acked[id] - 1
		for b := 0; b < m.C.Brokers; b++ {
			r := &s.B[b]
			if cand&(1<<b) == 0 || !r.Alive || r.Register {
				continue
			}
			if off >= r.LEO || r.Log[off].ID != uint8(id+1) {
				return id, b, true
			}
		}
	}
	return 0, 0, false
}

func candidatesComplete(m *kafka.Model, s *kafka.State) bool {
	_, _, bad := incompleteCandidate(m, s)
	return !bad
}

func explainCandidates(m *kafka.Model, s *kafka.State) string {
	id, b, _ := incompleteCandidate(m, s)
	off := s.Acked[id] - 1
	where := "ISR"
	if s.KR.ELR&(1<<b) != 0 {
		where = "ELR"
	}
	return fmt.Sprintf("r%d was acknowledged at offset %d; %s, in the controller's %s and up, holds %s there",
		id+1, off, broker(b), where, record(&s.B[b], off))
}

func popcount(set uint8) (n int) {
	for ; set != 0; set &= set - 1 {
		n++
	}
	return
}
