package kafka

// The follower's fetcher: fetch requests, response handling, truncation.
//
// Kafka: core/src/main/scala/kafka/server/AbstractFetcherThread.scala and
// ReplicaFetcherThread.scala.

// startFetching (re)initialises follower r's fetch state after it learned a new leader or
// epoch, by the truncation strategy.
// Kafka: ReplicaManager.makeFollowers -> addFetcherForPartitions; the initial fetch state
// has fetchOffset = LEO and lastFetchedEpoch = latestEpoch (the cache's last epoch).
// Pre-KIP-101 the follower first truncated to its high watermark; with KIP-101 it starts in
// Truncating and asks OffsetsForLeaderEpoch.
func (m *Model) startFetching(r *Replica) {
	if r.Leader == 0 {
		r.Fetch, r.LastEp = FetchIdle, NoEpoch
		return
	}
	switch m.p.Truncation {
	case TruncHighWatermark:
		r.truncateTo(r.HW, m.p.AsyncTruncFlush)
		r.Fetch = FetchFetching
	case TruncLeaderEpoch, TruncEpochLookup:
		r.Fetch = FetchTruncating
	default:
		// With truncation on fetch, a replica whose cache has no epoch starts in Truncating
		// and truncates to its high watermark (AbstractFetcherThread.partitionFetchState:
		// "if (lastFetchedEpoch.nonEmpty) Fetching else Truncating", then maybeTruncate ->
		// truncateToHighWatermark for partitionsWithoutEpochs); the model takes both at
		// once. Only a lost checkpoint leaves a non-empty log without epochs.
		if r.latestEpoch() == NoEpoch {
			r.truncateTo(r.HW, m.p.AsyncTruncFlush)
		}
		r.Fetch = FetchFetching
	}
	r.LastEp = r.latestEpoch()
}

// stopFetcher removes broker b's partition from its fetcher (removeFetcherForPartitions):
// the fetch state is idle and a response in flight will be ignored, so it is dropped.
func (m *Model) stopFetcher(t *State, b int) {
	r := &t.B[b]
	r.Fetch, r.LastEp = FetchIdle, NoEpoch
	if j := t.Net.fetchPlane(uint8(b)); j >= 0 {
		if k := t.Net.Msgs[j].Kind; k == MsgFetchResponse || k == MsgEpochResponse {
			t.Net.remove(j)
		}
	}
}

// followerSteps generates follower b's fetcher steps and the network's reads of the
// response on its way to b.
func (m *Model) followerSteps(g *gen, b int) {
	s := g.s
	r := &s.B[b]
	if !r.Alive {
		return
	}
	i := s.Net.fetchPlane(uint8(b))
	leaderUp := r.Leader != 0 && s.serving(int(r.Leader)-1)
	// FollowerSendFetch(b). Kafka: AbstractFetcherThread.maybeFetch -> buildFetch
	// (ReplicaFetcherThread / LeaderEndPoint.buildFetch): PartitionData(fetchOffset,
	// currentLeaderEpoch, lastFetchedEpoch); lastFetchedEpoch only with KIP-320/595
	// (truncation on fetch). No request to a broker that is down (the connection fails and
	// the fetcher backs off).
	if i < 0 && r.Role == RoleFollower && r.Fetch == FetchFetching && leaderUp && !m.fetchIsNoop(s, b) {
		// The code carries the leader the request goes to (printed as FollowerSendFetch(b)):
		// the partial-order reduction's group, whose footprint is that leader's
		// (independence.go); weak fairness is per code, so per follower and leader.
		t := g.emit(act2(KindFollowerSendFetch, b, int(r.Leader)-1))
		tr := &t.B[b]
		t.Net.add(fetchRequest(t, b, m.lastFor(tr)))
	}
	// FollowerSendEpochRequest(b) (KIP-101). Kafka: AbstractFetcherThread.
	// maybeTruncate -> fetchTruncatingPartitions: a partition without a latest epoch
	// truncates to its high watermark (truncateToHighWatermark); the others send
	// OffsetsForLeaderEpoch(latestEpoch, currentLeaderEpoch).
	if i < 0 && r.Role == RoleFollower && r.Fetch == FetchTruncating && leaderUp {
		t := g.emit(act1(KindFollowerSendEpochRequest, b))
		tr := &t.B[b]
		if e := tr.latestEpoch(); e == NoEpoch {
			tr.truncateTo(tr.HW, m.p.AsyncTruncFlush)
			tr.Fetch, tr.LastEp = FetchFetching, NoEpoch
		} else {
			t.Net.add(Msg{Kind: MsgEpochRequest, From: uint8(b), To: tr.Leader - 1, Epoch: tr.Epoch, Last: e})
		}
	}
	if i < 0 {
		return
	}
	msg := &s.Net.Msgs[i]
	switch msg.Kind {
	case MsgFetchResponse:
		m.networkSteps(g, b)
		if msg.Err != ErrNone || msg.DivE != NoEpoch || m.readDone(msg) {
			t := g.emit(act1(KindFollowerHandleFetchResponse, b))
			m.handleFetchResponse(t, b, i)
		}
	case MsgEpochResponse:
		t := g.emit(act1(KindFollowerHandleEpochResponse, b))
		m.handleEpochResponse(t, b, i)
	}
}

// fetchIsNoop reports whether a fetch by follower b, served and answered at once, would
// leave s unchanged: an empty, non-diverging response whose high watermark the follower
// has, from a leader that already knows the follower's log end offset and has it in the
// ISR. Such a fetch is not sent: the round trip is a stutter, and every interleaving of
// its in-flight states with other steps is also reached by sending it later. (Kafka's
// leader parks such a fetch in purgatory, DelayedFetch; Vanlightly's spec disables
// SendFetchRequest when the follower has converged.)
func (m *Model) fetchIsNoop(s *State, b int) bool {
	t := *s
	r := &t.B[b]
	t.Net.add(fetchRequest(&t, b, m.lastFor(r)))
	i := t.Net.fetchPlane(uint8(b))
	m.handleFetch(&t, i)
	i = t.Net.fetchPlane(uint8(b))
	if i < 0 {
		return false
	}
	if g := &t.Net.Msgs[i]; g.Err != ErrNone || g.DivE != NoEpoch || g.End != g.Start {
		return false
	}
	m.handleFetchResponse(&t, b, i)
	return t == *s
}

// fetchRequest is follower b's FetchRequest: fetchOffset = LEO, its currentLeaderEpoch and
// lastFetchedEpoch, and its broker epoch (ReplicaState.ReplicaEpoch, KIP-903), the one it
// got when it registered.
func fetchRequest(s *State, b int, last uint8) Msg {
	r := &s.B[b]
	bepoch := s.Ctrl.BEpoch[b]
	if r.Register {
		bepoch = 0 // not registered yet: -1 (BrokerLifecycleManager's brokerEpoch)
	}
	return Msg{Kind: MsgFetch, From: uint8(b), To: r.Leader - 1, Epoch: r.Epoch, Off: r.LEO, Last: last, HW: bepoch}
}

func (m *Model) lastFor(r *Replica) uint8 {
	if m.p.Truncation == TruncDivergingEpoch {
		return r.LastEp
	}
	return NoEpoch
}

// handleFetchResponse processes the complete FetchResponse at index i on follower b.
// Kafka: AbstractFetcherThread.processFetchRequest: the response is used only if the
// partition is still fetching from that leader at that fetch offset and, since
// KAFKA-18991 (fix bit FixBit18991), in the request's leader epoch. (A LeaderAndIsr
// that changes the leader or the epoch removes the partition from its fetcher and drops a
// response in flight, see handleLeaderAndIsr, so the guard matters only for a response whose
// request was sent in an older epoch.) Then by error:
//   - NONE with divergingEpoch: no append; truncateOnFetchResponse (see truncateBy);
//   - NONE: processPartitionData -> appendAsFollower, lastFetchedEpoch from the last
//     appended batch (logAppendInfo.lastLeaderEpoch, unchanged when nothing was
//     appended, KAFKA-15510), HW = min(leader's HW, LEO) (UnifiedLog.updateHighWatermark);
//     with KAFKA-18723 the append stops at the first batch whose partitionLeaderEpoch is
//     above the request's currentLeaderEpoch; batches at an unexpected offset fail the
//     partition or leave a hole (appendFetched, bytes.go);
//   - FENCED_LEADER_EPOCH: onPartitionFenced: when the request's epoch is the current one
//     the partition is marked failed until a LeaderAndIsr, otherwise it is retried;
//   - OFFSET_OUT_OF_RANGE: handleOutOfRangeError -> fetchOffsetAndTruncate: truncate to
//     the leader's LEO if it is below ours;
//   - UNKNOWN_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER, a corrupt record: retry later.
func (m *Model) handleFetchResponse(t *State, b, i int) {
	resp := t.Net.Msgs[i]
	t.Net.remove(i)
	r := &t.B[b]
	if r.Role != RoleFollower || r.Fetch != FetchFetching || ((r.Leader != resp.From+1 || resp.Off != r.LEO) && !m.off(GuardFetchResponseOffset)) {
		return
	}
	if len(m.hooks.drop) > 0 && m.dropFetchResponse(r, &resp) {
		return // a switch's DropFetchResponse (KAFKA-18991: the request's currentLeaderEpoch is not the fetch state's)
	}
	switch {
	case resp.Err == ErrFencedLeaderEpoch:
		// onPartitionFenced (KAFKA-9654): only a request made in the current epoch marks
		// the partition failed; one from an older epoch is retried.
		if resp.Epoch == r.Epoch {
			r.Fetch = FetchFailed
		}
	case resp.Err == ErrOffsetOutOfRange:
		if resp.DivO < r.LEO {
			r.truncateTo(resp.DivO, m.p.AsyncTruncFlush)
			r.LastEp = r.latestEpoch()
		}
	case resp.Err != ErrNone:
	case resp.DivE != NoEpoch:
		off, _ := r.truncationOffset(resp.DivE, resp.DivO)
		r.truncateTo(off, m.p.AsyncTruncFlush)
		r.LastEp = r.latestEpoch()
	default:
		m.appendFetched(r, &resp)
	}
}

// truncationOffset is where follower r truncates to for the leader's answer (epoch le,
// end offset lo), and whether truncation is complete.
// Kafka: AbstractFetcherThread.getOffsetTruncationState: an undefined end offset keeps the
// fetch offset; an undefined epoch gives min(lo, LEO); otherwise the follower looks up le
// in its own cache: unknown to it, min(its end, LEO), not complete; known,
// min(its end, lo, LEO); no answer at all, min(lo, LEO).
func (r *Replica) truncationOffset(le, lo uint8) (uint8, bool) {
	if lo == NoOffset {
		return r.LEO, true
	}
	if le == NoEpoch {
		return min(lo, r.LEO), true
	}
	fe, fo := r.endOffsetFor(le, r.LEO)
	if fo == NoOffset {
		return min(lo, r.LEO), true
	}
	if fe != le {
		return min(fo, r.LEO), false
	}
	return min(fo, lo, r.LEO), true
}

// handleEpochResponse processes the OffsetsForLeaderEpoch answer at index i (KIP-101):
// truncate, then fetch; errors are retried, FENCED_LEADER_EPOCH in the current epoch marks
// the partition failed (AbstractFetcherThread.onPartitionFenced).
func (m *Model) handleEpochResponse(t *State, b, i int) {
	resp := t.Net.Msgs[i]
	t.Net.remove(i)
	r := &t.B[b]
	if r.Role != RoleFollower || r.Fetch != FetchTruncating || r.Leader != resp.From+1 || resp.Epoch != r.Epoch {
		return
	}
	switch resp.Err {
	case ErrNone:
		if m.p.Truncation == TruncEpochLookup {
			// KIP-279 (2.0.0 to 2.7.x): AbstractFetcherThread.getOffsetTruncationState (2.7.2
			// lines 496-541) looks the leader's epoch up in the follower's own cache
			// (truncationOffset); an epoch the follower does not know truncates to the end of
			// the largest one below it and asks again (truncation not complete). An undefined
			// end offset keeps the fetch offset, which for a partition that starts truncating
			// is its high watermark (ReplicaFetcherThread: initial fetch offset = HW without
			// truncation on fetch); it cannot follow an incomplete round, whose next request
			// names an epoch below one the leader holds.
			off, done := r.truncationOffset(resp.DivE, resp.DivO)
			if resp.DivO == NoOffset {
				off = r.HW
			}
			r.truncateTo(off, m.p.AsyncTruncFlush)
			if done {
				r.Fetch = FetchFetching
			}
			r.LastEp = r.latestEpoch()
			return
		}
		// Kafka 0.11 ReplicaFetcherThread.maybeTruncate: an undefined answer truncates to the
		// HW, otherwise to min(answer, LEO); the follower does not look the epoch up itself
		// (that came with KIP-279, and truncation on fetch with KIP-320/KIP-595).
		off := min(resp.DivO, r.LEO)
		if resp.DivO == NoOffset {
			off = r.HW
		}
		r.truncateTo(off, m.p.AsyncTruncFlush)
		r.Fetch = FetchFetching
		r.LastEp = r.latestEpoch()
	case ErrFencedLeaderEpoch:
		r.Fetch = FetchFailed
	}
}
