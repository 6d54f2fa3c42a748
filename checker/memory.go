package checker

import (
	"runtime"
	"runtime/metrics"
)

// Memory. A search with a budget (Options.MemoryBytes) stops before a segment whose
// insertion and commit would take it over: before inserting a segment's candidates the
// engine adds up what it holds (memBytes: the capacity of every table and queue), what the
// liveness check will allocate once the search ends, the Go runtime's own overhead as
// runtime/metrics measures it, and an upper bound on what the segment allocates, counting
// the old copy of every array that grows as live while it is copied: the fingerprint
// shards that grow (all of them do within a few segments, each by a quarter), the
// insertion workers' segment tables, the parent links, the next frontier's blocks, the
// property flags and the liveness graph. The arrays grow only through reserve, by the rule
// growCap states, so that the bound is the allocation. The frontiers count only the blocks
// in memory: past their share of the budget they spill to disk (frontier.go). The budget is then a bound on the live heap; the CLI sets the Go runtime's
// memory limit to it, so that the garbage (old copies) is collected before the process's
// resident memory goes much beyond it.

// liveBytesPerState is what the liveness check allocates per state after the search, at
// most (liveChecker): the label (4) and Tarjan's index and low link (8); the buffer that is
// the searches' queue and Tarjan's stack (4) and the one for the components split by
// fairness (4); the call stack, as deep as the number of states at worst (16 a frame); eight
// bitsets (1). The liveness graph's stream is not among them: it is either in memory
// already, or the spill file's mapping (spill.go). A lasso's steps (8 bytes each, a shortest
// path having at most one a state) take the call stack's place, which is let go first.
const liveBytesPerState = 4 + 8 + 4 + 4 + 16 + 1

// liveBytesSpilled is liveBytesPerState when the call stack spills to disk past keepChunks
// chunks (spillsStack): a lasso's steps, 8 bytes each, still take its place at most.
const liveBytesSpilled = liveBytesPerState - 16 + 8

// mapWindow is what the liveness phase keeps resident of the spill files' mappings at most,
// which are not the engine's memory but count in the process's resident size: the pages of
// the graph's stream a component search touches between two releases (releaseEvery states,
// a page each), or the piece of a mapping its check reads (verifyPiece).
const mapWindow = releaseEvery*4096 + verifyPiece

// spillsStack reports whether the liveness check's call stack goes to disk past keepChunks
// chunks (frameStack): a search that records the liveness graph and may spill.
func (e *engine[S]) spillsStack() bool { return e.rec && e.spillLimit() > 0 }

// liveBytes is what the liveness check allocates after the search, at most, for n states:
// liveBytesPerState each (liveBytesSpilled, and the call stack's chunks kept in memory, when
// it spills), and the rounding of the call stack's chunks and of the bitsets' words, and the
// per code id arrays (liveChecker, lgraph.fair).
func (e *engine[S]) liveBytes(n int64) int64 {
	if e.spillsStack() {
		return liveBytesSpilled*n + 16*frameChunk*int64(keepChunks) + mapWindow + 8*8 + 22*int64(len(e.codes.codes))
	}
	return liveBytesPerState*n + 16*frameChunk + 8*8 + 22*int64(len(e.codes.codes))
}

// growCap is the capacity that a slice of capacity c that must hold need elements grows
// to: a quarter more, as append grows a large slice, or twice as much when double is set
// (the liveness graph's edge stream and index, while the budget allows: they would be copied too
// often otherwise).
func growCap(c, need int, double bool) int {
	n := c + c/4
	if double {
		n = 2 * c
	}
	return max(need, n, 1024)
}

// reserve returns s with room for n more elements: s itself, or a copy of capacity growCap.
func reserve[T any](s []T, n int, double bool) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	t := make([]T, len(s), growCap(cap(s), len(s)+n, double))
	copy(t, s)
	return t
}

// growBytes is what reserve allocates for n more elements of width bytes in a slice of
// length l and capacity c (its old copy is counted in memBytes until it is collected).
func growBytes(l, c, n int, width int64, double bool) int64 {
	if l+n <= c {
		return 0
	}
	return width * int64(growCap(c, l+n, double))
}

// growthBytes is an upper bound on what inserting adds[i] more fingerprints into each shard
// i (with adds nil: all inserted into every shard, a quicker and looser bound) allocates:
// the tables that grow (to the size insert grows them to) less the old ones, plus, for as
// many shards as workers grow at once, the previous copy, live while it is rehashed.
func (s *fpSet) growthBytes(adds *[fpShards]int32, all, workers int) int64 {
	var net, copyMax int64
	growing := 0
	w := s.slotBytes()
	for i := range s.shards {
		sh := &s.shards[i]
		n := sh.n + all
		if adds != nil {
			n = sh.n + int(adds[i])
		}
		slots := tableSlots(sh.size, n)
		if slots <= uint64(len(sh.fps)) {
			continue
		}
		growing++
		net += w * int64(slots-uint64(len(sh.fps)))
		copyMax = max(copyMax, w*int64(len(sh.fps)))
	}
	return net + int64(min(workers, growing))*copyMax
}

// segmentNeed is an upper bound on what inserting and committing outs into next allocates
// (every candidate counted as a new state), and on the liveness check's share of the new
// states. Unless exact is set, it bounds the fingerprint shards' growth without counting
// the candidates of each.
//
// It returns the three apart: need, what every phase holds after the segment; set, the
// fingerprint set's growth, held only until the liveness phase when the set can go to disk
// (spillsSet); live, the liveness phase's arrays for the new states, held only in it.
func (e *engine[S]) segmentNeed(outs []*chunkOut, next *frontier, exact bool) (need, set, live int64) {
	total, arena, cuts := 0, 0, 0
	for _, o := range outs {
		total += len(o.cands)
		arena += len(o.arena)
		cuts += len(o.cuts)
	}
	if exact {
		var perShard [fpShards]int32
		for _, o := range outs {
			for i := range o.cands {
				perShard[shardOf(o.cands[i].fp)]++
			}
		}
		set = e.set.growthBytes(&perShard, 0, e.workers)
	} else {
		set = e.set.growthBytes(nil, total, e.workers)
	}
	need += e.links.growBytes(total)
	need += next.growBytes(arena, total)
	for _, f := range e.flags {
		need += growBytes(len(f), cap(f), total, 1, false)
	}
	if nw := max(e.workers, 1); total > 0 {
		// The insertion workers' segment tables (segSet.reset).
		per := total/nw + total/(4*nw)
		size := 1024
		for size < 2*per {
			size *= 2
		}
		for w := range nw {
			if w >= len(e.dedup) || len(e.dedup[w].fps) < size {
				need += 12 * int64(size)
			}
		}
	}
	if cap(e.candIdx) < total {
		need += 4 * int64(total)
	}
	if e.rec {
		states := outs[len(outs)-1].hi - outs[0].lo
		need += e.recordNeed(outs)
		need += 2*growBytes(len(e.cutState), cap(e.cutState), cuts, 4, false) + growBytes(len(e.cutBy), cap(e.cutBy), cuts, 2, false)
		need += growBytes(len(e.partial), cap(e.partial), states, 4, false)
		live = e.liveBytes(int64(total)) - e.liveBytes(0)
	}
	return need, set, live
}

// recordNeed is an upper bound on what recordEdges allocates for outs: the chunks' record
// buffers that grow, and the stream and its index (the stream anew when it spills).
func (e *engine[S]) recordNeed(outs []*chunkOut) int64 {
	var need int64
	for _, o := range outs {
		if b, _ := recordBound(o); b > cap(o.rec) {
			need += int64(b)
		}
	}
	bytes, blks := recordBound(outs...)
	es := &e.es
	if share := e.spillShare(); share > 0 && int64(len(es.data)+bytes) > share {
		need += growBytes(0, 0, bytes, 1, e.edgeDouble)
	} else {
		need += growBytes(len(es.data), cap(es.data), bytes, 1, e.edgeDouble)
	}
	return need + growBytes(len(es.blk), cap(es.blk), blks, 8, e.edgeDouble)
}

// spillsSet reports whether the fingerprint set goes to disk before the liveness phase when
// that phase's arrays would not fit beside it (fpset_spill.go): a search that records the
// liveness graph, where files are mapped and the budget allows spilling. The budget then
// bounds the larger of the two phases rather than their sum.
func (e *engine[S]) spillsSet() bool { return e.rec && mapsFiles && e.spillLimit() > 0 }

// phaseBytes is what the search holds against its budget, in the search phase and in the
// liveness phase that follows it: its tables and queues and the runtime's overhead; in the
// liveness phase the liveness check's arrays for the states found so far are added, and,
// where the set can go to disk, the set and the frontiers (let go then) are not counted.
// Without a liveness graph both are the search's; where the set stays, both count it all.
func (e *engine[S]) phaseBytes() (search, live int64) {
	b := e.memBytes()
	b += e.overhead(b)
	if !e.rec {
		return b, b
	}
	l := e.liveBytes(e.distinct)
	if !e.spillsSet() {
		return b + l, b + l
	}
	return b, b - e.set.bytes() - e.frontBytes + l
}

// usedBytes is the larger of what the search holds against its budget in the two phases.
func (e *engine[S]) usedBytes() int64 {
	s, l := e.phaseBytes()
	return max(s, l)
}

// needsSetSpill reports whether, the search over, the liveness phase's arrays do not fit in
// the budget beside the fingerprint set, which must then go to disk (forceSetSpill: always,
// for tests).
func (e *engine[S]) needsSetSpill() bool {
	if !e.spillsSet() || e.set.spilled() {
		return false
	}
	if forceSetSpill {
		return true
	}
	if e.opts.MemoryBytes <= 0 {
		return false
	}
	b := e.memBytes()
	b += e.overhead(b)
	return b+e.liveBytes(e.distinct) > e.opts.MemoryBytes
}

// forceSetSpill makes every search that records a liveness graph spill its set (tests).
var forceSetSpill = false

// overhead is the memory of the Go runtime beyond the engine's tables (own bytes): see
// memMeter.overhead.
func (e *engine[S]) overhead(own int64) int64 { return e.meter.overhead(own) }

// memMeter reads, from runtime/metrics, the memory of the Go runtime beyond what a search
// holds in its own tables.
type memMeter struct{ samples []metrics.Sample }

// overhead is the memory of the Go runtime beyond own bytes of a search's tables: its
// metadata, stacks and other non-heap memory, and the live heap objects that are not the
// search's (as of the last collection).
func (mm *memMeter) overhead(own int64) int64 {
	if mm.samples == nil {
		mm.samples = []metrics.Sample{
			{Name: "/memory/classes/total:bytes"},
			{Name: "/memory/classes/heap/released:bytes"},
			{Name: "/memory/classes/heap/objects:bytes"},
			{Name: "/memory/classes/heap/free:bytes"},
			{Name: "/memory/classes/heap/unused:bytes"},
			{Name: "/gc/heap/live:bytes"},
		}
	}
	metrics.Read(mm.samples)
	var v [6]int64
	for i, s := range mm.samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return 0
		}
		v[i] = int64(s.Value.Uint64())
	}
	nonHeap := v[0] - v[1] - v[2] - v[3] - v[4]
	return max(nonHeap, 0) + max(v[5]-own, 0)
}

// fits reports whether the search can insert and commit outs within its budget: by the
// quick bound far from it, by the exact one near it. Near the budget the edge stream grows
// by a quarter instead of doubling, and when that is not enough either, it spills to disk.
func (e *engine[S]) fits(outs []*chunkOut, next *frontier) bool {
	if e.opts.MemoryBytes <= 0 {
		return true
	}
	search, live := e.phaseBytes()
	ok := func(exact bool) bool {
		need, set, lv := e.segmentNeed(outs, next, exact)
		if !e.spillsSet() {
			return search+need+set+lv <= e.opts.MemoryBytes
		}
		return search+need+set <= e.opts.MemoryBytes && live+need+lv <= e.opts.MemoryBytes
	}
	if ok(false) || ok(true) {
		return true
	}
	if e.rec && e.edgeDouble {
		e.edgeDouble = false
		if ok(true) {
			return true
		}
	}
	if e.rec && len(e.es.data) > 0 && e.spillShare() > 0 {
		// Spill the liveness graph's stream, and try again without it. A failure to spill
		// leaves the stream in memory, and the budget stops the search.
		if e.es.spillOut(e.opts.SpillDir) == nil {
			runtime.GC() // the stream's memory is garbage now: let the overhead show it
			return e.fits(outs, next)
		}
	}
	return false
}
