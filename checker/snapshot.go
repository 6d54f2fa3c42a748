package checker

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"time"
)

// Snapshot is a search stopped between two segments, where it is consistent: everything
// Check needs to go on with it (Options.Resume) and end with the same counts, depth,
// verdict and counterexample as a search never stopped, for any number of workers on
// either side. It holds the fingerprint set, the parent links, the rest of the level being
// expanded and the part of the next one found so far, the counters, and, when liveness is
// checked, the recorded graph (edges, action codes, property flags, cut steps, truncated
// states). It also records the shape of the search (the model's variables and action
// kinds, fairness, properties, bounds, and the options that shape the search: MaxDepth,
// Deadlock, Symmetry, POR), which must match where it is resumed.
//
// A snapshot handed to Options.Checkpoint is a view of the engine's tables: it is valid
// only during that call, and WriteTo is all it is for. ReadSnapshot reads one back.
//
// The format (integers little-endian): the magic "KMCSNAP\x00" and the format version
// (uint32), then sections HEAD, SEEN, PRNT, CURR, NEXT, LIVE (only when liveness is
// checked) and END_, each a 4-byte tag, its payload length (uint64), the payload, and
// the CRC-32C (Castagnoli) of tag, length and payload.
//
// Invariants of a snapshot read back, checked by valid:
//  1. Depth >= 1 and Expanded <= Distinct; the rest of the level holds states [Expanded,
//     e) and the next level states [e, Distinct).
//  2. The fingerprint set holds at least Distinct fingerprints, each in its own shard,
//     each value a state below Distinct or pending (a state dropped at the depth bound).
//  3. There is one parent link per state, to an earlier state or to none.
//  4. A violation carried over is an action property's, at a state below Distinct.
//  5. With liveness: edges are recorded for the Expanded states, to states below Distinct,
//     with action codes of the table; each property has a flag per state; truncated states
//     and cut steps are sorted and of expanded states, cut by a bound of the shape.
type Snapshot struct {
	// What the search had done, for the caller's records: the BFS level being expanded
	// (initial states: 1), the states generated and distinct so far, the states expanded
	// (every state below that index), the states left on the queue, and the wall-clock
	// time spent on the search so far.
	Depth     int
	Generated int64
	Distinct  int64
	Expanded  int64
	Queue     int64
	Elapsed   time.Duration

	shape      snapShape
	queueExtra int64
	// The partial-order reduction's counts so far (Stats.Reduced, Stats.Proviso).
	reduced, proviso int64
	orbits           int64 // engine.orbits: the class sizes counted so far, for Stats.Unreduced
	best             violation
	someHit          []bool
	// counted says what of the steps taken the search counted so far (countTaken: the kinds
	// of action taken, Result.Taken; countCoverage: the per-kind counts, Result.Coverage):
	// taken has bit k set once a step of kind k (< 256) was taken, cov holds the enabled and
	// taken counts of kind k at 2k and 2k+1. Version 3 snapshots hold none of them.
	counted byte
	taken   [4]uint64
	cov     []int64
	// tallies, with countTally, are the model's own counts so far (Tallier, Result.Tallies).
	tallies []uint64
	// first is the global index of state 0: 0, except in tests of a partitioned search
	// (partIndexBase), which move every index beyond 32 bits. wide says the snapshot holds
	// its parent links in par64 and ppos, 64-bit global indices, instead of links: a
	// partitioned search's checkpoint whose indices pass maxState. curBase and nextBase are
	// the global indices of the rest of the level's and of the next level's first states.
	first             uint64
	wide              bool
	par64             []uint64 // noParent for an initial state
	ppos              []uint16
	curBase, nextBase uint64

	set         *fpSet
	links       *parentLinks
	cur         *frontier // its states from curLo on are the rest of the level
	curLo       int
	next        *frontier
	rec         bool
	eoff        []uint32
	etgt, ecode []uint32
	codes       []uint64
	flags       [][]byte
	partial     []uint32
	cutState    []uint32
	cutCode     []uint32
	cutBy       []uint16
	view        bool // a view of an engine's tables, for Options.Checkpoint
	done        bool // a view whose Checkpoint call returned
	used        bool // taken over by a Check
}

// snapShape is what a snapshot's search was: it must be what Check is asked to resume.
type snapShape struct {
	vars, kinds []string
	fair        []Fairness // per kind, after overrides
	props       []string   // "kind name" per property, in order
	bounds      []string   // the model's bounds when it cuts steps in this search, else nil
	maxDepth    int
	deadlock    bool
	symmetry    bool
	por         bool
}

const (
	snapMagic = "KMCSNAP\x00"
	// snapVersion 4 adds, at the end of HEAD, the kinds of action taken and the coverage
	// counts so far (so that a resumed search reports vacuity and coverage), the global index
	// of state 0 and whether the parent links are 64-bit (PRNT then holds 8-byte parents: a
	// partitioned search's checkpoint beyond maxState states). Version 3 snapshots are read
	// too (a search resumed from one reports no vacuity, as before); version 3 added the
	// class sizes counted so far and the partial-order reduction's counts and shape, and
	// version 2 snapshots are refused, as a resumed search under symmetry could not report
	// its unreduced count.
	snapVersion = 4
	snapOldest  = 3
	// countTaken, countCoverage and countTally are the bits of Snapshot.counted; a
	// snapshot with countTally holds the model's own counts (Tallier) at the end of HEAD,
	// and a kmc built before them refuses it by that bit.
	countTaken    = 1
	countCoverage = 2
	countTally    = 4
)

// OneProcessStates is the most states the single-process engine numbers (its state indices
// are 32-bit): a snapshot of more resumes only as a partitioned search. A variable so that
// tests can lower it.
var OneProcessStates int64 = maxState

// CountsCoverage reports whether the snapshot's search counted the steps of each kind of
// action (Options.Coverage), so that a search resumed from it with Coverage reports the
// counts of a search never stopped.
func (s *Snapshot) CountsCoverage() bool { return s.counted&countCoverage != 0 }

// ErrOneProcess is wrapped by Snapshot.OneProcess's error.
var ErrOneProcess = errors.New("more than one process numbers")

// OneProcess says why the single-process engine cannot resume s, or nil: it holds more
// states than that engine numbers (an error that wraps ErrOneProcess).
func (s *Snapshot) OneProcess() error {
	if s.Distinct > OneProcessStates {
		return fmt.Errorf("the snapshot holds %d states, %w (%d): resume it as a partitioned search (--partitions or --cluster)", s.Distinct, ErrOneProcess, OneProcessStates)
	}
	return nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// shape is the shape of e's search.
func (e *engine[S]) shape() snapShape {
	sh := snapShape{vars: e.m.Vars(), kinds: e.m.ActionKinds(), fair: e.kfair, maxDepth: e.opts.MaxDepth,
		deadlock: e.opts.Deadlock, symmetry: e.sym != nil, por: e.por != nil}
	for _, p := range e.props {
		sh.props = append(sh.props, string(p.Kind)+" "+p.Name)
	}
	if e.bnd != nil {
		sh.bounds = e.bnd.Bounds()
		if sh.bounds == nil {
			sh.bounds = []string{}
		}
	}
	return sh
}

// diff names the first way in which sh (the snapshot's) differs from o (the search's).
func (sh snapShape) diff(o snapShape) string {
	list := func(what string, a, b []string) string {
		for i := 0; i < len(a) || i < len(b); i++ {
			switch {
			case i >= len(a):
				return what + " " + itoa(i+1) + ": the snapshot has none, the search has " + b[i]
			case i >= len(b):
				return what + " " + itoa(i+1) + ": the snapshot has " + a[i] + ", the search has none"
			case a[i] != b[i]:
				return what + " " + itoa(i+1) + ": the snapshot has " + a[i] + ", the search has " + b[i]
			}
		}
		return ""
	}
	if d := list("variable", sh.vars, o.vars); d != "" {
		return d
	}
	if d := list("action kind", sh.kinds, o.kinds); d != "" {
		return d
	}
	for i := range sh.fair {
		if i < len(o.fair) && sh.fair[i] != o.fair[i] {
			return "fairness of " + sh.kinds[i] + ": the snapshot has " + sh.fair[i].String() + ", the search has " + o.fair[i].String()
		}
	}
	if d := list("property", sh.props, o.props); d != "" {
		return d
	}
	if (sh.bounds == nil) != (o.bounds == nil) {
		return "cut steps: the snapshot's search recorded them: " + yesNo(sh.bounds != nil) + ", this one would: " + yesNo(o.bounds != nil)
	}
	if d := list("bound", sh.bounds, o.bounds); d != "" {
		return d
	}
	switch {
	case sh.maxDepth != o.maxDepth:
		return "max depth: the snapshot has " + itoa(sh.maxDepth) + ", the search has " + itoa(o.maxDepth)
	case sh.deadlock != o.deadlock:
		return "deadlock: the snapshot has " + yesNo(sh.deadlock) + ", the search has " + yesNo(o.deadlock)
	case sh.symmetry != o.symmetry:
		return "symmetry: the snapshot has " + yesNo(sh.symmetry) + ", the search has " + yesNo(o.symmetry)
	case sh.por != o.por:
		return "partial-order reduction: the snapshot has " + yesNo(sh.por) + ", the search has " + yesNo(o.por)
	}
	return ""
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// snapshot is a view of e's search at the start of segment lo of cur.
func (e *engine[S]) snapshot(cur *frontier, lo int, next *frontier, p *searchPos) *Snapshot {
	expanded := int64(cur.base) + int64(lo)
	s := &Snapshot{
		Depth: p.depth, Generated: e.generated, Distinct: e.distinct, Expanded: expanded,
		Queue: e.distinct - expanded + p.queueExtra, Elapsed: time.Since(e.start),
		shape: e.shape(), queueExtra: p.queueExtra, orbits: e.orbits, best: p.best, reduced: e.reduced0, proviso: e.proviso0,
		set: &e.set, links: &e.links, cur: cur, curLo: lo, next: next,
		curBase: uint64(expanded), nextBase: uint64(next.base), rec: e.rec, view: true,
	}
	s.counted, s.taken, s.cov, s.tallies = e.counts()
	for _, w := range e.ws {
		s.reduced += w.reduced
		s.proviso += w.proviso
	}
	for i := range e.someHit {
		s.someHit = append(s.someHit, e.someHit[i].Load())
	}
	if e.rec {
		s.eoff, s.etgt, s.ecode = e.es.arrays()
		s.codes = e.codes.codes
		s.flags, s.partial = e.flags, e.partial
		s.cutState, s.cutCode, s.cutBy = e.cutState, e.cutCode, e.cutBy
	}
	return s
}

// Size is the number of bytes WriteTo writes.
func (s *Snapshot) Size() int64 {
	n := int64(len(snapMagic) + 4)
	for _, sec := range s.sections() {
		n += 16 + sec.n
	}
	return n
}

type snapSection struct {
	tag   string
	n     int64
	write func(o *snapOut)
}

func (s *Snapshot) sections() []snapSection {
	head := s.head()
	secs := []snapSection{
		{"HEAD", int64(len(head)), func(o *snapOut) { o.bytes(head) }},
		{"SEEN", s.seenSize(), s.writeSeen},
		{"PRNT", s.parentsSize(), s.writeParents},
		{"CURR", frontierSize(s.cur, s.curLo), func(o *snapOut) { writeFrontier(o, s.cur, s.curLo, s.curBase) }},
		{"NEXT", frontierSize(s.next, 0), func(o *snapOut) { writeFrontier(o, s.next, 0, s.nextBase) }},
	}
	if s.rec {
		secs = append(secs, snapSection{"LIVE", s.liveSize(), s.writeLive})
	}
	return append(secs, snapSection{"END_", 0, func(*snapOut) {}})
}

// head is the HEAD section: the counters, the smallest violation so far, the shape.
func (s *Snapshot) head() []byte {
	var b []byte
	u64 := func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) }
	boolean := func(v bool) {
		if v {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	strs := func(list []string) {
		u64(uint64(len(list)))
		for _, x := range list {
			u64(uint64(len(x)))
			b = append(b, x...)
		}
	}
	u64(uint64(s.Depth))
	u64(uint64(s.Generated))
	u64(uint64(s.Distinct))
	u64(uint64(s.Expanded))
	u64(uint64(s.queueExtra))
	u64(uint64(s.Elapsed))
	boolean(s.best.found)
	boolean(s.best.step)
	u64(uint64(s.best.idx))
	u64(uint64(s.best.pos))
	u64(uint64(int64(s.best.prop)))
	sh := &s.shape
	strs(sh.vars)
	strs(sh.kinds)
	u64(uint64(len(sh.fair)))
	for _, f := range sh.fair {
		b = append(b, byte(f))
	}
	strs(sh.props)
	boolean(sh.bounds != nil)
	strs(sh.bounds)
	u64(uint64(sh.maxDepth))
	boolean(sh.deadlock)
	boolean(sh.symmetry)
	boolean(sh.por)
	u64(uint64(s.reduced))
	u64(uint64(s.proviso))
	boolean(s.rec)
	u64(uint64(len(s.someHit)))
	for _, h := range s.someHit {
		boolean(h)
	}
	u64(uint64(s.orbits))
	// Version 4.
	b = append(b, s.counted)
	for _, t := range s.taken {
		u64(t)
	}
	u64(uint64(len(s.cov)))
	for _, v := range s.cov {
		u64(uint64(v))
	}
	u64(s.first)
	boolean(s.wide)
	if s.counted&countTally != 0 {
		u64(uint64(len(s.tallies)))
		for _, v := range s.tallies {
			u64(v)
		}
	}
	return b
}

func (s *Snapshot) seenSize() int64 {
	n := int64(16)
	for i := range s.set.shards {
		n += 8 + s.set.slotBytes()*int64(s.set.shards[i].n)
	}
	return n
}

// writeSeen writes, per shard, its fingerprints in increasing order and, in a set with
// values, their values.
func (s *Snapshot) writeSeen(o *snapOut) {
	o.u64(fpShards)
	vals := uint64(0)
	if s.set.vals {
		vals = 1
	}
	o.u64(vals)
	var fps []uint64
	var vs []uint32
	for i := range s.set.shards {
		sh := &s.set.shards[i]
		o.u64(uint64(sh.n))
		for lo := 0; lo < len(sh.fps); lo += 4096 {
			fps = fps[:0]
			for _, f := range sh.fps[lo:min(lo+4096, len(sh.fps))] {
				if f != 0 {
					fps = append(fps, f)
				}
			}
			o.u64s(fps)
		}
		if !s.set.vals {
			continue
		}
		for lo := 0; lo < len(sh.fps); lo += 4096 {
			vs = vs[:0]
			for j := lo; j < min(lo+4096, len(sh.fps)); j++ {
				if sh.fps[j] != 0 {
					vs = append(vs, sh.vals[j])
				}
			}
			o.u32s(vs)
		}
	}
}

func (s *Snapshot) parentsSize() int64 {
	if s.wide {
		return 8 + 10*int64(len(s.par64))
	}
	return 8 + 6*int64(s.links.len())
}

// writeParents writes the parent links, parents then positions: 32-bit parents (noIndex for
// none), or in a wide snapshot 64-bit global ones (noParent for none).
func (s *Snapshot) writeParents(o *snapOut) {
	if s.wide {
		o.u64(uint64(len(s.par64)))
		o.u64s(s.par64)
		o.u16s(s.ppos)
		return
	}
	l := s.links
	n := l.len()
	o.u64(uint64(n))
	var ps []uint32
	var pos []uint16
	for lo := 0; lo < n; lo += 4096 {
		ps = l.parents(lo, min(lo+4096, n), ps[:0])
		o.u32s(ps)
	}
	for lo := 0; lo < n; lo += 4096 {
		pos = pos[:0]
		for i := lo; i < min(lo+4096, n); i++ {
			pos = append(pos, l.position(uint32(i)))
		}
		o.u16s(pos)
	}
}

func frontierSize(f *frontier, lo int) int64 {
	n := int64(f.n() - lo)
	return 8 + 8 + 8*(n+1) + f.size(lo)
}

// writeFrontier writes f's states from lo on, as a frontier of their own whose first state
// has global index base.
func writeFrontier(o *snapOut, f *frontier, lo int, base uint64) {
	o.u64(base)
	o.u64(uint64(f.n() - lo))
	off := uint64(0)
	o.u64(0)
	err := f.each(lo, func(_ int, enc []byte) {
		off += uint64(len(enc))
		o.u64(off)
	})
	if err == nil {
		err = f.each(lo, func(_ int, enc []byte) { o.bytes(enc) })
	}
	if err != nil && o.err == nil {
		o.err = fmt.Errorf("frontier spill: %w", err)
	}
}

func (s *Snapshot) liveSize() int64 {
	n := 8 + 4*int64(len(s.eoff)) + 8 + 8*int64(len(s.etgt)) + 8 + 8*int64(len(s.codes))
	n += 8
	for _, f := range s.flags {
		n += 8 + int64(len(f))
	}
	n += 8 + 4*int64(len(s.partial)) + 8 + 10*int64(len(s.cutState))
	return n
}

func (s *Snapshot) writeLive(o *snapOut) {
	o.u64(uint64(len(s.eoff)))
	o.u32s(s.eoff)
	o.u64(uint64(len(s.etgt)))
	o.u32s(s.etgt)
	o.u32s(s.ecode)
	o.u64(uint64(len(s.codes)))
	o.u64s(s.codes)
	o.u64(uint64(len(s.flags)))
	for _, f := range s.flags {
		o.u64(uint64(len(f)))
		o.bytes(f)
	}
	o.u64(uint64(len(s.partial)))
	o.u32s(s.partial)
	o.u64(uint64(len(s.cutState)))
	o.u32s(s.cutState)
	o.u32s(s.cutCode)
	o.u16s(s.cutBy)
}

// WriteTo writes the snapshot to w (see Snapshot for the format) and returns the number
// of bytes written. A snapshot from Options.Checkpoint can be written only during that call.
func (s *Snapshot) WriteTo(w io.Writer) (int64, error) {
	if s.done {
		return 0, errors.New("snapshot: written after its Checkpoint call returned")
	}
	o := &snapOut{w: w, buf: make([]byte, 0, 1<<20)}
	o.raw([]byte(snapMagic))
	o.raw(binary.LittleEndian.AppendUint32(nil, snapVersion))
	for _, sec := range s.sections() {
		o.begin(sec.tag, sec.n)
		sec.write(o)
		o.end()
	}
	o.flush()
	return o.n, o.err
}

// snapOut writes a snapshot through a buffer, keeping the CRC of the current section.
type snapOut struct {
	w    io.Writer
	buf  []byte
	n    int64 // bytes written to w
	crc  uint32
	left int64 // payload bytes the current section still expects
	err  error
}

func (o *snapOut) flush() {
	if o.err == nil && len(o.buf) > 0 {
		var k int
		k, o.err = o.w.Write(o.buf)
		o.n += int64(k)
		if o.err == nil && k < len(o.buf) {
			o.err = io.ErrShortWrite
		}
	}
	o.buf = o.buf[:0]
}

// raw appends b to the output and to the section's CRC.
func (o *snapOut) raw(b []byte) {
	o.crc = crc32.Update(o.crc, castagnoli, b)
	o.left -= int64(len(b))
	for len(b) > 0 {
		if len(o.buf) == cap(o.buf) {
			o.flush()
		}
		k := min(len(b), cap(o.buf)-len(o.buf))
		o.buf = append(o.buf, b[:k]...)
		b = b[k:]
	}
}

func (o *snapOut) begin(tag string, n int64) {
	o.crc = 0
	var h [12]byte
	copy(h[:4], tag)
	binary.LittleEndian.PutUint64(h[4:], uint64(n))
	o.raw(h[:])
	o.left = n
}

func (o *snapOut) end() {
	if o.left != 0 {
		panic("checker: snapshot: a section's size is off by " + itoa(int(-o.left)))
	}
	crc := o.crc
	o.raw(binary.LittleEndian.AppendUint32(nil, crc))
}

// room makes space for n more bytes in the buffer (n is at most its capacity).
func (o *snapOut) room(n int) {
	if cap(o.buf)-len(o.buf) < n {
		o.flush()
	}
}

// put appends b, which the caller encoded into the buffer's spare room, to the CRC.
func (o *snapOut) put(start int) {
	b := o.buf[start:]
	o.crc = crc32.Update(o.crc, castagnoli, b)
	o.left -= int64(len(b))
}

func (o *snapOut) u64(v uint64) {
	o.room(8)
	start := len(o.buf)
	o.buf = binary.LittleEndian.AppendUint64(o.buf, v)
	o.put(start)
}

func (o *snapOut) bytes(b []byte) { o.raw(b) }

func (o *snapOut) u64s(s []uint64) {
	for len(s) > 0 {
		o.room(8)
		start := len(o.buf)
		k := min(len(s), (cap(o.buf)-len(o.buf))/8)
		for _, v := range s[:k] {
			o.buf = binary.LittleEndian.AppendUint64(o.buf, v)
		}
		o.put(start)
		s = s[k:]
	}
}

func (o *snapOut) u32s(s []uint32) {
	for len(s) > 0 {
		o.room(4)
		start := len(o.buf)
		k := min(len(s), (cap(o.buf)-len(o.buf))/4)
		for _, v := range s[:k] {
			o.buf = binary.LittleEndian.AppendUint32(o.buf, v)
		}
		o.put(start)
		s = s[k:]
	}
}

func (o *snapOut) u16s(s []uint16) {
	for len(s) > 0 {
		o.room(2)
		start := len(o.buf)
		k := min(len(s), (cap(o.buf)-len(o.buf))/2)
		for _, v := range s[:k] {
			o.buf = binary.LittleEndian.AppendUint16(o.buf, v)
		}
		o.put(start)
		s = s[k:]
	}
}

// ReadSnapshot reads a snapshot written by WriteTo from r, which holds size bytes. It
// checks the format, every section's CRC-32C and the snapshot's own consistency (indices
// within range, frontiers and tables of the sizes the counters say), and allocates nothing
// that the size of the input does not account for; whether the snapshot fits a model is
// checked by Check.
func ReadSnapshot(r io.Reader, size int64) (*Snapshot, error) {
	in := &snapIn{r: r, size: size, buf: make([]byte, max(16, min(1<<16, size)))}
	s, err := in.snapshot()
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	return s, nil
}

// snapIn reads a snapshot, keeping the CRC of the current section.
type snapIn struct {
	r    io.Reader
	size int64 // input bytes left
	left int64 // payload bytes left in the current section
	crc  uint32
	buf  []byte
	sec  string
	// version is the format version being read.
	version uint32
}

var errShort = errors.New("unexpected end of the data")

// read returns the next n bytes (n <= len(in.buf)), valid until the next read.
func (in *snapIn) read(n int) ([]byte, error) {
	if int64(n) > in.size {
		return nil, errShort
	}
	b := in.buf[:n]
	if _, err := io.ReadFull(in.r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errShort
		}
		return nil, err
	}
	in.size -= int64(n)
	in.crc = crc32.Update(in.crc, castagnoli, b)
	return b, nil
}

// take reads n payload bytes of the current section.
func (in *snapIn) take(n int) ([]byte, error) {
	if int64(n) > in.left {
		return nil, errors.New("section " + in.sec + ": its data runs past its length")
	}
	b, err := in.read(n)
	if err == nil {
		in.left -= int64(n)
	}
	return b, err
}

func (in *snapIn) u64() (uint64, error) {
	b, err := in.take(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// count reads a count of items of width bytes each and checks that they fit in the section.
func (in *snapIn) count(what string, width int64) (int, error) {
	v, err := in.u64()
	if err != nil {
		return 0, err
	}
	if v > uint64(in.left)/uint64(width) {
		return 0, fmt.Errorf("section %s: %s: %d items do not fit in its %d bytes left", in.sec, what, v, in.left)
	}
	return int(v), nil
}

func (in *snapIn) u64s(n int) ([]uint64, error) {
	s := make([]uint64, n)
	for i := 0; i < n; {
		k := min(n-i, len(in.buf)/8)
		b, err := in.take(8 * k)
		if err != nil {
			return nil, err
		}
		for j := range k {
			s[i+j] = binary.LittleEndian.Uint64(b[8*j:])
		}
		i += k
	}
	return s, nil
}

func (in *snapIn) u32s(n int) ([]uint32, error) {
	s := make([]uint32, n)
	for i := 0; i < n; {
		k := min(n-i, len(in.buf)/4)
		b, err := in.take(4 * k)
		if err != nil {
			return nil, err
		}
		for j := range k {
			s[i+j] = binary.LittleEndian.Uint32(b[4*j:])
		}
		i += k
	}
	return s, nil
}

func (in *snapIn) u16s(n int) ([]uint16, error) {
	s := make([]uint16, n)
	for i := 0; i < n; {
		k := min(n-i, len(in.buf)/2)
		b, err := in.take(2 * k)
		if err != nil {
			return nil, err
		}
		for j := range k {
			s[i+j] = binary.LittleEndian.Uint16(b[2*j:])
		}
		i += k
	}
	return s, nil
}

func (in *snapIn) bytes(n int) ([]byte, error) {
	s := make([]byte, n)
	for i := 0; i < n; {
		k := min(n-i, len(in.buf))
		b, err := in.take(k)
		if err != nil {
			return nil, err
		}
		copy(s[i:], b)
		i += k
	}
	return s, nil
}

// begin reads a section header and checks that it is the one expected.
func (in *snapIn) begin(tag string) error {
	in.crc = 0
	in.sec = tag
	b, err := in.read(12)
	if err != nil {
		return fmt.Errorf("section %s: header: %w", tag, err)
	}
	if got := string(b[:4]); got != tag {
		return fmt.Errorf("section %s: found %q in its place", tag, got)
	}
	n := binary.LittleEndian.Uint64(b[4:])
	if n > uint64(in.size) || uint64(in.size)-n < 4 {
		return fmt.Errorf("section %s: its length %d runs past the end of the data (%d bytes left)", tag, n, in.size)
	}
	in.left = int64(n)
	return nil
}

// end checks that the section was read in full and that its CRC matches.
func (in *snapIn) end() error {
	if in.left != 0 {
		return fmt.Errorf("section %s: %d bytes of its length were not used", in.sec, in.left)
	}
	want := in.crc
	b, err := in.read(4)
	if err != nil {
		return fmt.Errorf("section %s: checksum: %w", in.sec, err)
	}
	if got := binary.LittleEndian.Uint32(b); got != want {
		return fmt.Errorf("section %s: checksum mismatch (stored %08x, computed %08x)", in.sec, got, want)
	}
	return nil
}

func (in *snapIn) snapshot() (*Snapshot, error) {
	b, err := in.read(len(snapMagic) + 4)
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if string(b[:len(snapMagic)]) != snapMagic {
		return nil, errors.New("not a kmc snapshot (bad magic number)")
	}
	v := binary.LittleEndian.Uint32(b[len(snapMagic):])
	if v < snapOldest || v > snapVersion {
		if v < snapVersion {
			return nil, fmt.Errorf("format version %d, written by an older kmc; this kmc reads versions %d to %d: start the search over", v, snapOldest, snapVersion)
		}
		return nil, fmt.Errorf("format version %d, this kmc reads versions %d to %d", v, snapOldest, snapVersion)
	}
	in.version = v
	s := &Snapshot{set: &fpSet{}, cur: &frontier{}, next: &frontier{}}
	steps := []struct {
		tag  string
		read func(*Snapshot) error
	}{
		{"HEAD", in.readHead},
		{"SEEN", in.readSeen},
		{"PRNT", in.readParents},
		{"CURR", func(s *Snapshot) error { return in.readFrontier(s, s.cur, &s.curBase) }},
		{"NEXT", func(s *Snapshot) error { return in.readFrontier(s, s.next, &s.nextBase) }},
		{"LIVE", in.readLive},
		{"END_", func(*Snapshot) error { return nil }},
	}
	for _, st := range steps {
		if st.tag == "LIVE" && !s.rec {
			continue
		}
		if err := in.begin(st.tag); err != nil {
			return nil, err
		}
		if err := st.read(s); err != nil {
			if errors.Is(err, errShort) {
				return nil, fmt.Errorf("section %s: %w", st.tag, err)
			}
			return nil, err
		}
		if err := in.end(); err != nil {
			return nil, err
		}
	}
	if in.size != 0 {
		return nil, fmt.Errorf("%d bytes after the last section", in.size)
	}
	if err := s.valid(); err != nil {
		return nil, err
	}
	return s, nil
}

func (in *snapIn) readHead(s *Snapshot) error {
	var err error
	u64 := func() uint64 {
		var v uint64
		if err == nil {
			v, err = in.u64()
		}
		return v
	}
	boolean := func() bool {
		if err != nil {
			return false
		}
		var b []byte
		b, err = in.take(1)
		if err == nil && b[0] > 1 {
			err = errors.New("section HEAD: a flag is neither 0 nor 1")
		}
		return err == nil && b[0] == 1
	}
	strs := func(what string) []string {
		if err != nil {
			return nil
		}
		var n int
		if n, err = in.count(what, 8); err != nil {
			return nil
		}
		list := make([]string, 0, n)
		for range n {
			var k int
			if k, err = in.count(what, 1); err != nil {
				return nil
			}
			var b []byte
			if b, err = in.bytes(k); err != nil {
				return nil
			}
			list = append(list, string(b))
		}
		return list
	}
	small := func(v uint64, what string, limit uint64) uint64 {
		if err == nil && v > limit {
			err = fmt.Errorf("section HEAD: %s %d is out of range", what, v)
		}
		return v
	}
	s.Depth = int(small(u64(), "depth", maxState))
	s.Generated = int64(small(u64(), "states generated", 1<<62))
	s.Distinct = int64(small(u64(), "distinct states", maxGlobal))
	s.Expanded = int64(small(u64(), "states expanded", maxGlobal))
	s.queueExtra = int64(small(u64(), "states truncated at the depth bound", 1<<62))
	s.Elapsed = time.Duration(small(u64(), "elapsed time", 1<<62))
	s.best.found = boolean()
	s.best.step = boolean()
	s.best.idx = uint32(small(u64(), "violation state", maxState))
	s.best.pos = uint16(small(u64(), "violation position", 1<<16-1))
	prop := int64(u64())
	if err == nil && (prop < -1 || prop > 1<<20) {
		err = fmt.Errorf("section HEAD: violated property %d is out of range", prop)
	}
	s.best.prop = int(prop)
	sh := &s.shape
	sh.vars = strs("variables")
	sh.kinds = strs("action kinds")
	if err == nil {
		var n int
		if n, err = in.count("fairness", 1); err == nil {
			var b []byte
			if b, err = in.bytes(n); err == nil {
				for _, f := range b {
					if f > byte(Strong) {
						err = fmt.Errorf("section HEAD: fairness %d is out of range", f)
					}
					sh.fair = append(sh.fair, Fairness(f))
				}
			}
		}
	}
	sh.props = strs("properties")
	hasBounds := boolean()
	sh.bounds = strs("bounds")
	if hasBounds && sh.bounds == nil && err == nil {
		sh.bounds = []string{}
	}
	if !hasBounds && len(sh.bounds) > 0 && err == nil {
		err = errors.New("section HEAD: bounds listed for a search without cut steps")
	}
	if !hasBounds {
		sh.bounds = nil
	}
	sh.maxDepth = int(small(u64(), "max depth", maxState))
	sh.deadlock = boolean()
	sh.symmetry = boolean()
	sh.por = boolean()
	s.reduced = int64(small(u64(), "states reduced", maxState))
	s.proviso = int64(small(u64(), "states the proviso expanded", maxState))
	s.rec = boolean()
	if err == nil {
		var n int
		if n, err = in.count("sometimes properties", 1); err == nil {
			for range n {
				s.someHit = append(s.someHit, boolean())
			}
		}
	}
	s.orbits = int64(small(u64(), "class sizes", 1<<62))
	if in.version >= 4 {
		if err == nil {
			var b []byte
			if b, err = in.take(1); err == nil {
				s.counted = b[0]
				if s.counted&^(countTaken|countCoverage|countTally) != 0 {
					err = fmt.Errorf("section HEAD: counts flags %#x", s.counted)
				}
			}
		}
		for k := range s.taken {
			s.taken[k] = u64()
		}
		if err == nil {
			var n int
			if n, err = in.count("coverage counts", 8); err == nil {
				for range n {
					s.cov = append(s.cov, int64(small(u64(), "a coverage count", 1<<62)))
				}
			}
		}
		s.first = small(u64(), "first state's index", maxGlobal)
		s.wide = boolean()
		if err == nil && s.counted&countTally != 0 {
			var n int
			if n, err = in.count("the model's own counts", 8); err == nil {
				s.tallies = make([]uint64, 0, n)
				for range n {
					s.tallies = append(s.tallies, u64())
				}
			}
		}
	}
	if err == nil && s.counted&countCoverage == 0 && len(s.cov) > 0 {
		err = errors.New("section HEAD: coverage counts without the flag that says they were counted")
	}
	if err == nil && len(sh.fair) != len(sh.kinds) {
		err = fmt.Errorf("section HEAD: %d fairness levels for %d action kinds", len(sh.fair), len(sh.kinds))
	}
	s.Queue = s.Distinct - s.Expanded + s.queueExtra
	return err
}

func (in *snapIn) readSeen(s *Snapshot) error {
	n, err := in.u64()
	if err != nil {
		return err
	}
	if n != fpShards {
		return fmt.Errorf("section SEEN: %d shards, want %d", n, fpShards)
	}
	vals, err := in.u64()
	if err != nil {
		return err
	}
	if vals > 1 {
		return fmt.Errorf("section SEEN: values flag %d", vals)
	}
	s.set.vals = vals == 1
	for i := range s.set.shards {
		stored, err := in.count("shard "+itoa(i), s.set.slotBytes())
		if err != nil {
			return err
		}
		fps, err := in.u64s(stored)
		if err != nil {
			return err
		}
		var vs []uint32
		if s.set.vals {
			if vs, err = in.u32s(stored); err != nil {
				return err
			}
		}
		for j, f := range fps {
			if f == 0 || shardOf(f) != i {
				return fmt.Errorf("section SEEN: shard %d: fingerprint %d is %#x, of shard %d", i, j, f, shardOf(f))
			}
			if j > 0 && f <= fps[j-1] {
				return fmt.Errorf("section SEEN: shard %d: fingerprint %d is out of order", i, j)
			}
			if vs != nil && vs[j]&pendBit == 0 && int64(vs[j]) >= s.Distinct {
				return fmt.Errorf("section SEEN: shard %d: fingerprint %d: state %d beyond the %d distinct states", i, j, vs[j], s.Distinct)
			}
		}
		s.set.shards[i].load(fps, vs)
	}
	return nil
}

func (in *snapIn) readParents(s *Snapshot) error {
	width := int64(6)
	if s.wide {
		width = 10
	}
	n, err := in.count("parent links", width)
	if err != nil {
		return err
	}
	if int64(n) != s.Distinct {
		return fmt.Errorf("section PRNT: %d parent links for %d distinct states", n, s.Distinct)
	}
	if s.wide {
		if s.par64, err = in.u64s(n); err != nil {
			return err
		}
		if s.ppos, err = in.u16s(n); err != nil {
			return err
		}
		for i, p := range s.par64 {
			if p != noParent && (p < s.first || p >= s.first+uint64(i)) {
				return fmt.Errorf("section PRNT: state %d has parent %d, not an earlier state", s.first+uint64(i), p)
			}
		}
		return nil
	}
	parent, err := in.u32s(n)
	if err != nil {
		return err
	}
	ppos, err := in.u16s(n)
	if err != nil {
		return err
	}
	for i, p := range parent {
		if p != noIndex && p >= uint32(i) {
			return fmt.Errorf("section PRNT: state %d has parent %d, not an earlier state", i, p)
		}
	}
	l := linksOf(parent, ppos)
	s.links = &l
	return nil
}

func (in *snapIn) readFrontier(s *Snapshot, f *frontier, at *uint64) error {
	base, err := in.u64()
	if err != nil {
		return err
	}
	if !s.wide && base > maxState || base > s.first+maxGlobal {
		return fmt.Errorf("section %s: base %d is out of range", in.sec, base)
	}
	*at = base
	n, err := in.count("states", 8)
	if err != nil {
		return err
	}
	offs, err := in.u64s(n + 1)
	if err != nil {
		return err
	}
	if offs[0] != 0 {
		return fmt.Errorf("section %s: the first state starts at %d", in.sec, offs[0])
	}
	for k := 1; k <= n; k++ {
		if offs[k] < offs[k-1] {
			return fmt.Errorf("section %s: state %d ends before it starts", in.sec, k-1)
		}
	}
	if offs[n] > uint64(in.left) {
		return fmt.Errorf("section %s: its states need %d bytes, %d are left", in.sec, offs[n], in.left)
	}
	arena, err := in.bytes(int(offs[n]))
	if err != nil {
		return err
	}
	if s.wide {
		f.reset(0) // the global index is *at
	} else {
		f.reset(uint32(base))
	}
	for k := range n {
		f.add(arena[offs[k]:offs[k+1]])
	}
	return nil
}

func (in *snapIn) readLive(s *Snapshot) error {
	var err error
	count := func(what string, width int64) int {
		var n int
		if err == nil {
			n, err = in.count(what, width)
		}
		return n
	}
	u32s := func(n int) []uint32 {
		var v []uint32
		if err == nil {
			v, err = in.u32s(n)
		}
		return v
	}
	s.eoff = u32s(count("edge offsets", 4))
	ne := count("edges", 8)
	s.etgt = u32s(ne)
	s.ecode = u32s(ne)
	if n := count("action codes", 8); err == nil {
		s.codes, err = in.u64s(n)
	}
	np := count("property flags", 8)
	for range np {
		n := count("property flags", 1)
		if err == nil {
			var f []byte
			f, err = in.bytes(n)
			s.flags = append(s.flags, f)
		}
	}
	s.partial = u32s(count("truncated states", 4))
	nc := count("cut steps", 10)
	s.cutState = u32s(nc)
	s.cutCode = u32s(nc)
	if err == nil {
		s.cutBy, err = in.u16s(nc)
	}
	return err
}

// valid checks the snapshot's consistency (read back: its counters, frontiers and tables
// agree), so that the engine can take it over without checking every index it reads.
func (s *Snapshot) valid() error {
	bad := func(format string, args ...any) error { return fmt.Errorf("inconsistent: "+format, args...) }
	cur, next := s.cur, s.next
	switch {
	case s.Depth < 1:
		return bad("depth %d", s.Depth)
	case s.Expanded > s.Distinct:
		return bad("%d states expanded of %d", s.Expanded, s.Distinct)
	case !s.wide && (s.first != 0 || s.Distinct > maxState):
		return bad("%d states from state %d with 32-bit parent links", s.Distinct, s.first)
	case s.wide && (s.rec || s.best.found || s.set.vals):
		return bad("64-bit parent links in a search that records its graph, carries a violation or keeps indices in its set")
	case s.first+uint64(s.Distinct) > maxGlobal+1:
		return bad("%d states from state %d", s.Distinct, s.first)
	case s.curBase != s.first+uint64(s.Expanded):
		return bad("the level's rest starts at state %d, %d were expanded", s.curBase, s.Expanded)
	case s.nextBase != s.curBase+uint64(cur.n()):
		return bad("the next level starts at state %d, the current one ends at %d", s.nextBase, s.curBase+uint64(cur.n()))
	case s.nextBase+uint64(next.n()) != s.first+uint64(s.Distinct):
		return bad("the next level ends at state %d, %d are distinct", s.nextBase+uint64(next.n()), s.Distinct)
	case s.counted&countCoverage != 0 && len(s.cov) != 2*len(s.shape.kinds):
		return bad("%d coverage counts for %d action kinds", len(s.cov), len(s.shape.kinds))
	case s.best.found && int64(s.best.idx) >= s.Distinct:
		return bad("violation at state %d of %d", s.best.idx, s.Distinct)
	case s.best.found && !s.best.step:
		return bad("a state violation ends a search: it cannot be resumed")
	case s.best.found && s.best.prop >= len(s.shape.props):
		return bad("violated property %d of %d", s.best.prop, len(s.shape.props))
	case s.orbits != 0 && !s.shape.symmetry:
		return bad("class sizes counted in a search without symmetry")
	case s.Generated < s.Distinct:
		return bad("%d states generated, fewer than the %d distinct", s.Generated, s.Distinct)
	}
	n := 0
	for i := range s.set.shards {
		n += s.set.shards[i].n
	}
	if int64(n) < s.Distinct {
		return bad("%d fingerprints for %d distinct states", n, s.Distinct)
	}
	if !s.rec {
		return nil
	}
	switch {
	case int64(len(s.eoff)) != s.Expanded:
		return bad("edges recorded for %d states, %d were expanded", len(s.eoff), s.Expanded)
	case len(s.codes) >= 1<<32-1:
		return bad("%d action codes", len(s.codes))
	}
	prev := uint32(0)
	for v, o := range s.eoff {
		if o < prev || int(o) > len(s.etgt) {
			return bad("state %d's edges end at %d", v, o)
		}
		prev = o
	}
	for i, t := range s.etgt {
		if int64(t) >= s.Distinct {
			return bad("edge %d goes to state %d of %d", i, t, s.Distinct)
		}
		if int(s.ecode[i]) >= len(s.codes) {
			return bad("edge %d has action code %d of %d", i, s.ecode[i], len(s.codes))
		}
	}
	for j, f := range s.flags {
		if int64(len(f)) != s.Distinct {
			return bad("property %d has flags for %d states of %d", j, len(f), s.Distinct)
		}
	}
	for i, v := range s.partial {
		if int64(v) >= s.Expanded || (i > 0 && v <= s.partial[i-1]) {
			return bad("truncated state %d is out of order or not expanded", v)
		}
	}
	for i, v := range s.cutState {
		if int64(v) >= s.Expanded || (i > 0 && v < s.cutState[i-1]) {
			return bad("cut step %d is of state %d, out of order or not expanded", i, v)
		}
		if int(s.cutCode[i]) >= len(s.codes) || s.shape.bounds == nil || int(s.cutBy[i]) >= len(s.shape.bounds) {
			return bad("cut step %d has action code %d of %d, bound %d", i, s.cutCode[i], len(s.codes), s.cutBy[i])
		}
	}
	return nil
}

// narrow turns a wide snapshot of at most OneProcessStates states into one with 32-bit
// parent links numbered from 0, as the single-process engine keeps them.
func (s *Snapshot) narrow() {
	l := &parentLinks{}
	l.reserve(len(s.par64))
	for i, p := range s.par64 {
		if p == noParent {
			l.add(noIndex, s.ppos[i])
		} else {
			l.add(uint32(p-s.first), s.ppos[i])
		}
	}
	s.links, s.par64, s.ppos = l, nil, nil
	s.cur.base, s.next.base = uint32(s.curBase-s.first), uint32(s.nextBase-s.first)
	s.curBase, s.nextBase, s.first, s.wide = s.curBase-s.first, s.nextBase-s.first, 0, false
}

// counts is what of the steps taken e's search has counted so far, for a snapshot (see
// Snapshot.counted): the kinds taken and, with Options.Coverage, the per-kind counts, the
// resumed snapshot's included.
func (e *engine[S]) counts() (byte, [4]uint64, []int64, []uint64) {
	c := e.counting()
	var tallies []uint64
	if c&countTally != 0 {
		tallies = e.tallies()
	}
	var taken [4]uint64
	var cov []int64
	if c&countTaken != 0 {
		taken = e.taken0
		for k, t := range e.taken() {
			if t && k < 256 {
				taken[k>>6] |= 1 << (k & 63)
			}
		}
	}
	if c&countCoverage != 0 {
		for _, kc := range e.coverage() {
			cov = append(cov, kc.Enabled, kc.Taken)
		}
	}
	return c, taken, cov, tallies
}

// tallies are the model's own counts (Tallier) through e's search so far, the resumed
// snapshot's included.
func (e *engine[S]) tallies() []uint64 {
	e.tallySum = addTallies(e.tallySum, e.tallyIn.take())
	return addTallies(addTallies(nil, e.tally0), e.tallySum)
}

// counting says what of the steps taken e's search counts through its whole run: the kinds
// taken with Options.Vacuity or Coverage, the per-kind counts with Coverage, and after a
// resume only what the snapshot counted too.
func (e *engine[S]) counting() byte {
	c := byte(0)
	if e.opts.Vacuity || e.opts.Coverage {
		c |= countTaken
	}
	if e.opts.Coverage {
		c |= countCoverage
	}
	if e.tallyIn != nil {
		c |= countTally
	}
	if e.opts.Resume != nil {
		c &= e.counted
		if e.opts.Coverage && e.counted&countCoverage == 0 {
			c &^= countTally // counted without Coverage: not counts to add to a search's with it
		}
	}
	return c
}

// release drops the snapshot's tables, which an engine has taken over: the snapshot must
// not keep their first copies alive once the engine grows them.
func (s *Snapshot) release() {
	s.set, s.links, s.cur, s.next, s.par64, s.ppos = nil, nil, nil, nil, nil, nil
	s.eoff, s.etgt, s.ecode, s.codes, s.flags = nil, nil, nil, nil, nil
	s.partial, s.cutState, s.cutCode, s.cutBy = nil, nil, nil, nil
}

// restore takes snapshot s over: e's tables become its tables, cur and next its frontiers,
// p its position. It returns why s cannot be resumed by this search, or "".
func (e *engine[S]) restore(s *Snapshot, cur, next *frontier, p *searchPos) string {
	switch {
	case s.view:
		return "the snapshot is a view of a search under way; write it and read it back"
	case s.used:
		return "the snapshot was resumed already; read it again"
	}
	if d := s.shape.diff(e.shape()); d != "" {
		return "the snapshot is of another search: " + d
	}
	if len(s.someHit) != len(e.some) || s.rec != e.rec || len(s.flags) != len(e.live) {
		return "the snapshot is of another search: its properties differ"
	}
	if s.counted&countTally != 0 && e.tallyIn != nil && len(s.tallies) != len(e.tallyIn.last) {
		return fmt.Sprintf("the snapshot is of another search: it holds %d counts of the model's own, the model keeps %d", len(s.tallies), len(e.tallyIn.last))
	}
	if err := s.OneProcess(); err != nil && !e.wideOK {
		return err.Error()
	}
	if s.wide && !e.wideOK {
		s.narrow()
	}
	s.used = true
	e.set = *s.set
	if !s.wide {
		e.links = *s.links
	}
	*cur, *next = *s.cur, *s.next
	e.counted, e.taken0, e.cov0, e.tally0 = s.counted, s.taken, s.cov, s.tallies
	e.generated, e.distinct, e.orbits = s.Generated, s.Distinct, s.orbits
	e.reduced0, e.proviso0 = s.reduced, s.proviso
	*p = searchPos{depth: s.Depth, queueExtra: s.queueExtra, best: s.best}
	for i, h := range s.someHit {
		e.someHit[i].Store(h)
	}
	if e.rec {
		e.es.fromArrays(s.eoff, s.etgt, s.ecode)
		e.flags, e.partial = s.flags, s.partial
		e.cutState, e.cutCode, e.cutBy = s.cutState, s.cutCode, s.cutBy
		for i, c := range s.codes {
			if e.codes.id(c) != uint32(i) {
				return "the snapshot's action code table lists " + e.m.ActionName(c) + " twice"
			}
		}
	}
	e.start = e.start.Add(-s.Elapsed)
	s.release()
	// The initial states must be stored, with no parent: a check that the snapshot's
	// fingerprints are this model's.
	var enc []byte
	for i := range e.inits {
		v, _, b := e.lookupState(e.inits[i], enc)
		enc = b
		if v == noIndex || (e.set.vals && e.links.parent(v) != noIndex) {
			return "initial state " + itoa(i+1) + " of the model is not an initial state of the snapshot: it is of another model or configuration"
		}
	}
	if why := e.checkStates(cur); why != "" {
		return why
	}
	return e.checkStates(next)
}

// checkStates checks the states of frontier fr, read from a snapshot, before the search
// decodes them: each must decode (CheckedDecoder; else Decode, whose panic is an error),
// encode back to its own bytes, and be a state of the snapshot's set, the one of its index
// where the set keeps indices. It returns why one is not, or "".
func (e *engine[S]) checkStates(fr *frontier) string {
	dec, _ := any(e.m).(CheckedDecoder[S])
	var s S
	var enc []byte
	why := ""
	err := fr.each(0, func(k int, b []byte) {
		if why != "" {
			return
		}
		idx := int(fr.base) + k
		name := "state " + itoa(idx) + " of the snapshot's frontier"
		if err := decodeUntrusted(e.m, dec, b, &s); err != nil {
			why = name + " does not decode: " + err.Error()
			return
		}
		enc = e.m.Encode(&s, enc[:0])
		if string(enc) != string(b) {
			why = name + " does not encode back to its bytes: it is not a state of this model"
			return
		}
		v, ok := e.set.lookup(e.fp(enc))
		switch {
		case !ok:
			why = name + " is not a state of the snapshot (its fingerprint is not in the set)"
		case e.set.vals && v != uint32(idx):
			why = name + " is state " + itoa(int(v&^pendBit)) + " of the snapshot"
		}
	})
	if err != nil {
		return "frontier: " + err.Error()
	}
	return why
}

// decodeUntrusted decodes bytes from outside the engine into s: with the model's
// DecodeChecked when it has one, else with Decode, whose panic it returns as an error.
func decodeUntrusted[S any](m Model[S], dec CheckedDecoder[S], b []byte, s *S) (err error) {
	if dec != nil {
		return dec.DecodeChecked(b, s)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	m.Decode(b, s)
	return nil
}
