package kafka

// Kafka13077 is a proposed repair for KAFKA-13077 (no upstream fix): a new leader rebuilds
// its leader-epoch cache from its log's batches before it assigns its epoch, so that
// endOffsetFor never answers an epoch its log holds with an older one. Its branch is in
// Model.handleLeaderAndIsr (broker.go), counted when the rebuild changes the cache.
var Kafka13077 = &Switch{
	Name:     "KAFKA-13077",
	Doc:      "proposed (no upstream fix): a new leader repairs its leader-epoch cache from its log before assigning its epoch",
	Kafka:    "proposal: LeaderEpochFileCache rebuilt from the log's batches in Partition.makeLeader before maybeAssignEpochStartOffset (3.9.1 core/src/main/scala/kafka/cluster/Partition.scala); KAFKA-13077 has no fix",
	Versions: "every release",
	Kinds:    []string{"BrokerHandleLeaderAndIsr"},
	Branches: []string{"rebuild-cache"},
}

func init() { Register(Kafka13077) }
