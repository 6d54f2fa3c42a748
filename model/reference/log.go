package reference

// Operators of FiniteReplicatedLog (instanced as ReplicaLog) and the helpers of
// KafkaReplication, Kip279 and Kip101 that read logs. Replica arguments are indexes.

// end is ReplicaLog!GetEndOffset(r).
func (s *State) end(r int) int { return int(s.Logs[r].End) }

// hasOffset is ReplicaLog!HasOffset(r, o).
func (s *State) hasOffset(r, o int) bool { return o >= 0 && o < int(s.Logs[r].End) }

// rec is ReplicaLog!GetRecordAtOffset(r, o) for o below the end offset.
func (s *State) rec(r, o int) Record { return s.Logs[r].Records[o] }

// hasEntry is ReplicaLog!HasEntry(r, rec, o).
func (s *State) hasEntry(r int, rec Record, o int) bool {
	return s.hasOffset(r, o) && s.Logs[r].Records[o] == rec
}

// truncateTo is the effect of ReplicaLog!TruncateTo(r, newEnd); its guard
// newEnd <= end(r) is checked by the caller. Records at and after newEnd become Nil.
func (s *State) truncateTo(r, newEnd int) {
	l := &s.Logs[r]
	for o := newEnd; o < MaxLogSize; o++ {
		l.Records[o] = Record{}
	}
	l.End = int8(newEnd)
}

// appendRecord is the effect of ReplicaLog!Append(r, rec, end(r)); its guard (the log
// is not full) is checked by the caller.
func (s *State) appendRecord(r int, rec Record) {
	l := &s.Logs[r]
	l.Records[l.End] = rec
	l.End++
}

// presumes is ReplicaPresumesLeadership(r).
func (s *State) presumes(r int) bool { return int(s.Replicas[r].Leader) == r }

// following is ReplicaIsFollowing(f, l).
func (s *State) following(f, l int) bool { return int(s.Replicas[f].Leader) == l }

// isTrueLeader is KafkaReplication's IsTrueLeader(l).
func (s *State) isTrueLeader(l int) bool {
	return int(s.Quorum.Leader) == l && s.presumes(l) && s.Replicas[l].LeaderEpoch == s.Quorum.LeaderEpoch
}

// isFollowerCaughtUp is KafkaReplication's IsFollowerCaughtUp(l, f, endOffset): f
// follows l and, when endOffset > 0, both logs hold offset endOffset-1 (the leader's
// entry there is some record of LogRecords).
func (s *State) isFollowerCaughtUp(l, f, endOffset int) bool {
	if !s.following(f, l) {
		return false
	}
	if endOffset == 0 {
		return true
	}
	return endOffset > 0 && s.hasOffset(l, endOffset-1) && s.hasOffset(f, endOffset-1)
}

// firstNonMatchingOffsetFromTail is Kip279's FirstNonMatchingOffsetFromTail(l, f): 0
// when the leader's log is empty; otherwise one more than the largest offset at which
// the follower's entry is also the leader's entry, or 0 when there is none.
func (s *State) firstNonMatchingOffsetFromTail(l, f int) int {
	if s.end(l) == 0 {
		return 0
	}
	for o := s.end(f) - 1; o >= 0; o-- {
		if s.hasEntry(l, s.rec(f, o), o) {
			return o + 1
		}
	}
	return 0
}

// lookupOffsetForEpoch is Kip101's LookupOffsetForEpoch(l, f, epoch).
func (s *State) lookupOffsetForEpoch(l, f int, epoch int8) int {
	if s.end(l) == 0 {
		return int(s.Replicas[f].HW)
	}
	if s.rec(l, s.end(l)-1).Epoch == epoch {
		return s.end(l)
	}
	// Min of OffsetsWithLargerEpochs(l, epoch).
	for o := 0; o < s.end(l); o++ {
		if s.rec(l, o).Epoch > epoch {
			return o
		}
	}
	return int(s.Replicas[f].HW)
}

// isFollowerCaughtUpToLeaderEpoch is Kip320FirstTry's
// IsFollowerCaughtUpToLeaderEpoch(l, f, endOffset).
func (s *State) isFollowerCaughtUpToLeaderEpoch(l, f, endOffset int) bool {
	if !s.presumes(l) || !s.following(f, l) {
		return false
	}
	if endOffset == 0 {
		return true
	}
	o := endOffset - 1
	return endOffset > 0 && s.hasOffset(l, o) && s.hasOffset(f, o) && s.rec(f, o).Epoch == s.rec(l, o).Epoch
}

// followerNeedsTruncation is Kip320FirstTry's FollowerNeedsTruncation(f, l).
func (s *State) followerNeedsTruncation(f, l int) bool {
	if s.end(f) > s.end(l) {
		return true
	}
	if s.end(f) == 0 {
		return false
	}
	o := s.end(f) - 1
	return s.hasOffset(l, o) && s.rec(l, o).Epoch != s.rec(f, o).Epoch
}

// hasHighWatermarkReachedCurrentEpoch is HasHighWatermarkReachedCurrentEpoch(l) of
// Kip320FirstTry and Kip320 (the same LOCAL definition in both).
func (s *State) hasHighWatermarkReachedCurrentEpoch(l int) bool {
	hw := int(s.Replicas[l].HW)
	if hw == s.end(l) {
		return true
	}
	return s.hasOffset(l, hw) && s.rec(l, hw).Epoch == s.Replicas[l].LeaderEpoch
}

// isFollowingLeaderEpoch is Kip320's IsFollowingLeaderEpoch(l, f).
func (s *State) isFollowingLeaderEpoch(l, f int) bool {
	return s.presumes(l) && s.following(f, l) && s.Replicas[f].LeaderEpoch == s.Replicas[l].LeaderEpoch
}

// hasFollowerReachedHighWatermark is Kip320's HasFollowerReachedHighWatermark(l, f).
func (s *State) hasFollowerReachedHighWatermark(l, f int) bool {
	hw := int(s.Replicas[l].HW)
	return hw == 0 || (hw > 0 && s.hasOffset(f, hw-1))
}

func min8(a, b int) int8 {
	if a < b {
		return int8(a)
	}
	return int8(b)
}
