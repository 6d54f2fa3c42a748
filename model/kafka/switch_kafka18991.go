package kafka

// Kafka18991 is KAFKA-18991's fix (PR 19223): the follower ignores a fetch response whose
// request's currentLeaderEpoch is not its fetch state's. The guard FetchResponseEpoch
// (guards.go) is this condition; a mutation turning it off undoes the fix.
// Kafka: 3.9.1 core/src/main/scala/kafka/server/AbstractFetcherThread.scala,
// processFetchRequest: leaderEpochInRequest == curPartitionState.currentLeaderEpoch.
var Kafka18991 = &Switch{
	Name:     "KAFKA-18991",
	Doc:      "the follower ignores a fetch response whose request's currentLeaderEpoch is not its fetch state's (PR 19223; in 3.9.1, 4.0.1, 4.1.0 and later)",
	Kafka:    "AbstractFetcherThread.processFetchRequest: leaderEpochInRequest == curPartitionState.currentLeaderEpoch (3.9.1 core/src/main/scala/kafka/server/AbstractFetcherThread.scala; PR 19223)",
	Versions: "in 3.9.1, 4.0.1, 4.1.0 and later; a switch for older releases",
	Fix:      FixBit18991,
	Kinds:    []string{"FollowerHandleFetchResponse"},
	Branches: []string{"drop-stale-epoch-response"},
	DropFetchResponse: func(m *Model, r Replica, resp Msg) bool {
		return resp.Epoch != r.Epoch && !m.off(GuardFetchResponseEpoch)
	},
}

func init() { Register(Kafka18991) }
