package checker

import (
	"sort"
	"sync"
	"sync/atomic"
)

// The liveness graph's successor lists are one byte stream, in state order, written during
// the search and never changed. The record of state v is
//
//  1. uvarint(number of edges), then for each edge, in successor order,
//  2. uvarint(zigzag(target - previous target)), the previous target of the first edge being
//     v itself (a new successor is usually a little after v, and the successors of v that
//     are new are consecutive), and
//  3. uvarint(zigzag(code id - previous code id)), from 0 (successors come grouped by action).
//
// Self-loops are left out (a step to the same state is a stuttering step for fairness), and
// so are steps to states that a limit dropped (the state is then truncated). An index holds
// the stream offset of every edgeBlock-th record; finding state v decodes at most
// edgeBlock-1 records before it. Kafka's states have about 4 edges of 2 to 3 bytes: some
// 12 bytes a state, against 36 for 32-bit offsets, targets and codes.
//
// When the stream outgrows its share of the memory budget it is spilled to a temporary
// file (spill.go), which the liveness phase maps and reads as the stream when the search is
// over.

// edgeBlock is the number of states per index entry.
const edgeBlock = 8

// edgeStore is the recorded successor lists of states [0, n).
type edgeStore struct {
	data    []byte   // the stream from offset base on; the part before base is spilled
	base    uint64   // stream offset of data[0]
	blk     []uint64 // blk[k] is the stream offset of the record of state k*edgeBlock
	n       int      // states recorded
	nedges  int64    // edges recorded
	spill   *graphSpill
	spilled int64 // bytes written to the spill file
}

// graphBytes is the size of the liveness graph: the successor lists (in memory and on
// disk) and their index, the properties' state flags and the fair cut steps.
func (e *engine[S]) graphBytes() int64 {
	if !e.rec {
		return 0
	}
	b := int64(e.es.base) + int64(len(e.es.data)) + 8*int64(len(e.es.blk))
	for _, f := range e.flags {
		b += int64(len(f))
	}
	return b + 10*int64(len(e.cutState)) + 4*int64(len(e.partial))
}

// bytes is the memory the store holds: not the stream when it is the spill file's mapping.
func (s *edgeStore) bytes() int64 {
	b := 8 * int64(cap(s.blk))
	if !s.mapped() {
		b += int64(cap(s.data))
	}
	return b
}

// zigzag maps a signed difference to an unsigned one, small magnitudes to small values.
func zigzag(d int64) uint64 { return uint64(d<<1) ^ uint64(d>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// appendUvarint is binary.AppendUvarint, inlined for the common one-byte case.
func appendUvarint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

// uvarint reads a uvarint at b[p:] and returns it and the position after it. The stream
// is written by this process: a malformed one is a broken invariant.
func uvarint(b []byte, p int) (uint64, int) {
	c := b[p]
	if c < 0x80 {
		return uint64(c), p + 1
	}
	var x uint64
	var s uint
	for {
		c = b[p]
		p++
		if c < 0x80 {
			return x | uint64(c)<<s, p
		}
		x |= uint64(c&0x7f) << s
		s += 7
	}
}

// skipUvarint returns the position after the uvarint at b[p:].
func skipUvarint(b []byte, p int) int {
	for b[p] >= 0x80 {
		p++
	}
	return p + 1
}

// appendRecord appends the record of state v with edges to targets tg by code ids cd,
// leaving out targets noIndex, and returns the number of edges it stored.
func appendRecord(b []byte, v uint32, tg, cd []uint32) ([]byte, int) {
	n := 0
	for _, t := range tg {
		if t != noIndex {
			n++
		}
	}
	b = appendUvarint(b, uint64(n))
	pt, pc := int64(v), int64(0)
	for j, t := range tg {
		if t == noIndex {
			continue
		}
		b = appendUvarint(b, zigzag(int64(t)-pt))
		b = appendUvarint(b, zigzag(int64(cd[j])-pc))
		pt, pc = int64(t), int64(cd[j])
	}
	return b, n
}

// edgeIter walks the edges of one state. Its zero value has no edges.
type edgeIter struct {
	p    int    // position in the stream data
	left uint32 // edges not yet read
	t, c uint32 // the last edge read (the state itself and 0 before the first)
}

// edges returns an iterator over the edges of v, which must be below s.n and in memory.
func (s *edgeStore) edges(v uint32) edgeIter {
	p, n := s.record(v)
	return edgeIter{p: p, left: n, t: v}
}

// record returns the position in s.data of the first edge of v's record, and its number of
// edges; v must be below s.n and in memory.
func (s *edgeStore) record(v uint32) (int, uint32) {
	d := s.data
	p := int(s.blk[v/edgeBlock] - s.base)
	for range v % edgeBlock {
		var n uint64
		n, p = uvarint(d, p)
		for range 2 * n {
			p = skipUvarint(d, p)
		}
	}
	n, p := uvarint(d, p)
	return p, uint32(n)
}

// next returns the next edge (target, code id), or ok false after the last.
func (it *edgeIter) next(d []byte) (uint32, uint32, bool) {
	if it.left == 0 {
		return 0, 0, false
	}
	it.left--
	var u uint64
	u, it.p = uvarint(d, it.p)
	it.t = uint32(int64(it.t) + unzigzag(u))
	u, it.p = uvarint(d, it.p)
	it.c = uint32(int64(it.c) + unzigzag(u))
	return it.t, it.c, true
}

// recordEdges appends the liveness graph's records of the states expanded in outs, in
// parallel by chunk (edges to candidates resolved through candIdx; edges to dropped states
// left out, their sources marked truncated), then in order into the store, which first
// spills what it holds if the records would take it over its share of the memory budget.
func (e *engine[S]) recordEdges(outs []*chunkOut) error {
	candBase := e.candBases
	es := &e.es
	first := es.n - outs[0].lo // the state index of frontier position 0
	fill := func(c int) {
		o := outs[c]
		cb := candBase[c]
		for j, x := range o.edges {
			if x != noIndex && x&pendBit != 0 {
				o.edges[j] = e.candIdx[cb+x&^pendBit]
			}
		}
		o.rec, o.recBlk, o.recPart, o.recEdges = o.rec[:0], o.recBlk[:0], o.recPart[:0], 0
		start := uint32(0)
		for k, end := range o.ecnt {
			v := uint32(first + o.lo + k)
			if v%edgeBlock == 0 {
				o.recBlk = append(o.recBlk, uint32(len(o.rec)))
			}
			var n int
			o.rec, n = appendRecord(o.rec, v, o.edges[start:end], o.ecodes[start:end])
			if n < int(end-start) {
				o.recPart = append(o.recPart, v)
			}
			o.recEdges += n
			start = end
		}
	}
	total := 0
	for _, o := range outs {
		total += len(o.edges)
	}
	nw := min(e.workers, len(outs))
	if nw <= 1 || total < 1<<14 {
		for c := range outs {
			fill(c)
		}
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range nw {
			wg.Go(func() {
				for {
					c := int(next.Add(1) - 1)
					if c >= len(outs) {
						return
					}
					fill(c)
				}
			})
		}
		wg.Wait()
	}
	var bytes, blks, parts int
	for _, o := range outs {
		bytes += len(o.rec)
		blks += len(o.recBlk)
		parts += len(o.recPart)
	}
	if share := e.spillShare(); share > 0 && int64(len(es.data)+bytes) > share {
		if err := es.spillOut(e.opts.SpillDir); err != nil {
			return err
		}
	}
	es.data = reserve(es.data, bytes, e.edgeDouble)
	es.blk = reserve(es.blk, blks, e.edgeDouble)
	e.partial = reserve(e.partial, parts, false)
	for _, o := range outs {
		at := es.base + uint64(len(es.data))
		for _, off := range o.recBlk {
			es.blk = append(es.blk, at+uint64(off))
		}
		es.data = append(es.data, o.rec...)
		e.partial = append(e.partial, o.recPart...)
		es.n += len(o.ecnt)
		es.nedges += int64(o.recEdges)
	}
	return nil
}

// recordBound is an upper bound on the bytes and index entries recordEdges adds to the
// stream for outs.
func recordBound(outs ...*chunkOut) (bytes, blks int) {
	for _, o := range outs {
		bytes += 10*len(o.edges) + 3*len(o.ecnt)
		blks += len(o.ecnt)/edgeBlock + 1
	}
	return bytes, blks
}

// fromArrays fills the store from CSR arrays (a snapshot's form): the edges of state v are
// etgt/ecode[eoff[v-1]:eoff[v]], from 0 for state 0.
func (s *edgeStore) fromArrays(eoff, etgt, ecode []uint32) {
	*s = edgeStore{}
	lo := uint32(0)
	for v, hi := range eoff {
		if v%edgeBlock == 0 {
			s.blk = append(s.blk, uint64(len(s.data)))
		}
		s.data, _ = appendRecord(s.data, uint32(v), etgt[lo:hi], ecode[lo:hi])
		lo = hi
	}
	s.n = len(eoff)
	s.nedges = int64(len(etgt))
}

// arrays returns the store's edges as CSR arrays (fromArrays's form), for a checkpoint. A
// search that takes checkpoints does not spill (spillShare).
func (s *edgeStore) arrays() (eoff, etgt, ecode []uint32) {
	if s.base > 0 {
		panic("checker: checkpoint of a liveness graph that spilled")
	}
	eoff = make([]uint32, s.n)
	etgt = make([]uint32, 0, s.nedges)
	ecode = make([]uint32, 0, s.nedges)
	for v := range s.n {
		it := s.edges(uint32(v))
		for {
			t, c, ok := it.next(s.data)
			if !ok {
				break
			}
			etgt = append(etgt, t)
			ecode = append(ecode, c)
		}
		eoff[v] = uint32(len(etgt))
	}
	return eoff, etgt, ecode
}

// cutsOf returns the range of state v's entries in cutState, which is sorted.
func cutsOf(cutState []uint32, v uint32) (uint32, uint32) {
	lo := sort.Search(len(cutState), func(i int) bool { return cutState[i] >= v })
	hi := lo
	for hi < len(cutState) && cutState[hi] == v {
		hi++
	}
	return uint32(lo), uint32(hi)
}
