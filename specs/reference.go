package specs

import (
	"fmt"

	"kmc/checker"
	"kmc/model/reference"
)

// The reference family: a port of the published TLA+ specification of Kafka replication
// (hachikuji/kafka-specification), one variant per module, with the modules' constants.
func referenceFamily() Family {
	return Family{
		Name: "reference",
		Doc: "the published TLA+ spec of Kafka replication (hachikuji/kafka-specification): " +
			"KafkaReplication with its variants, and AsyncIsr; same states as TLC",
		Constants: []Param{
			{Name: "variant", Doc: "the TLA+ module whose Next is checked", Kind: Enum,
				Enum: reference.VariantNames, Default: int(reference.Kip320)},
			{Name: "replicas", Doc: "|Replicas|; replicas are r1..rN", Kind: Int,
				Min: 1, Max: reference.MaxReplicas, Default: 2},
			{Name: "log_size", Doc: "LogSize: offsets of each log are 0..LogSize-1", Kind: Int,
				Min: 1, Max: reference.MaxLogSize, Default: 2},
			{Name: "max_records", Doc: "MaxRecords: record ids are 0..MaxRecords-1", Kind: Int,
				Min: 1, Max: reference.MaxMaxRecords, Default: 2},
			{Name: "max_leader_epoch", Doc: "MaxLeaderEpoch: leader epochs are 0..MaxLeaderEpoch", Kind: Int,
				Min: 0, Max: reference.MaxMaxLeaderEpoch, Default: 3},
			{Name: "max_offset", Doc: "AsyncIsr's MaxOffset: bound on every replica's offset (a state constraint)",
				Kind: Int, Min: 1, Max: reference.MaxAsyncOffset, Default: 2},
			{Name: "max_version", Doc: "AsyncIsr only: bound on the controller's ISR version (a state constraint)",
				Kind: Int, Min: 0, Max: reference.MaxAsyncVersion, Default: 3},
		},
		Properties: []PropertyInfo{
			{Name: "TypeOk", Kind: checker.Invariant, Ref: "KafkaReplication.tla, AsyncIsr.tla",
				Doc: "every variable holds a value of its type (the evident intent of the module's TypeOk)"},
			{Name: "TypeOkLiteral", Kind: checker.Invariant, Ref: "KafkaReplication.tla, AsyncIsr.tla",
				Doc: "TypeOk as written: TLC cannot evaluate it (KafkaReplication) or it is false (AsyncIsr) in the initial state"},
			{Name: "WeakIsr", Kind: checker.Invariant, Ref: "KafkaReplication.tla",
				Doc: "a presumed leader agrees with its own ISR on every offset below its high watermark"},
			{Name: "StrongIsr", Kind: checker.Invariant, Ref: "KafkaReplication.tla",
				Doc: "a presumed leader agrees with the quorum's ISR on every offset below its high watermark"},
			{Name: "LeaderInIsr", Kind: checker.Invariant, Ref: "KafkaReplication.tla",
				Doc: "a leader named by the quorum is in the quorum's ISR (the evident intent)"},
			{Name: "LeaderInIsrLiteral", Kind: checker.Invariant, Ref: "KafkaReplication.tla",
				Doc: "LeaderInIsr as written, quorumState.leader \\in quorumState.isr: false while there is no leader"},
			{Name: "ValidHighWatermark", Kind: checker.Invariant, Ref: "AsyncIsr.tla",
				Doc: "every member of the controller's ISR has reached the leader's high watermark"},
		},
		Guards:       referenceGuards(),
		Symmetry:     true,
		Build:        buildReference,
		Validate:     validateReference,
		PORByRequest: true,
		PORNote: "both modules declare their steps' independence (model/reference/independence.go, checked by its " +
			"tests), but every ISR change and role change goes through quorumState and the controller's requests, and a " +
			"high-watermark step reads every replica's log: the reduction leaves out at most 0.25% of the states of " +
			"KafkaReplication's checks in the suite (0 to 40) and 20 and 260 of AsyncIsr's, at up to 8 times the time: off unless --por",
	}
}

func validateReference(cfg Config) error {
	v := reference.Variant(cfg.Values["variant"])
	bits, err := referenceGuardBits(cfg)
	if err != nil {
		return err
	}
	if v == reference.AsyncIsr {
		if bits != 0 {
			return fmt.Errorf("mutate: the named guards are Kip320's; variant AsyncIsr has none")
		}
		return reference.AsyncConfig{Replicas: cfg.Values["replicas"], MaxOffset: cfg.Values["max_offset"],
			MaxVersion: cfg.Values["max_version"]}.Validate()
	}
	return reference.Config{Variant: v, Replicas: cfg.Values["replicas"], LogSize: cfg.Values["log_size"],
		MaxRecords: cfg.Values["max_records"], MaxLeaderEpoch: cfg.Values["max_leader_epoch"], Mutate: bits}.Validate()
}

func referenceGuards() []GuardInfo {
	var out []GuardInfo
	for _, g := range reference.Guards {
		out = append(out, GuardInfo{Name: g.Name, Doc: g.Doc, Ref: g.TLA})
	}
	return out
}

func buildReference(cfg Config) (checker.Runnable, error) {
	v := reference.Variant(cfg.Values["variant"])
	if err := validateReference(cfg); err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	if v == reference.AsyncIsr {
		return buildAsyncIsr(cfg)
	}
	bits, _ := referenceGuardBits(cfg)
	m, err := reference.New(reference.Config{
		Mutate:         bits,
		Variant:        v,
		Replicas:       cfg.Values["replicas"],
		LogSize:        cfg.Values["log_size"],
		MaxRecords:     cfg.Values["max_records"],
		MaxLeaderEpoch: cfg.Values["max_leader_epoch"],
	})
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	var props []checker.Property[reference.State]
	for _, name := range cfg.Properties {
		var f func(s *reference.State) bool
		var x func(s *reference.State) string
		switch name {
		case "TypeOk":
			f, x = m.TypeOk, m.ExplainTypeOk
		case "TypeOkLiteral":
			f, x = m.TypeOkLiteral, m.ExplainTypeOkLiteral
		case "WeakIsr":
			f, x = m.WeakIsr, m.ExplainWeakIsr
		case "StrongIsr":
			f, x = m.StrongIsr, m.ExplainStrongIsr
		case "LeaderInIsr":
			f, x = m.LeaderInIsr, m.ExplainLeaderInIsr
		case "LeaderInIsrLiteral":
			f, x = m.LeaderInIsrLiteral, m.ExplainLeaderInIsrLiteral
		default:
			return nil, fmt.Errorf("reference: property %q is not defined by %v", name, v)
		}
		props = append(props, checker.Property[reference.State]{Name: name, Kind: checker.Invariant, State: f, Explain: x,
			Reads: m.PropertyReads(name)}) // what it reads, for the partial-order reduction (model/reference/independence.go)
	}
	return bind[reference.State](m, props, cfg)
}

func buildAsyncIsr(cfg Config) (checker.Runnable, error) {
	m, err := reference.NewAsyncIsr(reference.AsyncConfig{
		Replicas:   cfg.Values["replicas"],
		MaxOffset:  cfg.Values["max_offset"],
		MaxVersion: cfg.Values["max_version"],
	})
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	var props []checker.Property[reference.AsyncState]
	for _, name := range cfg.Properties {
		var f func(s *reference.AsyncState) bool
		var x func(s *reference.AsyncState) string
		switch name {
		case "TypeOk":
			f, x = m.TypeOk, m.ExplainTypeOk
		case "TypeOkLiteral":
			f, x = m.TypeOkLiteral, m.ExplainTypeOkLiteral
		case "ValidHighWatermark":
			f, x = m.ValidHighWatermark, m.ExplainValidHighWatermark
		default:
			return nil, fmt.Errorf("reference: property %q is not defined by AsyncIsr", name)
		}
		props = append(props, checker.Property[reference.AsyncState]{Name: name, Kind: checker.Invariant, State: f, Explain: x,
			Reads: m.PropertyReads(name)})
	}
	return bind[reference.AsyncState](m, props, cfg)
}

// The reference port reports the steps its bounds cut: MaxLeaderEpoch, MaxRecords and
// LogSize in KafkaReplication, the state constraint in AsyncIsr.
var (
	_ checker.Bounded[reference.State]      = (*reference.Model)(nil)
	_ checker.Bounded[reference.AsyncState] = (*reference.AsyncModel)(nil)
)

// Both modules declare the independence of their steps, so safety checks run under the
// partial-order reduction by default (model/reference/independence.go).
var (
	_ checker.Independent[reference.State]      = (*reference.Model)(nil)
	_ checker.Independent[reference.AsyncState] = (*reference.AsyncModel)(nil)
)

// referenceGuardBits maps the guards cfg turns off to the model's Mutate bits (guardBits).
func referenceGuardBits(cfg Config) (uint32, error) {
	return guardBits(cfg.Mutate, len(reference.Guards), func(g int) string { return reference.Guards[g].Name })
}
