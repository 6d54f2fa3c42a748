package checker

import (
	"strconv"
	"time"
)

// run is the search: level by level, each level in segments of frontier states, each segment
// in three phases (expand in parallel by chunks, insert in parallel by fingerprint shard,
// commit in order). Everything that decides the outcome happens in candidate order, so the
// result does not depend on the number of workers.
func (e *engine[S]) run() Result {
	e.start = time.Now()
	e.lastProg = e.start
	e.lastCkpt = e.start
	if e.opts.Time > 0 {
		e.deadline = e.start.Add(e.opts.Time)
	}
	var cur, next frontier
	e.phase(PhaseSearch, Stats{Workers: e.workers})
	e.inits = e.initStates()
	if len(e.inits) > 1<<16 {
		panic("checker: the model has more than 65536 initial states")
	}
	var p searchPos
	reason := ""
	resumed := e.opts.Resume != nil
	if resumed {
		if why := e.restore(e.opts.Resume, &cur, &next, &p); why != "" {
			return Result{Verdict: Incomplete, Reason: "resume: " + why, Stats: Stats{Workers: e.workers}}
		}
		p.expandedTo = int(cur.base)
	} else if e.initial(&cur) > 0 {
		reason = "max states " + strconv.FormatInt(e.stateLimit(), 10) + " reached"
	}
	// A level at the depth bound is expanded like any other (its invariants, deadlocks and
	// steps are checked, and the liveness graph gets its edges to known states), but its new
	// successors are dropped: the states that had some are truncated, and the search is
	// incomplete only if there were any. A resumed search goes on with the level it stopped
	// in: cur holds the level's states not yet expanded, next the next level so far.
	spillAt := e.spillLimit()
	if spillAt == 0 {
		spillAt = -1
	} else {
		cur.sp, next.sp = &spillFile{dir: e.opts.SpillDir, total: &e.spilled}, &spillFile{dir: e.opts.SpillDir, total: &e.spilled}
		defer func() { cur.close(); next.close() }()
	}
	for reason == "" && (resumed || cur.n() > 0) {
		if !resumed {
			p.depth++
			next.reset(cur.base + uint32(cur.n()))
		}
		resumed = false
		atBound := e.opts.MaxDepth > 0 && p.depth >= e.opts.MaxDepth
		for lo := 0; lo < cur.n(); lo += segmentStates {
			hi := min(lo+segmentStates, cur.n())
			if err := cur.load(lo, hi); err != nil {
				reason = "frontier spill: " + err.Error()
				break
			}
			e.frontBytes = cur.bytes() + next.bytes()
			if e.opts.MemoryBytes > 0 {
				e.ownBytes.Store(e.usedBytes())
			}
			if e.tallyIn != nil {
				// The model's own counts through the segments committed, so that a dropped
				// segment's can be left out.
				e.tallySum = addTallies(e.tallySum, e.tallyIn.take())
			}
			outs := e.expand(&cur, lo, hi)
			gen, best := int64(0), p.best
			for _, o := range outs {
				gen += o.gen
				best.offer(o.viol)
			}
			l := e.abort.Load()
			if l == limitNone && !(best.found && !best.step) && !e.fits(outs, &next) {
				l = limitMemory
			}
			if l != limitNone {
				// A limit stopped the expansion, or the memory budget has no room for the
				// segment's insertion: the segment is dropped, and the search is as it was at
				// its start, where a last checkpoint can be taken. (A violation found in the
				// part expanded is still reported.)
				reason = e.limitReason(l)
				for _, w := range e.ws {
					w.orbits = 0 // states of the dropped segment, expanded again on resume
					w.segReduced, w.segProviso = 0, 0
				}
				if e.tallyIn != nil {
					e.tallyIn.take() // the dropped segment's counts of the model's own
				}
				if !best.found {
					e.lastCheckpoint(&cur, lo, &next, &p)
				}
				e.generated += gen
				p.best = best
				break
			}
			e.generated += gen
			p.best = best
			if best.found && !best.step {
				break
			}
			for _, w := range e.ws {
				e.orbits += w.orbits // the segment is committed: its states count as expanded
				w.orbits = 0
				w.reduced, w.proviso = w.reduced+w.segReduced, w.proviso+w.segProviso
				w.segReduced, w.segProviso = 0, 0
			}
			total := e.insert(outs)
			d := e.commit(outs, total, &next, atBound)
			if e.rec {
				e.candBases = append(e.candBases[:0], e.bases...)
				if err := e.recordEdges(outs); err != nil {
					reason = err.Error()
					break
				}
			}
			cur.done(hi)
			if spillAt >= 0 {
				if err := next.spill(max(spillAt-cur.bytes(), 0)); err != nil {
					reason = "frontier spill: " + err.Error()
					break
				}
			}
			e.frontBytes = cur.bytes() + next.bytes()
			p.expandedTo = int(cur.base) + hi
			if d > 0 {
				if atBound {
					p.queueExtra += int64(d)
				} else {
					reason = "max states " + strconv.FormatInt(e.stateLimit(), 10) + " reached"
					break
				}
			}
			if e.opts.MemoryBytes > 0 && e.usedBytes() > e.opts.MemoryBytes {
				reason = "memory " + strconv.FormatInt(e.opts.MemoryBytes, 10) + " bytes reached"
				if !best.found {
					e.lastCheckpoint(&cur, hi, &next, &p)
				}
				break
			}
			if e.checkpointDue(p.depth, int64(p.expandedTo)) {
				e.checkpoint(&cur, hi, &next, &p)
			}
			e.progress(int64(cur.n()-hi+next.n()), p.depth)
		}
		if p.best.found {
			break
		}
		if reason == "" && atBound && p.queueExtra > 0 {
			reason = "max depth " + strconv.Itoa(e.opts.MaxDepth) + " reached"
		}
		if reason != "" {
			break
		}
		cur, next = next, cur
	}
	depth := p.depth
	queue := e.distinct - int64(p.expandedTo) + p.queueExtra
	st := e.stats(queue, depth)
	// reason, the limit that ended the search before its graph was complete, goes into
	// every result as Interrupted: the statistics are a partial search's, and a violation
	// found is one of the part explored.
	if p.best.found {
		return Result{Verdict: Violated, Property: e.violName(p.best), Interrupted: reason, Stats: st, Trace: e.safetyTrace(p.best)}
	}
	if e.rec {
		if err := e.flagUnexpanded(&cur, &next, p.expandedTo); err != nil {
			return Result{Verdict: Incomplete, Reason: "frontier spill: " + err.Error(), Interrupted: reason, Stats: st}
		}
		// The liveness phase reads no state of the frontiers (memory.go counts them out).
		cur.free()
		next.free()
		e.frontBytes = 0
	}
	if reason == "" {
		for j, pi := range e.some {
			if !e.someHit[j].Load() {
				return Result{Verdict: Violated, Property: e.props[pi].Name,
					Reason: "vacuous: no reachable state satisfies it", Stats: st}
			}
		}
	}
	if e.rec {
		// On a partial graph the liveness check looks for lassos among the states expanded,
		// which are real counterexamples; a stop request ends it (and, made during the
		// search, ends it at once).
		res, status := e.checkLiveness(st)
		res.Stats.Elapsed = time.Since(e.start)
		res.Interrupted = reason
		switch {
		case status == liveStopped && reason != "":
			res.Reason = reason // the search's own limit says it
		case status == liveStopped:
			res.Interrupted = e.limitReason(limitStop)
		case status == liveIncomplete && reason != "":
			res.Reason += " (" + reason + ")"
		}
		if status != liveOK || reason == "" {
			return res
		}
	}
	if reason != "" {
		return Result{Verdict: Incomplete, Reason: reason, Interrupted: reason, Stats: st}
	}
	return Result{Verdict: OK, Stats: st}
}

// searchPos is where a search stands between two segments, besides its tables.
type searchPos struct {
	depth      int       // the BFS level being expanded (initial states: 1)
	expandedTo int       // states [0, expandedTo) have been expanded
	queueExtra int64     // new states dropped at the depth bound
	best       violation // the smallest violation of the level so far (a step violation)
}

// initial commits the initial states into cur, with parent noIndex and positions in Init
// order, and returns the number dropped by the state limit.
func (e *engine[S]) initial(cur *frontier) int {
	initOut := &chunkOut{lo: 0, hi: 1}
	var enc []byte
	for i := range e.inits {
		t := e.inits[i]
		var orbit int
		enc, orbit = e.encodeInit(&t, enc[:0])
		initOut.cands = append(initOut.cands, cand{fp: e.fp(enc), parent: noIndex, pos: uint16(i),
			off: uint32(len(initOut.arena)), n: uint32(len(enc)), orbit: uint32(orbit)})
		initOut.arena = append(initOut.arena, enc...)
	}
	e.generated = int64(len(e.inits))
	cur.reset(0)
	total := e.insert([]*chunkOut{initOut})
	return e.commit([]*chunkOut{initOut}, total, cur, false)
}

// encodeInit appends the encoding of initial state t, the canonical one under symmetry (t is
// canonicalized in place), to enc, with its class size when the model gives it
// (CanonicalEncoder), else 0.
func (e *engine[S]) encodeInit(t *S, enc []byte) ([]byte, int) {
	if e.cenc != nil {
		return e.cenc.EncodeCanonical(t, enc)
	}
	if e.sym != nil {
		e.sym.Canonicalize(t)
	}
	return e.m.Encode(t, enc), 0
}

// checkpointDue reports whether to take a checkpoint after a segment of level depth, when
// the states below index expanded have been expanded.
func (e *engine[S]) checkpointDue(depth int, expanded int64) bool {
	if !e.canCheckpoint() {
		return false
	}
	if e.opts.CheckpointAt != nil && e.opts.CheckpointAt(depth, expanded) {
		return true
	}
	return e.opts.CheckpointEvery > 0 && time.Since(e.lastCkpt) >= e.opts.CheckpointEvery
}

// checkpoint hands a view of the search, with the states of cur before lo expanded, to
// Options.Checkpoint.
func (e *engine[S]) checkpoint(cur *frontier, lo int, next *frontier, p *searchPos) {
	s := e.snapshot(cur, lo, next, p)
	e.opts.Checkpoint(s)
	s.done = true
	e.lastCkpt = time.Now()
}

// lastCheckpoint is the checkpoint of a search that a limit (time, memory, Stop) ends
// before it is complete, so that it can be resumed with the limit raised.
func (e *engine[S]) lastCheckpoint(cur *frontier, lo int, next *frontier, p *searchPos) {
	if e.canCheckpoint() {
		e.checkpoint(cur, lo, next, p)
	}
}

func (e *engine[S]) memBytes() int64 {
	b := e.set.bytes() + e.links.bytes() + e.frontBytes
	b += e.es.bytes() + 4*int64(cap(e.candIdx))
	b += 4*int64(cap(e.cutState)+cap(e.cutCode)) + 2*int64(cap(e.cutBy))
	for _, f := range e.flags {
		b += int64(cap(f))
	}
	for _, d := range e.dedup {
		b += 12*int64(len(d.fps)) + 8*int64(cap(d.firsts))
	}
	for _, w := range e.ws {
		b += w.bytes()
	}
	for _, o := range e.outs {
		b += int64(cap(o.arena)) + 32*int64(cap(o.cands)) + 4*int64(cap(o.edges)+cap(o.ecodes)+cap(o.ecnt))
		b += int64(cap(o.rec)) + 4*int64(cap(o.recBlk)+cap(o.recPart))
		b += 12*int64(cap(o.cuts)) + 16*int64(cap(o.missingCut))
		for _, l := range o.byW {
			b += 4 * int64(cap(l))
		}
	}
	return b
}

func (e *engine[S]) stats(queue int64, depth int) Stats {
	return Stats{
		Generated:    e.generated,
		Distinct:     e.distinct,
		Queue:        queue,
		Depth:        depth,
		Collision:    collisionProbability(e.generated, e.distinct),
		Elapsed:      time.Since(e.start),
		MemoryBytes:  e.memBytes(),
		Spilled:      e.spilled,
		Workers:      e.workers,
		GraphBytes:   e.graphBytes(),
		GraphEdges:   e.es.nedges,
		GraphSpilled: e.es.spilledBytes(),
	}
}

func (e *engine[S]) limitReason(l int32) string {
	switch l {
	case limitTime:
		return "time " + e.opts.Time.String() + " reached"
	case limitMemory:
		return "memory " + strconv.FormatInt(e.opts.MemoryBytes, 10) + " bytes reached"
	default:
		return "stopped"
	}
}

func (e *engine[S]) violName(v violation) string {
	if v.prop < 0 {
		return "Deadlock"
	}
	return e.props[v.prop].Name
}

func (e *engine[S]) progress(queue int64, depth int) {
	if e.opts.Progress == nil {
		return
	}
	every := e.opts.ProgressEvery
	if every <= 0 {
		every = 5 * time.Second
	}
	if now := time.Now(); now.Sub(e.lastProg) >= every {
		e.lastProg = now
		e.opts.Progress(e.stats(queue, depth))
	}
}

// flagUnexpanded evaluates the liveness predicates on the states never expanded (those left
// on the queue when a limit stopped the search): cur from position expandedTo-cur.base on,
// and next.
func (e *engine[S]) flagUnexpanded(cur, next *frontier, expandedTo int) error {
	var s S
	eval := func(fr *frontier) error {
		lo := max(expandedTo-int(fr.base), 0)
		return fr.each(lo, func(k int, enc []byte) {
			idx := int(fr.base) + k
			if idx >= int(e.distinct) {
				return
			}
			e.m.Decode(enc, &s)
			for j := range e.live {
				e.flags[j][idx] = e.liveFlag(j, &s)
			}
		})
	}
	if err := eval(cur); err != nil {
		return err
	}
	return eval(next)
}
