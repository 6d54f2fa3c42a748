package vanlightly

// The operators of message_passing.tla and v3_5_functions.tla, on the port's State. Each
// reads the current state s (the module's unprimed variables) and writes the successor t
// (its primed ones), so that an action composed of several of them reads what the
// module reads. Where TLC would stop with an evaluation error (an offset outside a log's
// domain, Nil compared with a number), the port panics with the same diagnosis.

func tlcError(what string) {
	panic("vanlightly: " + what + " (TLC would stop with an evaluation error here)")
}

// --- message_passing.tla ---

// msgLess orders messages by their encodings, the canonical order of the domain.
func msgLess(a, b *Msg) bool {
	var ka, kb [msgLen]byte
	appendMsgTo(ka[:0], a)
	appendMsgTo(kb[:0], b)
	for i := range ka {
		if ka[i] != kb[i] {
			return ka[i] < kb[i]
		}
	}
	return false
}

// find returns the index of msg in the domain of messages, or -1.
func (s *State) find(msg *Msg) int {
	for i := 0; i < int(s.NMsgs); i++ {
		if s.Msgs[i] == *msg {
			return i
		}
	}
	return -1
}

// send is Send(m): the delivery count of msg goes up by one, or msg joins the domain
// with count 1.
func (t *State) send(msg Msg) {
	if i := t.find(&msg); i >= 0 {
		t.Counts[i]++
		return
	}
	if int(t.NMsgs) == MaxMessages {
		panic("vanlightly: more than MaxMessages messages in the domain of messages")
	}
	i := int(t.NMsgs)
	for i > 0 && msgLess(&msg, &t.Msgs[i-1]) {
		t.Msgs[i], t.Counts[i] = t.Msgs[i-1], t.Counts[i-1]
		i--
	}
	t.Msgs[i], t.Counts[i] = msg, 1
	t.NMsgs++
}

// discard is Discard(m) for the message at index i: its count goes down by one; it
// stays in the domain.
func (t *State) discard(i int) { t.Counts[i]-- }

// reply is Reply(d, m) for d at index i (receivable, so its count is positive).
func (t *State) reply(i int, msg Msg) {
	t.discard(i)
	t.send(msg)
}

// receivable is ReceivableMsg(m, type) for the message at index i.
func (s *State) receivable(i int, typ uint8) bool {
	return s.Msgs[i].Type == typ && s.Counts[i] > 0
}

// --- v3_5_functions.tla: helpers ---

func (s *State) leo(b int) int { return s.Data[b].Leo() }
func (s *State) hwm(b int) int { return int(s.Data[b].HWM) }

// entry is LogEntry(b, offset) (1-based offset).
func (s *State) entry(b, offset int) Record {
	if offset < 1 || offset > int(s.Data[b].Len) {
		tlcError("LogEntry(" + BrokerName(b) + ", " + itoa(offset) + ") is outside the log's domain")
	}
	return s.Data[b].Log[offset-1]
}

// lastEpoch is IF LogOf(b) = <<>> THEN 0 ELSE Last(LogOf(b)).epoch.
func (d *PartitionData) lastEpoch() int8 {
	if d.Len == 0 {
		return 0
	}
	return d.Log[d.Len-1].Epoch
}

// pendingAPResponse is PendingAlterPartitionResponse(b).
func (s *State) pendingAPResponse(b int) bool {
	return s.Pending[b].Epoch > s.RepMD[b].PartitionEpoch
}

// resetReplicaState is ResetReplicaState(b).
func (m *Model) resetReplicaState(t *State, b int) {
	for b1 := 0; b1 < m.n; b1++ {
		t.Peers[b][b1] = PeerState{Leo: Nil}
	}
}

// resetPendingAP is ResetPendingAlterPartition(b).
func resetPendingAP(t *State, b int) { t.Pending[b] = PendingAP{} }

// --- anti-cycle checks ---

// sendFetchMakesProgress is __SendFetchMakesProgress(b).
func (m *Model) sendFetchMakesProgress(s *State, b int) bool {
	leader := int(s.RepMD[b].Leader)
	matching := s.RepMD[b].LeaderEpoch == s.RepMD[leader].LeaderEpoch
	switch {
	case s.Fetchers[b][leader].Delayed && !matching:
		return false
	case m.cfg.LimitFetchesOnLeaderEpoch && !matching:
		return false
	}
	peer := s.Peers[leader][b]
	return s.leo(b) < s.leo(leader) || s.hwm(b) < s.hwm(leader) || peer.Leo == Nil ||
		(peer.Leo != Nil && int(peer.Leo) < s.leo(b))
}

// receiveFetchMakesProgress is __ReceiveFetchMakesProgress(m).
func (m *Model) receiveFetchMakesProgress(s *State, msg *Msg) bool {
	return !(m.cfg.LimitFetchesOnLeaderEpoch && msg.LeaderEpoch > s.RepMD[msg.Dst].LeaderEpoch)
}

// --- commit offsets ---

// isCommitted is IsCommitted(b, maximal_isr, replica_state, offset).
func (m *Model) isCommitted(b int, maximal Set, peers *[MaxBrokers]PeerState, offset int) bool {
	for b1 := 0; b1 < m.n; b1++ {
		if !maximal.Has(b1) || b1 == b {
			continue
		}
		if peers[b1].Leo == Nil || int(peers[b1].Leo) <= offset {
			return false
		}
	}
	return true
}

// commitOffset is GetCommitOffset(b, maximal_isr, leo, replica_state): 0 when b's log
// is empty (its current LEO, not the leo argument), else the highest offset below leo
// that is committed, or 0.
func (m *Model) commitOffset(s *State, b int, maximal Set, leo int, peers *[MaxBrokers]PeerState) int {
	if s.leo(b) == 1 {
		return 0
	}
	for off := leo - 1; off >= 1; off-- {
		if m.isCommitted(b, maximal, peers, off) {
			return off
		}
	}
	return 0
}

// --- high watermark and acknowledgements ---

// sendAcksFor is SendAcksFor(b, lower, higher, ack_type), evaluated as TLC does: values
// of inv_sent in order, each conjunct short-circuiting, offsets of lower..higher in order.
func (m *Model) sendAcksFor(s, t *State, b, lower, higher int, pos bool) {
	var values uint8
	for v := 0; v < m.cfg.Values; v++ {
		bit := uint8(1) << uint(v)
		if s.Sent&bit == 0 || s.PosAcked&bit != 0 || s.NegAcked&bit != 0 {
			continue
		}
		for off := lower; off <= higher; off++ {
			if int(s.entry(b, off).Value) == v {
				values |= bit
				break
			}
		}
	}
	if pos {
		t.PosAcked = s.PosAcked | values
	} else {
		t.NegAcked = s.NegAcked | values
	}
}

// updateHwmInvariantVars is UpdateHwmInvariantVars(b, old_hwm, new_hwm, ack_type).
func (m *Model) updateHwmInvariantVars(s, t *State, b, oldHwm, newHwm int, pos bool) {
	if pos {
		m.sendAcksFor(s, t, b, oldHwm, newHwm-1, true)
	} else {
		m.sendAcksFor(s, t, b, oldHwm, s.leo(b)-1, false)
	}
	if newHwm > int(s.TrueHWM) {
		t.TrueHWM = int8(newHwm)
		// inv_consumed \o SubSeq(LogOf(b), inv_true_hwm, new_hwm-1)
		lo, hi := int(s.TrueHWM), newHwm-1
		if hi > int(s.Data[b].Len) || lo < 1 {
			tlcError("SubSeq(LogOf(" + BrokerName(b) + "), " + itoa(lo) + ", " + itoa(hi) + ") is outside the log")
		}
		n := s.ConsumedLen
		for off := lo; off <= hi; off++ {
			if int(n) == MaxValues {
				panic("vanlightly: inv_consumed longer than |Values|")
			}
			t.Consumed[n] = s.Data[b].Log[off-1]
			n++
		}
		t.ConsumedLen = n
	}
}

// maybeAdvanceHighWatermark is MaybeAdvanceHighWatermark(b, old_hwm, new_hwm, ack_type).
func (m *Model) maybeAdvanceHighWatermark(s, t *State, b, oldHwm, newHwm int, pos bool) {
	if newHwm > oldHwm {
		t.Data[b].HWM = int8(newHwm)
		m.updateHwmInvariantVars(s, t, b, oldHwm, newHwm, pos)
	}
}

// failPendingWrites is FailPendingWrites(b).
func (m *Model) failPendingWrites(s, t *State, b int) {
	m.sendAcksFor(s, t, b, s.hwm(b), s.leo(b)-1, false)
}

// maybeFailPendingWrites is MaybeFailPendingWrites(b, part_state).
func (m *Model) maybeFailPendingWrites(s, t *State, b int, part *ReplicaMD) {
	if s.hwm(b) < s.leo(b) && (part.ISR.Len() < m.cfg.MinISR || b != int(part.Leader)) {
		m.failPendingWrites(s, t, b)
	}
}

// maybeUpdateHwmOnPartitionChange is MaybeUpdateHwmOnPartitionChange(b, part_state, _).
func (m *Model) maybeUpdateHwmOnPartitionChange(s, t *State, b int, part *ReplicaMD) {
	oldHwm := s.hwm(b)
	newHwm := m.commitOffset(s, b, part.MaximalISR, s.leo(b), &s.Peers[b]) + 1
	m.maybeAdvanceHighWatermark(s, t, b, oldHwm, newHwm, part.MaximalISR.Len() >= m.cfg.MinISR)
}

// --- the controller's partition changes ---

// applyPartitionChange is ApplyPartitionChange(new_leader, new_isr, leader_epoch,
// part_epoch): the controller's partition state and a PartitionChangeRecord.
func applyPartitionChange(t *State, leader int, isr Set, leaderEpoch, partEpoch int8) {
	md := PartitionMD{ISR: isr, Leader: int8(leader), LeaderEpoch: leaderEpoch, PartitionEpoch: partEpoch}
	t.PartMD = md
	if int(t.MDLen) == MaxMetadataLog {
		panic("vanlightly: con_metadata_log longer than MaxMetadataLog")
	}
	t.MDLog[t.MDLen] = md
	t.MDLen++
}

// Outcomes of MaybeUpdatePartitionMetadata.
const (
	pcNone     = iota // NoPartitionChange
	pcIsr             // ISR change, same leader
	pcElect           // a leader change: one outcome per candidate
	pcNoLeader        // no candidate: NoLeader
)

// maybeUpdatePartitionMetadata is MaybeUpdatePartitionMetadata(new_isr, new_unfenced):
// which CASE arm applies, and for pcElect the candidates (the module's
// \E candidate \in new_isr : candidate \in new_unfenced).
func maybeUpdatePartitionMetadata(s *State, newISR, newUnfenced Set) (int, Set) {
	md := s.PartMD
	cands := newISR & newUnfenced
	noLeaderChange := (md.Leader == NoLeader && cands == 0) ||
		(md.Leader != NoLeader && newISR.Has(int(md.Leader)) && newUnfenced.Has(int(md.Leader)))
	switch {
	case noLeaderChange && newISR == md.ISR:
		return pcNone, 0
	case noLeaderChange:
		return pcIsr, 0
	case cands != 0:
		return pcElect, cands
	default:
		return pcNoLeader, 0
	}
}

// applyOutcome applies arm pc of MaybeUpdatePartitionMetadata to t, with candidate c for
// pcElect.
func applyOutcome(s, t *State, pc int, newISR Set, c int) {
	md := s.PartMD
	switch pc {
	case pcIsr:
		applyPartitionChange(t, int(md.Leader), newISR, md.LeaderEpoch, md.PartitionEpoch+1)
	case pcElect:
		applyPartitionChange(t, c, newISR, md.LeaderEpoch+1, md.PartitionEpoch+1)
	case pcNoLeader:
		applyPartitionChange(t, NoLeader, newISR, md.LeaderEpoch+1, md.PartitionEpoch+1)
	}
}

// fencedOutcome is HandleBrokerFenced(b) before its choice: the new ISR (MaybeRemoveBrokerFromISR:
// the ISR never drops below one member), the new unfenced set, and the CASE arm.
func fencedOutcome(s *State, b int) (isr, unfenced Set, pc int, cands Set) {
	isr = s.PartMD.ISR
	if isr.Len() != 1 {
		isr = isr.Without(b)
	}
	unfenced = s.Unfenced.Without(b)
	pc, cands = maybeUpdatePartitionMetadata(s, isr, unfenced)
	return
}

// unfencedOutcome is HandleBrokerUnfenced(b) before its choice: unfencing changes no ISR,
// and the controller looks for a leader only when there is none.
func unfencedOutcome(s *State, b int) (isr, unfenced Set, pc int, cands Set) {
	isr = s.PartMD.ISR
	unfenced = s.Unfenced.With(b)
	pc = pcNone
	if s.PartMD.Leader == NoLeader {
		pc, cands = maybeUpdatePartitionMetadata(s, isr, unfenced)
	}
	return
}

// --- LastOffsetForEpoch ---

// lastOffsetForEpoch is LastOffsetForEpoch(b, req_epoch, is_leader): an epoch and an
// end offset, the offset Nil (-1) where the module's says "this should not happen".
func (s *State) lastOffsetForEpoch(b int, req int8, isLeader bool) (epoch, offset int8) {
	d := &s.Data[b]
	n := int(d.Len)
	if n == 0 || d.Log[n-1].Epoch == req || (isLeader && s.RepMD[b].LeaderEpoch == req) {
		return req, int8(d.Leo())
	}
	ep := func(off int) int8 { return d.Log[off-1].Epoch }
	higher := int8(Nil)
	found := false
	for off := 1; off <= n && !found; off++ {
		if ep(off) <= req {
			continue
		}
		ok := true
		for off2 := 1; off2 < off; off2++ {
			if ep(off2) > req && ep(off2) < ep(off) {
				ok = false
				break
			}
		}
		if ok {
			higher, found = int8(off), true
		}
	}
	if !found && isLeader && s.RepMD[b].LeaderEpoch > req {
		higher = int8(d.Leo())
	}
	floor, hasFloor := int8(0), false
	for off := 1; off <= n; off++ {
		if e := ep(off); e <= req && (!hasFloor || e > floor) {
			floor, hasFloor = e, true
		}
	}
	if hasFloor {
		return floor, higher
	}
	return req, higher
}
