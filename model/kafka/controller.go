package kafka

// The controller: one, always correct (no failover yet). It handles broker failure and
// startup, elects leaders from the live ISR, validates AlterPartition and sends
// LeaderAndIsr. Its state is the Controller struct, kept apart so that a later model can
// add controller incarnations, a metadata store with zkVersion and controller epochs.
//
// Kafka: core/src/main/scala/kafka/controller/KafkaController.scala (ZooKeeper mode, the
// releases up to 3.9.x) and metadata/src/main/java/org/apache/kafka/controller/
// ReplicationControlManager.java (KRaft, the 4.x releases, whose only controller it is).
// Where they differ the release decides (Profile.ZooKeeper): the ZooKeeper controller bumps
// the leader epoch when it removes a replica from the ISR (ReplicaStateMachine.
// doRemoveReplicasFromIsr -> LeaderAndIsr.newLeaderAndIsr, 3.9.0 lines 330-350) and checks no
// ISR member's broker epoch; KRaft at metadata version 3.6 and later bumps only the
// partition epoch (KAFKA-15021) and checks the joiner's (KIP-903).
//
// The controller acts on its own view of the brokers (Controller.Live), which lags: a broker
// that crashed is live to it until ControllerHandleBrokerFailure, and one that restarted is
// the old incarnation until ControllerHandleBrokerStartup. It may so elect a broker that is
// down or has restarted (a preferred election, a leader change, another broker's failure),
// as Kafka's controller does from controllerContext (KafkaController.processBrokerChange
// handles a bounced broker only when its BrokerChange event comes). From 2.2.0 (KIP-380) the
// LeaderAndIsr it sends then carries the broker epoch of the old incarnation and the
// restarted broker refuses it (STALE_BROKER_EPOCH); the model sends no LeaderAndIsr to a
// broker that is down or restarted and not yet handled, as its delivery would be refused
// (before 2.2.0 it is sent, and the new incarnation applies it).

// controllerSteps generates the controller's steps that concern broker b.
func (m *Model) controllerSteps(g *gen, b int) {
	if m.cp() || m.kraft() {
		return // the control plane's controllers instead (controlplane.go, kraft.go)
	}
	s := g.s
	c := &s.Ctrl
	// ControllerHandleAlterPartition(b).
	if i := s.Net.find(MsgAlterPartition, uint8(b), CtrlID); i >= 0 {
		t := g.emit(act1(KindControllerHandleAlterPartition, b))
		m.handleAlterPartition(t, i)
	}
	r := &s.B[b]
	// ControllerHandleBrokerFailure(b). Kafka: KafkaController.onBrokerFailure ->
	// onReplicasBecomeOffline (KRaft: ReplicationControlManager.handleBrokerFenced).
	if has(c.Live, b) && !r.Alive {
		g.branch(act1(KindControllerHandleBrokerFailure, b), func(t *State) bool {
			nc, ok := m.brokerFailed(g, t, *c, b)
			if ok {
				m.publish(t, nc, *c)
			}
			return ok
		})
	}
	// ControllerHandleBrokerStartup(b). Kafka: KafkaController.onBrokerStartup (a broker
	// that restarted before its failure was seen is "bounced": onBrokerFailure first); an
	// offline partition whose ISR holds b elects it (OnlinePartition transition); b gets
	// the partition's LeaderAndIsr.
	if r.Alive && r.Register {
		g.branch(act1(KindControllerHandleBrokerStartup, b), func(t *State) bool {
			nc, ok := *c, true
			if has(nc.Live, b) {
				if nc, ok = m.brokerFailed(g, t, nc, b); !ok {
					return false
				}
			}
			nc.Live |= bit(b)
			nc.BEpoch[b]++
			if nc.Leader == 0 && (has(nc.ISR, b) || m.C.UncleanElection) {
				if int(nc.Epoch) >= m.C.MaxEpoch {
					return false
				}
				if !has(nc.ISR, b) {
					nc.ISR = bit(b) // unclean election (mechanisms.go)
				}
				nc.Leader = uint8(b) + 1
				nc.Epoch++
				nc.PEpoch++
			}
			t.B[b].Register = false
			m.publish(t, nc, *c)
			t.Net.sendLeaderAndIsr(leaderAndIsr(&nc, b))
			return true
		})
	}
}

// brokerFailed is the controller c after it handles broker b's failure in successor t,
// and false when that needs a leader epoch above max_epoch (the step is then cut). If b
// led the partition, the new leader is the first live ISR member in assignment order
// (PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection, unclean election
// disabled; g.first: with the order open, each that can come first), or none; b leaves
// the ISR unless it is its last member (ZooKeeper removeReplicasFromIsr; KRaft keeps the
// ISR non-empty).
func (m *Model) brokerFailed(g *gen, t *State, c Controller, b int) (Controller, bool) {
	c.Live &^= bit(b)
	c.Shut &^= bit(b) // onBrokerFailure: no longer shutting down
	if c.Leader == uint8(b)+1 {
		if int(c.Epoch) >= m.C.MaxEpoch {
			return c, false
		}
		c.Leader = 0
		if cand := c.ISR & c.Live &^ c.Shut &^ bit(b); cand != 0 {
			c.Leader = uint8(g.first(t, cand)) + 1
		}
		c.Epoch++
		c.PEpoch++
		if c.Leader == 0 && m.C.UncleanElection {
			if u := m.uncleanLeader(g, t, c.Live&^c.Shut); u != 0 {
				c.Leader, c.ISR = uint8(lowest(u))+1, u
				return c, true
			}
		}
	} else if !has(c.ISR, b) {
		return c, true
	} else {
		if m.p.ZooKeeper && c.ISR != bit(b) {
			// ZooKeeper: OfflineReplica -> doRemoveReplicasFromIsr writes
			// newLeaderAndIsr(leader, isr without b): leader epoch + 1 (LeaderAndIsr.scala
			// 3.9.0 lines 65-66), zkVersion + 1. KRaft bumps only the partition epoch.
			if int(c.Epoch) >= m.C.MaxEpoch {
				return c, false
			}
			c.Epoch++
		}
		c.PEpoch++
	}
	if c.ISR != bit(b) {
		c.ISR &^= bit(b)
	}
	return c, true
}

// publish installs controller state nc in t and, when the partition changed, sends
// LeaderAndIsr to every live broker.
func (m *Model) publish(t *State, nc, old Controller) {
	t.Ctrl = nc
	if nc.Leader == old.Leader && nc.Epoch == old.Epoch && nc.PEpoch == old.PEpoch && nc.ISR == old.ISR {
		return
	}
	for f := 0; f < m.nb(); f++ {
		if has(nc.Live, f) && !m.staleBrokerEpoch(t, f) && !t.closing(f) {
			t.Net.sendLeaderAndIsr(leaderAndIsr(&nc, f))
		}
	}
}

// staleBrokerEpoch reports whether a LeaderAndIsr from the single controller to broker f
// would carry a broker epoch older than f's registration and be refused (KIP-380): f is
// down (its next incarnation will refuse it; a crash drops what is in flight) or restarted
// and not yet handled by ControllerHandleBrokerStartup (Replica.Register). Such a request is
// not sent: its delivery is a no-op. With the guard LeaderAndIsrBrokerEpoch off, or before
// 2.2.0, it is sent and applied.
func (m *Model) staleBrokerEpoch(t *State, f int) bool {
	r := &t.B[f]
	return m.kip380() && (!r.Alive || r.Register)
}

// kip380 reports whether brokers refuse a LeaderAndIsr with a stale broker epoch: the
// release has KIP-380 and the guard LeaderAndIsrBrokerEpoch is on.
func (m *Model) kip380() bool { return m.p.KIP380 && !m.mutated(GuardLeaderAndIsrBrokerEpoch) }

func leaderAndIsr(c *Controller, to int) Msg {
	return Msg{Kind: MsgLeaderAndIsr, From: CtrlID, To: uint8(to), Epoch: c.Epoch, Off: c.PEpoch, Last: c.Leader, HW: c.ISR}
}

// handleAlterPartition validates the AlterPartition at index i and answers it.
// Kafka: ReplicationControlManager.validateAlterPartitionData, in its order: leader epoch
// below the controller's: FENCED_LEADER_EPOCH; not from the leader: INVALID_REQUEST;
// partition epoch below: INVALID_UPDATE_VERSION; an ISR without the leader:
// INVALID_REQUEST; an ISR member that is not live (fenced), or a joining member whose broker
// epoch (from its fetch) is not its current registration's (KIP-903): INELIGIBLE_REPLICA. (A request
// ahead of the controller, NOT_CONTROLLER, cannot happen with one correct controller.)
// On success the ISR is committed with partition epoch + 1.
func (m *Model) handleAlterPartition(t *State, i int) {
	req := t.Net.Msgs[i]
	t.Net.remove(i)
	c := &t.Ctrl
	resp := Msg{Kind: MsgAlterPartitionResponse, From: CtrlID, To: req.From}
	switch {
	case req.Epoch < c.Epoch && !m.off(GuardAlterPartitionLeaderEpoch):
		resp.Err = ErrFencedLeaderEpoch
	case c.Leader != req.From+1:
		resp.Err = ErrInvalidRequest
	case req.Off < c.PEpoch && !m.off(GuardAlterPartitionPartitionEpoch):
		resp.Err = ErrInvalidUpdateVersion
	case !has(req.HW, int(req.From)):
		resp.Err = ErrInvalidRequest
	case m.p.AlterValidation33 && req.HW&^(c.Live&^c.Shut) != 0:
		resp.Err = ErrIneligibleReplica // KIP-841, KAFKA-14140 (3.3.0): not live, or shutting down
	case m.p.KIP903 && !m.p.ZooKeeper && req.DivE != 0 && c.BEpoch[req.DivO] != req.DivE && !m.off(GuardAlterPartitionBrokerEpoch):
		// KIP-903 (3.5.0), KRaft's controller only: the joiner's broker epoch is stale. The
		// ZooKeeper controller keeps only the members' ids (tryProcessAlterPartition, 3.9.0
		// lines 2369-2373). KRaft checks every member whose epoch the leader knows; in the
		// model a member of the committed ISR cannot have registered again since its last
		// fetch from this leader without a partition change (fencing or the registration
		// removes it from the ISR), which fails the partition-epoch check first.
		resp.Err = ErrIneligibleReplica
	default:
		if req.HW != c.ISR {
			c.ISR = req.HW
			c.PEpoch++
		}
		resp.Epoch, resp.Off, resp.HW = c.Epoch, c.PEpoch, c.ISR
	}
	t.Net.add(resp)
}

// moveLeaderSteps generates ControllerMoveLeader(b), the fault "leader_change": an
// operator-triggered leader change to ISR member b, live in the controller's view (Kafka:
// a reassignment's election, PartitionLeaderElectionAlgorithms.
// reassignPartitionLeaderElection, or a preferred election after the assignment put b
// first: Election.leaderForPreferredReplica reads isReplicaOnline from controllerContext;
// KRaft ElectLeaders), bumping the leader epoch.
func (m *Model) moveLeaderSteps(g *gen, b int) {
	s := g.s
	c := s.Ctrl
	budget := m.budget(s, FaultLeaderChange)
	if (!budget && !g.cutOn) || m.cp() || m.kraft() || c.Leader == 0 || c.Leader == uint8(b)+1 ||
		!has(c.ISR, b) || !has(c.Live&^c.Shut, b) {
		return // the controller's view: b may be down or restarted (staleBrokerEpoch)
	}
	if !budget {
		g.cutStep(act1(KindControllerMoveLeader, b), BoundLeaderChange)
		return
	}
	if int(c.Epoch) >= m.C.MaxEpoch {
		g.cutStep(act1(KindControllerMoveLeader, b), BoundMaxEpoch)
		return
	}
	t := g.emit(act1(KindControllerMoveLeader, b))
	t.Used[FaultLeaderChange]++
	nc := c
	nc.Leader, nc.Epoch, nc.PEpoch = uint8(b)+1, c.Epoch+1, c.PEpoch+1
	m.publish(t, nc, c)
}

// faultSteps generates the faults that concern broker b.
func (m *Model) faultSteps(g *gen, b int) {
	m.shrinkSteps(g, b)
	m.moveLeaderSteps(g, b)
	m.crashSteps(g, b)
	m.lossSteps(g, b)
	m.mechanismSteps(g, b)
}
