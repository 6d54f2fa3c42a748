package vanlightly

import "strconv"

// The port's named guards (kmc mutate, issue 16): conjuncts of the module's actions that
// keep a known hazard out: the ones Vanlightly marks `\* CHECK` in
// kafka_replication_v3_5_simple.tla (he removes them by hand to see the invariants fail),
// and the others that model a fencing or ordering test of Kafka 3.5. A mutation turns one
// off (Config.Mutate): the action is then enabled, or takes the branch, where the conjunct
// would have refused it, as if the conjunct were deleted from the module. Each is read
// only where its conjunct is false (FetcherNewEpoch, a disjunct that triggers a fetcher
// reset, only where it is true), so the normal path costs nothing.

// Guard is the index of a named guard in Guards.
type Guard uint8

// The guards, in Guards order.
const (
	GuardFetcherNewEpoch Guard = iota
	GuardMetadataPartitionEpoch
	GuardISRJoinHW
	GuardISRJoinLeaderEpochStart
	GuardAlterPartitionLeader
	GuardAlterPartitionBrokerEpoch
	GuardAlterPartitionPartitionEpoch
	GuardAlterPartitionLeaderEpoch
	GuardIsrMemberUnfenced
	GuardIsrMemberBrokerEpoch
	GuardAPResponseMatchesRequest
	GuardAPResponsePartitionEpoch
	GuardFetchFromLeader
	GuardFetchLeaderEpoch
	GuardFetchResponseOffset
	GuardFetchResponseLeo
	GuardRegistrationIncarnation
	GuardWriteMinIsr
	NumGuards
)

// GuardInfo names a guard: Doc says what it refuses, TLA the action and conjunct of
// kafka_replication_v3_5_simple.tla it is (with Vanlightly's mark, if any), Kafka the
// function of Kafka 3.5.0 and the condition it models.
type GuardInfo struct{ Name, Doc, TLA, Kafka string }

// Guards is the table of the port's guards, indexed by Guard.
var Guards = [NumGuards]GuardInfo{
	GuardFetcherNewEpoch: {"FetcherNewEpoch",
		"a follower restarts its fetcher (at its LEO and last epoch) on every new leader epoch, not only when the partition is not yet added",
		`AddPartitionToFetcher: leader_epoch > PartitionMetadata(b).leader_epoch (\* CHECK)`,
		"ReplicaManager.applyLocalFollowersDelta: restarts fetching when Partition.makeFollower returns isNewLeaderEpoch = partitionState.leaderEpoch > leaderEpoch"},
	GuardMetadataPartitionEpoch: {"MetadataPartitionEpoch",
		"a broker applies a PartitionChangeRecord only if its partition epoch is above the one it holds",
		"ReceiveMetadataUpdate: new_part_md.partition_epoch > curr_part_md.partition_epoch (else MetadataNoOp)",
		"Partition.makeLeader/makeFollower: skip the change when partitionState.partitionEpoch < partitionEpoch"},
	GuardISRJoinHW: {"ISRJoinHW",
		"the leader proposes a follower for the ISR only once its LEO reached the high watermark",
		"SendAlterPartitionRequest, FollowerIsCaughtUp: follower_leo >= HwmOf(b)",
		"Partition.isFollowerInSync: followerEndOffset >= leaderLog.highWatermark"},
	GuardISRJoinLeaderEpochStart: {"ISRJoinLeaderEpochStart",
		"the leader proposes a follower for the ISR only once its LEO reached the leader epoch's start offset",
		"SendAlterPartitionRequest, FollowerIsCaughtUp: follower_leo >= partition_leso[b]",
		"Partition.isFollowerInSync: leaderEpochStartOffsetOpt.exists(followerEndOffset >= _)"},
	GuardAlterPartitionLeader: {"AlterPartitionLeader",
		"the controller accepts an AlterPartition request only from the partition's leader",
		"ReceiveAlterPartitionRequest, ValidateRequest: b = con_partition_metadata.leader",
		"ReplicationControlManager.validateAlterPartitionData: brokerId != partition.leader gives INVALID_REQUEST"},
	GuardAlterPartitionBrokerEpoch: {"AlterPartitionBrokerEpoch",
		"the controller accepts an AlterPartition request only with the leader's registered broker epoch",
		`ReceiveAlterPartitionRequest, ValidateRequest: m.broker_epoch = con_broker_reg[b].broker_epoch (\* CHECK OK?)`,
		"ReplicationControlManager.alterPartition: clusterControl.checkBrokerEpoch(brokerId, brokerEpoch) gives STALE_BROKER_EPOCH"},
	GuardAlterPartitionPartitionEpoch: {"AlterPartitionPartitionEpoch",
		"the controller accepts an AlterPartition request only at the current partition epoch",
		`ReceiveAlterPartitionRequest, ValidateRequest: m.partition_epoch = con_partition_metadata.partition_epoch (\* CHECK FAIL)`,
		"ReplicationControlManager.validateAlterPartitionData: partitionData.partitionEpoch() < partition.partitionEpoch gives INVALID_UPDATE_VERSION"},
	GuardAlterPartitionLeaderEpoch: {"AlterPartitionLeaderEpoch",
		"the controller accepts an AlterPartition request only at the current leader epoch",
		`ReceiveAlterPartitionRequest, ValidateRequest: m.leader_epoch = con_partition_metadata.leader_epoch (\* CHECK OK)`,
		"ReplicationControlManager.validateAlterPartitionData: partitionData.leaderEpoch() < partition.leaderEpoch gives FENCED_LEADER_EPOCH"},
	GuardIsrMemberUnfenced: {"IsrMemberUnfenced",
		"the controller accepts a proposed ISR only if every member is unfenced (KIP-841)",
		"ReceiveAlterPartitionRequest, IsEligibleBroker: con_broker_reg[b].status = UNFENCED",
		"ReplicationControlManager.ineligibleReplicasForIsr: registration.fenced() gives INELIGIBLE_REPLICA"},
	GuardIsrMemberBrokerEpoch: {"IsrMemberBrokerEpoch",
		"the controller accepts a proposed ISR only if every added member's broker epoch is its registered one (KIP-903)",
		`ReceiveAlterPartitionRequest, IsEligibleBroker: broker_epoch = 0 (\* CHECK FAIL) \/ con_broker_reg[b].broker_epoch = broker_epoch`,
		"ReplicationControlManager.ineligibleReplicasForIsr: brokerEpoch != -1 && registration.epoch() != brokerEpoch gives INELIGIBLE_REPLICA"},
	GuardAPResponseMatchesRequest: {"APResponseMatchesRequest",
		"the leader acts on an AlterPartition response only for the request it is waiting for",
		"ReceiveAlterPartitionResponse: partition_pending_ap[b].request = m.request",
		"Partition.submitAlterPartition: ignores the result when partitionState != proposedIsrState"},
	GuardAPResponsePartitionEpoch: {"APResponsePartitionEpoch",
		"the leader commits a successful AlterPartition response only if its partition epoch is above the one it holds",
		"ReceiveAlterPartitionResponse: m.error = Nil => m.partition_epoch > PartitionMetadata(b).partition_epoch",
		"Partition.handleAlterPartitionUpdate: ignores the new ISR when leaderAndIsr.partitionEpoch < partitionEpoch"},
	GuardFetchFromLeader: {"FetchFromLeader",
		"a broker serves a follower's fetch only as the partition's leader",
		"ReceiveFetchRequest: partition_status[b] = Leader (else an error response)",
		"Partition.fetchRecords: localLogWithEpochOrThrow(requireLeader = fetchOnlyFromLeader) throws NotLeaderOrFollowerException"},
	GuardFetchLeaderEpoch: {"FetchLeaderEpoch",
		"a leader serves a fetch only of its own leader epoch (KIP-320)",
		`ReceiveFetchRequest: PartitionMetadata(b).leader_epoch = m.partition.leader_epoch (\* CHECK OK)`,
		"Partition.checkCurrentLeaderEpoch: FENCED_LEADER_EPOCH or UNKNOWN_LEADER_EPOCH on a mismatch"},
	GuardFetchResponseOffset: {"FetchResponseOffset",
		"a follower acts on a fetch response only for its fetcher's current fetch offset",
		"ReceiveFetchResponse: Fetcher(b, m.source).partition.fetch_offset = m.partition.fetch_offset (else NoOp)",
		"AbstractFetcherThread.processFetchRequest: fetchPartitionData.fetchOffset == currentFetchState.fetchOffset"},
	GuardFetchResponseLeo: {"FetchResponseLeo",
		"a follower appends a fetched record only at its log end offset",
		"ReceiveFetchResponse, case OK: LeoOf(b) = m.partition.fetch_offset",
		"ReplicaFetcherThread.processPartitionData: fetchOffset != log.logEndOffset throws IllegalStateException (Offset mismatch)"},
	GuardRegistrationIncarnation: {"RegistrationIncarnation",
		"the controller accepts the registration of an unfenced broker only from the same incarnation",
		"ReceiveBrokerRegRequest: con_broker_reg[m.source].status # FENCED => incarnation_id = m.incarnation_id",
		"ClusterControlManager.registerBroker: a valid session and another incarnationId throw DuplicateBrokerRegistrationException"},
	GuardWriteMinIsr: {"WriteMinIsr",
		"a leader appends a producer's record only while its maximal ISR has at least MinISR members",
		"WriteRecordToLeader: Cardinality(PartitionMetadata(b).maximal_isr) >= MinISR",
		"Partition.appendRecordsToLeader: inSyncSize < minIsr with acks=all throws NotEnoughReplicasException"},
}

// GuardBit is the bit of Config.Mutate that turns guard g off.
func GuardBit(g Guard) uint32 { return 1 << g }

// off reports whether guard g is turned off. Call it only where the guard would act.
func (m *Model) off(g Guard) bool { return m.cfg.Mutate&(1<<g) != 0 }

// validateMutate checks that the guards turned off exist.
func (c Config) validateMutate() error {
	if c.Mutate>>NumGuards != 0 {
		return errString("mutate: no guard in bits " + strconv.FormatUint(uint64(c.Mutate>>NumGuards<<NumGuards), 2))
	}
	return nil
}

type errString string

func (e errString) Error() string { return string(e) }
