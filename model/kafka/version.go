package kafka

// Version profiles: which mechanisms of Kafka's replication exist, and which fixes are in,
// for one Kafka release, so that a check runs a combination of code that shipped. A
// profile names a release (a tag); a release line's name ("3.9") is an alias of its latest
// release in the mirrors the facts were read from. Each mechanism and fix names the change
// that brought it and the release tags that contain it, read with `git tag --contains` on
// mirrors of apache/kafka (tags to 3.9.0-rc3) and aiven/inkless (which carries the upstream
// tags 3.9.1, 4.0.0, 4.0.1, 4.1.0, 4.1.1): the commits and the commands are in
// docs/kafka-model.md, "Version profiles". 3.9.0 has no tag in either mirror; its profile
// follows commit cc53a632ed ("Bump version to 3.9.0"); 0.11's latest tag there is 0.11.0.2.
//
// Fix switches (Config.Fix*) apply on top of a profile; Config.Without removes a fix the
// profile contains, to check the release as it was just before the fix. A fix that was
// back-ported (KAFKA-13141, KAFKA-18723, KAFKA-18991) is a fix bit, so that the profiles
// of the releases with and without it differ only in that bit.
//
// Left out of every profile, each always as in current Kafka: KAFKA-10706 (2.6.1, 2.7: the
// cache is truncated even at an offset >= LEO), KAFKA-13207 (2.8.1, 3.0: a response for a
// partition removed from the fetcher is dropped; the model drops it on the LeaderAndIsr
// that moves the partition to another leader) and KAFKA-15510 (3.7: lastFetchedEpoch kept
// on an empty response; before it, the first empty response after (re)initialising the
// fetch state cleared it).

// Profile is one release: the mechanisms it has.
type Profile struct {
	Name    string // as a spec writes it: "3.9.1"
	Release string // the release and its date
	// Truncation is how a replica that becomes follower truncates (TruncHighWatermark, ...).
	Truncation int
	// KIP320 (2.1.0, KAFKA-7395): fetch and OffsetsForLeaderEpoch requests carry the
	// follower's currentLeaderEpoch; the leader answers FENCED_LEADER_EPOCH or
	// UNKNOWN_LEADER_EPOCH on a mismatch (Partition.localLogWithEpochOrException). Before
	// it, a replica answers any fetch while it believes it leads.
	KIP320 bool
	// AssignOnLeader (2.0.1, 2.1.0, KAFKA-7415): Partition.makeLeader assigns the new epoch
	// at the log end offset in the leader-epoch cache; before it, the first append does.
	AssignOnLeader bool
	// ISRJoinLESO (2.0.1, 2.1.0, KAFKA-7128): a follower joins the ISR only once its log end
	// offset reaches the leader epoch's start offset (Partition.isFollowerInSync).
	ISRJoinLESO bool
	// KIP380 (2.2.0, KAFKA-7235): the controller stamps every LeaderAndIsr with the broker
	// epoch it has cached for the receiver (ControllerChannelManager: liveBrokerIdAndEpochs),
	// and the broker refuses one whose epoch is below its own registration's
	// (KafkaApis.isBrokerEpochStale: STALE_BROKER_EPOCH; the request is not applied and the
	// controller only logs the error). A restarted broker so never acts on partition state
	// from a controller view older than its registration. Before it, a LeaderAndIsr the
	// controller built before it handled the restart is applied.
	KIP380 bool
	// AlterPartition (2.7.0, KIP-497, KAFKA-8836): the leader asks the controller to change
	// the ISR (AlterIsr, later AlterPartition) and waits; before it, Partition.updateIsr
	// writes the ISR to ZooKeeper itself, conditional on the zkVersion it knows, and the
	// controller learns it from an ISR change notification (KafkaController.
	// processIsrChangeNotification).
	AlterPartition bool
	// DirFsync (3.0.0, KAFKA-3968): Utils.atomicMoveWithFallback fsyncs the parent directory
	// after the rename, so a checkpoint file written before a power loss survives it; before,
	// the rename may be lost and the file come back as an earlier version.
	DirFsync bool
	// AlterValidation33 (3.3.0, PR 12032, KIP-841, KAFKA-14140): the ZooKeeper controller's
	// AlterPartition validation checks the leader epoch for equality and the partition
	// epoch, and refuses an ISR with a member that is not live or is shutting down
	// (INELIGIBLE_REPLICA); 2.7-3.2 refused only a lower leader epoch and wrote the rest
	// conditionally on the request's zkVersion.
	AlterValidation33 bool
	// KIP903 (3.5.0, KAFKA-14617): the KRaft controller refuses an ISR with a member whose
	// broker epoch, as the leader sends it (from the member's last fetch), is not its current
	// registration's (ReplicationControlManager.ineligibleReplicasForIsr). The ZooKeeper
	// controller never checks members' broker epochs (KafkaController.
	// tryProcessAlterPartition keeps only their ids), and its leaders send -1 for all.
	KIP903 bool
	// HWMinISR (3.7.0, KAFKA-15583): the high watermark does not advance while the ISR is below
	// min.insync.replicas (Partition.maybeIncrementLeaderHW).
	HWMinISR bool
	// AsyncTruncFlush (3.8.0, KAFKA-16541): a truncation of the leader-epoch cache writes the
	// checkpoint file from a task on the broker's scheduler (LeaderEpochFileCache.
	// truncateFromEndAsyncFlush -> scheduleOnce); before, the write was synchronous.
	// Assignments are written synchronously in every release.
	AsyncTruncFlush bool
	// ZooKeeper: the release has the ZooKeeper controller (controllers >= 2); 4.0.0 removed
	// it. Its controller bumps the leader epoch whenever it removes a replica from the ISR
	// (ReplicaStateMachine.doRemoveReplicasFromIsr -> LeaderAndIsr.newLeaderAndIsr) and a
	// broker applies a LeaderAndIsr only at a higher leader epoch (ReplicaManager.
	// becomeLeaderOrFollower); the single controller follows these rules where the release
	// has it.
	ZooKeeper bool
	// KRaftShrinkBump: KRaft at the release's default metadata version bumps the leader
	// epoch on an ISR shrink (MetadataVersion.isLeaderEpochBumpRequiredOnIsrShrink: below
	// 3.6-IV0, KAFKA-15021 (3.6.0)); the 3.3 release's KRaft runs at metadata version 3.3.
	KRaftShrinkBump bool
	// CleanShutdownDetection (4.0.0, KAFKA-18635): a KRaft broker's registration carries the
	// broker epoch its last clean shutdown wrote (.kafka_cleanshutdown, LogManager.shutdown);
	// the controller handles a clean restart as a fencing (the broker leaves the ISR and stays
	// in the ELR) and an unclean one with handleBrokerUncleanShutdown (ISR and ELR);
	// ClusterControlManager.registerBroker with previousBrokerEpoch, request version >= 3.
	// 3.9 runs the unclean handler only at a non-production metadata version (>= 4.0-IV0).
	CleanShutdownDetection bool
	// LastLeaderAcceptable (4.1.0, KAFKA-19522, e4e2dce2eb): with ELR, the last known leader is
	// elected only when it is acceptable (PartitionChangeBuilder.canElectLastKnownLeader);
	// 4.0.x tests it the wrong way round and never refuses (4.0.1 lines 315-319).
	LastLeaderAcceptable bool
	// Fixes the release contains, as fix bits (FixBit6082, ...).
	Fixes uint8
}

// Fix bits, for Profile.Fixes and Config.Without. Each names the releases (tags) that
// contain its commits.
const (
	FixBit6082  uint8 = 1 << iota // KAFKA-6082 (2.1.0): store writes fenced by the controller-epoch version
	FixBit14154                   // KAFKA-14154 (3.3.0, PR 12506 and PR 12514): NOT_CONTROLLER to a request ahead of the controller
	FixBit18723                   // KAFKA-18723 (3.9.1, 4.0.1, 4.1.0; PR 18852): no batch above the fetch's epoch appended
	FixBit13141                   // KAFKA-13141 (2.7.2, 2.8.1, 3.0.0; PR 11136): no follower-state update on a diverging fetch
	FixBit18991                   // KAFKA-18991 (3.9.1, 4.0.1, 4.1.0; PR 19223): a fetch response must be of the fetch state's epoch
	FixBitELR                     // KIP-966 (4.1.0 default for new clusters; 4.0 opt-in): eligible leader replicas, with KRaft
	numFixBits  = 6
)

// FixOrder lists the fix bits in the order they are printed.
var FixOrder = [numFixBits]uint8{FixBit6082, FixBit13141, FixBit14154, FixBit18723, FixBit18991, FixBitELR}

// The fixes each group of releases contains.
const (
	fixes27 = FixBit6082 | FixBit13141            // 2.7.2, 2.8.1, 2.8.2
	fixes33 = fixes27 | FixBit14154               // 3.3.2 .. 4.0.0
	fixes39 = fixes33 | FixBit18723 | FixBit18991 // 3.9.1, 4.0.1
	fixes41 = fixes39 | FixBitELR                 // 4.1.0, 4.1.1
)

// Mechanism sets shared by the profiles below.
var (
	p27 = Profile{Truncation: TruncEpochLookup, KIP320: true, AssignOnLeader: true, ISRJoinLESO: true, KIP380: true,
		AlterPartition: true, ZooKeeper: true}
	p28 = with(p27, func(p *Profile) { p.Truncation = TruncDivergingEpoch })
	p33 = with(p28, func(p *Profile) { p.DirFsync, p.AlterValidation33, p.KRaftShrinkBump = true, true, true })
	p39 = with(p33, func(p *Profile) {
		p.KIP903, p.HWMinISR, p.AsyncTruncFlush, p.KRaftShrinkBump = true, true, true, false
	})
	p40 = with(p39, func(p *Profile) { p.ZooKeeper, p.CleanShutdownDetection = false, true })
	p41 = with(p40, func(p *Profile) { p.LastLeaderAcceptable = true })
)

func with(p Profile, f func(*Profile)) Profile {
	f(&p)
	return p
}

func release(p Profile, name, rel string, fixes uint8) Profile {
	p.Name, p.Release, p.Fixes = name, rel, fixes
	return p
}

// Profiles are the releases a spec can name, oldest first.
var Profiles = []Profile{
	{Name: "0.10.2.2", Release: "0.10.2.2 (June 2018): before KIP-101", Truncation: TruncHighWatermark, ZooKeeper: true},
	{Name: "0.11.0.2", Release: "0.11.0.2 (November 2017): KIP-101 leader epochs", Truncation: TruncLeaderEpoch, ZooKeeper: true},
	{Name: "1.1.1", Release: "1.1.1 (July 2018)", Truncation: TruncLeaderEpoch, ZooKeeper: true},
	release(p27, "2.7.2", "2.7.2 (October 2021): AlterIsr (KIP-497), OffsetsForLeaderEpoch with the epoch (KIP-279)", fixes27),
	release(p28, "2.8.0", "2.8.0 (April 2021): truncation by diverging epoch (KAFKA-10554)", FixBit6082),
	release(p28, "2.8.1", "2.8.1 (September 2021): KAFKA-13141", fixes27),
	release(p28, "2.8.2", "2.8.2 (September 2022)", fixes27),
	release(p33, "3.3.2", "3.3.2 (December 2022): PR 12032's AlterPartition validation, KIP-841, KAFKA-14154's fix", fixes33),
	release(p39, "3.9.0", "3.9.0 (November 2024): the last release line with ZooKeeper", fixes33),
	release(p39, "3.9.1", "3.9.1 (May 2025): KAFKA-18723 and KAFKA-18991", fixes39),
	release(p40, "4.0.0", "4.0.0 (March 2025): KRaft only", fixes33),
	release(p40, "4.0.1", "4.0.1 (September 2025): KAFKA-18723 and KAFKA-18991", fixes39),
	release(p41, "4.1.0", "4.1.0 (August 2025): eligible leader replicas on for new clusters", fixes41),
	release(p41, "4.1.1", "4.1.1 (October 2025)", fixes41),
}

// Lines maps a release line's name to its latest release in Profiles.
var Lines = [][2]string{{"0.10", "0.10.2.2"}, {"0.11", "0.11.0.2"}, {"1.1", "1.1.1"}, {"2.7", "2.7.2"},
	{"2.8", "2.8.2"}, {"3.3", "3.3.2"}, {"3.9", "3.9.1"}, {"4.0", "4.0.1"}, {"4.1", "4.1.1"}}

// DefaultVersion is the profile of a Config whose Version is "": 3.9.0, the last release
// with the ZooKeeper controller and without KAFKA-18723's fix.
const DefaultVersion = "3.9.0"

// VersionNames are the names a spec may give: the releases, oldest first, then the line
// aliases.
func VersionNames() []string {
	names := make([]string, 0, len(Profiles)+len(Lines))
	for _, p := range Profiles {
		names = append(names, p.Name)
	}
	for _, l := range Lines {
		names = append(names, l[0])
	}
	return names
}

// ResolveVersion is the release a version name stands for: a line's name is its latest
// release; "" is DefaultVersion.
func ResolveVersion(name string) string {
	if name == "" {
		return DefaultVersion
	}
	for _, l := range Lines {
		if l[0] == name {
			return l[1]
		}
	}
	return name
}

// ProfileByName returns the profile called name, a release or a line ("" is
// DefaultVersion).
func ProfileByName(name string) (Profile, bool) {
	name = ResolveVersion(name)
	for _, p := range Profiles {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// effective is the set of fixes in force: the profile's, without Config.Without, plus the
// switches.
func (c *Config) effective(p *Profile) uint8 {
	return (p.Fixes &^ c.Without) | c.fixesOf()
}

// Mechanisms lists what the profile has, one short line each, with the change that brought
// it and the first releases that have it: what `kmc list kafka` prints.
func (p Profile) Mechanisms() []string {
	out := []string{"truncation: " + TruncationNames[p.Truncation]}
	add := func(on bool, s string) {
		if on {
			out = append(out, s)
		}
	}
	add(p.KIP320, "KIP-320 leader-epoch fencing of fetches (2.1.0)")
	add(p.AssignOnLeader, "KAFKA-7415 new leader assigns its epoch at once (2.0.1, 2.1.0)")
	add(p.ISRJoinLESO, "KAFKA-7128 ISR join needs the leader epoch's start offset (2.0.1, 2.1.0)")
	add(p.KIP380, "KIP-380 broker epochs: a LeaderAndIsr from a controller view older than the broker's registration is refused (2.2.0)")
	add(p.AlterPartition, "KIP-497 ISR changes through the controller (2.7.0)")
	add(!p.AlterPartition, "ISR changes written to ZooKeeper by the leader, ISR change notifications (before 2.7)")
	add(p.DirFsync, "KAFKA-3968 checkpoint renames made durable by a directory fsync (3.0.0)")
	add(p.AlterValidation33, "PR 12032 AlterPartition validation and KIP-841 ineligible replicas (3.3.0)")
	add(p.KIP903, "KIP-903 broker epochs of ISR members checked by the KRaft controller (3.5.0)")
	add(p.HWMinISR, "KAFKA-15583 no high watermark advance under min.insync.replicas (3.7.0)")
	add(p.AsyncTruncFlush, "KAFKA-16541 asynchronous checkpoint write after a truncation, lost when the scheduler has stopped (3.8.0)")
	add(p.ZooKeeper, "ZooKeeper controller (controllers >= 2); it bumps the leader epoch when it removes a replica from the ISR")
	add(p.AlterValidation33, "KRaft control plane, control_plane = kraft (production from 3.3, KIP-833)")
	add(p.AlterValidation33 && p.KRaftShrinkBump, "KRaft metadata version below 3.6: an ISR shrink bumps the leader epoch (KAFKA-15021 came in 3.6.0)")
	add(p.CleanShutdownDetection, "KRaft clean-shutdown detection at registration (KAFKA-18635, 4.0.0)")
	add(p.CleanShutdownDetection && !p.LastLeaderAcceptable, "with ELR, the last known leader elected even when fenced (KAFKA-19522, fixed in 4.1.0)")
	add(true, "unclean leader election, unclean_election (0.8.2; off by default since 0.11, KIP-106)")
	add(true, "controlled shutdown, controlled_shutdown (0.8.0)")
	add(true, "preferred-replica election, preferred_election (0.8.0; automatic since 0.8.2, auto.leader.rebalance.enable)")
	add(p.ZooKeeper && p.AlterPartition, "AlterPartition resent after a lost request or response, control_loss (2.7.0)")
	add(p.ZooKeeper, "the active controller dies with its host, controller_host_crash (controllers >= 2)")
	for _, bit := range FixOrder {
		if p.Fixes&bit != 0 {
			out = append(out, "fix "+FixName(bit))
		}
	}
	return out
}
