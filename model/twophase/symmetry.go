package twophase

// Canonicalize rewrites s to the representative of its symmetry class: resource managers
// are interchangeable, so RMs are sorted by (rmState, in tmPrepared, sent Prepared). Two
// states that differ by a permutation of RMs have the same representative.
func (m *Model) Canonicalize(s *State) {
	var keys [MaxRM]uint8
	for r := 0; r < m.N; r++ {
		keys[r] = rmKey(s, r)
	}
	for i := 1; i < m.N; i++ { // insertion sort: N is small, and it allocates nothing
		for j := i; j > 0 && keys[j-1] > keys[j]; j-- {
			keys[j-1], keys[j] = keys[j], keys[j-1]
		}
	}
	s.RM, s.TMPrepared, s.MsgPrepared = 0, 0, 0
	for r := 0; r < m.N; r++ {
		s.RM = s.RM.With(r, RMState(keys[r]>>2))
		if keys[r]&2 != 0 {
			s.TMPrepared |= 1 << r
		}
		if keys[r]&1 != 0 {
			s.MsgPrepared |= 1 << r
		}
	}
}

// OrbitSize is the number of states s stands for under the permutations of RMs: N! over
// the product of k! for each group of k RMs with the same (rmState, in tmPrepared, sent
// Prepared) key, as Canonicalize sorts them.
func (m *Model) OrbitSize(s *State) int {
	var count [16]int
	for r := 0; r < m.N; r++ {
		count[rmKey(s, r)&15]++
	}
	n := 1
	for i := 2; i <= m.N; i++ {
		n *= i
	}
	for _, c := range count {
		for i := 2; i <= c; i++ {
			n /= i
		}
	}
	return n
}

// rmKey is RM r's sort key: its rmState, whether it is in tmPrepared, whether it sent
// Prepared.
func rmKey(s *State, r int) uint8 {
	k := uint8(s.RM.Of(r)) << 2
	if s.TMPrepared&(1<<r) != 0 {
		k |= 2
	}
	if s.MsgPrepared&(1<<r) != 0 {
		k |= 1
	}
	return k
}
