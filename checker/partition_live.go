package checker

import (
	"encoding/binary"
	"errors"
	"runtime"
	"slices"
	"strconv"
)

// A liveness property across parts: the state graph is gathered to the coordinator, level by
// level, into the single-process engine's own recording (edges.go), and the coordinator then
// runs the liveness phase unchanged, so the verdict and lasso are the single machine's.
//
// Each part expands its range with the engine's recording on: its frontier numbers states by
// their global index (from the search's first state, 32-bit: the liveness graph's indices),
// its seen set keeps each state's index, and every successor gets an edge, to a state of the
// part's shards it knows, or to a candidate it claims from the owner. After the level:
//
//  1. opNext: each claimant numbers its winners and tells each owner the indices of the
//     winners of its shards (uvarint differences, in key order: the owner's own order of
//     them), which the owner writes into its seen set.
//  2. opAnswer: each owner answers every claim of the level, winners or not, with its
//     state's index (0 for a state dropped at the depth bound): per claimant, one uvarint
//     per distinct fingerprint claimed, in fingerprint order, which the claimant knows too.
//  3. opRecord: the coordinator reads, part after part (pages of recordPage bytes), each
//     part's records of its range: the liveness flags, the edges in successor order (self-
//     loops left out, as in one process) with the part's own code ids, the fair steps cut by
//     a bound, the new action codes, and the parent links of its winners. It maps the
//     codes to its own ids in the order the single machine gives them (per chunk of the
//     single machine's expansion: edges first, then cut steps) and appends the records to
//     its stream, spilling it as one process does.
//
// The coordinator holds the whole graph, as one process would, against its own --memory
// budget; where that is exceeded the search stops, saying so and naming what to do instead.
//
// At a state limit (--max-states) the coordinator gathers the last level's records through
// the segment where one process stops (opAnswer says where), with the flags of the level's
// states after it, and numbers the winners one process commits (the first in key order),
// whose flags the claimants send, as one process evaluates the states it did not expand.
// A level checkpoint holds the gathered graph, and the seen set with each state's index, as
// one process's does; resumed, the coordinator takes the graph over and sends each owner its
// states' indices (opSeen).

// recordPage is the most bytes of a part's records in one reply.
const recordPage = 1 << 20

// partLive is a part's share of the liveness graph.
type partLive struct {
	g0 uint64 // the global index of the search's first state (level 0's base; opExpand)
	lb uint64 // the part's range's first state, from g0: its frontier's index 0

	// The level's edges of the states expanded, in state order: ecnt[k] is where the edges
	// of the range's k-th state end; a target is a state's index (from g0), noIndex (a
	// state dropped), or pendBit|j for a claimed state, fingerprint fps[j].
	ecnt []uint32
	tgt  []uint32
	code []uint32 // the part's own code ids (e.codes)
	fps  []uint64
	cuts []cutRec

	asked   []uint64   // owner: the level's claims received (fingerprint, key)
	wonBy   []ownWin   // owner: the level's winners
	ownWins [][]uint64 // owner: per claimant, its winners' fingerprints in key order
	mine    [][]uint64 // claimant: per owner, the fingerprints claimed, in order
	ans     keyTable   // claimant: fingerprint → index+1 (0: dropped)
	off     uint64     // claimant: the global index of its first winner numbered
	kept    uint64     // claimant: its winners numbered
	sent    int        // codes of e.codes sent to the coordinator
	upTo    uint64     // the global index where the level's expansion ends (opAnswer)
	final   bool       // the search ends with the level: its kept winners' flags are sent
	out     []byte     // the level's records, built at the first page asked
	built   bool
	scratch []uint32
}

type ownWin struct{ key, fp uint64 }

// liveLevel prepares the part's recording for the level whose ranges it was sent.
func (p *part[S]) liveLevel() error {
	lv := &p.lv
	my := p.ranges[p.me]
	if my.b-lv.g0 > maxState {
		return errors.New("partitioned search: the liveness graph numbers at most " + strconv.Itoa(maxState) + " states (32-bit indices)")
	}
	lv.lb = my.a - lv.g0
	n := int(my.b - lv.g0)
	for j := range p.e.flags {
		if len(p.e.flags[j]) < n {
			p.e.flags[j] = append(p.e.flags[j], make([]byte, n-len(p.e.flags[j]))...)
		}
	}
	lv.ecnt, lv.tgt, lv.code, lv.fps, lv.cuts = lv.ecnt[:0], lv.tgt[:0], lv.code[:0], lv.fps[:0], lv.cuts[:0]
	lv.ans.reset()
	lv.mine = nil
	lv.kept, lv.off = 0, 0
	lv.out, lv.built = lv.out[:0], false
	lv.upTo, lv.final = my.b, false
	return nil
}

// takeEdges keeps the edges of chunk o, its candidates' fingerprints standing for targets
// the owners will answer, and gives its new action codes the part's ids.
func (p *part[S]) takeEdges(o *chunkOut) {
	e, lv := p.e, &p.lv
	for _, mc := range o.missing {
		o.ecodes[mc.pos] = e.codes.id(mc.code)
	}
	for _, mc := range o.missingCut {
		o.cuts[mc.pos].code = e.codes.id(mc.code)
	}
	start := uint32(0)
	for _, end := range o.ecnt {
		for j := start; j < end; j++ {
			t := o.edges[j]
			if t != noIndex && t&pendBit != 0 {
				lv.fps = append(lv.fps, o.cands[t&^pendBit].fp)
				t = pendBit | uint32(len(lv.fps)-1)
			}
			lv.tgt = append(lv.tgt, t)
			lv.code = append(lv.code, o.ecodes[j])
		}
		lv.ecnt = append(lv.ecnt, uint32(len(lv.tgt)))
		start = end
	}
	lv.cuts = append(lv.cuts, o.cuts...)
}

// groupWins sorts the level's winners by key and splits them by claimant (p.mu held).
func (p *part[S]) groupWins() {
	lv := &p.lv
	slices.SortFunc(lv.wonBy, func(x, y ownWin) int {
		switch {
		case x.key < y.key:
			return -1
		case x.key > y.key:
			return 1
		}
		return 0
	})
	lv.ownWins = make([][]uint64, p.w)
	for _, x := range lv.wonBy {
		c := p.claimant(x.key)
		lv.ownWins[c] = append(lv.ownWins[c], x.fp)
	}
	lv.wonBy = lv.wonBy[:0]
}

// sendIdx tells each owner the indices of this part's first keep winners of its shards,
// numbered from off.
func (p *part[S]) sendIdx(off, keep uint64) error {
	lv := &p.lv
	lv.off, lv.kept = off, keep
	by := make([][]uint64, p.w)
	for k, c := range p.won[:keep] {
		o := p.owner(c.fp)
		by[o] = append(by[o], off+uint64(k)-lv.g0)
	}
	for o, idx := range by {
		if len(idx) == 0 {
			continue
		}
		w := wr{b: []byte{opIdx}}
		w.u32(uint32(p.me))
		w.u32(uint32(len(idx)))
		prev := uint64(0)
		for _, x := range idx {
			w.b = appendUvarint(w.b, x-prev)
			prev = x
		}
		if err := p.deliver(o, w.b, p.takeIdx); err != nil {
			return err
		}
	}
	return nil
}

// deliver sends message msg (its first byte the operation) to part to, or, to this part
// itself, hands its body to take.
func (p *part[S]) deliver(to int, msg []byte, take func(*rd) error) error {
	if to == p.me {
		return take(&rd{b: msg[1:]})
	}
	_, err := p.t.Call(to, msg)
	return err
}

// takeIdx writes a claimant's winners' indices into this owner's seen set.
func (p *part[S]) takeIdx(r *rd) error {
	c, n := int(r.u32()), int(r.u32())
	if r.err != nil {
		return r.err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if c < 0 || c >= len(p.lv.ownWins) || n > len(p.lv.ownWins[c]) {
		return errors.New("partitioned search: part " + strconv.Itoa(p.me) + " was sent indices of winners it did not resolve")
	}
	fps := p.lv.ownWins[c]
	x := uint64(0)
	pos := 0
	for k := range n {
		if pos >= len(r.b) {
			return errors.New("partitioned search: a list of indices is shorter than its count")
		}
		var d uint64
		d, pos = uvarintAt(r.b, pos)
		x += d
		if x >= maxState {
			return errors.New("partitioned search: a winner's index beyond the liveness graph's")
		}
		p.e.set.shards[shardOf(fps[k])].set(fps[k], uint32(x))
	}
	return nil
}

// uvarintAt is uvarint on bytes that came over the wire: a truncated one reads as what it has.
func uvarintAt(b []byte, p int) (uint64, int) {
	var x uint64
	var s uint
	for p < len(b) {
		c := b[p]
		p++
		if c < 0x80 {
			return x | uint64(c)<<s, p
		}
		x |= uint64(c&0x7f) << s
		s += 7
	}
	return x, p
}

// answer sends each claimant of the level the index of every state it claimed here. The
// message says where the level's expansion ends (u64 global index: one process stops after
// the segment where the state limit is reached) and whether the search ends with the level
// (a byte).
func (p *part[S]) answer(r *rd) error {
	upTo := r.u64()
	final := r.u8() != 0
	if r.err != nil {
		return r.err
	}
	p.mu.Lock()
	asked := p.lv.asked
	p.lv.asked = nil
	p.lv.upTo, p.lv.final = upTo, final
	p.mu.Unlock()
	by := make([][]uint64, p.w)
	for i := 0; i+1 < len(asked); i += 2 {
		c := p.claimant(asked[i+1])
		by[c] = append(by[c], asked[i])
	}
	for c, fps := range by {
		slices.Sort(fps)
		fps = slices.Compact(fps)
		for start := 0; start < len(fps); start += claimBatch {
			page := fps[start:min(start+claimBatch, len(fps))]
			w := wr{b: make([]byte, 0, 13+3*len(page))}
			w.b = append(w.b, opAns)
			w.u32(uint32(p.me))
			w.u32(uint32(start))
			w.u32(uint32(len(page)))
			for _, fp := range page {
				v, ok := p.e.set.lookup(fp)
				if !ok {
					return errors.New("partitioned search: part " + strconv.Itoa(p.me) + " was claimed a state it does not hold")
				}
				x := uint64(0)
				if v&pendBit == 0 {
					x = uint64(v) + 1
				}
				w.b = appendUvarint(w.b, x)
			}
			if err := p.deliver(c, w.b, p.takeAns); err != nil {
				return err
			}
		}
	}
	return nil
}

// takeAns keeps an owner's answers to this part's claims.
func (p *part[S]) takeAns(r *rd) error {
	o, start, n := int(r.u32()), int(r.u32()), int(r.u32())
	if r.err != nil {
		return r.err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	lv := &p.lv
	if lv.mine == nil {
		lv.mine = make([][]uint64, p.w)
		for _, c := range p.cands {
			lv.mine[p.owner(c.fp)] = append(lv.mine[p.owner(c.fp)], c.fp)
		}
		for _, m := range lv.mine {
			slices.Sort(m)
		}
	}
	if o < 0 || o >= p.w || start+n > len(lv.mine[o]) {
		return errors.New("partitioned search: part " + strconv.Itoa(o) + " answered claims part " + strconv.Itoa(p.me) + " did not make")
	}
	pos := 0
	for k := range n {
		if pos >= len(r.b) {
			return errors.New("partitioned search: a list of answers is shorter than its count")
		}
		var x uint64
		x, pos = uvarintAt(r.b, pos)
		lv.ans.offer(lv.mine[o][start+k], x)
	}
	return nil
}

// recordPage answers a page of the part's records of the level, built at the first request:
// the total length, then the bytes from the offset asked.
func (p *part[S]) recordPage(r *rd) ([]byte, error) {
	off := r.u64()
	if r.err != nil {
		return nil, r.err
	}
	lv := &p.lv
	if !p.e.rec || len(p.ranges) != p.w {
		return nil, errors.New("partitioned search: part " + strconv.Itoa(p.me) + " was asked for records of a liveness graph it does not record, or before a level")
	}
	if !lv.built {
		if err := p.buildRecords(); err != nil {
			return nil, err
		}
		lv.built = true
	}
	if off > uint64(len(lv.out)) {
		return nil, errors.New("partitioned search: a page beyond the records")
	}
	var w wr
	w.u64(uint64(len(lv.out)))
	w.b = append(w.b, lv.out[off:min(off+recordPage, uint64(len(lv.out)))]...)
	return w.b, nil
}

// buildRecords encodes the level's records: the new codes (u32 count, u64 each), the number
// of states (u64) and of those expanded (u64: those before the global index upTo, a prefix
// of the range), per state its flags (a byte per liveness property) and, if expanded, its
// edges (uvarint count, then per edge uvarint zigzag code difference and uvarint target: 0
// for a dropped state, else zigzag(target - previous target)+1, from the state itself), the
// cut steps of the states expanded (u32 count; per step uvarint state offset in the range,
// code, bound), then the parent links of the winners numbered (u64 count; per winner uvarint
// difference of parent+1, 0 for an initial state, and uvarint position; at the final level,
// then its flags).
func (p *part[S]) buildRecords() error {
	e, lv := p.e, &p.lv
	my := p.ranges[p.me]
	n := int(my.b - my.a)
	if p.level == 0 {
		n = 0
	}
	if len(lv.ecnt) != n {
		return errors.New("partitioned search: part " + strconv.Itoa(p.me) + " recorded " + strconv.Itoa(len(lv.ecnt)) + " states of " + strconv.Itoa(n))
	}
	ne := n // the states expanded by one process
	if lv.upTo < my.b {
		ne = min(int(max(lv.upTo, my.a)-my.a), n)
	}
	w := wr{b: lv.out[:0]}
	codes := e.codes.codes[lv.sent:]
	w.u32(uint32(len(codes)))
	for _, c := range codes {
		w.u64(c)
	}
	lv.sent = len(e.codes.codes)
	w.u64(uint64(n))
	w.u64(uint64(ne))
	start := uint32(0)
	for k := range n {
		v := uint32(lv.lb) + uint32(k)
		for j := range e.flags {
			w.b = append(w.b, e.flags[j][v])
		}
		if k >= ne {
			continue
		}
		end := lv.ecnt[k]
		tg := lv.scratch[:0]
		for i := start; i < end; i++ {
			t := lv.tgt[i]
			if t != noIndex && t&pendBit != 0 {
				x, ok := lv.ans.get(lv.fps[t&^pendBit])
				if !ok {
					return errors.New("partitioned search: part " + strconv.Itoa(p.me) + " has no answer for a claim")
				}
				t = noIndex
				if x > 0 {
					t = uint32(x - 1)
				}
			}
			if t == v {
				tg = append(tg, pendBit) // a self-loop: left out
				continue
			}
			tg = append(tg, t)
		}
		lv.scratch = tg
		m := 0
		for _, t := range tg {
			if t != pendBit {
				m++
			}
		}
		w.b = appendUvarint(w.b, uint64(m))
		pt, pc := int64(v), int64(0)
		for i, t := range tg {
			if t == pendBit {
				continue
			}
			c := int64(lv.code[int(start)+i])
			w.b = appendUvarint(w.b, zigzag(c-pc))
			pc = c
			if t == noIndex {
				w.b = append(w.b, 0)
				continue
			}
			w.b = appendUvarint(w.b, zigzag(int64(t)-pt)+1)
			pt = int64(t)
		}
		start = end
	}
	cuts := lv.cuts
	for len(cuts) > 0 && uint64(cuts[len(cuts)-1].state)-lv.lb >= uint64(ne) {
		cuts = cuts[:len(cuts)-1]
	}
	w.u32(uint32(len(cuts)))
	for _, c := range cuts {
		w.b = appendUvarint(w.b, uint64(c.state)-lv.lb)
		w.b = appendUvarint(w.b, uint64(c.code))
		w.b = appendUvarint(w.b, uint64(c.by))
	}
	w.u64(lv.kept)
	prev := uint64(0)
	var s S
	for _, c := range p.won[:lv.kept] {
		pg := uint64(0)
		if c.key >= 1<<16 {
			pg = c.key>>16 - lv.g0 // parent+1, from g0
		}
		w.b = appendUvarint(w.b, pg-prev)
		w.b = appendUvarint(w.b, uint64(uint16(c.key)))
		prev = pg
		if lv.final {
			// Not expanded: one process evaluates its flags after the search (flagUnexpanded).
			e.m.Decode(p.arena[c.off:c.off+c.n], &s)
			for j := range e.live {
				w.b = append(w.b, e.liveFlag(j, &s))
			}
		}
	}
	lv.out = w.b
	return nil
}

// get returns the key kept for fp.
func (t *keyTable) get(fp uint64) (uint64, bool) {
	if t.n == 0 {
		return 0, false
	}
	for i := fp & t.mask; ; i = (i + 1) & t.mask {
		switch t.fps[i] {
		case fp:
			return t.keys[i], true
		case 0:
			return 0, false
		}
	}
}

// liveCoord is the coordinator's side of the gathering.
type liveCoord struct {
	codes [][]uint64 // per part: the action code of each of its code ids
	// The level's states, in order: their edges end at ecnt[k] in tgt (noIndex: a state
	// dropped) and raw (action codes); cuts in state order.
	ecnt  []uint32
	tgt   []uint32
	raw   []uint64
	ids   []uint32
	cuts  []cutRec // code: index into cutRaw
	craw  []uint64
	bytes int64 // received
	err   error // of a lookup for the lasso's replay
}

// gatherLevel gathers the records of level's states [base, base+size) (counted from 0), of
// which the first upTo were expanded (one process stops after the segment where the state
// limit is reached), and the parent links of its new states into the coordinator's liveness
// graph; at the final level, the new states' flags too (they are not expanded).
func (c *coordinator[S]) gatherLevel(level int, base, size, upTo uint64, final bool, ranges []prange) error {
	e := c.e
	lc := &c.live
	if len(lc.codes) != c.w {
		lc.codes = make([][]uint64, c.w)
	}
	if _, err := c.all(func(int) []byte {
		w := wr{b: []byte{opAnswer}}
		w.u64(c.g0 + base + upTo)
		w.flag(final)
		return w.b
	}); err != nil {
		return err
	}
	if uint64(e.es.n) != base && level > 0 {
		return errors.New("the liveness graph has " + strconv.Itoa(e.es.n) + " states recorded, not " + strconv.FormatUint(base, 10))
	}
	lc.ecnt, lc.tgt, lc.raw, lc.cuts, lc.craw = lc.ecnt[:0], lc.tgt[:0], lc.raw[:0], lc.cuts[:0], lc.craw[:0]
	nlive := len(e.flags)
	for i := range c.w {
		var blob []byte
		for {
			w := wr{b: []byte{opRecord}}
			w.u64(uint64(len(blob)))
			b, err := c.t.Call(i, w.b)
			if err != nil {
				return err
			}
			r := &rd{b: b}
			total := r.u64()
			if r.err != nil || len(r.b) == 0 && uint64(len(blob)) < total {
				return errors.New("a part's records are cut short")
			}
			blob = append(blob, r.b...)
			if uint64(len(blob)) >= total {
				break
			}
		}
		lc.bytes += int64(len(blob))
		r := &rd{b: blob}
		nc := int(r.u32())
		bad := errors.New("part " + strconv.Itoa(i) + " sent malformed records")
		if nc > len(r.b)/8 {
			return bad
		}
		for range nc {
			lc.codes[i] = append(lc.codes[i], r.u64())
		}
		n, ne := r.u64(), r.u64()
		if r.err != nil {
			return r.err
		}
		rg := ranges[i]
		if level > 0 && n != rg.b-rg.a {
			return errors.New("part " + strconv.Itoa(i) + " sent records of " + strconv.FormatUint(n, 10) + " states, not of its range's " + strconv.FormatUint(rg.b-rg.a, 10))
		}
		if want := min(max(base+upTo, rg.a), rg.b) - rg.a; level > 0 && ne != want {
			return errors.New("part " + strconv.Itoa(i) + " sent the edges of " + strconv.FormatUint(ne, 10) + " states, not of the " + strconv.FormatUint(want, 10) + " expanded")
		}
		b := r.b
		p := 0
		code := func(id uint64) (uint64, bool) {
			if id >= uint64(len(lc.codes[i])) {
				return 0, false
			}
			return lc.codes[i][id], true
		}
		for k := range n {
			v := rg.a + k
			if p+nlive > len(b) {
				return bad
			}
			for j := range nlive {
				e.flags[j][v] = b[p+j]
			}
			p += nlive
			if k >= ne {
				continue
			}
			var m uint64
			m, p = uvarintAt(b, p)
			if m > uint64(len(b)-p)/2 {
				return bad
			}
			pt, pc := int64(v), int64(0)
			for range m {
				var u, t uint64
				u, p = uvarintAt(b, p)
				t, p = uvarintAt(b, p)
				if p > len(b) {
					return bad
				}
				pc += unzigzag(u)
				raw, ok := code(uint64(pc))
				if !ok {
					return bad
				}
				tgt := noIndex
				if t > 0 {
					pt += unzigzag(t - 1)
					tgt = uint32(pt)
				}
				lc.tgt = append(lc.tgt, tgt)
				lc.raw = append(lc.raw, raw)
			}
			lc.ecnt = append(lc.ecnt, uint32(len(lc.tgt)))
		}
		r.b = b[p:]
		ncut := int(r.u32())
		if r.err != nil {
			return r.err
		}
		if ncut > len(r.b)/3 {
			return bad
		}
		b, p = r.b, 0
		for range ncut {
			var st, cd, by uint64
			st, p = uvarintAt(b, p)
			cd, p = uvarintAt(b, p)
			by, p = uvarintAt(b, p)
			raw, ok := code(cd)
			if !ok || p > len(b) || st >= ne {
				return bad
			}
			lc.cuts = append(lc.cuts, cutRec{state: uint32(rg.a + st), code: uint32(len(lc.craw)), by: uint16(by)})
			lc.craw = append(lc.craw, raw)
		}
		r.b = b[p:]
		kept := r.u64()
		if r.err != nil {
			return r.err
		}
		if kept > uint64(len(r.b))/2 {
			return bad
		}
		fl := 0 // flag bytes after each link
		if final {
			fl = nlive
		}
		b, p = r.b, 0
		pg := uint64(0)
		e.links.reserve(int(kept))
		for range kept {
			var d, pos uint64
			d, p = uvarintAt(b, p)
			pos, p = uvarintAt(b, p)
			if p > len(b) {
				return bad
			}
			pg += d
			parent := noIndex
			if pg > 0 {
				parent = uint32(pg - 1)
			}
			e.links.add(parent, uint16(pos))
			if p+fl > len(b) {
				return bad
			}
			for j := range e.flags {
				f := byte(0) // set when the state is expanded, at the next level
				if final {
					f = b[p+j]
				}
				e.flags[j] = append(e.flags[j], f)
			}
			p += fl
		}
		if p != len(b) {
			return bad
		}
	}
	if level == 0 {
		return nil
	}
	return c.appendLevel(base, upTo)
}

// appendLevel gives the level's action codes the single machine's ids (per chunk of its
// expansion: the edges' codes in order, then the cut steps'), and appends its records to the
// stream, segment by segment, spilling as recordEdges does.
func (c *coordinator[S]) appendLevel(base, size uint64) error {
	e, lc := c.e, &c.live
	es := &e.es
	if cap(lc.ids) < len(lc.raw) {
		lc.ids = make([]uint32, len(lc.raw))
	}
	ids := lc.ids[:len(lc.raw)]
	n := uint32(e.links.len()) // the states known after the level
	for _, t := range lc.tgt {
		if t != noIndex && t >= n {
			return errors.New("a part sent an edge to state " + strconv.FormatUint(uint64(t), 10) + " of " + strconv.FormatUint(uint64(n), 10))
		}
	}
	ci := 0 // next cut
	var rec []byte
	var blk, part []uint32
	for slo := 0; slo < int(size); slo += segmentStates {
		shi := min(slo+segmentStates, int(size))
		// The single machine's chunks of this segment (expand).
		cs := chunkStates
		if e.workers > 1 {
			cs = min(cs, max(cs/4, (shi-slo)/(4*e.workers), 1))
		}
		rec, blk, part = rec[:0], blk[:0], part[:0]
		nedges := 0
		for a := slo; a < shi; a += cs {
			b := min(a+cs, shi)
			lo := uint32(0)
			if a > 0 {
				lo = lc.ecnt[a-1]
			}
			hi := lc.ecnt[b-1]
			for j := lo; j < hi; j++ {
				ids[j] = e.codes.id(lc.raw[j])
			}
			for ; ci < len(lc.cuts) && uint64(lc.cuts[ci].state) < base+uint64(b); ci++ {
				cut := lc.cuts[ci]
				e.cutState = append(e.cutState, cut.state)
				e.cutCode = append(e.cutCode, e.codes.id(lc.craw[cut.code]))
				e.cutBy = append(e.cutBy, cut.by)
			}
			for k := a; k < b; k++ {
				v := uint32(base) + uint32(k)
				s := uint32(0)
				if k > 0 {
					s = lc.ecnt[k-1]
				}
				end := lc.ecnt[k]
				if v%edgeBlock == 0 {
					blk = append(blk, uint32(len(rec)))
				}
				var n int
				rec, n = appendRecord(rec, v, lc.tgt[s:end], ids[s:end])
				if n < int(end-s) {
					part = append(part, v)
				}
				nedges += n
			}
		}
		if share := e.spillShare(); share > 0 && int64(len(es.data)+len(rec)) > share {
			if err := es.spillOut(e.opts.SpillDir); err != nil {
				return &spillError{err}
			}
		}
		at := es.base + uint64(len(es.data))
		for _, off := range blk {
			es.blk = append(es.blk, at+uint64(off))
		}
		es.data = append(es.data, rec...)
		e.partial = append(e.partial, part...)
		es.n += shi - slo
		es.nedges += int64(nedges)
	}
	if ci != len(lc.cuts) {
		return errors.New("the parts' cut steps are not in state order")
	}
	return nil
}

// gather gathers a level's records (gatherLevel) and checks that the graph still fits the
// coordinator: its --memory budget, as one process's, and the graph's 32-bit indices.
func (c *coordinator[S]) gather(level int, base, size, upTo uint64, final bool, distinct uint64, ranges []prange) error {
	e := c.e
	if distinct > maxState {
		return &noFitError{"the liveness graph numbers at most " + strconv.Itoa(maxState) + " states (32-bit indices), and the search has " + strconv.FormatUint(distinct, 10)}
	}
	if err := c.gatherLevel(level, base, size, upTo, final, ranges); err != nil {
		var sp *spillError
		if errors.As(err, &sp) {
			return &noFitError{err.Error()}
		}
		return err
	}
	e.distinct = int64(distinct)
	if m := e.opts.MemoryBytes; m > 0 {
		used := e.usedBytes()
		if used > m && len(e.es.data) > 0 && e.spillShare() > 0 {
			// As one process does near its budget (fits): spill the stream, and look again.
			if err := e.es.spillOut(e.opts.SpillDir); err != nil {
				return &noFitError{err.Error()}
			}
			runtime.GC()
			used = e.usedBytes()
		}
		if used > m {
			return &noFitError{"the liveness graph gathered to this process (" + strconv.FormatUint(distinct, 10) + " states, " +
				strconv.FormatInt(e.graphBytes(), 10) + " bytes, " + strconv.FormatInt(e.es.spilledBytes(), 10) + " of them on disk) and its liveness check need " +
				strconv.FormatInt(used, 10) + " bytes, more than --memory " + strconv.FormatInt(m, 10)}
		}
	}
	return nil
}

// noFitError is a liveness graph that does not fit the coordinator.
type noFitError struct{ why string }

func (e *noFitError) Error() string { return e.why }

// spillError is a failure to write the graph's spill file.
type spillError struct{ err error }

func (e *spillError) Error() string { return e.err.Error() }

// gatherFail is the result of a search whose gathering failed: a graph that does not fit
// says so and names what to do instead.
func (c *coordinator[S]) gatherFail(err error, st Stats) Result {
	var nf *noFitError
	if errors.As(err, &nf) {
		spill := "a --spill-dir with room (the graph's successor lists spill to disk past a quarter of --memory)"
		if c.e.opts.Checkpoint != nil && !c.e.opts.CheckpointSkippable {
			spill = "run without --checkpoint and with a --spill-dir with room (a search that takes checkpoints keeps its graph in memory; without, its successor lists spill to disk past a quarter of --memory)"
		}
		why := "liveness across partitions/nodes: " + nf.why + "; give this process more --memory, or " + spill + ", or bound the search with --max-depth, or check the safety properties alone across the nodes"
		return Result{Verdict: Incomplete, Reason: why, Interrupted: why, Stats: st}
	}
	return fail(err, st)
}

// lookup answers the index of a state of this part's shards: u32 value, then 1 if known.
func (p *part[S]) lookup(r *rd) ([]byte, error) {
	fp := r.u64()
	if r.err != nil {
		return nil, r.err
	}
	p.mu.Lock()
	v, ok := p.e.set.lookup(fp)
	p.mu.Unlock()
	var w wr
	w.u32(v)
	w.flag(ok)
	return w.b, nil
}

// lookupFP asks the owner of fp for its state's index (the lasso's replay).
func (c *coordinator[S]) lookupFP(fp uint64) (uint32, bool) {
	w := wr{b: []byte{opLookup}}
	w.u64(fp)
	b, err := c.t.Call(shardOf(fp)%c.w, w.b)
	if err == nil && len(b) != 5 {
		err = errors.New("a part's answer to a lookup is malformed")
	}
	if err != nil {
		c.live.err = err // the replay then stops (checkLive)
		return 0, false
	}
	return binary.LittleEndian.Uint32(b), b[4] == 1
}

// checkLive runs the liveness phase on the gathered graph; a lasso whose replay failed
// because a part did not answer is that error, not the replay's panic.
func (c *coordinator[S]) checkLive(st Stats) (res Result, status int, err error) {
	defer func() {
		if r := recover(); r != nil {
			if c.live.err == nil {
				panic(r)
			}
			err = c.live.err
		}
	}()
	res, status = c.e.checkLiveness(st)
	return res, status, nil
}

// GraphMessage reports whether a message of a partitioned search (its first byte) gathers
// the liveness graph to the coordinator, for the count of its bytes on the wire.
func GraphMessage(kind byte) bool { return kind >= opIdx && kind <= opLookup }
