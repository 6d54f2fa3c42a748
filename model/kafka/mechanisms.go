package kafka

// Mechanisms a Kafka engineer expects beyond the protocol's happy path, each off by default
// (a zero Config field leaves the model exactly as without it):
//
//   - unclean leader election (Config.UncleanElection, unclean.leader.election.enable): in
//     brokerFailed and ControllerHandleBrokerStartup (controller.go) and electLeader
//     (controlplane.go);
//   - controlled shutdown (budget controlled_shutdown): BrokerControlledShutdown;
//   - preferred-replica election (budget preferred_election): ControllerElectPreferred;
//   - loss of an AlterPartition request or response (budget control_loss):
//     NetworkLoseControlMessage;
//   - a crash of the broker that hosts the active controller (Config.ControllerHostCrash):
//     the controller dies with it (cpHostDown) and another broker is elected
//     (ControllerElect).
//
// Kafka (ZooKeeper controller, 2.8.0 unless named): core/src/main/scala/kafka/controller/
// KafkaController.scala, PartitionStateMachine.scala (PartitionLeaderElectionAlgorithms),
// Election.scala, ReplicaStateMachine.scala; core/src/main/scala/kafka/server/
// KafkaServer.scala (controlledShutdown), BrokerToControllerChannelManager.scala (3.x:
// NodeToControllerChannelManager.scala), AlterIsrManager.scala (3.x: AlterPartitionManager
// .scala), ControllerChannelManager.scala.

// mechBudgets reports whether a budget of this file is set: only then does the canonical
// encoding hold their counters, so that every other configuration encodes as before.
func (m *Model) mechBudgets() bool {
	return m.C.ControlledShutdown > 0 || m.C.PreferredElection > 0 || m.C.ControlLoss > 0
}

// validateMechanisms checks the rules that tie the mechanisms to other constants.
func (c *Config) validateMechanisms() error {
	if c.ControlLoss > 0 {
		if c.Controllers < 2 {
			return errString("model: control_loss needs controllers >= 2 (the single controller's AlterPartition has no retry to model)")
		}
		if p, ok := ProfileByName(c.Version); ok && !p.AlterPartition {
			return errString("model: control_loss needs AlterPartition (KIP-497, 2.7); version " + p.Name + " has none")
		}
	}
	if c.ControllerHostCrash && c.Controllers < 2 {
		return errString("model: controller_host_crash needs controllers >= 2")
	}
	return nil
}

// uncleanLeader is the replica an unclean election picks among the live brokers live, as
// a set of one (0: none). Kafka: PartitionLeaderElectionAlgorithms.
// offlinePartitionLeaderElection: with no live ISR member and uncleanLeaderElectionEnabled,
// assignment.find(liveReplicas.contains), the first live replica in assignment order
// (brokers 1..N here; g.first: with the order open, each that can come first), in
// successor t; Election.leaderForOffline makes the ISR List(leader). Kafka 0.11+ defaults
// unclean.leader.election.enable to false (KIP-106); KRaft has the same rule
// (PartitionChangeBuilder.Election.UNCLEAN).
func (m *Model) uncleanLeader(g *gen, t *State, live uint8) uint8 {
	if live == 0 {
		return 0
	}
	return bit(g.first(t, live))
}

// lowest is the lowest broker of a non-empty set.
func lowest(set uint8) int {
	b := 0
	for ; !has(set, b); b++ {
	}
	return b
}

// cpHostDown is the crash of broker b when it hosts the controller that holds /controller
// (only with controller_host_crash: crashSteps offers no such crash otherwise): the
// controller process dies with the broker, so it is no zombie; its ZooKeeper session ends,
// /controller goes and another broker is elected (ControllerElect). Its queued events are
// lost: the next controller loads its state from the store. An AlterPartition still addressed
// to it is answered NOT_CONTROLLER (cpAlterPartition: not active), which re-queues it as the
// disconnect that Kafka's broker would see does (NodeToControllerRequestThread.handleResponse).
func (s *State) cpHostDown(b int) {
	p := &s.CP
	for i := 0; i < int(p.N); i++ {
		if c := &p.C[i]; c.Broker == uint8(b) && c.Session {
			c.Session = false
			c.resign()
		}
	}
}

// controllerElectSteps generates ControllerElect(b): no controller holds /controller (the
// last one's host crashed), so every broker's ControllerChangeHandler fires and each tries
// to create /controller (KafkaController.processReelect -> elect); broker b, the lowest
// registered live broker (g.first: with the order open, each that can come first, order.go),
// wins and runs onControllerFailover (becomeController). It is a
// protocol step, weakly fair; it needs another controller incarnation (controllers) and
// counts against controller_failover as a failover's does (CP.N counts both).
func (m *Model) controllerElectSteps(g *gen) {
	s := g.s
	p := &s.CP
	if p.N == 0 || p.C[p.N-1].Session {
		return
	}
	var cand uint8
	for b := 0; b < m.nb(); b++ {
		if has(s.Ctrl.Live, b) && s.B[b].Alive {
			cand |= bit(b)
		}
	}
	if cand == 0 {
		return
	}
	if int(p.N) >= m.C.Controllers {
		g.cutStep(act1(KindControllerElect, lowest(s.Ord.firsts(cand))), BoundControllers)
		return
	}
	g.branch(act1(KindControllerElect, 0), func(t *State) bool {
		nb := g.first(t, cand)
		g.recode(act1(KindControllerElect, nb))
		return m.becomeController(g, t, nb)
	})
}

// mechanismSteps generates the faults of this file that concern broker b.
func (m *Model) mechanismSteps(g *gen, b int) {
	if m.kraft() {
		return // kraft.go: krControlledShutdownSteps
	}
	m.controlledShutdownSteps(g, b)
	if b == 0 {
		m.preferredSteps(g)
	}
	m.controlLossSteps(g, b)
}

// cpControlledShutdown is the control plane's handling of broker b's ControlledShutdown by
// the controller that holds /controller, and false when it needs a leader epoch above
// max_epoch. With no such controller (its host crashed) the broker's retries run out and it
// shuts down anyway. Kafka: doControlledShutdown (the partitions the broker leads in the
// controller's cache) -> PartitionStateMachine.
// doElectLeaderForPartitions: re-reads the partition state from ZooKeeper, aborts if a newer
// controller epoch wrote it, elects, writes conditionally (KafkaZkClient.updateLeaderAndIsr,
// with KAFKA-6082 on the controller-epoch version) and sends LeaderAndIsr to the live or
// shutting-down replicas; a follower's replica goes to OfflineReplica (removeReplicaFromIsr).
func (m *Model) cpControlledShutdown(g *gen, t *State, b int) bool {
	p := &t.CP
	i := int(p.N) - 1
	c := &p.C[i]
	st := &t.Ctrl
	if !c.Session || !c.Active || p.Writer > c.Epoch {
		return true
	}
	if c.Leader != uint8(b)+1 {
		// Not the leader in the controller's cache (partitionsLedByBroker is computed from
		// controllerContext.partitionLeadershipInfo): OfflineReplica.
		return m.removeReplicaFromIsr(t, i, b)
	}
	cand := st.ISR & c.Live &^ bit(b)
	if cand == 0 {
		return true
	}
	if int(st.Epoch) >= m.C.MaxEpoch {
		return false
	}
	nl := g.first(t, cand)
	if m.zkWrite(t, i, st.PEpoch, uint8(nl)+1, st.Epoch+1, st.ISR&^bit(b)) == zkOK {
		t.CP.C[i].Offline = false
		m.sendLeaderAndIsr(t, i, t.CP.C[i].Live)
	}
	return true
}

// preferredSteps generates ControllerElectPreferred(1), the fault preferred_election: the
// controller moves leadership to the preferred replica, broker 1 (the head of the
// assignment), when it is live in the controller's view, in the ISR and not the leader.
// Kafka: KafkaController.checkAndTriggerAutoLeaderRebalance (auto.leader.rebalance.enable,
// every leader.imbalance.check.interval.seconds; also kafka-leader-election --election-type
// PREFERRED -> electLeaders) -> canPreferredReplicaBeLeader -> onReplicaElection ->
// PartitionStateMachine with PreferredReplicaPartitionLeaderElectionStrategy:
// preferredReplicaPartitionLeaderElection = assignment.headOption.filter(live && in ISR);
// Election.leaderForPreferredReplica keeps the ISR (LeaderAndIsr.newLeader: leader epoch
// and zkVersion + 1). With the control plane the controller that holds /controller does it
// on the state it reads from the store (doElectLeaderForPartitions), conditionally on its
// zkVersion. Unlike leader_change, which moves leadership to any live ISR member (as a
// reassignment or an operator's election to a chosen replica), it can only go to broker 1.
func (m *Model) preferredSteps(g *gen) {
	s := g.s
	a := act1(KindControllerElectPreferred, 0)
	budget := m.budget(s, FaultPreferred)
	if !budget && !g.cutOn {
		return
	}
	// Enabled: broker 1 is live and in the ISR but not leader, in the view of the single
	// controller, or of the active controller and the store.
	st := &s.Ctrl
	i := int(s.CP.N) - 1
	if m.cp() {
		c := &s.CP.C[i]
		if !c.Session || !c.Active || s.CP.Writer > c.Epoch || c.Leader == 1 || !has(c.Live, 0) {
			return
		}
	} else if !has(st.Live&^st.Shut, 0) {
		return
	}
	if st.Leader == 1 || !has(st.ISR, 0) {
		return
	}
	if !budget {
		g.cutStep(a, BoundPreferred)
		return
	}
	if int(st.Epoch) >= m.C.MaxEpoch {
		g.cutStep(a, BoundMaxEpoch)
		return
	}
	t := g.emit(a)
	t.Used[FaultPreferred]++
	if !m.cp() {
		nc := *st
		nc.Leader, nc.Epoch, nc.PEpoch = 1, st.Epoch+1, st.PEpoch+1
		m.publish(t, nc, *st)
		return
	}
	if m.zkWrite(t, i, st.PEpoch, 1, st.Epoch+1, st.ISR) == zkOK {
		t.CP.C[i].Offline = false
		m.sendLeaderAndIsr(t, i, t.CP.C[i].Live)
	}
}

// controlLossSteps generates NetworkLoseControlMessage(b, x), the fault control_loss: broker
// b's AlterPartition, sent to a controller, is lost (x = 0), or reaches it and the response
// is lost (x = 1: the controller handles it, the response is dropped). Either way the
// request comes back: Kafka's NodeToControllerRequestThread (2.8:
// BrokerToControllerRequestThread).handleResponse treats a disconnect (a request timeout
// disconnects too) with updateControllerAddress(null) and requestQueue.putFirst(queueItem),
// and AlterPartitionManager sets retryTimeoutMs = Long.MaxValue ("We will not timeout
// AlterPartition request, instead letting it retry indefinitely"): the request is queued
// again, unsent (End 0), and BrokerSendAlterPartition sends it to the controller the broker
// knows. A repeat of a request the controller applied is answered with the current state
// (tryProcessAlterPartition: 2.7-3.2 equalsIgnoreZk, 3.3+ equalsAllowStalePartitionEpoch,
// KAFKA-14144), so the retry resolves the proposal.
//
// Not lost: a LeaderAndIsr, which ControllerChannelManager's RequestSendThread re-sends
// until it is delivered (doWork: while (isRunning && !isSendSuccessful)) and which a broker
// ignores when it is repeated (becomeLeaderOrFollower's epoch checks): its loss is a delay.
// A response already in flight is not lost later; losing it at once (x = 1) reaches the same
// states, as no step reads a response but its delivery.
func (m *Model) controlLossSteps(g *gen, b int) {
	s := g.s
	if !m.cp() {
		return
	}
	budget := m.budget(s, FaultControlLoss)
	if !budget && !g.cutOn {
		return
	}
	for i := 0; i < int(s.CP.N); i++ {
		j := s.Net.findAlter(uint8(b), uint8(i)+1)
		if j < 0 {
			continue
		}
		if !budget {
			g.cutStep(act(KindNetworkLoseControlMessage, b, 0), BoundControlLoss)
			return
		}
		t := g.emit(act(KindNetworkLoseControlMessage, b, 0))
		t.Used[FaultControlLoss]++
		t.Net.Msgs[j].End = 0
		t.Net.resort(j)

		t = g.emit(act(KindNetworkLoseControlMessage, b, 1))
		t.Used[FaultControlLoss]++
		req := t.Net.Msgs[j]
		m.cpAlterPartition(t, i, j)
		if k := t.Net.find(MsgAlterPartitionResponse, CtrlID, uint8(b)); k >= 0 {
			t.Net.remove(k)
		}
		req.End = 0
		t.Net.add(req)
		return
	}
}
