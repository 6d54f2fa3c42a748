package kafka

// The control plane of the ZooKeeper era, on when Config.Controllers > 1: a metadata store
// (ZooKeeper), a bounded number of controller incarnations with their caches and event
// queues, controller failover with zombies, and the brokers' view of the controller. With
// Controllers <= 1 none of this exists (State.CP stays zero) and the single always-correct
// controller of controller.go runs instead.
//
// In this mode State.Ctrl is the store's content: /brokers/topics/t/partitions/0/state
// (Leader, Epoch, PEpoch = its zkVersion, ISR; the writer's controller epoch is CP.Writer),
// and /brokers/ids (Live: registered brokers; BEpoch: each registration's czxid).
//
// Kafka (ZooKeeper controller): core/src/main/scala/kafka/controller/KafkaController.scala,
// ReplicaStateMachine.scala, PartitionStateMachine.scala, ControllerContext.scala; the
// broker side: server/AlterPartitionManager.scala, server/BrokerToControllerChannelManager
// .scala, cluster/Partition.scala (handleAlterPartitionError), server/ReplicaManager.scala.
// The event handling follows the 0.11 code that KAFKA-5480 was reported against (KAFKA-NOTES
// §7); AlterPartition validation follows KafkaController.tryProcessAlterPartition after PR
// 12032, and after PR 12506 with the KAFKA-14154 switch (KAFKA-NOTES §6).

// Size limits of the control plane.
const (
	MaxControllers = 3 // controller incarnations
	MaxQueue       = 7 // queued events per incarnation
)

// Controller events (ControllerEventManager's queue), kept as ev<<4 | broker.
const (
	EvBrokerFailure uint8 = 1 // BrokerChange: the broker's /brokers/ids znode vanished
	EvBrokerStartup uint8 = 2 // BrokerChange: the broker registered
	// EvIsrChange: a leader wrote the ISR itself (Kafka < 2.7) and created an ISR change
	// notification (/isr_change_notification, IsrChangeNotificationHandler). At most one is
	// queued: the controller re-reads every changed partition when it handles one.
	EvIsrChange uint8 = 3
)

// Incarnation is one controller incarnation: the broker it runs on, its controller epoch,
// whether it is active in its own view and whether its ZooKeeper session is alive (active
// without a session: a zombie), its cache (ControllerContext: the partition's leadership
// info and the live brokers, loaded when it became active and updated by its own writes and
// events), the partition's state in its PartitionStateMachine, and its queued events.
type Incarnation struct {
	Broker  uint8 // host broker index
	Epoch   uint8 // controller epoch
	Active  bool
	Session bool
	Offline bool  // PartitionStateMachine: OfflinePartition (waits for an election)
	Leader  uint8 // cached leader, broker index+1 (0: none)
	LEpoch  uint8 // cached leader epoch
	ZkVer   uint8 // cached zkVersion of the partition state (the partition epoch)
	ISR     uint8 // cached ISR
	Live    uint8 // controllerContext.liveBrokerIds
	NQ      uint8 // queued events
	Q       [MaxQueue]uint8
	// Stale is the brokers that registered again after this incarnation lost its session:
	// it read their broker epochs (controllerContext.liveBrokerIdAndEpochs) before, and no
	// BrokerChange event will tell it (the watch fires only for a live session). For an
	// incarnation with a session, a registration it has not read is a queued
	// EvBrokerStartup (staleView).
	Stale uint8
}

// BrokerMeta is what broker b knows of the controller: the controller its metadata cache
// names (ZkMetadataCache.getControllerId, from UpdateMetadata; BrokerToControllerChannel
// Manager targets it) with the epoch it learned for it, and the highest controller epoch it
// has seen (ReplicaManager.controllerEpoch, from LeaderAndIsr and UpdateMetadata).
type BrokerMeta struct {
	Ctrl      uint8 // incarnation index+1 (0: none known)
	CtrlEpoch uint8 // that controller's epoch
	MaxEpoch  uint8 // highest controller epoch seen
}

// ControlPlane is the control-plane state beyond State.Ctrl: the writer's controller epoch
// of the partition state, the /controller_epoch node {epoch, version}, the incarnations
// (the last one holds /controller) and the brokers' view of the controller.
type ControlPlane struct {
	Writer   uint8 // controller epoch that wrote the partition state (LeaderIsrAndControllerEpoch)
	CEpoch   uint8 // /controller_epoch
	CVersion uint8 // its zkVersion
	N        uint8 // incarnations so far; C[N-1] is the one elected last
	// SessionLosses is the session_loss budget used so far.
	SessionLosses uint8
	C             [MaxControllers]Incarnation
	BK            [MaxBrokers]BrokerMeta
}

// Results of a conditional store write.
const (
	zkOK         = iota
	zkBadVersion // the partition state's zkVersion changed (BadVersionException)
	zkMoved      // KAFKA-6082: the /controller_epoch version changed (ControllerMovedException)
)

// cp reports whether the control plane is modelled.
func (m *Model) cp() bool { return m.C.Controllers > 1 }

// validateCP checks the control plane's constants (nothing when the version is unknown:
// validateVersion reports that).
func (c *Config) validateCP() error {
	if _, ok := ProfileByName(c.Version); !ok {
		return nil
	}
	return newModel(*c).validateCP()
}

func (m *Model) validateCP() error {
	if !m.cp() {
		if m.C.Failover > 0 || (m.C.SessionLoss > 0 && !m.kraft()) {
			return errString("model: controller_failover and session_loss need controllers >= 2")
		}
		return nil
	}
	if m.C.LeaderChange > 0 {
		return errString("model: leader_change is not modelled with controllers >= 2")
	}
	isr := 0
	if !m.p.AlterPartition {
		isr = 1 // one ISR change notification
	}
	if 2*(m.C.Crash+m.C.UncleanCrash+m.C.PowerLoss+m.C.SessionLoss+m.C.ControlledShutdown)+m.C.Failover+isr > MaxQueue {
		return errString("model: with controllers >= 2, 2*(crash+unclean_crash+power_loss+session_loss+controlled_shutdown)+controller_failover" +
			" (+1 before version 2.7, for ISR change notifications) must be <= 7 (event queue)")
	}
	return nil
}

func (m *Model) ctrlHost() uint8 {
	if m.C.ControllerBroker <= 0 {
		return 0
	}
	return uint8(m.C.ControllerBroker - 1)
}

// cpInit sets up the control plane of the initial state: controller 1 on broker
// controller_broker with epoch 1 has loaded the store; every broker knows it.
func (m *Model) cpInit(s *State) {
	p := &s.CP
	p.Writer, p.CEpoch, p.CVersion, p.N = 1, 1, 0, 1
	c := &p.C[0]
	*c = Incarnation{Broker: m.ctrlHost(), Epoch: 1, Active: true, Session: true, Live: s.Ctrl.Live}
	c.loadPartition(&s.Ctrl)
	for b := 0; b < m.nb(); b++ {
		p.BK[b] = BrokerMeta{Ctrl: 1, CtrlEpoch: 1, MaxEpoch: 1}
	}
}

func (c *Incarnation) loadPartition(st *Controller) {
	c.Leader, c.LEpoch, c.ZkVer, c.ISR = st.Leader, st.Epoch, st.PEpoch, st.ISR
}

func (c *Incarnation) resign() {
	c.Active, c.Offline, c.NQ, c.Q, c.Stale = false, false, 0, [MaxQueue]uint8{}, 0
}

func (c *Incarnation) pop() {
	copy(c.Q[:], c.Q[1:c.NQ])
	c.NQ--
	c.Q[c.NQ] = 0
}

// hostsCurrent reports whether broker b runs the controller that holds /controller.
func (p *ControlPlane) hostsCurrent(b int) bool {
	return p.N > 0 && p.C[p.N-1].Broker == uint8(b) && p.C[p.N-1].Session
}

// enqueue queues event ev about broker b on the controller that holds /controller (the
// ZooKeeper watch fires only for a live session).
func (s *State) enqueue(ev uint8, b int) {
	p := &s.CP
	for i := 0; i < int(p.N); i++ {
		c := &p.C[i]
		if c.Active && c.Session {
			if int(c.NQ) == MaxQueue {
				panic("model: controller event queue overflow")
			}
			c.Q[c.NQ] = ev<<4 | uint8(b)
			c.NQ++
		}
	}
}

// notifyIsrChange queues an ISR change notification on the controller that holds
// /controller, unless one is queued there already (the handler reads every change).
func (s *State) notifyIsrChange() {
	p := &s.CP
	for i := 0; i < int(p.N); i++ {
		c := &p.C[i]
		if !c.Active || !c.Session {
			continue
		}
		for k := 0; k < int(c.NQ); k++ {
			if c.Q[k]>>4 == EvIsrChange {
				return
			}
		}
		if int(c.NQ) == MaxQueue {
			panic("model: controller event queue overflow")
		}
		c.Q[c.NQ] = EvIsrChange << 4
		c.NQ++
	}
}

// cpBrokerDown is the control plane's part of broker b's crash: its session ends, so its
// /brokers/ids znode goes (a BrokerChange event for the controller), a zombie controller on
// it dies with the process, and its metadata cache is lost.
func (s *State) cpBrokerDown(b int) {
	p := &s.CP
	if p.N == 0 {
		return
	}
	p.BK[b] = BrokerMeta{}
	for i := 0; i < int(p.N); i++ {
		if c := &p.C[i]; c.Broker == uint8(b) && c.Active && !c.Session {
			c.resign()
		}
	}
	s.cpHostDown(b)
	if has(s.Ctrl.Live, b) {
		s.Ctrl.Live &^= bit(b)
		s.enqueue(EvBrokerFailure, b)
	}
}

// cpRegister registers broker b in the store (KafkaZkClient.registerBroker: a new
// ephemeral /brokers/ids znode, whose czxid is the broker's new epoch) and queues the
// BrokerChange event. From 2.2.0 (KIP-380) a LeaderAndIsr in flight to b carries the epoch
// of its previous registration and b refuses it: it is dropped here (a restart's crash
// dropped them already; a session loss leaves them in flight). The controllers' views of
// b's epoch are stale until they handle the event (staleView).
func (s *State) cpRegister(b int, kip380 bool) {
	if s.CP.N == 0 {
		return
	}
	s.Ctrl.Live |= bit(b)
	s.B[b].Register = false
	s.enqueue(EvBrokerStartup, b)
	for i := 0; i < int(s.CP.N); i++ {
		if c := &s.CP.C[i]; c.Active && !c.Session {
			c.Stale |= bit(b)
		}
	}
	if kip380 {
		if j := s.Net.find(MsgLeaderAndIsr, CtrlID, uint8(b)); j >= 0 {
			s.Net.remove(j)
		}
	}
}

// staleView reports whether controller i's view of broker b's epoch predates b's latest
// registration: an EvBrokerStartup for b is queued, or b registered after i lost its
// session (Incarnation.Stale).
func (p *ControlPlane) staleView(i, b int) bool {
	c := &p.C[i]
	if has(c.Stale, b) {
		return true
	}
	for k := 0; k < int(c.NQ); k++ {
		if c.Q[k] == EvBrokerStartup<<4|uint8(b) {
			return true
		}
	}
	return false
}

// retract removes the successor emitted last (a step that turned out to need more than a
// bound allows; the caller reports it as cut).
func (g *gen) retract() {
	g.succ = g.succ[:len(g.succ)-1]
	g.acts = g.acts[:len(g.acts)-1]
}

// zkWrite writes the partition state {leader, epoch, isr} on behalf of controller i,
// conditional on the partition state's zkVersion being version and, with KAFKA-6082, on the
// /controller_epoch version being the one i was elected with (KafkaZkClient.
// updateLeaderAndIsr as a multi() with a check op). On success the writer's epoch is i's and
// i's cache holds the new state. A ControllerMovedException makes i resign
// (ControllerEventManager: maybeResign).
func (m *Model) zkWrite(t *State, i int, version, leader, epoch, isr uint8) int {
	c := &t.CP.C[i]
	st := &t.Ctrl
	if m.fixed(FixBit6082) && c.Epoch-1 != t.CP.CVersion {
		m.hit(Kafka6082.Branch(0))
		c.resign()
		return zkMoved
	}
	if st.PEpoch != version && !m.off(GuardZkVersion) {
		return zkBadVersion
	}
	st.Leader, st.Epoch, st.ISR = leader, epoch, isr
	st.PEpoch++
	t.CP.Writer = c.Epoch
	c.loadPartition(st)
	return zkOK
}

// sendLeaderAndIsr sends controller i's cached partition state to every broker of to that
// is up and whose registration i has read (KIP-380). LeaderAndIsr carries the controller
// epoch. One LeaderAndIsr per broker is in
// flight: a controller's newer one replaces its older one (its channel is ordered and the
// broker ignores older state); one from an older controller epoch than the one in flight is
// dropped (the broker rejects it as STALE_CONTROLLER_EPOCH once it has processed the newer;
// the model delivers the newer first).
func (m *Model) sendLeaderAndIsr(t *State, i int, to uint8) {
	c := &t.CP.C[i]
	for b := 0; b < m.nb(); b++ {
		if !has(to, b) || !t.B[b].Alive || t.closing(b) {
			continue
		}
		if m.kip380() && t.CP.staleView(i, b) {
			// KIP-380: stamped with the epoch of b's previous registration, refused
			// (STALE_BROKER_EPOCH): a no-op, not sent.
			m.guardHit(GuardLeaderAndIsrBrokerEpoch)
			continue
		}
		msg := Msg{Kind: MsgLeaderAndIsr, From: CtrlID, To: uint8(b), Epoch: c.LEpoch, Off: c.ZkVer,
			Last: c.Leader, HW: c.ISR, DivE: c.Epoch, End: uint8(i) + 1}
		if j := t.Net.find(MsgLeaderAndIsr, CtrlID, uint8(b)); j >= 0 {
			if t.Net.Msgs[j].DivE > msg.DivE && !m.off(GuardStaleControllerEpoch) {
				continue
			}
			msg.Err |= t.Net.Msgs[j].lapsed(&msg)
			t.Net.remove(j)
		}
		if !m.leaderAndIsrIsNoop(t, b, &msg) {
			t.Net.add(msg)
		}
	}
}

// leaderAndIsrIsNoop reports whether broker b will certainly ignore msg: its controller
// epoch is below the highest b has seen (STALE_CONTROLLER_EPOCH), or it carries that epoch
// and partition state no newer than b's (becomeLeaderOrFollower skips it). Both stay true
// until delivery: b's epochs only grow while it is up, and a crash drops the message. Such
// a message is not sent, as a no-op delivery would be a stutter (as fetchIsNoop does for
// fetches); an older message it replaced would have been ignored as well. With either
// guard off (a mutation) the broker would not ignore it, so it is sent.
func (m *Model) leaderAndIsrIsNoop(t *State, b int, msg *Msg) bool {
	r, k := &t.B[b], &t.CP.BK[b]
	if msg.DivE < k.MaxEpoch {
		return !m.off(GuardStaleControllerEpoch)
	}
	return msg.DivE == k.MaxEpoch && m.stalePartitionState(r, msg.Epoch, msg.Off) && !m.off(GuardLeaderAndIsrEpoch)
}

// acceptLeaderAndIsr is the broker's controller-epoch check of a LeaderAndIsr.
// Kafka: ReplicaManager.becomeLeaderOrFollower: a request whose controllerEpoch is below the
// broker's controllerEpoch is rejected (STALE_CONTROLLER_EPOCH); otherwise the broker
// records it. Without the control plane (controller epoch 0) every request is accepted.
func (s *State) acceptLeaderAndIsr(b int, msg *Msg, mutated bool) bool {
	if msg.DivE == 0 {
		return true
	}
	k := &s.CP.BK[b]
	if msg.DivE < k.MaxEpoch && !mutated {
		return false
	}
	k.MaxEpoch = max(k.MaxEpoch, msg.DivE)
	return true
}

// electLeader elects a leader for the partition on behalf of controller i, whose partition
// state is OfflinePartition, and reports false when that needs a leader epoch above
// max_epoch (the step is then disabled).
// Kafka 0.11: PartitionStateMachine.electLeaderForPartition: re-reads the leader and ISR from
// ZooKeeper; aborts if they were written by a newer controller epoch (StateChangeFailed
// Exception: "went through a soft failure"); OfflinePartitionLeaderSelector picks the first
// live ISR member (g.first: with the order open, each that can come first, order.go) and
// shrinks the ISR to the live members, or throws NoReplicaOnline
// Exception (the partition stays offline; with unclean_election the first live replica is
// elected with ISR {it}, mechanisms.go uncleanLeader); the write is
// conditional on the zkVersion just read; then LeaderAndIsr to the live replicas.
func (m *Model) electLeader(g *gen, t *State, i int) bool {
	c := &t.CP.C[i]
	st := &t.Ctrl
	if t.CP.Writer > c.Epoch {
		return true
	}
	live, unclean := st.ISR&c.Live, false
	if live == 0 && m.C.UncleanElection {
		live, unclean = c.Live, true
	}
	if live == 0 {
		return true
	}
	if int(st.Epoch) >= m.C.MaxEpoch {
		return false
	}
	nl := uint8(g.first(t, live))
	if unclean {
		live = bit(int(nl)) // the new ISR is the leader alone (uncleanLeader)
	}
	if m.zkWrite(t, i, st.PEpoch, nl+1, st.Epoch+1, live) != zkOK {
		return true
	}
	c.Offline = false
	m.sendLeaderAndIsr(t, i, c.Live)
	return true
}

// removeReplicaFromIsr moves broker b's replica to OfflineReplica on behalf of controller i,
// and reports false when that needs a leader epoch above max_epoch.
// Kafka 0.11: KafkaController.removeReplicaFromIsr, called by ReplicaStateMachine's
// OfflineReplica transition: re-reads leader and ISR from ZooKeeper; aborts if written by a
// newer controller epoch; if b is in the ISR: leader = -1 (NoLeader) when b was the leader,
// else unchanged, ISR without b (its last member is kept, unclean election disabled), leader
// epoch + 1, written conditionally on the zkVersion read; otherwise the cache takes the
// state read. Either way the cache is updated and the other live replicas get LeaderAndIsr.
// It never elects a leader: with a stale cache it can leave leader -1 with a live ISR
// member (KAFKA-5480).
func (m *Model) removeReplicaFromIsr(t *State, i, b int) bool {
	c := &t.CP.C[i]
	st := &t.Ctrl
	if t.CP.Writer > c.Epoch {
		return true
	}
	if !has(st.ISR, b) {
		c.loadPartition(st)
		m.sendLeaderAndIsr(t, i, c.Live&^bit(b))
		return true
	}
	if int(st.Epoch) >= m.C.MaxEpoch {
		return false
	}
	nl := st.Leader
	if nl == uint8(b)+1 {
		nl = 0
	}
	isr := st.ISR &^ bit(b)
	if isr == 0 {
		isr = st.ISR
	}
	if m.zkWrite(t, i, st.PEpoch, nl, st.Epoch+1, isr) == zkOK {
		m.sendLeaderAndIsr(t, i, c.Live&^bit(b))
	}
	return true
}

// onBrokerFailure handles the event at the head of controller i's queue: broker b failed.
// Kafka 0.11: KafkaController.onBrokerFailure: the partitions whose leader is b IN THE
// CACHE (controllerContext.partitionLeadershipInfo) go to OfflinePartition and
// triggerOnlinePartitionStateChange elects for every offline partition; then the replicas on
// b go to OfflineReplica (removeReplicaFromIsr).
func (m *Model) onBrokerFailure(g *gen, t *State, i, b int) bool {
	c := &t.CP.C[i]
	c.pop()
	c.Live &^= bit(b)
	if c.Leader == uint8(b)+1 {
		c.Offline = true
	}
	if c.Offline && !m.electLeader(g, t, i) {
		return false
	}
	if !c.Active {
		return true
	}
	return m.removeReplicaFromIsr(t, i, b)
}

// onBrokerStartup handles the event at the head of controller i's queue: broker b
// registered. Kafka 0.11: KafkaController.onBrokerStartup: b's replicas go to OnlineReplica
// (LeaderAndIsr with the cached state to b), then triggerOnlinePartitionStateChange elects
// for an offline partition. A partition whose cached leader is -1 but whose state is
// OnlinePartition (left so by removeReplicaFromIsr) is not elected.
func (m *Model) onBrokerStartup(g *gen, t *State, i, b int) bool {
	c := &t.CP.C[i]
	c.pop()
	c.Live |= bit(b)
	m.sendLeaderAndIsr(t, i, bit(b))
	if c.Offline {
		return m.electLeader(g, t, i)
	}
	return true
}

// cpAlterPartition handles the AlterPartition at index j sent to controller i.
// Kafka: KafkaController.processAlterPartition -> tryProcessAlterPartition (ZooKeeper mode,
// 3.x). Not active: NOT_CONTROLLER. Against the cached partition state, after PR 12032: a
// leader epoch other than the cache's: FENCED_LEADER_EPOCH; already in the requested state
// (equalsAllowStalePartitionEpoch): success with the current state; a partition epoch other
// than the cache's: INVALID_UPDATE_VERSION. With KAFKA-14154 (PR 12506) first: a request
// ahead of the cache (partition or leader epoch higher): NOT_CONTROLLER ("this node is likely
// no longer the active controller"); then a lower leader epoch FENCED_LEADER_EPOCH and a
// lower partition epoch INVALID_UPDATE_VERSION. Then an ISR member that is not live:
// INELIGIBLE_REPLICA (KIP-841). The write is conditional on the cached zkVersion (BadVersion:
// INVALID_UPDATE_VERSION) and with KAFKA-6082 on the controller epoch (ControllerMoved
// Exception: NOT_CONTROLLER, and the controller resigns). The leader epoch is not bumped.
// A NOT_CONTROLLER response echoes the request so that the leader can resubmit it.
func (m *Model) cpAlterPartition(t *State, i, j int) {
	req := t.Net.Msgs[j]
	t.Net.remove(j)
	c := &t.CP.C[i]
	resp := Msg{Kind: MsgAlterPartitionResponse, From: CtrlID, To: req.From, End: uint8(i) + 1}
	notController := func() {
		resp.Err = ErrNotController
		resp.Epoch, resp.Off, resp.HW, resp.DivE, resp.DivO = req.Epoch, req.Off, req.HW, req.DivE, req.DivO
	}
	// write writes leader, epoch and isr conditional on zkVersion ver and answers with the
	// outcome: the new state, NOT_CONTROLLER, or INVALID_UPDATE_VERSION.
	write := func(ver, leader, epoch, isr uint8) {
		switch m.zkWrite(t, i, ver, leader, epoch, isr) {
		case zkMoved:
			notController()
		case zkBadVersion:
			resp.Err = ErrInvalidUpdateVersion
		default:
			resp.Epoch, resp.Off, resp.HW = c.LEpoch, c.ZkVer, c.ISR
		}
	}
	ahead := req.Off > c.ZkVer || req.Epoch > c.LEpoch
	fix := m.fixed(FixBit14154)
	v33 := m.p.AlterValidation33
	switch {
	case !c.Active:
		notController()
	case fix && ahead:
		m.hit(Kafka14154.Branch(0))
		notController()
	case (req.Epoch < c.LEpoch || (v33 && !fix && req.Epoch != c.LEpoch)) && !m.off(GuardAlterPartitionLeaderEpoch):
		resp.Err = ErrFencedLeaderEpoch
	case c.Leader == req.From+1 && req.HW == c.ISR && req.Epoch == c.LEpoch:
		resp.Epoch, resp.Off, resp.HW = c.LEpoch, c.ZkVer, c.ISR
	case !v33:
		// Kafka 2.7-3.2: the request's leader and ISR are written as they are, conditional on
		// the request's zkVersion (zkClient.updateLeaderAndIsr with the requested state).
		write(req.Off, req.From+1, req.Epoch, req.HW)
	case (req.Off < c.ZkVer || (!fix && req.Off != c.ZkVer)) && !m.off(GuardAlterPartitionPartitionEpoch):
		resp.Err = ErrInvalidUpdateVersion
	case req.HW&^c.Live != 0:
		resp.Err = ErrIneligibleReplica
	default:
		write(c.ZkVer, c.Leader, c.LEpoch, req.HW)
	}
	t.Net.add(resp)
}

// controlPlaneSteps generates the control plane's steps, per incarnation then per broker,
// then the failover fault.
func (m *Model) controlPlaneSteps(g *gen) {
	s := g.s
	p := &s.CP
	for i := 0; i < int(p.N); i++ {
		c := &p.C[i]
		// ControllerHandleAlterPartition(c, l). A broker that is not (or no longer) the
		// active controller answers NOT_CONTROLLER (KafkaApis.handleAlterPartitionRequest).
		for l := 0; l < m.nb(); l++ {
			if j := s.Net.findAlter(uint8(l), uint8(i)+1); j >= 0 {
				t := g.emit(act2(KindControllerHandleAlterPartition, i, l))
				m.cpAlterPartition(t, i, j)
			}
		}
		if !c.Active {
			continue
		}
		// ControllerHandleBrokerFailure(c, b) / ControllerHandleBrokerStartup(c, b): the
		// event at the head of the queue (ControllerEventManager processes one at a time;
		// a zombie keeps processing until it resigns).
		if c.NQ > 0 {
			ev, b := c.Q[0]>>4, int(c.Q[0]&15)
			if ev == EvIsrChange {
				// ControllerHandleIsrChange(c): Kafka < 2.7: KafkaController.
				// processIsrChangeNotification -> updateLeaderAndIsrCache: the cache re-reads
				// the partition state from the store (and UpdateMetadata goes out, which the
				// model does not need).
				t := g.emit(act1(KindControllerHandleIsrChange, i))
				tc := &t.CP.C[i]
				tc.pop()
				tc.loadPartition(&t.Ctrl)
			} else if ev == EvBrokerFailure {
				g.branch(act2(KindControllerHandleBrokerFailure, i, b), func(t *State) bool {
					return m.onBrokerFailure(g, t, i, b)
				})
			} else {
				g.branch(act2(KindControllerHandleBrokerStartup, i, b), func(t *State) bool {
					return m.onBrokerStartup(g, t, i, b)
				})
			}
		}
		// ControllerResign(c): the zombie notices that its session expired and resigns.
		// Kafka: the session-expiration handling (0.11 SessionExpirationListener.
		// handleNewSession; 2.x the Expire/Reelect events) -> onControllerResignation.
		if !c.Session {
			t := g.emit(act1(KindControllerResign, i))
			t.CP.C[i].resign()
		}
	}
	cur := int(p.N) - 1
	m.controllerElectSteps(g)
	for b := 0; b < m.nb(); b++ {
		r := &s.B[b]
		if !r.Alive {
			continue
		}
		k := &p.BK[b]
		// BrokerReregister(b): a broker whose session expired (the controller's host after
		// a failover) opens a new session and registers again. Kafka: KafkaZkClient.
		// registerBroker from the new-session handler (0.11 KafkaHealthcheck.
		// SessionExpireListener.handleNewSession).
		if !has(s.Ctrl.Live, b) {
			t := g.emit(act1(KindBrokerReregister, b))
			t.cpRegister(b, m.kip380())
			continue
		}
		// BrokerLearnController(b): the broker's metadata cache learns the controller that
		// holds /controller and its epoch from its UpdateMetadata request (ZkMetadataCache.
		// updateMetadata: controllerId), which BrokerToControllerChannelManager's
		// MetadataCacheControllerNodeProvider then targets. Only AlterPartitionManager reads
		// it, so the step is offered only while b has an AlterPartition queued or in flight:
		// learning earlier commutes with every other step. The highest controller epoch
		// seen comes from LeaderAndIsr only.
		if cur >= 0 && p.C[cur].Session && k.Ctrl != uint8(cur)+1 && s.Net.alterPlane(uint8(b)) {
			t := g.emit(act1(KindBrokerLearnController, b))
			tk := &t.CP.BK[b]
			tk.Ctrl, tk.CtrlEpoch = uint8(cur)+1, p.C[cur].Epoch
		}
		// BrokerSendAlterPartition(b): AlterPartitionManager.sendRequest sends the queued
		// AlterPartition to the controller BrokerToControllerChannelManager knows. With
		// KAFKA-14154-proposed (PR 12499) not to a controller whose epoch is below the
		// highest the broker has seen: it waits to discover a newer one.
		if j := s.Net.findAlter(uint8(b), 0); j >= 0 && k.Ctrl != 0 &&
			!m.withholdAlterPartition(k) {
			t := g.emit(act1(KindBrokerSendAlterPartition, b))
			t.Net.Msgs[j].End = k.Ctrl
			t.Net.resort(j)
		}
	}
	m.failoverSteps(g)
	m.sessionLossSteps(g)
}

// sessionLossSteps generates BrokerSessionLoss(b), the fault session_loss: broker b's
// ZooKeeper session expires while its process lives on (an unstable network, KAFKA-5480's
// "the network of the cluster is not stable"): its /brokers/ids znode goes and the
// controller gets a BrokerChange event; the broker keeps its partition state and registers
// again with a new session (BrokerReregister). The controller's own host is not offered:
// its session loss is controller_failover.
func (m *Model) sessionLossSteps(g *gen) {
	s := g.s
	budget := int(s.CP.SessionLosses) < m.C.SessionLoss
	if !budget && !g.cutOn {
		return
	}
	for b := 0; b < m.nb(); b++ {
		if !s.B[b].Alive || !has(s.Ctrl.Live, b) || s.CP.hostsCurrent(b) || s.closing(b) {
			continue
		}
		if !budget {
			g.cutStep(act1(KindBrokerSessionLoss, b), BoundSessionLoss)
			continue
		}
		t := g.emit(act1(KindBrokerSessionLoss, b))
		t.CP.SessionLosses++
		t.Ctrl.Live &^= bit(b)
		t.enqueue(EvBrokerFailure, b)
	}
}

// findAlter returns the index of broker b's AlterPartition sent to incarnation ctrl-1
// (ctrl 0: not yet sent, queued in AlterPartitionManager), or -1.
func (n *Network) findAlter(b, ctrl uint8) int {
	for i := 0; i < int(n.Len); i++ {
		if g := &n.Msgs[i]; g.Kind == MsgAlterPartition && g.From == b && g.End == ctrl {
			return i
		}
	}
	return -1
}

// becomeController makes broker nb the controller that holds /controller: it increments
// /controller_epoch and runs onControllerFailover: initializeControllerContext loads the
// cache from the store (live brokers: the registered ones), PartitionStateMachine.startup
// marks the partition offline when its leader is not live and elects one, and
// ReplicaStateMachine.startup sends LeaderAndIsr to the live replicas. It reports false when
// the election needs a leader epoch above max_epoch.
func (m *Model) becomeController(g *gen, t *State, nb int) bool {
	tp := &t.CP
	tp.CEpoch++
	tp.CVersion++
	i := int(tp.N)
	tp.N++
	c := &tp.C[i]
	*c = Incarnation{Broker: uint8(nb), Epoch: tp.CEpoch, Active: true, Session: true, Live: t.Ctrl.Live}
	c.loadPartition(&t.Ctrl)
	if c.Leader == 0 || !has(c.Live, int(c.Leader)-1) {
		c.Offline = true
		if !m.electLeader(g, t, i) {
			return false
		}
	}
	m.sendLeaderAndIsr(t, i, c.Live)
	return true
}

// failoverSteps generates ControllerFailover(b), the fault controller_failover: the ZooKeeper
// session of the controller that holds /controller expires while its process lives on (a
// soft failure: GC pause, network partition). Its /controller and /brokers/ids znodes go
// (its host registers again at the end of the step); it stays active in its own view (a
// zombie) until it resigns. Broker b, the lowest-numbered
// registered live broker other than the old host (g.first: with the order open, each that
// can come first, order.go), wins /controller: it increments
// /controller_epoch and runs onControllerFailover: initializeControllerContext loads the
// cache from the store (live brokers: the registered ones), ReplicaStateMachine.startup
// sends LeaderAndIsr to the live replicas and PartitionStateMachine.startup marks the
// partition offline when its leader is not live and elects one.
func (m *Model) failoverSteps(g *gen) {
	s := g.s
	p := &s.CP
	if p.N == 0 {
		return
	}
	budget := -1 // the bound that cuts the step, if any
	switch {
	case int(p.N)-1 >= m.C.Failover:
		budget = BoundFailover
	case int(p.N) >= m.C.Controllers:
		budget = BoundControllers
	}
	if (budget >= 0 && !g.cutOn) || !p.C[int(p.N)-1].Session {
		return // no controller holds /controller (its host crashed): ControllerElect instead
	}
	cur := int(p.N) - 1
	old := p.C[cur].Broker
	live := s.Ctrl.Live &^ bit(int(old))
	var cand uint8
	for b := 0; b < m.nb(); b++ {
		if has(live, b) && s.B[b].Alive {
			cand |= bit(b)
		}
	}
	if cand == 0 {
		return
	}
	if budget >= 0 {
		g.cutStep(act1(KindControllerFailover, lowest(s.Ord.firsts(cand))), budget)
		return
	}
	g.branch(act1(KindControllerFailover, 0), func(t *State) bool {
		nb := g.first(t, cand)
		g.recode(act1(KindControllerFailover, nb))
		t.CP.C[cur].Session = false
		t.Ctrl.Live = live
		if !m.becomeController(g, t, nb) {
			return false
		}
		// The old host's ZooKeeper client opens a new session at once and the broker
		// registers again (KafkaZkClient.registerBroker from the new-session handler); the
		// new controller learns it through the BrokerChange event it queues. Taking the two
		// in one step drops only the window in which the store lists the host as
		// unregistered; the new controller's view still lags until it handles the event.
		if t.B[old].Alive {
			t.cpRegister(int(old), m.kip380())
		}
		return true
	})
}
