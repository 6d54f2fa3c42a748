// Package vanlightly is a port of Jack Vanlightly's published TLA+ specification of
// Kafka's data replication protocol with the KRaft controller, as of Kafka 3.5: the
// module kafka_replication_v3_5_simple of Vanlightly/kafka-tlaplus (directory
// kafka_data_replication/kraft/v3.5, commit a30c45e) with the modules it extends
// (message_passing, v3_5_types, v3_5_functions, v3_5_properties).
//
// A state of the port corresponds one to one to a TLC state of the module: the same
// variables holding the same values (broker_metadata_log is held as its length, see
// State), and the module's VIEW (every variable but aux_broker_epoch and aux_ctrs) is
// what identifies a state: Encode writes the view first and the auxiliary variables
// last, and View returns the view's part of an encoding (checker.Projected), so that for
// the same constants the distinct-state count and the depth of the complete search are
// TLC's. Each action says which TLA+ action it is.
//
// The package satisfies checker.Model[State] using only built-in types and imports only
// the standard library.
package vanlightly

import (
	"errors"
	"fmt"
)

// Limits on the constants, fixed by the array sizes of State.
const (
	MaxBrokers     = 4  // largest ReplicationFactor
	MaxValues      = 3  // largest |Values|
	MaxMetadataLog = 24 // longest con_metadata_log
	MaxMessages    = 48 // most messages in the domain of messages
)

// Config holds the constants of the module. Values are named A, B, C.
type Config struct {
	ReplicationFactor         int
	Values                    int // |Values|
	MinISR                    int
	InitIsrSize               int
	CleanShutdownLimit        int
	UncleanShutdownLimit      int
	FenceBrokerLimit          int
	AlterPartitionLimit       int
	AvoidLastReplicaStanding  bool
	LimitFetchesOnLeaderEpoch bool

	// Mutate has bit GuardBit(g) set for each named guard g turned off (guards.go): a
	// mutant of the module, for kmc mutate. Zero is the module as written.
	Mutate uint32
}

// Validate reports whether c is within the limits of the port and satisfies the
// module's ASSUMEs.
func (c Config) Validate() error {
	var errs []error
	if c.ReplicationFactor < 1 || c.ReplicationFactor > MaxBrokers {
		errs = append(errs, fmt.Errorf("replication factor: must be 1..%d (got %d)", MaxBrokers, c.ReplicationFactor))
	}
	if c.Values < 1 || c.Values > MaxValues {
		errs = append(errs, fmt.Errorf("values: must be 1..%d (got %d)", MaxValues, c.Values))
	}
	if c.MinISR < 0 || c.MinISR > c.ReplicationFactor {
		errs = append(errs, fmt.Errorf("min isr: must be 0..ReplicationFactor = %d (got %d)", c.ReplicationFactor, c.MinISR))
	}
	if c.InitIsrSize < 1 || c.InitIsrSize > c.ReplicationFactor {
		errs = append(errs, fmt.Errorf("init isr size: must be 1..ReplicationFactor = %d (got %d)", c.ReplicationFactor, c.InitIsrSize))
	}
	for _, l := range []struct {
		name string
		v    int
	}{{"clean shutdown limit", c.CleanShutdownLimit}, {"unclean shutdown limit", c.UncleanShutdownLimit},
		{"fence broker limit", c.FenceBrokerLimit}, {"alter partition limit", c.AlterPartitionLimit}} {
		if l.v < 0 || l.v > 8 {
			errs = append(errs, fmt.Errorf("%s: must be 0..8 (got %d)", l.name, l.v))
		}
	}
	if err := c.validateMutate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Set is a set of brokers, bit i for broker i+1.
type Set uint8

// Has reports whether broker index b is in the set.
func (s Set) Has(b int) bool { return b >= 0 && s&(1<<uint(b)) != 0 }

// With returns s with b added.
func (s Set) With(b int) Set { return s | 1<<uint(b) }

// Without returns s with b removed.
func (s Set) Without(b int) Set { return s &^ (1 << uint(b)) }

// Len is the cardinality of s.
func (s Set) Len() int {
	n := 0
	for x := s; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// Model values of the module. Brokers are held as indexes 0..N-1 (the module's 1..N);
// NoLeader and Controller are negative; Nil is held per field as noted.
const (
	NoLeader   = -1
	Controller = -2
	Nil        = -1 // an absent epoch, offset or leo (int8 fields)
)

// Broker-side statuses (broker_state[b].status).
const (
	OfflineClean uint8 = iota // OFFLINE_CLEAN
	OfflineDirty              // OFFLINE_DIRTY
	Starting                  // STARTING
	Running                   // RUNNING
)

// Controller-side statuses (con_broker_reg[b].status).
const (
	Fenced   uint8 = iota // FENCED
	Unfenced              // UNFENCED
)

// Replica roles (partition_status[b]).
const (
	RoleNil      uint8 = iota // Nil
	RoleLeader                // Leader
	RoleFollower              // Follower
)

// Message types.
const (
	RegisterBrokerRequest uint8 = iota + 1
	RegisterBrokerResponse
	AlterPartitionRequest
	AlterPartitionResponse
	FetchRequest
	FetchResponse
)

// Error codes; ErrNil is the module's Nil.
const (
	ErrNil uint8 = iota
	IneligibleReplica
	FencedLeaderEpoch
	UnknownLeaderEpoch
	NotLeaderOrFollower
)

// ConReg is con_broker_reg[b]: [status, broker_epoch, incarnation_id].
type ConReg struct {
	Status      uint8
	BrokerEpoch int8
	Incarnation int8
}

// PartitionMD is con_partition_metadata [isr, leader, leader_epoch, partition_epoch], and
// also the PartitionChangeRecord of the metadata log (the same fields with type).
type PartitionMD struct {
	ISR            Set
	Leader         int8 // NoLeader or a broker
	LeaderEpoch    int8
	PartitionEpoch int8
}

// BrokerState is broker_state[b]: [status, broker_epoch, incarnation_id, registered].
type BrokerState struct {
	Status      uint8
	BrokerEpoch int8
	Incarnation int8
	Registered  bool
}

// Fetcher is broker_fetchers[b][b1]: [partition, pending_response], where partition is
// Nil (HasPartition false) or [fetch_offset, last_fetched_epoch, delayed].
type Fetcher struct {
	HasPartition     bool
	FetchOffset      int8
	LastFetchedEpoch int8
	Delayed          bool
	Pending          bool
}

// ReplicaMD is partition_metadata[b]: [isr, maximal_isr, leader, leader_epoch,
// partition_epoch].
type ReplicaMD struct {
	ISR            Set
	MaximalISR     Set
	Leader         int8
	LeaderEpoch    int8
	PartitionEpoch int8
}

// Record is a PartitionRecord [epoch, offset, value] whose offset is its position in the
// log (1-based in the module; ValidReplicaState).
type Record struct {
	Epoch int8
	Value int8
}

// PartitionData is partition_data[b]: [log, hwm, leo], with leo = Len(log)+1 always
// (every action keeps it so; ValidReplicaState).
type PartitionData struct {
	Len int8
	HWM int8
	Log [MaxValues]Record
}

// Leo is the log end offset, Len(log)+1.
func (d *PartitionData) Leo() int { return int(d.Len) + 1 }

// PeerState is partition_replica_state[b][b1]: [leo, broker_epoch], leo Nil or an offset.
type PeerState struct {
	Leo         int8
	BrokerEpoch int8
}

// PendingAP is partition_pending_ap[b]: [epoch, request], request Nil (Has false) or an
// AlterPartitionRequest.
type PendingAP struct {
	Epoch int8
	Has   bool
	Req   Msg
}

// Msg is a message of the module: one struct for every type, its unused fields zero.
// Src and Dst are brokers or Controller.
//
//   - RegisterBrokerRequest: Src (broker_id and source), Incarnation.
//   - RegisterBrokerResponse: Dst, BrokerEpoch, MDOffset (metadata_offset).
//   - AlterPartitionRequest: Src (leader and source), ISR (isr and the domain of
//     isr_and_epochs), Epochs (isr_and_epochs), LeaderEpoch, PartitionEpoch, BrokerEpoch.
//   - AlterPartitionResponse: Dst, Err, the request's fields (request; its source is
//     Dst), and on success NewLeaderEpoch and NewPartitionEpoch (isr and leader are the
//     request's).
//   - FetchRequest: Src, Dst, BrokerEpoch, LeaderEpoch, FetchOffset, LastFetchedEpoch.
//   - FetchResponse: Src, Dst, Err, LeaderEpoch, FetchOffset, HWM, diverging_epoch
//     (HasDiv, DivEpoch, DivOffset), records (HasRec, Rec at offset FetchOffset).
type Msg struct {
	Type              uint8
	Src, Dst          int8
	Err               uint8
	Incarnation       int8
	BrokerEpoch       int8
	MDOffset          int8
	ISR               Set
	Epochs            [MaxBrokers]int8
	LeaderEpoch       int8
	PartitionEpoch    int8
	NewLeaderEpoch    int8
	NewPartitionEpoch int8
	FetchOffset       int8
	LastFetchedEpoch  int8
	HWM               int8
	HasDiv            bool
	DivEpoch          int8
	DivOffset         int8
	HasRec            bool
	Rec               Record
}

// Counters is aux_ctrs.
type Counters struct {
	Incarnation     int8 // incarn_ctr
	CleanShutdown   int8 // clean_shutdown_ctr
	UncleanShutdown int8 // unclean_shutdown_ctr
	FenceBroker     int8 // fence_broker_ctr
	AlterPartition  int8 // alter_part_ctr
}

// State is one state of the module, for a Config with N brokers (indexes 0..N-1). Invariants:
//  1. Slots at or above N of every per-broker array are zero.
//  2. Every log holds Len records and zero beyond; every metadata log slot at or above
//     MDLen is zero, as are message slots at or above NMsgs.
//  3. Msgs[:NMsgs] is sorted by msgLess with no two equal messages: the domain of the
//     module's messages function, Counts holding each message's delivery count (zero
//     for a message delivered: it stays in the domain, as in the module).
//  4. broker_metadata_log[b] is always a prefix of con_metadata_log (the module only ever
//     appends the controller's records to it, or sets it to a prefix of it): BrokerMDLen[b]
//     is its length.
type State struct {
	// con_vars
	MDLog    [MaxMetadataLog]PartitionMD // con_metadata_log (type PartitionChangeRecord)
	MDLen    int8
	Unfenced Set                // con_unfenced
	Reg      [MaxBrokers]ConReg // con_broker_reg
	PartMD   PartitionMD        // con_partition_metadata
	// broker_vars
	Broker      [MaxBrokers]BrokerState         // broker_state
	Fetchers    [MaxBrokers][MaxBrokers]Fetcher // broker_fetchers
	BrokerMDLen [MaxBrokers]int8                // Len(broker_metadata_log[b])
	// part_vars
	Status  [MaxBrokers]uint8                 // partition_status
	RepMD   [MaxBrokers]ReplicaMD             // partition_metadata
	Data    [MaxBrokers]PartitionData         // partition_data
	Leso    [MaxBrokers]int8                  // partition_leso (Nil or an offset)
	Peers   [MaxBrokers][MaxBrokers]PeerState // partition_replica_state
	Pending [MaxBrokers]PendingAP             // partition_pending_ap
	// messages
	Msgs   [MaxMessages]Msg
	Counts [MaxMessages]int8
	NMsgs  int8
	// inv_vars
	Sent, PosAcked, NegAcked uint8 // inv_sent, inv_pos_acked, inv_neg_acked: bit v for value v
	TrueHWM                  int8  // inv_true_hwm
	Consumed                 [MaxValues]Record
	ConsumedLen              int8 // inv_consumed
	// aux_vars (not in the view)
	AuxBrokerEpoch int8 // aux_broker_epoch
	Ctrs           Counters
}

// Model is the module under one Config. It satisfies checker.Model[State].
type Model struct {
	cfg Config
	n   int
}

// New returns the model for cfg.
func New(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Model{cfg: cfg, n: cfg.ReplicationFactor}, nil
}

// Config returns the model's constants.
func (m *Model) Config() Config { return m.cfg }

// all is the set Brokers.
func (m *Model) all() Set { return Set(1<<uint(m.n) - 1) }

// Init appends the single initial state (Init): broker 1 leads epoch 1 with an ISR of the
// first InitIsrSize brokers (the module's CHOOSE over SUBSET Brokers: TLC enumerates
// SUBSET 1..N by increasing size, then in order, so its first ISR of that size holding 1
// is {1, ..., InitIsrSize}); the brokers outside it start fenced, with a stale partition
// epoch and an empty metadata log.
func (m *Model) Init(buf []State) []State {
	var s State
	n := m.n
	isr := Set(1<<uint(m.cfg.InitIsrSize) - 1)
	partEpoch := int8(2)
	if isr == m.all() {
		partEpoch = 1
	}
	rec := PartitionMD{ISR: isr, Leader: 0, LeaderEpoch: 1, PartitionEpoch: partEpoch}
	s.MDLog[0] = rec
	s.MDLen = 1
	s.Unfenced = isr
	s.PartMD = rec
	for b := 0; b < n; b++ {
		st := Fenced
		if isr.Has(b) {
			st = Unfenced
		}
		s.Reg[b] = ConReg{Status: st, BrokerEpoch: int8(b + 1), Incarnation: int8(b + 1)}
		s.Broker[b] = BrokerState{Status: Running, BrokerEpoch: int8(b + 1), Incarnation: int8(b + 1), Registered: true}
		if b != 0 {
			s.Fetchers[b][0] = Fetcher{HasPartition: true, FetchOffset: 1, LastFetchedEpoch: 0}
		}
		if isr.Has(b) {
			s.BrokerMDLen[b] = 1
		}
		s.Status[b] = RoleFollower
		s.Leso[b] = Nil
		md := ReplicaMD{ISR: m.all(), MaximalISR: m.all(), Leader: 0, LeaderEpoch: 1, PartitionEpoch: 1}
		if isr.Has(b) {
			md.ISR, md.MaximalISR = isr, isr
			if isr != m.all() {
				md.PartitionEpoch = 2
			}
		}
		s.RepMD[b] = md
		s.Data[b] = PartitionData{HWM: 1}
		for b1 := 0; b1 < n; b1++ {
			s.Peers[b][b1] = PeerState{Leo: Nil}
		}
	}
	s.Status[0] = RoleLeader
	s.Leso[0] = 1
	s.TrueHWM = 1
	s.AuxBrokerEpoch = int8(n)
	s.Ctrs = Counters{Incarnation: int8(n + 1)}
	return append(buf, s)
}

// BrokerName prints broker index b as the module's broker id 1..N, or a model value.
func BrokerName(b int) string {
	switch {
	case b == NoLeader:
		return "NoLeader"
	case b == Controller:
		return "Controller"
	}
	return itoa(b + 1)
}

// ValueName prints value v as A, B, C.
func ValueName(v int) string { return string(rune('A' + v)) }

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
