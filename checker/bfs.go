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
	if e.opts.Time > 0 {
		e.deadline = e.start.Add(e.opts.Time)
	}
	var cur, next frontier

	// Initial states: a commit with parent noIndex and positions in Init order.
	e.inits = e.m.Init(nil)
	if len(e.inits) > 1<<16 {
		panic("checker: the model has more than 65536 initial states")
	}
	initOut := &chunkOut{lo: 0, hi: 1}
	var enc []byte
	for i := range e.inits {
		t := e.inits[i]
		if e.sym != nil {
			e.sym.Canonicalize(&t)
		}
		enc = e.m.Encode(&t, enc[:0])
		initOut.cands = append(initOut.cands, cand{fp: fingerprint(enc), parent: noIndex, pos: uint16(i),
			off: uint32(len(initOut.arena)), n: uint32(len(enc))})
		initOut.arena = append(initOut.arena, enc...)
	}
	e.generated = int64(len(e.inits))
	cur.reset(0)
	total := e.insert([]*chunkOut{initOut})
	dropped := e.commit([]*chunkOut{initOut}, total, &cur, false)

	reason := ""
	depth := 0
	expandedTo := 0 // states [0, expandedTo) have been expanded
	queueExtra := int64(0)
	var best violation
	if dropped > 0 {
		reason = "max states " + strconv.FormatInt(e.stateLimit(), 10) + " reached"
	}
	// A level at the depth bound is expanded like any other (its invariants, deadlocks and
	// steps are checked, and the liveness graph gets its edges to known states), but its new
	// successors are dropped: the states that had some are truncated, and the search is
	// incomplete only if there were any.
	for reason == "" && cur.n() > 0 {
		depth++
		atBound := e.opts.MaxDepth > 0 && depth >= e.opts.MaxDepth
		next.reset(cur.base + uint32(cur.n()))
		for lo := 0; lo < cur.n(); lo += segmentStates {
			hi := min(lo+segmentStates, cur.n())
			e.frontBytes = cur.bytes() + next.bytes()
			e.ownBytes.Store(e.memBytes())
			outs := e.expand(&cur, lo, hi)
			for _, o := range outs {
				e.generated += o.gen
				best.offer(o.viol)
			}
			if l := e.abort.Load(); l != limitNone {
				reason = e.limitReason(l)
				break
			}
			if best.found && !best.step {
				break
			}
			if e.rec && !e.edgeRoom(outs) {
				reason = "liveness graph of 2^32 edges reached"
				break
			}
			total := e.insert(outs)
			d := e.commit(outs, total, &next, atBound)
			if e.rec {
				e.candBases = append(e.candBases[:0], e.bases...)
				e.fillEdges(outs, d > 0)
			}
			expandedTo = int(cur.base) + hi
			if d > 0 {
				if atBound {
					queueExtra += int64(d)
				} else {
					reason = "max states " + strconv.FormatInt(e.stateLimit(), 10) + " reached"
					break
				}
			}
			if e.opts.MemoryBytes > 0 && e.memBytes() > e.opts.MemoryBytes {
				reason = "memory " + strconv.FormatInt(e.opts.MemoryBytes, 10) + " bytes reached"
				break
			}
			e.progress(int64(cur.n()-hi+next.n()), depth)
		}
		if best.found {
			break
		}
		if reason == "" && atBound && queueExtra > 0 {
			reason = "max depth " + strconv.Itoa(e.opts.MaxDepth) + " reached"
		}
		if reason != "" {
			break
		}
		cur, next = next, cur
	}
	queue := e.distinct - int64(expandedTo) + queueExtra
	st := e.stats(queue, depth)
	if best.found {
		return Result{Verdict: Violated, Property: e.violName(best), Stats: st, Trace: e.safetyTrace(best)}
	}
	if e.rec {
		e.flagUnexpanded(&cur, &next, expandedTo)
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
		res, status := e.checkLiveness(st)
		res.Stats.Elapsed = time.Since(e.start)
		if status == liveIncomplete && reason != "" {
			res.Reason += " (" + reason + ")"
		}
		if status != liveOK || reason == "" {
			return res
		}
	}
	if reason != "" {
		return Result{Verdict: Incomplete, Reason: reason, Stats: st}
	}
	return Result{Verdict: OK, Stats: st}
}

func (e *engine[S]) memBytes() int64 {
	b := e.set.bytes() + 6*int64(cap(e.parent)) + e.frontBytes
	b += 4*int64(cap(e.eoff)+cap(e.etgt)+cap(e.ecode)) + 4*int64(cap(e.candIdx))
	b += 4*int64(cap(e.cutState)+cap(e.cutCode)) + 2*int64(cap(e.cutBy))
	for _, f := range e.flags {
		b += int64(cap(f))
	}
	for _, o := range e.outs {
		b += int64(cap(o.arena)) + 32*int64(cap(o.cands)) + 4*int64(cap(o.edges)+cap(o.ecodes)+cap(o.ecnt))
		b += 12*int64(cap(o.cuts)) + 16*int64(cap(o.missingCut))
	}
	return b
}

func (e *engine[S]) stats(queue int64, depth int) Stats {
	return Stats{
		Generated:   e.generated,
		Distinct:    e.distinct,
		Queue:       queue,
		Depth:       depth,
		Collision:   collisionProbability(e.generated, e.distinct),
		Elapsed:     time.Since(e.start),
		MemoryBytes: e.memBytes(),
		Workers:     e.workers,
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
func (e *engine[S]) flagUnexpanded(cur, next *frontier, expandedTo int) {
	var s S
	eval := func(fr *frontier) {
		for k := 0; k < fr.n(); k++ {
			idx := int(fr.base) + k
			if idx < expandedTo || idx >= int(e.distinct) {
				continue
			}
			e.m.Decode(fr.state(k), &s)
			for j, pi := range e.live {
				p := &e.props[pi]
				var f byte
				if p.Kind == LeadsTo {
					if p.P(&s) {
						f |= 1
					}
					if p.Q(&s) {
						f |= 2
					}
				} else if p.State(&s) {
					f |= 2
				}
				e.flags[j][idx] = f
			}
		}
	}
	eval(cur)
	eval(next)
}
