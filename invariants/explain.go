package invariants

import (
	"fmt"
	"strings"

	"kmc/model/kafka"
)

// The explanations below are the witnesses of the properties (checker.Property.Explain):
// each says, in the vocabulary of docs/reading-traces.md, what in the state
// breaks the property. Records are e<epoch>:r<id>, brokers b1..bN, controller incarnations
// c1..c3 (in order of election).

// broker names broker index b.
func broker(b int) string { return fmt.Sprintf("b%d", b+1) }

// leaderName names a leader field (broker index+1, 0 for none).
func leaderName(l uint8) string {
	if l == 0 {
		return "none"
	}
	return broker(int(l) - 1)
}

// brokerSet prints a bit set of brokers: {b1, b3}.
func brokerSet(m *kafka.Model, set uint8) string {
	var names []string
	for b := 0; b < m.C.Brokers; b++ {
		if set&(1<<b) != 0 {
			names = append(names, broker(b))
		}
	}
	return "{" + strings.Join(names, ", ") + "}"
}

// record prints the record at offset o of r: e2:r3, "nothing" beyond its log end, or
// "a hole" for a position without a batch.
func record(r *kafka.Replica, o uint8) string {
	switch {
	case o >= r.LEO:
		return "nothing (its log ends at " + fmt.Sprint(r.LEO) + ")"
	case r.Log[o].Epoch == kafka.NoEpoch:
		return "a hole"
	}
	return fmt.Sprintf("e%d:r%d", r.Log[o].Epoch, r.Log[o].ID)
}

// cache prints r's leader-epoch cache: {e1@0, e2@1}.
func cache(r *kafka.Replica) string {
	var es []string
	for i := 0; i < int(r.NCache); i++ {
		es = append(es, fmt.Sprintf("e%d@%d", r.Cache[i].Epoch, r.Cache[i].Start))
	}
	return "{" + strings.Join(es, ", ") + "}"
}

// logText prints r's log: [e1:r1, e1:r2].
func logText(r *kafka.Replica) string {
	var es []string
	for o := uint8(0); o < r.LEO; o++ {
		es = append(es, record(r, o))
	}
	return "[" + strings.Join(es, ", ") + "]"
}

// brokerState says whether broker b is down, not yet registered, or its role and epoch.
func brokerState(s *kafka.State, b int) string {
	r := &s.B[b]
	switch {
	case !r.Alive:
		return "down"
	case r.Register:
		return "restarted, not yet registered"
	case r.Role == kafka.RoleLeader:
		return fmt.Sprintf("leader in epoch %d", r.Epoch)
	case r.Role == kafka.RoleFollower:
		return fmt.Sprintf("follower of %s in epoch %d", leaderName(r.Leader), r.Epoch)
	}
	return "up, no partition state"
}

func explainCommittedDataLoss(m *kafka.Model, s *kafka.State) string {
	id, b, ok := lostRecord(m, s)
	if !ok {
		return ""
	}
	off, r := s.Acked[id]-1, &s.B[b]
	role := "in the controller's ISR " + brokerSet(m, s.Ctrl.ISR)
	if int(s.Ctrl.Leader) == b+1 {
		role = "the controller's leader"
	}
	return fmt.Sprintf("r%d was acknowledged at offset %d; %s, %s and up, holds %s there (hw %d, leo %d)",
		id+1, off, broker(b), role, record(r, off), r.HW, r.LEO)
}

func explainPermanentDivergence(m *kafka.Model, s *kafka.State) string {
	for i := 0; i < m.C.Brokers; i++ {
		for j := i + 1; j < m.C.Brokers; j++ {
			a, b := &s.B[i], &s.B[j]
			for o := uint8(0); o < min(a.HW, b.HW); o++ {
				if a.Log[o] != b.Log[o] {
					return fmt.Sprintf("offset %d: %s holds %s, %s holds %s, both below their high watermarks (hw %s=%d, %s=%d)",
						o, broker(i), record(a, o), broker(j), record(b, o), broker(i), a.HW, broker(j), b.HW)
				}
			}
		}
	}
	return ""
}

func explainLogMatching(m *kafka.Model, s *kafka.State) string {
	for i := 0; i < m.C.Brokers; i++ {
		for j := i + 1; j < m.C.Brokers; j++ {
			a, b := &s.B[i], &s.B[j]
			for o := int(min(a.LEO, b.LEO)) - 1; o >= 0; o-- {
				if a.Log[o].Epoch != b.Log[o].Epoch || a.Log[o].Epoch == kafka.NoEpoch {
					continue
				}
				for p := 0; p <= o; p++ {
					if a.Log[p] != b.Log[p] {
						return fmt.Sprintf("%s and %s both hold a batch of epoch %d at offset %d, but at offset %d %s holds %s and %s holds %s",
							broker(i), broker(j), a.Log[o].Epoch, o, p, broker(i), record(a, uint8(p)), broker(j), record(b, uint8(p)))
					}
				}
				break
			}
		}
	}
	return ""
}

func explainLeaderInISR(m *kafka.Model, s *kafka.State) string {
	if l := s.Ctrl.Leader; l != 0 && s.Ctrl.ISR&(1<<(l-1)) == 0 {
		return fmt.Sprintf("the controller's leader %s (epoch %d) is not in its ISR %s", leaderName(l), s.Ctrl.Epoch, brokerSet(m, s.Ctrl.ISR))
	}
	for b := 0; b < m.C.Brokers; b++ {
		if r := &s.B[b]; r.Role == kafka.RoleLeader && r.ISR&(1<<b) == 0 {
			return fmt.Sprintf("%s acts as leader in epoch %d with the ISR %s, which lacks it", broker(b), r.Epoch, brokerSet(m, r.ISR))
		}
	}
	return ""
}

func explainOneLeaderPerEpoch(m *kafka.Model, s *kafka.State) string {
	for a := 0; a < m.C.Brokers; a++ {
		for b := a + 1; b < m.C.Brokers; b++ {
			x, y := &s.B[a], &s.B[b]
			if x.Role == kafka.RoleLeader && y.Role == kafka.RoleLeader && x.Epoch == y.Epoch {
				return fmt.Sprintf("%s and %s both act as leader in epoch %d", broker(a), broker(b), x.Epoch)
			}
		}
	}
	return ""
}

func explainHighWatermarkMonotonic(m *kafka.Model, from, to *kafka.State) string {
	for b := 0; b < m.C.Brokers; b++ {
		x, y := &from.B[b], &to.B[b]
		if x.Role == kafka.RoleLeader && y.Role == kafka.RoleLeader && x.Epoch == y.Epoch && y.HW < x.HW {
			return fmt.Sprintf("%s leads epoch %d before and after the step, and its high watermark goes down from %d to %d", broker(b), x.Epoch, x.HW, y.HW)
		}
	}
	return ""
}

func explainAckedOnMinISR(m *kafka.Model, from, to *kafka.State) string {
	id, holders, ok := ackedOnFew(m, from, to)
	if !ok {
		return ""
	}
	return fmt.Sprintf("r%d is acknowledged at offset %d while only %s hold it; min_isr is %d",
		id+1, to.Acked[id]-1, brokerSet(m, holders), m.C.MinISR)
}

func explainEpochCacheMatchesLog(m *kafka.Model, s *kafka.State) string {
	for b := 0; b < m.C.Brokers; b++ {
		r := &s.B[b]
		j := -1
		for o := uint8(0); o < r.LEO; o++ {
			for j+1 < int(r.NCache) && r.Cache[j+1].Start <= o {
				j++
			}
			if r.Log[o].ID == 0 {
				continue
			}
			if j < 0 {
				return fmt.Sprintf("%s holds %s at offset %d, but its leader-epoch cache %s has no entry at or below that offset", broker(b), record(r, o), o, cache(r))
			}
			if r.Cache[j].Epoch != r.Log[o].Epoch {
				return fmt.Sprintf("%s holds %s at offset %d, but its leader-epoch cache %s gives epoch %d there", broker(b), record(r, o), o, cache(r), r.Cache[j].Epoch)
			}
		}
	}
	return ""
}

func explainMissingEpoch(m *kafka.Model, s *kafka.State) string {
	for b := 0; b < m.C.Brokers; b++ {
		r := &s.B[b]
		for o := uint8(0); o < r.LEO; o++ {
			e := r.Log[o].Epoch
			if o > 0 && r.Log[o-1].Epoch == e {
				continue
			}
			if got, end := r.EndOffsetFor(e); got != kafka.NoEpoch && got < e {
				return fmt.Sprintf("%s's log has a batch of epoch %d at offset %d, but its leader-epoch cache %s answers endOffsetFor(%d) with epoch %d, end offset %d",
					broker(b), e, o, cache(r), e, got, end)
			}
		}
	}
	return ""
}

func explainPhantomEpoch(m *kafka.Model, s *kafka.State) string {
	for b := 0; b < m.C.Brokers; b++ {
		r := &s.B[b]
		if e, ok := r.PhantomEpoch(); ok {
			return fmt.Sprintf("%s's leader-epoch cache %s has epoch %d from offset %d, but no batch of its log carries epoch %d (log %s): a phantom epoch",
				broker(b), cache(r), e.Epoch, e.Start, e.Epoch, logText(r))
		}
	}
	return ""
}

func explainBehind(m *kafka.Model, s *kafka.State) string {
	f := behindFollower(m, s)
	if f < 0 {
		return ""
	}
	l, lr, _ := stableLeader(s)
	r := &s.B[f]
	return fmt.Sprintf("follower %s of leader %s (epoch %d) has log end offset %d, the leader's is %d; %s's last fetched epoch is %d and its cache is %s, the leader's %s",
		broker(f), broker(l), lr.Epoch, r.LEO, lr.LEO, broker(f), r.LastEp, cache(r), cache(lr))
}

func explainLeaderless(m *kafka.Model, s *kafka.State) string {
	if s.Ctrl.Leader != 0 {
		return ""
	}
	var live []string
	w := waiting(m, s)
	for b := 0; b < m.C.Brokers; b++ {
		if w&(1<<b) != 0 {
			live = append(live, broker(b))
		}
	}
	if m.C.KRaft {
		t := fmt.Sprintf("the controller says leader none in leader epoch %d with ISR %s", s.Ctrl.Epoch, brokerSet(m, s.Ctrl.ISR))
		if m.ELR() {
			t += " and ELR " + brokerSet(m, s.KR.ELR)
		}
		if len(live) > 0 {
			t += "; " + strings.Join(live, ", ") + " of it live and registered, waiting to be unfenced"
		}
		return t
	}
	t := fmt.Sprintf("the store says leader none in epoch %d with ISR %s", s.Ctrl.Epoch, brokerSet(m, s.Ctrl.ISR))
	if len(live) > 0 {
		t += "; " + strings.Join(live, ", ") + " of it live and registered"
	}
	return t + controllers(m, s)
}

// controllers describes the controller incarnations of the control plane ("" without one):
// "; controllers: c1 on b1 epoch 1 zombie (cache: leader b1, ISR {b1, b2}), c2 on b2 ...".
func controllers(m *kafka.Model, s *kafka.State) string {
	p := &s.CP
	if p.N == 0 {
		return ""
	}
	var cs []string
	for i := 0; i < int(p.N); i++ {
		c := &p.C[i]
		state := "resigned"
		switch {
		case c.Active && c.Session && i == int(p.N)-1:
			state = "active"
		case c.Active:
			state = "zombie"
		}
		cs = append(cs, fmt.Sprintf("c%d on %s epoch %d %s (cache: leader %s, epoch %d, ISR %s)",
			i+1, broker(int(c.Broker)), c.Epoch, state, leaderName(c.Leader), c.LEpoch, brokerSet(m, c.ISR)))
	}
	return "; controllers: " + strings.Join(cs, ", ")
}

func explainPendingAlter(m *kafka.Model, s *kafka.State) string {
	for b := 0; b < m.C.Brokers; b++ {
		if r := &s.B[b]; r.Alive && r.Role == kafka.RoleLeader && r.Pending {
			meta := s.CP.BK[b]
			w := fmt.Sprintf("leader %s (epoch %d) has an AlterPartition pending: ISR %s, proposed %s",
				broker(b), r.Epoch, brokerSet(m, r.ISR), brokerSet(m, r.MaxISR))
			if s.CP.N > 0 && meta.Ctrl > 0 {
				w += fmt.Sprintf("; it sends to c%d (controller epoch %d), the highest controller epoch it has seen is %d",
					meta.Ctrl, meta.CtrlEpoch, meta.MaxEpoch)
			}
			return w + controllers(m, s)
		}
	}
	return ""
}

func explainCaughtUpOutside(m *kafka.Model, s *kafka.State) string {
	l, lr, ok := stableLeader(s)
	if !ok {
		return ""
	}
	for f := 0; f < m.C.Brokers; f++ {
		r := &s.B[f]
		if f != l && r.Alive && s.Ctrl.Live&(1<<f) != 0 && r.Role == kafka.RoleFollower && int(r.Leader) == l+1 &&
			r.Epoch == lr.Epoch && r.LEO >= lr.LEO && lr.ISR&(1<<f) == 0 {
			w := fmt.Sprintf("follower %s of leader %s (epoch %d) has reached the leader's log end offset %d but is outside its ISR %s",
				broker(f), broker(l), lr.Epoch, lr.LEO, brokerSet(m, lr.ISR))
			if lr.Pending {
				w += fmt.Sprintf(", and the leader's AlterPartition (proposed %s) is pending", brokerSet(m, lr.MaxISR))
			}
			return w + controllers(m, s)
		}
	}
	return ""
}

func explainCacheMatchesStore(m *kafka.Model, s *kafka.State) string {
	p := &s.CP
	if p.N == 0 {
		return ""
	}
	c := &p.C[p.N-1]
	return fmt.Sprintf("the active controller c%d (on %s, epoch %d) caches leader %s, epoch %d, zkVersion %d, ISR %s; the store holds leader %s, epoch %d, zkVersion %d, ISR %s, written by controller epoch %d",
		p.N, broker(int(c.Broker)), c.Epoch, leaderName(c.Leader), c.LEpoch, c.ZkVer, brokerSet(m, c.ISR),
		leaderName(s.Ctrl.Leader), s.Ctrl.Epoch, s.Ctrl.PEpoch, brokerSet(m, s.Ctrl.ISR), p.Writer)
}

func explainPreferredLeader(m *kafka.Model, s *kafka.State) string {
	return fmt.Sprintf("the store's leader is %s in epoch %d; b1 is %s", leaderName(s.Ctrl.Leader), s.Ctrl.Epoch, brokerState(s, 0))
}
