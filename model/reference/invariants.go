package reference

// The invariants of KafkaReplication. Where the module's text has a flaw, the main
// name holds the evident intent and the text as written is kept under a name ending
// in Literal.

// TypeOk is the evident intent of KafkaReplication's TypeOk: the id sequences are in
// range (LeaderEpochSeq!TypeOk, RecordSeq!TypeOk), every log is a FiniteReplicatedLog
// log whose written offsets hold records of LogRecords (and whose other offsets hold
// Nil, by the representation), the replica states are in ReplicaState, and the quorum
// state and every request are in QuorumState.
func (m *Model) TypeOk(s *State) bool {
	c := m.cfg
	if s.NextLeaderEpoch < 0 || int(s.NextLeaderEpoch) > c.MaxLeaderEpoch+1 {
		return false
	}
	if s.NextRecordID < 0 || int(s.NextRecordID) > c.MaxRecords {
		return false
	}
	for r := 0; r < m.n; r++ {
		if s.end(r) < 0 || s.end(r) > c.LogSize {
			return false
		}
		for o := 0; o < s.end(r); o++ {
			rec := s.rec(r, o)
			if rec.ID < 0 || int(rec.ID) > c.MaxRecords-1 || rec.Epoch < 0 || int(rec.Epoch) > c.MaxLeaderEpoch {
				return false
			}
		}
		rs := &s.Replicas[r]
		if rs.HW < 0 || int(rs.HW) > c.LogSize || !m.epochOpt(rs.LeaderEpoch) || !m.replicaOpt(rs.Leader) || !m.subset(rs.ISR) {
			return false
		}
	}
	q := s.Quorum
	if !m.epochOpt(q.LeaderEpoch) || !m.replicaOpt(q.Leader) || !m.subset(q.ISR) {
		return false
	}
	for e := 0; e < int(s.NextLeaderEpoch); e++ {
		if !m.epochOpt(int8(e)) || !m.replicaOpt(s.Requests[e].Leader) || !m.subset(s.Requests[e].ISR) {
			return false
		}
	}
	return true
}

// TypeOkLiteral is KafkaReplication's TypeOk as written. FiniteReplicatedLog's LogType
// asks for records \in [Offsets -> LogRecords \union {Nil}], and TLC cannot decide
// whether Nil (the integer -1) is in LogRecords, a set of records: it stops with an
// evaluation error ("Attempted to check if the value -1 is a record") at the first state
// in which some log has an unwritten offset, which is the initial state. Here that error
// is a violation: the literal form holds only where every log is full and TypeOk holds.
func (m *Model) TypeOkLiteral(s *State) bool {
	for r := 0; r < m.n; r++ {
		if s.end(r) < m.cfg.LogSize {
			return false
		}
	}
	return m.TypeOk(s)
}

func (m *Model) epochOpt(e int8) bool { return e >= Nil && int(e) <= m.cfg.MaxLeaderEpoch }

func (m *Model) replicaOpt(r int8) bool { return r >= None && int(r) < m.n }

func (m *Model) subset(x Set) bool { return x&^m.all() == 0 }

// isrAgrees is the body shared by WeakIsr and StrongIsr: a replica r1 that presumes
// leadership with hw > 0 holds, at every offset below hw, the same record as every
// member of isr.
func (s *State) isrAgrees(r1 int, isr Set, n int) bool {
	hw := int(s.Replicas[r1].HW)
	for r2 := 0; r2 < n; r2++ {
		if !isr.Has(r2) {
			continue
		}
		for o := 0; o < hw; o++ {
			if !s.hasOffset(r1, o) || !s.hasEntry(r2, s.rec(r1, o), o) {
				return false
			}
		}
	}
	return true
}

// WeakIsr is KafkaReplication's WeakIsr: every presumed leader agrees with the members
// of its own (cached) ISR on every offset below its high watermark.
func (m *Model) WeakIsr(s *State) bool {
	for r := 0; r < m.n; r++ {
		if s.presumes(r) && !s.isrAgrees(r, s.Replicas[r].ISR, m.n) {
			return false
		}
	}
	return true
}

// StrongIsr is KafkaReplication's StrongIsr: every presumed leader agrees with the
// members of the true ISR (quorumState.isr) on every offset below its high watermark,
// so that no data exposed to consumers is missing on a replica that can be elected.
func (m *Model) StrongIsr(s *State) bool {
	for r := 0; r < m.n; r++ {
		if s.presumes(r) && !s.isrAgrees(r, s.Quorum.ISR, m.n) {
			return false
		}
	}
	return true
}

// LeaderInIsr is the evident intent of KafkaReplication's LeaderInIsr: when the quorum
// names a leader, the leader is in the quorum's ISR.
func (m *Model) LeaderInIsr(s *State) bool {
	return s.Quorum.Leader == None || s.Quorum.ISR.Has(int(s.Quorum.Leader))
}

// LeaderInIsrLiteral is LeaderInIsr as written, quorumState.leader \in quorumState.isr.
// It cannot hold: the initial quorum state has leader None, and None \notin Replicas is
// an assumption of the module, so it fails in the initial state.
func (m *Model) LeaderInIsrLiteral(s *State) bool {
	return s.Quorum.ISR.Has(int(s.Quorum.Leader))
}
