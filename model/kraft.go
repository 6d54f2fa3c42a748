package model

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
		if c.ELR || c.QuorumFailover > 0 {
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
	case c.LeaderChange > 0 || c.PreferredElection > 0:
		return errString("model: control_plane = kraft does not model leader_change or preferred_election")
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
// Publisher publishes the delta). A broker that is up and registered acts on a partition
// change (ReplicaManager.applyDelta -> makeLeader / makeFollower); after a restart it
// publishes its first image only once it has replayed its own registration (BrokerServer.
// startup waits for lifecycleManager.initialCatchUpFuture: the controller's heartbeat
// response says it is caught up), so that a stale image never makes it leader; it learns a new quorum leader from a LeaderChange (the raft client's
// leader, which RaftControllerNodeProvider gives NodeToControllerChannelManager).
func (m *Model) replayOne(t *State, b int) {
	k := &t.KR
	rec := k.Log[k.N-k.Lag[b]]
	k.Lag[b]--
	if rec.Kind == RecLeaderChange {
		k.Known[b] = rec.Broker
	}
	r := &t.B[b]
	if r.Alive && !r.Register && ((rec.Kind == RecPartition && r.Role != RoleNone) ||
		(r.Role == RoleNone && (k.caughtUp(b) || m.off(GuardKRaftReplayCatchUp)))) {
		m.publishImage(t, b)
	}
}

// publishImage applies broker b's image of the partition. Kafka: ReplicaManager.applyDelta
// -> applyLocalLeadersDelta / applyLocalFollowersDelta: the partition's leader epoch and
// partition epoch decide, as LeaderAndIsr's did (Partition.makeLeader / makeFollower).
func (m *Model) publishImage(t *State, b int) {
	p := t.KR.image(b)
	if p.Leader == 0 && t.B[b].Role == RoleNone {
		// No leader: the replica is created as a follower of none (applyLocalFollowersDelta
		// with leader -1); the model keeps it without a role until a leader exists.
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
//   - maybePopulateTargetElr (ELR): with the target ISR at min ISR or above, ELR and last
//     known ELR are cleared; below, ELR = (ELR ∪ ISR) \ (target ISR ∪ unclean) and last known
//     ELR = (ELR ∪ ISR ∪ last known ELR) \ (target ISR ∪ new ELR).
//   - tryElection -> electAnyLeader: the current leader if still valid, else the first valid
//     replica in assignment order (g.first: with the order open, each that can come first,
//     order.go), valid meaning in the target ISR, or in the ELR when the
//     target ISR is empty, and acceptable (ClusterControlManager.isActive: unfenced, not in
//     controlled shutdown). A leader from the ELR has ISR {it} and leaves the ELR. With
//     unclean election, the first acceptable replica, ISR {it}, ELR cleared.
//   - the ISR: an empty target ISR is written only with ELR (without it the last member
//     stays, as the ZooKeeper controller's removeReplicasFromIsr does).
//   - a leader change bumps the leader epoch (PartitionRegistration.merge); an ISR change
//     alone does not (KAFKA-15021, metadata version 3.6); any change bumps the partition
//     epoch.
//
// The last known ELR is kept as KIP-966 defines it (useLastKnownLeaderInBalancedRecovery
// false); Kafka 3.9's default keeps the last leader in it instead, for unclean recovery, which
// the model does not run.
func (m *Model) change(g *gen, t *State, isr uint8, remove, add, unclean int) bool {
	c := &t.Ctrl
	k := &t.KR
	acceptable := func(r int) bool {
		return r != remove && r != unclean && (r == add || has(c.Live, r))
	}
	elr, last := k.ELR, k.LastELR
	if m.C.ELR {
		if popcount(isr) >= m.C.MinISR {
			elr, last = 0, 0
		} else {
			cand := elr | c.ISR
			elr = cand &^ isr
			if unclean >= 0 {
				elr &^= bit(unclean)
			}
			last = (cand | last) &^ isr &^ elr
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
		} else if m.C.UncleanElection && ucand != 0 {
			leader, uncleanElected = uint8(g.first(t, ucand))+1, true
		}
		if leader != 0 && has(elr, int(leader)-1) {
			isr = bit(int(leader) - 1)
			elr &^= isr
		}
		if uncleanElected {
			isr, elr, last = bit(int(leader)-1), 0, 0
		}
	}
	if isr == 0 && !m.C.ELR {
		isr = c.ISR
	}
	if leader == c.Leader && isr == c.ISR && elr == k.ELR && last == k.LastELR {
		return true
	}
	if leader != c.Leader {
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
		// restart (a new incarnation id); ClusterControlManager.registerBroker refuses it
		// while the old incarnation's session is valid (DuplicateBrokerRegistrationException:
		// the broker retries), so it waits until the controller fenced b. The new incarnation
		// runs the unclean-shutdown handler first (QuorumController.handleUncleanBroker
		// Shutdown -> ReplicationControlManager.handleBrokerUncleanShutdown: with ELR, b leaves
		// the ISR and the ELR; 3.9 treats every new incarnation so, clean or not), then the
		// RegisterBrokerRecord (fenced) with the new broker epoch.
		if r.Alive && r.Register && (has(k.Fenced, b) || m.off(GuardKRaftRegisterIncarnation)) {
			g.branch(act1(KindControllerRegisterBroker, b), func(t *State) bool {
				if m.C.ELR && (has(t.Ctrl.ISR, b) || has(t.KR.ELR, b)) && !m.off(GuardKRaftELRUncleanShutdown) {
					if !m.change(g, t, t.Ctrl.ISR&^bit(b), -1, -1, b) {
						return false
					}
				}
				t.Ctrl.BEpoch[b]++
				// The new registration is fenced and not shutting down; b was so already
				// unless KRaftRegisterIncarnation is off.
				t.Ctrl.Live &^= bit(b)
				t.KR.Fenced |= bit(b)
				t.KR.Down &^= bit(b)
				m.appendRec(t, MetaRec{Kind: RecRegister, Broker: uint8(b)})
				t.B[b].Register = false
				return true
			})
		}
		// BrokerReplayMetadata(b): b's metadata loader reads its next record; or, after a
		// restart with nothing new to read, publishes its image for the first time
		// (BrokerMetadataPublisher's first publish, once registered).
		if r.Alive && !r.Register && (k.Lag[b] > 0 || (r.Role == RoleNone && k.image(b).Leader != 0 &&
			(k.caughtUp(b) || m.off(GuardKRaftReplayCatchUp)))) {
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
		if r.Alive && !r.Register && has(k.Fenced, b) && !has(k.Down, b) && (k.caughtUp(b) || m.off(GuardKRaftUnfenceCatchUp)) {
			g.branch(act1(KindControllerUnfenceBroker, b), func(t *State) bool {
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
		if (!r.Alive || r.Register) && !has(k.Fenced, b) {
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
					m.krAlterPartition(g, t, j)
					return true
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
	}
}

// fenceStep emits the fencing of broker b by action a (fault f's budget, or -1).
func (m *Model) fenceStep(g *gen, b int, a uint64, f int) {
	g.branch(a, func(t *State) bool {
		if f >= 0 {
			t.KR.Losses++
		}
		if !m.change(g, t, t.Ctrl.ISR&^bit(b), b, -1, -1) {
			return false
		}
		t.Ctrl.Live &^= bit(b)
		t.KR.Fenced |= bit(b)
		t.KR.Down &^= bit(b)
		m.appendRec(t, MetaRec{Kind: RecFence, Broker: uint8(b)})
		m.compact(t)
		return true
	})
}

// krSessionLossSteps generates BrokerSessionLoss(b), the fault session_loss with KRaft: the
// heartbeats of broker b, which lives on, stop reaching the active controller for
// broker.session.timeout.ms and the controller fences it (maybeFenceStaleBroker); b
// heartbeats again and is unfenced once caught up (ControllerUnfenceBroker).
func (m *Model) krSessionLossSteps(g *gen, b int) {
	s := g.s
	r := &s.B[b]
	if !r.Alive || r.Register || has(s.KR.Fenced, b) {
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
// controlled_shutdown with KRaft: BrokerLifecycleManager.beginControlledShutdown heartbeats
// wantShutDown; calculateNextBrokerState moves b to CONTROLLED_SHUTDOWN and
// ReplicationControlManager.handleBrokerInControlledShutdown writes the
// InControlledShutdown record and moves b out of every ISR and leadership (brokerToRemove);
// the broker then stops cleanly (BrokerServer.shutdown, the clean-shutdown file written) and
// the controller fences it when its session ends (SHUTDOWN_NOW, or ControllerFenceBroker).
// The model takes the request, the controller's records and the stop as one step; Kafka's
// broker waits for shouldShutDown, which the controller grants once b leads nothing (or on
// a timeout): the window in which b still serves is dropped.
func (m *Model) krControlledShutdownSteps(g *gen, b int) {
	s := g.s
	r := &s.B[b]
	if !r.Alive || r.Register || has(s.KR.Fenced, b) || has(s.KR.Down, b) {
		return
	}
	a := act1(KindBrokerControlledShutdown, b)
	if !m.budget(s, FaultControlledShutdown) {
		g.cutStep(a, BoundControlledShutdown)
		return
	}
	g.branch(a, func(t *State) bool {
		t.Used[FaultControlledShutdown]++
		t.KR.Down |= bit(b)
		t.Ctrl.Live &^= bit(b)
		m.appendRec(t, MetaRec{Kind: RecShutdown, Broker: uint8(b)})
		if !m.change(g, t, t.Ctrl.ISR&^bit(b), b, -1, -1) {
			return false
		}
		m.stop(t, b, r.NCache, 0, r.LEO, false)
		m.compact(t)
		return true
	})
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
// (its write cannot commit); one that has renounced, and any older one, at once.
func (m *Model) krAlterPartition(g *gen, t *State, j int) {
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
		return
	}
	c := &t.Ctrl
	if !active {
		c = &k.Old
	}
	fix := m.fixed(FixBit14154)
	switch {
	case fix && (req.Epoch > c.Epoch || req.Off > c.PEpoch):
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
			// Cut by max_epoch cannot happen: an ISR change keeps the leader.
			panic("model: AlterPartition changed the leader")
		}
		m.compact(t)
		resp.Epoch, resp.Off, resp.HW = t.Ctrl.Epoch, t.Ctrl.PEpoch, t.Ctrl.ISR
	}
	t.Net.add(resp)
}
