package kafka

// A broker's clean shutdown, in the steps other actions interleave with, as Kafka runs it:
// KafkaServer.shutdown (ZooKeeper mode) and BrokerServer.shutdown (KRaft). The lines cited
// are of 3.9.1 (BrokerServer.scala) and 3.9.0 (KafkaServer.scala) unless named.
//
//  1. Controlled shutdown (the fault controlled_shutdown): the broker asks the controller to
//     move its leaderships away and to drop it from the ISR (ZooKeeper: KafkaServer.
//     controlledShutdown -> KafkaController.doControlledShutdown; KRaft: a heartbeat with
//     wantShutDown -> BrokerHeartbeatManager.calculateNextBrokerState ->
//     ReplicationControlManager.handleBrokerInControlledShutdown). The broker still runs and
//     serves (Replica.Shut = ShutRequested), and applies the partition state the controller
//     sends it: it may follow the new leaders and fetch. KRaft's controller then grants
//     SHUTDOWN_NOW and fences the broker once it leads nothing and the active brokers have
//     replayed its records (ControllerGrantShutdown, kraft.go). A clean shutdown whose
//     controlled shutdown did not complete (the fault crash) skips this step.
//  2. BrokerBeginShutdown(b): request processing stops (socketServer.stopProcessingRequests,
//     the request handler pools; KRaft also removes the metadata publishers: BrokerServer
//     642-647) and then the scheduler (kafkaScheduler.shutdown, BrokerServer 663, KafkaServer
//     1014). KafkaScheduler.shutdown waits for the tasks already queued: on a JDK of 9 or
//     later ScheduledThreadPoolExecutor runs a queued task whose delay has passed even with
//     executeExistingDelayedTasksAfterShutdown off (measured on OpenJDK 17.0.15), so every
//     pending checkpoint write of an earlier truncation runs. The broker is now
//     Replica.Shut = ShutClosing: it answers no request (in-flight requests to it and
//     responses it has not sent are dropped: its connections close), applies no
//     LeaderAndIsr or metadata, but its fetcher threads run on. A truncation they make now
//     schedules its checkpoint write on the stopped scheduler, which drops it ("Kafka
//     scheduler is not running ... The task is ignored", KafkaScheduler.schedule 162-165).
//  3. BrokerStop(b): replicaManager.shutdown stops the fetchers (BrokerServer 677,
//     KafkaServer 1033), logManager.shutdown flushes and closes the logs and writes the
//     clean-shutdown marker, from 4.0 with the broker epoch (.kafka_cleanshutdown,
//     Replica.Clean); nothing rewrites the leader-epoch checkpoint at close
//     (UnifiedLog.close). The broker is down; its restart loads what is on disk.
//
// Before 3.8 every checkpoint write is synchronous (Profile.AsyncTruncFlush): steps 2 and 3
// are one step (what the fetchers do in the window is what they could do before it).

// Shutdown states of a replica (Replica.Shut).
const (
	ShutNone      uint8 = iota // running
	ShutRequested              // controlled shutdown acknowledged: still serving
	ShutClosing                // requests and scheduler stopped: only the fetchers run
	ShutStarting               // KRaft: restarted, not yet unfenced: serves no request
)

// shutStates reports whether a broker can be mid-shutdown in this configuration: only then
// does the encoding hold the shutdown states.
func (m *Model) shutStates() bool {
	return m.C.ControlledShutdown > 0 || (m.C.Crash > 0 && m.p.AsyncTruncFlush)
}

// encShut reports whether the encoding holds the shutdown states: mid-shutdown brokers
// (shutStates), KRaft's restarted brokers that serve nothing yet, or the clean-shutdown
// files KRaft reads from 4.0.
func (m *Model) encShut() bool { return m.shutStates() || m.kraft() }

// beginShutdown is step 2 for broker b: with the asynchronous checkpoint writes of 3.8 and
// later the broker enters ShutClosing, else it stops at once (stopClean).
func (m *Model) beginShutdown(t *State, b int) {
	if !m.p.AsyncTruncFlush {
		m.stopClean(t, b)
		return
	}
	r := &t.B[b]
	r.Shut = ShutClosing
	// The scheduler's shutdown runs the queued checkpoint writes: the file is the cache.
	r.clearStale()
	t.Net.dropServed(uint8(b))
}

// stopClean is step 3 for broker b: it stops with its log flushed and the clean-shutdown
// marker written; the checkpoint file holds the cache and the entries of every truncation
// whose write the stopped scheduler dropped.
func (m *Model) stopClean(t *State, b int) {
	r := &t.B[b]
	registered := !r.Register
	if m.on(Kafka16541CloseFlush) {
		if r.NStale > 0 {
			m.hit(Kafka16541CloseFlush.Branch(0))
		}
		r.clearStale() // the proposal: the close writes the cache
	}
	m.stop(t, b, r.NCache+r.NStale, 0, r.LEO, false)
	// The clean-shutdown file holds the broker epoch of the registration it stopped with
	// (BrokerServer.shutdown: logManager.shutdown(lifecycleManager.brokerEpoch)), -1 when it
	// stopped before its registration was accepted; the next registration is clean only when
	// that epoch is the controller's stored one (ClusterControlManager.registerBroker,
	// 4.1.1 lines 434-435). Read only by a KRaft registration from 4.0 (krRegister);
	// elsewhere not kept, so that it splits no states.
	t.B[b].Clean = m.kraft() && m.p.CleanShutdownDetection && registered
}

// closing reports whether broker b is up but no longer serves: it is shutting down and its
// connections closed.
func (s *State) closing(b int) bool { return s.B[b].Shut == ShutClosing }

// serving reports whether broker b is up and answers requests: not closing, and with KRaft
// unfenced at least once since its restart (ShutStarting: BrokerServer.startup enables
// request processing only after the controller unfenced it).
func (s *State) serving(b int) bool {
	r := &s.B[b]
	return r.Alive && r.Shut != ShutClosing && r.Shut != ShutStarting
}

// dropServed removes what broker b, closing, will neither answer nor send: requests to it
// (fetches, OffsetsForLeaderEpoch, LeaderAndIsr) and the fetch-plane responses it built.
// Its own fetches as a follower, and the responses to them, stay: the fetcher threads use
// their own connections (NetworkClient).
func (n *Network) dropServed(b uint8) {
	for i := 0; i < int(n.Len); {
		g := &n.Msgs[i]
		served := g.To == b && (g.Kind == MsgFetch || g.Kind == MsgEpochRequest || g.Kind == MsgLeaderAndIsr)
		sent := g.From == b && (g.Kind == MsgFetchResponse || g.Kind == MsgEpochResponse)
		if served || sent {
			n.remove(i)
			continue
		}
		i++
	}
}

// shutdownSteps generates broker b's shutdown steps 2 and 3: BrokerBeginShutdown(b) after a
// controlled shutdown (with KRaft once the controller granted it: the broker is fenced),
// and BrokerStop(b). Both are protocol steps, weakly fair.
func (m *Model) shutdownSteps(g *gen, b int) {
	s := g.s
	r := &s.B[b]
	if !r.Alive {
		return
	}
	switch r.Shut {
	case ShutRequested:
		if m.kraft() && !has(s.KR.Fenced, b) {
			return // waits for SHUTDOWN_NOW (ControllerGrantShutdown)
		}
		t := g.emit(act1(KindBrokerBeginShutdown, b))
		m.beginShutdown(t, b)
	case ShutClosing:
		t := g.emit(act1(KindBrokerStop, b))
		m.stopClean(t, b)
	}
}

// controlledShutdownSteps generates BrokerControlledShutdown(b), the fault
// controlled_shutdown, with the single controller or the ZooKeeper plane (KRaft:
// krControlledShutdownSteps). The broker must be live in the controller's view and its
// registration read (doControlledShutdown refuses a stale broker epoch, KIP-380, and an
// unknown broker: BrokerNotAvailableException; the broker then shuts down anyway, which is
// the fault crash).
//   - The single controller (controlledShutdown): ZooKeeper's KafkaController.
//     doControlledShutdown (3.9.0 lines 1360-1409), or for 4.x KRaft's
//     handleBrokerInControlledShutdown. b then serves on (ShutRequested) and gets the
//     partition state like any live broker (LeaderAndIsr goes to liveOrShuttingDownBrokerIds,
//     ControllerChannelManager 528).
//   - The ZooKeeper plane (cpControlledShutdown): the controller that holds /controller
//     writes the store; the broker then begins its shutdown in the same step: the window in
//     which it follows the new leaders before it stops serving is not modelled with
//     controllers >= 2.
func (m *Model) controlledShutdownSteps(g *gen, b int) {
	s := g.s
	r := &s.B[b]
	if !r.Alive || r.Register || r.Shut != ShutNone || !has(s.Ctrl.Live, b) || has(s.Ctrl.Shut, b) ||
		(s.CP.hostsCurrent(b) && !m.C.ControllerHostCrash) || (m.cp() && m.kip380() && s.CP.staleView(int(s.CP.N)-1, b)) {
		return
	}
	a := act1(KindBrokerControlledShutdown, b)
	if !m.budget(s, FaultControlledShutdown) {
		g.cutStep(a, BoundControlledShutdown)
		return
	}
	g.branch(a, func(t *State) bool {
		t.Used[FaultControlledShutdown]++
		if m.cp() {
			if !m.cpControlledShutdown(g, t, b) {
				return false
			}
			m.beginShutdown(t, b)
			return true
		}
		nc, ok := m.controlledShutdown(g, t, s.Ctrl, b)
		if !ok {
			return false
		}
		t.B[b].Shut = ShutRequested
		if m.p.ZooKeeper && s.Ctrl.Leader != uint8(b)+1 && t.B[b].Role == RoleFollower {
			// A partition b follows: StopReplica (deletePartition = false) to b, which stops
			// its fetcher (KafkaController.doControlledShutdown, 3.9.0 line 1398); the model
			// applies it in this step.
			m.stopFetcher(t, b)
		}
		m.publish(t, nc, s.Ctrl)
		return true
	})
}

// controlledShutdown is the single controller c after it handles broker b's controlled
// shutdown in successor t, and false when that needs a leader epoch above max_epoch. b
// joins the shutting-down brokers (Controller.Shut: out of every election and ISR from now
// on, until its failure is handled).
//   - ZooKeeper (3.9.0 KafkaController.doControlledShutdown): a partition b leads moves to the
//     first ISR member that is live and not shutting down, with the ISR without the
//     shutting-down brokers and the leader epoch + 1 (Election.leaderForControlledShutdown,
//     ControlledShutdownPartitionLeaderElectionStrategy); with no such member nothing
//     changes (the partition stays b's: the broker's retries run out and it shuts down
//     anyway). A partition b follows goes to OfflineReplica: removeReplicasFromIsr, b leaves
//     the ISR (not its last member) with the leader epoch + 1.
//   - KRaft (4.x: handleBrokerInControlledShutdown, brokerToRemove = b): b leaves the ISR (not
//     its last member) and its leadership, which goes to the first acceptable ISR member or
//     to none; only a leader change bumps the leader epoch (metadata version 3.6 and later).
func (m *Model) controlledShutdown(g *gen, t *State, c Controller, b int) (Controller, bool) {
	c.Shut |= bit(b)
	eligible := c.Live &^ c.Shut
	if m.p.ZooKeeper {
		switch {
		case c.Leader == uint8(b)+1:
			cand := c.ISR & eligible
			if cand == 0 {
				return c, true
			}
			if int(c.Epoch) >= m.C.MaxEpoch {
				return c, false
			}
			c.Leader = uint8(g.first(t, cand)) + 1
			c.ISR &^= c.Shut
		case has(c.ISR, b) && c.ISR != bit(b):
			if int(c.Epoch) >= m.C.MaxEpoch {
				return c, false
			}
			c.ISR &^= bit(b)
		default:
			return c, true
		}
		c.Epoch++
		c.PEpoch++
		return c, true
	}
	changed := false
	if c.Leader == uint8(b)+1 {
		if int(c.Epoch) >= m.C.MaxEpoch {
			return c, false
		}
		c.Leader = 0
		if cand := c.ISR & eligible; cand != 0 {
			c.Leader = uint8(g.first(t, cand)) + 1
		}
		c.Epoch++
		changed = true
	}
	if has(c.ISR, b) && c.ISR != bit(b) {
		c.ISR &^= bit(b)
		changed = true
	}
	if changed {
		c.PEpoch++
	}
	return c, true
}
