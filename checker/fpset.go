package checker

import "math/bits"

// fpSet is the set of fingerprints of the states found, with, when the liveness graph is
// recorded (vals), each one's state index. It is split into fpShards shards selected by the
// top bits of a fingerprint. Each shard is an ordered linear-probing table (Amble and Knuth's
// ordered hash table): a fingerprint's home slot is a monotone function of it (the product of
// its bits below the shard bits with the table size, top half), and the slots hold the
// fingerprints in increasing order with gaps, so that a lookup stops at the first slot that
// holds a larger fingerprint or none. That keeps lookups short at a load of 90%, lets a table
// grow by a quarter instead of doubling (a sequential merge into the larger table), and makes
// a table's contents depend only on the set it holds, not on the order of insertion.
// Without values a slot is 8 bytes, so the set takes 8.9 to 11.1 bytes per fingerprint.
//
// During a level's insertion phase each worker owns the shards whose number is its worker
// number modulo the worker count, so no locks are needed; reads happen only while no one
// writes.
//
// Invariants of a shard:
//  1. len(fps) == size+fpSlack(size) (or 0), len(vals) == len(fps) when the set keeps values,
//     else 0; the last slot is always empty.
//  2. fps[i] == 0 marks an empty slot; fingerprint never returns 0. Every fingerprint in a
//     shard has the shard's top bits.
//  3. A fingerprint f sits at a slot at or after home(f), and every slot from home(f) to it is
//     full; the non-empty slots hold increasing fingerprints.
//  4. n <= size*fpLoadNum/fpLoadDen.
type fpSet struct {
	shards [fpShards]fpShard
	vals   bool      // keep a value (state index) per fingerprint
	file   *setSpill // the tables are read from this file's mapping (fpset_spill.go)
}

const (
	fpShardBits = 8
	fpShards    = 1 << fpShardBits
	fpInitSlots = 64
	fpLoadNum   = 9 // maximum load: 9/10
	fpLoadDen   = 10
)

type fpShard struct {
	fps  []uint64
	vals []uint32
	size uint64 // home slots: home(f) < size
	n    int
	_    [16]byte // keep shards on separate cache lines
}

func shardOf(fp uint64) int { return int(fp >> (64 - fpShardBits)) }

// fpSlack is the number of slots past the home slots of a table of size home slots, where
// the last runs end.
func fpSlack(size uint64) uint64 { return 64 + size/128 }

// fpGrowSize is the size a table of size home slots grows to: a quarter more, a multiple of 64.
func fpGrowSize(size uint64) uint64 {
	if size == 0 {
		return fpInitSlots
	}
	return (size + size/4 + 63) &^ 63
}

// fpFull reports whether n fingerprints are too many for size home slots.
func fpFull(n int, size uint64) bool { return uint64(n)*fpLoadDen > size*fpLoadNum }

// home is the home slot of fp in a table of size home slots.
func home(fp, size uint64) uint64 {
	hi, _ := bits.Mul64(fp<<fpShardBits, size)
	return hi
}

// slotBytes is the memory of one slot.
func (s *fpSet) slotBytes() int64 {
	if s.vals {
		return 12
	}
	return 8
}

// lookup returns the value stored for fp (0 in a set without values).
func (s *fpSet) lookup(fp uint64) (uint32, bool) {
	return s.shards[shardOf(fp)].lookup(fp)
}

// bytes is the memory held by the tables (none once they are read from the spill file).
func (s *fpSet) bytes() int64 {
	if s.file != nil {
		return 0
	}
	var b int64
	for i := range s.shards {
		b += int64(len(s.shards[i].fps))
	}
	return b * s.slotBytes()
}

// len is the number of fingerprints stored.
func (s *fpSet) len() int {
	n := 0
	for i := range s.shards {
		n += s.shards[i].n
	}
	return n
}

// probe loads the home slot of fp (a prefetch for a lookup that follows).
func (sh *fpShard) probe(fp uint64) uint64 {
	if sh.n == 0 {
		return 0
	}
	h := home(fp, sh.size)
	// A run is about 5 slots long at the maximum load: the slot 7 on is often on the next
	// cache line, which a lookup reads too.
	return sh.fps[h] + sh.fps[h+7]
}

// find returns the slot of fp, or of the first fingerprint above it (or empty) if absent.
func (sh *fpShard) find(fp uint64) (uint64, bool) {
	i := home(fp, sh.size)
	for {
		f := sh.fps[i]
		if f == fp {
			return i, true
		}
		if f == 0 || f > fp {
			return i, false
		}
		i++
	}
}

// has reports whether fp is present, reading only the fingerprint array.
func (sh *fpShard) has(fp uint64) bool {
	if sh.n == 0 {
		return false
	}
	_, ok := sh.find(fp)
	return ok
}

func (sh *fpShard) lookup(fp uint64) (uint32, bool) {
	if sh.n == 0 {
		return 0, false
	}
	i, ok := sh.find(fp)
	if !ok || sh.vals == nil {
		return 0, ok
	}
	return sh.vals[i], true
}

// set overwrites the value of a fingerprint already present.
func (sh *fpShard) set(fp uint64, v uint32) {
	i, ok := sh.find(fp)
	if !ok {
		panic("checker: fingerprint set: set of an absent fingerprint")
	}
	sh.vals[i] = v
}

// insert stores fp with value v (dropped in a set without values) unless it is present; it
// returns the value stored and whether fp was inserted now. vals says whether the set
// keeps values.
func (sh *fpShard) insert(fp uint64, v uint32, vals bool) (uint32, bool) {
	if sh.n == 0 || fpFull(sh.n+1, sh.size) {
		sh.grow(vals)
	}
	for {
		i, ok := sh.find(fp)
		if ok {
			if sh.vals == nil {
				return 0, false
			}
			return sh.vals[i], false
		}
		// The run from i on moves up one slot; the last slot must stay empty.
		j := i
		for sh.fps[j] != 0 {
			j++
		}
		if j == uint64(len(sh.fps))-1 {
			sh.grow(vals)
			continue
		}
		copy(sh.fps[i+1:j+1], sh.fps[i:j])
		sh.fps[i] = fp
		if sh.vals != nil {
			copy(sh.vals[i+1:j+1], sh.vals[i:j])
			sh.vals[i] = v
		}
		sh.n++
		return v, true
	}
}

// grow moves the shard to a larger table: the fingerprints, in order, each to its home slot
// or the slot after the previous one.
func (sh *fpShard) grow(vals bool) {
	size := fpGrowSize(sh.size)
	for fpFull(sh.n+1, size) {
		size = fpGrowSize(size)
	}
	for {
		if sh.rebuild(size, vals) {
			return
		}
		size = fpGrowSize(size)
	}
}

// rebuild moves the shard to a table of size home slots, unless its last run would not fit.
func (sh *fpShard) rebuild(size uint64, vals bool) bool {
	fps := make([]uint64, size+fpSlack(size))
	var vs []uint32
	if vals {
		vs = make([]uint32, len(fps))
	}
	next := uint64(0)
	last := uint64(len(fps)) - 1
	for j, f := range sh.fps {
		if f == 0 {
			continue
		}
		i := max(home(f, size), next)
		if i >= last {
			return false
		}
		fps[i] = f
		if vals {
			vs[i] = sh.vals[j]
		}
		next = i + 1
	}
	sh.fps, sh.vals, sh.size = fps, vs, size
	return true
}

// tableSlots is the number of slots (home and slack) of a shard of n fingerprints grown from
// size home slots, as insert grows it (ignoring the rare growth of a run that reaches the end).
func tableSlots(size uint64, n int) uint64 {
	if n == 0 && size == 0 {
		return 0
	}
	for size == 0 || fpFull(n, size) {
		size = fpGrowSize(size)
	}
	return size + fpSlack(size)
}

// load fills an empty shard with fps, in increasing order, and their values (nil in a set
// without values).
func (sh *fpShard) load(fps []uint64, vals []uint32) {
	sh.fps, sh.vals, sh.n = fps, vals, len(fps)
	if len(fps) == 0 {
		sh.fps, sh.vals, sh.size = nil, nil, 0
		return
	}
	sh.size = 0
	size := fpGrowSize(0)
	for fpFull(sh.n, size) {
		size = fpGrowSize(size)
	}
	for !sh.rebuild(size, vals != nil) {
		size = fpGrowSize(size)
	}
}
