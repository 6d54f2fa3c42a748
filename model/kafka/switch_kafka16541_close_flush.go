package kafka

// Kafka16541CloseFlush is a proposal for the phantom epoch (FINDINGS.md), not upstream code:
// a clean shutdown writes the leader-epoch checkpoint when it closes the log
// (UnifiedLog.close), so that a truncation whose scheduled write the stopped scheduler
// dropped is on disk. Its branch is in Model.stopClean (shutdown.go), counted when it writes
// entries the checkpoint lacked.
var Kafka16541CloseFlush = &Switch{
	Name:     "KAFKA-16541-close-flush",
	Doc:      "a proposal for the phantom epoch (FINDINGS.md): a clean shutdown writes the leader-epoch checkpoint when it closes the log, so that a truncation whose scheduled write the stopped scheduler dropped is not lost",
	Kafka:    "proposal (FINDINGS.md): LeaderEpochFileCache flushed in UnifiedLog.close, after the scheduler's truncateFromEndAsyncFlush task was dropped (3.8.0, KAFKA-16541)",
	Versions: "releases with the asynchronous checkpoint write (3.8.0 and later)",
	Kinds:    []string{"BrokerStop"},
	Branches: []string{"flush-on-close"},
}

func init() { Register(Kafka16541CloseFlush) }
