package specs

import (
	"fmt"

	"kmc/checker"
	"kmc/model/vanlightly"
)

// The vanlightly family: a port of Jack Vanlightly's TLA+ specification of Kafka's data
// replication with the KRaft controller as of Kafka 3.5 (Vanlightly/kafka-tlaplus,
// kafka_data_replication/kraft/v3.5/kafka_replication_v3_5_simple.tla at a30c45e), with
// the module's constants and the six invariants of its cfg.
func vanlightlyFamily() Family {
	limit := func(name, tla, doc string, def int) Param {
		return Param{Name: name, Doc: tla + ": " + doc, Kind: Int, Min: 0, Max: 8, Default: def}
	}
	return Family{
		Name: "vanlightly",
		Doc: "Jack Vanlightly's TLA+ spec of Kafka replication with the KRaft controller, 3.5 " +
			"(Vanlightly/kafka-tlaplus kafka_replication_v3_5_simple, a30c45e); same states as TLC under its VIEW",
		Constants: []Param{
			{Name: "replication_factor", Doc: "ReplicationFactor: brokers (and replicas) 1..N", Kind: Int,
				Min: 1, Max: vanlightly.MaxBrokers, Default: 3},
			{Name: "values", Doc: "|Values|: the producer's values A, B, C", Kind: Int,
				Min: 1, Max: vanlightly.MaxValues, Default: 1},
			{Name: "min_isr", Doc: "MinISR: min.insync.replicas", Kind: Int, Min: 0, Max: vanlightly.MaxBrokers, Default: 2},
			{Name: "init_isr_size", Doc: "InitIsrSize: the initial ISR is brokers 1..InitIsrSize", Kind: Int,
				Min: 1, Max: vanlightly.MaxBrokers, Default: 2},
			limit("clean_shutdown_limit", "CleanShutdownLimit", "clean shutdowns", 1),
			limit("unclean_shutdown_limit", "UncleanShutdownLimit", "unclean shutdowns", 0),
			limit("fence_broker_limit", "FenceBrokerLimit", "times the controller fences a broker at will", 1),
			limit("alter_partition_limit", "AlterPartitionLimit", "AlterPartition requests sent", 1),
			{Name: "avoid_last_replica_standing", Kind: Bool, Default: 1,
				Doc: "AvoidLastReplicaStanding: no unclean shutdown of the leader of a one-member ISR (absent from the cfg; TRUE)"},
			{Name: "limit_fetches_on_leader_epoch", Kind: Bool, Default: 1,
				Doc: "LimitFetchesOnLeaderEpoch: fetch only between replicas of the same leader epoch (absent from the cfg; TRUE)"},
		},
		Properties: []PropertyInfo{
			{Name: "ValidLeaderMaximalISR", Kind: checker.Invariant, Ref: "v3_5_properties.tla",
				Doc: "a current leader's maximal ISR contains the controller's ISR, and is its ISR when no AlterPartition is pending"},
			{Name: "ControllerIsrHasUpToTrueHWM", Kind: checker.Invariant, Ref: "v3_5_properties.tla",
				Doc: "no running member of the controller's ISR has an LEO below the true high watermark"},
			{Name: "LeaderHasCompleteCommittedLog", Kind: checker.Invariant, Ref: "v3_5_properties.tla",
				Doc: "the controller's leader holds every acknowledged value"},
			{Name: "NoPartitionLogDivergence", Kind: checker.Invariant, Ref: "v3_5_properties.tla",
				Doc: "replicas agree on every offset below both their high watermarks"},
			{Name: "NoMetadataLogDivergence", Kind: checker.Invariant, Ref: "v3_5_properties.tla",
				Doc: "every broker's metadata log is a prefix of the controller's (true by the port's representation)"},
			{Name: "ConsumedRecordsMatchLeaderLog", Kind: checker.Invariant, Ref: "v3_5_properties.tla",
				Doc: "a current leader holds every consumed record at its offset"},
		},
		Actions: []Term{
			{"BrokerStart", "a stopped broker starts and sends a RegisterBrokerRequest with a new incarnation id"},
			{"ReceiveBrokerRegResponse", "a broker takes its broker epoch, runs, and catches up with the metadata log bar one record"},
			{"ReceiveMetadataUpdate", "a broker reads the metadata log up to the next record it cares about and acts on it"},
			{"SendAlterPartitionRequest", "a leader proposes the caught-up followers as ISR and applies the maximal ISR"},
			{"ReceiveAlterPartitionResponse", "the leader commits the change or rolls back its maximal ISR"},
			{"SendFetchRequest", "a follower fetches from its leader when that makes progress"},
			{"ReceiveFetchRequest", "a broker answers a fetch: an error, a diverging epoch, or the next record"},
			{"ReceiveFetchResponse", "a follower truncates, appends, or delays its fetcher"},
			{"WriteRecordToLeader", "a leader appends a producer's value"},
			{"UncleanShutdown", "a broker stops and loses its partition log; the controller fences it (a fault)"},
			{"CleanShutdown", "a broker stops; the controller fences it (a fault)"},
			{"ReceiveBrokerRegRequest", "the controller registers and unfences a broker"},
			{"ReceiveAlterPartitionRequest", "the controller validates an AlterPartition request and applies it or rejects it"},
			{"FenceBroker", "the controller fences a broker at will (missed heartbeats; a fault)"},
			{"UnfenceBroker", "the controller unfences a running broker (a heartbeat)"},
		},
		Guards:       vanlightlyGuards(),
		SymmetryNote: "none: broker 1 is the initial leader and broker ids are broker epochs",
		Build:        buildVanlightly,
		Validate:     validateVanlightly,
		PORByRequest: true,
		PORNote: "the port declares its steps' independence (model/vanlightly/independence.go, checked by its tests), " +
			"but a fetch request reads the leader's log and its view of the follower, every high-watermark step writes " +
			"the invariant variables (acknowledgements, true high watermark), and a broker's metadata update waits on " +
			"every controller step: the reduction leaves out 16 of the 157,986 states of the suite's rf3 check and none " +
			"of the others': off unless --por",
	}
}

func validateVanlightly(cfg Config) error {
	if _, err := vanlightlyGuardBits(cfg); err != nil {
		return err
	}
	return vanlightlyConfig(cfg).Validate()
}

// vanlightlyGuards lists the port's named guards; each cites the module's action and
// conjunct, then the Kafka 3.5.0 function it models.
func vanlightlyGuards() []GuardInfo {
	var out []GuardInfo
	for _, g := range vanlightly.Guards {
		out = append(out, GuardInfo{Name: g.Name, Doc: g.Doc, Ref: g.TLA + "; Kafka 3.5 " + g.Kafka})
	}
	return out
}

func vanlightlyConfig(cfg Config) vanlightly.Config {
	v := cfg.Values
	mutate, _ := vanlightlyGuardBits(cfg) // an unknown name: validateVanlightly's error
	return vanlightly.Config{
		Mutate:                    mutate,
		ReplicationFactor:         v["replication_factor"],
		Values:                    v["values"],
		MinISR:                    v["min_isr"],
		InitIsrSize:               v["init_isr_size"],
		CleanShutdownLimit:        v["clean_shutdown_limit"],
		UncleanShutdownLimit:      v["unclean_shutdown_limit"],
		FenceBrokerLimit:          v["fence_broker_limit"],
		AlterPartitionLimit:       v["alter_partition_limit"],
		AvoidLastReplicaStanding:  v["avoid_last_replica_standing"] != 0,
		LimitFetchesOnLeaderEpoch: v["limit_fetches_on_leader_epoch"] != 0,
	}
}

func buildVanlightly(cfg Config) (checker.Runnable, error) {
	if _, err := vanlightlyGuardBits(cfg); err != nil {
		return nil, fmt.Errorf("vanlightly: %w", err)
	}
	m, err := vanlightly.New(vanlightlyConfig(cfg))
	if err != nil {
		return nil, fmt.Errorf("vanlightly: %w", err)
	}
	var props []checker.Property[vanlightly.State]
	for _, name := range cfg.Properties {
		var f func(s *vanlightly.State) bool
		var x func(s *vanlightly.State) string
		switch name {
		case "ValidLeaderMaximalISR":
			f, x = m.ValidLeaderMaximalISR, m.ExplainValidLeaderMaximalISR
		case "ControllerIsrHasUpToTrueHWM":
			f, x = m.ControllerIsrHasUpToTrueHWM, m.ExplainControllerIsrHasUpToTrueHWM
		case "LeaderHasCompleteCommittedLog":
			f, x = m.LeaderHasCompleteCommittedLog, m.ExplainLeaderHasCompleteCommittedLog
		case "NoPartitionLogDivergence":
			f, x = m.NoPartitionLogDivergence, m.ExplainNoPartitionLogDivergence
		case "NoMetadataLogDivergence":
			f, x = m.NoMetadataLogDivergence, m.ExplainNoMetadataLogDivergence
		case "ConsumedRecordsMatchLeaderLog":
			f, x = m.ConsumedRecordsMatchLeaderLog, m.ExplainConsumedRecordsMatchLeaderLog
		default:
			return nil, fmt.Errorf("vanlightly: property %q is not defined by the module", name)
		}
		props = append(props, checker.Property[vanlightly.State]{Name: name, Kind: checker.Invariant, State: f, Explain: x,
			Reads: m.PropertyReads(name)}) // what it reads, for the partial-order reduction (model/vanlightly/independence.go)
	}
	return bind[vanlightly.State](m, props, cfg)
}

// The port identifies a state by the module's VIEW, and declares the independence of its
// steps, so safety checks run under the partial-order reduction by default
// (model/vanlightly/independence.go).
var (
	_ checker.Projected                     = (*vanlightly.Model)(nil)
	_ checker.Independent[vanlightly.State] = (*vanlightly.Model)(nil)
)

// vanlightlyGuardBits maps the guards cfg turns off to the model's Mutate bits (guardBits).
func vanlightlyGuardBits(cfg Config) (uint32, error) {
	return guardBits(cfg.Mutate, len(vanlightly.Guards), func(g int) string { return vanlightly.Guards[g].Name })
}
