// Package kafka is kmc's model of Apache Kafka's replication of one partition: brokers
// 1..N with their logs, leader-epoch caches and high watermarks, the fetch protocol between
// followers and the leader (with the fetch response's records read lazily from the serving
// replica's log, as Kafka's FileRecords are), ISR changes through AlterPartition, a
// controller that elects leaders and sends LeaderAndIsr, and faults with budgets: clean and
// unclean crashes, follower lag, message loss and controlled leader changes. With
// Config.Controllers >= 2 the ZooKeeper-era control plane is on (controlplane.go): a metadata
// store with zkVersion and /controller_epoch, controller incarnations with caches and event
// queues, session loss, zombies and AlterPartition routed to the controller a broker knows.
//
// The model is a pure state machine. It satisfies checker.Model[State] using only built-in
// types and imports only the standard library. One file per actor: log.go (the log and the
// leader-epoch cache), leader.go, follower.go, controller.go, broker.go (crash, restart,
// LeaderAndIsr), shutdown.go (a clean shutdown's steps), network.go, bytes.go (reads by file
// position), encode.go, controlplane.go and controlplane_encode.go (the ZooKeeper plane),
// kraft.go and its kraft_*.go (the KRaft plane), mechanisms.go, version.go (release
// profiles), symmetry.go and order.go (the symmetry reduction), guards.go, views.go and
// vocab.go (what `kmc list kafka` and the traces print). The other models are siblings under
// model/: reference and vanlightly (ports of published TLA+ specs) and twophase.
//
// Brokers are numbered 0..N-1 internally and printed 1..N. Offsets start at 0, leader
// epochs at 1 (0 is Kafka's UNDEFINED_EPOCH, -1 in the code).
package kafka

import (
	"errors"
	"strconv"
)

// Size limits of the fixed arrays of State.
const (
	MaxBrokers = 5 // brokers per partition
	MaxLog     = 8 // records per log (and records written in total)
	MaxEpoch   = 7 // leader epochs 1..MaxEpoch; a cache holds at most MaxEpoch entries
	MaxFetch   = 3 // records per fetch response
	MaxMsgs    = 3 * MaxBrokers
)

// Truncation strategies, the values of Config.Truncation.
const (
	// TruncHighWatermark is pre-KIP-101 Kafka: a replica that becomes follower truncates its
	// log to its own high watermark (ReplicaManager.makeFollowers, Kafka 0.10).
	TruncHighWatermark = iota
	// TruncLeaderEpoch is KIP-101 as Kafka 0.11 shipped it: a new follower asks the leader
	// OffsetsForLeaderEpoch for its latest epoch, gets an end offset only, and truncates to
	// min(answer, LEO) (to its HW when the answer is undefined) before fetching.
	TruncLeaderEpoch
	// TruncDivergingEpoch is current Kafka (KIP-320, KIP-595/KAFKA-10554, 2.8.0): the fetch
	// carries lastFetchedEpoch and the response a divergingEpoch.
	TruncDivergingEpoch
	// TruncEpochLookup is KIP-279 (2.0.0 to 2.7.x, KAFKA-6361): as TruncLeaderEpoch, but the
	// OffsetsForLeaderEpoch answer carries the leader's epoch and the follower looks that
	// epoch up in its own cache (AbstractFetcherThread.getOffsetTruncationState), repeating
	// the request while truncation is not complete.
	TruncEpochLookup
)

// TruncationNames are the names of the truncation strategies, indexed by their values.
var TruncationNames = []string{"high-watermark", "leader-epoch", "diverging-epoch", "epoch-lookup"}

// Config is the model's constants, fault budgets and fix switches.
type Config struct {
	Brokers         int // 2..MaxBrokers
	MinISR          int // min.insync.replicas, 1..Brokers
	MaxRecords      int // producer writes in total, 0..MaxLog
	MaxEpoch        int // leader epochs 1..MaxEpoch; steps that need a larger epoch are cut (Bounds)
	MaxFetchRecords int // records per fetch response, 1..MaxFetch: maxBytes in record size units (bytes.go)
	// Version names the release line whose mechanisms the model has (version.go, Profiles);
	// "" is DefaultVersion. It fixes the truncation strategy.
	Version string
	// Without removes fixes the profile contains (FixBit6082, ...): the release as it was
	// just before the fix.
	Without uint8

	// Fault budgets (each 0..15).
	Crash        int // clean shutdowns (controlled, the clean-shutdown marker written)
	UncleanCrash int // process kills (SIGKILL): the log survives in the page cache, recovery runs
	PowerLoss    int // machine crashes: the unflushed log suffix is lost, recovery runs
	Lag          int // ISR shrinks of a lagging follower (LeaderShrinkISR)
	MessageLoss  int // lost fetch-plane messages (FetchRequest/Response, OffsetsForLeaderEpoch)
	// LeaderChange counts controlled leader changes to any live ISR member other than the
	// leader (a reassignment's election, an operator's election to a chosen replica).
	// PreferredElection (below) is the narrower preferred-replica election: only broker 1.
	LeaderChange int

	// Switches are the fix switches and proposals turned on (switches.go: each is declared in
	// a switch_*.go file of its own). A fix a release profile contains is in force without
	// its switch; Without takes it out.
	Switches SwitchSet

	// KAFKA-18723's residual (bytes.go, FINDINGS.md): record sizes.
	RecordSizes int // SizesUniform, SizesVaried or SizesDistinct

	// Control plane (controlplane.go), on when Controllers >= 2.
	Controllers      int // controller incarnations, 1..MaxControllers (0 counts as 1)
	ControllerBroker int // host broker of the first controller, 1..Brokers (0 counts as 1)
	Failover         int // fault budget: controller session losses (controller_failover)
	SessionLoss      int // fault budget: broker session losses, the broker process lives on (session_loss)

	// Mechanisms off by default (mechanisms.go); each zero value leaves the model as it was.
	//
	// UncleanElection is unclean.leader.election.enable: with no live ISR member the
	// controller elects a live replica outside the ISR, whose ISR is then itself alone.
	UncleanElection bool
	// ControlledShutdown is a fault budget (controlled_shutdown): the broker asks the
	// controller to move its leadership to another live ISR member and to drop it from the
	// ISR, then stops cleanly (as crash), and can restart.
	ControlledShutdown int
	// PreferredElection is a fault budget (preferred_election): the controller elects the
	// preferred replica, broker 1 (the first of the assignment), when it is live, in the ISR
	// and not leader (auto.leader.rebalance.enable, kafka-leader-election --election-type
	// preferred). LeaderChange instead moves leadership to any live ISR member, as a
	// reassignment or an operator's election does.
	PreferredElection int
	// ControlLoss is a fault budget (control_loss): a lost AlterPartition request or response
	// (a disconnect or request timeout); the broker re-queues the request and sends it again.
	// It needs the control plane (controllers >= 2). A LeaderAndIsr is never lost: the
	// controller's RequestSendThread re-sends it until delivered.
	ControlLoss int
	// KRaft turns on the KRaft control plane (kraft.go) instead of the single controller or
	// the ZooKeeper plane (control_plane = "kraft").
	KRaft bool
	// QuorumFailover is a fault budget (quorum_failover): KRaft controller quorum leader
	// changes.
	QuorumFailover int
	// ControllerHostCrash lets crash, unclean_crash, power_loss and controlled_shutdown stop
	// the broker that hosts the active controller (controllers >= 2): the controller dies
	// with it and another broker is elected (ControllerElect, a protocol step).
	ControllerHostCrash bool

	// Mutate turns protocol guards off, bit GuardBit(g) for guard g (guards.go): a
	// mutation, for kmc mutate. Zero for the protocol as Kafka has it.
	Mutate uint32
}

// DefaultConfig is the configuration the family's defaults describe.
func DefaultConfig() Config {
	return Config{Brokers: 3, MinISR: 1, MaxRecords: 2, MaxEpoch: 3, MaxFetchRecords: 1}
}

// Validate reports every constant outside its range (errors.Join), then, when all are in
// range, every broken rule between them (the control plane's, the mechanisms').
func (c *Config) Validate() error {
	check := func(name string, v, lo, hi int) error {
		if v < lo || v > hi {
			return errString("model: " + name + " = " + strconv.Itoa(v) + " outside " +
				strconv.Itoa(lo) + ".." + strconv.Itoa(hi))
		}
		return nil
	}
	// controller_broker 0 counts as 1; the range printed is the one kmc list shows.
	checkHost := func(v, brokers int) error {
		if v != 0 && (v < 1 || v > brokers) {
			return check("controller_broker", v, 1, brokers)
		}
		return nil
	}
	var errs []error
	for _, e := range []error{
		check("brokers", c.Brokers, 2, MaxBrokers),
		check("min_isr", c.MinISR, 1, c.Brokers),
		check("max_records", c.MaxRecords, 0, MaxLog),
		check("max_epoch", c.MaxEpoch, 1, MaxEpoch),
		check("max_fetch_records", c.MaxFetchRecords, 1, MaxFetch),
		c.validateVersion(),
		check("record_sizes", c.RecordSizes, 0, len(RecordSizeNames)-1),
		check("crash", c.Crash, 0, 15),
		check("unclean_crash", c.UncleanCrash, 0, 15),
		check("power_loss", c.PowerLoss, 0, 15),
		check("lag", c.Lag, 0, 15),
		check("message_loss", c.MessageLoss, 0, 15),
		check("leader_change", c.LeaderChange, 0, 15),
		check("controllers", c.Controllers, 0, MaxControllers),
		checkHost(c.ControllerBroker, c.Brokers),
		check("controller_failover", c.Failover, 0, MaxControllers-1),
		check("session_loss", c.SessionLoss, 0, 15),
		check("controlled_shutdown", c.ControlledShutdown, 0, 15),
		check("preferred_election", c.PreferredElection, 0, 15),
		check("control_loss", c.ControlLoss, 0, 15),
		check("quorum_failover", c.QuorumFailover, 0, MaxQuorumEpoch-1),
	} {
		if e != nil {
			errs = append(errs, e)
		}
	}
	if len(errs) == 0 {
		for _, e := range []error{c.validateCP(), c.validateMechanisms(), c.validateKRaft()} {
			if e != nil {
				errs = append(errs, e)
			}
		}
	}
	return errors.Join(errs...)
}

type errString string

func (e errString) Error() string { return string(e) }

// Model is the Kafka replication model for one Config.
type Model struct {
	C   Config
	p   Profile   // the mechanisms of C.Version
	fix uint8     // the fixes in force: the profile's, without C.Without, plus the switches
	sw  SwitchSet // the switches in force (switches.go)
	// hooks are the extension points' switches in force; hits the branch and guard
	// counters (switches.go), counted while count is on.
	hooks hooks
	hits  []uint64
	count int
	// perms is the symmetry group (symmetry.go), identity first; blocks the sets of
	// brokers it permutes, moved their union.
	perms  []Perm
	blocks []uint8
	moved  uint8
}

// New returns the model for c, or an error when a constant is out of range.
func New(c Config) (*Model, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return newModel(c), nil
}

// newModel is the model for c without validation (c.Version must name a profile).
func newModel(c Config) *Model {
	p, ok := ProfileByName(c.Version)
	if !ok {
		panic("model: unknown version " + c.Version)
	}
	m := &Model{C: c, p: p, fix: c.effective(&p), sw: c.inForce(&p)}
	m.buildHooks()
	m.blocks = m.Blocks()
	for _, blk := range m.blocks {
		m.moved |= blk
	}
	m.perms = m.group()
	return m
}

// Profile is the release line the model follows.
func (m *Model) Profile() Profile { return m.p }

// fixed reports whether fix bit f is in force.
func (m *Model) fixed(f uint8) bool { return m.fix&f != 0 }

// elr reports whether KIP-966's eligible leader replicas are on: the profile's or the
// switch's, with the KRaft plane (the single controller has no ELR).
func (m *Model) elr() bool { return m.C.KRaft && m.fixed(FixBitELR) }

// ELR reports whether KIP-966's eligible leader replicas are on (for the properties).
func (m *Model) ELR() bool { return m.elr() }

// validateVersion checks the version, the fixes against it and the mechanisms it lacks.
func (c *Config) validateVersion() error {
	p, ok := ProfileByName(c.Version)
	if !ok {
		return errString("model: version = " + strconv.Quote(c.Version) + " is not a known release or release line")
	}
	for _, bit := range FixOrder {
		name := FixName(bit)
		switch {
		case c.fixesOf()&bit != 0 && p.Fixes&bit != 0:
			return errString("model: fixes: " + name + " is already in version " + p.Name)
		case c.Without&bit != 0 && p.Fixes&bit == 0:
			return errString("model: without: " + name + " is not in version " + p.Name)
		}
	}
	if err := c.validateSwitches(&p); err != nil {
		return err
	}
	if c.Controllers > 1 && !p.ZooKeeper {
		return errString("model: controllers = " + strconv.Itoa(c.Controllers) + ": version " + p.Name + " has no ZooKeeper controller")
	}
	return c.validateMutate(&p)
}

// Roles of a replica.
const (
	RoleNone     uint8 = iota // no partition state: down, or restarted and waiting for LeaderAndIsr
	RoleLeader                // Partition.makeLeader
	RoleFollower              // Partition.makeFollower
)

// Fetch states of a follower (AbstractFetcherThread's PartitionFetchState).
const (
	FetchIdle       uint8 = iota // not fetching (leader, no known leader, or down)
	FetchFetching                // Fetching
	FetchTruncating              // Truncating: waits for an OffsetsForLeaderEpoch answer (KIP-101)
	FetchFailed                  // failed partition (FENCED_LEADER_EPOCH): waits for LeaderAndIsr
)

// Entry is one record of a log: its leader epoch (the batch's partitionLeaderEpoch; each
// record is its own batch) and its id (1.., unique: the n-th producer write has id n).
type Entry struct{ Epoch, ID uint8 }

// EpochEntry is one entry of the leader-epoch cache: the epoch and its start offset.
type EpochEntry struct{ Epoch, Start uint8 }

// Replica is one broker's state for the partition. Invariants:
//  1. Log[i] is zero for i >= LEO; Cache[i] is zero for i >= NCache.
//  2. HW <= LEO; the cache is strictly increasing in epoch and in start offset.
//  3. ISR, MaxISR, FLEO and LESO are zero unless Role is RoleLeader; MaxISR ⊇ ISR, and
//     MaxISR == ISR unless Pending.
type Replica struct {
	Log    [MaxLog]Entry
	Cache  [MaxEpoch]EpochEntry
	LEO    uint8 // log end offset (number of records)
	HW     uint8 // high watermark
	NCache uint8 // entries in Cache

	Alive    bool
	Register bool  // restarted and not yet registered with the controller
	Shut     uint8 // shutdown state (shutdown.go): ShutNone, ShutRequested, ShutClosing
	// Clean: the broker's last stop was clean and its clean-shutdown file holds the broker
	// epoch of its registration then (KRaft from 4.0: the next registration is clean).
	Clean  bool
	Role   uint8 // RoleNone, RoleLeader, RoleFollower
	Leader uint8 // known leader, broker index+1 (0: none)
	Epoch  uint8 // known leader epoch (0 after a restart, until LeaderAndIsr)
	PEpoch uint8 // known partition epoch
	Fetch  uint8 // fetch state (FetchIdle, ...)
	LastEp uint8 // lastFetchedEpoch of the fetch state (0: none)

	// The leader-epoch checkpoint file holds the cache followed by the NStale entries of
	// Stale: entries a truncation removed from the cache whose asynchronous checkpoint write
	// has not run (Profile.AsyncTruncFlush); an assignment rewrites the file and clears them.
	Stale  [MaxEpoch]EpochEntry
	NStale uint8
	// StaleCut: bit i (0 < i < NStale) when the file may end after Stale[:i], because a
	// truncation left the cache there while an earlier one's write was still pending (the
	// file is the cache of the moment a pending write ran: LeaderEpochFileCache
	// .writeIfDirExists writes the whole cache, 3.9.1 storage/.../epoch/
	// LeaderEpochFileCache.java). A truncation that removed several entries at once
	// leaves no cut between them.
	StaleCut uint8

	// Leader only (Partition's partitionState and remote replica states).
	ISR     uint8             // committed ISR, bit b for broker b
	MaxISR  uint8             // maximal ISR (ISR ∪ proposed while an AlterPartition is pending)
	Pending bool              // an AlterPartition is in flight (partitionState.isInflight)
	LESO    uint8             // leader epoch start offset (LEO when it became leader)
	FLEO    [MaxBrokers]uint8 // each follower's log end offset, from its last fetch
}

// Controller is the partition state the controller publishes: with one controller (always
// correct) its own state; with the control plane on (Config.Controllers >= 2) the content of
// the metadata store, which the controller incarnations of State.CP read and write.
type Controller struct {
	Leader uint8 // partition leader, broker index+1 (0: none)
	Epoch  uint8 // leader epoch
	PEpoch uint8 // partition epoch (zkVersion / KRaft partitionEpoch)
	ISR    uint8
	Live   uint8 // brokers the controller sees as registered and alive
	// Shut is the brokers in controlled shutdown in the single controller's view
	// (ZooKeeper's shuttingDownBrokerIds; KRaft's inControlledShutdown registrations): live,
	// but neither elected nor admitted to the ISR, until their failure is handled.
	Shut uint8
	// BEpoch is each broker's epoch: a new one at every registration (KRaft: the
	// registration record's offset; ZooKeeper: the broker znode's czxid). KIP-903.
	BEpoch [MaxBrokers]uint8
}

// Budgets used so far, one per fault.
const (
	FaultCrash = iota
	FaultUnclean
	FaultLag
	FaultLoss
	FaultLeaderChange
	FaultPowerLoss
	FaultControlledShutdown // mechanisms.go: encoded only when one of these budgets is set
	FaultPreferred
	FaultControlLoss
	numFaults
)

// State is one state of the model.
type State struct {
	B    [MaxBrokers]Replica
	Ctrl Controller
	CP   ControlPlane // zero unless Config.Controllers >= 2 (controlplane.go)
	KR   KRaft        // zero unless Config.KRaft (kraft.go)
	Net  Network
	// Written is the number of producer writes so far; record ids are 1..Written.
	Written uint8
	// Acked is ghost state: Acked[id-1] is offset+1 of record id once the leader's high
	// watermark passed it (acks=all acknowledged), 0 before.
	Acked [MaxLog]uint8
	Used  [numFaults]uint8 // fault budgets used
	// Ord is the assignment order as far as a search under symmetry has revealed it
	// (order.go); closed (1..N) in the plain model.
	Ord Order
}

// Kinds of action, in ActionKinds order.
const (
	KindLeaderAppend = iota
	KindFollowerSendFetch
	KindLeaderHandleFetch
	KindNetworkReadRecord
	KindFollowerHandleFetchResponse
	KindFollowerSendEpochRequest
	KindLeaderHandleEpochRequest
	KindFollowerHandleEpochResponse
	KindBrokerHandleLeaderAndIsr
	KindLeaderShrinkISR
	KindControllerHandleAlterPartition
	KindLeaderHandleAlterPartitionResponse
	KindControllerHandleBrokerFailure
	KindControllerHandleBrokerStartup
	KindControllerMoveLeader
	KindBrokerCrash
	KindBrokerUncleanCrash
	KindBrokerRestart
	KindNetworkLoseMessage
	KindControllerFailover
	KindControllerResign
	KindBrokerReregister
	KindBrokerLearnController
	KindBrokerSendAlterPartition
	KindBrokerSessionLoss
	KindBrokerPowerLoss
	KindControllerHandleIsrChange
	KindBrokerControlledShutdown
	KindControllerElectPreferred
	KindNetworkLoseControlMessage
	KindControllerElect
	KindNetworkReadGarbage
	KindControllerRegisterBroker
	KindBrokerReplayMetadata
	KindControllerUnfenceBroker
	KindControllerFenceBroker
	KindControllerQuorumFailover
	KindControllerRenounce
	KindBrokerBeginShutdown
	KindBrokerStop
	KindControllerGrantShutdown
	numKinds
)

var kindNames = []string{
	"LeaderAppend",
	"FollowerSendFetch",
	"LeaderHandleFetch",
	"NetworkReadRecord",
	"FollowerHandleFetchResponse",
	"FollowerSendEpochRequest",
	"LeaderHandleEpochRequest",
	"FollowerHandleEpochResponse",
	"BrokerHandleLeaderAndIsr",
	"LeaderShrinkISR",
	"ControllerHandleAlterPartition",
	"LeaderHandleAlterPartitionResponse",
	"ControllerHandleBrokerFailure",
	"ControllerHandleBrokerStartup",
	"ControllerMoveLeader",
	"BrokerCrash",
	"BrokerUncleanCrash",
	"BrokerRestart",
	"NetworkLoseMessage",
	"ControllerFailover",
	"ControllerResign",
	"BrokerReregister",
	"BrokerLearnController",
	"BrokerSendAlterPartition",
	"BrokerSessionLoss",
	"BrokerPowerLoss",
	"ControllerHandleIsrChange",
	"BrokerControlledShutdown",
	"ControllerElectPreferred",
	"NetworkLoseControlMessage",
	"ControllerElect",
	"NetworkReadGarbage",
	"ControllerRegisterBroker",
	"BrokerReplayMetadata",
	"ControllerUnfenceBroker",
	"ControllerFenceBroker",
	"ControllerQuorumFailover",
	"ControllerRenounce",
	"BrokerBeginShutdown",
	"BrokerStop",
	"ControllerGrantShutdown",
}

// kindArgs is the number of arguments each kind prints.
var kindArgs = [numKinds]int{
	KindLeaderHandleFetch:         2,
	KindNetworkReadRecord:         2,
	KindLeaderHandleEpochRequest:  2,
	KindLeaderShrinkISR:           2,
	KindBrokerUncleanCrash:        3,
	KindBrokerPowerLoss:           4,
	KindNetworkReadGarbage:        2,
	KindNetworkLoseControlMessage: 2,
}

// Action codes: the kind in the low 6 bits, then up to four 4-bit arguments. Broker
// arguments are indices (printed +1); other arguments are printed as they are.
func act(kind int, args ...int) uint64 {
	a := uint64(kind)
	for i, v := range args {
		a |= uint64(v) << (6 + 4*i)
	}
	return a
}

func act1(kind, b int) uint64    { return uint64(kind) | uint64(b)<<6 }
func act2(kind, b, c int) uint64 { return uint64(kind) | uint64(b)<<6 | uint64(c)<<10 }
func argOf(a uint64, i int) int  { return int(a>>(6+4*i)) & 15 }
func kindOf(a uint64) int        { return int(a & 63) }
func (m *Model) nb() int         { return m.C.Brokers }
func bit(b int) uint8            { return 1 << b }
func has(set uint8, b int) bool  { return set&(1<<b) != 0 }
func popcount(set uint8) (n int) {
	for ; set != 0; set &= set - 1 {
		n++
	}
	return
}

// Action returns the code of the action of kind k with arguments args (broker indices
// 0-based), for tests and transcripts.
func Action(k int, args ...int) uint64 { return act(k, args...) }

// KindByName returns the kind called name, or -1.
func KindByName(name string) int {
	for k, n := range kindNames {
		if n == name {
			return k
		}
	}
	return -1
}

// ActionName is the action with its arguments: "FollowerSendFetch(2)" (brokers 1-based;
// FollowerSendFetch's code also carries the leader it fetches from, which its name leaves out,
// as the follower's state names it);
// BrokerCrash(b, staleEntries) when the checkpoint keeps stale entries,
// BrokerUncleanCrash(b, recoveryFrom, checkpointEntries), BrokerPowerLoss(b, recoveryFrom,
// newLEO, checkpointEntries).
func (m *Model) ActionName(a uint64) string {
	k := kindOf(a)
	if k >= numKinds {
		return "Action(" + strconv.FormatUint(a, 10) + ")"
	}
	n := kindArgs[k]
	if m.cp() && (k == KindControllerHandleBrokerFailure || k == KindControllerHandleBrokerStartup ||
		k == KindControllerHandleAlterPartition) {
		n = 2 // (controller incarnation, broker)
	}
	if n == 0 {
		n = 1
	}
	buf := append([]byte(kindNames[k]), '(')
	for i := 0; i < n; i++ {
		if i > 0 {
			buf = append(buf, ',')
		}
		v := argOf(a, i)
		if i < 2 && !((k == KindBrokerUncleanCrash || k == KindBrokerPowerLoss || k == KindNetworkLoseControlMessage) && i > 0) {
			v++ // broker
		}
		buf = strconv.AppendInt(buf, int64(v), 10)
	}
	return string(append(buf, ')'))
}

// ActionKind is the kind index of a.
func (m *Model) ActionKind(a uint64) int { return kindOf(a) }

// ActionKinds names the kinds of action.
func (m *Model) ActionKinds() []string { return kindNames }

// Fairness levels, numbered as checker.Fairness numbers them.
const (
	Unfair = 0
	Weak   = 1
)

// Fairness is the default fairness of a kind: producer writes and faults (crashes, lag,
// message loss, controlled leader changes) are unfair; every protocol step, including a
// crashed broker's restart, is weakly fair.
func (m *Model) Fairness(kind int) int {
	switch kind {
	case KindLeaderAppend, KindLeaderShrinkISR, KindControllerMoveLeader,
		KindBrokerCrash, KindBrokerUncleanCrash, KindBrokerPowerLoss, KindNetworkLoseMessage,
		KindControllerFailover, KindBrokerSessionLoss,
		KindBrokerControlledShutdown, KindControllerElectPreferred, KindNetworkLoseControlMessage,
		KindControllerQuorumFailover:
		return Unfair
	}
	return Weak
}

// Init appends the initial state: broker 1 leads epoch 1 with every broker in the ISR (as
// after the controller's first election and LeaderAndIsr), every log empty; the followers
// fetch from broker 1 in epoch 1.
func (m *Model) Init(buf []State) []State {
	var s State
	all := uint8(1<<m.nb() - 1)
	s.Ctrl = Controller{Leader: 1, Epoch: 1, ISR: all, Live: all}
	for b := 0; b < m.nb(); b++ {
		s.Ctrl.BEpoch[b] = 1
		r := &s.B[b]
		r.Alive = true
		r.Leader = 1
		r.Epoch = 1
		if b == 0 {
			r.Role = RoleLeader
			r.ISR, r.MaxISR = all, all
			if m.p.AssignOnLeader {
				r.assign(1, 0) // Partition.makeLeader: maybeAssignEpochStartOffset (KAFKA-7415)
			}
		} else {
			r.Role = RoleFollower
			m.startFetching(r)
		}
	}
	if m.cp() {
		m.cpInit(&s)
	}
	if m.kraft() {
		m.krInit(&s)
	}
	return append(buf, s)
}

// Next appends the successors of s, in a fixed order: per broker its leader, follower,
// network and controller steps, then the faults.
func (m *Model) Next(s *State, succ []State, acts []uint64) ([]State, []uint64) {
	g := gen{m: m, s: s, succ: succ, acts: acts}
	m.next(&g)
	return g.succ, g.acts
}

// Bounds of the model that can cut a step, in the order Bounds names them: max_epoch (a
// step that needs a larger leader epoch), max_records (a producer write), each fault
// budget, and controllers (a failover that needs another controller incarnation).
const (
	BoundMaxEpoch = iota
	BoundMaxRecords
	BoundCrash // BoundCrash+f is the budget of fault f (FaultCrash, ...)
	BoundUnclean
	BoundLag
	BoundLoss
	BoundLeaderChange
	BoundSessionLoss
	BoundFailover
	BoundControllers
	BoundPowerLoss
	BoundControlledShutdown // BoundControlledShutdown+f-FaultControlledShutdown is fault f's
	BoundPreferred
	BoundControlLoss
	BoundQuorumFailover
	numBounds
)

// Bounds names the model's bounds with their values, as the spec names them:
// "max_epoch=4" (checker.Bounded).
func (m *Model) Bounds() []string {
	c := &m.C
	vals := [numBounds]int{c.MaxEpoch, c.MaxRecords, c.Crash, c.UncleanCrash, c.Lag, c.MessageLoss,
		c.LeaderChange, c.SessionLoss, c.Failover, max(c.Controllers, 1), c.PowerLoss,
		c.ControlledShutdown, c.PreferredElection, c.ControlLoss, c.QuorumFailover}
	names := [numBounds]string{"max_epoch", "max_records", "crash", "unclean_crash", "lag", "message_loss",
		"leader_change", "session_loss", "controller_failover", "controllers", "power_loss",
		"controlled_shutdown", "preferred_election", "control_loss", "quorum_failover"}
	out := make([]string, numBounds)
	for i := range out {
		out[i] = names[i] + "=" + strconv.Itoa(vals[i])
	}
	return out
}

// NextCut is Next that also reports the steps a bound cut in s (checker.Bounded): each is
// a step whose protocol guards hold but which needs a leader epoch above max_epoch, a
// write beyond max_records, a fault beyond its budget or a controller beyond controllers.
func (m *Model) NextCut(s *State, succ []State, acts []uint64, cut []uint64, by []int) ([]State, []uint64, []uint64, []int) {
	g := gen{m: m, s: s, succ: succ, acts: acts, cutOn: true, cut: cut, by: by}
	m.next(&g)
	return g.succ, g.acts, g.cut, g.by
}

func (m *Model) next(g *gen) {
	first := len(g.succ)
	for b := 0; b < m.nb(); b++ {
		m.leaderSteps(g, b)
		m.followerSteps(g, b)
		m.brokerSteps(g, b)
		m.shutdownSteps(g, b)
		m.controllerSteps(g, b)
	}
	if m.cp() {
		m.controlPlaneSteps(g)
	}
	if m.kraft() {
		m.kraftSteps(g)
	}
	for b := 0; b < m.nb(); b++ {
		m.faultSteps(g, b)
	}
	if m.on(Kafka18723SendSide) {
		for i := first; i < len(g.succ); i++ {
			m.abortCutSends(&g.succ[i])
		}
	}
}

// gen collects successors; emit starts a successor as a copy of s. With cutOn it also
// collects the steps a bound cut (NextCut).
type gen struct {
	m     *Model
	s     *State
	succ  []State
	acts  []uint64
	cutOn bool
	cut   []uint64
	by    []int
	ch    choices // the choice points of the step being generated (order.go)
}

// cutStep records that bound cut the step a.
func (g *gen) cutStep(a uint64, bound int) {
	if n := len(g.cut); n > 0 && g.cut[n-1] == a && g.by[n-1] == bound {
		return // another way the same step's elections can go (order.go)
	}
	if g.cutOn {
		g.cut = append(g.cut, a)
		g.by = append(g.by, bound)
	}
}

// emit appends a copy of the current state with action a and returns it for editing.
func (g *gen) emit(a uint64) *State {
	g.succ = append(g.succ, *g.s)
	g.acts = append(g.acts, a)
	return &g.succ[len(g.succ)-1]
}

// budget reports whether fault f has budget left.
func (m *Model) budget(s *State, f int) bool {
	lim := [numFaults]int{m.C.Crash, m.C.UncleanCrash, m.C.Lag, m.C.MessageLoss, m.C.LeaderChange, m.C.PowerLoss,
		m.C.ControlledShutdown, m.C.PreferredElection, m.C.ControlLoss}
	return int(s.Used[f]) < lim[f]
}

// Valid checks the invariants of State's types (Replica's numbered list, the controller
// and the network bounds) and returns the first one broken, or nil. It is used at the
// gateways: trace loading and tests.
func (m *Model) Valid(s *State) error {
	bad := func(b int, what string) error {
		return errString("model: b" + strconv.Itoa(b+1) + ": " + what)
	}
	for b := 0; b < MaxBrokers; b++ {
		r := &s.B[b]
		if b >= m.nb() {
			if *r != (Replica{}) {
				return bad(b, "state beyond the broker count")
			}
			continue
		}
		if int(r.LEO) > MaxLog || int(r.NCache) > MaxEpoch {
			return bad(b, "log or cache length out of range")
		}
		for i := int(r.LEO); i < MaxLog; i++ {
			if r.Log[i] != (Entry{}) {
				return bad(b, "log entry beyond the log end")
			}
		}
		for i := int(r.NCache); i < MaxEpoch; i++ {
			if r.Cache[i] != (EpochEntry{}) {
				return bad(b, "cache entry beyond the cache length")
			}
		}
		if r.HW > r.LEO {
			return bad(b, "high watermark above the log end")
		}
		for i := 1; i < int(r.NCache); i++ {
			if r.Cache[i].Epoch <= r.Cache[i-1].Epoch || r.Cache[i].Start <= r.Cache[i-1].Start {
				return bad(b, "leader-epoch cache not strictly monotonic")
			}
		}
		if r.Role != RoleLeader && (r.ISR != 0 || r.MaxISR != 0 || r.LESO != 0 || r.FLEO != [MaxBrokers]uint8{} || r.Pending) {
			return bad(b, "leader state on a non-leader")
		}
		if r.MaxISR&r.ISR != r.ISR || (!r.Pending && r.MaxISR != r.ISR) {
			return bad(b, "maximal ISR inconsistent with the ISR")
		}
	}
	if err := m.validOrder(&s.Ord); err != nil {
		return err
	}
	for i := 0; i < MaxMsgs; i++ {
		if i >= int(s.Net.Len) && s.Net.Msgs[i] != (Msg{}) {
			return errString("model: message beyond the network length")
		}
		if i > 0 && i < int(s.Net.Len) && s.Net.Msgs[i-1].cmp(&s.Net.Msgs[i]) > 0 {
			return errString("model: network not sorted")
		}
	}
	return nil
}
