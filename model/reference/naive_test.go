package reference

// A second, deliberately naive implementation of the same TLA+ modules, written from
// their text with maps, slices and strings: every existential quantifier enumerates its
// whole domain (records of LogRecords, offsets of Offsets, requests of the set), sets are
// maps, and a state is identified by a printed string. It shares no code with the port;
// tests compare the two over every reachable state.

import (
	"fmt"
	"sort"
	"strings"
)

const nNone = "NONE"
const nNil = -1

type nRecord struct{ id, epoch int }

type nLog struct {
	endOffset int
	records   []*nRecord // one per offset of Offsets; nil is Nil
}

type nQuorum struct {
	leaderEpoch int
	leader      string
	isr         map[string]bool
}

type nReplica struct {
	hw, leaderEpoch int
	leader          string
	isr             map[string]bool
}

type nState struct {
	replicaLog           map[string]nLog
	replicaState         map[string]nReplica
	nextRecordID         int
	nextLeaderEpoch      int
	leaderAndIsrRequests []nQuorum // a set: no two equal elements
	quorumState          nQuorum
}

type naive struct {
	variant                             Variant
	replicas                            []string
	logSize, maxRecords, maxLeaderEpoch int
	offsets                             []int
	logRecords                          []nRecord
}

func newNaive(c Config) *naive {
	nv := &naive{variant: c.Variant, logSize: c.LogSize, maxRecords: c.MaxRecords, maxLeaderEpoch: c.MaxLeaderEpoch}
	for i := 1; i <= c.Replicas; i++ {
		nv.replicas = append(nv.replicas, fmt.Sprintf("r%d", i))
	}
	for o := 0; o <= c.LogSize-1; o++ {
		nv.offsets = append(nv.offsets, o)
	}
	for id := 0; id <= c.MaxRecords-1; id++ {
		for e := 0; e <= c.MaxLeaderEpoch; e++ {
			nv.logRecords = append(nv.logRecords, nRecord{id, e})
		}
	}
	return nv
}

func setStr(s map[string]bool) string {
	var xs []string
	for k, v := range s {
		if v {
			xs = append(xs, k)
		}
	}
	sort.Strings(xs)
	return "{" + strings.Join(xs, ",") + "}"
}

func copySet(s map[string]bool) map[string]bool {
	t := map[string]bool{}
	for k, v := range s {
		if v {
			t[k] = true
		}
	}
	return t
}

func setEq(a, b map[string]bool) bool { return setStr(a) == setStr(b) }

func (q nQuorum) str() string {
	return fmt.Sprintf("[leaderEpoch=%d,leader=%s,isr=%s]", q.leaderEpoch, q.leader, setStr(q.isr))
}

func (s *nState) key() string {
	var b strings.Builder
	var names []string
	for r := range s.replicaLog {
		names = append(names, r)
	}
	sort.Strings(names)
	for _, r := range names {
		l := s.replicaLog[r]
		fmt.Fprintf(&b, "%s:log(end=%d", r, l.endOffset)
		for _, rec := range l.records {
			if rec == nil {
				b.WriteString(",Nil")
			} else {
				fmt.Fprintf(&b, ",%d/%d", rec.id, rec.epoch)
			}
		}
		rs := s.replicaState[r]
		fmt.Fprintf(&b, ") st(hw=%d,le=%d,leader=%s,isr=%s) ", rs.hw, rs.leaderEpoch, rs.leader, setStr(rs.isr))
	}
	var reqs []string
	for _, q := range s.leaderAndIsrRequests {
		reqs = append(reqs, q.str())
	}
	sort.Strings(reqs)
	fmt.Fprintf(&b, "nr=%d ne=%d reqs={%s} q=%s", s.nextRecordID, s.nextLeaderEpoch, strings.Join(reqs, ";"), s.quorumState.str())
	return b.String()
}

func (s *nState) clone() *nState {
	t := &nState{
		replicaLog:      map[string]nLog{},
		replicaState:    map[string]nReplica{},
		nextRecordID:    s.nextRecordID,
		nextLeaderEpoch: s.nextLeaderEpoch,
		quorumState:     nQuorum{s.quorumState.leaderEpoch, s.quorumState.leader, copySet(s.quorumState.isr)},
	}
	for r, l := range s.replicaLog {
		recs := make([]*nRecord, len(l.records))
		copy(recs, l.records)
		t.replicaLog[r] = nLog{l.endOffset, recs}
	}
	for r, rs := range s.replicaState {
		t.replicaState[r] = nReplica{rs.hw, rs.leaderEpoch, rs.leader, copySet(rs.isr)}
	}
	for _, q := range s.leaderAndIsrRequests {
		t.leaderAndIsrRequests = append(t.leaderAndIsrRequests, nQuorum{q.leaderEpoch, q.leader, copySet(q.isr)})
	}
	return t
}

func (nv *naive) init() *nState {
	s := &nState{replicaLog: map[string]nLog{}, replicaState: map[string]nReplica{}}
	all := map[string]bool{}
	for _, r := range nv.replicas {
		s.replicaLog[r] = nLog{0, make([]*nRecord, nv.logSize)}
		s.replicaState[r] = nReplica{0, nNil, nNone, map[string]bool{}}
		all[r] = true
	}
	s.quorumState = nQuorum{nNil, nNone, all}
	return s
}

// FiniteReplicatedLog operators.

func (s *nState) hasEntry(r string, rec nRecord, o int) bool {
	l := s.replicaLog[r]
	return o < l.endOffset && l.records[o] != nil && *l.records[o] == rec
}
func (s *nState) hasOffset(r string, o int) bool { return o < s.replicaLog[r].endOffset }
func (s *nState) isEmpty(r string) bool          { return s.replicaLog[r].endOffset == 0 }
func (nv *naive) isFull(s *nState, r string) bool {
	return s.replicaLog[r].endOffset == nv.logSize
}
func (s *nState) isLatestEntry(r string, rec nRecord, o int) bool {
	l := s.replicaLog[r]
	return !s.isEmpty(r) && o == l.endOffset-1 && l.records[o] != nil && *l.records[o] == rec
}
func (nv *naive) isLatestRecord(s *nState, r string, rec nRecord) bool {
	for _, o := range nv.offsets {
		if s.isLatestEntry(r, rec, o) {
			return true
		}
	}
	return false
}

// appendTo returns the successor of Append(r, rec, o), or nil when disabled.
func (nv *naive) appendTo(s *nState, r string, rec nRecord, o int) *nState {
	if nv.isFull(s, r) || o != s.replicaLog[r].endOffset {
		return nil
	}
	t := s.clone()
	l := t.replicaLog[r]
	c := rec
	l.records[o] = &c
	l.endOffset++
	t.replicaLog[r] = l
	return t
}

func (nv *naive) truncateTo(s *nState, r string, newEnd int) *nState {
	if newEnd > s.replicaLog[r].endOffset {
		return nil
	}
	t := s.clone()
	l := t.replicaLog[r]
	for _, o := range nv.offsets {
		if o >= newEnd {
			l.records[o] = nil
		}
	}
	l.endOffset = newEnd
	t.replicaLog[r] = l
	return t
}

// replicateTo returns every successor of ReplicateTo(from, to).
func (nv *naive) replicateTo(s *nState, from, to string) []*nState {
	var out []*nState
	for _, o := range nv.offsets {
		for _, rec := range nv.logRecords {
			if s.hasEntry(from, rec, o) {
				if t := nv.appendTo(s, to, rec, o); t != nil {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

func nMin(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// KafkaReplication operators.

func (s *nState) presumes(r string) bool       { return s.replicaState[r].leader == r }
func (s *nState) isFollowing(f, l string) bool { return s.replicaState[f].leader == l }
func (s *nState) isTrueLeader(l string) bool {
	return s.quorumState.leader == l && s.presumes(l) && s.replicaState[l].leaderEpoch == s.quorumState.leaderEpoch
}

func (nv *naive) controllerUpdateIsr(s *nState, newLeader string, newIsr map[string]bool) *nState {
	for e := 0; e <= nv.maxLeaderEpoch; e++ {
		if e <= nv.maxLeaderEpoch && e == s.nextLeaderEpoch {
			t := s.clone()
			t.nextLeaderEpoch++
			q := nQuorum{e, newLeader, copySet(newIsr)}
			t.quorumState = q
			dup := false
			for _, x := range t.leaderAndIsrRequests {
				if x.str() == q.str() {
					dup = true
				}
			}
			if !dup {
				t.leaderAndIsrRequests = append(t.leaderAndIsrRequests, nQuorum{e, newLeader, copySet(newIsr)})
			}
			return t
		}
	}
	return nil
}

func without(s map[string]bool, r string) map[string]bool {
	t := copySet(s)
	delete(t, r)
	return t
}

func with(s map[string]bool, r string) map[string]bool {
	t := copySet(s)
	t[r] = true
	return t
}

func (nv *naive) controllerShrinkIsr(s *nState) []*nState {
	var out []*nState
	q := s.quorumState
	for _, r := range nv.replicas {
		single := setEq(q.isr, map[string]bool{r: true})
		var t *nState
		if q.leader == r && single {
			t = nv.controllerUpdateIsr(s, nNone, q.isr)
		} else if q.leader == r && !single {
			t = nv.controllerUpdateIsr(s, nNone, without(q.isr, r))
		} else if q.leader != r && q.isr[r] {
			t = nv.controllerUpdateIsr(s, q.leader, without(q.isr, r))
		}
		if t != nil {
			out = append(out, t)
		}
	}
	return out
}

func (nv *naive) controllerElectLeader(s *nState) []*nState {
	var out []*nState
	for _, r := range nv.replicas {
		if s.quorumState.isr[r] && s.quorumState.leader != r {
			if t := nv.controllerUpdateIsr(s, r, s.quorumState.isr); t != nil {
				out = append(out, t)
			}
		}
	}
	return out
}

func (nv *naive) becomeLeader(s *nState) []*nState {
	var out []*nState
	for _, req := range s.leaderAndIsrRequests {
		l := req.leader
		if l != nNone && req.leaderEpoch > s.replicaState[l].leaderEpoch {
			t := s.clone()
			t.replicaState[l] = nReplica{s.replicaState[l].hw, req.leaderEpoch, l, copySet(req.isr)}
			out = append(out, t)
		}
	}
	return out
}

func (nv *naive) leaderWrite(s *nState) []*nState {
	var out []*nState
	for _, r := range nv.replicas {
		for id := 0; id <= nv.maxRecords-1; id++ {
			for _, o := range nv.offsets {
				if !s.presumes(r) || !(id <= nv.maxRecords-1 && id == s.nextRecordID) {
					continue
				}
				t := nv.appendTo(s, r, nRecord{id, s.replicaState[r].leaderEpoch}, o)
				if t != nil {
					t.nextRecordID++
					out = append(out, t)
				}
			}
		}
	}
	return out
}

func (nv *naive) quorumUpdate(s *nState, l string, newIsr map[string]bool) *nState {
	if !s.isTrueLeader(l) || s.quorumState.leader != l {
		return nil
	}
	t := s.clone()
	t.quorumState.isr = copySet(newIsr)
	rs := t.replicaState[l]
	rs.isr = copySet(newIsr)
	t.replicaState[l] = rs
	return t
}

func (nv *naive) isFollowerCaughtUp(s *nState, l, f string, endOffset int) bool {
	if !s.isFollowing(f, l) {
		return false
	}
	if endOffset == 0 {
		return true
	}
	if endOffset > 0 {
		o := endOffset - 1
		for _, rec := range nv.logRecords {
			if s.hasEntry(l, rec, o) && s.hasOffset(f, o) {
				return true
			}
		}
	}
	return false
}

func (nv *naive) isFollowerCaughtUpToLeaderEpoch(s *nState, l, f string, endOffset int) bool {
	if !s.presumes(l) || !s.isFollowing(f, l) {
		return false
	}
	if endOffset == 0 {
		return true
	}
	if endOffset > 0 {
		o := endOffset - 1
		for _, rec := range nv.logRecords {
			if s.hasEntry(l, rec, o) && s.hasOffset(f, o) && s.replicaLog[f].records[o].epoch == rec.epoch {
				return true
			}
		}
	}
	return false
}

func (s *nState) isFollowingLeaderEpoch(l, f string) bool {
	return s.presumes(l) && s.replicaState[f].leader == l && s.replicaState[f].leaderEpoch == s.replicaState[l].leaderEpoch
}

// leaderShrink covers LeaderShrinkIsr, LeaderShrinkIsrBetterFencing and FencedLeaderShrinkIsr.
func (nv *naive) leaderShrink(s *nState, notCaughtUp func(l, f string) bool) []*nState {
	var out []*nState
	for _, l := range nv.replicas {
		isr := s.replicaState[l].isr
		for _, f := range nv.replicas {
			if !isr[f] || f == l || !notCaughtUp(l, f) {
				continue
			}
			if t := nv.quorumUpdate(s, l, without(isr, f)); t != nil {
				out = append(out, t)
			}
		}
	}
	return out
}

func (nv *naive) leaderExpand(s *nState, caughtUp func(l, f string) bool) []*nState {
	var out []*nState
	for _, l := range nv.replicas {
		isr := s.replicaState[l].isr
		for _, f := range nv.replicas {
			if isr[f] || !caughtUp(l, f) {
				continue
			}
			if t := nv.quorumUpdate(s, l, with(isr, f)); t != nil {
				out = append(out, t)
			}
		}
	}
	return out
}

func (nv *naive) incHW(s *nState, l string) *nState {
	t := s.clone()
	rs := t.replicaState[l]
	rs.hw++
	t.replicaState[l] = rs
	return t
}

func (nv *naive) leaderIncHighWatermark(s *nState) []*nState {
	var out []*nState
	for _, o := range nv.offsets {
		for _, l := range nv.replicas {
			if !s.presumes(l) || o != s.replicaState[l].hw {
				continue
			}
			ok := true
			for f := range s.replicaState[l].isr {
				ok = ok && s.isFollowing(f, l) && s.hasOffset(f, o)
			}
			if ok {
				out = append(out, nv.incHW(s, l))
			}
		}
	}
	return out
}

func (nv *naive) improvedLeaderIncHighWatermark(s *nState) []*nState {
	var out []*nState
	for _, l := range nv.replicas {
		if !s.presumes(l) {
			continue
		}
		hw := s.replicaState[l].hw
		for _, rec := range nv.logRecords {
			if !s.hasEntry(l, rec, hw) {
				continue
			}
			ok := true
			for f := range s.replicaState[l].isr {
				ok = ok && nv.isFollowerCaughtUpToLeaderEpoch(s, l, f, hw+1)
			}
			if ok {
				out = append(out, nv.incHW(s, l))
			}
		}
	}
	return out
}

func (nv *naive) fencedLeaderIncHighWatermark(s *nState) []*nState {
	var out []*nState
	for _, l := range nv.replicas {
		hw := s.replicaState[l].hw
		if !s.hasOffset(l, hw) {
			continue
		}
		ok := true
		for f := range s.replicaState[l].isr {
			ok = ok && s.isFollowingLeaderEpoch(l, f) && s.hasOffset(f, hw)
		}
		if ok {
			out = append(out, nv.incHW(s, l))
		}
	}
	return out
}

// becomeFollowerAndTruncateTo is KafkaReplication's helper of that name.
func (nv *naive) becomeFollowerAndTruncateTo(s *nState, l, r string, off int) []*nState {
	var out []*nState
	for _, req := range s.leaderAndIsrRequests {
		if l == r || req.leader != l || req.leaderEpoch <= s.replicaState[r].leaderEpoch {
			continue
		}
		var t *nState
		if l == nNone {
			t = s.clone()
		} else {
			t = nv.truncateTo(s, r, off)
		}
		if t == nil {
			continue
		}
		t.replicaState[r] = nReplica{nMin(off, s.replicaState[r].hw), req.leaderEpoch, l, copySet(req.isr)}
		out = append(out, t)
	}
	return out
}

func (nv *naive) matchingOffsets(s *nState, r1, r2 string) []int {
	var out []int
	l := s.replicaLog[r1]
	for o := 0; o < l.endOffset; o++ {
		if s.hasEntry(r2, *l.records[o], o) {
			out = append(out, o)
		}
	}
	return out
}

func (nv *naive) firstNonMatchingOffsetFromTail(s *nState, l, f string) int {
	if s.isEmpty(l) {
		return 0
	}
	m := nv.matchingOffsets(s, f, l)
	if len(m) == 0 {
		return 0
	}
	max := m[0]
	for _, o := range m {
		if o > max {
			max = o
		}
	}
	return max + 1
}

func (nv *naive) lookupOffsetForEpoch(s *nState, l, f string, epoch int) int {
	if s.isEmpty(l) {
		return s.replicaState[f].hw
	}
	ll := s.replicaLog[l]
	if ll.records[ll.endOffset-1].epoch == epoch {
		return ll.endOffset
	}
	var larger []int
	for o := 0; o < ll.endOffset; o++ {
		if ll.records[o].epoch > epoch {
			larger = append(larger, o)
		}
	}
	if len(larger) == 0 {
		return s.replicaState[f].hw
	}
	min := larger[0]
	for _, o := range larger {
		if o < min {
			min = o
		}
	}
	return min
}

func (nv *naive) becomeFollowerVariant(s *nState) []*nState {
	var out []*nState
	for _, l := range nv.replicas {
		for _, r := range nv.replicas {
			switch nv.variant {
			case TruncateToHighWatermark:
				out = append(out, nv.becomeFollowerAndTruncateTo(s, l, r, s.replicaState[r].hw)...)
			case Kip101:
				if s.isEmpty(r) {
					out = append(out, nv.becomeFollowerAndTruncateTo(s, l, r, 0)...)
				}
				for _, rec := range nv.logRecords {
					if nv.isLatestRecord(s, r, rec) {
						out = append(out, nv.becomeFollowerAndTruncateTo(s, l, r, nv.lookupOffsetForEpoch(s, l, r, rec.epoch))...)
					}
				}
			case Kip279:
				if s.isEmpty(r) {
					out = append(out, nv.becomeFollowerAndTruncateTo(s, l, r, 0)...)
				}
				out = append(out, nv.becomeFollowerAndTruncateTo(s, l, r, nv.firstNonMatchingOffsetFromTail(s, l, r))...)
			case Kip320FirstTry:
				for _, req := range s.leaderAndIsrRequests {
					if l != r && req.leader == l && req.leaderEpoch > s.replicaState[r].leaderEpoch {
						t := s.clone()
						t.replicaState[r] = nReplica{s.replicaState[r].hw, req.leaderEpoch, l, copySet(req.isr)}
						out = append(out, t)
					}
				}
			case Kip320:
				for _, req := range s.leaderAndIsrRequests {
					if l == r || req.leader != l || req.leaderEpoch <= s.replicaState[r].leaderEpoch {
						continue
					}
					if l == nNone {
						t := s.clone()
						t.replicaState[r] = nReplica{s.replicaState[r].hw, req.leaderEpoch, req.leader, copySet(req.isr)}
						out = append(out, t)
						continue
					}
					if !s.presumes(l) || s.replicaState[l].leaderEpoch != req.leaderEpoch {
						continue
					}
					off := nv.firstNonMatchingOffsetFromTail(s, l, r)
					t := nv.truncateTo(s, r, off)
					if t != nil {
						t.replicaState[r] = nReplica{nMin(off, s.replicaState[r].hw), req.leaderEpoch, req.leader, copySet(req.isr)}
						out = append(out, t)
					}
				}
			}
		}
	}
	return out
}

func (nv *naive) fetch(s *nState, guard func(f, l string) bool) []*nState {
	var out []*nState
	for _, f := range nv.replicas {
		for _, l := range nv.replicas {
			if !guard(f, l) {
				continue
			}
			for _, t := range nv.replicateTo(s, l, f) {
				rs := t.replicaState[f]
				rs.hw = nMin(s.replicaState[l].hw, s.replicaLog[f].endOffset+1)
				t.replicaState[f] = rs
				out = append(out, t)
			}
		}
	}
	return out
}

func (nv *naive) followerNeedsTruncation(s *nState, f, l string) bool {
	if s.replicaLog[f].endOffset > s.replicaLog[l].endOffset {
		return true
	}
	for _, rec := range nv.logRecords {
		for _, o := range nv.offsets {
			if s.isLatestEntry(f, rec, o) && s.hasOffset(l, o) && s.replicaLog[l].records[o].epoch != rec.epoch {
				return true
			}
		}
	}
	return false
}

func (nv *naive) followerTruncate(s *nState) []*nState {
	var out []*nState
	for _, l := range nv.replicas {
		for _, f := range nv.replicas {
			if !s.presumes(l) || !s.isFollowing(f, l) || !nv.followerNeedsTruncation(s, f, l) {
				continue
			}
			off := nv.firstNonMatchingOffsetFromTail(s, l, f)
			if t := nv.truncateTo(s, f, off); t != nil {
				rs := t.replicaState[f]
				rs.hw = nMin(off, rs.hw)
				t.replicaState[f] = rs
				out = append(out, t)
			}
		}
	}
	return out
}

func (s *nState) hasHighWatermarkReachedCurrentEpoch(nv *naive, l string) bool {
	hw := s.replicaState[l].hw
	if hw == s.replicaLog[l].endOffset {
		return true
	}
	for _, rec := range nv.logRecords {
		if s.hasEntry(l, rec, hw) && rec.epoch == s.replicaState[l].leaderEpoch {
			return true
		}
	}
	return false
}

func (nv *naive) next(s *nState) []*nState {
	out := nv.controllerElectLeader(s)
	out = append(out, nv.controllerShrinkIsr(s)...)
	out = append(out, nv.becomeLeader(s)...)
	out = append(out, nv.leaderWrite(s)...)
	out = append(out, nv.becomeFollowerVariant(s)...)
	switch nv.variant {
	case TruncateToHighWatermark, Kip101, Kip279:
		out = append(out, nv.leaderExpand(s, func(l, f string) bool {
			return nv.isFollowerCaughtUp(s, l, f, s.replicaState[l].hw)
		})...)
		out = append(out, nv.leaderShrink(s, func(l, f string) bool {
			return !nv.isFollowerCaughtUp(s, l, f, s.replicaLog[l].endOffset)
		})...)
		out = append(out, nv.leaderIncHighWatermark(s)...)
		out = append(out, nv.fetch(s, func(f, l string) bool { return s.presumes(l) && s.isFollowing(f, l) })...)
	case Kip320FirstTry:
		out = append(out, nv.leaderExpand(s, func(l, f string) bool {
			return nv.isFollowerCaughtUpToLeaderEpoch(s, l, f, s.replicaState[l].hw) && s.hasHighWatermarkReachedCurrentEpoch(nv, l)
		})...)
		out = append(out, nv.leaderShrink(s, func(l, f string) bool {
			return !nv.isFollowerCaughtUpToLeaderEpoch(s, l, f, s.replicaLog[l].endOffset)
		})...)
		out = append(out, nv.improvedLeaderIncHighWatermark(s)...)
		out = append(out, nv.fetch(s, func(f, l string) bool {
			return nv.isFollowerCaughtUpToLeaderEpoch(s, l, f, s.replicaLog[f].endOffset)
		})...)
		out = append(out, nv.followerTruncate(s)...)
	case Kip320:
		out = append(out, nv.leaderExpand(s, func(l, f string) bool {
			hw := s.replicaState[l].hw
			reached := hw == 0 || (hw > 0 && s.hasOffset(f, hw-1))
			return s.isFollowingLeaderEpoch(l, f) && reached && s.hasHighWatermarkReachedCurrentEpoch(nv, l)
		})...)
		out = append(out, nv.leaderShrink(s, func(l, f string) bool {
			return !s.isFollowingLeaderEpoch(l, f) || s.replicaLog[f].endOffset < s.replicaLog[l].endOffset
		})...)
		out = append(out, nv.fencedLeaderIncHighWatermark(s)...)
		out = append(out, nv.fetch(s, func(f, l string) bool { return s.isFollowingLeaderEpoch(l, f) })...)
	}
	return out
}

// Invariants, as written in KafkaReplication (the intended forms of TypeOk and
// LeaderInIsr where the text is flawed).

func (nv *naive) isrOk(s *nState, isrOf func(r1 string) map[string]bool) bool {
	for _, r1 := range nv.replicas {
		if !s.presumes(r1) {
			continue
		}
		hw := s.replicaState[r1].hw
		if hw == 0 {
			continue
		}
		for r2 := range isrOf(r1) {
			for o := 0; o <= hw-1; o++ {
				found := false
				for _, rec := range nv.logRecords {
					if s.hasEntry(r1, rec, o) && s.hasEntry(r2, rec, o) {
						found = true
					}
				}
				if !found {
					return false
				}
			}
		}
	}
	return true
}

func (nv *naive) weakIsr(s *nState) bool {
	return nv.isrOk(s, func(r1 string) map[string]bool { return s.replicaState[r1].isr })
}

func (nv *naive) strongIsr(s *nState) bool {
	return nv.isrOk(s, func(string) map[string]bool { return s.quorumState.isr })
}

func (nv *naive) leaderInIsr(s *nState) bool {
	return s.quorumState.leader == nNone || s.quorumState.isr[s.quorumState.leader]
}

// naiveResult is what a naive breadth-first search finds.
type naiveResult struct {
	keys  map[string]bool
	depth int
	// violated counts the reachable states violating each invariant.
	weak, strong, leaderIn int
}

func (nv *naive) explore() naiveResult {
	res := naiveResult{keys: map[string]bool{}}
	level := []*nState{nv.init()}
	res.keys[level[0].key()] = true
	for len(level) > 0 {
		res.depth++
		var nextLevel []*nState
		for _, s := range level {
			if !nv.weakIsr(s) {
				res.weak++
			}
			if !nv.strongIsr(s) {
				res.strong++
			}
			if !nv.leaderInIsr(s) {
				res.leaderIn++
			}
			for _, t := range nv.next(s) {
				k := t.key()
				if !res.keys[k] {
					res.keys[k] = true
					nextLevel = append(nextLevel, t)
				}
			}
		}
		level = nextLevel
	}
	return res
}

// toNaive converts a state of the port to the naive representation.
func (nv *naive) toNaive(s *State) *nState {
	name := func(r int8) string {
		if r < 0 {
			return nNone
		}
		return nv.replicas[r]
	}
	set := func(x Set) map[string]bool {
		out := map[string]bool{}
		for i, r := range nv.replicas {
			if x.Has(i) {
				out[r] = true
			}
		}
		return out
	}
	t := &nState{replicaLog: map[string]nLog{}, replicaState: map[string]nReplica{},
		nextRecordID: int(s.NextRecordID), nextLeaderEpoch: int(s.NextLeaderEpoch)}
	for i, r := range nv.replicas {
		l := nLog{endOffset: int(s.Logs[i].End), records: make([]*nRecord, nv.logSize)}
		for o := 0; o < l.endOffset; o++ {
			l.records[o] = &nRecord{int(s.Logs[i].Records[o].ID), int(s.Logs[i].Records[o].Epoch)}
		}
		t.replicaLog[r] = l
		rs := s.Replicas[i]
		t.replicaState[r] = nReplica{int(rs.HW), int(rs.LeaderEpoch), name(rs.Leader), set(rs.ISR)}
	}
	for e := 0; e < int(s.NextLeaderEpoch); e++ {
		t.leaderAndIsrRequests = append(t.leaderAndIsrRequests, nQuorum{e, name(s.Requests[e].Leader), set(s.Requests[e].ISR)})
	}
	t.quorumState = nQuorum{int(s.Quorum.LeaderEpoch), name(s.Quorum.Leader), set(s.Quorum.ISR)}
	return t
}
