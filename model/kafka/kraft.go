package kafka

// The KRaft control plane, on when Config.KRaft is set: the controller quorum's metadata log,
// broker registration, heartbeats, fencing and unfencing, controlled shutdown, metadata
// propagation by replay, AlterPartition to the active controller, and KIP-966's Eligible
// Leader Replicas (Config.ELR). It replaces the single controller of controller.go and the
// ZooKeeper-era plane of controlplane.go; the data plane (log.go, leader.go, follower.go) is
// shared.
//
// Abstractions, each stated once here:
//   - Raft is abstracted as a linearizable log: the active controller's appends are committed
//     at once and in order, so State.Ctrl (with KRaft.ELR and KRaft.LastELR) is both the
//     active controller's in-memory state and the replay of the committed log. A quorum leader
//     change (fault quorum_failover) starts a new KRaft epoch; the old active controller can
//     no longer commit: until it renounces (ControllerRenounce) it answers from the state it
//     had, and an operation that would write answers NOT_CONTROLLER, as its pending writes
//     fail when it renounces. The new leader writes a LeaderChangeMessage control record.
//   - A broker epoch is a per-broker counter incremented at each registration (Kafka: the
//     offset of the RegisterBrokerRecord), so that broker epochs compare as Kafka's do.
//   - The log keeps the records some broker has not read (at most MaxMeta); the partition
//     state as of the first kept record is the snapshot (KRaft.Snap). A broker that falls
//     behind the kept records loads the snapshot: it reads the oldest record as the append
//     that overflows the log happens (the metadata loader catching up from a snapshot).
//   - Heartbeats are not messages: a live, registered broker heartbeats whenever it has
//     something to ask (unfencing); a missed session is the fault session_loss for a broker
//     that lives on, and a protocol step (ControllerFenceBroker) for one that is down.
//   - The leader's view of which brokers are fenced or shutting down (Partition's
//     isReplicaIsrEligible, read from its metadata cache) is the controller's.
//
// Kafka 3.9.0: metadata/src/main/java/org/apache/kafka/controller/QuorumController.java,
// ReplicationControlManager.java, ClusterControlManager.java, BrokerHeartbeatManager.java,
// PartitionChangeBuilder.java; core/src/main/scala/kafka/server/BrokerLifecycleManager.scala,
// BrokerServer.scala, AlterPartitionManager.scala, NodeToControllerChannelManager.scala,
// ReplicaManager.scala (applyDelta), metadata/KRaftMetadataCache.scala and
// server/metadata/BrokerMetadataPublisher.scala.

// MaxMeta is the number of metadata records the model keeps.
const MaxMeta = 6

// MaxQuorumEpoch bounds the KRaft epochs: quorum_failover is at most MaxQuorumEpoch-1.
const MaxQuorumEpoch = 4

// Metadata record kinds.
const (
	RecNone         uint8 = iota
	RecRegister           // RegisterBrokerRecord: the broker registers, fenced, with a new broker epoch
	RecFence              // BrokerRegistrationChangeRecord fenced = FENCE
	RecUnfence            // BrokerRegistrationChangeRecord fenced = UNFENCE
	RecShutdown           // BrokerRegistrationChangeRecord inControlledShutdown = IN_CONTROLLED_SHUTDOWN
	RecPartition          // PartitionChangeRecord: the partition state after it (leader, epochs, ISR)
	RecLeaderChange       // LeaderChangeMessage: the control record a new quorum leader writes first
	numRecKinds
)

var recNames = [numRecKinds]string{"", "RegisterBroker", "FenceBroker", "UnfenceBroker",
	"InControlledShutdown", "PartitionChange", "LeaderChange"}

// MetaRec is one metadata record. Broker is the broker index of a broker record and the new
// KRaft epoch of a LeaderChange; a PartitionChange holds the partition state it leaves (the
// model writes every field, Kafka only the changed ones; replay gives the same image).
type MetaRec struct {
	Kind, Broker               uint8
	Leader, Epoch, PEpoch, ISR uint8
}

// KRaft is the state of the KRaft control plane beyond State.Ctrl (the active controller's
// partition and broker state: Live is the set of brokers that are unfenced and not in
// controlled shutdown, ClusterControlManager.isActive). Invariants:
//  1. Log[i] is zero for i >= N; Lag[b] <= N; some broker has Lag[b] == N when N > 0.
//  2. ELR ∩ ISR = ∅ (PartitionChangeBuilder.maybePopulateTargetElr); ELR and LastELR are 0
//     without Config.ELR.
type KRaft struct {
	Log  [MaxMeta]MetaRec
	N    uint8
	Lag  [MaxBrokers]uint8 // records of Log broker b has not replayed yet
	Snap MetaRec           // the partition state before Log[0] (the metadata snapshot)
	// Epoch is the KRaft epoch of the active controller; Zombie reports that the controller
	// of epoch Epoch-1 has not yet renounced, with Old its state.
	Epoch  uint8
	Zombie bool
	Old    Controller
	Known  [MaxBrokers]uint8 // the KRaft epoch of the quorum leader broker b's raft client knows
	// Cached is the KRaft epoch of the controller broker b's NodeToControllerChannelManager
	// has cached (0: none): it keeps it until a disconnect or a NOT_CONTROLLER answer, even
	// when the raft client knows a newer leader (NodeToControllerRequestThread.doWork looks
	// the controller up only while none is cached).
	Cached [MaxBrokers]uint8
	Fenced uint8 // registered brokers that are fenced
	Down   uint8 // brokers in controlled shutdown
	// ELR and LastELR are KIP-966's eligible leader replicas and last known ELR.
	ELR, LastELR uint8
	Losses       uint8 // session_loss used
}

// kraft reports whether the KRaft control plane is modelled.
func (m *Model) kraft() bool { return m.C.KRaft }

// validateKRaft checks the rules that tie KRaft to the other constants.
func (c *Config) validateKRaft() error {
	if !c.KRaft {
		if c.Switches.Has(KIP966) || c.QuorumFailover > 0 {
			return errString("model: eligible leader replicas (KIP-966) and quorum_failover need control_plane = kraft")
		}
		return nil
	}
	p, _ := ProfileByName(c.Version)
	switch {
	case !p.AlterValidation33:
		return errString("model: control_plane = kraft needs version 3.3 or later (KRaft production-ready, KIP-833); version " + p.Name + " is earlier")
	case c.Controllers > 1 || c.Failover > 0 || c.ControlLoss > 0 || c.ControllerHostCrash:
		return errString("model: control_plane = kraft excludes controllers >= 2, controller_failover, control_loss and controller_host_crash (the ZooKeeper plane's)")
	case c.QuorumFailover >= MaxQuorumEpoch:
		return errString("model: quorum_failover must be < 4")
	}
	return nil
}

// krInit sets up the initial state: every broker registered (epoch 1) and unfenced, and has
// replayed the log, whose snapshot holds the partition state; quorum epoch 1.
func (m *Model) krInit(s *State) {
	k := &s.KR
	k.Epoch = 1
	k.Snap = partitionRec(&s.Ctrl)
	for b := 0; b < m.nb(); b++ {
		k.Known[b], k.Cached[b] = 1, 1
	}
}

func partitionRec(c *Controller) MetaRec {
	return MetaRec{Kind: RecPartition, Leader: c.Leader, Epoch: c.Epoch, PEpoch: c.PEpoch, ISR: c.ISR}
}

// appendRec commits record r to the metadata log. When the log is full, the brokers that
// have read none of it load the snapshot: they read the oldest record first.
func (m *Model) appendRec(t *State, r MetaRec) {
	k := &t.KR
	if int(k.N) == MaxMeta {
		for b := 0; b < m.nb(); b++ {
			if k.Lag[b] == k.N {
				m.replayOne(t, b)
			}
		}
		m.compact(t)
	}
	k.Log[k.N] = r
	k.N++
	for b := 0; b < m.nb(); b++ {
		k.Lag[b]++
	}
	m.compact(t)
}

// compact drops the records every broker has read; the snapshot takes the partition state.
func (m *Model) compact(t *State) {
	k := &t.KR
	for k.N > 0 {
		for b := 0; b < m.nb(); b++ {
			if k.Lag[b] == k.N {
				return
			}
		}
		if k.Log[0].Kind == RecPartition {
			k.Snap = k.Log[0]
		}
		copy(k.Log[:], k.Log[1:k.N])
		k.N--
		k.Log[k.N] = MetaRec{}
	}
}

// image is the partition state in broker b's metadata image: the last PartitionChange it
// has replayed, or the snapshot's.
func (k *KRaft) image(b int) MetaRec {
	for i := int(k.N-k.Lag[b]) - 1; i >= 0; i-- {
		if k.Log[i].Kind == RecPartition {
			return k.Log[i]
		}
	}
	return k.Snap
}

// caughtUp reports whether broker b has replayed its own latest RegisterBrokerRecord: the
// heartbeat's currentMetadataOffset >= registerBrokerRecordOffset.
func (k *KRaft) caughtUp(b int) bool {
	for i := int(k.N - k.Lag[b]); i < int(k.N); i++ {
		if k.Log[i].Kind == RecRegister && int(k.Log[i].Broker) == b {
			return false
		}
	}
	return true
}

// replayOne makes broker b read its next record (the metadata loader; BrokerMetadata
// Publisher publishes the delta). A broker that has published acts on a partition change
// (ReplicaManager.applyDelta -> makeLeader / makeFollower). After a restart the loader
// publishes its first image once it has read the committed log (MetadataLoader:
// stillNeedToCatchUp, 4.1.0 lines 226-245), which BrokerServer.startup installs before it
// waits for initialCatchUpFuture (3.9.1 BrokerServer 495 and 502): the image may predate
// the broker's registration and make it leader or follower of an old epoch; makeLeader
// then writes its epoch to the cache. It serves no request until the controller unfenced
// it (socketServer.enableRequestProcessing after setReadyToUnfence, 3.9.1 BrokerServer
// 523-538; Replica.Shut = ShutStarting), so such a leadership is never used. A published
// leaderless image leaves the replica without a role but records its epochs (Replica.Epoch
// > 0: published). The broker learns a new quorum leader from a LeaderChange (the raft
// client's leader, which RaftControllerNodeProvider gives NodeToControllerChannelManager).
func (m *Model) replayOne(t *State, b int) {
	k := &t.KR
	rec := k.Log[k.N-k.Lag[b]]
	k.Lag[b]--
	if rec.Kind == RecLeaderChange {
		k.Known[b] = rec.Broker
	}
	r := &t.B[b]
	if !r.Alive || t.closing(b) {
		return // down, or its publishers are removed (shutdown.go)
	}
	published := r.Role != RoleNone || r.Epoch != 0
	if (published && rec.Kind == RecPartition) || (!published && (k.Lag[b] == 0 || m.off(GuardKRaftReplayCatchUp))) {
		m.publishImage(t, b)
	}
}

// publishImage applies broker b's image of the partition. Kafka: ReplicaManager.applyDelta
// -> applyLocalLeadersDelta / applyLocalFollowersDelta: the partition's leader epoch and
// partition epoch decide, as LeaderAndIsr's did (Partition.makeLeader / makeFollower).
func (m *Model) publishImage(t *State, b int) {
	p := t.KR.image(b)
	if r := &t.B[b]; p.Leader == 0 && r.Role == RoleNone {
		// No leader: the replica is created as a follower of none (applyLocalFollowersDelta
		// with leader -1); the model keeps it without a role until a leader exists, with
		// the epochs it published.
		if r.Epoch == 0 || !m.stalePartitionState(r, p.Epoch, p.PEpoch) {
			r.Epoch, r.PEpoch = p.Epoch, p.PEpoch
		}
		return
	}
	msg := Msg{Kind: MsgLeaderAndIsr, Epoch: p.Epoch, Off: p.PEpoch, Last: p.Leader, HW: p.ISR}
	m.applyPartitionState(t, b, &msg, GuardKRaftReplayPartitionEpoch)
}

// change is PartitionChangeBuilder.build for the partition: target ISR isr, broker remove
// (brokerToRemove) and unclean (brokerWithUncleanShutdown) not acceptable as leader, broker
// add (brokerToAdd) acceptable though still fenced (-1: none). It appends the
// PartitionChangeRecord when something changed, and reports false when the change needs a
// leader epoch above max_epoch (the step is then cut).
//   - maybePopulateTargetElr (ELR): with the target ISR at min ISR or above, the ELR is
//     cleared; below, ELR = (ELR ∪ ISR) \ (target ISR ∪ unclean).
//   - tryElection -> electAnyLeader: the current leader if still valid, else the first valid
//     replica in assignment order (g.first: with the order open, each that can come first,
//     order.go), valid meaning in the target ISR, or in the ELR when the
//     target ISR is empty, and acceptable (ClusterControlManager.isActive: unfenced, not in
//     controlled shutdown). A leader from the ELR has ISR {it} and leaves the ELR. With ELR,
//     when ISR and ELR are empty, the last known leader (canElectLastKnownLeader): from
//     4.1.0 only when acceptable; in 4.0.x whether or not it is (the test is inverted and
//     never refuses: KAFKA-19522); an unclean election (ISR {it}, ELR cleared, leader
//     recovery RECOVERING, which the model does not keep) even with unclean election off.
//     With unclean election, then the first acceptable replica, ISR {it}, ELR cleared.
//   - the ISR: an empty target ISR is written only with ELR (without it the last member
//     stays, as the ZooKeeper controller's removeReplicasFromIsr does).
//   - a leader change bumps the leader epoch (PartitionRegistration.merge); an ISR change
//     alone does not (KAFKA-15021, metadata version 3.6); any change bumps the partition
//     epoch.
//
// The last known ELR (KRaft.LastELR) is what Kafka's code keeps (PartitionChangeBuilder.
// useLastKnownLeaderInBalancedRecovery is true and no production code sets it,
// maybeUpdateLastKnownLeader, 4.1.1 lines 495-506): the leader a change first leaves the
// partition without, cleared when a change elects a leader; not KIP-966's set of the last
// ISR members.
func (m *Model) change(g *gen, t *State, isr uint8, remove, add, unclean int) bool {
	c := &t.Ctrl
	k := &t.KR
	acceptable := func(r int) bool {
		return r != remove && r != unclean && (r == add || has(c.Live, r))
	}
	elr, last := k.ELR, k.LastELR
	if m.elr() {
		if popcount(isr) >= m.C.MinISR {
			elr = 0
		} else {
			elr = (elr | c.ISR) &^ isr
			if unclean >= 0 {
				elr &^= bit(unclean)
			}
		}
	}
	valid := func(r int) bool {
		if isr == 0 && has(elr, r) && !acceptable(r) && m.off(GuardKRaftELRActive) {
			return r != remove && r != unclean
		}
		return (has(isr, r) || (isr == 0 && has(elr, r))) && acceptable(r)
	}
	leader, uncleanElected := c.Leader, false
	if leader == 0 || !valid(int(leader)-1) {
		leader = 0
		var cand, ucand uint8
		for r := 0; r < m.nb(); r++ {
			if valid(r) {
				cand |= bit(r)
			}
			if acceptable(r) {
				ucand |= bit(r)
			}
		}
		if cand != 0 {
			leader = uint8(g.first(t, cand)) + 1
		} else if lk := k.LastELR; m.elr() && isr == 0 && elr == 0 && popcount(lk) == 1 &&
			(!m.p.LastLeaderAcceptable || acceptable(lowest(lk))) {
			leader, uncleanElected = uint8(lowest(lk))+1, true // canElectLastKnownLeader
		} else if m.C.UncleanElection && ucand != 0 {
			leader, uncleanElected = uint8(g.first(t, ucand))+1, true
		}
		if leader != 0 && has(elr, int(leader)-1) {
			isr = bit(int(leader) - 1)
			elr &^= isr
		}
		if uncleanElected {
			isr, elr = bit(int(leader)-1), 0
		}
	}
	if m.elr() {
		// maybeUpdateLastKnownLeader: the record leaves the partition leaderless for the
		// first time: the old leader; it elects a leader: cleared.
		switch {
		case leader == 0 && c.Leader != 0 && last == 0:
			last = bit(int(c.Leader) - 1)
		case leader != 0 && leader != c.Leader:
			last = 0
		}
	}
	if isr == 0 && !m.elr() {
		isr = c.ISR
	}
	if leader == c.Leader && isr == c.ISR && elr == k.ELR && last == k.LastELR {
		return true
	}
	// A leader change bumps the leader epoch; below metadata version 3.6 so does an ISR
	// shrink (PartitionChangeBuilder.triggerLeaderEpochBumpForIsrShrinkIfNeeded: record.leader
	// set to the current one, which PartitionRegistration.merge counts as a change).
	if leader != c.Leader || (m.p.KRaftShrinkBump && c.ISR&^isr != 0) {
		if int(c.Epoch) >= m.C.MaxEpoch {
			return false
		}
		c.Epoch++
	}
	c.Leader, c.ISR = leader, isr
	c.PEpoch++
	k.ELR, k.LastELR = elr, last
	m.appendRec(t, partitionRec(c))
	return true
}

// kraftSteps generates the KRaft plane's steps: per broker its registration, replay,
// unfencing, fencing, AlterPartition send and the controller's handling of it; then the
// quorum's steps and faults.
func (m *Model) kraftSteps(g *gen) {
	s := g.s
	k := &s.KR
	for b := 0; b < m.nb(); b++ {
		r := &s.B[b]
		// ControllerRegisterBroker(b): BrokerLifecycleManager.sendBrokerRegistration after a
		// restart (a new incarnation id). ClusterControlManager.registerBroker refuses it
		// while the old incarnation's session is valid (DuplicateBrokerRegistrationException:
		// the broker retries): in 3.9 until the controller fenced b (BrokerHeartbeatManager.
		// hasValidSession is false for a fenced broker; a registration racing the fencing of
		// an expired session is not modelled), from 4.0 until the old epoch's session expired
		// (BrokerHeartbeatTracker.hasValidSession ignores fencing), which the model does not
		// time: a down broker's registration may come before or after its fencing, and one
		// fenced at SHUTDOWN_NOW waits out its session, which is eventually. What it writes
		// (krRegister) depends on the release.
		if r.Alive && r.Register && (has(k.Fenced, b) || m.p.CleanShutdownDetection || m.off(GuardKRaftRegisterIncarnation)) {
			g.branch(act1(KindControllerRegisterBroker, b), func(t *State) bool {
				return m.krRegister(g, t, b)
			})
		}
		// BrokerReplayMetadata(b): b's metadata loader reads its next record; or, after a
		// restart with nothing new to read, publishes its image for the first time
		// (BrokerMetadataPublisher's first publish, once registered).
		if r.Alive && !s.closing(b) && (k.Lag[b] > 0 || (r.Role == RoleNone && r.Epoch == 0)) {
			t := g.emit(act1(KindBrokerReplayMetadata, b))
			if t.KR.Lag[b] > 0 {
				m.replayOne(t, b)
				m.compact(t)
			} else {
				m.publishImage(t, b)
			}
		}
		// ControllerUnfenceBroker(b): b heartbeats with its currentMetadataOffset; once it has
		// replayed its RegisterBrokerRecord, BrokerHeartbeatManager.calculateNextBrokerState
		// moves it from FENCED to UNFENCED: ReplicationControlManager.handleBrokerUnfenced
		// writes the UnfenceBroker record, then elects b for a partition without a leader
		// (brokerToAdd = b).
		// The broker asks to be unfenced once it has published its first image
		// (setReadyToUnfence) and serves requests from then on.
		if r.Alive && !r.Register && has(k.Fenced, b) && !has(k.Down, b) && !s.closing(b) && r.Shut != ShutRequested &&
			(r.Role != RoleNone || r.Epoch != 0) && (k.caughtUp(b) || m.off(GuardKRaftUnfenceCatchUp)) {
			g.branch(act1(KindControllerUnfenceBroker, b), func(t *State) bool {
				t.B[b].Shut = ShutNone // socketServer.enableRequestProcessing
				t.KR.Fenced &^= bit(b)
				m.appendRec(t, MetaRec{Kind: RecUnfence, Broker: uint8(b)})
				ok := true
				if t.Ctrl.Leader == 0 {
					ok = m.change(g, t, t.Ctrl.ISR, -1, b, -1)
				}
				t.Ctrl.Live |= bit(b)
				return ok
			})
		}
		// ControllerFenceBroker(b): b is down (crashed, or stopped after a controlled
		// shutdown) and its session expires: QuorumController's periodic maybeFenceStale
		// Broker (BrokerHeartbeatManager.findOneStaleBroker) -> ReplicationControlManager.
		// handleBrokerFenced: b leaves the ISR (brokerToRemove; the last member stays without
		// ELR) and its leadership, then the FenceBroker record.
		// A closing broker's heartbeats stopped too (BrokerLifecycleManager.beginShutdown).
		if (!r.Alive || r.Register || s.closing(b)) && !has(k.Fenced, b) {
			m.fenceStep(g, b, act1(KindControllerFenceBroker, b), -1)
		}
		// BrokerSendAlterPartition(b): AlterPartitionManager hands the queued request to
		// NodeToControllerChannelManager, which sends it to the controller it has cached, or
		// first caches the raft client's leader (RaftControllerNodeProvider).
		if j := s.Net.findAlter(uint8(b), 0); j >= 0 && r.Alive {
			t := g.emit(act1(KindBrokerSendAlterPartition, b))
			if t.KR.Cached[b] == 0 {
				t.KR.Cached[b] = k.Known[b]
			}
			t.Net.Msgs[j].End = t.KR.Cached[b]
			t.Net.resort(j)
		}
		// ControllerHandleAlterPartition(b).
		for e := uint8(1); e <= k.Epoch; e++ {
			if j := s.Net.findAlter(uint8(b), e); j >= 0 {
				g.branch(act1(KindControllerHandleAlterPartition, b), func(t *State) bool {
					return m.krAlterPartition(g, t, j)
				})
			}
		}
	}
	// ControllerRenounce(e): the old quorum leader learns of the new epoch
	// (QuorumController.QuorumMetaLogListener.handleLeaderChange -> renounce): it reverts to
	// its last committed state and fails its pending operations with NOT_CONTROLLER.
	if k.Zombie {
		t := g.emit(act1(KindControllerRenounce, int(k.Epoch)-2))
		t.KR.Zombie, t.KR.Old = false, Controller{}
	}
	m.quorumFailoverSteps(g)
	for b := 0; b < m.nb(); b++ {
		m.krSessionLossSteps(g, b)
		m.krControlledShutdownSteps(g, b)
		m.krElectSteps(g, b, KindControllerMoveLeader, FaultLeaderChange, BoundLeaderChange)
	}
	m.krElectSteps(g, 0, KindControllerElectPreferred, FaultPreferred, BoundPreferred)
}

// krElectSteps generates, with KRaft, ControllerMoveLeader(b) (the fault leader_change: a
// reassignment that puts b first, then its preferred election) and ControllerElectPreferred
// (1) (the fault preferred_election: QuorumController's auto leader balancing,
// maybeBalancePartitionLeaders, or kafka-leader-election --election-type PREFERRED): the
// active controller elects b when it is in the ISR and acceptable (unfenced, not in
// controlled shutdown: ClusterControlManager.isActive) and does not lead
// (PartitionChangeBuilder with Election.PREFERRED: electPreferredLeader). The
// PartitionChangeRecord bumps the leader epoch.
func (m *Model) krElectSteps(g *gen, b, kind, fault, bound int) {
	s := g.s
	c := &s.Ctrl
	a := act1(kind, b)
	budget := m.budget(s, fault)
	if (!budget && !g.cutOn) || c.Leader == uint8(b)+1 || !has(c.ISR, b) || !has(c.Live, b) ||
		(kind == KindControllerMoveLeader && c.Leader == 0) {
		return
	}
	if !budget {
		g.cutStep(a, bound)
		return
	}
	if int(c.Epoch) >= m.C.MaxEpoch {
		g.cutStep(a, BoundMaxEpoch)
		return
	}
	t := g.emit(a)
	t.Used[fault]++
	tc := &t.Ctrl
	tc.Leader, tc.Epoch, tc.PEpoch = uint8(b)+1, tc.Epoch+1, tc.PEpoch+1
	m.appendRec(t, partitionRec(tc))
	m.compact(t)
}

// krRegister writes broker b's registration, and reports false when it needs a leader
// epoch above max_epoch. The new registration is fenced, with a new broker epoch.
//   - 3.9: ClusterControlManager.registerBroker runs the unclean-shutdown handler for every
//     new incarnation (3.9.0 lines 461-463), which writes nothing below metadata version
//     4.0-IV0 (ReplicationControlManager.handleBrokerUncleanShutdown: isElrSupported), so
//     at every production metadata version: b was fenced already, out of the ISR.
//   - 4.0 and later (KAFKA-18635): the registration tells a clean restart from an unclean one
//     (previousBrokerEpoch, read from .kafka_cleanshutdown: Replica.Clean) and writes, before
//     the RegisterBrokerRecord, ReplicationControlManager.handleBrokerShutdown's records
//     (4.1.0 lines 1445-1457): unclean with ELR, b leaves the ISR and the ELR and is not an
//     acceptable leader (brokerWithUncleanShutdown); otherwise "as if fenced": b leaves the
//     ISR and its leadership and stays in the ELR (brokerToRemove). For a broker fenced
//     before, out of the ISR, the latter writes nothing.
func (m *Model) krRegister(g *gen, t *State, b int) bool {
	clean := t.B[b].Clean
	if m.p.CleanShutdownDetection {
		inISR := has(t.Ctrl.ISR, b) || t.Ctrl.Leader == uint8(b)+1
		switch {
		case !clean && m.elr() && (inISR || has(t.KR.ELR, b)) && !m.off(GuardKRaftELRUncleanShutdown):
			if !m.change(g, t, t.Ctrl.ISR&^bit(b), -1, -1, b) {
				return false
			}
		case inISR:
			if !m.change(g, t, t.Ctrl.ISR&^bit(b), b, -1, -1) {
				return false
			}
		}
	}
	t.Ctrl.BEpoch[b]++
	// The new registration is fenced and not shutting down.
	t.Ctrl.Live &^= bit(b)
	t.KR.Fenced |= bit(b)
	t.KR.Down &^= bit(b)
	m.appendRec(t, MetaRec{Kind: RecRegister, Broker: uint8(b)})
	t.B[b].Register, t.B[b].Clean = false, false
	return true
}

// fenceStep emits the fencing of broker b by action a (fault f's budget, or -1).
func (m *Model) fenceStep(g *gen, b int, a uint64, f int) {
	g.branch(a, func(t *State) bool {
		if f >= 0 {
			t.KR.Losses++
		}
		return m.krFence(g, t, b)
	})
}

// krSessionLossSteps generates BrokerSessionLoss(b), the fault session_loss with KRaft: the
// heartbeats of broker b, which lives on, stop reaching the active controller for
// broker.session.timeout.ms and the controller fences it (maybeFenceStaleBroker); b
// heartbeats again and is unfenced once caught up (ControllerUnfenceBroker).
func (m *Model) krSessionLossSteps(g *gen, b int) {
	s := g.s
	r := &s.B[b]
	if !r.Alive || r.Register || has(s.KR.Fenced, b) || r.Shut != ShutNone {
		return
	}
	a := act1(KindBrokerSessionLoss, b)
	if int(s.KR.Losses) >= m.C.SessionLoss {
		g.cutStep(a, BoundSessionLoss)
		return
	}
	m.fenceStep(g, b, a, 0)
}

// krControlledShutdownSteps generates BrokerControlledShutdown(b), the fault
// controlled_shutdown with KRaft, and ControllerGrantShutdown(b), the controller's SHUTDOWN_NOW
// (shutdown.go has the broker's side). BrokerLifecycleManager.beginControlledShutdown
// heartbeats wantShutDown; BrokerHeartbeatManager.calculateNextBrokerState (3.9.0 lines
// 535-612):
//   - b leads a partition: CONTROLLED_SHUTDOWN: ReplicationControlManager.
//     handleBrokerInControlledShutdown writes the InControlledShutdown record and moves b out
//     of every ISR and leadership (brokerToRemove); b serves on. ControllerGrantShutdown(b)
//     follows once b leads nothing and every active broker (unfenced, not shutting down) has
//     reported a metadata offset past those records (controlledShutdownOffset <=
//     lowestActiveOffset): SHUTDOWN_NOW, handleBrokerFenced (b out of any ISR it is still in)
//     and the FenceBroker record. There is no controller-side timeout; a broker whose
//     controlled shutdown never completes stops after its own deadline, which is the fault
//     crash.
//   - b leads nothing: SHUTDOWN_NOW at once (handleBrokerFenced, FenceBroker), no
//     InControlledShutdown record.
//
// Either way b then begins its shutdown (BrokerBeginShutdown) fenced.
func (m *Model) krControlledShutdownSteps(g *gen, b int) {
	s := g.s
	r := &s.B[b]
	if !r.Alive || r.Register || r.Shut != ShutNone || has(s.KR.Fenced, b) || has(s.KR.Down, b) {
		if r.Alive && r.Shut == ShutRequested && has(s.KR.Down, b) && !has(s.KR.Fenced, b) &&
			s.Ctrl.Leader != uint8(b)+1 && m.shutdownReplayed(s, b) {
			g.branch(act1(KindControllerGrantShutdown, b), func(t *State) bool {
				return m.krFence(g, t, b)
			})
		}
		return
	}
	a := act1(KindBrokerControlledShutdown, b)
	if !m.budget(s, FaultControlledShutdown) {
		g.cutStep(a, BoundControlledShutdown)
		return
	}
	g.branch(a, func(t *State) bool {
		t.Used[FaultControlledShutdown]++
		t.B[b].Shut = ShutRequested
		if t.Ctrl.Leader != uint8(b)+1 {
			return m.krFence(g, t, b)
		}
		t.KR.Down |= bit(b)
		t.Ctrl.Live &^= bit(b)
		m.appendRec(t, MetaRec{Kind: RecShutdown, Broker: uint8(b)})
		if !m.change(g, t, t.Ctrl.ISR&^bit(b), b, -1, -1) {
			return false
		}
		m.compact(t)
		return true
	})
}

// krFence is handleBrokerFenced for broker b in successor t: b leaves the ISR and its
// leadership (brokerToRemove), then the FenceBroker record; false when that needs a leader
// epoch above max_epoch.
func (m *Model) krFence(g *gen, t *State, b int) bool {
	if !m.change(g, t, t.Ctrl.ISR&^bit(b), b, -1, -1) {
		return false
	}
	t.Ctrl.Live &^= bit(b)
	t.KR.Fenced |= bit(b)
	t.KR.Down &^= bit(b)
	m.appendRec(t, MetaRec{Kind: RecFence, Broker: uint8(b)})
	m.compact(t)
	return true
}

// shutdownReplayed reports whether every active broker other than b (unfenced, not in
// controlled shutdown) has read b's latest InControlledShutdown record: its reported
// metadata offset is at or past the controlled-shutdown offset.
func (m *Model) shutdownReplayed(s *State, b int) bool {
	k := &s.KR
	last := -1
	for i := 0; i < int(k.N); i++ {
		if k.Log[i].Kind == RecShutdown && int(k.Log[i].Broker) == b {
			last = i
		}
	}
	if last < 0 {
		return true // compacted: every broker has read it
	}
	for r := 0; r < m.nb(); r++ {
		if r != b && !has(k.Fenced, r) && !has(k.Down, r) && int(k.N-k.Lag[r]) <= last {
			return false
		}
	}
	return true
}

// quorumFailoverSteps generates ControllerQuorumFailover(e), the fault quorum_failover: the
// controller quorum elects a new leader in KRaft epoch e (KafkaRaftClient); the new active
// controller replays the committed log (QuorumController.QuorumMetaLogListener.
// handleLeaderChange -> claim) and writes the LeaderChangeMessage; the old one keeps
// answering from its state until it renounces. An older zombie renounces at once.
func (m *Model) quorumFailoverSteps(g *gen) {
	s := g.s
	k := &s.KR
	a := act1(KindControllerQuorumFailover, int(k.Epoch))
	if int(k.Epoch)-1 >= m.C.QuorumFailover {
		g.cutStep(a, BoundQuorumFailover)
		return
	}
	t := g.emit(a)
	t.KR.Epoch++
	t.KR.Zombie, t.KR.Old = true, t.Ctrl
	m.appendRec(t, MetaRec{Kind: RecLeaderChange, Broker: t.KR.Epoch})
}

// krAlterPartition handles the AlterPartition at index j, sent to the controller of the
// KRaft epoch in its End field.
// Kafka: ControllerApis.handleAlterPartitionRequest -> QuorumController.alterPartition ->
// ReplicationControlManager.alterPartition: the requesting broker's epoch
// (clusterControl.checkBrokerEpoch: STALE_BROKER_EPOCH; the model's leader always sends its
// current one), then validateAlterPartitionData in its order: a leader or partition epoch
// above the controller's: NOT_CONTROLLER (PR 12514, 3.3, with the KAFKA-14154 fix bit;
// without it a leader epoch other than the controller's is FENCED_LEADER_EPOCH and a
// partition epoch other than its INVALID_UPDATE_VERSION, as before); a lower leader epoch:
// FENCED_LEADER_EPOCH; not from the leader: INVALID_REQUEST; a lower partition epoch:
// INVALID_UPDATE_VERSION; an ISR without the leader: INVALID_REQUEST; an ISR member that is
// fenced, in controlled shutdown, or whose broker epoch (from its fetch, KIP-903) is not its
// registration's: INELIGIBLE_REPLICA. On success the PartitionChangeRecord (with ELR's
// update) and the new state. A controller that is no longer active answers NOT_CONTROLLER
// (its write cannot commit); one that has renounced, and any older one, at once. It reports
// false when max_epoch cut the change (below metadata version 3.6 a shrink bumps the leader
// epoch).
func (m *Model) krAlterPartition(g *gen, t *State, j int) bool {
	req := t.Net.Msgs[j]
	t.Net.remove(j)
	k := &t.KR
	resp := Msg{Kind: MsgAlterPartitionResponse, From: CtrlID, To: req.From, End: req.End}
	notController := func() {
		resp.Err = ErrNotController
		resp.Epoch, resp.Off, resp.HW, resp.DivE, resp.DivO = req.Epoch, req.Off, req.HW, req.DivE, req.DivO
	}
	active := req.End == k.Epoch
	if !active && !(k.Zombie && req.End == k.Epoch-1) {
		notController()
		t.Net.add(resp)
		return true
	}
	c := &t.Ctrl
	if !active {
		c = &k.Old
	}
	fix := m.fixed(FixBit14154)
	switch {
	case fix && (req.Epoch > c.Epoch || req.Off > c.PEpoch):
		m.hit(Kafka14154.Branch(0))
		notController()
	case (req.Epoch < c.Epoch || (!fix && req.Epoch != c.Epoch)) && !m.off(GuardKRaftAlterPartitionLeaderEpoch):
		resp.Err = ErrFencedLeaderEpoch
	case c.Leader != req.From+1:
		resp.Err = ErrInvalidRequest
	case (req.Off < c.PEpoch || (!fix && req.Off != c.PEpoch)) && !m.off(GuardKRaftAlterPartitionPartitionEpoch):
		resp.Err = ErrInvalidUpdateVersion
	case !has(req.HW, int(req.From)):
		resp.Err = ErrInvalidRequest
	case req.HW&^c.Live != 0 && !m.off(GuardKRaftAlterPartitionEligible):
		resp.Err = ErrIneligibleReplica
	case m.p.KIP903 && req.DivE != 0 && c.BEpoch[req.DivO] != req.DivE && !m.off(GuardKRaftAlterPartitionBrokerEpoch):
		resp.Err = ErrIneligibleReplica
	case !active:
		notController()
	default:
		if !m.change(g, t, req.HW, -1, -1, -1) {
			// Cut by max_epoch: an ISR change keeps the leader, but below metadata version
			// 3.6 a shrink bumps the leader epoch (triggerLeaderEpochBumpIfNeeded).
			return false
		}
		m.compact(t)
		resp.Epoch, resp.Off, resp.HW = t.Ctrl.Epoch, t.Ctrl.PEpoch, t.Ctrl.ISR
	}
	t.Net.add(resp)
	return true
}
