package checker

import "sync"

// insert runs the insertion phase: each worker owns the shards congruent to its number and
// inserts, in candidate order, the candidates of its shards, so the first occurrence of each
// new fingerprint is marked the same way for any worker count. A candidate generated before
// in the same segment (most are: a new state is reached from several states of its level)
// is found in the worker's small table of the segment's fingerprints, which stays in cache,
// and gets its first occurrence's answer without a lookup in the large set.
func (e *engine[S]) insert(outs []*chunkOut) int {
	e.bases = e.bases[:0]
	total := 0
	for _, o := range outs {
		e.bases = append(e.bases, uint32(total))
		total += len(o.cands)
	}
	if total >= int(pendBit) {
		panic("checker: too many successors in one segment")
	}
	vals := e.set.vals
	nw := e.workers
	if nw <= 1 || total < 4096 {
		nw = 1
	}
	for len(e.dedup) < nw {
		e.dedup = append(e.dedup, &segSet{})
	}
	run := func(w, nw int) {
		d := e.dedup[w]
		d.reset(total/nw + total/(4*nw))
		// First pass: the segment's first occurrence of each fingerprint is new (the
		// expansion found it in no shard), and gets pendBit|its sequence number; a later one
		// gets that too with values, or noIndex. The first occurrences go to d.firsts.
		d.firsts = d.firsts[:0]
		one := func(cd *cand, seq uint32) {
			slot, seen := d.find(cd.fp)
			if seen {
				cd.ref = d.vals[slot]
				if !vals {
					cd.ref = noIndex // a later occurrence
				}
				return
			}
			cd.ref = pendBit | seq
			d.add(slot, cd.fp, cd.ref)
			d.firsts = append(d.firsts, cd)
		}
		for c, o := range outs {
			base := e.bases[c]
			if nw > 1 && len(o.byW) == nw {
				for _, i := range o.byW[w] {
					one(&o.cands[i], base+i)
				}
				continue
			}
			for i := range o.cands {
				if cd := &o.cands[i]; shardOf(cd.fp)%nw == w {
					one(cd, base+uint32(i))
				}
			}
		}
		// Second pass: insert them into the shards, a batch at a time, touching each one's
		// home slot first so that the cache misses overlap. (A fingerprint that the full
		// segment table did not take is found in its shard here, and answers as a later
		// occurrence.)
		for b := 0; b < len(d.firsts); b += insertBatch {
			batch := d.firsts[b:min(b+insertBatch, len(d.firsts))]
			var touch uint64
			for _, cd := range batch {
				touch += e.set.shards[shardOf(cd.fp)].probe(cd.fp)
			}
			d.touch = touch
			for _, cd := range batch {
				v, ins := e.set.shards[shardOf(cd.fp)].insert(cd.fp, cd.ref, vals)
				switch {
				case vals:
					cd.ref = v
				case !ins:
					cd.ref = noIndex
				}
			}
		}
	}
	if nw == 1 {
		run(0, 1)
		return total
	}
	var wg sync.WaitGroup
	for i := range nw {
		wg.Go(func() { run(i, nw) })
	}
	wg.Wait()
	return total
}

// commit runs the commit phase, alone: in candidate order, it gives each first occurrence of
// a new state the next index, its parent link and a place in the next frontier, and resolves
// every candidate to its state's index (candIdx). New states are dropped (their parents
// become truncated) when drop is set or the state limit is reached. It returns the number
// of states dropped. The initial states are committed the same way, with parent noIndex.
func (e *engine[S]) commit(outs []*chunkOut, total int, next *frontier, drop bool) int {
	vals := e.set.vals
	var candIdx []uint32
	if vals {
		if cap(e.candIdx) < total {
			e.candIdx = make([]uint32, total)
		}
		candIdx = e.candIdx[:total]
	}
	// Room for every candidate to be a new state, grown as segmentNeed counts it.
	arena, cuts := 0, 0
	for _, o := range outs {
		arena += len(o.arena)
		cuts += len(o.cuts)
	}
	e.links.reserve(total)
	for j := range e.flags {
		e.flags[j] = reserve(e.flags[j], total, false)
	}
	e.cutState, e.cutCode, e.cutBy = reserve(e.cutState, cuts, false), reserve(e.cutCode, cuts, false), reserve(e.cutBy, cuts, false)
	dropped := 0
	maxStates := e.stateLimit()
	for c, o := range outs {
		base := e.bases[c]
		for ci := range o.cands {
			cd := &o.cands[ci]
			seq := base + uint32(ci)
			r := cd.ref
			t := noIndex
			switch {
			case r == noIndex:
				continue // known, in a set without values
			case r&pendBit == 0:
				t = r
			case r&^pendBit == seq:
				if drop || e.distinct >= maxStates {
					dropped++
					break
				}
				t = uint32(e.distinct)
				e.distinct++
				e.orbits += int64(cd.orbit)
				e.links.add(cd.parent, cd.pos)
				next.add(o.arena[cd.off : cd.off+cd.n])
				for j := range e.flags {
					e.flags[j] = append(e.flags[j], 0)
				}
			default:
				t = candIdx[r&^pendBit]
			}
			if vals {
				candIdx[seq] = t
			}
		}
		for _, mc := range o.missing {
			o.ecodes[mc.pos] = e.codes.id(mc.code)
		}
		for _, mc := range o.missingCut {
			o.cuts[mc.pos].code = e.codes.id(mc.code)
		}
		for _, c := range o.cuts {
			e.cutState = append(e.cutState, c.state)
			e.cutCode = append(e.cutCode, c.code)
			e.cutBy = append(e.cutBy, c.by)
		}
	}
	if vals {
		e.setIndices(outs, total)
	}
	return dropped
}

// setIndices replaces, in parallel by shard, the pending value of each new state in the
// fingerprint set by its index. Dropped states keep their pending value (lookups treat a
// pending value as a state that was cut).
func (e *engine[S]) setIndices(outs []*chunkOut, total int) {
	run := func(w, nw int) {
		for c, o := range outs {
			base := e.bases[c]
			for i := range o.cands {
				cd := &o.cands[i]
				seq := base + uint32(i)
				if cd.ref != pendBit|seq {
					continue
				}
				s := shardOf(cd.fp)
				if s%nw != w || e.candIdx[seq] == noIndex {
					continue
				}
				e.set.shards[s].set(cd.fp, e.candIdx[seq])
			}
		}
	}
	nw := e.workers
	if nw <= 1 || total < 4096 {
		run(0, 1)
		return
	}
	var wg sync.WaitGroup
	for i := range nw {
		wg.Go(func() { run(i, nw) })
	}
	wg.Wait()
}

// stateLimit is the number of distinct states the search may store: Options.MaxStates, or
// what state indices can address.
func (e *engine[S]) stateLimit() int64 {
	if e.opts.MaxStates > 0 && e.opts.MaxStates < maxState {
		return e.opts.MaxStates
	}
	return maxState
}

// segSet is a worker's table of the fingerprints of a segment's candidates that it has
// inserted, with the answer each got: open addressing with linear probing, sized for the
// segment and cleared for the next. When full it stops taking fingerprints (their later
// occurrences then go to the large set, which answers the same).
type segSet struct {
	smallTable         // vals: the answer each got
	firsts     []*cand // the first occurrences, in candidate order
	touch      uint64  // keeps the probe loads alive
}

// insertBatch is the number of new fingerprints whose home slots are touched before they
// are inserted.
const insertBatch = 256

// reset empties the table and sizes it for about n fingerprints.
func (d *segSet) reset(n int) {
	size := 1024
	for size < 2*n {
		size *= 2
	}
	if len(d.fps) < size {
		d.fps, d.vals = make([]uint64, size), make([]uint32, size)
	}
	clear(d.fps[:size])
	d.mask, d.n = uint64(size-1), 0
}

// add stores fp and its answer at slot, found empty by find, while the table has room.
func (d *segSet) add(slot, fp uint64, ref uint32) {
	if uint64(d.n+1)*4 > (d.mask+1)*3 {
		return
	}
	d.fps[slot], d.vals[slot] = fp, ref
	d.n++
}

// smallTable is open addressing with linear probing on a fingerprint's low bits, with a
// value per fingerprint: the workers' tables of a chunk's successors (chunkSet) and of a
// segment's candidates (segSet). Its size is a power of two; 0 marks an empty slot.
type smallTable struct {
	fps  []uint64
	vals []uint32
	mask uint64
	n    int
}

// find returns fp's slot and whether it is there, or the empty slot where it would go.
func (t *smallTable) find(fp uint64) (uint64, bool) {
	i := fp & t.mask
	for {
		switch t.fps[i] {
		case fp:
			return i, true
		case 0:
			return i, false
		}
		i = (i + 1) & t.mask
	}
}
