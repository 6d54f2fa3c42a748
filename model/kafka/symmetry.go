package kafka

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
func (m *Model) Interchangeable() uint8 { return m.moved }

// group is the symmetry group: the permutations of each block among itself, the identity
// first.
func (m *Model) group() []Perm {
	out := []Perm{Identity()}
	for _, blk := range m.blocks {
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

// Canonicalize rewrites s to the representative of its class under the symmetry group
// (checker.Symmetric; see canon). It allocates nothing.
func (m *Model) Canonicalize(s *State) {
	if len(m.perms) < 2 {
		return
	}
	var own [1024]byte
	var t State
	m.canon(s, own[:0], &t)
	*s = t
}

// EncodeCanonical appends the encoding of the representative of s's class (what Encode
// appends for s after Canonicalize) and returns the size of the class, in one pass
// (checker.CanonicalEncoder). It allocates nothing.
func (m *Model) EncodeCanonical(s *State, buf []byte) ([]byte, int) {
	if len(m.perms) < 2 {
		return m.Encode(s, buf), 1
	}
	return m.canon(s, buf, nil)
}

// OrbitSize is the number of distinct states in s's class: the states of the unreduced
// search that s stands for.
func (m *Model) OrbitSize(s *State) int {
	if len(m.perms) < 2 {
		return 1
	}
	var own [1024]byte
	_, orbit := m.canon(s, own[:0], nil)
	return orbit
}

// canon appends to buf the encoding of the representative of s's class, writes the
// representative into t when t is not nil, and returns the size of the class.
//
// The representative: each block's brokers sorted by brokerSig, a summary of each broker's
// part of the state that renaming keeps; where brokers tie, the ordering among them whose
// state encodes smallest. Renaming s permutes the signatures with the brokers, so s and its
// renamings sort to the same candidates: one representative per class. Only the orderings
// of tied brokers are tried, usually one. The class's size is the group's order over the
// number of candidates that encode as the first one does (the renamings that fix the
// sorted state permute tied brokers only).
func (m *Model) canon(s *State, buf []byte, t *State) ([]byte, int) {
	var sig [MaxBrokers]uint64
	m.brokerSigs(s, &sig)
	// The renaming that sorts each block by signature (insertion sort, ties by index): it
	// moves order[i] to slot[i], the block's places being its brokers in index order.
	var order, slot [MaxBrokers]uint8
	n, tied := 0, false
	for _, blk := range m.blocks {
		lo := n
		for x := blk; x != 0; x &= x - 1 {
			b := uint8(lowest(x))
			slot[n] = b
			j := n
			for ; j > lo && sig[order[j-1]] > sig[b]; j-- {
				order[j] = order[j-1]
			}
			order[j] = b
			tied = tied || j > lo && sig[order[j-1]] == sig[b] // an equal one stops the shift
			n++
		}
	}
	if tied {
		return m.canonTied(s, buf, t, &sig)
	}
	p := Identity()
	ident := true
	for i := 0; i < n; i++ {
		p[order[i]] = slot[i]
		ident = ident && order[i] == slot[i]
	}
	if ident {
		if t != nil {
			*t = *s
		}
		return m.Encode(s, buf), len(m.perms)
	}
	if t == nil {
		var u State
		t = &u
	}
	m.Permute(s, &p, t)
	return m.Encode(t, buf), len(m.perms)
}

// canonTied is canon where brokers tie: of the group's renamings, those that leave each
// block sorted by signature are the candidates, and it keeps the one that encodes smallest.
func (m *Model) canonTied(s *State, buf []byte, t *State, sig *[MaxBrokers]uint64) ([]byte, int) {
	start := len(buf)
	var first, other [1024]byte
	nfirst := -1
	var u State
	stab := 0
	for i := range m.perms {
		p := &m.perms[i]
		if !m.sortsBlocks(p, sig) {
			continue
		}
		ps := s
		if i > 0 { // m.perms[0] is the identity
			m.Permute(s, p, &u)
			ps = &u
		}
		if nfirst < 0 {
			buf = m.Encode(ps, buf)
			nfirst = copy(first[:], buf[start:])
			stab = 1
			if t != nil {
				*t = *ps
			}
			continue
		}
		enc := m.Encode(ps, other[:0])
		if bytes.Equal(enc, first[:nfirst]) {
			stab++
		} else if bytes.Compare(enc, buf[start:]) < 0 {
			buf = append(buf[:start], enc...)
			if t != nil {
				*t = *ps
			}
		}
	}
	return buf, len(m.perms) / stab
}

// sortsBlocks reports whether renaming by p leaves each block's places, in index order,
// held by brokers of non-decreasing signature.
func (m *Model) sortsBlocks(p *Perm, sig *[MaxBrokers]uint64) bool {
	var at [MaxBrokers]uint8 // at[x]: the broker that p moves to place x
	for _, blk := range m.blocks {
		for x := blk; x != 0; x &= x - 1 {
			b := lowest(x)
			at[p[b]] = uint8(b)
		}
	}
	for _, blk := range m.blocks {
		prev := -1
		for x := blk; x != 0; x &= x - 1 {
			y := lowest(x)
			if prev >= 0 && sig[at[prev]] > sig[at[y]] {
				return false
			}
			prev = y
		}
	}
	return true
}

// brokerSigs writes into sig, for each broker that the group moves, a summary of what s
// says of it in terms that renaming brokers keeps: its replica's own fields, logs and
// caches; the sizes of the broker sets it holds, their fixed members (broker 1, the host:
// in no block) and its known leader as itself, a fixed broker or another; its place in the
// controller's, the control plane's and the KRaft plane's sets and per-broker fields; what
// the open order says of it; the messages it sends and receives (a sum, so that their order
// does not count). Renaming s renames the signatures with the brokers; brokers whose parts
// of the state differ usually get different ones.
func (m *Model) brokerSigs(s *State, sig *[MaxBrokers]uint64) {
	var msgs [MaxBrokers]uint64
	for i := 0; i < int(s.Net.Len); i++ {
		g := &s.Net.Msgs[i]
		v := uint64(g.Kind)<<2 | uint64(g.Epoch)<<8 | uint64(g.Off)<<16 | uint64(g.Err)<<24 |
			uint64(g.DivE)<<32 | uint64(g.N)<<40 | uint64(g.End)<<48 | uint64(g.Start)<<56
		if g.From < MaxBrokers {
			w := (v | 1) * 0xbf58476d1ce4e5b9
			msgs[g.From] += w ^ w>>31
		}
		if g.To < MaxBrokers {
			w := (v | 2) * 0xbf58476d1ce4e5b9
			msgs[g.To] += w ^ w>>31
		}
	}
	for x := m.moved; x != 0; x &= x - 1 {
		b := lowest(x)
		sig[b] = m.brokerSig(s, b, msgs[b])
	}
}

// brokerSig is broker b's summary (brokerSigs), msgs that of its messages.
func (m *Model) brokerSig(s *State, b int, msgs uint64) uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) { h = (h ^ v) * 1099511628211 }
	ref := func(x uint8) uint64 { // a broker index+1 as b sees it
		switch {
		case x == 0 || int(x) > m.nb():
			return uint64(x)
		case int(x) == b+1:
			return 64
		case !has(m.moved, int(x)-1):
			return uint64(x)
		}
		return 65
	}
	in := func(set uint8) uint64 {
		if has(set, b) {
			return 1
		}
		return 0
	}
	r := &s.B[b]
	mix(uint64(r.LEO) | uint64(r.HW)<<8 | uint64(r.NCache)<<16 | uint64(r.NStale)<<24 | uint64(r.Role)<<32 |
		uint64(r.Fetch)<<40 | uint64(r.LastEp)<<48 | uint64(r.LESO)<<56)
	clean := uint64(0)
	if r.Clean {
		clean = 1
	}
	mix(uint64(r.Shut) | clean<<3 | in(s.Ctrl.Shut)<<4 | uint64(r.StaleCut)<<8)
	mix(uint64(r.statusBits()) | uint64(r.Epoch)<<8 | uint64(r.PEpoch)<<16 | ref(r.Leader)<<24 | uint64(popcount(r.ISR))<<32 |
		uint64(popcount(r.MaxISR))<<40 | uint64(r.ISR&^m.moved)<<48 | uint64(r.MaxISR&^m.moved)<<56)
	var logs uint64
	for i := uint8(0); i < r.LEO; i++ {
		logs = logs<<8 | uint64(r.Log[i].Epoch)<<4 | uint64(r.Log[i].ID)
	}
	mix(logs)
	var cache uint64
	for i := uint8(0); i < r.NCache; i++ {
		cache = cache<<8 | uint64(r.Cache[i].Epoch)<<4 | uint64(r.Cache[i].Start)
	}
	for i := uint8(0); i < r.NStale; i++ {
		cache = cache<<8 | uint64(r.Stale[i].Epoch)<<4 | uint64(r.Stale[i].Start)
	}
	mix(cache)
	c := &s.Ctrl
	mix(in(c.ISR) | in(c.Live)<<1 | ref(c.Leader)<<8 | uint64(c.BEpoch[b])<<16 | msgs<<24)
	mix(msgs)
	if p := &s.CP; p.N > 0 {
		k := &p.BK[b]
		v := uint64(k.Ctrl) | uint64(k.CtrlEpoch)<<8 | uint64(k.MaxEpoch)<<16
		for i := 0; i < int(p.N); i++ {
			ci := &p.C[i]
			w := in(ci.ISR) | in(ci.Live)<<1 | ref(ci.Leader)<<2 | in(ci.Stale)<<12
			if int(ci.Broker) == b {
				w |= 1 << 9
			}
			for q := 0; q < int(ci.NQ); q++ {
				if ev := ci.Q[q] >> 4; (ev == EvBrokerFailure || ev == EvBrokerStartup) && int(ci.Q[q]&15) == b {
					w += uint64(ev) << (10 + 2*q)
				}
			}
			v ^= w << (24 + 13*i)
		}
		mix(v)
	}
	if m.kraft() {
		k := &s.KR
		mix(uint64(k.Lag[b]) | uint64(k.Known[b])<<8 | uint64(k.Cached[b])<<16 | in(k.Fenced)<<24 | in(k.Down)<<25 |
			in(k.ELR)<<26 | in(k.LastELR)<<27 | in(k.Old.ISR)<<28 | in(k.Old.Live)<<29 | ref(k.Old.Leader)<<32 |
			uint64(k.Old.BEpoch[b])<<40)
		var recs uint64
		for i := 0; i < int(k.N); i++ {
			switch rec := &k.Log[i]; rec.Kind {
			case RecRegister, RecFence, RecUnfence, RecShutdown:
				if int(rec.Broker) == b {
					recs += uint64(rec.Kind) << (8 * i)
				}
			case RecPartition:
				recs += (in(rec.ISR) | ref(rec.Leader)<<1) << (8*i + 4)
			}
		}
		mix(recs)
	}
	if s.Ord.Open {
		var before uint64
		for a := 0; a < m.nb(); a++ {
			before += in(s.Ord.After[a])
		}
		mix(uint64(popcount(s.Ord.After[b])) | before<<8 | uint64(s.Ord.After[b]&^m.moved)<<16)
	}
	return h
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
// search under symmetry has revealed; then the network is sorted again. Record ids, offsets,
// epochs, budgets and controller incarnation numbers are not broker-indexed and stay as they
// are. t must not be s. It allocates nothing.
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
	t.Ctrl.Leader, t.Ctrl.ISR, t.Ctrl.Live, t.Ctrl.Shut = id(s.Ctrl.Leader), set(s.Ctrl.ISR), set(s.Ctrl.Live), set(s.Ctrl.Shut)
	for i := 0; i < int(s.CP.N); i++ {
		c := &t.CP.C[i]
		c.Broker = p[c.Broker]
		c.Leader, c.ISR, c.Live, c.Stale = id(c.Leader), set(c.ISR), set(c.Live), set(c.Stale)
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
