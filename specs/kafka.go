package specs

import (
	"fmt"
	"math/bits"

	"kmc/checker"
	"kmc/invariants"
	"kmc/model/kafka"
)

// Fix switches of the kafka family: the names of model/kafka's switches (each declared in a
// model/kafka/switch_*.go file of its own; kafka.Switches lists them).
var (
	Kafka18723           = kafka.Kafka18723.Name
	Kafka13077           = kafka.Kafka13077.Name
	Kafka6082            = kafka.Kafka6082.Name
	Kafka14154           = kafka.Kafka14154.Name
	Kafka14154Proposed   = kafka.Kafka14154Proposed.Name
	Kafka18723Strict     = kafka.Kafka18723Strict.Name
	Kafka18723SendSide   = kafka.Kafka18723SendSide.Name
	KIP966               = kafka.KIP966.Name
	Kafka13141           = kafka.Kafka13141.Name
	Kafka18991           = kafka.Kafka18991.Name
	Kafka16541CloseFlush = kafka.Kafka16541CloseFlush.Name
)

// faultKinds are the kinds of action that spend each fault budget (Param.Kinds).
var faultKinds = map[string][]string{
	"crash":               {"BrokerCrash"},
	"unclean_crash":       {"BrokerUncleanCrash"},
	"power_loss":          {"BrokerPowerLoss"},
	"lag":                 {"LeaderShrinkISR"},
	"message_loss":        {"NetworkLoseMessage"},
	"leader_change":       {"ControllerMoveLeader"},
	"session_loss":        {"BrokerSessionLoss"},
	"controller_failover": {"ControllerFailover"},
	"controlled_shutdown": {"BrokerControlledShutdown"},
	"preferred_election":  {"ControllerElectPreferred"},
	"control_loss":        {"NetworkLoseControlMessage"},
	"quorum_failover":     {"ControllerQuorumFailover"},
}

// ControlPlaneNames are the values of the control_plane constant.
var ControlPlaneNames = []string{"zookeeper", "kraft"}

// The kafka family: the main model, Kafka's replication of one partition (model package).
func kafkaFamily() Family {
	var props []PropertyInfo
	for _, d := range invariants.All() {
		props = append(props, PropertyInfo{Name: d.Name, Doc: d.Doc, Kind: d.Kind, Ref: d.Ref, Views: d.Views})
	}
	def := kafka.DefaultConfig()
	fault := func(name, doc string) Param {
		return Param{Name: name, Doc: doc, Kind: Int, Min: 0, Max: 15, Default: 0, Kinds: faultKinds[name]}
	}
	mechanism := func(name, doc string) Param { // added with issue 12: quiet while 0
		p := fault(name, doc)
		p.Quiet = true
		return p
	}
	return Family{
		Name: "kafka",
		// The log grid is what a Kafka engineer reads first (docs/reading-traces.md).
		// A spec's default is the views its properties read (PropertyInfo.Views).
		Views: kafka.ViewNames, DefaultView: "logs", Params: &kafka.Model{},
		Doc: "Apache Kafka's replication of one partition: logs, leader-epoch caches, fetch with lazily " +
			"read responses, truncation, ISR changes through AlterPartition or ZooKeeper, a single controller, the " +
			"ZooKeeper control plane with up to three controller incarnations (controllers) or the KRaft control plane " +
			"(control_plane = kraft: metadata log, broker registration and fencing, KIP-966 ELR), crashes, per Kafka " +
			"release line (version)",
		Constants: []Param{
			{Name: "brokers", Doc: "brokers 1..N, all replicas of the partition", Kind: Int, Min: 2, Max: kafka.MaxBrokers, Default: def.Brokers},
			{Name: "min_isr", Doc: "min.insync.replicas (acks=all)", Kind: Int, Min: 1, Max: kafka.MaxBrokers, Default: def.MinISR},
			{Name: "max_records", Doc: "producer writes in total", Kind: Int, Min: 0, Max: kafka.MaxLog, Default: def.MaxRecords},
			{Name: "max_epoch", Doc: "largest leader epoch; steps that need a larger one are cut (docs/engine.md: Model bounds are cuts)", Kind: Int, Min: 1, Max: kafka.MaxEpoch, Default: def.MaxEpoch},
			{Name: "max_fetch_records", Doc: "records per fetch response: replica.fetch.max.bytes in record size units (record_sizes); the first batch is always whole", Kind: Int, Min: 1, Max: kafka.MaxFetch, Default: def.MaxFetchRecords},
			{Name: "version", Doc: "Kafka release line whose mechanisms and fixes the model has (kmc list kafka shows each profile); it fixes the truncation strategy",
				Kind: Enum, Enum: kafka.VersionNames(), Default: index(kafka.VersionNames(), kafka.DefaultVersion)},
			{Name: "controllers", Doc: "controller incarnations; 2 or more turn on the ZooKeeper-era control plane (metadata store, failover, zombies)",
				Kind: Int, Min: 1, Max: kafka.MaxControllers, Default: 1},
			{Name: "control_plane", Doc: "zookeeper: the single controller (controllers = 1) or the ZooKeeper-era plane (controllers >= 2); kraft: the KRaft plane (metadata log replayed by each broker, registration, heartbeats, fencing, quorum leader changes; version >= 3.3; model/kafka/kraft.go)",
				Kind: Enum, Enum: ControlPlaneNames, Default: 0, Quiet: true},
			{Name: "controller_broker", Doc: "broker that hosts the first controller (with controllers >= 2)", Kind: Int, Min: 1, Max: kafka.MaxBrokers, Default: 1},
			{Name: "unclean_election", Doc: "unclean.leader.election.enable: with no live ISR member the controller elects a live out-of-sync replica, ISR = {it} (every version; default false since 0.11, KIP-106)",
				Kind: Bool, Default: 0, Quiet: true},
			{Name: "controller_host_crash", Doc: "crash, unclean_crash, power_loss and controlled_shutdown may stop the active controller's host; the controller dies with it and another broker is elected (needs controllers >= 2)",
				Kind: Bool, Default: 0, Quiet: true},
			{Name: "record_sizes", Doc: "record sizes in bytes, by record id, for reads by file position: uniform (all equal: reads are record-aligned), varied (odd ids 1 unit, even 2), distinct (record n is n units)",
				Kind: Enum, Enum: kafka.RecordSizeNames, Default: def.RecordSizes, Quiet: true},
		},
		Faults: []Param{
			fault("crash", "controlled shutdowns and restarts (no log recovery; from 3.8 a pending checkpoint write of a truncation may be lost)"),
			fault("unclean_crash", "process kills (SIGKILL): the log survives in the page cache; recovery from a segment, only epochs above the cached latest"),
			fault("power_loss", "machine crashes: the unflushed log suffix is lost; before 3.0 the leader-epoch checkpoint may revert to an earlier version"),
			fault("lag", "ISR shrinks of a lagging follower"),
			fault("message_loss", "lost fetch-plane messages"),
			fault("leader_change", "controlled leader changes to any live ISR member (reassignment, an election to a chosen replica); preferred_election elects only broker 1"),
			fault("session_loss", "ZooKeeper session losses of a broker that lives on and registers again (needs controllers >= 2); with kraft, missed heartbeat sessions: the controller fences the broker, which is unfenced once caught up"),
			{Name: "controller_failover", Kind: Int, Min: 0, Max: kafka.MaxControllers - 1, Kinds: faultKinds["controller_failover"],
				Doc: "ZooKeeper session losses of the active controller (a zombie stays until it resigns; needs controllers >= 2)"},
			mechanism("controlled_shutdown", "controlled shutdowns: the controller moves the broker's leadership to another live ISR member and drops it from the ISR, then it stops cleanly and can restart (every version)"),
			mechanism("preferred_election", "preferred-replica elections: leadership to broker 1 when it is live, in the ISR and not leader (auto.leader.rebalance.enable; every version)"),
			{Name: "quorum_failover", Kind: Int, Min: 0, Max: kafka.MaxQuorumEpoch - 1, Quiet: true, Doc: "KRaft controller quorum leader changes: the old active controller cannot commit and answers NOT_CONTROLLER once it would write; it renounces later (needs control_plane = kraft)"},
			mechanism("control_loss", "lost AlterPartition requests or responses; the broker re-queues and resends the request (needs controllers >= 2 and version >= 2.8)"),
		},
		Switches:     kafkaSwitches(),
		Properties:   props,
		Versions:     kafkaVersions(),
		Variables:    kafkaTerms(kafkaVarNames(), kafka.VarDocs),
		Actions:      kafkaTerms((&kafka.Model{}).ActionKinds(), kafka.KindDocs),
		Guards:       kafkaGuards(),
		Build:        buildKafka,
		PORByRequest: true,
		PORNote: "the model declares its steps' independence (model/kafka/independence.go, checked by its tests), " +
			"but its fetch requests read the leader's whole state and its properties every log, so that the " +
			"reduction finds no reduced set in the checks measured and only costs time: off unless --por",
		DefaultSymmetry: func(cfg Config) bool {
			m, err := kafka.New(KafkaConfig(cfg))
			return err == nil && bits.OnesCount8(m.Interchangeable()) >= 2 && !anyLiveness(cfg.Properties)
		},
		// model/kafka/symmetry.go, order.go: every election takes the first candidate in assignment
		// order, so the search under symmetry leaves the order open and elections reveal it.
		Symmetry:     true,
		SymmetryNote: "on by default for safety checks where two or more brokers are interchangeable (--symmetry=false, options.symmetry = false: off): brokers 2..N, or with controllers >= 2 those below and those above controller_broker, each among themselves; where an election can compare brokers (a broker stops, controllers >= 2, kraft) the search leaves the assignment order open, each election revealing it, and renames the trace to the order 1..N; liveness: refused; see model/kafka/symmetry.go and model/kafka/order.go",
		Validate: func(cfg Config) error {
			for name := range cfg.Without {
				if sw, ok := kafka.SwitchByName(name); !ok || sw.Fix == 0 {
					return fmt.Errorf("without: %s is in no release line (a proposal, not a shipped fix)", name)
				}
			}
			if _, err := kafkaGuardBits(cfg); err != nil {
				return err
			}
			c := KafkaConfig(cfg)
			return c.Validate()
		},
	}
}

// KafkaConfig is the model configuration a resolved spec configuration describes.
func KafkaConfig(cfg Config) kafka.Config {
	v := cfg.Values
	mutate, _ := kafkaGuardBits(cfg) // an unknown name: Validate's error
	return kafka.Config{
		Brokers: v["brokers"], MinISR: v["min_isr"], MaxRecords: v["max_records"],
		MaxEpoch: v["max_epoch"], MaxFetchRecords: v["max_fetch_records"],
		Version: versionName(v["version"]), Without: withoutBits(cfg.Without),
		Crash: v["crash"], UncleanCrash: v["unclean_crash"], PowerLoss: v["power_loss"], Lag: v["lag"],
		MessageLoss: v["message_loss"], LeaderChange: v["leader_change"],
		Controllers: v["controllers"], ControllerBroker: v["controller_broker"], Failover: v["controller_failover"], SessionLoss: v["session_loss"],
		UncleanElection: v["unclean_election"] != 0, ControllerHostCrash: v["controller_host_crash"] != 0,
		ControlledShutdown: v["controlled_shutdown"], PreferredElection: v["preferred_election"], ControlLoss: v["control_loss"],
		KRaft: v["control_plane"] == 1, QuorumFailover: v["quorum_failover"],
		RecordSizes: v["record_sizes"], Switches: switchSet(cfg.Switches),
		Mutate: mutate,
	}
}

func kafkaGuards() []GuardInfo {
	var out []GuardInfo
	for _, g := range kafka.Guards {
		out = append(out, GuardInfo{Name: g.Name, Doc: g.Doc, Ref: g.Kafka})
	}
	return out
}

// versionName is the name of the version at index i of kafka.VersionNames.
func versionName(i int) string {
	names := kafka.VersionNames()
	if i < 0 || i >= len(names) {
		return "?"
	}
	return names[i]
}

// withoutBits maps the fixes a check takes out of its release line to the model's bits.
func withoutBits(without map[string]bool) uint8 {
	var b uint8
	for _, sw := range kafka.Switches() {
		if without[sw.Name] {
			b |= sw.Fix
		}
	}
	return b
}

// switchSet maps the switches a check turns on to the model's set.
func switchSet(on map[string]bool) kafka.SwitchSet {
	var s kafka.SwitchSet
	for _, sw := range kafka.Switches() {
		s = s.With(sw, on[sw.Name])
	}
	return s
}

// kafkaSwitches are the model's switches (kafka.Switches), as the family lists them.
func kafkaSwitches() []Switch {
	var out []Switch
	for _, sw := range kafka.Switches() {
		out = append(out, Switch{Name: sw.Name, Doc: sw.Doc, Ref: sw.Kafka, Versions: sw.Versions,
			Kinds: sw.Kinds, Branches: sw.Branches, Proposal: sw.Fix == 0})
	}
	return out
}

// anyLiveness reports whether one of the named Kafka properties is a liveness property.
func anyLiveness(names []string) bool {
	for _, name := range names {
		if d, ok := invariants.ByName(name); ok && d.Kind.Liveness() {
			return true
		}
	}
	return false
}

func buildKafka(cfg Config) (checker.Runnable, error) {
	if _, err := kafkaGuardBits(cfg); err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	m, err := kafka.New(KafkaConfig(cfg))
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	var props []checker.Property[kafka.State]
	for _, name := range cfg.Properties {
		d, ok := invariants.ByName(name)
		if !ok {
			return nil, fmt.Errorf("kafka: unknown property %q", name)
		}
		p := d.Build(m)
		p.Reads = m.PropertyReads(p.Name) // what it reads, for the partial-order reduction (model/kafka/independence.go)
		props = append(props, p)
	}
	r, err := bind[kafka.State](m, props, cfg)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	return &kafkaRunnable{Runnable: r, m: m, cfg: cfg}, nil
}

// kafkaRunnable counts the model's branches and guards during a search that asks for
// vacuity or coverage (BranchCounter).
type kafkaRunnable struct {
	checker.Runnable
	m   *kafka.Model
	cfg Config
}

// countMode is how the model counts its branches in a search with opts.
func countMode(opts checker.Options) int {
	switch {
	case opts.Coverage:
		return kafka.Counted
	case opts.Vacuity:
		return kafka.Fired
	}
	return kafka.NotCounted
}

func (r *kafkaRunnable) Check(opts checker.Options) checker.Result {
	r.m.CountBranches(countMode(opts))
	defer r.m.CountBranches(kafka.NotCounted)
	return marked(r.Runnable.Check(opts), opts)
}

// marked is res with its counts of the model's own as one process counts them: with
// Vacuity alone the model marks a branch fired (1) rather than counting it, and the
// engine's sum over parts or over a resume is then how many marked it.
func marked(res checker.Result, opts checker.Options) checker.Result {
	if countMode(opts) == kafka.Fired {
		for i, v := range res.Tallies {
			res.Tallies[i] = min(v, 1)
		}
	}
	return res
}

// The engine's optional interfaces of the bound model, forwarded (the wrapper would hide
// them): partitioned searches and simulation blocks (cluster), the reduction's question.
//
// A part searches on a model of its own, which counts the branches the part fires for the
// coordinator to add up (checker.Tallier): the parts of one process (--partitions) must not
// count into one model.
func (r *kafkaRunnable) NewPart(opts checker.Options, parts, index int, t checker.Transport) (checker.Part, error) {
	own, err := buildKafka(r.cfg)
	if err != nil {
		return nil, err
	}
	k := own.(*kafkaRunnable)
	k.m.CountBranches(countMode(opts))
	return k.Runnable.(checker.Partitioner).NewPart(opts, parts, index, t)
}

func (r *kafkaRunnable) CheckPartitioned(opts checker.Options, parts int, t checker.Transport) checker.Result {
	r.m.CountBranches(countMode(opts))
	defer r.m.CountBranches(kafka.NotCounted)
	return marked(r.Runnable.(checker.Partitioner).CheckPartitioned(opts, parts, t), opts)
}

func (r *kafkaRunnable) SimulateBlock(opts checker.SimOptions) (checker.SimResult, []byte) {
	return r.Runnable.(checker.SimBlocker).SimulateBlock(opts)
}

func (r *kafkaRunnable) ReducesPOR(opts checker.Options) bool {
	return r.Runnable.(checker.Reducer).ReducesPOR(opts)
}

func (r *kafkaRunnable) Branches(tallies []uint64) []BranchCount {
	var out []BranchCount
	for _, b := range r.m.BranchesOf(tallies) {
		out = append(out, BranchCount{Switch: b.Switch, Guard: b.Guard, Branch: b.Branch, On: b.On, Hits: b.Hits})
	}
	return out
}

// The Kafka model reports the steps its bounds cut (max_epoch, max_records, fault budgets).
var _ checker.Bounded[kafka.State] = (*kafka.Model)(nil)

func kafkaVersions() []VersionInfo {
	var out []VersionInfo
	for _, p := range kafka.Profiles {
		out = append(out, VersionInfo{Name: p.Name, Release: p.Release, Has: p.Mechanisms()})
	}
	for _, l := range kafka.Lines {
		p, _ := kafka.ProfileByName(l[1])
		out = append(out, VersionInfo{Name: l[0], Release: p.Release, Alias: l[1], Has: p.Mechanisms()})
	}
	return out
}

// kafkaVarNames are the Kafka model's variables, with the control plane's besides.
func kafkaVarNames() []string {
	single, _ := kafka.New(kafka.DefaultConfig())
	cfg := kafka.DefaultConfig()
	cfg.Controllers = 2
	cp, _ := kafka.New(cfg)
	cfg = kafka.DefaultConfig()
	cfg.KRaft = true
	kr, _ := kafka.New(cfg)
	names := append([]string{}, single.Vars()...)
	for _, n := range append(cp.Vars(), kr.Vars()...) {
		if !contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

func kafkaTerms(names []string, docs map[string]string) []Term {
	var out []Term
	for _, n := range names {
		out = append(out, Term{n, docs[n]})
	}
	return out
}

// kafkaGuardBits maps the guards cfg turns off to the model's Mutate bits (guardBits).
func kafkaGuardBits(cfg Config) (uint32, error) {
	return guardBits(cfg.Mutate, len(kafka.Guards), func(g int) string { return kafka.Guards[g].Name })
}
