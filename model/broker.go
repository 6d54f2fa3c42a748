package model

// Broker-level steps: LeaderAndIsr handling, crash (clean and unclean), restart with log
// recovery.
//
// Kafka: core/src/main/scala/kafka/server/ReplicaManager.scala (becomeLeaderOrFollower),
// core/src/main/scala/kafka/cluster/Partition.scala (makeLeader, makeFollower),
// storage/.../log/LogLoader.java (recovery).

// brokerSteps generates broker b's LeaderAndIsr handling and its restart.
func (m *Model) brokerSteps(g *gen, b int) {
	s := g.s
	r := &s.B[b]
	if !r.Alive {
		// BrokerRestart(b): the broker process starts again, loads its log (LogManager.
		// loadLogs -> LogLoader; the recovery was applied at the crash, see crashSteps) and
		// registers with the controller (KafkaServer.startup: ZK broker registration;
		// KRaft BrokerLifecycleManager), which then sends it LeaderAndIsr.
		t := g.emit(act1(KindBrokerRestart, b))
		t.B[b].Alive, t.B[b].Register = true, true
		t.cpRegister(b) // with the control plane: registers in the store at once
		return
	}
	if i := s.Net.find(MsgLeaderAndIsr, CtrlID, uint8(b)); i >= 0 {
		t := g.emit(act1(KindBrokerHandleLeaderAndIsr, b))
		m.handleLeaderAndIsr(t, b, i)
	}
}

// handleLeaderAndIsr applies the LeaderAndIsr at index i on broker b.
// Kafka: ReplicaManager.becomeLeaderOrFollower: a request whose leader epoch is below the
// partition's, or equal with no newer partition epoch, is ignored; otherwise
// Partition.makeLeader or makeFollower.
//   - makeLeader: the ISR from the request, committed; with a new leader epoch
//     maybeAssignEpochStartOffset(epoch, LEO) (KAFKA-7415), leaderEpochStartOffset = LEO and
//     the followers' fetch states reset (their LEO unknown); then maybeIncrementLeaderHW.
//   - makeFollower: when the leader or the epoch changed, the fetcher is re-added
//     (startFetching: the truncation strategy); an unchanged leader keeps fetching.
func (m *Model) handleLeaderAndIsr(t *State, b, i int) {
	msg := t.Net.Msgs[i]
	t.Net.remove(i)
	if !t.acceptLeaderAndIsr(b, &msg) {
		return
	}
	r := &t.B[b]
	if msg.Epoch < r.Epoch || (msg.Epoch == r.Epoch && msg.Off <= r.PEpoch && r.Role != RoleNone) {
		return
	}
	if msg.Last != r.Leader || msg.Epoch != r.Epoch || r.Role == RoleNone {
		// The partition leaves its old fetcher (removeFetcherForPartitions): a response in
		// flight would be ignored (processFetchRequest's fetch-state check, KAFKA-13207), so
		// it is dropped now. A request in flight still reaches its server.
		if j := t.Net.fetchPlane(uint8(b)); j >= 0 {
			if k := t.Net.Msgs[j].Kind; k == MsgFetchResponse || k == MsgEpochResponse {
				t.Net.remove(j)
			}
		}
	}
	if msg.Last == uint8(b)+1 {
		isNew := r.Role != RoleLeader || r.Epoch != msg.Epoch
		r.Role, r.Leader, r.PEpoch = RoleLeader, msg.Last, msg.Off
		r.ISR, r.MaxISR, r.Pending = msg.HW, msg.HW, false
		r.Fetch, r.LastEp = FetchIdle, NoEpoch
		if isNew {
			r.Epoch = msg.Epoch
			r.assign(msg.Epoch, r.LEO)
			r.LESO = r.LEO
			r.FLEO = [MaxBrokers]uint8{}
		}
		m.maybeIncrementHW(t, b)
		return
	}
	changed := r.Role != RoleFollower || r.Leader != msg.Last || r.Epoch != msg.Epoch
	r.Role, r.Leader, r.Epoch, r.PEpoch = RoleFollower, msg.Last, msg.Epoch, msg.Off
	r.clearLeaderState()
	if changed {
		m.startFetching(r)
	}
}

func (r *Replica) clearLeaderState() {
	r.ISR, r.MaxISR, r.Pending, r.LESO = 0, 0, false, 0
	r.FLEO = [MaxBrokers]uint8{}
}

// crash stops broker b: its partition state and connections are gone, its log stays.
func crash(t *State, b int) {
	r := &t.B[b]
	r.Alive, r.Register = false, false
	r.Role, r.Leader, r.Epoch, r.PEpoch = RoleNone, 0, 0, 0
	r.Fetch, r.LastEp = FetchIdle, NoEpoch
	r.clearLeaderState()
	t.Net.dropBroker(uint8(b))
	t.cpBrokerDown(b)
}

// crashSteps generates the crash faults of broker b.
//   - BrokerCrash(b): a crash after a flush (budget crash): log, leader-epoch checkpoint and
//     high-watermark checkpoint survive.
//   - BrokerUncleanCrash(b, rp, leo, k) (budget unclean_crash): the log was flushed up to
//     the recovery point rp; the unflushed suffix is lost down to leo (rp <= leo <= LEO);
//     the leader-epoch-checkpoint file comes back as an older version holding only the
//     first k entries (the file is rewritten without fsync, KAFKA-15046/KAFKA-16541). On
//     restart LogLoader recovers only the segments from the recovery point and re-assigns
//     the epochs of their batches (LogSegment.recover); the cache is truncated to the log
//     end. With KAFKA-13077 the cache is rebuilt from the whole log. The high watermark is
//     capped at the new log end.
func (m *Model) crashSteps(g *gen, b int) {
	s := g.s
	r := &s.B[b]
	if !r.Alive || s.CP.hostsCurrent(b) {
		return // the control plane does not model a crash of the controller's host
	}
	if m.budget(s, FaultCrash) {
		t := g.emit(act1(KindBrokerCrash, b))
		t.Used[FaultCrash]++
		crash(t, b)
	} else {
		g.cutStep(act1(KindBrokerCrash, b), BoundCrash+FaultCrash)
	}
	if !m.budget(s, FaultUnclean) {
		// One instance stands for them all: the crash that loses nothing.
		g.cutStep(act(KindBrokerUncleanCrash, b, int(r.LEO), int(r.LEO), int(r.NCache)), BoundCrash+FaultUnclean)
		return
	}
	for rp := 0; rp <= int(r.LEO); rp++ {
		for leo := rp; leo <= int(r.LEO); leo++ {
			for k := 0; k <= int(r.NCache); k++ {
				t := g.emit(act(KindBrokerUncleanCrash, b, rp, leo, k))
				t.Used[FaultUnclean]++
				crash(t, b)
				tr := &t.B[b]
				tr.truncateTo(uint8(leo))
				if m.C.Fix13077 {
					tr.rebuildCache(0, 0)
				} else {
					tr.rebuildCache(uint8(k), uint8(rp))
				}
			}
		}
	}
}
