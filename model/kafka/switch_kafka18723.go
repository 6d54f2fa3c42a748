package kafka

// Kafka18723 is KAFKA-18723's fix (PR 18852): the follower appends no batch whose leader
// epoch is above its fetch request's currentLeaderEpoch, nor any after it.
// Kafka: 3.9.1 core/src/main/scala/kafka/log/UnifiedLog.scala, analyzeAndValidateRecords:
// skipRemainingBatches from the first batch for which hasHigherPartitionLeaderEpoch holds.
var Kafka18723 = &Switch{
	Name:     "KAFKA-18723",
	Doc:      "the follower appends no batch whose leader epoch is above its fetch request's, nor any after it",
	Kafka:    "UnifiedLog.analyzeAndValidateRecords: skipRemainingBatches on hasHigherPartitionLeaderEpoch (3.9.1 core/src/main/scala/kafka/log/UnifiedLog.scala; PR 18852)",
	Versions: "in 3.9.1, 4.0.1, 4.1.0 and later; a switch for older releases",
	Fix:      FixBit18723,
	Kinds:    []string{"FollowerHandleFetchResponse"},
	Branches: []string{"skip-higher-epoch"},
	StopAppend: func(_ *Model, _ Replica, resp Msg, _ int, e, _ uint8) bool {
		return e > resp.Epoch
	},
}

func init() { Register(Kafka18723) }
