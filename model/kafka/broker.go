package kafka

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
		if m.kraft() {
			t.B[b].Shut = ShutStarting // no request processing until unfenced (shutdown.go)
		}
		t.cpRegister(b, m.kip380()) // with the control plane: registers in the store at once
		return
	}
	if i := s.Net.find(MsgLeaderAndIsr, CtrlID, uint8(b)); i >= 0 {
		t := g.emit(act1(KindBrokerHandleLeaderAndIsr, b))
		m.handleLeaderAndIsr(t, b, i)
	}
}

// handleLeaderAndIsr applies the LeaderAndIsr at index i on broker b.
// Kafka: KafkaApis.handleLeaderAndIsrRequest (the broker-epoch check of KIP-380: such a
// request is never in flight, see staleBrokerEpoch) -> ReplicaManager.
// becomeLeaderOrFollower: a request from an older controller epoch is refused; a partition
// state at a leader epoch that is not newer is skipped (stalePartitionState); otherwise
// Partition.makeLeader or makeFollower.
//   - makeLeader: the ISR from the request, committed; with a new leader epoch
//     maybeAssignEpochStartOffset(epoch, LEO) (KAFKA-7415), leaderEpochStartOffset = LEO and
//     the followers' fetch states reset (their LEO unknown); then maybeIncrementLeaderHW.
//   - makeFollower: when the leader or the epoch changed, the fetcher is re-added
//     (startFetching: the truncation strategy); an unchanged leader keeps fetching.
func (m *Model) handleLeaderAndIsr(t *State, b, i int) {
	msg := t.Net.Msgs[i]
	t.Net.remove(i)
	if !t.acceptLeaderAndIsr(b, &msg, m.mutated(GuardStaleControllerEpoch)) {
		return
	}
	m.applyPartitionState(t, b, &msg, GuardLeaderAndIsrEpoch)
}

// stalePartitionState reports whether replica r skips partition state at leader epoch
// epoch and partition epoch pepoch. ZooKeeper mode applies only a higher leader epoch
// (ReplicaManager.becomeLeaderOrFollower, 3.9.0 line 1986: an equal one is refused "matches
// the current leader epoch"; its controller bumps the leader epoch on every change it
// makes). KRaft, and the single controller of a release without ZooKeeper (whose brokers
// have only Partition's test), skip only a lower partition epoch and apply an equal one again
// (Partition.makeLeader / makeFollower, KAFKA-13790, 3.3.0 and later: 4.1.1 Partition.scala
// lines 738-747 and 844, 3.9.1 line 724, 4.2.0-rc1 line 598; the leader epoch is not
// compared: every change bumps the partition epoch). The equal case is the replay of
// the record whose AlterPartition response the leader already applied; re-applied, it
// replaces a pending AlterPartition sent since (FINDINGS.md, the re-applied shrink; proposal
// KAFKA-13790-keep-pending). A replica without partition state (a restart) applies any.
func (m *Model) stalePartitionState(r *Replica, epoch, pepoch uint8) bool {
	if r.Role == RoleNone {
		return false
	}
	if m.p.ZooKeeper && !m.kraft() {
		return epoch <= r.Epoch
	}
	return pepoch < r.PEpoch
}

// applyPartitionState applies partition state msg (a LeaderAndIsr, or with KRaft the
// partition state of broker b's metadata image) on broker b: becomeLeaderOrFollower's epoch
// checks (guard g: LeaderAndIsrEpoch, or with KRaft KRaftReplayPartitionEpoch), then
// makeLeader or makeFollower.
func (m *Model) applyPartitionState(t *State, b int, msg *Msg, g Guard) {
	r := &t.B[b]
	if m.stalePartitionState(r, msg.Epoch, msg.Off) && !m.off(g) {
		return
	}
	// keep: a fetch response in flight to a follower whose leader stays the same in a new
	// leader epoch. The partition leaves its fetcher thread and is added back to the same
	// thread (ReplicaManager.makeFollowers -> removeFetcherForPartitions, addFetcherFor
	// Partitions; threads are keyed by the leader), so before KAFKA-18991 the response is
	// processed if its fetch offset is the new fetch state's and that state is Fetching
	// (AbstractFetcherThread.processFetchRequest, 3.9.0 lines 333-338: no epoch check).
	keep := false
	if msg.Last != r.Leader || msg.Epoch != r.Epoch || r.Role == RoleNone {
		keep = r.Role == RoleFollower && msg.Last == r.Leader && msg.Last != uint8(b)+1 && !m.fixed(FixBit18991) &&
			(m.p.Truncation == TruncHighWatermark || (m.p.Truncation == TruncDivergingEpoch && r.latestEpoch() != NoEpoch))
		// Otherwise the partition leaves its old fetcher (removeFetcherForPartitions): a
		// response in flight is ignored (processFetchRequest's fetch-state check; after
		// KAFKA-18991 the epoch check), so it is dropped now. A request in flight still
		// reaches its server. A move to another leader and back while one response is in
		// flight (A, B, A) is not modelled: one fetch-plane message per follower.
		if j := t.Net.fetchPlane(uint8(b)); j >= 0 {
			if k := t.Net.Msgs[j].Kind; (k == MsgFetchResponse && !keep) || k == MsgEpochResponse {
				t.Net.remove(j)
			}
		}
	}
	if msg.Last == uint8(b)+1 {
		isNew := r.Role != RoleLeader || r.Epoch != msg.Epoch
		isNewLeader := r.Role != RoleLeader || msg.Err&LapsedLeadership != 0
		// The proposal KAFKA-13790-keep-pending: state at the leader's own leader and
		// partition epochs is what it committed; its pending AlterPartition stays.
		keep := !isNew && r.Pending && msg.Off == r.PEpoch && m.keepPending()
		r.Role, r.Leader, r.PEpoch, r.ISR = RoleLeader, msg.Last, msg.Off, msg.HW
		if !keep {
			r.MaxISR, r.Pending = msg.HW, false
		}
		r.Fetch, r.LastEp = FetchIdle, NoEpoch
		if isNew {
			r.Epoch = msg.Epoch
			if m.on(Kafka13077) {
				// The proposed KAFKA-13077 repair (no upstream fix): a new leader rebuilds its
				// leader-epoch cache from its log's batches, so that endOffsetFor never answers
				// an epoch its log holds with an older one.
				cache, n := r.Cache, r.NCache
				r.rebuildCache()
				if r.Cache != cache || r.NCache != n {
					m.hit(Kafka13077.Branch(0))
				}
			}
			if m.p.AssignOnLeader {
				r.assign(msg.Epoch, r.LEO)
			}
			r.LESO = r.LEO
			if isNewLeader {
				// Replica.resetReplicaState: the followers' log end offsets become unknown
				// only when the broker becomes leader anew; re-elected in a later epoch
				// while leading, it keeps them (isNewLeader false; 4.1.1 server/.../replica/
				// Replica.java 108-140, 3.9.x cluster/Replica.scala). Found by the
				// conformance harness (reelected-leader-keeps-follower-leo). A LeaderAndIsr
				// that replaced state naming another leader counts as new (LapsedLeadership).
				r.FLEO = [MaxBrokers]uint8{}
			}
		}
		m.maybeIncrementHW(t, b)
		return
	}
	changed := r.Role != RoleFollower || r.Leader != msg.Last || r.Epoch != msg.Epoch || m.off(GuardFetcherNewEpoch)
	r.Role, r.Leader, r.Epoch, r.PEpoch = RoleFollower, msg.Last, msg.Epoch, msg.Off
	r.clearLeaderState()
	if changed {
		m.startFetching(r)
	}
	if m.kraft() && r.Shut == ShutRequested && (msg.Last == 0 || !has(msg.HW, b)) {
		// KRaft, in controlled shutdown: a follower with no leader or outside the ISR
		// stops fetching (ReplicaManager.applyLocalFollowersDelta, 4.1.1 lines 2862-2866).
		m.stopFetcher(t, b)
	}
	// keep holds only where the new fetch state is Fetching: with KIP-101 or KIP-279, or a
	// cache without epochs, it is Truncating, not ready for fetch, and the response was
	// dropped above.
}

func (r *Replica) clearLeaderState() {
	r.ISR, r.MaxISR, r.Pending, r.LESO = 0, 0, false, 0
	r.FLEO = [MaxBrokers]uint8{}
}

// crash stops broker b: its partition state and connections are gone, its log stays.
func crash(t *State, b int) {
	r := &t.B[b]
	r.Alive, r.Register, r.Shut, r.Clean = false, false, ShutNone, false
	r.Role, r.Leader, r.Epoch, r.PEpoch = RoleNone, 0, 0, 0
	r.Fetch, r.LastEp = FetchIdle, NoEpoch
	r.clearLeaderState()
	t.Net.dropBroker(uint8(b))
	t.cpBrokerDown(b)
}

// stop crashes broker b (crash) and leaves on disk what its restart will load: the log's
// first leo records, the checkpoint file's first j entries (Replica.checkpointFile), and,
// with recover, the log recovered from offset from; without, the cache truncated at the log
// end as LogLoader does after a clean shutdown.
func (m *Model) stop(t *State, b int, j, from, leo uint8, recover bool) {
	crash(t, b)
	tr := &t.B[b]
	f, n := tr.checkpointFile(j)
	tr.truncateTo(leo, false) // the log lost its tail; the cache is reloaded below
	tr.load(f, n)
	if recover {
		tr.recover(from, m.p.AsyncTruncFlush)
	} else {
		tr.truncateFromEnd(tr.LEO, m.p.AsyncTruncFlush)
	}
}

// crashSteps generates the crash faults of broker b. What comes back on restart follows
// LogLoader (UnifiedLog.apply -> LogLoader.load): the leader-epoch cache is read from its
// checkpoint file; after an unclean shutdown the segments from the one holding the recovery
// point are recovered, and LogSegment.recover assigns a batch's epoch only when it is above
// the cache's latest (so recovery never fills a gap below it); then the cache is truncated
// at the log end (LogLoader.load: only entries at or past it). There is no rebuild of the
// cache from the whole log. The file holds the cache and, from Kafka 3.8, the entries of
// truncations whose scheduled write has not run (Replica.Stale).
//   - BrokerCrash(b) (budget crash): a clean shutdown whose controlled shutdown did not
//     complete (the controller did not answer within controlled.shutdown.max.retries, or
//     KRaft's 5-minute deadline passed): the controller moved nothing and handles the
//     broker's failure later. From 3.8 the shutdown's steps (shutdown.go): the broker stops
//     serving and its scheduler stops, which runs the checkpoint writes already queued, then
//     its fetchers run on until BrokerStop, and a truncation in that window loses its write;
//     the log is flushed and the clean-shutdown marker written (LogManager.shutdown), so no
//     recovery runs. Before 3.8 every write is synchronous and the stop is one step.
//   - BrokerUncleanCrash(b, s, j) (budget unclean_crash): the process is killed (SIGKILL).
//     The machine lives on, so every write, flushed or not, survives in the page cache: the
//     log is intact. Recovery runs from offset s (any s <= LEO: the base of the segment
//     holding the recovery point). The checkpoint file holds j entries: the scheduled writes
//     of the latest truncations may not have run (a kill right after a truncation, or with
//     the scheduler's threads busy).
//   - BrokerPowerLoss(b, s, leo, k) (budget power_loss): the machine stops. The log keeps
//     only its flushed prefix and whatever of the rest reached the disk, leo <= LEO; recovery
//     runs from s <= leo. The checkpoint file holds its first k entries: from Kafka 3.0 every
//     checkpoint write is fsynced and its rename made durable by a directory fsync
//     (KAFKA-3968), so k counts only the stale entries it may keep; before 3.0 the rename may
//     be lost and the file come back as an earlier version: the model offers every prefix of
//     the current file (each assignment added one entry), not the longer versions a
//     truncation replaced.
//
// The high watermark is capped at the log end; its own checkpoint is not modelled.
func (m *Model) crashSteps(g *gen, b int) {
	s := g.s
	r := &s.B[b]
	if !r.Alive || (s.CP.hostsCurrent(b) && !m.C.ControllerHostCrash) {
		return // without controller_host_crash the controller's host does not crash
	}
	restart := func(t *State, j, from, leo uint8, recover bool) { m.stop(t, b, j, from, leo, recover) }
	files := r.NCache + r.NStale // the largest file a crash can find
	if r.Shut != ShutNone && r.Shut != ShutStarting {
		// Already shutting down: only a kill or a power loss can overtake it.
	} else if m.budget(s, FaultCrash) {
		t := g.emit(act1(KindBrokerCrash, b))
		t.Used[FaultCrash]++
		m.beginShutdown(t, b)
	} else {
		g.cutStep(act1(KindBrokerCrash, b), BoundCrash+FaultCrash)
	}
	if m.budget(s, FaultUnclean) {
		for from := uint8(0); from <= r.LEO; from++ {
			for j := r.NCache; j <= files; j++ {
				if !r.fileCanHold(j) {
					continue
				}
				t := g.emit(act(KindBrokerUncleanCrash, b, int(from), int(j)))
				t.Used[FaultUnclean]++
				restart(t, j, from, r.LEO, true)
			}
		}
	} else {
		// One instance stands for them all.
		g.cutStep(act(KindBrokerUncleanCrash, b, int(r.LEO), int(r.NCache)), BoundCrash+FaultUnclean)
	}
	if !m.budget(s, FaultPowerLoss) {
		g.cutStep(act(KindBrokerPowerLoss, b, int(r.LEO), int(r.LEO), int(r.NCache)), BoundPowerLoss)
		return
	}
	lo := r.NCache
	if !m.p.DirFsync {
		lo = 0
	}
	for leo := uint8(0); leo <= r.LEO; leo++ {
		if leo > 0 && r.Log[leo-1].ID == 0 {
			continue // a hole (bytes.go) has no bytes: the disk ends at the batch before it
		}
		for from := uint8(0); from <= leo; from++ {
			for k := lo; k <= files; k++ {
				if k >= r.NCache && !r.fileCanHold(k) {
					continue
				}
				t := g.emit(act(KindBrokerPowerLoss, b, int(from), int(leo), int(k)))
				t.Used[FaultPowerLoss]++
				restart(t, k, from, leo, true)
			}
		}
	}
}
