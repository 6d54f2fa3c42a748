package checker

import (
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"
)

// A partitioned search runs the breadth-first search over W parts (logical workers, in one
// process or several) that exchange messages through a Transport, level-synchronously:
//
//  1. Expand. Level d's states, [L_d, L_d+n) in single-machine BFS order, are range-
//     partitioned: part i holds [a_i, b_i). Each part expands its range with the engine's own
//     expansion (invariants, action properties, deadlock, coverage, symmetry), in pieces cut at
//     the single machine's segment boundaries (segmentStates from L_d), and sends each new
//     successor as a 16-byte claim (fingerprint, key) to the owner of the fingerprint's shard
//     (shard mod W). The key is (global parent index + 1) << 16 | successor position (an
//     initial state's key is its position in Init), so keys are ordered as the single
//     machine's candidates. A part numbers its range's states from 0 in its own frontier, as
//     the single-process engine does (32-bit indices, at most maxState per part); every index
//     that crosses parts is global and 64-bit (claims' keys, ranges, parent links, the prefix
//     sums, violations, checkpoints' gathering), up to maxGlobal.
//  2. Resolve. Each owner keeps, per fingerprint it does not know, the minimum key it was sent
//     (idempotent and order-free: duplicates and order change nothing), inserts the winners
//     into its shards of the seen set and tells each claimant which of its keys won.
//  3. Commit. Each claimant keeps its winners in key order and counts them; the coordinator
//     numbers them by one prefix sum over the parts (every key of part j < i is below every
//     key of part i), which gives each new state its single-machine index, so parents,
//     shortest traces, VIEW representatives and counts are the single machine's.
//  4. Next. Each part stores the parent links of its winners and sends their encodings to the
//     parts whose (equal) ranges of level d+1 hold them.
//
// A state violation, a deadlock or the state limit stops the single machine at the end of the
// expansion, or of the commit, of the segment where it happens; each part reports its
// counters per piece and its winners per segment of their parents, so that the coordinator
// reads the single machine's Generated, Distinct, Queue, coverage and vacuity at that segment.

// Transport carries a partitioned search's messages: Call sends req to part to (0..W-1) and
// returns its reply (the part's Handle). It must be safe for concurrent use, and a part's
// Handle must be callable while the part itself is inside a Call.
type Transport interface {
	Call(to int, req []byte) ([]byte, error)
}

// Part is one part of a partitioned search; Handle answers a message of the search.
type Part interface {
	Handle(req []byte) ([]byte, error)
}

// Partitioner is implemented by Bind's runnables: a search of the model split into parts.
type Partitioner interface {
	// NewPart makes part index of parts, which calls the others through t.
	NewPart(opts Options, parts, index int, t Transport) (Part, error)
	// CheckPartitioned runs the search as the coordinator of parts parts reached through t.
	CheckPartitioned(opts Options, parts int, t Transport) Result
}

// PartitionRefusal says why a search with opts cannot be partitioned, or "": the partial-order
// reduction's proviso reads the whole seen set. Checkpoints and Resume are taken: a
// partitioned search writes the single-process engine's snapshots at level boundaries
// (partition_ckpt.go) and resumes any snapshot, whatever wrote it. A liveness property is
// checked on the state graph gathered to the coordinator (partition_live.go), which its
// checkpoints hold as one process's do.
func PartitionRefusal(r Runnable, opts Options) string {
	if rd, ok := r.(Reducer); ok && rd.ReducesPOR(opts) {
		return "the partial-order reduction runs on one machine only (its cycle proviso reads the whole seen set); run with --por=false, or without --partitions/--cluster"
	}
	if _, ok := r.(Partitioner); !ok {
		return "this model cannot be partitioned"
	}
	return ""
}

// LevelStats is what a partitioned search did in one level, for progress reports: the level
// (its states expanded), the distinct states after it and the new ones, the claims the parts
// sent (their own shards' included), and the slowest part's expansion against the level's
// time.
type LevelStats struct {
	Level          int
	Distinct, New  int64
	Generated      int64
	Claims         int64
	Slowest        int
	SlowestExpand  time.Duration
	Elapsed, Total time.Duration // the level's, and the search's so far
}

// LevelObserver is a Transport that hears of each level of a partitioned search as it ends.
type LevelObserver interface {
	Level(LevelStats)
}

// Reducer is a Runnable that says whether a search runs under the partial-order reduction
// (Bind's Runnable is one; a wrapper around it forwards the method).
type Reducer interface {
	ReducesPOR(opts Options) bool
}

// ReducesPOR reports whether a search with opts runs under the partial-order reduction:
// asked for, and the model declares its independence.
func (b *bound[S]) ReducesPOR(opts Options) bool {
	_, ok := any(b.m).(Independent[S])
	return opts.POR && ok
}

func (b *bound[S]) NewPart(opts Options, parts, index int, t Transport) (Part, error) {
	if err := b.countPart(); err != nil {
		return nil, err
	}
	return newPart(b.m, b.props, opts, parts, index, t)
}

func (b *bound[S]) CheckPartitioned(opts Options, parts int, t Transport) Result {
	return checkPartitioned(b.m, b.props, opts, parts, t)
}

// Message kinds.
const (
	opExpand byte = iota + 1
	opClaim
	opResolve
	opWins
	opCommit
	opNext
	opXfer
	opLink
	opFinish
	opSeen
	opGather
	opIdx    // liveness: a claimant tells an owner the indices of its winners
	opAnswer // liveness: an owner answers every claim of the level with its state's index
	opAns    // liveness: one owner's answers to one claimant
	opRecord // liveness: a page of the part's records of the level, for the coordinator
	opLookup // liveness: the index of a state, for the lasso's replay
)

const (
	claimBatch = 32 << 10  // claims per message: 512 KiB
	xferBytes  = 512 << 10 // encodings per transfer message
	noParent   = ^uint64(0)
	// maxGlobal is the most states a partitioned search numbers. A claim is 16 bytes: the
	// fingerprint (8) and the key (8), whose 48 high bits are the parent's global index + 1
	// and 16 low bits the successor's position (the engine's positions are 16-bit). Keys
	// compare as the single machine's candidates in one 64-bit comparison, and 2^48 states
	// (at some 6 GB of seen set per 2^30 states per node) is beyond any cluster's memory; a
	// 20-byte claim (a 64-bit index) would cost 25% more on the wire for nothing.
	maxGlobal = 1<<48 - 2
)

// partIndexBase is the global index of a partitioned search's first state: 0, but the tests
// set it above 2^32, so that every index crossing parts is beyond 32 bits without searching
// 2^32 states. The coordinator counts states from 0 and adds it to every index it sends.
var partIndexBase uint64

// prange is a part's range of a level's global indices.
type prange struct{ a, b uint64 }

// pcand is a part's candidate of the level: a successor new to the part, with its key.
type pcand struct {
	fp     uint64
	key    uint64
	off, n uint32
	orbit  uint32
}

// plinks are the parent links of the states a part committed in one level: indices
// [start, start+len(parent)).
type plinks struct {
	start  uint64
	parent []uint64 // noParent for an initial state
	pos    []uint16
}

type part[S any] struct {
	e     *engine[S]
	w, me int
	t     Transport

	cur    frontier
	level  int
	base   uint64 // L_d
	size   uint64 // n
	ranges []prange

	mu      sync.Mutex
	pending keyTable    // owner: fingerprint → least key claimed
	wins    []uint64    // claimant: its winning keys
	inbox   []xferPiece // the next level's encodings sent to this part

	cands []pcand // claimant: in key order
	arena []byte
	dedup keyTable // the level's candidates' fingerprints
	won   []pcand
	out   [][]uint64 // claims per owner, fp and key interleaved

	links   []plinks
	genCum  int64
	claims  int64 // claims sent in the level
	stopped bool  // a state violation stopped this part's level

	lv partLive // the liveness graph's share of this part (e.rec)
}

type xferPiece struct {
	start uint64
	encs  []byte // uvarint length, bytes
}

func newPart[S any](m Model[S], props []Property[S], opts Options, parts, index int, t Transport) (Part, error) {
	if parts < 1 || index < 0 || index >= parts {
		return nil, errors.New("partitioned search: part " + strconv.Itoa(index) + " of " + strconv.Itoa(parts))
	}
	opts.Progress, opts.Phase, opts.Checkpoint, opts.Resume, opts.Stop, opts.Time = nil, nil, nil, nil, nil, 0
	e, res, ok := newEngine(m, props, opts)
	if !ok {
		return nil, errors.New("partitioned search: " + res.Reason)
	}
	e.inits = e.initStates()
	e.start = time.Now()
	p := &part[S]{e: e, w: parts, me: index, t: t}
	p.out = make([][]uint64, parts)
	return p, nil
}

// owner is the part that owns fingerprint fp's shard.
func (p *part[S]) owner(fp uint64) int { return shardOf(fp) % p.w }

// Handle answers one message.
func (p *part[S]) Handle(req []byte) ([]byte, error) {
	if len(req) == 0 {
		return nil, errors.New("partitioned search: empty message")
	}
	r := &rd{b: req[1:]}
	switch req[0] {
	case opExpand:
		return p.expandLevel(r)
	case opClaim:
		n := int(r.u32())
		if 16*n != len(r.b) {
			return nil, errors.New("partitioned search: a claim batch of the wrong length")
		}
		p.mu.Lock()
		for range n {
			fp, key := r.u64(), r.u64()
			p.claim(fp, key)
		}
		p.mu.Unlock()
		return nil, r.err
	case opResolve:
		return nil, p.resolve()
	case opWins:
		n := int(r.u32())
		if 8*n != len(r.b) {
			return nil, errors.New("partitioned search: a list of winners of the wrong length")
		}
		p.mu.Lock()
		for range n {
			p.wins = append(p.wins, r.u64())
		}
		p.mu.Unlock()
		return nil, r.err
	case opCommit:
		return p.commitLevel(), nil
	case opNext:
		return nil, p.next(r)
	case opXfer:
		start := r.u64()
		blob := append([]byte(nil), r.b...)
		p.mu.Lock()
		p.inbox = append(p.inbox, xferPiece{start, blob})
		p.mu.Unlock()
		return nil, r.err
	case opLink:
		idx := r.u64()
		for _, l := range p.links {
			if idx >= l.start && idx < l.start+uint64(len(l.parent)) {
				k := idx - l.start
				var w wr
				w.u64(l.parent[k])
				w.u32(uint32(l.pos[k]))
				return w.b, nil
			}
		}
		return nil, errors.New("partitioned search: part " + strconv.Itoa(p.me) + " did not commit state " + strconv.FormatUint(idx, 10))
	case opFinish:
		return p.finish(), nil
	case opSeen:
		return nil, p.seen(r)
	case opGather:
		return p.gather(r)
	case opIdx:
		return nil, p.takeIdx(r)
	case opAnswer:
		return nil, p.answer(r)
	case opAns:
		return nil, p.takeAns(r)
	case opRecord:
		return p.recordPage(r)
	case opLookup:
		return p.lookup(r)
	}
	return nil, errors.New("partitioned search: unknown message kind " + strconv.Itoa(int(req[0])))
}

// claim records a claim on a fingerprint this part owns (p.mu held).
func (p *part[S]) claim(fp, key uint64) {
	if p.e.rec {
		p.lv.asked = append(p.lv.asked, fp, key)
	}
	if p.e.set.shards[shardOf(fp)].has(fp) {
		return
	}
	p.pending.offer(fp, key)
}

// send sends the claims buffered for owner o (or applies them here).
func (p *part[S]) send(o int) error {
	buf := p.out[o]
	if len(buf) == 0 {
		return nil
	}
	p.out[o] = buf[:0]
	if o == p.me {
		p.mu.Lock()
		for i := 0; i < len(buf); i += 2 {
			p.claim(buf[i], buf[i+1])
		}
		p.mu.Unlock()
		return nil
	}
	w := wr{b: make([]byte, 0, 5+8*len(buf))}
	w.b = append(w.b, opClaim)
	w.u32(uint32(len(buf) / 2))
	for _, v := range buf {
		w.u64(v)
	}
	_, err := p.t.Call(o, w.b)
	return err
}

func (p *part[S]) addCand(fp, key uint64, enc []byte, orbit uint32) error {
	if !p.dedup.offer(fp, key) {
		return nil
	}
	p.cands = append(p.cands, pcand{fp: fp, key: key, off: uint32(len(p.arena)), n: uint32(len(enc)), orbit: orbit})
	p.arena = append(p.arena, enc...)
	o := p.owner(fp)
	p.claims++
	p.out[o] = append(p.out[o], fp, key)
	if len(p.out[o]) >= 2*claimBatch {
		return p.send(o)
	}
	return nil
}

// expandLevel: level, base, size, atBound, then W ranges. The reply is the part's counters
// at the start of the level and after each piece (rec).
func (p *part[S]) expandLevel(r *rd) ([]byte, error) {
	p.level = int(r.u32())
	p.base, p.size = r.u64(), r.u64()
	p.ranges = p.ranges[:0]
	for range p.w {
		p.ranges = append(p.ranges, prange{r.u64(), r.u64()})
	}
	p.lv.g0 = r.u64()
	if r.err != nil {
		return nil, r.err
	}
	at := p.base
	for i, rg := range p.ranges {
		if rg.a != at || rg.b < rg.a || (i == p.w-1 && rg.b != p.base+p.size) || p.size > maxGlobal || p.base+p.size > maxGlobal {
			return nil, errors.New("partitioned search: the ranges of level " + strconv.Itoa(p.level) + " do not cover it in order")
		}
		at = rg.b
	}
	if my := p.ranges[p.me]; my.b-my.a > maxState {
		return nil, errors.New("partitioned search: part " + strconv.Itoa(p.me) + " was given " + strconv.FormatUint(my.b-my.a, 10) +
			" states of level " + strconv.Itoa(p.level) + ", more than a part's frontier numbers (" + strconv.Itoa(maxState) + "): use more parts")
	}
	if len(p.arena) > 0 {
		// the previous level's candidates, whose encodings went to the next level's owners
		p.arena = p.arena[:0]
	}
	p.cands = p.cands[:0]
	p.dedup.reset()
	p.stopped = false
	p.claims = 0
	if p.e.rec {
		if err := p.liveLevel(); err != nil {
			return nil, err
		}
	}
	var w wr
	p.record(&w, ^uint32(0), gviolation{})
	e := p.e
	if p.level == 0 {
		if p.me == 0 {
			var enc []byte
			for i := range e.inits {
				t := e.inits[i]
				var orbit int
				enc, orbit = e.encodeInit(&t, enc[:0])
				if err := p.addCand(e.fp(enc), uint64(i), enc, uint32(orbit)); err != nil {
					return nil, err
				}
			}
		}
		return w.b, p.flush()
	}
	if err := p.takeInbox(); err != nil {
		return nil, err
	}
	my := p.ranges[p.me]
	for lo := my.a; lo < my.b; {
		seg := (lo - p.base) / uint64(segmentStates)
		hi := min(my.b, p.base+(seg+1)*uint64(segmentStates))
		outs := e.expand(&p.cur, int(lo-my.a), int(hi-my.a))
		var best violation
		a := my.a - p.lv.lb // the global index of the frontier's index 0
		for _, o := range outs {
			p.genCum += o.gen
			best.offer(o.viol)
			if e.rec {
				p.takeEdges(o)
			}
			for ci := range o.cands {
				cd := &o.cands[ci]
				key := (a+uint64(cd.parent)+1)<<16 | uint64(cd.pos)
				if err := p.addCand(cd.fp, key, o.arena[cd.off:cd.off+cd.n], cd.orbit); err != nil {
					return nil, err
				}
			}
		}
		p.record(&w, uint32(seg), global(best, a))
		lo = hi
		if best.found && !best.step {
			p.stopped = true
			break
		}
	}
	return w.b, p.flush()
}

func (p *part[S]) flush() error {
	for o := range p.out {
		if err := p.send(o); err != nil {
			return err
		}
	}
	return nil
}

// takeInbox makes the level's frontier from the encodings sent to this part.
func (p *part[S]) takeInbox() error {
	my := p.ranges[p.me]
	p.mu.Lock()
	in := p.inbox
	p.inbox = nil
	p.mu.Unlock()
	slices.SortFunc(in, func(x, y xferPiece) int {
		switch {
		case x.start < y.start:
			return -1
		case x.start > y.start:
			return 1
		}
		return 0
	})
	p.cur.reset(uint32(p.lv.lb)) // local indices: the range's k-th state is my.a + k (lb + k with liveness)
	at := my.a
	for _, x := range in {
		if x.start != at {
			return errors.New("partitioned search: part " + strconv.Itoa(p.me) + " is missing states " + strconv.FormatUint(at, 10) + ".." + strconv.FormatUint(x.start, 10))
		}
		b := x.encs
		for len(b) > 0 {
			n, k := binary.Uvarint(b)
			if k <= 0 || uint64(len(b)-k) < n {
				return errors.New("partitioned search: a malformed transfer of states")
			}
			p.cur.add(b[k : k+int(n)])
			b = b[k+int(n):]
			at++
		}
	}
	if at != my.b {
		return errors.New("partitioned search: part " + strconv.Itoa(p.me) + " got states up to " + strconv.FormatUint(at, 10) + ", not " + strconv.FormatUint(my.b, 10))
	}
	return nil
}

// record appends the part's counters after a piece of segment seg (^0: the level's start).
func (p *part[S]) record(w *wr, seg uint32, v gviolation) {
	w.u32(seg)
	w.u64(uint64(p.genCum))
	w.viol(v)
	cov, taken := p.counters()
	w.u32(uint32(len(cov)))
	for _, c := range cov {
		w.u64(uint64(c))
	}
	for _, t := range taken {
		w.u64(t)
	}
	// What the part's model counted of its own (Tallier) since its last record: the piece's.
	var d []uint64
	if p.e.tallyIn != nil {
		d = p.e.tallyIn.take()
	}
	w.u32(uint32(len(d)))
	for _, v := range d {
		w.u64(v)
	}
}

// counters are the part's coverage counts (enabled, taken per kind) and taken bits so far.
func (p *part[S]) counters() ([]int64, [4]uint64) {
	var cov []int64
	var taken [4]uint64
	for _, w := range p.e.ws {
		if w.covTaken != nil && cov == nil {
			cov = make([]int64, 2*len(w.covTaken))
		}
		for k := range w.covTaken {
			cov[2*k] += w.covEnabled[k]
			cov[2*k+1] += w.covTaken[k]
		}
		for j := range taken {
			taken[j] |= w.taken[j]
		}
	}
	return cov, taken
}

// claimant is the part whose range of the level holds the key's parent.
func (p *part[S]) claimant(key uint64) int {
	if key < 1<<16 {
		return 0
	}
	parent := key>>16 - 1
	i, _ := slices.BinarySearchFunc(p.ranges, parent, func(r prange, x uint64) int {
		switch {
		case r.b <= x:
			return -1
		case r.a > x:
			return 1
		}
		return 0
	})
	return min(i, p.w-1)
}

// resolve picks each pending fingerprint's winner, inserts it into the seen set and sends
// each claimant its winning keys.
func (p *part[S]) resolve() error {
	p.mu.Lock()
	byPart := make([][]uint64, p.w)
	for i, fp := range p.pending.fps {
		if fp == 0 {
			continue
		}
		key := p.pending.keys[i]
		if p.e.rec {
			// its index comes with opIdx; until then (and for good if it is dropped) pending
			p.e.set.shards[shardOf(fp)].insert(fp, pendBit, true)
		} else {
			p.e.set.shards[shardOf(fp)].insert(fp, 0, false)
		}
		c := p.claimant(key)
		byPart[c] = append(byPart[c], key)
		if p.e.rec {
			p.lv.wonBy = append(p.lv.wonBy, ownWin{key: key, fp: fp})
		}
	}
	p.pending.reset()
	if p.e.rec {
		p.groupWins()
	}
	p.mu.Unlock()
	for c, keys := range byPart {
		slices.Sort(keys)
		if c == p.me {
			p.mu.Lock()
			p.wins = append(p.wins, keys...)
			p.mu.Unlock()
			continue
		}
		for len(keys) > 0 {
			n := min(len(keys), claimBatch)
			w := wr{b: make([]byte, 0, 5+8*n)}
			w.b = append(w.b, opWins)
			w.u32(uint32(n))
			for _, k := range keys[:n] {
				w.u64(k)
			}
			if _, err := p.t.Call(c, w.b); err != nil {
				return err
			}
			keys = keys[n:]
		}
	}
	return nil
}

// commitLevel keeps the part's winners in key order; the reply is their number, then per
// segment of their parents (from the level's start) how many there are, then the claims the
// part sent in the level.
func (p *part[S]) commitLevel() []byte {
	p.mu.Lock()
	wins := p.wins
	p.wins = nil
	p.mu.Unlock()
	slices.Sort(wins)
	p.won = p.won[:0]
	j := 0
	for _, k := range wins {
		for j < len(p.cands) && p.cands[j].key < k {
			j++
		}
		if j < len(p.cands) && p.cands[j].key == k {
			p.won = append(p.won, p.cands[j])
		}
	}
	var segs []uint64
	for _, c := range p.won {
		s := uint64(0)
		if c.key >= 1<<16 {
			s = (c.key>>16 - 1 - p.base) / uint64(segmentStates)
		}
		for uint64(len(segs)) <= s {
			segs = append(segs, 0)
		}
		segs[s]++
	}
	var w wr
	w.u64(uint64(len(p.won)))
	w.u32(uint32(len(segs)))
	for _, n := range segs {
		w.u64(n)
	}
	w.u64(uint64(p.claims))
	return w.b
}

// next numbers the part's first keep winners from offset, stores their parent links and
// sends their encodings to the parts whose ranges of the next level hold them.
func (p *part[S]) next(r *rd) error {
	off, keep := r.u64(), r.u64()
	ranges := make([]prange, p.w)
	for i := range ranges {
		ranges[i] = prange{r.u64(), r.u64()}
	}
	if r.err != nil {
		return r.err
	}
	keep = min(keep, uint64(len(p.won)))
	if off > maxGlobal || off+keep > maxGlobal {
		return errors.New("partitioned search: state indices beyond the engine's most")
	}
	if p.e.rec {
		if err := p.sendIdx(off, keep); err != nil {
			return err
		}
	}
	if keep == 0 {
		return nil
	}
	l := plinks{start: off, parent: make([]uint64, keep), pos: make([]uint16, keep)}
	for k, c := range p.won[:keep] {
		if c.key < 1<<16 {
			l.parent[k] = noParent
		} else {
			l.parent[k] = c.key>>16 - 1
		}
		l.pos[k] = uint16(c.key)
		p.e.orbits += int64(c.orbit)
	}
	p.links = append(p.links, l)
	idx := off
	end := off + keep
	for to, rg := range ranges {
		a, b := max(rg.a, idx), min(rg.b, end)
		for a < b {
			w := wr{b: []byte{opXfer}}
			w.u64(a)
			for a < b && len(w.b) < xferBytes {
				c := p.won[a-off]
				w.b = binary.AppendUvarint(w.b, uint64(c.n))
				w.b = append(w.b, p.arena[c.off:c.off+c.n]...)
				a++
			}
			if to == p.me {
				p.mu.Lock()
				p.inbox = append(p.inbox, xferPiece{start: binary.LittleEndian.Uint64(w.b[1:9]), encs: w.b[9:]})
				p.mu.Unlock()
			} else if _, err := p.t.Call(to, w.b); err != nil {
				return err
			}
		}
	}
	return nil
}

// finish reports what the coordinator adds up after a complete search: the Sometimes
// properties witnessed (a bit each) and the class sizes (Unreduced).
func (p *part[S]) finish() []byte {
	var w wr
	w.u32(uint32(len(p.e.some)))
	for j := range p.e.some {
		w.flag(p.e.someHit[j].Load())
	}
	orbits := p.e.orbits
	for _, x := range p.e.ws {
		orbits += x.orbits
	}
	w.u64(uint64(orbits))
	return w.b
}

// pieceRec is a part's counters after a piece of a level.
type pieceRec struct {
	seg    uint32
	genCum int64
	viol   gviolation
	cov    []int64
	taken  [4]uint64
	tally  []uint64 // the part's model's own counts (Tallier) in the piece
}

func readPieces(b []byte) ([]pieceRec, error) {
	r := &rd{b: b}
	var out []pieceRec
	for len(r.b) > 0 && r.err == nil {
		var pr pieceRec
		pr.seg = r.u32()
		pr.genCum = int64(r.u64())
		pr.viol = r.viol()
		n := int(r.u32())
		if n > 0 {
			pr.cov = make([]int64, n)
			for k := range pr.cov {
				pr.cov[k] = int64(r.u64())
			}
		}
		for j := range pr.taken {
			pr.taken[j] = r.u64()
		}
		if n := int(r.u32()); n > len(r.b)/8 {
			r.err = errors.New("partitioned search: a piece's counts of the model's own run past its message")
		} else if n > 0 {
			pr.tally = make([]uint64, n)
			for k := range pr.tally {
				pr.tally[k] = r.u64()
			}
		}
		out = append(out, pr)
	}
	return out, r.err
}

// coordinator is the side of a partitioned search that drives the levels and builds the
// result.
type coordinator[S any] struct {
	e    *engine[S]
	w    int
	t    Transport
	g0   uint64     // the global index of state 0 (partIndexBase)
	who  [][]prange // per level and part: the states it committed (counted from 0)
	rs   *resumedState
	took []time.Duration // per part: how long its call of the last all took
	// ckptLevel is the level at whose start the last checkpoint was taken.
	ckptLevel int
	cov       []int64 // coverage counts through the stop, enabled and taken per kind
	taken     [4]uint64
	tally     []uint64  // the parts' counts of the model's own (Tallier) through the stop
	live      liveCoord // the liveness graph's gathering (e.rec)
}

// all sends req(i) to every part at once and returns the replies (c.took: how long each took).
func (c *coordinator[S]) all(req func(i int) []byte) ([][]byte, error) {
	out := make([][]byte, c.w)
	errs := make([]error, c.w)
	if len(c.took) != c.w {
		c.took = make([]time.Duration, c.w)
	}
	var wg sync.WaitGroup
	for i := range c.w {
		wg.Go(func() {
			start := time.Now()
			out[i], errs[i] = c.t.Call(i, req(i))
			c.took[i] = time.Since(start)
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

func checkPartitioned[S any](m Model[S], props []Property[S], opts Options, parts int, t Transport) Result {
	var e *engine[S]
	res := checkPartitionedEngine(m, props, opts, parts, t, &e)
	if e != nil {
		e.es.close() // the liveness graph's spill file
	}
	return res
}

// checkPartitionedEngine is checkPartitioned, which leaves the coordinator's engine in *out.
func checkPartitionedEngine[S any](m Model[S], props []Property[S], opts Options, parts int, t Transport, out **engine[S]) Result {
	e, res, ok := newEngine(m, props, opts)
	if !ok {
		return res
	}
	*out = e
	c := &coordinator[S]{e: e, w: parts, t: t, g0: partIndexBase}
	if e.rec {
		e.set.vals = true
		e.lookupFP = c.lookupFP
	}
	e.inits = e.initStates()
	e.start = time.Now()
	e.lastProg, e.lastCkpt = e.start, e.start
	if opts.Time > 0 {
		e.deadline = e.start.Add(opts.Time)
	}
	res = c.run()
	if e.tallyIn != nil {
		c.tally = addTallies(c.tally, e.tallyIn.take()) // the trace's replay, on this model
	}
	// The counts of the steps taken, a resumed snapshot's included (partition_ckpt.go).
	counted, taken, cov, tallies := c.counts(c.rs)
	if counted&countTally != 0 {
		res.Tallies = tallies
	}
	if opts.Coverage && counted&countCoverage != 0 {
		kinds := m.ActionKinds()
		res.Coverage = make([]KindCoverage, len(kinds))
		for k, name := range kinds {
			res.Coverage[k].Kind = name
			if 2*k+1 < len(cov) {
				res.Coverage[k].Enabled, res.Coverage[k].Taken = cov[2*k], cov[2*k+1]
			}
		}
	}
	if opts.Vacuity && counted&countTaken != 0 {
		res.Taken = make([]bool, len(m.ActionKinds()))
		for k := range res.Taken {
			res.Taken[k] = k < 256 && taken[k>>6]&(1<<(k&63)) != 0 || 2*k+1 < len(cov) && cov[2*k+1] > 0
		}
		if res.Verdict == OK {
			res.Vacuous = e.vacuous(res.Stats.Distinct)
		}
	}
	res.Stats.Workers = parts
	res.Stats.Symmetry, res.Stats.Deferred = e.sym != nil, e.dfr != nil
	res.Stats.Elapsed = time.Since(e.start)
	return res
}

func fail(err error, st Stats) Result {
	return Result{Verdict: Incomplete, Reason: "partitioned search: " + err.Error(), Stats: st}
}

func (c *coordinator[S]) run() Result {
	e := c.e
	e.phase(PhaseSearch, Stats{Workers: c.w})
	limit := uint64(maxGlobal)
	if e.opts.MaxStates > 0 && uint64(e.opts.MaxStates) < limit {
		limit = uint64(e.opts.MaxStates)
	}
	ranges := make([]prange, c.w)
	// The level expands states [base, base+size); the states of the next level found before
	// it (carry: a resumed snapshot's) are [base+size, distinct); its new states follow.
	var distinct, base, carry uint64
	var generated int64 = int64(len(e.inits))
	var qx int64 // states truncated at the depth bound before (a resumed snapshot's)
	var cov []int64
	var taken [4]uint64
	var best gviolation
	reason := ""
	depth := 0
	first := 0
	var rs *resumedState
	if e.opts.Resume != nil {
		var why string
		var err error
		if rs, why, err = c.resume(e.opts.Resume); err != nil {
			return fail(err, Stats{Workers: c.w})
		} else if why != "" {
			return Result{Verdict: Incomplete, Reason: "resume: " + why, Stats: Stats{Workers: c.w}}
		}
		first, base, carry, distinct = rs.depth, rs.curAt, uint64(rs.next.n()), rs.distinct
		generated, qx, best = rs.gen, rs.qx, global(rs.best, 0)
		c.rs = rs
	}
	gen0 := generated
	stats := func(queue int64) Stats {
		return Stats{Generated: generated, Distinct: int64(distinct), Queue: queue, Depth: depth,
			Collision: collisionProbability(generated, int64(distinct)), Elapsed: time.Since(e.start), Workers: c.w,
			GraphBytes: e.graphBytes(), GraphEdges: e.es.nedges, GraphSpilled: e.es.spilledBytes()}
	}
	var queue int64
	gathered := false // the liveness graph is whole up to the stop
	for level := first; ; level++ {
		size := distinct - base - carry
		if level == 0 {
			size = 0
		} else {
			depth = level
			if l := c.limitHit(); l != limitNone {
				reason = e.limitReason(l)
				queue = int64(distinct-base) + qx
				// The last checkpoint, at the start of this level, whose states the parts
				// hold (not yet sent when the level is a resumed snapshot's).
				if e.canCheckpoint() && level > first && !best.found && c.ckptLevel != level {
					if err := c.checkpointLevel(level, base, distinct, generated, rs); err != nil {
						return fail(err, stats(queue))
					}
				}
				break
			}
		}
		atBound := level > 0 && e.opts.MaxDepth > 0 && level >= e.opts.MaxDepth
		for i := range ranges {
			ranges[i] = prange{base + size*uint64(i)/uint64(c.w), base + size*uint64(i+1)/uint64(c.w)}
		}
		if rs != nil && level == first {
			if err := c.sendStates(&rs.cur, rs.curAt, ranges); err != nil {
				return fail(err, stats(0))
			}
			rs.cur.reset(0)
		}
		levelStart := time.Now()
		reps, err := c.all(func(int) []byte {
			w := wr{b: []byte{opExpand}}
			w.u32(uint32(level))
			w.u64(c.g0 + base)
			w.u64(size)
			for _, r := range ranges {
				w.u64(c.g0 + r.a)
				w.u64(c.g0 + r.b)
			}
			w.u64(c.g0)
			return w.b
		})
		if err != nil {
			return fail(err, stats(0))
		}
		expandTook := slices.Clone(c.took)
		pieces := make([][]pieceRec, c.w)
		sv := int64(-1) // the first segment with a state violation
		for i, b := range reps {
			if pieces[i], err = readPieces(b); err != nil {
				return fail(err, stats(0))
			}
			for k := range pieces[i] {
				if v := &pieces[i][k].viol; v.found {
					v.idx -= c.g0
				}
			}
			for _, pr := range pieces[i] {
				if pr.seg != ^uint32(0) && pr.viol.found && !pr.viol.step && (sv < 0 || int64(pr.seg) < sv) {
					sv = int64(pr.seg)
				}
			}
		}
		if _, err := c.all(func(int) []byte { return []byte{opResolve} }); err != nil {
			return fail(err, stats(0))
		}
		reps, err = c.all(func(int) []byte { return []byte{opCommit} })
		if err != nil {
			return fail(err, stats(0))
		}
		counts := make([]uint64, c.w)
		var claims int64
		var segs []uint64 // winners per segment of their parents
		var total uint64
		for i, b := range reps {
			r := &rd{b: b}
			counts[i] = r.u64()
			n := int(r.u32())
			for s := range n {
				for len(segs) <= s {
					segs = append(segs, 0)
				}
				segs[s] += r.u64()
			}
			claims += int64(r.u64())
			if r.err != nil {
				return fail(r.err, stats(0))
			}
			total += counts[i]
		}
		// Where the single machine stops in this level: at the segment of the first state
		// violation (before its commit), or at the segment whose commit reaches the limit.
		sm := int64(-1)
		if !atBound && distinct+total > limit {
			cum := distinct
			for s, n := range segs {
				cum += n
				if cum > limit {
					sm = int64(s)
					break
				}
			}
		}
		stop := int64(-1)
		switch {
		case sv >= 0 && (sm < 0 || sv <= sm):
			stop = sv
		case sm >= 0:
			stop = sm
		}
		// The counters of the level through the stop (or all of it).
		gen := int64(0)
		lvBest := gviolation{}
		for i := range pieces {
			var last *pieceRec
			for k := range pieces[i] {
				pr := &pieces[i][k]
				if pr.seg != ^uint32(0) && stop >= 0 && int64(pr.seg) > stop {
					break
				}
				last = pr
				if pr.seg != ^uint32(0) {
					lvBest.offer(pr.viol)
				}
			}
			gen += last.genCum
			for k := range pieces[i] {
				if pr := &pieces[i][k]; pr.seg == ^uint32(0) || stop < 0 || int64(pr.seg) <= stop {
					c.tally = addTallies(c.tally, pr.tally)
				}
			}
			cov = addCov(cov, last.cov, i == 0)
			if i == 0 {
				taken = [4]uint64{}
			}
			for j := range taken {
				taken[j] |= last.taken[j]
			}
		}
		if level > 0 {
			generated = gen0 + gen
		}
		best.offer(lvBest)
		segEnd := func(s int64) uint64 { return min(size, uint64(s+1)*uint64(segmentStates)) }
		keepTotal := total
		d0 := distinct // the first index of the level's new states
		switch {
		case stop >= 0 && stop == sv:
			// A state violation: the segments before it were committed.
			for s := int64(0); s < sv && s < int64(len(segs)); s++ {
				distinct += segs[s]
			}
			queue = int64(distinct) - int64(base+uint64(sv)*uint64(segmentStates))
		case stop >= 0:
			keepTotal = limit - distinct
			distinct = limit
			reason = "max states " + strconv.FormatUint(limit, 10) + " reached"
			queue = int64(distinct) - int64(base+segEnd(stop))
		case atBound:
			keepTotal = 0
			queue = int64(distinct+total) - int64(base+size) + qx
			if total > 0 || qx > 0 {
				reason = "max depth " + strconv.Itoa(e.opts.MaxDepth) + " reached"
			}
		default:
			distinct += total
			queue = int64(distinct) - int64(base+size)
		}
		c.cov, c.taken = cov, taken
		if best.found || reason != "" || keepTotal+carry == 0 {
			if best.found {
				res := Result{Verdict: Violated, Property: e.violName(best.violation), Interrupted: reason, Stats: stats(queue)}
				res.Trace, err = c.trace(best)
				if err != nil {
					return fail(err, stats(queue))
				}
				return res
			}
			if e.rec {
				// The last level's records: at the depth bound, its new states dropped; at the
				// state limit, its states through the segment where one process stops, and
				// the new states it commits (the winners first in key order), unexpanded.
				upTo := size
				if stop >= 0 {
					upTo = segEnd(stop)
					none := make([]prange, c.w) // the winners are numbered, and stay where they are
					if err := c.number(d0, keepTotal, counts, none); err != nil {
						return fail(err, stats(queue))
					}
				}
				if err := c.gather(level, base, size, upTo, true, distinct, ranges); err != nil {
					return c.gatherFail(err, stats(queue))
				}
				if carry > 0 {
					// The next level's states a resumed snapshot found, not expanded: their
					// flags, as one process evaluates them after its search.
					if err := e.flagUnexpanded(&rs.next, &frontier{}, int(rs.nextAt)); err != nil {
						return fail(err, stats(queue))
					}
				}
				gathered = true
				break
			}
			if reason != "" {
				return Result{Verdict: Incomplete, Reason: reason, Interrupted: reason, Stats: stats(queue)}
			}
			break
		}
		// Number the winners: part i's are [off_i, off_i+keep_i), after the states carried.
		nextStart := base + size
		next := make([]prange, c.w)
		for i := range next {
			n := carry + keepTotal
			next[i] = prange{nextStart + n*uint64(i)/uint64(c.w), nextStart + n*uint64(i+1)/uint64(c.w)}
		}
		if err := c.number(d0, keepTotal, counts, next); err != nil {
			return fail(err, stats(0))
		}
		if e.rec {
			if err := c.gather(level, base, size, size, false, distinct, ranges); err != nil {
				return c.gatherFail(err, stats(int64(distinct-base)))
			}
		}
		if carry > 0 {
			if err := c.sendStates(&rs.next, rs.nextAt, next); err != nil {
				return fail(err, stats(0))
			}
			rs.next.reset(0)
			carry = 0
		}
		base = nextStart
		if lo, ok := c.t.(LevelObserver); ok {
			ls := LevelStats{Level: level, Distinct: int64(distinct), New: int64(keepTotal), Generated: generated, Claims: claims,
				Elapsed: time.Since(levelStart), Total: time.Since(e.start)}
			for i, d := range expandTook {
				if d > ls.SlowestExpand {
					ls.Slowest, ls.SlowestExpand = i, d
				}
			}
			lo.Level(ls)
		}
		if e.checkpointDue(level+1, int64(base)) {
			if err := c.checkpointLevel(level+1, base, distinct, generated, rs); err != nil {
				return fail(err, stats(int64(distinct-base)))
			}
		}
		if e.opts.Progress != nil {
			every := e.opts.ProgressEvery
			if every <= 0 {
				every = 5 * time.Second
			}
			if now := time.Now(); now.Sub(e.lastProg) >= every {
				e.lastProg = now
				e.opts.Progress(stats(int64(distinct - base)))
			}
		}
	}
	st := stats(queue)
	if reason != "" && !gathered {
		return Result{Verdict: Incomplete, Reason: reason, Interrupted: reason, Stats: st}
	}
	var orbits int64
	if reason == "" {
		reps, err := c.all(func(int) []byte { return []byte{opFinish} })
		if err != nil {
			return fail(err, st)
		}
		var hit []bool
		hit, orbits, err = c.finishes(reps)
		if err != nil {
			return fail(err, st)
		}
		if rs != nil {
			orbits += rs.orbits
			for j, h := range rs.someHit {
				hit[j] = hit[j] || h
			}
		}
		for j, pi := range e.some {
			if !hit[j] {
				return Result{Verdict: Violated, Property: e.props[pi].Name, Reason: "vacuous: no reachable state satisfies it", Stats: st}
			}
		}
	}
	if e.rec {
		// The liveness phase of one process, on the gathered graph (bfs.go's run).
		e.distinct, e.generated = int64(distinct), generated
		res, status, err := c.checkLive(st)
		if err != nil {
			return fail(err, st)
		}
		res.Interrupted = reason
		switch {
		case status == liveStopped && reason != "":
			res.Reason = reason
		case status == liveStopped:
			res.Interrupted = e.limitReason(limitStop)
		case status == liveIncomplete && reason != "":
			res.Reason += " (" + reason + ")"
		}
		if status != liveOK {
			return res
		}
		if reason != "" {
			return Result{Verdict: Incomplete, Reason: reason, Interrupted: reason, Stats: st}
		}
	}
	if (e.orb != nil || e.cenc != nil) && e.dfr == nil && st.Queue == 0 {
		st.Unreduced = orbits
	}
	return Result{Verdict: OK, Stats: st}
}

func addCov(acc, c []int64, first bool) []int64 {
	if first {
		acc = acc[:0]
	}
	for len(acc) < len(c) {
		acc = append(acc, 0)
	}
	for k, v := range c {
		acc[k] += v
	}
	return acc
}

func (c *coordinator[S]) limitHit() int32 { return c.e.stopOrTime() }

// number numbers the level's winners from d0: the first keep of them in key order, part i's
// (counts[i] winners) after part i-1's, and sends each part its numbers and next, the ranges
// of the next level's states each part expands (opNext).
func (c *coordinator[S]) number(d0, keep uint64, counts []uint64, next []prange) error {
	offs := make([]uint64, c.w)
	keeps := make([]uint64, c.w)
	at, left := d0, keep
	for i := range offs {
		offs[i], keeps[i] = at, min(counts[i], left)
		at += keeps[i]
		left -= keeps[i]
	}
	c.who = append(c.who, nil)
	for i := range offs {
		c.who[len(c.who)-1] = append(c.who[len(c.who)-1], prange{offs[i], offs[i] + keeps[i]})
	}
	_, err := c.all(func(i int) []byte {
		w := wr{b: []byte{opNext}}
		w.u64(c.g0 + offs[i])
		w.u64(keeps[i])
		for _, r := range next {
			w.u64(c.g0 + r.a)
			w.u64(c.g0 + r.b)
		}
		return w.b
	})
	return err
}

// link asks the part that committed state idx for its parent link.
func (c *coordinator[S]) link(idx uint64) (uint64, int, error) {
	if c.rs != nil && idx < c.rs.nlinks() {
		parent, pos := c.rs.link(idx)
		return parent, int(pos), nil
	}
	for _, lv := range c.who {
		for i, r := range lv {
			if idx >= r.a && idx < r.b {
				w := wr{b: []byte{opLink}}
				w.u64(c.g0 + idx)
				b, err := c.t.Call(i, w.b)
				if err != nil {
					return 0, 0, err
				}
				rr := &rd{b: b}
				parent, pos := rr.u64(), int(rr.u32())
				if parent != noParent {
					if parent < c.g0 {
						return 0, 0, errors.New("part " + strconv.Itoa(i) + " links state " + strconv.FormatUint(c.g0+idx, 10) + " to " + strconv.FormatUint(parent, 10) + ", before the search's first state")
					}
					parent -= c.g0
				}
				return parent, pos, rr.err
			}
		}
	}
	return 0, 0, errors.New("no part committed state " + strconv.FormatUint(idx, 10))
}

// trace rebuilds the counterexample of violation v from the parts' parent links: the path of
// successor positions from an initial state, replayed here, its last state checked against
// the violating state's fingerprint.
func (c *coordinator[S]) trace(gv gviolation) (*Trace, error) {
	e := c.e
	v := gv.violation
	var rev []int
	idx := gv.idx
	for {
		parent, pos, err := c.link(idx)
		if err != nil {
			return nil, err
		}
		rev = append(rev, pos)
		if parent == noParent {
			break
		}
		idx = parent
	}
	slices.Reverse(rev)
	init := e.inits[rev[0]]
	if e.sym != nil {
		e.sym.Canonicalize(&init)
	}
	canon := []S{init}
	var codes []uint64
	var succ []S
	var acts []uint64
	steps := rev[1:]
	if v.step {
		steps = append(steps, int(v.pos))
	}
	for n, pos := range steps {
		cur := canon[len(canon)-1]
		succ, acts = e.m.Next(&cur, succ[:0], acts[:0])
		if pos >= len(succ) {
			return nil, errors.New("trace replay: step " + itoa(n+2) + " has no successor " + itoa(pos) + nondetHint)
		}
		t := succ[pos]
		if e.sym != nil && !(v.step && n == len(steps)-1) {
			e.sym.Canonicalize(&t)
		}
		canon = append(canon, t)
		codes = append(codes, acts[pos])
	}
	n0 := len(rev) - 1
	if v.fp != 0 {
		enc := e.m.Encode(&canon[n0], nil)
		if e.fp(enc) != v.fp {
			return nil, errors.New("trace replay: state " + itoa(n0+1) + " is not the violating state" + nondetHint)
		}
	}
	lastProp := -1
	if v.step {
		lastProp = v.prop
	}
	states, acts2 := e.actualWalkFrom(rev[0], canon, codes, lastProp)
	states, acts2 = e.settle(states, acts2, lastProp)
	return e.violationTrace(v, states, acts2), nil
}

// gviolation is a violation as it crosses parts: idx is the state's global (64-bit) index,
// and the embedded violation's own 32-bit idx is not used.
type gviolation struct {
	violation
	idx uint64
}

// global is violation v of the state (or step from the state) at local index v.idx of a
// range that starts at global index a.
func global(v violation, a uint64) gviolation {
	if !v.found {
		return gviolation{violation: v}
	}
	return gviolation{violation: v, idx: a + uint64(v.idx)}
}

// less orders violations as violation.less does, by their global indices.
func (v gviolation) less(o gviolation) bool {
	if v.found && o.found && v.step == o.step && v.idx != o.idx {
		return v.idx < o.idx
	}
	a, b := v.violation, o.violation
	a.idx, b.idx = 0, 0
	return a.less(b)
}

func (v *gviolation) offer(o gviolation) {
	if o.less(*v) {
		*v = o
	}
}

// wr and rd write and read the messages' little-endian fields.
type wr struct{ b []byte }

func (w *wr) u32(v uint32) { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *wr) u64(v uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, v) }

// flag appends a byte: 1 for true, 0 for false.
func (w *wr) flag(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}
func (w *wr) viol(v gviolation) {
	var f byte
	if v.found {
		f |= 1
	}
	if v.step {
		f |= 2
	}
	w.b = append(w.b, f)
	w.u64(v.idx)
	w.u32(uint32(v.pos))
	w.u32(uint32(int32(v.prop)))
	w.u64(v.fp)
}

type rd struct {
	b   []byte
	err error
}

func (r *rd) need(n int) bool {
	if r.err == nil && len(r.b) < n {
		r.err = errors.New("partitioned search: a message is shorter than its fields")
	}
	return r.err == nil
}

func (r *rd) u8() byte {
	if !r.need(1) {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *rd) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *rd) u64() uint64 {
	if !r.need(8) {
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *rd) viol() gviolation {
	f := r.u8()
	v := gviolation{violation: violation{found: f&1 != 0, step: f&2 != 0}}
	v.idx = r.u64()
	v.pos = uint16(r.u32())
	v.prop = int(int32(r.u32()))
	v.fp = r.u64()
	return v
}

// keyTable maps fingerprints (never 0) to the least key offered for each: open addressing
// with linear probing on the fingerprint's low bits, at most half full, kept from level to
// level and cleared.
type keyTable struct {
	fps, keys []uint64
	mask      uint64
	n         int
}

// offer records key for fp if fp has no key yet or a larger one, and reports whether fp was
// new.
func (t *keyTable) offer(fp, key uint64) bool {
	if 2*(t.n+1) > len(t.fps) {
		t.grow()
	}
	for i := fp & t.mask; ; i = (i + 1) & t.mask {
		switch t.fps[i] {
		case fp:
			if key < t.keys[i] {
				t.keys[i] = key
			}
			return false
		case 0:
			t.fps[i], t.keys[i] = fp, key
			t.n++
			return true
		}
	}
}

func (t *keyTable) grow() {
	size := max(2*len(t.fps), 1024)
	fps, keys := t.fps, t.keys
	t.fps, t.keys, t.mask, t.n = make([]uint64, size), make([]uint64, size), uint64(size-1), 0
	for i, fp := range fps {
		if fp != 0 {
			t.offer(fp, keys[i])
		}
	}
}

// reset empties the table, keeping its room.
func (t *keyTable) reset() {
	if t.n > 0 {
		clear(t.fps)
	}
	t.n = 0
}
