package checker

import (
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// worker holds one goroutine's reused buffers.
type worker[S any] struct {
	e    *engine[S]
	cur  S
	succ []S
	acts []uint64
	cut  []uint64 // steps cut by a model bound (Bounded), and by which bound
	by   []int
	// The batch: the successors of a run of frontier states (batchSuccs or a little more),
	// generated before any of them is looked up, so that the seen set's cache misses of the
	// whole batch overlap. In a safety search it holds only successors new to the chunk.
	encs    []byte   // their encodings, back to back
	encEnd  []uint32 // where each ends in encs
	fps     []uint64
	bacts   []uint64 // their action codes, when recording the liveness graph
	bstate  []uint32 // per state of the batch, from its first: where its successors end
	bpos    []uint16 // safety only: each one's position among its state's successors
	borbit  []uint32 // with CanonicalEncoder: each one's class size
	tfps    []uint64 // with the liveness graph: those not in cset, to touch
	touch   uint64   // keeps the probe loads alive
	cset    chunkSet // the successors of the chunk so far
	samples []metrics.Sample
	// With Options.Coverage, per kind of action: states where it was enabled, steps taken,
	// and the last state (plus one) that counted it as enabled.
	covEnabled, covTaken []int64
	covSeen              []uint32
	covState             uint32
	orbits               int64 // with Orbiter: the sizes of the classes of the segment's states expanded
	// taken, with Options.Vacuity, has bit k set once a step of kind k (< 256) was taken.
	taken [4]uint64
	// With the partial-order reduction: the scratch of stubborn sets, and the states
	// expanded with a reduced set and those the proviso expanded in full.
	pb               porBuf
	reduced, proviso int64
	// The same counts for the segment being expanded: added to reduced and proviso when it is
	// committed, dropped with it when a limit drops it (it is expanded again on resume).
	segReduced, segProviso int64
}

func (e *engine[S]) worker(i int) *worker[S] {
	for len(e.ws) <= i {
		w := &worker[S]{e: e}
		if e.opts.MemoryBytes > 0 {
			w.samples = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		}
		e.ws = append(e.ws, w)
	}
	return e.ws[i]
}

// expandChunk expands frontier states [lo, hi) into out: checks the state properties of each,
// computes its successors, checks the action properties of each step, and keeps the
// successors that are not yet in the fingerprint set as candidates. When recording the
// liveness graph it also writes every edge (to a known state's index, or to a candidate).
// It allocates nothing once the buffers have grown.
func (w *worker[S]) expandChunk(fr *frontier, lo, hi int, out *chunkOut) {
	out.lo, out.hi = lo, hi
	out.cands = out.cands[:0]
	if nw := w.e.workers; nw > 1 {
		for len(out.byW) < nw {
			out.byW = append(out.byW, nil)
		}
		for k := range out.byW {
			out.byW[k] = out.byW[k][:0]
		}
	}
	out.arena = out.arena[:0]
	out.edges = out.edges[:0]
	out.ecodes = out.ecodes[:0]
	out.ecnt = out.ecnt[:0]
	out.missing = out.missing[:0]
	out.cuts = out.cuts[:0]
	out.missingCut = out.missingCut[:0]
	out.cut = false
	out.gen = 0
	out.viol = violation{}
	w.cset.reset()
	for k := lo; k < hi; {
		g := k
		w.encs, w.encEnd, w.fps, w.bacts, w.bstate, w.bpos, w.borbit = w.encs[:0], w.encEnd[:0], w.fps[:0], w.bacts[:0], w.bstate[:0], w.bpos[:0], w.borbit[:0]
		for k < hi && len(w.fps) < batchSuccs {
			w.expandState(fr, k, out)
			w.bstate = append(w.bstate, uint32(len(w.fps)))
			k++
		}
		w.lookupBatch(fr.base+uint32(g), out)
	}
}

// batchSuccs is the number of successors after which a batch is looked up: their slots
// (some 64 bytes each) stay in a core's cache between the probe and the lookup.
const batchSuccs = 2048

// liveFlag is state s's flags for the j-th liveness property: bit 1 its P holds (LeadsTo),
// bit 2 its Q or its state predicate does.
func (e *engine[S]) liveFlag(j int, s *S) byte {
	p := &e.props[e.live[j]]
	var f byte
	if p.Kind == LeadsTo {
		if p.P(s) {
			f |= 1
		}
		if p.Q(s) {
			f |= 2
		}
	} else if p.State(s) {
		f |= 2
	}
	return f
}

func (w *worker[S]) expandState(fr *frontier, k int, out *chunkOut) {
	e := w.e
	idx := fr.base + uint32(k)
	e.m.Decode(fr.state(k), &w.cur)
	s := &w.cur
	if e.orb != nil && e.cenc == nil {
		w.orbits += int64(e.orb.OrbitSize(s))
	}
	for j, pi := range e.live {
		// liveFlag, written out: this is once per state of a liveness search.
		p := &e.props[pi]
		var f byte
		switch p.Kind {
		case LeadsTo:
			if p.P(s) {
				f |= 1
			}
			if p.Q(s) {
				f |= 2
			}
		default:
			if p.State(s) {
				f |= 2
			}
		}
		e.flags[j][idx] = f
	}
	for j, pi := range e.some {
		if !e.someHit[j].Load() && e.props[pi].State(s) {
			e.someHit[j].Store(true)
		}
	}
	for _, pi := range e.inv {
		if !e.props[pi].State(s) {
			out.viol.offer(violation{found: true, idx: idx, prop: pi, fp: e.fp(fr.state(k))})
			return
		}
	}
	w.cut, w.by = w.cut[:0], w.by[:0]
	if e.bnd != nil {
		w.succ, w.acts, w.cut, w.by = e.bnd.NextCut(s, w.succ[:0], w.acts[:0], w.cut, w.by)
	} else {
		w.succ, w.acts = e.m.Next(s, w.succ[:0], w.acts[:0])
	}
	out.gen += int64(len(w.succ))
	if e.opts.Coverage {
		w.cover()
	} else if e.opts.Vacuity {
		for _, a := range w.acts {
			if k := e.m.ActionKind(a); k >= 0 && k < 256 {
				w.taken[k>>6] |= 1 << (k & 63)
			}
		}
	}
	if len(w.succ) == 0 && len(w.cut) == 0 && e.opts.Deadlock {
		out.viol.offer(violation{found: true, idx: idx, prop: -1, fp: e.fp(fr.state(k))})
		return
	}
	if e.rec {
		// Fair steps cut by a bound, for liveness; unfair ones change no verdict.
		for j, a := range w.cut {
			if k := e.m.ActionKind(a); k < 0 || k >= len(e.kfair) || e.kfair[k] == Unfair {
				continue
			}
			id, ok := e.codes.lookup(a)
			if !ok {
				out.missingCut = append(out.missingCut, missingCode{pos: uint32(len(out.cuts)), code: a})
			}
			out.cuts = append(out.cuts, cutRec{state: idx, code: id, by: uint16(w.by[j])})
		}
	}
	if len(w.succ) > 1<<16 {
		panic("checker: a state has more than 65536 successors")
	}
	if e.por != nil && w.stubborn() {
		// Every step is checked against the action properties (a violation found is real);
		// only the reduced set's successors join the search, unless the proviso refuses it.
		for i := range w.succ {
			w.checkStep(s, i, idx, fr, k, out)
		}
		self := e.fp(fr.state(k))
		for try := 0; ; try++ {
			switch w.reducedSet(idx, self) {
			case setTaken:
				out.gen += int64(w.pb.kept - len(w.succ))
				w.segReduced++
				return
			case setStutters:
				// Every step of the set is a stuttering step: another key, if there is one.
				w.pb.noKey.or(&w.pb.keys)
				w.pb.retry = true
				again := try < 3 && w.stubborn()
				w.pb.retry = false
				if again {
					continue
				}
			}
			break
		}
		w.segProviso++
		for i := range w.succ {
			w.addSucc(i)
		}
		return
	}
	for i := range w.succ {
		t := &w.succ[i]
		for _, pi := range e.act {
			if !e.props[pi].Step(s, w.acts[i], t) {
				out.viol.offer(violation{found: true, step: true, idx: idx, pos: uint16(i), prop: pi, fp: e.fp(fr.state(k))})
				break
			}
		}
		start, orbit := len(w.encs), 1
		switch {
		case e.cenc != nil:
			w.encs, orbit = e.cenc.EncodeCanonical(t, w.encs)
		case e.sym != nil:
			e.sym.Canonicalize(t)
			fallthrough
		default:
			w.encs = e.m.Encode(t, w.encs)
		}
		fp := e.fp(w.encs[start:])
		if !e.rec {
			// Safety only: a successor generated before in this chunk is either known or a
			// candidate already, and needs no lookup.
			slot, dup := w.cset.find(fp)
			if dup {
				w.encs = w.encs[:start]
				continue
			}
			w.cset.add(slot, fp, 0)
			w.bpos = append(w.bpos, uint16(i))
		}
		w.encEnd = append(w.encEnd, uint32(len(w.encs)))
		w.fps = append(w.fps, fp)
		if e.cenc != nil {
			w.borbit = append(w.borbit, uint32(orbit))
		}
	}
	if e.rec {
		w.bacts = append(w.bacts, w.acts...)
	}
}

// checkStep checks the action properties on step i of state s (frontier state k, index idx).
func (w *worker[S]) checkStep(s *S, i int, idx uint32, fr *frontier, k int, out *chunkOut) {
	e := w.e
	for _, pi := range e.act {
		if !e.props[pi].Step(s, w.acts[i], &w.succ[i]) {
			out.viol.offer(violation{found: true, step: true, idx: idx, pos: uint16(i), prop: pi, fp: e.fp(fr.state(k))})
			return
		}
	}
}

// Outcomes of reducedSet.
const (
	setTaken    = iota // the reduced set's successors joined the batch
	setClosed          // the proviso refused it: a successor is closed
	setStutters        // every step of the set is a stuttering step
)

// reducedSet encodes the successors of the reduced set (w.pb.keep) of state idx, whose
// fingerprint is self, and applies the cycle proviso: when one of them is closed (a state
// stored with an index below idx, or one a bound dropped) it reports setClosed, and when
// every one is the state itself setStutters; otherwise the successors join the batch. A step back to the state itself (a
// stuttering step) is left out of the proviso: it reaches nothing, and the search goes on
// along the set's other steps, one of which, on any cycle they close, is refused.
func (w *worker[S]) reducedSet(idx uint32, self uint64) int {
	e, b := w.e, &w.pb
	b.encs, b.ends, b.fps, b.orbit = b.encs[:0], b.ends[:0], b.fps[:0], b.orbit[:0]
	moves := false
	for _, i := range b.keep {
		t := &w.succ[i]
		start, orbit := len(b.encs), 1
		switch {
		case e.cenc != nil:
			b.encs, orbit = e.cenc.EncodeCanonical(t, b.encs)
		case e.sym != nil:
			c := *t
			e.sym.Canonicalize(&c)
			b.encs = e.m.Encode(&c, b.encs)
		default:
			b.encs = e.m.Encode(t, b.encs)
		}
		fp := e.fp(b.encs[start:])
		if fp == self {
			b.encs = b.encs[:start]
			b.ends = append(b.ends, uint32(len(b.encs)))
			b.fps = append(b.fps, fp)
			b.orbit = append(b.orbit, uint32(orbit))
			continue
		}
		if !e.por.visible.has(w.pb.grp[i]) {
			moves = true // the walk of C2' (por.go) needs an invisible step that moves
		}
		if v, ok := e.set.lookup(fp); ok && (v&pendBit != 0 || v <= idx) {
			return setClosed
		}
		b.ends = append(b.ends, uint32(len(b.encs)))
		b.fps = append(b.fps, fp)
		b.orbit = append(b.orbit, uint32(orbit))
	}
	if !moves {
		return setStutters
	}
	start := uint32(0)
	b.kept = 0
	for j, i := range b.keep {
		if b.fps[j] != self {
			w.pushSucc(i, b.encs[start:b.ends[j]], b.fps[j], int(b.orbit[j]))
			b.kept++
		}
		start = b.ends[j]
	}
	return setTaken
}

// addSucc encodes successor i of the current state (its class representative under
// symmetry) and adds it to the batch.
func (w *worker[S]) addSucc(i int) {
	e := w.e
	t := &w.succ[i]
	start, orbit := len(w.encs), 1
	switch {
	case e.cenc != nil:
		w.encs, orbit = e.cenc.EncodeCanonical(t, w.encs)
	case e.sym != nil:
		e.sym.Canonicalize(t)
		fallthrough
	default:
		w.encs = e.m.Encode(t, w.encs)
	}
	w.batchSucc(i, start, e.fp(w.encs[start:]), orbit)
}

// pushSucc adds successor i, encoded as enc with fingerprint fp and class size orbit, to
// the batch (a safety search with the reduction: enc is copied).
func (w *worker[S]) pushSucc(i int, enc []byte, fp uint64, orbit int) {
	start := len(w.encs)
	w.encs = append(w.encs, enc...)
	w.batchSucc(i, start, fp, orbit)
}

// batchSucc adds successor i, whose encoding is w.encs[start:], to the batch: in a safety
// search only when it is new to the chunk.
func (w *worker[S]) batchSucc(i, start int, fp uint64, orbit int) {
	e := w.e
	if !e.rec {
		// Safety only: a successor generated before in this chunk is either known or a
		// candidate already, and needs no lookup.
		slot, dup := w.cset.find(fp)
		if dup {
			w.encs = w.encs[:start]
			return
		}
		w.cset.add(slot, fp, 0)
		w.bpos = append(w.bpos, uint16(i))
	}
	w.encEnd = append(w.encEnd, uint32(len(w.encs)))
	w.fps = append(w.fps, fp)
	if e.cenc != nil {
		w.borbit = append(w.borbit, uint32(orbit))
	}
}

// lookupBatch looks the batch's successors up in the seen set, the states of the batch
// being first, first+1, ...: first it touches each one's first table slot in a tight loop,
// so that the cache misses overlap instead of coming one at a time, then it keeps those not
// yet in the set as candidates and, when recording the liveness graph, writes every edge
// (to a known state's index, or to a candidate).
func (w *worker[S]) lookupBatch(first uint32, out *chunkOut) {
	e := w.e
	if !e.rec {
		// Safety only: every successor of the batch is new to the chunk (expandState
		// dropped the others); whether it is known is all that matters, and reading only
		// the fingerprint array saves a cache miss per known one.
		w.touchAll(w.fps)
		i, start := 0, uint32(0)
		for k, end := range w.bstate {
			idx := first + uint32(k)
			for ; i < int(end); i++ {
				fp := w.fps[i]
				enc := w.encs[start:w.encEnd[i]]
				start = w.encEnd[i]
				if e.set.shards[shardOf(fp)].has(fp) {
					continue
				}
				w.addCand(out, fp, idx, w.bpos[i], enc, w.orbitOf(i))
			}
		}
		return
	}
	// With the liveness graph every step needs its target: a successor generated before in
	// this chunk has it in cset (a known state's index, a candidate, or noIndex for a state
	// that a bound dropped), the others are looked up in the set.
	w.tfps = w.tfps[:0]
	for _, fp := range w.fps {
		if _, ok := w.cset.find(fp); !ok {
			w.tfps = append(w.tfps, fp)
		}
	}
	w.touchAll(w.tfps)
	i, start := 0, uint32(0)
	for k, end := range w.bstate {
		idx := first + uint32(k)
		for pos := 0; i < int(end); i, pos = i+1, pos+1 {
			fp := w.fps[i]
			enc := w.encs[start:w.encEnd[i]]
			start = w.encEnd[i]
			slot, seen := w.cset.find(fp)
			target := noIndex
			if seen {
				target = w.cset.vals[slot]
			} else {
				t, known := e.set.lookup(fp)
				switch {
				case !known:
					target = pendBit | uint32(len(out.cands))
					w.addCand(out, fp, idx, uint16(pos), enc, w.orbitOf(i))
				case t&pendBit == 0:
					target = t
				}
				// (t&pendBit set: a state dropped by a bound in an earlier segment.)
				w.cset.add(slot, fp, target)
			}
			switch target {
			case noIndex:
				out.cut = true // the step to a dropped state is cut too
			case idx:
				continue // a self-loop is a stuttering step for fairness
			}
			a := w.bacts[i]
			id, ok := e.codes.lookup(a)
			if !ok {
				out.missing = append(out.missing, missingCode{pos: uint32(len(out.ecodes)), code: a})
			}
			out.edges = append(out.edges, target)
			out.ecodes = append(out.ecodes, id)
		}
		out.ecnt = append(out.ecnt, uint32(len(out.edges)))
	}
}

// addCand appends a candidate to out: the successor at position pos of state parent,
// with fingerprint fp and encoding enc. With several workers its index also goes to the
// list of the insertion worker that owns its shard.
func (w *worker[S]) addCand(out *chunkOut, fp uint64, parent uint32, pos uint16, enc []byte, orbit uint32) {
	if nw := len(out.byW); nw > 1 {
		k := shardOf(fp) % nw
		out.byW[k] = append(out.byW[k], uint32(len(out.cands)))
	}
	out.cands = append(out.cands, cand{fp: fp, parent: parent, pos: pos, off: uint32(len(out.arena)), n: uint32(len(enc)), orbit: orbit})
	out.arena = append(out.arena, enc...)
}

// touchAll loads the home slot of each of fps in a tight loop, so that their cache misses
// overlap.
func (w *worker[S]) touchAll(fps []uint64) {
	var touch uint64
	for _, fp := range fps {
		touch += w.e.set.shards[shardOf(fp)].probe(fp)
	}
	w.touch = touch
}

// orbitOf is the class size of the batch's successor i (CanonicalEncoder), or 0.
func (w *worker[S]) orbitOf(i int) uint32 {
	if i < len(w.borbit) {
		return w.borbit[i]
	}
	return 0
}

// bytes is the memory of the worker's batch buffers and chunk table.
func (w *worker[S]) bytes() int64 {
	return int64(cap(w.encs)) + 4*int64(cap(w.encEnd)+cap(w.bstate)) + 8*int64(cap(w.fps)+cap(w.tfps)+cap(w.bacts)) + 4*int64(cap(w.borbit)) +
		12*int64(len(w.cset.fps))
}

// chunkSet is a worker's table of the fingerprints of the successors generated in the chunk
// it expands, so that a state reached from several states of one chunk is looked up in the
// seen set once (most successors are: the chunk set stays in the core's cache, the seen set
// does not), and a new one is one candidate, its first occurrence in the chunk (the later
// ones it drops would be later occurrences in the segment too, so the outcome does not
// depend on the chunks). With the liveness graph it keeps each one's edge target
// (lookupBatch). At most half full, cleared per chunk.
type chunkSet struct{ smallTable } // vals: with the liveness graph, the edge target

func (c *chunkSet) reset() {
	if c.fps == nil {
		c.fps, c.vals, c.mask = make([]uint64, 1024), make([]uint32, 1024), 1023
	} else if c.n > 0 {
		clear(c.fps)
	}
	c.n = 0
}

// add stores fp, with target i, at slot (found empty by find), growing the table past half.
func (c *chunkSet) add(slot, fp uint64, i uint32) {
	c.fps[slot], c.vals[slot] = fp, i
	c.n++
	if 2*c.n <= len(c.fps) {
		return
	}
	fps, vals := c.fps, c.vals
	c.fps, c.vals, c.mask = make([]uint64, 2*len(fps)), make([]uint32, 2*len(fps)), uint64(2*len(fps)-1)
	for j, f := range fps {
		if f != 0 {
			k, _ := c.find(f)
			c.fps[k], c.vals[k] = f, vals[j]
		}
	}
}

// stopOrTime reports a stop request or the time limit passed, if either stops the search now.
func (e *engine[S]) stopOrTime() int32 {
	if e.opts.Stop != nil {
		select {
		case <-e.opts.Stop:
			return limitStop
		default:
		}
	}
	if !e.deadline.IsZero() && time.Now().After(e.deadline) {
		return limitTime
	}
	return limitNone
}

// limitHit reports which limit, if any, stops the search now.
func (w *worker[S]) limitHit() int32 {
	e := w.e
	if l := e.stopOrTime(); l != limitNone {
		return l
	}
	if e.opts.MemoryBytes > 0 {
		used := e.ownBytes.Load()
		metrics.Read(w.samples)
		if w.samples[0].Value.Kind() == metrics.KindUint64 {
			if h := int64(w.samples[0].Value.Uint64()); h > used {
				used = h
			}
		}
		if used > e.opts.MemoryBytes {
			return limitMemory
		}
	}
	return limitNone
}

// expand runs the expansion phase over frontier states [lo, hi) with all workers.
func (e *engine[S]) expand(fr *frontier, lo, hi int) []*chunkOut {
	// Chunks of chunkStates states, smaller (down to a quarter) when a segment would give
	// each worker fewer than four: a level of a few thousand states still keeps every
	// worker busy. The outcome does not depend on the chunks: a candidate that a chunk's
	// table drops is a later occurrence of one that stays, in the same order.
	cs := chunkStates
	if e.workers > 1 {
		cs = min(cs, max(cs/4, (hi-lo)/(4*e.workers), 1))
	}
	nchunks := (hi - lo + cs - 1) / cs
	for len(e.outs) < nchunks {
		e.outs = append(e.outs, &chunkOut{})
	}
	outs := e.outs[:nchunks]
	for _, o := range outs {
		o.gen, o.viol = 0, violation{} // chunks not reached after a limit report nothing
	}
	var next atomic.Int64
	run := func(w *worker[S]) {
		for {
			c := int(next.Add(1) - 1)
			if c >= nchunks || e.abort.Load() != limitNone {
				return
			}
			if l := w.limitHit(); l != limitNone {
				e.abort.CompareAndSwap(limitNone, l)
				return
			}
			a := lo + c*cs
			b := min(a+cs, hi)
			w.expandChunk(fr, a, b, outs[c])
		}
	}
	nw := min(e.workers, nchunks)
	if nw <= 1 {
		run(e.worker(0))
		return outs
	}
	var wg sync.WaitGroup
	for i := range nw {
		w := e.worker(i)
		wg.Go(func() { run(w) })
	}
	wg.Wait()
	return outs
}

// cover counts the current state's steps by kind of action (Options.Coverage).
func (w *worker[S]) cover() {
	if w.covTaken == nil {
		n := len(w.e.m.ActionKinds())
		w.covEnabled, w.covTaken, w.covSeen = make([]int64, n), make([]int64, n), make([]uint32, n)
	}
	w.covState++
	for _, a := range w.acts {
		k := w.e.m.ActionKind(a)
		if k < 0 || k >= len(w.covTaken) {
			continue
		}
		w.covTaken[k]++
		if w.covSeen[k] != w.covState {
			w.covSeen[k] = w.covState
			w.covEnabled[k]++
		}
	}
}
