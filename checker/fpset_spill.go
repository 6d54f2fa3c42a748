package checker

import (
	"bufio"
	"errors"
	"hash/crc32"
	"os"
	"strconv"
	"unsafe"
)

// Spilling the fingerprint set for the liveness phase. Once a search that records the
// liveness graph is over, the set is read only to replay a counterexample (lookupState
// checks each state's index), a handful of lookups. When the liveness phase's arrays
// (liveBytes) would not fit in the memory budget beside it, the set goes to disk: every
// shard's tables are written, as they are in memory, to a temporary file in the spill
// folder, which is mapped read-only (clean file pages the kernel reads in when touched and
// may drop again) and checked against a CRC-32C per shard in one sequential pass; the shards
// then read their tables from the mapping. So a liveness check holds its set and its
// liveness arrays one after the other, not together, and the budget bounds the larger
// of the two phases rather than their sum (memory.go). Only where files are mapped (Unix):
// elsewhere the set stays in memory and the budget counts both.
//
// The file is unlinked as soon as it is created where the OS allows it, so that nothing is
// left behind even if the process dies; closeSpill unmaps it and removes it otherwise.
// After spillOut the set takes no insertion: the search is over.

// setSpill is the file the fingerprint set was written to.
type setSpill struct {
	f       *os.File
	name    string // removed by closeSpill unless unlinked already
	mapping []byte
	size    int64
}

// spilled reports whether the set's tables are read from its spill file's mapping.
func (s *fpSet) spilled() bool { return s.file != nil }

func setSpillErr(err error) error { return errors.New("fingerprint set: spill: " + err.Error()) }

// spillOut writes the set to a temporary file in dir ("": the OS temp dir), maps it and
// points the shards at the mapping; the tables in memory are let go. On an error the set is
// as it was, in memory.
func (s *fpSet) spillOut(dir string) error {
	if s.file != nil || !mapsFiles {
		return nil
	}
	f, err := os.CreateTemp(dir, "kmc-set-"+strconv.Itoa(os.Getpid())+"-*.bin")
	if err != nil {
		return setSpillErr(err)
	}
	sp := &setSpill{f: f, name: f.Name()}
	if os.Remove(sp.name) == nil {
		sp.name = ""
	}
	fail := func(err error) error {
		sp.close()
		return setSpillErr(err)
	}
	// Shard i's fingerprints at offs[i], its values after them, padded to 8 bytes, so that
	// every table starts on an 8-byte boundary of the page-aligned mapping.
	var offs [fpShards]int64
	var crcs [fpShards]uint32
	w := bufio.NewWriterSize(f, 1<<20)
	var pad [8]byte
	for i := range s.shards {
		sh := &s.shards[i]
		offs[i] = sp.size
		fb := u64Bytes(sh.fps)
		vb := u32Bytes(sh.vals)
		crc := crc32.Update(crc32.Update(0, crcTable, fb), crcTable, vb)
		crcs[i] = crc
		for _, b := range [][]byte{fb, vb, pad[:(8-len(vb)%8)%8]} {
			if _, err := w.Write(b); err != nil {
				return fail(err)
			}
			sp.size += int64(len(b))
		}
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	if sp.size != int64(int(sp.size)) {
		return fail(errors.New("its " + strconv.FormatInt(sp.size, 10) + " bytes do not fit in the address space"))
	}
	m, err := mapFile(f, int(sp.size))
	if err != nil {
		return fail(err)
	}
	sp.mapping = m
	page := int64(os.Getpagesize())
	dropped := int64(0)
	for i := range s.shards {
		sh := &s.shards[i]
		off := offs[i]
		fb := m[off : off+8*int64(len(sh.fps))]
		vb := m[off+int64(len(fb)) : off+int64(len(fb))+4*int64(len(sh.vals))]
		if crc32.Update(crc32.Update(0, crcTable, fb), crcTable, vb) != crcs[i] {
			return fail(errors.New("shard " + strconv.Itoa(i) + " at byte " + strconv.FormatInt(off, 10) + " does not match its checksum"))
		}
		// The pages checked need not stay resident: the set in memory and its mapping are
		// both held only for the length of a shard.
		if end := (off + int64(len(fb)+len(vb))) / page * page; end > dropped {
			dropPages(m[dropped:end])
			dropped = end
		}
	}
	dropPages(m[dropped:])
	for i := range s.shards {
		sh := &s.shards[i]
		off := offs[i]
		if len(sh.fps) > 0 {
			sh.fps = unsafe.Slice((*uint64)(unsafe.Pointer(&m[off])), len(sh.fps))
		}
		if len(sh.vals) > 0 {
			off += 8 * int64(len(sh.fps))
			sh.vals = unsafe.Slice((*uint32)(unsafe.Pointer(&m[off])), len(sh.vals))
		}
	}
	s.file = sp
	return nil
}

// closeSpill unmaps and removes the set's spill file, if any; the set is empty after it.
func (s *fpSet) closeSpill() {
	if s.file == nil {
		return
	}
	for i := range s.shards {
		s.shards[i] = fpShard{}
	}
	s.file.close()
	s.file = nil
}

func (sp *setSpill) close() {
	if sp.mapping != nil {
		unmapFile(sp.mapping)
		sp.mapping = nil
	}
	sp.f.Close()
	if sp.name != "" {
		os.Remove(sp.name)
	}
}

// u64Bytes and u32Bytes are the bytes of a table in memory, in the machine's byte order (the
// file is read back only by the process that wrote it).
func u64Bytes(v []uint64) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*len(v))
}

func u32Bytes(v []uint32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
}
