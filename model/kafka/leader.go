package kafka

// The partition leader: produce, fetch and OffsetsForLeaderEpoch handling, high watermark,
// ISR shrink and expand through AlterPartition.
//
// Kafka: core/src/main/scala/kafka/cluster/Partition.scala.

// leaderSteps generates the steps of broker l as leader (or as the server of a fetch).
func (m *Model) leaderSteps(g *gen, l int) {
	s := g.s
	r := &s.B[l]
	if !r.Alive {
		return
	}
	if s.serving(l) { // shutting down or starting: it answers no produce or fetch request (shutdown.go)
		m.serveSteps(g, l)
	}
	if i := s.Net.find(MsgAlterPartitionResponse, CtrlID, uint8(l)); i >= 0 {
		t := g.emit(act1(KindLeaderHandleAlterPartitionResponse, l))
		m.handleAlterPartitionResponse(t, l, i)
	}
}

// serveSteps generates broker l's produce and request handling: LeaderAppend and its
// answers to fetch and OffsetsForLeaderEpoch requests.
func (m *Model) serveSteps(g *gen, l int) {
	s := g.s
	r := &s.B[l]
	// LeaderAppend(l): a producer write with acks=all.
	// Kafka: Partition.appendRecordsToLeader: NOT_ENOUGH_REPLICAS when the (committed) ISR
	// is below min.insync.replicas; UnifiedLog.appendAsLeader stamps the leader epoch.
	minISR := r.Role == RoleLeader && (popcount(r.ISR) >= m.C.MinISR || m.off(GuardAppendMinISR)) // read for a leader only: a refusal counted (switches.go)
	if r.Role == RoleLeader && minISR && int(s.Written) >= m.C.MaxRecords {
		g.cutStep(act1(KindLeaderAppend, l), BoundMaxRecords)
	} else if r.Role == RoleLeader && minISR {
		t := g.emit(act1(KindLeaderAppend, l))
		t.Written++
		tr := &t.B[l]
		tr.appendRecord(Entry{Epoch: tr.Epoch, ID: t.Written})
		m.maybeIncrementHW(t, l)
	}
	for f := 0; f < m.nb(); f++ {
		i := s.Net.fetchPlane(uint8(f))
		if i < 0 || s.Net.Msgs[i].To != uint8(l) {
			continue
		}
		switch s.Net.Msgs[i].Kind {
		case MsgFetch:
			t := g.emit(act2(KindLeaderHandleFetch, l, f))
			m.handleFetch(t, i)
		case MsgEpochRequest:
			t := g.emit(act2(KindLeaderHandleEpochRequest, l, f))
			m.handleEpochRequest(t, i)
		}
	}
}

// checkEpoch is replica r's answer to a request's currentLeaderEpoch when it must be the
// leader: with KIP-320 (Kafka 2.1) the epoch is checked, before it only the role
// (NOT_LEADER_FOR_PARTITION).
func (m *Model) checkEpoch(r *Replica, epoch uint8) uint8 {
	if !m.p.KIP320 {
		if r.Role != RoleLeader {
			return ErrNotLeaderOrFollower
		}
		return ErrNone
	}
	err := r.checkEpoch(epoch)
	if (err == ErrFencedLeaderEpoch || err == ErrUnknownLeaderEpoch) && m.off(GuardFetchLeaderEpoch) {
		if r.Role != RoleLeader {
			return ErrNotLeaderOrFollower // the epoch is not checked; the role still is
		}
		return ErrNone
	}
	return err
}

// checkEpoch is the replica's answer to a request's currentLeaderEpoch when it must be
// the leader. Kafka: Partition.getLocalLog / checkCurrentLeaderEpoch: a lower epoch is
// FENCED_LEADER_EPOCH, a higher one UNKNOWN_LEADER_EPOCH, an equal one on a non-leader
// NOT_LEADER_OR_FOLLOWER.
func (r *Replica) checkEpoch(epoch uint8) uint8 {
	switch {
	case epoch < r.Epoch:
		return ErrFencedLeaderEpoch
	case epoch > r.Epoch:
		return ErrUnknownLeaderEpoch
	case r.Role != RoleLeader:
		return ErrNotLeaderOrFollower
	}
	return ErrNone
}

// handleFetch answers the FetchRequest at index i of t's network.
// Kafka: Partition.fetchRecords -> readRecords: epoch checks; with lastFetchedEpoch, the
// divergence check on lastOffsetForLeaderEpoch (endOffsetFor); an undefined answer or a
// fetch offset past the log end is OFFSET_OUT_OF_RANGE; otherwise a lazy slice of the
// log's bytes from fetchOffset's batch (slice, bytes.go; with uniform record sizes
// [fetchOffset, min(fetchOffset+max, LEO))) with the high watermark as it is now. The
// follower's fetch state (and so the HW and the ISR) is updated only without a diverging
// epoch (KAFKA-13141), after the read.
func (m *Model) handleFetch(t *State, i int) {
	req := t.Net.Msgs[i]
	t.Net.remove(i)
	srv := &t.B[req.To]
	resp := Msg{Kind: MsgFetchResponse, From: req.To, To: req.From, Epoch: req.Epoch, Off: req.Off, Start: req.Off, End: req.Off}
	if err := m.checkEpoch(srv, req.Epoch); err != ErrNone {
		if err != ErrFencedLeaderEpoch {
			// UNKNOWN_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER: the follower retries after a
			// backoff and nothing else changes, so the error response and its (no-op)
			// handling are one step: the request is gone and the follower may fetch again.
			return
		}
		resp.Err = err
		t.Net.add(resp)
		return
	}
	if req.Last != NoEpoch {
		e, end := srv.endOffsetFor(req.Last, srv.LEO)
		if end == NoOffset || e == NoEpoch {
			resp.Err, resp.DivO = ErrOffsetOutOfRange, srv.LEO
			t.Net.add(resp)
			return
		}
		if (e < req.Last || end < req.Off) && !m.off(GuardFetchDivergence) {
			resp.HW, resp.DivE, resp.DivO = srv.HW, e, end
			t.Net.add(resp)
			if m.fixed(FixBit13141) {
				m.hit(Kafka13141.Branch(0)) // KAFKA-13141: no follower-state update
			} else {
				// Before KAFKA-13141 (3.0) the leader took the diverging follower's fetch
				// offset as its log end offset anyway.
				m.updateFollowerFetchState(t, int(req.To), int(req.From), req.Off, req.HW)
			}
			return
		}
	}
	if req.Off > srv.LEO {
		resp.Err, resp.DivO = ErrOffsetOutOfRange, srv.LEO
		t.Net.add(resp)
		return
	}
	resp.HW = srv.HW
	resp.Start, resp.End = m.slice(srv, req.Off)
	t.Net.add(resp)
	m.updateFollowerFetchState(t, int(req.To), int(req.From), req.Off, req.HW)
}

// updateFollowerFetchState records follower f's log end offset on leader l, proposes f
// back into the ISR when it may join, and advances the high watermark.
// Kafka: Partition.updateFollowerFetchState -> maybeExpandIsr (isFollowerInSync: the
// follower's LEO >= HW and >= the leader epoch start offset, KAFKA-7128; the replica is
// eligible, KIP-841; no AlterPartition in flight) -> prepareIsrExpand (maximal ISR = ISR
// + f) -> submitAlterPartition, with f's broker epoch from this fetch (KIP-903: the
// replica state's brokerEpoch, set by the same fetch; the model keeps no copy of it);
// then maybeIncrementLeaderHW.
func (m *Model) updateFollowerFetchState(t *State, l, f int, leo, bepoch uint8) {
	r := &t.B[l]
	r.FLEO[f] = leo
	inSync := (leo >= r.HW || m.off(GuardISRJoinHW)) && (leo >= r.LESO || !m.p.ISRJoinLESO || m.off(GuardISRJoinLESO))
	if m.p.AlterPartition && !r.Pending && !has(r.ISR, f) && inSync &&
		m.isrEligible(t, f) && !t.Net.alterPlane(uint8(l)) {
		r.Pending = true
		r.MaxISR = r.ISR | bit(f)
		joiner := uint8(f)
		if bepoch == 0 {
			joiner = 0 // the joiner's epoch is unknown (-1): nothing to check, no joiner recorded
		}
		t.Net.add(Msg{Kind: MsgAlterPartition, From: uint8(l), To: CtrlID, Epoch: r.Epoch, Off: r.PEpoch, HW: r.MaxISR,
			DivE: bepoch, DivO: joiner})
	}
	if !m.p.AlterPartition && !has(r.ISR, f) && inSync {
		m.writeIsr(t, l, r.ISR|bit(f))
	}
	m.maybeIncrementHW(t, l)
}

// isrEligible reports whether the leader may propose broker f for the ISR: f is live and,
// where the leader checks it, not shutting down. Kafka: Partition.isReplicaIsrEligible:
// ZooKeeper mode asks only whether the broker is alive (metadataCache.hasAliveBroker; the
// controller refuses a shutting-down one), KRaft that it is neither fenced nor in controlled
// shutdown (with the KRaft plane Controller.Live is already so).
func (m *Model) isrEligible(t *State, f int) bool {
	if !m.p.ZooKeeper && !m.kraft() && has(t.Ctrl.Shut, f) {
		return false
	}
	return has(t.Ctrl.Live, f)
}

// writeIsr is leader l's own write of a new ISR to the metadata store, before KIP-497
// (Kafka < 2.7): Partition.updateIsr -> ReplicationUtils.updateLeaderAndIsr, a conditional
// update of the partition state on the zkVersion the leader knows. On success the store and
// the leader hold the new ISR and zkVersion (the partition epoch), the partition state's
// writer epoch is the controller epoch the leader knows, and the active controller is
// notified (ISR change notification, processed by ControllerHandleIsrChange); on a
// mismatch ("Cached zkVersion ... not equal to that in zookeeper, skip updating ISR")
// nothing changes. The write is synchronous: nothing is pending.
func (m *Model) writeIsr(t *State, l int, isr uint8) {
	r := &t.B[l]
	st := &t.Ctrl
	if st.PEpoch != r.PEpoch && !m.off(GuardZkVersion) {
		return
	}
	st.ISR = isr
	st.PEpoch++
	r.ISR, r.MaxISR, r.PEpoch = isr, isr, st.PEpoch
	if t.CP.N > 0 {
		t.CP.Writer = t.CP.BK[l].MaxEpoch
		t.notifyIsrChange()
	}
}

// maybeIncrementHW moves leader l's high watermark to the least log end offset over the
// maximal ISR, if that is higher, and acknowledges the records it passes (acks=all).
// Kafka: Partition.maybeIncrementLeaderHW: never while the ISR is below
// min.insync.replicas (KAFKA-15583); the maximal ISR counts, so a pending expansion waits
// for the joining follower. Remote replicas outside the maximal ISR are not counted (Kafka
// also waits for a caught-up replica eligible to join; with time abstracted away it is
// left out). A record the high watermark passes is acknowledged only if the maximal ISR
// then has min.insync.replicas members (Partition.checkEnoughReplicasReachOffset, every
// release: else the produce request completes with NOT_ENOUGH_REPLICAS_AFTER_APPEND and
// the record is committed but never acknowledged).
func (m *Model) maybeIncrementHW(t *State, l int) {
	r := &t.B[l]
	if r.Role != RoleLeader || (m.p.HWMinISR && popcount(r.ISR) < m.C.MinISR) {
		return
	}
	ack := popcount(r.MaxISR) >= m.C.MinISR || m.off(GuardAckMinISR)
	hw := r.LEO
	for f := 0; f < m.nb(); f++ {
		if f != l && has(r.MaxISR, f) && r.FLEO[f] < hw {
			hw = r.FLEO[f]
		}
	}
	for ; r.HW < hw; r.HW++ {
		id := r.Log[r.HW].ID
		if ack && id != 0 && t.Acked[id-1] == 0 { // id 0: a hole (bytes.go)
			t.Acked[id-1] = r.HW + 1
		}
	}
}

// handleEpochRequest answers the OffsetsForLeaderEpoch request at index i (KIP-101, Kafka
// 0.11: ReplicaManager.lastOffsetForLeaderEpoch -> LeaderEpochFileCache.endOffsetFor, an end
// offset only, see endOffsetForV0; the epoch checks of later versions' getLocalLog come
// with KIP-320, which the model applies anyway).
func (m *Model) handleEpochRequest(t *State, i int) {
	req := t.Net.Msgs[i]
	t.Net.remove(i)
	srv := &t.B[req.To]
	resp := Msg{Kind: MsgEpochResponse, From: req.To, To: req.From, Epoch: req.Epoch, Last: req.Last}
	if err := m.checkEpoch(srv, req.Epoch); err != ErrNone {
		if err != ErrFencedLeaderEpoch {
			return // retried, as for a fetch
		}
		resp.Err = err
	} else if m.p.Truncation == TruncLeaderEpoch {
		resp.DivE, resp.DivO = NoEpoch, srv.endOffsetForV0(req.Last, srv.LEO)
	} else {
		resp.DivE, resp.DivO = srv.endOffsetFor(req.Last, srv.LEO)
	}
	t.Net.add(resp)
}

// handleAlterPartitionResponse applies the controller's answer at index i on broker l.
// Kafka: Partition.handleAlterPartitionUpdate / handleAlterPartitionError: ignored unless
// the proposal is still pending; a success is ignored on a leader-epoch mismatch or an
// older partition epoch, else committed; INELIGIBLE_REPLICA (and OPERATION_NOT_ATTEMPTED)
// reset to the committed ISR; FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION and
// INVALID_REQUEST leave it pending until new metadata (LeaderAndIsr) arrives.
func (m *Model) handleAlterPartitionResponse(t *State, l, i int) {
	resp := t.Net.Msgs[i]
	t.Net.remove(i)
	if resp.Err == ErrNotController && t.KR.Epoch != 0 {
		// KRaft: NodeToControllerRequestThread.handleResponse: a NOT_CONTROLLER error (top
		// level or, since PR 12514, per partition: errorCounts) drops the cached controller.
		t.KR.Cached[l] = 0
	}
	r := &t.B[l]
	if r.Role != RoleLeader || !r.Pending {
		return
	}
	switch resp.Err {
	case ErrNone:
		if (resp.Epoch != r.Epoch || resp.Off < r.PEpoch) && !m.off(GuardAlterPartitionResponseEpoch) {
			return
		}
		r.ISR, r.MaxISR, r.PEpoch, r.Pending = resp.HW, resp.HW, resp.Off, false
		m.maybeIncrementHW(t, l)
	case ErrIneligibleReplica:
		r.MaxISR, r.Pending = r.ISR, false
	case ErrNotController:
		// Top-level NOT_CONTROLLER (AlterPartitionManager retries after re-reading the
		// controller node) and the partition-level one of KAFKA-14154's fix ("Retrying":
		// submitAlterPartition again with the same proposal): queued again, unsent.
		t.Net.add(Msg{Kind: MsgAlterPartition, From: uint8(l), To: CtrlID, Epoch: resp.Epoch, Off: resp.Off,
			HW: resp.HW, DivE: resp.DivE, DivO: resp.DivO})
	}
}

// shrinkSteps generates LeaderShrinkISR(l, f), the fault "lag": follower f has fallen
// behind for longer than replica.lag.time.max.ms.
// Kafka: Partition.maybeShrinkIsr -> getOutOfSyncReplicas (a replica at the leader's LEO
// is caught up and never out of sync) -> prepareIsrShrink (the maximal ISR stays the
// current one until the controller commits) -> submitAlterPartition.
func (m *Model) shrinkSteps(g *gen, l int) {
	s := g.s
	r := &s.B[l]
	budget := m.budget(s, FaultLag)
	if (!budget && !g.cutOn) || !r.Alive || r.Role != RoleLeader || r.Pending || s.Net.alterPlane(uint8(l)) || s.closing(l) {
		return // a closing broker's scheduler, which runs the ISR expiration task, has stopped
	}
	for f := 0; f < m.nb(); f++ {
		if f == l || !has(r.ISR, f) || r.FLEO[f] >= r.LEO {
			continue
		}
		if !budget {
			g.cutStep(act2(KindLeaderShrinkISR, l, f), BoundCrash+FaultLag)
			continue
		}
		t := g.emit(act2(KindLeaderShrinkISR, l, f))
		t.Used[FaultLag]++
		tr := &t.B[l]
		if !m.p.AlterPartition {
			m.writeIsr(t, l, tr.ISR&^bit(f))
			m.maybeIncrementHW(t, l)
			continue
		}
		tr.Pending = true
		t.Net.add(Msg{Kind: MsgAlterPartition, From: uint8(l), To: CtrlID, Epoch: tr.Epoch, Off: tr.PEpoch, HW: tr.ISR &^ bit(f)})
	}
}
