package kafka

// Kafka13141 is KAFKA-13141's fix (PR 11136): the leader updates no follower state (log end
// offset, ISR, high watermark) from a fetch it answers with a diverging epoch. Its branch is
// in Model.handleFetch (leader.go).
var Kafka13141 = &Switch{
	Name:     "KAFKA-13141",
	Doc:      "the leader updates no follower state (log end offset, ISR, high watermark) from a fetch it answers with a diverging epoch (PR 11136; in 2.7.2, 2.8.1, 3.0.0 and later)",
	Kafka:    "ReplicaManager.updateFollowerFetchState: skipped when the read result has a divergingEpoch (3.0.0 core/src/main/scala/kafka/server/ReplicaManager.scala; PR 11136)",
	Versions: "in 2.7.2, 2.8.1, 3.0.0 and later; a switch for 2.8.0",
	Fix:      FixBit13141,
	Kinds:    []string{"LeaderHandleFetch"},
	Branches: []string{"no-update-on-divergence"},
}

func init() { Register(Kafka13141) }
