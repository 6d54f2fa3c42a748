package reference

// Global action kinds: every TLA+ action that appears in some variant's Next. A model
// exposes the kinds of its variant only (ActionKinds), in the order of the module's Next.
const (
	kControllerElectLeader = iota
	kControllerShrinkIsr
	kBecomeLeader
	kLeaderExpandIsr
	kLeaderShrinkIsr
	kLeaderWrite
	kLeaderIncHighWatermark
	kBecomeFollowerTruncateToHighWatermark
	kBecomeFollowerTruncateKip101
	kBecomeFollowerTruncateKip279
	kFollowerReplicate
	kLeaderExpandIsrBetterFencing
	kLeaderShrinkIsrBetterFencing
	kImprovedLeaderIncHighWatermark
	kBecomeFollower
	kFollowerFetch
	kFollowerTruncate
	kFencedLeaderExpandIsr
	kFencedLeaderShrinkIsr
	kFencedLeaderIncHighWatermark
	kFencedBecomeFollowerAndTruncate
	kFencedFollowerFetch
	numKinds
)

// kindNames are the TLA+ action names, indexed by global kind.
var kindNames = [numKinds]string{
	"ControllerElectLeader",
	"ControllerShrinkIsr",
	"BecomeLeader",
	"LeaderExpandIsr",
	"LeaderShrinkIsr",
	"LeaderWrite",
	"LeaderIncHighWatermark",
	"BecomeFollowerTruncateToHighWatermark",
	"BecomeFollowerTruncateKip101",
	"BecomeFollowerTruncateKip279",
	"FollowerReplicate",
	"LeaderExpandIsrBetterFencing",
	"LeaderShrinkIsrBetterFencing",
	"ImprovedLeaderIncHighWatermark",
	"BecomeFollower",
	"FollowerFetch",
	"FollowerTruncate",
	"FencedLeaderExpandIsr",
	"FencedLeaderShrinkIsr",
	"FencedLeaderIncHighWatermark",
	"FencedBecomeFollowerAndTruncate",
	"FencedFollowerFetch",
}

// variantKinds lists, per variant, the disjuncts of the module's Next in its order.
var variantKinds = [AsyncIsr][]int{
	TruncateToHighWatermark: {kControllerElectLeader, kControllerShrinkIsr, kBecomeLeader,
		kLeaderExpandIsr, kLeaderShrinkIsr, kLeaderWrite, kLeaderIncHighWatermark,
		kBecomeFollowerTruncateToHighWatermark, kFollowerReplicate},
	Kip101: {kControllerElectLeader, kControllerShrinkIsr, kBecomeLeader,
		kLeaderExpandIsr, kLeaderShrinkIsr, kLeaderWrite, kLeaderIncHighWatermark,
		kBecomeFollowerTruncateKip101, kFollowerReplicate},
	Kip279: {kControllerElectLeader, kControllerShrinkIsr, kBecomeLeader,
		kLeaderExpandIsr, kLeaderShrinkIsr, kLeaderWrite, kLeaderIncHighWatermark,
		kBecomeFollowerTruncateKip279, kFollowerReplicate},
	Kip320FirstTry: {kControllerElectLeader, kControllerShrinkIsr, kBecomeLeader,
		kLeaderExpandIsrBetterFencing, kLeaderShrinkIsrBetterFencing, kLeaderWrite,
		kImprovedLeaderIncHighWatermark, kBecomeFollower, kFollowerFetch, kFollowerTruncate},
	Kip320: {kControllerElectLeader, kControllerShrinkIsr, kBecomeLeader,
		kFencedLeaderExpandIsr, kFencedLeaderShrinkIsr, kLeaderWrite,
		kFencedLeaderIncHighWatermark, kFencedBecomeFollowerAndTruncate, kFencedFollowerFetch},
}

// An action code is kind | a<<8 | b<<16 | c<<24: the global kind and the values of the
// action's existentially bound variables, in the order the module binds them. Replicas
// are indexes, epochs are epochs. The code of a step names the same action in every state.
func code(kind, a, b, c int) uint64 {
	return uint64(kind) | uint64(a)<<8 | uint64(b)<<16 | uint64(c)<<24
}

func decode(a uint64) (kind, x, y, z int) {
	return int(a & 0xff), int(a >> 8 & 0xff), int(a >> 16 & 0xff), int(a >> 24 & 0xff)
}

// Next appends the successors of s, disjunct by disjunct of the variant's Next, each in
// the order of its bound variables.
func (m *Model) Next(s *State, succ []State, acts []uint64) ([]State, []uint64) {
	for _, k := range m.kinds {
		succ, acts = m.next(k, s, succ, acts)
	}
	return succ, acts
}

// Bounds of the port that can cut a step, in the order Bounds names them.
const (
	boundMaxLeaderEpoch = iota
	boundMaxRecords
	boundLogSize
)

// Bounds names the constants that bound the module's state space (checker.Bounded):
// MaxLeaderEpoch (LeaderEpochSeq!NextId), MaxRecords (RecordSeq!NextId) and LogSize (a
// full log), as the spec names them.
func (m *Model) Bounds() []string {
	return []string{"max_leader_epoch=" + itoa(m.cfg.MaxLeaderEpoch), "max_records=" + itoa(m.cfg.MaxRecords),
		"log_size=" + itoa(m.cfg.LogSize)}
}

// NextCut is Next that also reports the steps the module's bounds cut in s: a controller
// election or ISR change when the leader-epoch sequence is exhausted, a leader write when
// the record-id sequence is exhausted or the leader's log is full. In TLA+ these are
// guards of the module's finite sequences; the steps exist in the unbounded protocol.
func (m *Model) NextCut(s *State, succ []State, acts []uint64, cut []uint64, by []int) ([]State, []uint64, []uint64, []int) {
	succ, acts = m.Next(s, succ, acts)
	n := m.n
	q := s.Quorum
	for _, k := range m.kinds {
		switch k {
		case kControllerElectLeader, kControllerShrinkIsr:
			if m.canBumpEpoch(s) {
				continue
			}
			for r := 0; r < n; r++ {
				elect := k == kControllerElectLeader && q.ISR.Has(r) && int(q.Leader) != r
				shrink := k == kControllerShrinkIsr && (int(q.Leader) == r || q.ISR.Has(r))
				if elect || shrink {
					cut, by = append(cut, code(k, r, 0, 0)), append(by, boundMaxLeaderEpoch)
				}
			}
		case kLeaderWrite:
			for r := 0; r < n; r++ {
				if !s.presumes(r) {
					continue
				}
				switch {
				case int(s.NextRecordID) > m.cfg.MaxRecords-1:
					cut, by = append(cut, code(k, r, 0, 0)), append(by, boundMaxRecords)
				case s.end(r) == m.cfg.LogSize:
					cut, by = append(cut, code(k, r, 0, 0)), append(by, boundLogSize)
				}
			}
		}
	}
	return succ, acts, cut, by
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// push appends a copy of s and its action code and returns a pointer to the copy.
func push(s *State, succ *[]State, acts *[]uint64, a uint64) *State {
	*succ = append(*succ, *s)
	*acts = append(*acts, a)
	return &(*succ)[len(*succ)-1]
}

func (m *Model) next(k int, s *State, succ []State, acts []uint64) ([]State, []uint64) {
	n := m.n
	switch k {
	case kControllerElectLeader:
		// KafkaReplication ControllerElectLeader: \E newLeader \in quorumState.isr with
		// newLeader # quorumState.leader; ControllerUpdateIsr(newLeader, quorumState.isr).
		if !m.canBumpEpoch(s) {
			break
		}
		for r := 0; r < n; r++ {
			if s.Quorum.ISR.Has(r) && int(s.Quorum.Leader) != r {
				t := push(s, &succ, &acts, code(k, r, 0, 0))
				controllerUpdateIsr(t, r, s.Quorum.ISR)
			}
		}
	case kControllerShrinkIsr:
		// KafkaReplication ControllerShrinkIsr: \E replica \in Replicas, three cases:
		// the leader with ISR {replica} fails (leader None, ISR unchanged); the leader
		// fails otherwise (leader None, replica leaves the ISR); another ISR member fails
		// (replica leaves the ISR). The last case has no guard on the ISR being larger
		// than {replica} in the module's latest version, so the ISR can become empty.
		if !m.canBumpEpoch(s) {
			break
		}
		q := s.Quorum
		for r := 0; r < n; r++ {
			switch {
			case int(q.Leader) == r && q.ISR == Set(0).With(r):
				controllerUpdateIsr(push(s, &succ, &acts, code(k, r, 0, 0)), None, q.ISR)
			case int(q.Leader) == r:
				controllerUpdateIsr(push(s, &succ, &acts, code(k, r, 0, 0)), None, q.ISR.Without(r))
			case q.ISR.Has(r):
				controllerUpdateIsr(push(s, &succ, &acts, code(k, r, 0, 0)), int(q.Leader), q.ISR.Without(r))
			}
		}
	case kBecomeLeader:
		// KafkaReplication BecomeLeader: \E leaderAndIsrRequest with leader # None and a
		// leader epoch above the leader's; the leader takes epoch, leadership and ISR and
		// keeps its high watermark.
		for e := 0; e < int(s.NextLeaderEpoch); e++ {
			req := s.Requests[e]
			l := int(req.Leader)
			if l == None || int8(e) <= s.Replicas[l].LeaderEpoch {
				continue
			}
			t := push(s, &succ, &acts, code(k, l, e, 0))
			t.Replicas[l] = ReplicaState{HW: s.Replicas[l].HW, LeaderEpoch: int8(e), Leader: int8(l), ISR: req.ISR}
		}
	case kLeaderWrite:
		// KafkaReplication LeaderWrite: \E replica, id, offset: a presumed leader appends
		// [id |-> nextRecordId, epoch |-> its leader epoch] at its end offset.
		if int(s.NextRecordID) > m.cfg.MaxRecords-1 {
			break
		}
		for r := 0; r < n; r++ {
			if !s.presumes(r) || s.end(r) == m.cfg.LogSize {
				continue
			}
			t := push(s, &succ, &acts, code(k, r, 0, 0))
			t.appendRecord(r, Record{ID: s.NextRecordID, Epoch: s.Replicas[r].LeaderEpoch})
			t.NextRecordID++
		}
	case kLeaderShrinkIsr, kLeaderShrinkIsrBetterFencing, kFencedLeaderShrinkIsr:
		// KafkaReplication LeaderShrinkIsr, Kip320FirstTry LeaderShrinkIsrBetterFencing,
		// Kip320 FencedLeaderShrinkIsr: \E leader, replica \in isr \ {leader} that is not
		// caught up (by each module's test); QuorumUpdateLeaderAndIsr(leader, isr \ {replica}).
		for l := 0; l < n; l++ {
			if !s.isTrueLeader(l) {
				continue // QuorumUpdateLeaderAndIsr is disabled
			}
			isr := s.Replicas[l].ISR
			for f := 0; f < n; f++ {
				if f == l || !isr.Has(f) {
					continue
				}
				var lagging bool
				switch k {
				case kLeaderShrinkIsr:
					lagging = !s.isFollowerCaughtUp(l, f, s.end(l))
				case kLeaderShrinkIsrBetterFencing:
					lagging = !s.isFollowerCaughtUpToLeaderEpoch(l, f, s.end(l))
				default:
					lagging = !s.isFollowingLeaderEpoch(l, f) || s.end(f) < s.end(l)
				}
				if lagging {
					quorumUpdateLeaderAndIsr(push(s, &succ, &acts, code(k, l, f, 0)), l, isr.Without(f))
				}
			}
		}
	case kLeaderExpandIsr, kLeaderExpandIsrBetterFencing, kFencedLeaderExpandIsr:
		// KafkaReplication LeaderExpandIsr, Kip320FirstTry LeaderExpandIsrBetterFencing,
		// Kip320 FencedLeaderExpandIsr: \E leader, replica \in Replicas \ isr that has
		// caught up (by each module's test); QuorumUpdateLeaderAndIsr(leader, isr \union {replica}).
		for l := 0; l < n; l++ {
			if !s.isTrueLeader(l) {
				continue
			}
			isr := s.Replicas[l].ISR
			hw := int(s.Replicas[l].HW)
			for f := 0; f < n; f++ {
				if isr.Has(f) {
					continue
				}
				var ok bool
				switch k {
				case kLeaderExpandIsr:
					ok = s.isFollowerCaughtUp(l, f, hw)
				case kLeaderExpandIsrBetterFencing:
					ok = s.isFollowerCaughtUpToLeaderEpoch(l, f, hw) && s.hasHighWatermarkReachedCurrentEpoch(l)
				default:
					ok = (s.isFollowingLeaderEpoch(l, f) || m.off(GuardExpandFollowerEpoch)) &&
						(s.hasFollowerReachedHighWatermark(l, f) || m.off(GuardExpandFollowerHW)) &&
						(s.hasHighWatermarkReachedCurrentEpoch(l) || m.off(GuardExpandHWInEpoch))
				}
				if ok {
					quorumUpdateLeaderAndIsr(push(s, &succ, &acts, code(k, l, f, 0)), l, isr.With(f))
				}
			}
		}
	case kLeaderIncHighWatermark, kImprovedLeaderIncHighWatermark, kFencedLeaderIncHighWatermark:
		// KafkaReplication LeaderIncHighWatermark (every member of the leader's ISR
		// follows it and holds offset hw), Kip320FirstTry ImprovedLeaderIncHighWatermark
		// (the leader holds offset hw and every ISR member matches the epoch at hw),
		// Kip320 FencedLeaderIncHighWatermark (the leader holds offset hw and every ISR
		// member follows its epoch and holds offset hw): hw' = hw + 1.
		for l := 0; l < n; l++ {
			hw := int(s.Replicas[l].HW)
			isr := s.Replicas[l].ISR
			ok := true
			switch k {
			case kLeaderIncHighWatermark:
				ok = s.presumes(l) && hw < m.cfg.LogSize
				for f := 0; ok && f < n; f++ {
					ok = !isr.Has(f) || (s.following(f, l) && s.hasOffset(f, hw))
				}
			case kImprovedLeaderIncHighWatermark:
				ok = s.presumes(l) && s.hasOffset(l, hw)
				for f := 0; ok && f < n; f++ {
					ok = !isr.Has(f) || s.isFollowerCaughtUpToLeaderEpoch(l, f, hw+1)
				}
			default:
				ok = s.hasOffset(l, hw)
				for f := 0; ok && f < n; f++ {
					ok = !isr.Has(f) || ((s.isFollowingLeaderEpoch(l, f) || m.off(GuardIncHWFollowerEpoch)) && s.hasOffset(f, hw))
				}
			}
			if ok {
				t := push(s, &succ, &acts, code(k, l, 0, 0))
				t.Replicas[l].HW++
			}
		}
	case kBecomeFollowerTruncateToHighWatermark, kBecomeFollowerTruncateKip101,
		kBecomeFollowerTruncateKip279, kBecomeFollower, kFencedBecomeFollowerAndTruncate:
		succ, acts = m.becomeFollower(k, s, succ, acts)
	case kFollowerReplicate, kFollowerFetch, kFencedFollowerFetch:
		// KafkaReplication FollowerReplicate (the follower follows a presumed leader),
		// Kip320FirstTry FollowerFetch (IsFollowerCaughtUpToLeaderEpoch at the
		// follower's end offset), Kip320 FencedFollowerFetch (IsFollowingLeaderEpoch):
		// \E follower, leader; ReplicateTo(leader, follower) copies the leader's record at
		// the follower's end offset; the follower's hw becomes Min(leader hw, new end).
		for f := 0; f < n; f++ {
			fe := s.end(f)
			if fe == m.cfg.LogSize {
				continue
			}
			for l := 0; l < n; l++ {
				var ok bool
				switch k {
				case kFollowerReplicate:
					ok = s.presumes(l) && s.following(f, l)
				case kFollowerFetch:
					ok = s.isFollowerCaughtUpToLeaderEpoch(l, f, fe)
				default:
					ok = s.isFollowingLeaderEpoch(l, f) || m.off(GuardFetchLeaderEpoch)
				}
				if !ok || !s.hasOffset(l, fe) {
					continue
				}
				t := push(s, &succ, &acts, code(k, f, l, 0))
				t.appendRecord(f, s.rec(l, fe))
				t.Replicas[f].HW = min8(int(s.Replicas[l].HW), fe+1)
			}
		}
	case kFollowerTruncate:
		// Kip320FirstTry FollowerTruncate: \E leader, follower: the follower follows a
		// presumed leader and FollowerNeedsTruncation; it truncates to
		// FirstNonMatchingOffsetFromTail(leader, follower) and lowers its hw to it.
		for l := 0; l < n; l++ {
			if !s.presumes(l) {
				continue
			}
			for f := 0; f < n; f++ {
				if !s.following(f, l) || !s.followerNeedsTruncation(f, l) {
					continue
				}
				off := s.firstNonMatchingOffsetFromTail(l, f)
				if off > s.end(f) {
					continue // TruncateTo is disabled
				}
				t := push(s, &succ, &acts, code(k, l, f, 0))
				t.truncateTo(f, off)
				t.Replicas[f].HW = min8(off, int(s.Replicas[f].HW))
			}
		}
	}
	return succ, acts
}

// becomeFollower handles the follower transitions, all of the form \E leader, replica
// \in Replicas, leaderAndIsrRequest \in leaderAndIsrRequests with leader # replica,
// request.leader = leader and request.leaderEpoch above the replica's:
//   - KafkaTruncateToHighWatermark BecomeFollowerTruncateToHighWatermark:
//     BecomeFollowerAndTruncateTo(leader, replica, the replica's hw);
//   - Kip101 BecomeFollowerTruncateKip101: truncate to 0 when the replica's log is empty,
//     else to LookupOffsetForEpoch(leader, replica, epoch of its latest record);
//   - Kip279 BecomeFollowerTruncateKip279: truncate to 0 when the replica's log is empty,
//     or to FirstNonMatchingOffsetFromTail(leader, replica) (which is 0 then too);
//   - Kip320FirstTry BecomeFollower: no truncation, hw unchanged;
//   - Kip320 FencedBecomeFollowerAndTruncate: the leader presumes leadership in the
//     request's epoch; truncate to FirstNonMatchingOffsetFromTail(leader, replica).
//
// KafkaReplication's BecomeFollowerAndTruncateTo(leader, replica, off) truncates with
// ReplicaLog!TruncateTo, which is disabled when off is above the replica's end offset,
// and sets the replica's state to the request's epoch, leader and ISR with hw
// Min({off, hw}). Its branch for leader = None (and Kip320's) can never be taken: every
// variant binds leader to Replicas, so requests that name no leader reach no follower.
func (m *Model) becomeFollower(k int, s *State, succ []State, acts []uint64) ([]State, []uint64) {
	n := m.n
	for l := 0; l < n; l++ {
		for r := 0; r < n; r++ {
			if l == r {
				continue
			}
			for e := 0; e < int(s.NextLeaderEpoch); e++ {
				req := s.Requests[e]
				if int(req.Leader) != l || int8(e) <= s.Replicas[r].LeaderEpoch {
					continue
				}
				off := -1 // truncation offset; -1 for no truncation
				hw := int(s.Replicas[r].HW)
				switch k {
				case kBecomeFollowerTruncateToHighWatermark:
					off = hw
				case kBecomeFollowerTruncateKip101:
					if s.end(r) == 0 {
						off = 0
					} else {
						off = s.lookupOffsetForEpoch(l, r, s.rec(r, s.end(r)-1).Epoch)
					}
				case kBecomeFollowerTruncateKip279:
					off = s.firstNonMatchingOffsetFromTail(l, r)
				case kFencedBecomeFollowerAndTruncate:
					if (!s.presumes(l) || s.Replicas[l].LeaderEpoch != int8(e)) && !m.off(GuardBecomeFollowerLeaderEpoch) {
						continue
					}
					off = s.firstNonMatchingOffsetFromTail(l, r)
				}
				if off > s.end(r) {
					continue // TruncateTo is disabled
				}
				t := push(s, &succ, &acts, code(k, l, r, e))
				if off >= 0 {
					t.truncateTo(r, off)
					hw = int(min8(off, hw))
				}
				t.Replicas[r] = ReplicaState{HW: int8(hw), LeaderEpoch: int8(e), Leader: int8(l), ISR: req.ISR}
			}
		}
	}
	return succ, acts
}

// canBumpEpoch is the guard of LeaderEpochSeq!NextId in ControllerUpdateIsr.
func (m *Model) canBumpEpoch(s *State) bool { return int(s.NextLeaderEpoch) <= m.cfg.MaxLeaderEpoch }

// controllerUpdateIsr is the effect of KafkaReplication's ControllerUpdateIsr(leader,
// isr): the next leader epoch is taken, and the quorum state and the new request are
// both [leader, leaderEpoch, isr].
func controllerUpdateIsr(t *State, leader int, isr Set) {
	e := t.NextLeaderEpoch
	t.NextLeaderEpoch++
	t.Quorum = QuorumState{LeaderEpoch: e, Leader: int8(leader), ISR: isr}
	t.Requests[e] = Request{Leader: int8(leader), ISR: isr}
}

// quorumUpdateLeaderAndIsr is the effect of KafkaReplication's
// QuorumUpdateLeaderAndIsr(leader, isr), whose guard IsTrueLeader(leader) the caller
// checks: the ISR changes in the quorum and in the leader's state, with no epoch bump.
func quorumUpdateLeaderAndIsr(t *State, leader int, isr Set) {
	t.Quorum.ISR = isr
	t.Replicas[leader].ISR = isr
}
