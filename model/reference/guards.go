package reference

import "strconv"

// The port's named guards: conjuncts of Kip320.tla's actions that its authors added to
// fence a known hazard of the earlier variants (a stale leader's log replicated, a follower
// of an older epoch counted). A mutation turns one off (Config.Mutate): the action is then
// enabled where the conjunct would have disabled it. They exist only in variant Kip320;
// each is read only where its conjunct is false, so the normal path costs nothing.

// Guard is the index of a named guard in Guards.
type Guard uint8

// The guards, in Guards order.
const (
	GuardFetchLeaderEpoch Guard = iota
	GuardExpandFollowerEpoch
	GuardExpandFollowerHW
	GuardExpandHWInEpoch
	GuardIncHWFollowerEpoch
	GuardBecomeFollowerLeaderEpoch
	NumGuards
)

// GuardInfo names a guard: Doc says what it refuses, TLA the action and conjunct of
// Kip320.tla it is.
type GuardInfo struct{ Name, Doc, TLA string }

// Guards is the table of the port's guards, indexed by Guard.
var Guards = [NumGuards]GuardInfo{
	GuardFetchLeaderEpoch: {"FetchLeaderEpoch",
		"a follower replicates only from a leader of its own leader epoch",
		"Kip320 FencedFollowerFetch: IsFollowingLeaderEpoch(leader, follower)"},
	GuardExpandFollowerEpoch: {"ExpandFollowerEpoch",
		"the leader adds to the ISR only a follower of its own leader epoch",
		"Kip320 FencedLeaderExpandIsr: IsFollowingLeaderEpoch(leader, replica)"},
	GuardExpandFollowerHW: {"ExpandFollowerHW",
		"the leader adds to the ISR only a follower that reached its high watermark",
		"Kip320 FencedLeaderExpandIsr: HasFollowerReachedHighWatermark(leader, replica)"},
	GuardExpandHWInEpoch: {"ExpandHWInEpoch",
		"the leader expands the ISR only once its high watermark reached its own epoch",
		"Kip320 FencedLeaderExpandIsr: HasHighWatermarkReachedCurrentEpoch(leader)"},
	GuardIncHWFollowerEpoch: {"IncHWFollowerEpoch",
		"the leader advances its high watermark only over ISR members of its own leader epoch",
		"Kip320 FencedLeaderIncHighWatermark: \\A r \\in isr: IsFollowingLeaderEpoch(leader, r)"},
	GuardBecomeFollowerLeaderEpoch: {"BecomeFollowerLeaderEpoch",
		"a replica becomes follower only of a leader that presumes leadership in the request's epoch",
		"Kip320 FencedBecomeFollowerAndTruncate: ReplicaPresumesLeadership(leader) /\\ leaderEpoch = request epoch"},
}

// GuardBit is the bit of Config.Mutate that turns guard g off.
func GuardBit(g Guard) uint32 { return 1 << g }

// off reports whether guard g is turned off.
func (m *Model) off(g Guard) bool { return m.cfg.Mutate&(1<<g) != 0 }

// validateMutate checks that the guards turned off exist and that the variant has them.
func (c Config) validateMutate() error {
	if c.Mutate == 0 {
		return nil
	}
	if c.Mutate>>NumGuards != 0 {
		return errString("mutate: no guard " + strconv.FormatUint(uint64(c.Mutate), 2))
	}
	if c.Variant != Kip320 {
		return errString("mutate: the named guards are Kip320's; variant " + c.Variant.String() + " has none")
	}
	return nil
}

type errString string

func (e errString) Error() string { return string(e) }
