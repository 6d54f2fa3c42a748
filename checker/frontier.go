package checker

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"strconv"
)

// frontier is one BFS level: the encodings of its states in index order, in blocks of per
// states (a segment covers whole blocks). A block holds
// its states back to back and where each ends (4 bytes a state). When a spill file is set
// (a memory budget), blocks that are full can be written to it, compressed and checksummed,
// and read back when the search reaches them; blocks already expanded are let go.
//
// Invariants:
//  1. Every block but the last holds per states; n is the sum.
//  2. A block is in memory (arena and ends), on disk (spilled, with off, clen, crc), or
//     both (a spilled block read back); a block let go (done) is neither and is never read.
//  3. mem is the memory of the blocks in memory and of the pool.
type frontier struct {
	base   uint32 // index of state 0
	per    int
	nst    int
	blocks []fblock
	mem    int64
	pool   []fblock // buffers of blocks let go, for reuse
	sp     *spillFile
}

type fblock struct {
	arena   []byte
	ends    []uint32 // state k of the block is arena[ends[k-1]:ends[k]] (from 0 for k = 0)
	n       int      // states
	raw     int64    // bytes of the encodings
	spilled bool
	done    bool
	off     int64 // on disk: where, how long compressed, and the CRC-32C of the compressed bytes
	clen    int64
	crc     uint32
}

// blockStates is the number of states of a frontier block: at most 1024, and a divisor of
// segmentStates, so that a segment covers whole blocks.
func blockStates() int {
	if segmentStates > 1024 && segmentStates%1024 == 0 {
		return 1024
	}
	return max(segmentStates, 1)
}

func (b *fblock) inMem() bool { return b.ends != nil }

func (b *fblock) memBytes() int64 { return int64(cap(b.arena)) + 4*int64(cap(b.ends)) }

// reset empties f for the level that starts at state index base; its spill file is emptied.
func (f *frontier) reset(base uint32) {
	for i := range f.blocks {
		f.letGo(&f.blocks[i])
	}
	f.blocks = f.blocks[:0]
	f.base, f.per, f.nst = base, blockStates(), 0
	if f.sp != nil {
		f.sp.truncate()
	}
}

func (f *frontier) n() int { return f.nst }

// state returns the encoding of state k, whose block must be in memory.
func (f *frontier) state(k int) []byte {
	b := &f.blocks[k/f.per]
	j := k % f.per
	start := uint32(0)
	if j > 0 {
		start = b.ends[j-1]
	}
	return b.arena[start:b.ends[j]]
}

// add appends a state.
func (f *frontier) add(enc []byte) {
	if len(f.blocks) == 0 || f.blocks[len(f.blocks)-1].n == f.per {
		hint := int64(0)
		if len(f.blocks) > 0 {
			hint = f.blocks[len(f.blocks)-1].raw
		}
		f.blocks = append(f.blocks, f.newBlock(hint))
	}
	b := &f.blocks[len(f.blocks)-1]
	if uint64(len(b.arena))+uint64(len(enc)) >= 1<<32 {
		panic("checker: a frontier block of more than 4 GiB of encodings")
	}
	c0, e0 := cap(b.arena), cap(b.ends)
	b.arena = append(b.arena, enc...)
	b.ends = append(b.ends, uint32(len(b.arena)))
	b.n++
	b.raw += int64(len(enc))
	f.nst++
	f.mem += int64(cap(b.arena)-c0) + 4*int64(cap(b.ends)-e0)
}

// newBlock returns an empty block, with the buffers of one let go if there is one, else
// with room for about hint bytes of encodings (the previous block's).
func (f *frontier) newBlock(hint int64) fblock {
	if k := len(f.pool); k > 0 {
		b := f.pool[k-1]
		f.pool = f.pool[:k-1]
		return fblock{arena: b.arena[:0], ends: b.ends[:0]}
	}
	hint += hint / 16
	f.mem += 4*int64(f.per) + hint
	return fblock{arena: make([]byte, 0, hint), ends: make([]uint32, 0, f.per)}
}

// letGo drops b's buffers, into the pool if it has room.
func (f *frontier) letGo(b *fblock) {
	if !b.inMem() {
		return
	}
	if len(f.pool) < 64 {
		f.pool = append(f.pool, fblock{arena: b.arena, ends: b.ends})
	} else {
		f.mem -= b.memBytes()
	}
	b.arena, b.ends = nil, nil
}

// growBytes is an upper bound on what adding n states of arena bytes allocates.
func (f *frontier) growBytes(arena, n int) int64 {
	return 2*int64(arena) + 4*int64(n+f.per) + 1024
}

// bytes is the memory held by the blocks in memory.
func (f *frontier) bytes() int64 { return f.mem }

// done lets the blocks before state k go: they have been expanded.
func (f *frontier) done(k int) {
	for i := 0; i < k/f.per && i < len(f.blocks); i++ {
		b := &f.blocks[i]
		if !b.done {
			f.letGo(b)
			b.done = true
		}
	}
}

// load brings the blocks of states [lo, hi) into memory.
func (f *frontier) load(lo, hi int) error {
	for i := lo / f.per; i*f.per < hi; i++ {
		b := &f.blocks[i]
		if b.inMem() {
			continue
		}
		if b.done || !b.spilled {
			panic("checker: frontier: block " + itoa(i) + " is gone")
		}
		nb := f.newBlock(b.raw)
		c0 := nb.memBytes()
		arena, ends, err := f.sp.read(b, nb.arena, nb.ends)
		if err != nil {
			f.pool = append(f.pool, nb)
			return err
		}
		b.arena, b.ends = arena, ends
		f.mem += b.memBytes() - c0
	}
	return nil
}

// spill writes full blocks in memory to the spill file, the first ones first, until f holds
// at most limit bytes (or only its last block).
func (f *frontier) spill(limit int64) error {
	if f.sp == nil {
		return nil
	}
	for i := range f.blocks {
		if f.mem <= limit {
			return nil
		}
		b := &f.blocks[i]
		if b.n < f.per || !b.inMem() || b.done {
			continue
		}
		if !b.spilled {
			if err := f.sp.write(b); err != nil {
				return err
			}
			b.spilled = true
		}
		f.letGo(b)
	}
	return nil
}

// each calls fn with every state from k = lo on, reading blocks on disk as it goes and
// letting go of the ones it read.
func (f *frontier) each(lo int, fn func(k int, enc []byte)) error {
	for k := lo; k < f.nst; {
		i := k / f.per
		b := &f.blocks[i]
		hi := min((i+1)*f.per, f.nst)
		loaded := !b.inMem()
		if loaded {
			if err := f.load(k, hi); err != nil {
				return err
			}
		}
		for ; k < hi; k++ {
			fn(k, f.state(k))
		}
		if loaded {
			f.letGo(b)
		}
	}
	return nil
}

// size is the number of bytes of the encodings of the states from lo on.
func (f *frontier) size(lo int) int64 {
	var n int64
	for k := lo; k < f.nst; {
		i := k / f.per
		b := &f.blocks[i]
		hi := min((i+1)*f.per, f.nst)
		if k == i*f.per {
			n += b.raw
		} else {
			if err := f.load(k, hi); err != nil {
				return -1
			}
			n += int64(b.ends[b.n-1] - b.ends[k-i*f.per-1])
		}
		k = hi
	}
	return n
}

// free lets every block in memory and the pool go: f's states are no longer read (the
// search is over and the liveness phase does not need them).
func (f *frontier) free() {
	f.blocks, f.pool, f.mem = nil, nil, 0
}

// close removes f's spill file.
func (f *frontier) close() {
	if f.sp != nil {
		f.sp.close()
		f.sp = nil
	}
}

// spillFile is where a frontier's blocks go when they do not fit in its share of the memory
// budget: a temporary file, created when first needed, written sequentially, each block a
// deflate stream of its state lengths (uvarints) and encodings, checksummed. It is emptied
// when its frontier is reset for a new level and removed when the search ends.
type spillFile struct {
	dir string
	f   *os.File
	// unlinked: f's name was removed when it was created (it lives while open).
	unlinked bool
	size     int64
	total    *int64 // adds up the bytes written, when not nil
	zw       *flate.Writer
	zr       io.ReadCloser
	buf      bytes.Buffer
	rbuf     []byte
	tmp      []byte
	br       byteReader
}

func (s *spillFile) write(b *fblock) error {
	if s.f == nil {
		// The name carries the pid, so that a later run can tell a file left by a process
		// that is gone (kmc removes those: fsx.RemoveStale); the file is unlinked at once
		// where the system allows it (Unix: it lives while open, and nothing is left
		// behind whatever ends the process), else removed by close.
		f, err := os.CreateTemp(s.dir, "kmc-frontier-"+strconv.Itoa(os.Getpid())+"-*.spill")
		if err != nil {
			return err
		}
		s.f = f
		if os.Remove(f.Name()) == nil {
			s.unlinked = true
		}
	}
	s.buf.Reset()
	if s.zw == nil {
		zw, err := flate.NewWriter(&s.buf, flate.BestSpeed)
		if err != nil {
			return err
		}
		s.zw = zw
	} else {
		s.zw.Reset(&s.buf)
	}
	s.tmp = s.tmp[:0]
	prev := uint32(0)
	for _, e := range b.ends[:b.n] {
		s.tmp = binary.AppendUvarint(s.tmp, uint64(e-prev))
		prev = e
	}
	if _, err := s.zw.Write(s.tmp); err != nil {
		return err
	}
	if _, err := s.zw.Write(b.arena[:prev]); err != nil {
		return err
	}
	if err := s.zw.Close(); err != nil {
		return err
	}
	if _, err := s.f.WriteAt(s.buf.Bytes(), s.size); err != nil {
		return err
	}
	b.off, b.clen = s.size, int64(s.buf.Len())
	b.crc = crc32.Checksum(s.buf.Bytes(), castagnoli)
	s.size += b.clen
	if s.total != nil {
		*s.total += b.clen
	}
	return nil
}

// errSpillCorrupt reports a block read back that is not what was written.
var errSpillCorrupt = errors.New("frontier spill file: a block read back does not match its checksum")

// read reads block b back into arena and ends (reused buffers).
func (s *spillFile) read(b *fblock, arena []byte, ends []uint32) ([]byte, []uint32, error) {
	if int64(cap(s.rbuf)) < b.clen {
		s.rbuf = make([]byte, b.clen)
	}
	buf := s.rbuf[:b.clen]
	if _, err := s.f.ReadAt(buf, b.off); err != nil {
		return nil, nil, err
	}
	if crc32.Checksum(buf, castagnoli) != b.crc {
		return nil, nil, errSpillCorrupt
	}
	r := bytes.NewReader(buf)
	if s.zr == nil {
		s.zr = flate.NewReader(r)
	} else if err := s.zr.(flate.Resetter).Reset(r, nil); err != nil {
		return nil, nil, err
	}
	br := &s.br
	br.r, br.i, br.n = s.zr, 0, 0
	ends = ends[:0]
	end := uint32(0)
	for range b.n {
		l, err := binary.ReadUvarint(br)
		if err != nil {
			return nil, nil, err
		}
		end += uint32(l)
		ends = append(ends, end)
	}
	if int64(cap(arena)) < int64(end) {
		arena = make([]byte, end)
	}
	arena = arena[:end]
	if _, err := io.ReadFull(br, arena); err != nil {
		return nil, nil, err
	}
	return arena, ends, nil
}

// byteReader reads single bytes (for the uvarints) and blocks from r, through a small buffer.
type byteReader struct {
	r    io.Reader
	buf  [4096]byte
	i, n int
}

func (br *byteReader) fill() error {
	n, err := br.r.Read(br.buf[:])
	br.i, br.n = 0, n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

func (br *byteReader) ReadByte() (byte, error) {
	if br.i == br.n {
		if err := br.fill(); err != nil {
			return 0, err
		}
	}
	c := br.buf[br.i]
	br.i++
	return c, nil
}

func (br *byteReader) Read(p []byte) (int, error) {
	if br.i == br.n {
		if err := br.fill(); err != nil {
			return 0, err
		}
	}
	k := copy(p, br.buf[br.i:br.n])
	br.i += k
	return k, nil
}

func (s *spillFile) truncate() {
	if s.f != nil {
		s.f.Truncate(0)
	}
	s.size = 0
}

func (s *spillFile) close() {
	if s.f != nil {
		name := s.f.Name()
		s.f.Close()
		if !s.unlinked {
			os.Remove(name)
		}
		s.f, s.unlinked = nil, false
	}
}
