package checker

import (
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"time"
)

// Level checkpoints of a partitioned search. A partitioned search writes the single-process
// engine's snapshot (Snapshot, format snapVersion; with 64-bit parent links when an index
// passes maxState) at a level boundary: the coordinator
// gathers the parts' shards of the seen set, their parent links and the next level's
// encodings, page by page, into a snapshot at the start of that level (Depth: the level to
// expand, Expanded: its first state, the whole level on the queue, no next level yet) and
// hands it to Options.Checkpoint. Such a snapshot holds nothing of the number of parts, so
// the single-process engine resumes it, and so does a partitioned search of any number of
// parts; a partitioned search also resumes a snapshot the single-process engine took between
// two segments of a level: the rest of the level is expanded as a level of its own, its
// successors numbered after the states of the next level found before the snapshot.
//
// Resuming, the coordinator takes the snapshot over as the engine does (the same checks of
// its shape, initial states and frontier), sends each part its shards' fingerprints, keeps
// the parent links of the snapshot's states to rebuild traces through them, and sends the
// frontier's states to the parts that expand them.
//
// The coordinator holds the whole snapshot while it writes it or sends it out: a checkpoint
// costs it the memory of the seen set, the links and the frontier (about 12 bytes per state
// and the frontier's encodings) for that time.

// Sub-kinds of opGather.
const (
	gatherSeen   byte = iota + 1 // shard, slot → next slot, fingerprints
	gatherLinks                  // a, b → parent (u64), position (u32) per state of [a, b)
	gatherStates                 // k → the k-th piece of the next level's states sent here
)

// gatherPage is the most fingerprints or links in one reply (2 to 3 MiB).
const gatherPage = 256 << 10

// seen loads fingerprints of shards this part owns into its seen set (a resumed search):
// u32 count, the fingerprints (u64 each), then, in a set with values (a search recording
// its liveness graph), their values (u32 each: the states' indices).
func (p *part[S]) seen(r *rd) error {
	n := int(r.u32())
	width := 8
	if p.e.set.vals {
		width = 12
	}
	if width*n != len(r.b) {
		return errors.New("partitioned search: a list of fingerprints of the wrong length")
	}
	vals := r.b[8*n:]
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := range n {
		fp := r.u64()
		if fp == 0 || p.owner(fp) != p.me {
			return errors.New("partitioned search: part " + strconv.Itoa(p.me) + " was sent a fingerprint of another part's shard")
		}
		v := uint32(0)
		if p.e.set.vals {
			v = binary.LittleEndian.Uint32(vals[4*k:])
		}
		p.e.set.shards[shardOf(fp)].insert(fp, v, p.e.set.vals)
	}
	return r.err
}

// gather answers the coordinator's gathering of a checkpoint.
func (p *part[S]) gather(r *rd) ([]byte, error) {
	var w wr
	switch r.u8() {
	case gatherSeen:
		shard, slot := int(r.u32()), r.u64()
		if r.err != nil {
			return nil, r.err
		}
		if shard >= fpShards || shard%p.w != p.me {
			return nil, errors.New("partitioned search: part " + strconv.Itoa(p.me) + " does not own shard " + strconv.Itoa(shard))
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		sh := &p.e.set.shards[shard]
		fps := sh.fps
		var page []uint64
		var vals []uint32
		i := slot
		for ; i < uint64(len(fps)) && len(page) < gatherPage; i++ {
			if fps[i] != 0 {
				page = append(page, fps[i])
				if p.e.set.vals {
					vals = append(vals, sh.vals[i])
				}
			}
		}
		if i >= uint64(len(fps)) {
			i = ^uint64(0)
		}
		w.u64(i)
		w.u32(uint32(len(page)))
		for _, fp := range page {
			w.u64(fp)
		}
		for _, v := range vals {
			w.u32(v)
		}
		return w.b, nil
	case gatherLinks:
		a, b := r.u64(), r.u64()
		if r.err != nil {
			return nil, r.err
		}
		if b < a || b-a > gatherPage {
			return nil, errors.New("partitioned search: a request for links of a bad range")
		}
		for _, l := range p.links {
			if a >= l.start && b <= l.start+uint64(len(l.parent)) {
				for k := a - l.start; k < b-l.start; k++ {
					w.u64(l.parent[k])
					w.u32(uint32(l.pos[k]))
				}
				return w.b, nil
			}
		}
		return nil, errors.New("partitioned search: part " + strconv.Itoa(p.me) + " did not commit states " + strconv.FormatUint(a, 10) + ".." + strconv.FormatUint(b, 10))
	case gatherStates:
		k := int(r.u32())
		if r.err != nil {
			return nil, r.err
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		slices.SortFunc(p.inbox, func(x, y xferPiece) int { return cmpU64(x.start, y.start) })
		if k >= len(p.inbox) {
			return nil, nil
		}
		w.u64(p.inbox[k].start)
		w.b = append(w.b, p.inbox[k].encs...)
		return w.b, nil
	}
	if r.err != nil {
		return nil, r.err
	}
	return nil, errors.New("partitioned search: an unknown request of a checkpoint")
}

func cmpU64(x, y uint64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// resumedState is what the coordinator keeps of a snapshot it resumed: the parent links of
// its states (the parts link only the states they commit), and the counts the parts add to.
type resumedState struct {
	// The snapshot's parent links: 32-bit in links, or 64-bit in par and pos (a wide
	// snapshot), parents counted from the search's state 0 (noParent: none).
	links   parentLinks
	par     []uint64
	pos     []uint16
	orbits  int64
	someHit []bool
	// cur: the rest of the level to expand first, from state curAt; next: the states of the
	// next level found before the snapshot, from state nextAt, which come before the
	// level's own new states.
	cur, next     frontier
	curAt, nextAt uint64
	qx            int64 // states truncated at the depth bound
	best          violation
	depth         int
	gen           int64
	distinct      uint64
	// What the snapshot counted of the steps taken (Snapshot.counted, taken, cov).
	counted byte
	taken   [4]uint64
	cov     []int64
	tallies []uint64
}

// nlinks is the number of the snapshot's states, whose links the coordinator keeps.
func (rs *resumedState) nlinks() uint64 {
	if rs.par != nil {
		return uint64(len(rs.par))
	}
	return uint64(rs.links.len())
}

// link is the parent link of the snapshot's state idx (< nlinks).
func (rs *resumedState) link(idx uint64) (uint64, uint16) {
	if rs.par != nil {
		return rs.par[idx], rs.pos[idx]
	}
	parent := uint64(rs.links.parent(uint32(idx)))
	if parent == uint64(noIndex) {
		parent = noParent
	}
	return parent, rs.links.position(uint32(idx))
}

// resume takes snapshot s over (checked as the engine checks it), sends the parts their
// fingerprints, and returns what the coordinator keeps. A wide snapshot keeps its 64-bit
// links, whatever its number of states.
func (c *coordinator[S]) resume(s *Snapshot) (*resumedState, string, error) {
	e := c.e
	rs := &resumedState{}
	var p searchPos
	e.wideOK = true
	first, wide, par, pos := s.first, s.wide, s.par64, s.ppos
	curAt, nextAt := uint64(s.curBase), uint64(s.nextBase)
	look := e.lookupFP
	e.lookupFP = nil // restore's lookups read the snapshot's set, here until sent to the parts
	why := e.restore(s, &rs.cur, &rs.next, &p)
	e.lookupFP = look
	if why != "" {
		return nil, why, nil
	}
	if wide {
		for i, pa := range par {
			if pa != noParent {
				par[i] = pa - first
			}
		}
		rs.par, rs.pos = par, pos
	} else {
		rs.links = e.links
	}
	if !e.rec {
		e.links = parentLinks{}
	} // else the liveness graph's: its next levels' links are appended (gatherLevel), and rs.links reads its first nlinks

	rs.curAt, rs.nextAt = curAt-first, nextAt-first
	rs.counted, rs.taken, rs.cov, rs.tallies = e.counting(), e.taken0, e.cov0, e.tally0
	rs.orbits, rs.qx, rs.best, rs.depth = e.orbits, p.queueExtra, p.best, p.depth
	rs.gen, rs.distinct = e.generated, uint64(e.distinct)
	for i := range e.someHit {
		rs.someHit = append(rs.someHit, e.someHit[i].Load())
	}
	// Each part gets its shards' fingerprints; the coordinator lets the set go.
	out := make([][]uint64, c.w)
	vals := make([][]uint32, c.w) // with the liveness graph: the states' indices
	send := func(o int) error {
		if len(out[o]) == 0 {
			return nil
		}
		w := wr{b: make([]byte, 0, 5+12*len(out[o]))}
		w.b = append(w.b, opSeen)
		w.u32(uint32(len(out[o])))
		for _, fp := range out[o] {
			w.u64(fp)
		}
		for _, v := range vals[o] {
			w.u32(v)
		}
		out[o], vals[o] = out[o][:0], vals[o][:0]
		_, err := c.t.Call(o, w.b)
		return err
	}
	for i := range e.set.shards {
		o := i % c.w
		sh := &e.set.shards[i]
		for j, fp := range sh.fps {
			if fp == 0 {
				continue
			}
			out[o] = append(out[o], fp)
			if e.set.vals {
				vals[o] = append(vals[o], sh.vals[j])
			}
			if len(out[o]) >= gatherPage {
				if err := send(o); err != nil {
					return nil, "", err
				}
			}
		}
		e.set.shards[i] = fpShard{}
	}
	for o := range out {
		if err := send(o); err != nil {
			return nil, "", err
		}
	}
	return rs, "", nil
}

// sendStates sends the states of f, indices [at, at+f.n()), to the parts whose ranges hold
// them.
func (c *coordinator[S]) sendStates(f *frontier, at uint64, ranges []prange) error {
	var w wr
	flush := func(to int) error {
		if len(w.b) <= 9 {
			return nil
		}
		_, err := c.t.Call(to, w.b)
		return err
	}
	to := -1
	var err error
	ferr := f.each(0, func(k int, enc []byte) {
		idx := at + uint64(k)
		if err != nil {
			return
		}
		o := to
		for o < 0 || idx >= ranges[o].b {
			o++
		}
		if o != to || len(w.b) >= xferBytes {
			if to >= 0 {
				if err = flush(to); err != nil {
					return
				}
			}
			to = o
			w = wr{b: []byte{opXfer}}
			w.u64(c.g0 + idx)
		}
		w.b = appendUvarint(w.b, uint64(len(enc)))
		w.b = append(w.b, enc...)
	})
	if err == nil && to >= 0 {
		err = flush(to)
	}
	if ferr != nil {
		return ferr
	}
	return err
}

// checkpointLevel hands Options.Checkpoint the snapshot of the search at the start of level
// depth, whose states are [base, distinct) and sit in the parts' inboxes.
func (c *coordinator[S]) checkpointLevel(depth int, base, distinct uint64, generated int64, rs *resumedState) error {
	e := c.e
	// The snapshot's parent links are 64-bit when an index passes maxState (and always in
	// the tests that move the first state's global index, c.g0, beyond 32 bits). A search
	// that records its liveness graph numbers at most maxState states (gather), and writes
	// the one process's snapshot, numbered from 0, with the graph the coordinator gathered.
	first := c.g0
	if e.rec {
		first = 0
	}
	wide := first+distinct > maxState
	s := &Snapshot{Depth: depth, Generated: generated, Distinct: int64(distinct), Expanded: int64(base),
		Queue: int64(distinct - base), Elapsed: time.Since(e.start), shape: e.shape(), view: true,
		set: &fpSet{vals: e.rec}, links: &parentLinks{}, cur: &frontier{}, next: &frontier{},
		first: first, wide: wide, curBase: first + base, nextBase: first + distinct, rec: e.rec}
	if e.rec {
		if wide {
			return errors.New("a checkpoint of a liveness graph of " + strconv.FormatUint(distinct, 10) + " states (32-bit indices)")
		}
		s.eoff, s.etgt, s.ecode = e.es.arrays()
		s.codes = e.codes.codes
		s.flags, s.partial = e.flags, e.partial
		s.cutState, s.cutCode, s.cutBy = e.cutState, e.cutCode, e.cutBy
	}
	// The seen set, shard by shard from its owner.
	for i := range s.set.shards {
		var fps []uint64
		var vals []uint32
		for slot := uint64(0); slot != ^uint64(0); {
			w := wr{b: []byte{opGather, gatherSeen}}
			w.u32(uint32(i))
			w.u64(slot)
			b, err := c.t.Call(i%c.w, w.b)
			if err != nil {
				return err
			}
			r := &rd{b: b}
			slot = r.u64()
			n := int(r.u32())
			width := 8
			if e.rec {
				width = 12
			}
			if width*n != len(r.b) {
				return errors.New("a page of fingerprints of the wrong length")
			}
			for range n {
				fps = append(fps, r.u64())
			}
			for k := 0; e.rec && k < n; k++ {
				v := r.u32()
				if v&pendBit == 0 && uint64(v) >= distinct {
					return errors.New("part " + strconv.Itoa(i%c.w) + " sent shard " + strconv.Itoa(i) + " with state " + strconv.FormatUint(uint64(v), 10) + " of " + strconv.FormatUint(distinct, 10))
				}
				vals = append(vals, v)
			}
		}
		if !slices.IsSorted(fps) {
			return errors.New("part " + strconv.Itoa(i%c.w) + " sent shard " + strconv.Itoa(i) + " out of order")
		}
		s.set.shards[i].load(fps, vals) // vals: nil unless the set keeps indices (e.rec)
	}
	// The parent links: the resumed snapshot's, then each level's, part by part; parent
	// counted from state 0, noParent for none.
	l := s.links
	add := func(parent uint64, pos uint16) {
		switch {
		case wide && parent == noParent:
			s.par64, s.ppos = append(s.par64, noParent), append(s.ppos, pos)
		case wide:
			s.par64, s.ppos = append(s.par64, c.g0+parent), append(s.ppos, pos)
		case parent == noParent:
			l.add(noIndex, pos)
		default:
			l.add(uint32(parent), pos)
		}
	}
	if wide {
		s.par64, s.ppos = make([]uint64, 0, distinct), make([]uint16, 0, distinct)
	} else {
		l.reserve(int(distinct))
	}
	if rs != nil {
		for i := range rs.nlinks() {
			add(rs.link(i))
		}
	}
	for _, lv := range c.who {
		for i, rg := range lv {
			for a := rg.a; a < rg.b; {
				b := min(rg.b, a+gatherPage)
				w := wr{b: []byte{opGather, gatherLinks}}
				w.u64(c.g0 + a)
				w.u64(c.g0 + b)
				rep, err := c.t.Call(i, w.b)
				if err != nil {
					return err
				}
				if uint64(len(rep)) != 12*(b-a) {
					return errors.New("part " + strconv.Itoa(i) + " sent a page of links of the wrong length")
				}
				r := &rd{b: rep}
				for range b - a {
					pa, pos := r.u64(), r.u32()
					switch {
					case pa == noParent:
						add(noParent, uint16(pos))
					case pa < c.g0 || pa-c.g0 >= distinct:
						return errors.New("part " + strconv.Itoa(i) + " sent a link to state " + strconv.FormatUint(pa, 10) + ", not one of the search's")
					default:
						add(pa-c.g0, uint16(pos))
					}
				}
				a = b
			}
		}
	}
	if got := uint64(l.len()) + uint64(len(s.par64)); got != distinct {
		return errors.New("gathered " + strconv.FormatUint(got, 10) + " parent links for " + strconv.FormatUint(distinct, 10) + " states")
	}
	// The level's states, from the parts' inboxes in order.
	s.cur.reset(0)
	if !wide {
		s.cur.base = uint32(base)
	}
	at := base
	for i := range c.w {
		for k := 0; ; k++ {
			w := wr{b: []byte{opGather, gatherStates}}
			w.u32(uint32(k))
			rep, err := c.t.Call(i, w.b)
			if err != nil {
				return err
			}
			if len(rep) == 0 {
				break
			}
			r := &rd{b: rep}
			start := r.u64() - c.g0
			if start != at {
				return errors.New("part " + strconv.Itoa(i) + " holds states from " + strconv.FormatUint(start, 10) + ", want " + strconv.FormatUint(at, 10))
			}
			n, err := eachUvarint(r.b, func(enc []byte) { s.cur.add(enc) })
			if err != nil {
				return err
			}
			at += n
		}
	}
	if at != distinct {
		return errors.New("gathered the level's states up to " + strconv.FormatUint(at, 10) + ", not " + strconv.FormatUint(distinct, 10))
	}
	s.next.reset(0)
	if !wide {
		s.next.base = uint32(distinct)
	}
	// The class sizes so far and the Sometimes properties witnessed.
	reps, err := c.all(func(int) []byte { return []byte{opFinish} })
	if err != nil {
		return err
	}
	hit, orbits, err := c.finishes(reps)
	if err != nil {
		return err
	}
	if rs != nil {
		orbits += rs.orbits
		for j, h := range rs.someHit {
			hit[j] = hit[j] || h
		}
	}
	s.orbits, s.someHit = orbits, hit
	if e.sym == nil {
		s.orbits = 0
	}
	s.counted, s.taken, s.cov, s.tallies = c.counts(rs)
	e.opts.Checkpoint(s)
	s.done = true
	c.ckptLevel = depth
	e.lastCkpt = time.Now()
	return nil
}

// counts is what the search has counted of the steps taken so far, the resumed snapshot's
// included (see Snapshot.counted): the parts' counts through the levels expanded.
func (c *coordinator[S]) counts(rs *resumedState) (byte, [4]uint64, []int64, []uint64) {
	e := c.e
	counted := e.counting()
	if rs != nil {
		counted &= rs.counted
	}
	var tallies []uint64
	if counted&countTally != 0 {
		tallies = addTallies(nil, c.tally)
		if rs != nil {
			tallies = addTallies(tallies, rs.tallies)
		}
	}
	var taken [4]uint64
	var cov []int64
	if counted&countCoverage != 0 {
		cov = make([]int64, 2*len(e.m.ActionKinds()))
		copy(cov, c.cov)
		if rs != nil {
			for k := range min(len(cov), len(rs.cov)) {
				cov[k] += rs.cov[k]
			}
		}
	}
	if counted&countTaken != 0 {
		taken = c.taken
		if rs != nil {
			for j := range taken {
				taken[j] |= rs.taken[j]
			}
		}
		for k := 0; 2*k+1 < len(cov) && k < 256; k++ {
			if cov[2*k+1] > 0 {
				taken[k>>6] |= 1 << (k & 63)
			}
		}
	}
	return counted, taken, cov, tallies
}

// finishes adds up the parts' replies to opFinish: the Sometimes properties witnessed and the
// class sizes counted.
func (c *coordinator[S]) finishes(reps [][]byte) ([]bool, int64, error) {
	hit := make([]bool, len(c.e.some))
	var orbits int64
	for _, b := range reps {
		r := &rd{b: b}
		n := int(r.u32())
		for j := range n {
			if r.u8() == 1 && j < len(hit) {
				hit[j] = true
			}
		}
		orbits += int64(r.u64())
		if r.err != nil {
			return nil, 0, r.err
		}
	}
	return hit, orbits, nil
}

// eachUvarint calls fn with each encoding of b (each a uvarint length and its bytes) and
// returns their number.
func eachUvarint(b []byte, fn func(enc []byte)) (uint64, error) {
	var n uint64
	for len(b) > 0 {
		k, m := binary.Uvarint(b)
		if m <= 0 || uint64(len(b)-m) < k {
			return n, errors.New("partitioned search: a malformed transfer of states")
		}
		fn(b[m : m+int(k)])
		b = b[m+int(k):]
		n++
	}
	return n, nil
}
