// Package reference is a port of the published TLA+ specification of Kafka replication
// (repository hachikuji/kafka-specification): the module KafkaReplication with its
// variants KafkaTruncateToHighWatermark, Kip101, Kip279, Kip320FirstTry and Kip320, and
// the separate module AsyncIsr (see asyncisr.go).
//
// A state of the port corresponds one to one to a TLC state of the module: the same
// variables (replicaLog, replicaState, nextLeaderEpoch, nextRecordId,
// leaderAndIsrRequests, quorumState) holding the same values, so that for the same
// constants the distinct-state count and the depth of the complete search are TLC's.
// Each action says which TLA+ action of which module it is.
//
// The package satisfies checker.Model[State] using only built-in types and imports only
// the standard library.
package reference

import (
	"errors"
	"fmt"
)

// Limits on the constants, fixed by the array sizes of State.
const (
	MaxReplicas       = 5 // largest |Replicas|
	MaxLogSize        = 4 // largest LogSize
	MaxMaxRecords     = 8 // largest MaxRecords
	MaxMaxLeaderEpoch = 7 // largest MaxLeaderEpoch
)

// None is the module's None ("NONE"), the absent replica, and Nil its Nil (-1), the
// absent leader epoch. Both are held as -1 in the int8 fields of State.
const (
	None = -1
	Nil  = -1
)

// Variant is one of the modules whose Next relation the port follows.
type Variant int

// Variants, one per TLA+ module with a Next relation.
const (
	TruncateToHighWatermark Variant = iota // KafkaTruncateToHighWatermark.tla
	Kip101                                 // Kip101.tla
	Kip279                                 // Kip279.tla
	Kip320FirstTry                         // Kip320FirstTry.tla
	Kip320                                 // Kip320.tla
	AsyncIsr                               // AsyncIsr.tla (its own state, see asyncisr.go)
	numVariants
)

// VariantNames are the module names of the variants, in Variant order.
var VariantNames = []string{
	"KafkaTruncateToHighWatermark",
	"Kip101",
	"Kip279",
	"Kip320FirstTry",
	"Kip320",
	"AsyncIsr",
}

func (v Variant) String() string {
	if v >= 0 && v < numVariants {
		return VariantNames[v]
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}

// Config holds the constants of KafkaReplication and the variant.
type Config struct {
	Variant        Variant
	Replicas       int // |Replicas|; replicas are r1..rN
	LogSize        int
	MaxRecords     int
	MaxLeaderEpoch int
	// Mutate turns named guards off, bit GuardBit(g) for guard g (guards.go): a mutation,
	// for kmc mutate. Zero for the module as written.
	Mutate uint32
}

// Validate reports whether c is within the limits of the port.
func (c Config) Validate() error {
	var errs []error
	if c.Variant < 0 || c.Variant >= AsyncIsr {
		errs = append(errs, fmt.Errorf("variant: %v is not a KafkaReplication variant", c.Variant))
	}
	if c.Replicas < 1 || c.Replicas > MaxReplicas {
		errs = append(errs, fmt.Errorf("replicas: must be 1..%d (got %d)", MaxReplicas, c.Replicas))
	}
	if c.LogSize < 1 || c.LogSize > MaxLogSize {
		errs = append(errs, fmt.Errorf("log size: must be 1..%d (got %d)", MaxLogSize, c.LogSize))
	}
	if c.MaxRecords < 1 || c.MaxRecords > MaxMaxRecords {
		errs = append(errs, fmt.Errorf("max records: must be 1..%d (got %d)", MaxMaxRecords, c.MaxRecords))
	}
	if c.MaxLeaderEpoch < 0 || c.MaxLeaderEpoch > MaxMaxLeaderEpoch {
		errs = append(errs, fmt.Errorf("max leader epoch: must be 0..%d (got %d)", MaxMaxLeaderEpoch, c.MaxLeaderEpoch))
	}
	if err := c.validateMutate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Set is a set of replicas, bit i for replica r(i+1).
type Set uint8

// Has reports whether r is in the set.
func (s Set) Has(r int) bool { return r >= 0 && s&(1<<uint(r)) != 0 }

// With returns s with r added.
func (s Set) With(r int) Set { return s | 1<<uint(r) }

// Without returns s with r removed.
func (s Set) Without(r int) Set { return s &^ (1 << uint(r)) }

// Record is an element of LogRecords: [id : RecordSeq!IdSet, epoch : LeaderEpochSeq!IdSet].
type Record struct {
	ID    int8
	Epoch int8
}

// Log is one replica's log, FiniteReplicatedLog's [endOffset, records]. Invariant: the
// records at offsets End..LogSize-1 are Nil in the module and the zero Record here, so
// that the value is determined by End and Records[:End].
type Log struct {
	End     int8
	Records [MaxLogSize]Record
}

// ReplicaState is the module's ReplicaState record [hw, leaderEpoch, leader, isr].
type ReplicaState struct {
	HW          int8
	LeaderEpoch int8 // Nil (-1) or an epoch
	Leader      int8 // None (-1) or a replica index
	ISR         Set
}

// QuorumState is the module's QuorumState record [leaderEpoch, leader, isr], the
// model's stand-in for ZooKeeper. LeaderAndIsr requests have the same shape.
type QuorumState struct {
	LeaderEpoch int8 // Nil (-1) or an epoch
	Leader      int8 // None (-1) or a replica index
	ISR         Set
}

// Request is a LeaderAndIsr request without its epoch, which is its index in
// State.Requests.
type Request struct {
	Leader int8
	ISR    Set
}

// State is one state of KafkaReplication, for a Config with N replicas. Replicas are
// indexed 0..N-1 and printed r1..rN. Invariants:
//  1. Slots at or above N of Logs and Replicas are zero.
//  2. Each log is canonical (see Log).
//  3. Every request sent has a distinct leader epoch, because ControllerUpdateIsr takes
//     the next id of the leader-epoch sequence: leaderAndIsrRequests is exactly
//     {[leader |-> Requests[e].Leader, leaderEpoch |-> e, isr |-> Requests[e].ISR] :
//     e \in 0..NextLeaderEpoch-1}, and Requests[e] is zero for e >= NextLeaderEpoch.
type State struct {
	Logs            [MaxReplicas]Log          // replicaLog
	Replicas        [MaxReplicas]ReplicaState // replicaState
	NextRecordID    int8                      // nextRecordId
	NextLeaderEpoch int8                      // nextLeaderEpoch
	Requests        [MaxMaxLeaderEpoch + 1]Request
	Quorum          QuorumState // quorumState
}

// Model is KafkaReplication under one variant. It satisfies checker.Model[State].
type Model struct {
	cfg   Config
	n     int
	kinds []int // global action kinds of the variant's Next, in ActionKinds order
	local [numKinds]int
	perms [][MaxReplicas]int8 // every permutation of the replicas, identity first
}

// New returns the model for cfg.
func New(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Model{cfg: cfg, n: cfg.Replicas, kinds: variantKinds[cfg.Variant]}
	for i := range m.local {
		m.local[i] = -1
	}
	for i, k := range m.kinds {
		m.local[k] = i
	}
	m.perms = permutations(m.n)
	return m, nil
}

// Config returns the model's constants.
func (m *Model) Config() Config { return m.cfg }

// Init appends the single initial state (KafkaReplication's Init).
func (m *Model) Init(buf []State) []State {
	var s State
	for r := 0; r < m.n; r++ {
		s.Replicas[r] = ReplicaState{HW: 0, LeaderEpoch: Nil, Leader: None, ISR: 0}
	}
	s.Quorum = QuorumState{LeaderEpoch: Nil, Leader: None, ISR: m.all()}
	return append(buf, s)
}

// all is the set Replicas.
func (m *Model) all() Set { return Set(1<<uint(m.n) - 1) }

// ReplicaName prints replica index r as the model value r1..rN, or NONE.
func ReplicaName(r int) string {
	if r < 0 {
		return "NONE"
	}
	return "r" + string(rune('1'+r))
}
