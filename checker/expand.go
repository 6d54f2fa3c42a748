package checker

import (
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// worker holds one goroutine's reused buffers.
type worker[S any] struct {
	e       *engine[S]
	cur     S
	succ    []S
	acts    []uint64
	cut     []uint64 // steps cut by a model bound (Bounded), and by which bound
	by      []int
	encs    []byte   // encodings of the current state's successors
	encEnd  []uint32 // where each ends in encs
	fps     []uint64
	touch   uint64 // keeps the probe loads alive
	samples []metrics.Sample
	// With Options.Coverage, per kind of action: states where it was enabled, steps taken,
	// and the last state (plus one) that counted it as enabled.
	covEnabled, covTaken []int64
	covSeen              []uint32
	covState             uint32
	orbits               int64 // with Orbiter: the sizes of the classes of the states expanded
	// taken, with Options.Vacuity, has bit k set once a step of kind k (< 256) was taken.
	taken [4]uint64
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
	for k := lo; k < hi; k++ {
		w.expandState(fr, k, out)
		if w.e.rec {
			out.ecnt = append(out.ecnt, uint32(len(out.edges)))
		}
	}
}

func (w *worker[S]) expandState(fr *frontier, k int, out *chunkOut) {
	e := w.e
	idx := fr.base + uint32(k)
	e.m.Decode(fr.state(k), &w.cur)
	s := &w.cur
	if e.orb != nil {
		w.orbits += int64(e.orb.OrbitSize(s))
	}
	for j, pi := range e.live {
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
	// Encode and fingerprint every successor first, then touch each one's first table slot,
	// so that the cache misses of the lookups overlap instead of coming one at a time.
	w.encs = w.encs[:0]
	w.encEnd = w.encEnd[:0]
	w.fps = w.fps[:0]
	for i := range w.succ {
		t := &w.succ[i]
		for _, pi := range e.act {
			if !e.props[pi].Step(s, w.acts[i], t) {
				out.viol.offer(violation{found: true, step: true, idx: idx, pos: uint16(i), prop: pi, fp: e.fp(fr.state(k))})
				break
			}
		}
		if e.sym != nil {
			e.sym.Canonicalize(t)
		}
		start := len(w.encs)
		w.encs = e.m.Encode(t, w.encs)
		w.encEnd = append(w.encEnd, uint32(len(w.encs)))
		w.fps = append(w.fps, e.fp(w.encs[start:]))
	}
	var touch uint64
	for _, fp := range w.fps {
		touch += e.set.shards[shardOf(fp)].probe(fp)
	}
	w.touch = touch
	start := uint32(0)
	for i, fp := range w.fps {
		enc := w.encs[start:w.encEnd[i]]
		start = w.encEnd[i]
		if !e.rec {
			// Safety only: whether the state is known is all that matters, and reading only
			// the fingerprint array saves a cache miss per duplicate.
			if e.set.shards[shardOf(fp)].has(fp) {
				continue
			}
			out.cands = append(out.cands, cand{fp: fp, parent: idx, pos: uint16(i),
				off: uint32(len(out.arena)), n: uint32(len(enc))})
			out.arena = append(out.arena, enc...)
			continue
		}
		target, known := e.set.lookup(fp)
		switch {
		case !known:
			target = pendBit | uint32(len(out.cands))
			out.cands = append(out.cands, cand{fp: fp, parent: idx, pos: uint16(i),
				off: uint32(len(out.arena)), n: uint32(len(enc))})
			out.arena = append(out.arena, enc...)
		case target&pendBit != 0:
			// A state dropped by a bound in an earlier segment: this step is cut too.
			target = noIndex
			out.cut = true
		case target == idx:
			continue // a self-loop is a stuttering step for fairness
		}
		a := w.acts[i]
		id, ok := e.codes.lookup(a)
		if !ok {
			out.missing = append(out.missing, missingCode{pos: uint32(len(out.ecodes)), code: a})
		}
		out.edges = append(out.edges, target)
		out.ecodes = append(out.ecodes, id)
	}
}

// limitHit reports which limit, if any, stops the search now.
func (w *worker[S]) limitHit() int32 {
	e := w.e
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
	nchunks := (hi - lo + chunkStates - 1) / chunkStates
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
			a := lo + c*chunkStates
			b := min(a+chunkStates, hi)
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
