package checker

// fpSet maps fingerprints to state indices. It is split into fpShards shards selected by the
// top bits of a fingerprint; each shard is an open-addressing table with linear probing,
// indexed by the low bits. During a level's insertion phase each worker owns the shards
// whose number is its worker number modulo the worker count, so no locks are needed; reads
// happen only while no one writes.
//
// Invariants:
//  1. len(fps) == len(vals) is a power of two (or 0) and mask == len(fps)-1.
//  2. fps[i] == 0 marks an empty slot; fingerprint never returns 0.
//  3. n < len(fps)*3/4 after every insert.
type fpSet struct {
	shards [fpShards]fpShard
}

const (
	fpShardBits = 8
	fpShards    = 1 << fpShardBits
	fpInitSlots = 64
)

type fpShard struct {
	fps  []uint64
	vals []uint32
	mask uint64
	n    int
	_    [24]byte // keep shards on separate cache lines
}

func shardOf(fp uint64) int { return int(fp >> (64 - fpShardBits)) }

// lookup returns the value stored for fp.
func (s *fpSet) lookup(fp uint64) (uint32, bool) {
	return s.shards[shardOf(fp)].lookup(fp)
}

// bytes is the memory held by the tables.
func (s *fpSet) bytes() int64 {
	var b int64
	for i := range s.shards {
		b += int64(len(s.shards[i].fps)) * 12
	}
	return b
}

// len is the number of fingerprints stored.
func (s *fpSet) len() int {
	n := 0
	for i := range s.shards {
		n += s.shards[i].n
	}
	return n
}

// probe loads the first slot fp would occupy (a prefetch for a lookup that follows).
func (sh *fpShard) probe(fp uint64) uint64 {
	if len(sh.fps) == 0 {
		return 0
	}
	return sh.fps[fp&sh.mask]
}

// set overwrites the value of a fingerprint already present.
func (sh *fpShard) set(fp uint64, v uint32) {
	i := fp & sh.mask
	for {
		if sh.fps[i] == fp {
			sh.vals[i] = v
			return
		}
		if sh.fps[i] == 0 {
			panic("checker: fingerprint set: set of an absent fingerprint")
		}
		i = (i + 1) & sh.mask
	}
}

// has reports whether fp is present, reading only the fingerprint array.
func (sh *fpShard) has(fp uint64) bool {
	if sh.n == 0 {
		return false
	}
	i := fp & sh.mask
	for {
		f := sh.fps[i]
		if f == fp {
			return true
		}
		if f == 0 {
			return false
		}
		i = (i + 1) & sh.mask
	}
}

func (sh *fpShard) lookup(fp uint64) (uint32, bool) {
	if sh.n == 0 {
		return 0, false
	}
	i := fp & sh.mask
	for {
		f := sh.fps[i]
		if f == fp {
			return sh.vals[i], true
		}
		if f == 0 {
			return 0, false
		}
		i = (i + 1) & sh.mask
	}
}

// insert stores fp with value v unless it is present; it returns the value stored and
// whether fp was inserted now.
func (sh *fpShard) insert(fp uint64, v uint32) (uint32, bool) {
	if (sh.n+1)*4 > len(sh.fps)*3 {
		sh.grow()
	}
	i := fp & sh.mask
	for {
		f := sh.fps[i]
		if f == fp {
			return sh.vals[i], false
		}
		if f == 0 {
			sh.fps[i] = fp
			sh.vals[i] = v
			sh.n++
			return v, true
		}
		i = (i + 1) & sh.mask
	}
}

func (sh *fpShard) grow() {
	size := 2 * len(sh.fps)
	if size == 0 {
		size = fpInitSlots
	}
	oldF, oldV := sh.fps, sh.vals
	sh.fps = make([]uint64, size)
	sh.vals = make([]uint32, size)
	sh.mask = uint64(size - 1)
	for j, f := range oldF {
		if f == 0 {
			continue
		}
		i := f & sh.mask
		for sh.fps[i] != 0 {
			i = (i + 1) & sh.mask
		}
		sh.fps[i] = f
		sh.vals[i] = oldV[j]
	}
}
