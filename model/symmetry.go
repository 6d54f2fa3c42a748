package model

import "bytes"

// Broker permutations and symmetry reduction.
//
// Permute renames the brokers of a state consistently: every field that holds a broker
// index, a broker id (index+1) or a set of brokers, and every per-broker array. Canonicalize
// maps a state to the representative of its class under the permutations of the brokers
// that the configuration lets the model treat alike (Interchangeable), for the engine's
// symmetry reduction (checker.Symmetric): safety only, as the spec layer declares it.
//
// Kafka's elections follow the partition's assignment order, brokers 1..N here, and that
// singles out every broker an election compares:
//
//   - the leader elected on a broker failure is the first live ISR member in assignment
//     order (brokerFailed; electLeader with the control plane;
//     PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection; KRaft's
//     PartitionChangeBuilder.electAnyLeader in change); a bounced broker's startup handles
//     its failure first;
//   - a controlled shutdown moves leadership to the first other live ISR member
//     (controlledShutdownSteps, cpControlledShutdown);
//   - an unclean election picks the first live replica (uncleanLeader), and only after a
//     broker failure;
//   - the controller elected after a failover or a host crash is the lowest live broker
//     (failoverSteps, controllerElectSteps);
//   - the initial leader and the preferred replica (preferred_election) are broker 1, and
//     the first controller's host is controller_broker.
//
// With three brokers, for example, b1's crash with ISR {b1,b2,b3} elects b2; in the state
// with b2 and b3 swapped it elects b2 again, not b3, so the successors of a permuted state
// are not the permuted successors, and a search over one state per class of the plain
// model could miss reachable states (TestKafkaNotSymmetric shows such a state). A search
// under symmetry therefore runs the model with the assignment order open (order.go): each
// election that compares brokers the order does not rank yet branches over the candidates
// that can come first and records the outcome in the state, which Permute renames with the
// brokers. That model is symmetric under the permutations of each block of brokers
// (Blocks: brokers 2..N, or with the ZooKeeper plane those below and those above the first
// controller's host), and a trace found with it is renamed to the order 1..N (Settle).
//
// Where no election can compare brokers (no broker stops, the single controller runs:
// the only elections left are leader_change's, to any live ISR member, and
// preferred_election's, to broker 1) the plain model is symmetric as it is and the search
// needs no open order (InitDeferred reports false): then, and only then, the classes'
// sizes add up to the plain search's count (OrbitSize).

// Perm is a permutation of broker indices: broker b becomes broker P[b]. Entries at or
// beyond the broker count map to themselves.
type Perm [MaxBrokers]uint8

// Identity is the identity permutation.
func Identity() Perm {
	var p Perm
	for b := range p {
		p[b] = uint8(b)
	}
	return p
}

// Interchangeable is the set of brokers (bit b for broker index b) that the symmetry
// group moves: the union of Blocks. None for two brokers, or three with the host of the
// ZooKeeper plane's first controller on broker 2.
func (m *Model) Interchangeable() uint8 {
	var set uint8
	for _, b := range m.Blocks() {
		set |= b
	}
	return set
}

// group is the symmetry group: the permutations of each block among itself, the identity
// first.
func (m *Model) group() []Perm {
	out := []Perm{Identity()}
	for _, blk := range m.Blocks() {
		var next []Perm
		for _, p := range out {
			for _, q := range m.Perms(blk) {
				var r Perm
				for b := range r {
					r[b] = q[p[b]]
				}
				next = append(next, r)
			}
		}
		out = next
	}
	return out
}

// Canonicalize rewrites s to the representative of its class under the permutations of
// the interchangeable brokers (checker.Symmetric). It allocates nothing.
func (m *Model) Canonicalize(s *State) {
	if len(m.perms) < 2 {
		return
	}
	var t State
	m.Canonical(s, m.perms, &t)
	*s = t
}

// EncodeCanonical appends the encoding of the representative of s's class (what Encode
// appends for s after Canonicalize) and returns the size of the class, in one pass over the
// permutations (checker.CanonicalEncoder). It allocates nothing.
func (m *Model) EncodeCanonical(s *State, buf []byte) ([]byte, int) {
	start := len(buf)
	buf = m.Encode(s, buf)
	if len(m.perms) < 2 {
		return buf, 1
	}
	var own, cur [1024]byte
	es := append(own[:0], buf[start:]...)
	stab := 1 // permutations that fix s
	var u State
	for i := 1; i < len(m.perms); i++ {
		m.Permute(s, &m.perms[i], &u)
		cl := m.Encode(&u, cur[:0])
		if bytes.Equal(cl, es) {
			stab++
		} else if bytes.Compare(cl, buf[start:]) < 0 {
			buf = append(buf[:start], cl...)
		}
	}
	return buf, len(m.perms) / stab
}

// OrbitSize is the number of distinct states in s's class: the states of the unreduced
// search that s stands for.
func (m *Model) OrbitSize(s *State) int {
	if len(m.perms) < 2 {
		return 1
	}
	var t State
	return m.Canonical(s, m.perms, &t)
}

// Permute writes into t the state s with every broker b renamed p[b]: each replica, its
// known leader, ISR, maximal ISR and per-follower log end offsets; the controller's
// leader, ISR, live set and broker epochs; with the control plane each incarnation's host,
// cached leader, ISR and live set and queued broker events, and each broker's view of the
// controller; with KRaft the metadata records' brokers, leaders and ISRs, each broker's
// replay lag and known and cached quorum epochs, the fenced, shutting-down, ELR and last
// known ELR sets and the old active controller's state; every message's sender and
// receiver (the controller's id is kept), a LeaderAndIsr's leader and ISR, an
// AlterPartition's (and a NOT_CONTROLLER echo's) ISR and joining broker; the order that a
// search under symmetry has revealed; then the network is sorted again. Record ids, offsets, epochs, budgets
// and controller incarnation numbers are not broker-indexed and stay as they are.
// t must not be s. It allocates nothing.
func (m *Model) Permute(s *State, p *Perm, t *State) {
	n := m.nb()
	set := func(x uint8) uint8 {
		var y uint8
		for b := 0; b < n; b++ {
			if has(x, b) {
				y |= bit(int(p[b]))
			}
		}
		return y
	}
	id := func(x uint8) uint8 { // broker index+1, 0: none
		if x == 0 || int(x) > n {
			return x
		}
		return p[x-1] + 1
	}
	*t = *s
	for b := 0; b < n; b++ {
		r := s.B[b]
		r.Leader = id(r.Leader)
		r.ISR, r.MaxISR = set(r.ISR), set(r.MaxISR)
		for f := 0; f < n; f++ {
			r.FLEO[p[f]] = s.B[b].FLEO[f]
		}
		t.B[p[b]] = r
		t.Ctrl.BEpoch[p[b]] = s.Ctrl.BEpoch[b]
		t.CP.BK[p[b]] = s.CP.BK[b]
		if s.Ord.Open {
			t.Ord.After[p[b]] = set(s.Ord.After[b])
		}
	}
	t.Ctrl.Leader, t.Ctrl.ISR, t.Ctrl.Live = id(s.Ctrl.Leader), set(s.Ctrl.ISR), set(s.Ctrl.Live)
	for i := 0; i < int(s.CP.N); i++ {
		c := &t.CP.C[i]
		c.Broker = p[c.Broker]
		c.Leader, c.ISR, c.Live = id(c.Leader), set(c.ISR), set(c.Live)
		for q := 0; q < int(c.NQ); q++ {
			if ev := c.Q[q] >> 4; ev == EvBrokerFailure || ev == EvBrokerStartup {
				c.Q[q] = ev<<4 | p[c.Q[q]&15]
			}
		}
	}
	if m.kraft() {
		k, sk := &t.KR, &s.KR
		rec := func(r *MetaRec) {
			switch r.Kind {
			case RecRegister, RecFence, RecUnfence, RecShutdown:
				r.Broker = p[r.Broker]
			case RecPartition:
				r.Leader, r.ISR = id(r.Leader), set(r.ISR)
			}
		}
		for i := 0; i < int(k.N); i++ {
			rec(&k.Log[i])
		}
		rec(&k.Snap)
		for b := 0; b < n; b++ {
			k.Lag[p[b]], k.Known[p[b]], k.Cached[p[b]] = sk.Lag[b], sk.Known[b], sk.Cached[b]
			k.Old.BEpoch[p[b]] = sk.Old.BEpoch[b]
		}
		k.Old.Leader, k.Old.ISR, k.Old.Live = id(sk.Old.Leader), set(sk.Old.ISR), set(sk.Old.Live)
		k.Fenced, k.Down, k.ELR, k.LastELR = set(sk.Fenced), set(sk.Down), set(sk.ELR), set(sk.LastELR)
	}
	for i := 0; i < int(t.Net.Len); i++ {
		g := &t.Net.Msgs[i]
		if g.From != CtrlID {
			g.From = p[g.From]
		}
		if g.To != CtrlID {
			g.To = p[g.To]
		}
		switch g.Kind {
		case MsgLeaderAndIsr:
			g.Last, g.HW = id(g.Last), set(g.HW)
		case MsgAlterPartition, MsgAlterPartitionResponse:
			g.HW = set(g.HW)
			if g.DivE != 0 { // KIP-903: the joining broker and its broker epoch
				g.DivO = p[g.DivO]
			}
		}
	}
	t.Net.sort()
}

// sort restores the network's order after its messages were rewritten (insertion sort:
// at most MaxMsgs messages, no allocation).
func (n *Network) sort() {
	for i := 1; i < int(n.Len); i++ {
		for j := i; j > 0 && n.Msgs[j-1].cmp(&n.Msgs[j]) > 0; j-- {
			n.Msgs[j-1], n.Msgs[j] = n.Msgs[j], n.Msgs[j-1]
		}
	}
}

// Perms lists the permutations of the brokers in set that fix every other broker, the
// identity first (all n! of them for a set of n brokers).
func (m *Model) Perms(set uint8) []Perm {
	var free []uint8
	for b := 0; b < m.nb(); b++ {
		if has(set, b) {
			free = append(free, uint8(b))
		}
	}
	out := []Perm{Identity()}
	var walk func(p Perm, k int)
	walk = func(p Perm, k int) { // position k keeps its broker, or swaps with a later one
		if k >= len(free) {
			return
		}
		walk(p, k+1)
		for j := k + 1; j < len(free); j++ {
			q := p
			q[free[k]], q[free[j]] = p[free[j]], p[free[k]]
			out = append(out, q)
			walk(q, k+1)
		}
	}
	walk(Identity(), 0)
	return out
}

// Canonical writes into t the representative of s's class under perms (which must form
// a group, the identity first): the permuted state with the smallest encoding. It returns
// the size of the class (the orbit: the number of distinct states among s's permutations).
// It allocates nothing.
func (m *Model) Canonical(s *State, perms []Perm, t *State) (orbit int) {
	var own, best, cur [1024]byte
	*t = *s
	es := m.Encode(s, own[:0])
	bl := append(best[:0], es...)
	stab := 1 // permutations that fix s
	var u State
	for i := 1; i < len(perms); i++ {
		m.Permute(s, &perms[i], &u)
		cl := m.Encode(&u, cur[:0])
		if bytes.Equal(cl, es) {
			stab++
		} else if bytes.Compare(cl, bl) < 0 {
			*t = u
			bl = append(best[:0], cl...)
		}
	}
	return len(perms) / stab
}
