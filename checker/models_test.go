package checker

import (
	"strconv"
)

// counters is a small test model: K counters in 0..N; a counter can be incremented or
// decremented, and one unit can be moved from counter i to counter j. Its reachable graph is
// the whole box (N+1)^K, known in closed form, with many edges to states already seen. It is
// symmetric under any permutation of the counters.
type counters struct {
	N      uint8
	noDec  bool // without Dec and Move the box is a DAG whose corner deadlocks
	noMove bool
	nondet bool // Next gives successors in a changing order (to test the replay panic)
	calls  *int
	fair   Fairness // of every kind
}

const nCounters = 4

type cstate struct{ C [nCounters]uint8 }

// Action codes: kind<<8 | i<<4 | j.
const (
	kInc = iota
	kDec
	kMove
)

func (m counters) Init(buf []cstate) []cstate { return append(buf, cstate{}) }

func (m counters) Next(s *cstate, succ []cstate, acts []uint64) ([]cstate, []uint64) {
	start := len(succ)
	for i := range nCounters {
		if s.C[i] < m.N {
			t := *s
			t.C[i]++
			succ = append(succ, t)
			acts = append(acts, uint64(kInc<<8|i<<4))
		}
		if !m.noDec && s.C[i] > 0 {
			t := *s
			t.C[i]--
			succ = append(succ, t)
			acts = append(acts, uint64(kDec<<8|i<<4))
		}
	}
	if !m.noMove {
		for i := range nCounters {
			for j := range nCounters {
				if i != j && s.C[i] > 0 && s.C[j] < m.N {
					t := *s
					t.C[i]--
					t.C[j]++
					succ = append(succ, t)
					acts = append(acts, uint64(kMove<<8|i<<4|j))
				}
			}
		}
	}
	if m.nondet && m.calls != nil {
		*m.calls++
		if *m.calls%2 == 0 && len(succ)-start > 1 {
			succ[start], succ[start+1] = succ[start+1], succ[start]
			acts[start], acts[start+1] = acts[start+1], acts[start]
		}
	}
	return succ, acts
}

func (m counters) Encode(s *cstate, buf []byte) []byte { return append(buf, s.C[:]...) }
func (m counters) Decode(buf []byte, s *cstate)        { copy(s.C[:], buf) }
func (m counters) Vars() []string                      { return []string{"c0", "c1", "c2", "c3"} }
func (m counters) AppendValue(s *cstate, v int, buf []byte) []byte {
	buf = append(buf, `{"#bigint":"`...)
	buf = strconv.AppendInt(buf, int64(s.C[v]), 10)
	return append(buf, `"}`...)
}
func (m counters) ActionName(a uint64) string {
	i, j := strconv.Itoa(int(a>>4&15)), strconv.Itoa(int(a&15))
	switch a >> 8 {
	case kInc:
		return "Inc(" + i + ")"
	case kDec:
		return "Dec(" + i + ")"
	default:
		return "Move(" + i + "," + j + ")"
	}
}
func (m counters) ActionKind(a uint64) int { return int(a >> 8) }
func (m counters) ActionKinds() []string   { return []string{"Inc", "Dec", "Move"} }
func (m counters) Fairness(kind int) int   { return int(m.fair) }

// symCounters is counters with the permutation symmetry: the canonical state has its
// counters sorted.
type symCounters struct{ counters }

func (m symCounters) Canonicalize(s *cstate) {
	for i := 1; i < nCounters; i++ {
		for j := i; j > 0 && s.C[j-1] > s.C[j]; j-- {
			s.C[j-1], s.C[j] = s.C[j], s.C[j-1]
		}
	}
}

func (s *cstate) sum() int {
	n := 0
	for _, c := range s.C {
		n += int(c)
	}
	return n
}

// naive is the reference: a map-based breadth-first search over string encodings.
type naiveResult struct {
	distinct, generated int64
	depth               int
	depthOf             map[string]int
	order               []cstate
}

func naiveBFS(m Model[cstate], canon func(*cstate)) naiveResult {
	r := naiveResult{depthOf: map[string]int{}}
	key := func(s cstate) string {
		if canon != nil {
			canon(&s)
		}
		return string(m.Encode(&s, nil))
	}
	var queue []cstate
	for _, s := range m.Init(nil) {
		r.generated++
		if _, ok := r.depthOf[key(s)]; !ok {
			r.depthOf[key(s)] = 1
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		r.order = append(r.order, s)
		d := r.depthOf[key(s)]
		r.depth = max(r.depth, d)
		succ, _ := m.Next(&s, nil, nil)
		for _, t := range succ {
			r.generated++
			if _, ok := r.depthOf[key(t)]; !ok {
				r.depthOf[key(t)] = d + 1
				queue = append(queue, t)
			}
		}
	}
	r.distinct = int64(len(r.depthOf))
	return r
}

// small shrinks the engine's work sizes so that small models use many chunks and segments.
func small() func() {
	c, s := chunkStates, segmentStates
	chunkStates, segmentStates = 3, 20
	return func() { chunkStates, segmentStates = c, s }
}

// orbCounters is symCounters that says how many states a canonical state stands for
// (Orbiter): the distinct orderings of its counters.
type orbCounters struct{ symCounters }

func (m orbCounters) OrbitSize(s *cstate) int {
	n, same := 1, 1
	t := *s
	m.Canonicalize(&t)
	for i := 1; i <= nCounters; i++ {
		n *= i
	}
	for i := 1; i < nCounters; i++ {
		if t.C[i] == t.C[i-1] {
			same++
			n /= same
		} else {
			same = 1
		}
	}
	return n
}

// encCounters is orbCounters that also encodes a class's representative directly
// (CanonicalEncoder).
type encCounters struct{ orbCounters }

func (m encCounters) EncodeCanonical(s *cstate, buf []byte) ([]byte, int) {
	t := *s
	m.Canonicalize(&t)
	return m.Encode(&t, buf), m.OrbitSize(s)
}
