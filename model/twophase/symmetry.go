package twophase

// Canonicalize rewrites s to the representative of its symmetry class: resource managers
// are interchangeable, so RMs are sorted by (rmState, in tmPrepared, sent Prepared). Two
// states that differ by a permutation of RMs have the same representative.
func (m *Model) Canonicalize(s *State) {
	var keys [MaxRM]uint8
	for r := 0; r < m.N; r++ {
		k := uint8(s.RM[r]) << 2
		if s.TMPrepared&(1<<r) != 0 {
			k |= 2
		}
		if s.MsgPrepared&(1<<r) != 0 {
			k |= 1
		}
		keys[r] = k
	}
	for i := 1; i < m.N; i++ { // insertion sort: N is small, and it allocates nothing
		for j := i; j > 0 && keys[j-1] > keys[j]; j-- {
			keys[j-1], keys[j] = keys[j], keys[j-1]
		}
	}
	s.TMPrepared, s.MsgPrepared = 0, 0
	for r := 0; r < m.N; r++ {
		s.RM[r] = RMState(keys[r] >> 2)
		if keys[r]&2 != 0 {
			s.TMPrepared |= 1 << r
		}
		if keys[r]&1 != 0 {
			s.MsgPrepared |= 1 << r
		}
	}
}
