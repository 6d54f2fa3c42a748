package reference

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// encodedLen is the length of Encode's output for m's constants.
func (m *Model) encodedLen() int {
	return m.n*(1+m.cfg.LogSize+4) + 2 + m.cfg.MaxLeaderEpoch + 1 + 3
}

// Encode appends the canonical encoding of s: per replica its end offset, its records
// (id<<4 | epoch, zero beyond the end) and its state (hw, epoch+1, leader+1, ISR); then
// nextRecordId, nextLeaderEpoch, one byte per request slot ((leader+1) | ISR<<3) and the
// quorum state. The length depends only on the constants.
func (m *Model) Encode(s *State, buf []byte) []byte {
	for r := 0; r < m.n; r++ {
		l := &s.Logs[r]
		buf = append(buf, byte(l.End))
		for o := 0; o < m.cfg.LogSize; o++ {
			buf = append(buf, byte(l.Records[o].ID)<<4|byte(l.Records[o].Epoch))
		}
		rs := &s.Replicas[r]
		buf = append(buf, byte(rs.HW), byte(rs.LeaderEpoch+1), byte(rs.Leader+1), byte(rs.ISR))
	}
	buf = append(buf, byte(s.NextRecordID), byte(s.NextLeaderEpoch))
	for e := 0; e <= m.cfg.MaxLeaderEpoch; e++ {
		buf = append(buf, byte(s.Requests[e].Leader+1)|byte(s.Requests[e].ISR)<<3)
	}
	return append(buf, byte(s.Quorum.LeaderEpoch+1), byte(s.Quorum.Leader+1), byte(s.Quorum.ISR))
}

// Decode reads a state written by Encode into s.
func (m *Model) Decode(buf []byte, s *State) {
	*s = State{}
	i := 0
	next := func() byte { b := buf[i]; i++; return b }
	for r := 0; r < m.n; r++ {
		l := &s.Logs[r]
		l.End = int8(next())
		for o := 0; o < m.cfg.LogSize; o++ {
			b := next()
			l.Records[o] = Record{ID: int8(b >> 4), Epoch: int8(b & 0xf)}
		}
		rs := &s.Replicas[r]
		rs.HW = int8(next())
		rs.LeaderEpoch = int8(next()) - 1
		rs.Leader = int8(next()) - 1
		rs.ISR = Set(next())
	}
	s.NextRecordID = int8(next())
	s.NextLeaderEpoch = int8(next())
	for e := 0; e <= m.cfg.MaxLeaderEpoch; e++ {
		b := next()
		s.Requests[e] = Request{Leader: int8(b&7) - 1, ISR: Set(b >> 3)}
	}
	s.Quorum.LeaderEpoch = int8(next()) - 1
	s.Quorum.Leader = int8(next()) - 1
	s.Quorum.ISR = Set(next())
}

// DecodeChecked reads a state into s as Decode does, or returns an error, never a panic,
// when buf is not the encoding of a state of m: bytes of another length than m's states',
// or a field out of its range for m's constants (the invariants of State; an offset,
// epoch, record id, replica or set beyond the constants). It is for bytes from outside
// the engine, a checkpoint's (checker.CheckedDecoder).
func (m *Model) DecodeChecked(buf []byte, s *State) error {
	if want := m.encodedLen(); len(buf) != want {
		return fmt.Errorf("reference: decode: %d bytes, want %d", len(buf), want)
	}
	var t State
	m.Decode(buf, &t)
	if err := m.check(&t); err != nil {
		return fmt.Errorf("reference: decode: %w", err)
	}
	*s = t
	return nil
}

// check reports the first field of s out of its range for m's constants.
func (m *Model) check(s *State) error {
	c := &m.cfg
	in := func(v int8, lo, hi int) bool { return int(v) >= lo && int(v) <= hi }
	set := func(x Set) bool { return x&^Set(1<<uint(m.n)-1) == 0 }
	for r := 0; r < m.n; r++ {
		l, rs := &s.Logs[r], &s.Replicas[r]
		if !in(l.End, 0, c.LogSize) {
			return fmt.Errorf("replicaLog[r%d]: end offset %d, want 0..%d", r+1, l.End, c.LogSize)
		}
		for o := 0; o < c.LogSize; o++ {
			rec := l.Records[o]
			if o >= int(l.End) && rec != (Record{}) || !in(rec.ID, 0, c.MaxRecords) || !in(rec.Epoch, 0, c.MaxLeaderEpoch) {
				return fmt.Errorf("replicaLog[r%d]: record %d is out of range", r+1, o)
			}
		}
		if !in(rs.HW, 0, c.LogSize) || !in(rs.LeaderEpoch, Nil, c.MaxLeaderEpoch) || !in(rs.Leader, None, m.n-1) || !set(rs.ISR) {
			return fmt.Errorf("replicaState[r%d] is out of range", r+1)
		}
	}
	if !in(s.NextRecordID, 0, c.MaxRecords) || !in(s.NextLeaderEpoch, 0, c.MaxLeaderEpoch+1) {
		return fmt.Errorf("nextRecordId %d or nextLeaderEpoch %d is out of range", s.NextRecordID, s.NextLeaderEpoch)
	}
	for e := 0; e <= c.MaxLeaderEpoch; e++ {
		q := s.Requests[e]
		if e >= int(s.NextLeaderEpoch) && q != (Request{}) || !in(q.Leader, None, m.n-1) || !set(q.ISR) {
			return fmt.Errorf("leaderAndIsrRequests: the request of epoch %d is out of range", e)
		}
	}
	if q := s.Quorum; !in(q.LeaderEpoch, Nil, c.MaxLeaderEpoch) || !in(q.Leader, None, m.n-1) || !set(q.ISR) {
		return errors.New("quorumState is out of range")
	}
	return nil
}

// Variable indexes, in the order of KafkaReplication's vars tuple.
const (
	VarReplicaLog = iota
	VarReplicaState
	VarNextLeaderEpoch
	VarNextRecordID
	VarLeaderAndIsrRequests
	VarQuorumState
)

var varNames = []string{"replicaLog", "replicaState", "nextLeaderEpoch", "nextRecordId",
	"leaderAndIsrRequests", "quorumState"}

// Vars names the module's variables, in the order of its vars tuple.
func (m *Model) Vars() []string { return varNames }

func appendInt(buf []byte, v int) []byte {
	buf = append(buf, `{"#bigint":"`...)
	buf = strconv.AppendInt(buf, int64(v), 10)
	return append(buf, `"}`...)
}

func appendReplica(buf []byte, r int) []byte {
	return strconv.AppendQuote(buf, ReplicaName(r))
}

// appendSet writes a set of replicas; replicas print in index order, which is the sort
// order of their names.
func (m *Model) appendSet(buf []byte, s Set) []byte {
	buf = append(buf, `{"#set":[`...)
	first := true
	for r := 0; r < m.n; r++ {
		if s.Has(r) {
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = appendReplica(buf, r)
		}
	}
	return append(buf, "]}"...)
}

// appendQuorum writes a QuorumState value (also the shape of a request).
func (m *Model) appendQuorum(buf []byte, epoch, leader int, isr Set) []byte {
	buf = append(buf, `{"leaderEpoch":`...)
	buf = appendInt(buf, epoch)
	buf = append(buf, `,"leader":`...)
	buf = appendReplica(buf, leader)
	buf = append(buf, `,"isr":`...)
	buf = m.appendSet(buf, isr)
	return append(buf, '}')
}

// AppendValue appends variable v of s as ITF JSON, with the module's values: a log is
// [endOffset, records] where records maps every offset to a record or Nil (-1); replicas
// are the strings r1..rN and None is "NONE".
func (m *Model) AppendValue(s *State, v int, buf []byte) []byte {
	switch v {
	case VarReplicaLog:
		buf = append(buf, `{"#map":[`...)
		for r := 0; r < m.n; r++ {
			if r > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '[')
			buf = appendReplica(buf, r)
			buf = append(buf, `,{"endOffset":`...)
			buf = appendInt(buf, s.end(r))
			buf = append(buf, `,"records":{"#map":[`...)
			for o := 0; o < m.cfg.LogSize; o++ {
				if o > 0 {
					buf = append(buf, ',')
				}
				buf = append(buf, '[')
				buf = appendInt(buf, o)
				buf = append(buf, ',')
				if o < s.end(r) {
					rec := s.rec(r, o)
					buf = append(buf, `{"id":`...)
					buf = appendInt(buf, int(rec.ID))
					buf = append(buf, `,"epoch":`...)
					buf = appendInt(buf, int(rec.Epoch))
					buf = append(buf, '}')
				} else {
					buf = appendInt(buf, Nil)
				}
				buf = append(buf, ']')
			}
			buf = append(buf, "]}}]"...)
		}
		return append(buf, "]}"...)
	case VarReplicaState:
		buf = append(buf, `{"#map":[`...)
		for r := 0; r < m.n; r++ {
			if r > 0 {
				buf = append(buf, ',')
			}
			rs := &s.Replicas[r]
			buf = append(buf, '[')
			buf = appendReplica(buf, r)
			buf = append(buf, `,{"hw":`...)
			buf = appendInt(buf, int(rs.HW))
			buf = append(buf, `,"leaderEpoch":`...)
			buf = appendInt(buf, int(rs.LeaderEpoch))
			buf = append(buf, `,"leader":`...)
			buf = appendReplica(buf, int(rs.Leader))
			buf = append(buf, `,"isr":`...)
			buf = m.appendSet(buf, rs.ISR)
			buf = append(buf, "}]"...)
		}
		return append(buf, "]}"...)
	case VarNextLeaderEpoch:
		return appendInt(buf, int(s.NextLeaderEpoch))
	case VarNextRecordID:
		return appendInt(buf, int(s.NextRecordID))
	case VarLeaderAndIsrRequests:
		// Sorted by leader epoch, which is unique per request.
		buf = append(buf, `{"#set":[`...)
		for e := 0; e < int(s.NextLeaderEpoch); e++ {
			if e > 0 {
				buf = append(buf, ',')
			}
			buf = m.appendQuorum(buf, e, int(s.Requests[e].Leader), s.Requests[e].ISR)
		}
		return append(buf, "]}"...)
	case VarQuorumState:
		return m.appendQuorum(buf, int(s.Quorum.LeaderEpoch), int(s.Quorum.Leader), s.Quorum.ISR)
	}
	return append(buf, "null"...)
}

// ActionName prints an action as its TLA+ name with the values of its bound variables
// in the module's order: "BecomeLeader(r1, 2)" is the request of epoch 2 naming r1,
// "FollowerReplicate(r2, r1)" is follower r2 and leader r1,
// "BecomeFollowerTruncateKip279(r1, r2, 3)" is leader r1, replica r2, request epoch 3.
func (m *Model) ActionName(a uint64) string {
	k, x, y, z := decode(a)
	if k >= numKinds {
		return "Action(" + strconv.FormatUint(a, 10) + ")"
	}
	b := []byte(kindNames[k])
	b = append(b, '(')
	switch k {
	case kControllerElectLeader, kControllerShrinkIsr, kLeaderWrite, kLeaderIncHighWatermark,
		kImprovedLeaderIncHighWatermark, kFencedLeaderIncHighWatermark:
		b = append(b, ReplicaName(x)...)
	case kBecomeLeader:
		b = append(b, ReplicaName(x)...)
		b = append(b, ", "...)
		b = strconv.AppendInt(b, int64(y), 10)
	case kBecomeFollowerTruncateToHighWatermark, kBecomeFollowerTruncateKip101,
		kBecomeFollowerTruncateKip279, kBecomeFollower, kFencedBecomeFollowerAndTruncate:
		b = append(b, ReplicaName(x)...)
		b = append(b, ", "...)
		b = append(b, ReplicaName(y)...)
		b = append(b, ", "...)
		b = strconv.AppendInt(b, int64(z), 10)
	default:
		b = append(b, ReplicaName(x)...)
		b = append(b, ", "...)
		b = append(b, ReplicaName(y)...)
	}
	return string(append(b, ')'))
}

// ActionKind is the index of a's kind in ActionKinds.
func (m *Model) ActionKind(a uint64) int {
	k, _, _, _ := decode(a)
	if k >= numKinds {
		return -1
	}
	return m.local[k]
}

// ActionKinds names the disjuncts of the variant's Next, in the module's order.
func (m *Model) ActionKinds() []string {
	names := make([]string, len(m.kinds))
	for i, k := range m.kinds {
		names[i] = kindNames[k]
	}
	return names
}

// Fairness follows the conjuncts of the module's Spec: SF on its high-watermark
// increment, ISR expansion and LeaderWrite, WF on its follower transition and
// BecomeLeader, no fairness on the rest. Two differences with TLA+: the module's
// fairness is on the whole action (the disjunction over its bound variables) while kmc
// applies it to each instance; and Kip320FirstTry's Spec puts SF on LeaderExpandIsr,
// which is not in its Next, so here no kind of that variant gets it.
func (m *Model) Fairness(kind int) int {
	if kind < 0 || kind >= len(m.kinds) {
		return unfair
	}
	switch m.kinds[kind] {
	case kLeaderIncHighWatermark, kImprovedLeaderIncHighWatermark, kFencedLeaderIncHighWatermark,
		kLeaderWrite, kLeaderExpandIsr, kFencedLeaderExpandIsr:
		return strong
	case kBecomeLeader, kBecomeFollowerTruncateToHighWatermark, kBecomeFollowerTruncateKip101,
		kBecomeFollowerTruncateKip279, kBecomeFollower, kFencedBecomeFollowerAndTruncate:
		return weak
	}
	return unfair
}

// Fairness levels, numbered as checker.Fairness (Unfair, Weak, Strong).
const (
	unfair = iota
	weak
	strong
)

// Canonicalize maps s to the representative of its class under permutations of the
// replicas: the permuted state with the smallest encoding. Replicas are symmetric in
// every variant: no action or invariant names a particular replica. The engine calls it
// only when symmetry is asked for, so counts stay TLC's by default.
func (m *Model) Canonicalize(s *State) {
	if m.n < 2 {
		return
	}
	var best, cur [96]byte
	bestState := *s
	bl := m.Encode(s, best[:0])
	var t State
	for _, p := range m.perms[1:] {
		m.permute(s, &p, &t)
		cl := m.Encode(&t, cur[:0])
		if bytes.Compare(cl, bl) < 0 {
			bestState = t
			bl = append(best[:0], cl...)
		}
	}
	*s = bestState
}

func mapSet(x Set, p *[MaxReplicas]int8, n int) Set {
	var y Set
	for r := 0; r < n; r++ {
		if x.Has(r) {
			y = y.With(int(p[r]))
		}
	}
	return y
}

func mapReplica(r int8, p *[MaxReplicas]int8) int8 {
	if r < 0 {
		return r
	}
	return p[r]
}

// permute writes into t the state s with replica r renamed p[r].
func (m *Model) permute(s *State, p *[MaxReplicas]int8, t *State) {
	*t = *s
	for r := 0; r < m.n; r++ {
		t.Logs[p[r]] = s.Logs[r]
		rs := s.Replicas[r]
		rs.Leader = mapReplica(rs.Leader, p)
		rs.ISR = mapSet(rs.ISR, p, m.n)
		t.Replicas[p[r]] = rs
	}
	for e := 0; e < int(s.NextLeaderEpoch); e++ {
		t.Requests[e].Leader = mapReplica(s.Requests[e].Leader, p)
		t.Requests[e].ISR = mapSet(s.Requests[e].ISR, p, m.n)
	}
	t.Quorum.Leader = mapReplica(s.Quorum.Leader, p)
	t.Quorum.ISR = mapSet(s.Quorum.ISR, p, m.n)
}

// permutations lists every permutation of 0..n-1, the identity first.
func permutations(n int) [][MaxReplicas]int8 {
	var out [][MaxReplicas]int8
	var p [MaxReplicas]int8
	used := 0
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			out = append(out, p)
			return
		}
		for v := 0; v < n; v++ {
			if used&(1<<v) == 0 {
				used |= 1 << v
				p[i] = int8(v)
				rec(i + 1)
				used &^= 1 << v
			}
		}
	}
	rec(0)
	return out
}
