package model

// Version profiles: which mechanisms of Kafka's replication exist, and which fixes are in,
// for a Kafka release line, so that a check runs a combination of code that shipped. Each
// mechanism names the change that brought it, the release that first shipped it (the first
// tag of the apache/kafka repository whose history holds the commit) and the code it
// changed. Fix switches (Config.Fix*) apply on top of a profile; Config.Without removes a
// fix the profile contains, to check the release as it was just before the fix.
//
// Left out of every profile, each always as in current Kafka: KIP-279 (2.0:
// OffsetsForLeaderEpoch answers with the epoch and the follower looks it up; no profile
// between 1.1 and 2.8 is offered, so the model never needs the 2.0-2.7 strategy), KAFKA-10706
// (2.7: the cache is truncated even at an offset >= LEO), KAFKA-13207 (3.0: a response for
// a partition removed from the fetcher is dropped; the model drops it on LeaderAndIsr),
// KAFKA-15510 (3.7: lastFetchedEpoch kept on an empty response; before it, the first empty
// response after (re)initialising the fetch state cleared it) and KAFKA-15021 (3.6, KRaft:
// no leader-epoch bump on an ISR change; the ZooKeeper controller of every release here
// bumps only the partition epoch, zkVersion, on a leader's ISR change, as the model does).

// Profile is one release line: the mechanisms it has.
type Profile struct {
	Name    string // as a spec writes it: "2.8"
	Release string // the release and its date
	// Truncation is how a replica that becomes follower truncates (TruncHighWatermark, ...).
	Truncation int
	// KIP320 (2.1, KAFKA-7395): fetch and OffsetsForLeaderEpoch requests carry the
	// follower's currentLeaderEpoch; the leader answers FENCED_LEADER_EPOCH or
	// UNKNOWN_LEADER_EPOCH on a mismatch (Partition.localLogWithEpochOrException). Before
	// it, a replica answers any fetch while it believes it leads.
	KIP320 bool
	// AssignOnLeader (2.1, KAFKA-7415): Partition.makeLeader assigns the new epoch at the
	// log end offset in the leader-epoch cache; before it, the first append does.
	AssignOnLeader bool
	// ISRJoinLESO (2.1, KAFKA-7128): a follower joins the ISR only once its log end offset
	// reaches the leader epoch's start offset (Partition.isFollowerInSync).
	ISRJoinLESO bool
	// AlterPartition (2.7, KIP-497, KAFKA-10270): the leader asks the controller to change the
	// ISR (AlterIsr, later AlterPartition) and waits; before it, Partition.updateIsr writes
	// the ISR to ZooKeeper itself, conditional on the zkVersion it knows, and the controller
	// learns it from an ISR change notification (KafkaController.processIsrChangeNotification).
	AlterPartition bool
	// SkipDivergingUpdate (3.0, KAFKA-13141): the leader does not update a follower's fetch
	// state (its log end offset, the ISR, the high watermark) from a fetch answered with a
	// diverging epoch.
	SkipDivergingUpdate bool
	// DirFsync (3.0, KAFKA-3968): Utils.atomicMoveWithFallback fsyncs the parent directory
	// after the rename, so a checkpoint file written before a power loss survives it; before,
	// the rename may be lost and the file come back as an earlier version.
	DirFsync bool
	// AlterValidation33 (3.3, PR 12032 and KIP-841): the ZooKeeper controller's
	// AlterPartition validation checks the leader epoch for equality and the partition
	// epoch, and refuses ISR members that are not live (INELIGIBLE_REPLICA); 2.7-3.2 refused
	// only a lower leader epoch and wrote the rest conditionally on the request's zkVersion.
	AlterValidation33 bool
	// KIP903 (3.5, KAFKA-14617): a joining follower's broker epoch from its fetch must be its
	// current registration's.
	KIP903 bool
	// HWMinISR (3.7, KAFKA-15583): the high watermark does not advance while the ISR is below
	// min.insync.replicas (Partition.maybeIncrementLeaderHW).
	HWMinISR bool
	// AsyncTruncFlush (3.8, KAFKA-16541): a truncation of the leader-epoch cache writes the
	// checkpoint file from a scheduled task (LeaderEpochFileCache.truncateFromEndAsyncFlush),
	// so a crash before it runs leaves the file with the entries the truncation removed;
	// before, the write was synchronous. Assignments are written synchronously in every
	// release.
	AsyncTruncFlush bool
	// ResponseEpochGuard (4.1, KAFKA-18991, PR 19223): the fetcher ignores a response whose
	// request's currentLeaderEpoch is not the fetch state's (AbstractFetcherThread.
	// processFetchRequest).
	ResponseEpochGuard bool
	// ZooKeeper: the release has the ZooKeeper controller (controllers >= 2); 4.0 removed it.
	ZooKeeper bool
	// Fixes the release contains, as fix bits (FixBit6082, ...).
	Fixes uint8
}

// Fix bits, for Profile.Fixes and Config.Without.
const (
	FixBit6082  uint8 = 1 << iota // KAFKA-6082 (2.1): store writes fenced by the controller-epoch version
	FixBit14154                   // KAFKA-14154 (3.3, PR 12506): NOT_CONTROLLER to a request ahead of the controller
	FixBit18723                   // KAFKA-18723 (3.9.1, 4.0, PR 18852): no batch above the fetch's epoch appended
)

// Profiles are the release lines a spec can name, oldest first.
var Profiles = []Profile{
	{Name: "0.10", Release: "0.10.2.0 (February 2017): before KIP-101",
		Truncation: TruncHighWatermark, ZooKeeper: true},
	{Name: "0.11", Release: "0.11.0.0 (June 2017): KIP-101 leader epochs",
		Truncation: TruncLeaderEpoch, ZooKeeper: true},
	{Name: "1.1", Release: "1.1.0 (March 2018)",
		Truncation: TruncLeaderEpoch, ZooKeeper: true},
	{Name: "2.8", Release: "2.8.0 (April 2021): truncation by diverging epoch (KAFKA-10554), AlterIsr (KIP-497)",
		Truncation: TruncDivergingEpoch, KIP320: true, AssignOnLeader: true, ISRJoinLESO: true, AlterPartition: true,
		ZooKeeper: true, Fixes: FixBit6082},
	{Name: "3.3", Release: "3.3.0 (October 2022): PR 12032's AlterPartition validation, KIP-841, KAFKA-14154's fix",
		Truncation: TruncDivergingEpoch, KIP320: true, AssignOnLeader: true, ISRJoinLESO: true, AlterPartition: true,
		SkipDivergingUpdate: true, DirFsync: true, AlterValidation33: true,
		ZooKeeper: true, Fixes: FixBit6082 | FixBit14154},
	{Name: "3.9", Release: "3.9.0 (November 2024): the last release with ZooKeeper",
		Truncation: TruncDivergingEpoch, KIP320: true, AssignOnLeader: true, ISRJoinLESO: true, AlterPartition: true,
		SkipDivergingUpdate: true, DirFsync: true, AlterValidation33: true, KIP903: true, HWMinISR: true,
		AsyncTruncFlush: true, ZooKeeper: true, Fixes: FixBit6082 | FixBit14154},
	{Name: "4.0", Release: "4.0.0 (March 2025): KRaft only, KAFKA-18723's fix",
		Truncation: TruncDivergingEpoch, KIP320: true, AssignOnLeader: true, ISRJoinLESO: true, AlterPartition: true,
		SkipDivergingUpdate: true, DirFsync: true, AlterValidation33: true, KIP903: true, HWMinISR: true,
		AsyncTruncFlush: true, Fixes: FixBit6082 | FixBit14154 | FixBit18723},
	{Name: "4.1", Release: "4.1.0 (2025): KAFKA-18991's fetch response guard",
		Truncation: TruncDivergingEpoch, KIP320: true, AssignOnLeader: true, ISRJoinLESO: true, AlterPartition: true,
		SkipDivergingUpdate: true, DirFsync: true, AlterValidation33: true, KIP903: true, HWMinISR: true,
		AsyncTruncFlush: true, ResponseEpochGuard: true, Fixes: FixBit6082 | FixBit14154 | FixBit18723},
}

// DefaultVersion is the profile of a Config whose Version is "": 3.9, the last release line
// with both control planes' data plane and the ZooKeeper controller.
const DefaultVersion = "3.9"

// VersionNames are the profiles' names, oldest first.
func VersionNames() []string {
	names := make([]string, len(Profiles))
	for i, p := range Profiles {
		names[i] = p.Name
	}
	return names
}

// ProfileByName returns the profile called name ("" is DefaultVersion).
func ProfileByName(name string) (Profile, bool) {
	if name == "" {
		name = DefaultVersion
	}
	for _, p := range Profiles {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// FixNames names the fix bits as specs do.
var FixNames = map[uint8]string{FixBit6082: "KAFKA-6082", FixBit14154: "KAFKA-14154", FixBit18723: "KAFKA-18723"}

// fixesOf is the fix bits that Config's own switches turn on.
func (c *Config) fixesOf() uint8 {
	var b uint8
	if c.Fix6082 {
		b |= FixBit6082
	}
	if c.Fix14154 {
		b |= FixBit14154
	}
	if c.Fix18723 {
		b |= FixBit18723
	}
	return b
}

// effective is the set of fixes in force: the profile's, without Config.Without, plus the
// switches.
func (c *Config) effective(p *Profile) uint8 {
	return (p.Fixes &^ c.Without) | c.fixesOf()
}

// Mechanisms lists what the profile has, one short line each, with the change that brought
// it: what `kmc list kafka` prints.
func (p Profile) Mechanisms() []string {
	out := []string{"truncation: " + TruncationNames[p.Truncation]}
	add := func(on bool, s string) {
		if on {
			out = append(out, s)
		}
	}
	add(p.KIP320, "KIP-320 leader-epoch fencing of fetches (2.1)")
	add(p.AssignOnLeader, "KAFKA-7415 new leader assigns its epoch at once (2.1)")
	add(p.ISRJoinLESO, "KAFKA-7128 ISR join needs the leader epoch's start offset (2.1)")
	add(p.AlterPartition, "KIP-497 ISR changes through the controller (2.7)")
	add(!p.AlterPartition, "ISR changes written to ZooKeeper by the leader, ISR change notifications (before 2.7)")
	add(p.SkipDivergingUpdate, "KAFKA-13141 no follower-state update on a diverging fetch (3.0)")
	add(p.DirFsync, "KAFKA-3968 checkpoint renames made durable by a directory fsync (3.0)")
	add(p.AlterValidation33, "PR 12032 AlterPartition validation and KIP-841 ineligible replicas (3.3)")
	add(p.KIP903, "KIP-903 broker epochs in AlterPartition (3.5)")
	add(p.HWMinISR, "KAFKA-15583 no high watermark advance under min.insync.replicas (3.7)")
	add(p.AsyncTruncFlush, "KAFKA-16541 asynchronous checkpoint write after a truncation (3.8)")
	add(p.ResponseEpochGuard, "KAFKA-18991 fetch response must match the fetch state's epoch (4.1)")
	add(p.ZooKeeper, "ZooKeeper controller (controllers >= 2)")
	add(p.AlterValidation33, "KRaft control plane, control_plane = kraft (production from 3.3, KIP-833); KIP-966 ELR as fix KIP-966 (preview in 4.0)")
	add(true, "unclean leader election, unclean_election (0.8.2; off by default since 0.11, KIP-106)")
	add(true, "controlled shutdown, controlled_shutdown (0.8.0)")
	add(true, "preferred-replica election, preferred_election (0.8.0; automatic since 0.8.1, auto.leader.rebalance.enable)")
	add(p.ZooKeeper && p.AlterPartition, "AlterPartition resent after a lost request or response, control_loss (2.7)")
	add(p.ZooKeeper, "the active controller dies with its host, controller_host_crash (controllers >= 2)")
	for _, bit := range []uint8{FixBit6082, FixBit14154, FixBit18723} {
		if p.Fixes&bit != 0 {
			out = append(out, "fix "+FixNames[bit])
		}
	}
	return out
}
