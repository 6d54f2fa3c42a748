package model

// Vocabulary: what each printed variable and each kind of action means, for `kmc list kafka`
// and the README's glossary. Brokers print as 1..N ("b1".."bN" as keys); leader 0 and epoch 0
// mean none (Kafka's -1, UNDEFINED); offsets start at 0.

// VarDocs documents the state variables (Vars), by name.
var VarDocs = map[string]string{
	"status":           "per broker: up, down (crashed), or starting (restarted, not yet registered)",
	"role":             "per broker: leader, follower or none for the partition",
	"leader":           "per broker: the leader it knows (0: none; Kafka prints -1)",
	"leaderEpoch":      "per broker: the leader epoch it knows (0: none)",
	"partitionEpoch":   "per broker: the partition epoch (zkVersion) of its LeaderAndIsr (KIP-497)",
	"fetchState":       "per broker: its fetcher: idle, fetching, truncating (KIP-101, 0.11 to 2.6) or failed",
	"lastFetchedEpoch": "per broker: the epoch its next fetch sends as lastFetchedEpoch (KIP-320; 0: none)",
	"log":              "per broker: its log, offset 0 first; each record [epoch, id]: the leader epoch it was written in and the producer's record id",
	"hw":               "per broker: its high watermark (the next offset not known to be committed)",
	"epochCache":       "per broker: its leader-epoch cache (LeaderEpochFileCache), entries [epoch, startOffset]",
	"leaderState":      "per broker, as leader: isr, maximalIsr (with a pending AlterPartition), pendingAlterPartition, leaderEpochStartOffset, followerLogEndOffset (its view of each follower)",
	"controller":       "the single controller: leader, leaderEpoch, partitionEpoch, isr, liveBrokers, brokerEpochs (KIP-903)",
	"store":            "with the control plane: the metadata store (ZooKeeper's partition state): leader, leaderEpoch, partitionEpoch (zkVersion), isr, liveBrokers, brokerEpochs",
	"messages":         "requests and responses in flight (FetchRequest, FetchResponse with records read so far, OffsetsForLeaderEpoch, LeaderAndIsr, AlterPartition and their responses)",
	"acked":            "acknowledged records, <<offset, id>>: the producer was told they are committed (acks=all)",
	"written":          "records the producer has written so far (max_records bounds it)",
	"faults":           "fault budget used so far, per fault",
	"controlPlane":     "with the control plane: /controller_epoch and its version, each controller incarnation (host broker, epoch, active, session, cache, event queue) and what each broker knows of the controller",
}

// KindDocs documents the kinds of action (ActionKinds), by name: the parameters as printed,
// then what the step does.
var KindDocs = map[string]string{
	"LeaderAppend":                       "(b): leader b appends a producer record (Partition.appendRecordsToLeader)",
	"FollowerSendFetch":                  "(b): follower b sends a FetchRequest to the leader it knows",
	"LeaderHandleFetch":                  "(l, f): leader l answers f's fetch: error, high watermark, diverging epoch and end offset are fixed now; the records are read later",
	"NetworkReadRecord":                  "(l, f): the network copies the next record of l's current log into the response to f (FileRecords are read lazily)",
	"FollowerHandleFetchResponse":        "(b): follower b handles its fetch response: truncates on a diverging epoch, appends, takes the high watermark",
	"FollowerSendEpochRequest":           "(b): follower b asks OffsetsForLeaderEpoch (KIP-101 as shipped, 0.11 to 2.6), or truncates to its high watermark without a cached epoch",
	"LeaderHandleEpochRequest":           "(l, f): leader l answers f's OffsetsForLeaderEpoch with endOffsetFor",
	"FollowerHandleEpochResponse":        "(b): follower b truncates to the answer and starts fetching",
	"BrokerHandleLeaderAndIsr":           "(b): broker b applies a LeaderAndIsr: becomes leader (assigns its epoch) or follower (starts its fetcher)",
	"LeaderShrinkISR":                    "(l, f): leader l drops lagging follower f from the ISR (fault budget lag)",
	"ControllerHandleAlterPartition":     "(l), or (c, l) with the control plane: the controller (incarnation c) validates leader l's AlterPartition and answers",
	"LeaderHandleAlterPartitionResponse": "(l): leader l applies the answer, or handles its error (Partition.handleAlterPartitionError)",
	"ControllerHandleBrokerFailure":      "(b), or (c, b): the controller (incarnation c) handles broker b's failure: elects a new leader, removes b from the ISR",
	"ControllerHandleBrokerStartup":      "(b), or (c, b): the controller (incarnation c) handles broker b's registration and sends it LeaderAndIsr",
	"ControllerMoveLeader":               "(b): a controlled leader change to live ISR member b, as a reassignment (fault budget leader_change)",
	"BrokerCrash":                        "(b[, j]): a clean shutdown of b; from 3.8, j stale checkpoint entries survive (fault budget crash)",
	"BrokerUncleanCrash":                 "(b, s, j): SIGKILL of b: the log stays, recovery runs from offset s, the checkpoint has j entries (fault budget unclean_crash)",
	"BrokerRestart":                      "(b): broker b restarts and registers",
	"NetworkLoseMessage":                 "(b): a fetch-plane message to or from b is lost (fault budget message_loss)",
	"ControllerFailover":                 "(c): the active controller's session expires and incarnation c takes over (fault budget controller_failover)",
	"ControllerResign":                   "(c): zombie controller c notices that it lost its session and resigns",
	"BrokerReregister":                   "(b): broker b registers again after losing its session",
	"BrokerLearnController":              "(b): broker b learns the current controller (its UpdateMetadata or /controller watch)",
	"BrokerSendAlterPartition":           "(b): leader b sends its pending AlterPartition to the controller it knows",
	"BrokerSessionLoss":                  "(b): broker b's ZooKeeper session expires while its process lives on (fault budget session_loss)",
	"BrokerPowerLoss":                    "(b, s, leo, k): b's machine stops: leo records survive, recovery from offset s, the checkpoint keeps k entries (fault budget power_loss)",
	"ControllerHandleIsrChange":          "(c): before 2.7, the controller reads an ISR change notification the leader wrote",
	"BrokerControlledShutdown":           "(b[, j]): the controller moves b's leadership away and drops b from the ISR, then b stops cleanly (fault budget controlled_shutdown)",
	"ControllerElectPreferred":           "(b): preferred-replica election to broker b, the first in the assignment (fault budget preferred_election)",
	"NetworkLoseControlMessage":          "(b, x): an AlterPartition request (x = 0) or its response (x = 1) of b is lost and will be re-sent (fault budget control_loss)",
	"ControllerElect":                    "(b): after its host crashed, broker b becomes the controller (controller_host_crash)",
	"NetworkReadGarbage":                 "(l, f): a read by byte position starts inside a batch: f gets bytes that fail their CRC (record_sizes)",
}
