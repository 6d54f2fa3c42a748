package kafka

import "strconv"

// The model's named protocol guards: each is a condition of Kafka's code that refuses a step
// (or a part of one) to prevent a known hazard. A mutation turns one off (Config.Mutate):
// the step is then taken where the guard would have refused it, so that a check shows
// whether some property depends on the guard (kmc mutate). The actions read a guard only
// where its condition fails, as one AND of Config.Mutate (Model.off): the normal path costs
// nothing.

// Guard is the index of a named guard in Guards.
type Guard uint8

// The guards, in Guards order.
const (
	GuardAppendMinISR Guard = iota
	GuardFetchLeaderEpoch
	GuardFetchDivergence
	GuardISRJoinHW
	GuardISRJoinLESO
	GuardFetchResponseOffset
	GuardFetchResponseEpoch
	GuardFetcherNewEpoch
	GuardLeaderAndIsrEpoch
	GuardAlterPartitionLeaderEpoch
	GuardAlterPartitionPartitionEpoch
	GuardAlterPartitionBrokerEpoch
	GuardAlterPartitionResponseEpoch
	GuardStaleControllerEpoch
	GuardZkVersion
	GuardAckMinISR
	GuardLeaderAndIsrBrokerEpoch
	// The KRaft control plane's guards (model/kafka/kraft.go; kraft_guards.go says where each has
	// a code path).
	GuardKRaftAlterPartitionLeaderEpoch
	GuardKRaftAlterPartitionPartitionEpoch
	GuardKRaftAlterPartitionEligible
	GuardKRaftAlterPartitionBrokerEpoch
	GuardKRaftReplayPartitionEpoch
	GuardKRaftReplayCatchUp
	GuardKRaftUnfenceCatchUp
	GuardKRaftRegisterIncarnation
	GuardKRaftELRActive
	GuardKRaftELRUncleanShutdown
	NumGuards
)

// GuardInfo names a guard: Doc says what it refuses and the hazard it prevents, Kafka the
// function and condition of Kafka's code (3.9 unless the guard came later) it follows.
type GuardInfo struct {
	Name, Doc, Kafka string
}

// Guards is the table of the model's guards, indexed by Guard.
var Guards = [NumGuards]GuardInfo{
	GuardAppendMinISR: {"AppendMinISR",
		"the leader refuses an acks=all write while its ISR is below min.insync.replicas (an acknowledged record on too few replicas)",
		"Partition.appendRecordsToLeader: inSyncSize < minIsr && requiredAcks == -1 -> NOT_ENOUGH_REPLICAS"},
	GuardFetchLeaderEpoch: {"FetchLeaderEpoch",
		"the leader serves a fetch or OffsetsForLeaderEpoch request only in its own leader epoch (a fenced follower reading a newer or older leader's log)",
		"Partition.checkCurrentLeaderEpoch (KIP-320): localLeaderEpoch > remote -> FENCED_LEADER_EPOCH, < -> UNKNOWN_LEADER_EPOCH"},
	GuardFetchDivergence: {"FetchDivergence",
		"the leader answers a fetch whose lastFetchedEpoch ends elsewhere in its log with a diverging epoch instead of records (a follower appending after a divergent prefix)",
		"Partition.fetchRecords: epochEndOffset.leaderEpoch < fetchEpoch || epochEndOffset.endOffset < fetchOffset -> divergingEpoch"},
	GuardISRJoinHW: {"ISRJoinHW",
		"a follower joins the ISR only when its log end offset is at least the leader's high watermark (an ISR member missing committed records)",
		"Partition.isFollowerInSync: followerEndOffset >= leaderLog.highWatermark"},
	GuardISRJoinLESO: {"ISRJoinLESO",
		"a follower joins the ISR only when its log end offset is at least the leader epoch's start offset (KAFKA-7128: a follower that may still truncate)",
		"Partition.isFollowerInSync: leaderEpochStartOffsetOpt.exists(followerEndOffset >= _)"},
	GuardFetchResponseOffset: {"FetchResponseOffset",
		"the follower uses a fetch response only for its current fetch offset and leader (records appended at the wrong offset)",
		"AbstractFetcherThread.processFetchRequest: fetchPartitionData.fetchOffset == currentFetchState.fetchOffset"},
	GuardFetchResponseEpoch: {"FetchResponseEpoch",
		"the follower uses a fetch response only if its request was made in the current leader epoch (KAFKA-18991: a stale response rewriting the epoch cache)",
		"AbstractFetcherThread.processFetchRequest (4.1, PR 19223): currentFetchState.currentLeaderEpoch == the request's"},
	GuardFetcherNewEpoch: {"FetcherNewEpoch",
		"a follower's fetcher is re-added (fetch state reset, response in flight dropped) only for a new leader or leader epoch",
		"ReplicaManager.applyLocalFollowersDelta / makeFollowers: isNewLeaderEpoch -> partitionsToStartFetching"},
	GuardLeaderAndIsrEpoch: {"LeaderAndIsrEpoch",
		"a broker ignores a LeaderAndIsr whose leader epoch (or, at an equal epoch, partition epoch) is not newer than its own (stale metadata)",
		"ReplicaManager.becomeLeaderOrFollower: requestLeaderEpoch > currentLeaderEpoch; Partition.makeLeader/makeFollower: partitionEpoch"},
	GuardAlterPartitionLeaderEpoch: {"AlterPartitionLeaderEpoch",
		"the controller rejects an AlterPartition from an older leader epoch (a deposed leader changing the ISR)",
		"ReplicationControlManager.validateAlterPartitionData: leaderEpoch < partition.leaderEpoch -> FENCED_LEADER_EPOCH"},
	GuardAlterPartitionPartitionEpoch: {"AlterPartitionPartitionEpoch",
		"the controller rejects an AlterPartition based on an older partition epoch (an ISR change that undoes a newer one)",
		"ReplicationControlManager.validateAlterPartitionData: partitionEpoch < partition.partitionEpoch -> INVALID_UPDATE_VERSION"},
	GuardAlterPartitionBrokerEpoch: {"AlterPartitionBrokerEpoch",
		"the controller rejects an ISR join whose broker epoch is not the joiner's current registration (KIP-903: a replica that lost its log after the fetch)",
		"ReplicationControlManager.ineligibleReplicasForIsr: registration.epoch() != brokerState.brokerEpoch() -> INELIGIBLE_REPLICA"},
	GuardAlterPartitionResponseEpoch: {"AlterPartitionResponseEpoch",
		"the leader applies an AlterPartition response only in its leader epoch and at no older partition epoch (a stale ISR)",
		"Partition.handleAlterPartitionUpdate: leaderAndIsr.leaderEpoch != leaderEpoch, leaderAndIsr.partitionEpoch < partitionEpoch"},
	GuardStaleControllerEpoch: {"StaleControllerEpoch",
		"a broker rejects a LeaderAndIsr from a controller epoch below the highest it has seen (a zombie controller's decisions)",
		"ReplicaManager.becomeLeaderOrFollower: controllerEpoch < this.controllerEpoch -> STALE_CONTROLLER_EPOCH"},
	GuardZkVersion: {"ZkVersion",
		"a write of the partition state succeeds only at the zkVersion the writer read (a lost update of leader and ISR)",
		"KafkaZkClient.updateLeaderAndIsr: SetDataRequest(path, data, leaderAndIsr.partitionEpoch) -> BADVERSION"},
	GuardAckMinISR: {"AckMinISR",
		"the leader acknowledges an acks=all write the high watermark passed only if its maximal ISR still has min.insync.replicas members (an acknowledged record on too few replicas after an ISR shrink)",
		"Partition.checkEnoughReplicasReachOffset: minIsr <= curMaximalIsr.size, else NOT_ENOUGH_REPLICAS_AFTER_APPEND"},
	GuardLeaderAndIsrBrokerEpoch: {"LeaderAndIsrBrokerEpoch",
		"a broker refuses a LeaderAndIsr stamped with a broker epoch older than its registration's (a restarted broker leading on the strength of a controller view from before its restart)",
		"KafkaApis.handleLeaderAndIsrRequest: isBrokerEpochStale(brokerEpochInRequest < controller.brokerEpoch) -> STALE_BROKER_EPOCH (KIP-380, 2.2.0)"},
	GuardKRaftAlterPartitionLeaderEpoch: {"KRaftAlterPartitionLeaderEpoch",
		"the active controller rejects an AlterPartition from an older leader epoch (without the KAFKA-14154 fix: any other epoch) (a deposed leader changing the ISR)",
		"ReplicationControlManager.validateAlterPartitionData: partitionData.leaderEpoch() < partition.leaderEpoch -> FENCED_LEADER_EPOCH"},
	GuardKRaftAlterPartitionPartitionEpoch: {"KRaftAlterPartitionPartitionEpoch",
		"the active controller rejects an AlterPartition based on an older partition epoch (without the KAFKA-14154 fix: any other) (an ISR change that undoes a newer one)",
		"ReplicationControlManager.validateAlterPartitionData: partitionData.partitionEpoch() < partition.partitionEpoch -> INVALID_UPDATE_VERSION"},
	GuardKRaftAlterPartitionEligible: {"KRaftAlterPartitionEligible",
		"the active controller rejects an ISR with a member that is fenced, in controlled shutdown or not registered (a replica that may have lost its log joining the ISR)",
		"ReplicationControlManager.ineligibleReplicasForIsr: registration == null, inControlledShutdown(), fenced() -> INELIGIBLE_REPLICA"},
	GuardKRaftAlterPartitionBrokerEpoch: {"KRaftAlterPartitionBrokerEpoch",
		"the active controller rejects an ISR join whose broker epoch (from its fetch) is not the joiner's registration (KIP-903: a replica that restarted after the fetch)",
		"ReplicationControlManager.ineligibleReplicasForIsr: brokerState.brokerEpoch() != -1 && registration.epoch() != brokerState.brokerEpoch() -> INELIGIBLE_REPLICA"},
	GuardKRaftReplayPartitionEpoch: {"KRaftReplayPartitionEpoch",
		"a broker replaying a PartitionChangeRecord skips it at an older leader epoch, or the same one and no newer partition epoch (an AlterPartition response applied first: a stale ISR or a pending one's state reset); Kafka skips only an older partition epoch",
		"ReplicaManager.applyLocalLeadersDelta / applyLocalFollowersDelta -> Partition.makeLeader / makeFollower: partitionState.partitionEpoch < partitionEpoch -> skipped"},
	GuardKRaftReplayCatchUp: {"KRaftReplayCatchUp",
		"a restarted broker acts on its metadata image only once it has replayed the log up to its own registration (a stale image making it leader or follower of an old epoch)",
		"BrokerServer.startup: waits for lifecycleManager.initialCatchUpFuture (BrokerLifecycleManager: heartbeat response isCaughtUp) and the first metadata publish"},
	GuardKRaftUnfenceCatchUp: {"KRaftUnfenceCatchUp",
		"the controller unfences a broker only once its heartbeat's metadata offset reaches its RegisterBrokerRecord (an unfenced broker acting on a stale image)",
		"BrokerHeartbeatManager.calculateNextBrokerState: FENCED, request.currentMetadataOffset() >= registerBrokerRecordOffset -> UNFENCED"},
	GuardKRaftRegisterIncarnation: {"KRaftRegisterIncarnation",
		"the controller refuses a new incarnation's registration while the old one's session is valid (the restarted broker keeps its ISR membership and leadership unfenced by any record)",
		"ClusterControlManager.registerBroker: heartbeatManager.hasValidSession(brokerId) && !request.incarnationId().equals(prevIncarnationId) -> DuplicateBrokerRegistrationException"},
	GuardKRaftELRActive: {"KRaftELRActive",
		"an ELR member is elected leader only when it is active: unfenced and not in controlled shutdown (KIP-966: a replica down or not caught up elected)",
		"PartitionChangeBuilder.isValidNewLeader: targetIsr.isEmpty() && targetElr.contains(replica) && isAcceptableLeader.test(replica) (clusterControl.isActive)"},
	GuardKRaftELRUncleanShutdown: {"KRaftELRUncleanShutdown",
		"a broker's new incarnation leaves the ISR and the ELR before it registers (KIP-966: a replica that lost its unflushed records electable from the ELR)",
		"ReplicationControlManager.handleBrokerUncleanShutdown (QuorumController.registerBroker): brokerWithUncleanShutdown leaves ISR and ELR, isAcceptableLeader excludes it"},
}

// GuardBit is the bit of Config.Mutate that turns guard g off.
func GuardBit(g Guard) uint32 { return 1 << g }

// off reports whether guard g is turned off (a mutation); read only where g's condition
// fails.
// Each read counts a refusal by g while counting is on (switches.go: CountBranches).
func (m *Model) off(g Guard) bool {
	m.guardHit(g)
	return m.C.Mutate&(1<<g) != 0
}

// mutated reports whether guard g is turned off, where the caller reads it beside its
// condition rather than where the condition fails: not counted.
func (m *Model) mutated(g Guard) bool { return m.C.Mutate&(1<<g) != 0 }

// guardIn says why guard g has no code path in configuration c (its mechanism is not in
// the version, or needs the control plane), or "" when it has one.
func (c *Config) guardIn(g Guard, p *Profile) string {
	if why, ok := c.kraftGuardIn(g, p); ok {
		return why
	}
	switch g {
	case GuardFetchLeaderEpoch:
		if !p.KIP320 {
			return "needs KIP-320 (2.1)"
		}
	case GuardFetchDivergence:
		if p.Truncation != TruncDivergingEpoch {
			return "needs truncation by diverging epoch (2.8.0)"
		}
	case GuardISRJoinLESO:
		if !p.ISRJoinLESO {
			return "needs KAFKA-7128 (2.1)"
		}
	case GuardFetchResponseEpoch:
		if c.effective(p)&FixBit18991 == 0 {
			return "needs KAFKA-18991 (3.9.1, 4.0.1, 4.1.0)"
		}
	case GuardAlterPartitionLeaderEpoch, GuardAlterPartitionPartitionEpoch, GuardAlterPartitionResponseEpoch:
		if !p.AlterPartition {
			return "needs AlterPartition (KIP-497, 2.7)"
		}
	case GuardAlterPartitionBrokerEpoch:
		if !p.KIP903 || p.ZooKeeper {
			return "needs KIP-903 (3.5.0) and a KRaft controller (4.0.0 or later; the ZooKeeper controller checks no member's broker epoch)"
		}
	case GuardLeaderAndIsrBrokerEpoch:
		if !p.KIP380 {
			return "needs KIP-380 (2.2.0)"
		}
	case GuardStaleControllerEpoch, GuardZkVersion:
		if c.Controllers < 2 && (g == GuardStaleControllerEpoch || p.AlterPartition) {
			return "needs the control plane (controllers >= 2)"
		}
	}
	return ""
}

// validateMutate checks that every guard turned off exists and has a code path in c.
func (c *Config) validateMutate(p *Profile) error {
	for g := Guard(0); g < 32; g++ {
		if c.Mutate&(1<<g) == 0 {
			continue
		}
		if g >= NumGuards {
			return errString("model: mutate: no guard " + strconv.Itoa(int(g)))
		}
		if why := c.guardIn(g, p); why != "" {
			return errString("model: mutate: guard " + Guards[g].Name + " " + why + "; version " + p.Name)
		}
	}
	return nil
}
