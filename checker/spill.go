package checker

import (
	"bufio"
	"errors"
	"hash/crc32"
	"os"
	"strconv"
)

// Spilling. When the liveness graph's stream outgrows its share of the memory budget
// (Options.SpillBytes, by default a quarter of Options.MemoryBytes), the part in memory is
// appended to a temporary file in Options.SpillDir ("": the OS temp dir), in frames of at
// most spillFrame bytes. The file holds the frames' payloads back to back, so that it is
// exactly the stream's prefix (already compressed: varint deltas, see edges.go); each
// frame's length and CRC-32 (Castagnoli) stay in memory, 8 bytes a frame. Frames are written
// in stream order and only appended, so that spilling is one sequential write.
//
// When the search is over, load appends the part of the stream still in memory as the last
// frames, maps the file read-only (mapFile: Unix; elsewhere it reads the file back into
// memory) and checks every frame's checksum in one sequential pass, handing each checked
// frame's pages back (dropPages: they are clean file pages, read again from the page cache
// or the disk when the component search touches them, so that they count in the resident
// size only while in use). The component search then reads the mapping as the stream: the
// liveness phase is bounded by the disk, not by memory, and the mapping is no part of what
// the engine holds (edgeStore.bytes). A frame that does not match its checksum, or a file
// shorter than the frames, is an error naming the frame, never a wrong graph.
//
// The file is unlinked as soon as it is created where the OS allows it (Unix), so that
// nothing is left behind even if the process dies; close unmaps it and removes it otherwise.
//
// Invariants:
//  1. The file's first written bytes are the stream's bytes [0, base), the frames' lengths
//     add up to written == base, and every frame but the last spilled is spillFrame bytes
//     long or ends where a spill ended.
//  2. After load, data is the whole stream (base 0), read from the mapping when mapped is
//     set and from a copy in memory otherwise; nothing is spilled any more.

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// spillFrame is the largest frame: the unit of checking.
const spillFrame = 64 << 20

// verifyPiece is how much of the mapping the check reads before it hands the pages back.
const verifyPiece = 4 << 20

// frame is one spilled frame: its length and checksum.
type frame struct {
	n   uint32
	crc uint32
}

// graphSpill is the file the stream spills to.
type graphSpill struct {
	f        *os.File
	name     string // removed by close unless unlinked already
	w        *bufio.Writer
	frames   []frame
	written  int64
	mapping  []byte // the file mapped read-only, after load
	released int    // releaseTo has handed the mapping's pages before this offset back
}

// spillLimit is the size in memory above which the frontier, and the liveness graph's
// stream, spill to disk (Options.SpillBytes), or 0 for never.
func (e *engine[S]) spillLimit() int64 {
	switch {
	case e.opts.SpillBytes < 0:
		return 0
	case e.opts.SpillBytes > 0:
		return e.opts.SpillBytes
	}
	return max(e.opts.MemoryBytes/4, 0)
}

// spillShare is the stream size above which the engine spills the liveness graph, or 0 for
// never. A search that takes checkpoints never spills it (a checkpoint holds the whole
// graph), unless they can be skipped (Options.CheckpointSkippable): then it takes none once
// the graph has spilled (canCheckpoint).
func (e *engine[S]) spillShare() int64 {
	if e.opts.Checkpoint != nil && !e.opts.CheckpointSkippable {
		return 0
	}
	return e.spillLimit()
}

// canCheckpoint reports whether the search takes checkpoints now: it has Options.Checkpoint,
// and no liveness graph of it has spilled to disk.
func (e *engine[S]) canCheckpoint() bool {
	return e.opts.Checkpoint != nil && !(e.rec && e.es.base > 0)
}

func spillErr(err error) error { return errors.New("liveness graph: spill: " + err.Error()) }

// spillOut writes the stream's part in memory to the spill file and drops it from memory.
func (s *edgeStore) spillOut(dir string) error {
	if len(s.data) == 0 {
		return nil
	}
	if s.spill == nil {
		f, err := os.CreateTemp(dir, "kmc-graph-"+strconv.Itoa(os.Getpid())+"-*.bin") // the pid: see spillFile.write
		if err != nil {
			return spillErr(err)
		}
		sf := &graphSpill{f: f, name: f.Name(), w: bufio.NewWriterSize(f, 1<<20)}
		if os.Remove(sf.name) == nil {
			sf.name = ""
		}
		s.spill = sf
	}
	sf := s.spill
	for len(s.data) > 0 {
		n := min(len(s.data), spillFrame)
		if _, err := sf.w.Write(s.data[:n]); err != nil {
			return spillErr(err)
		}
		sf.frames = append(sf.frames, frame{n: uint32(n), crc: crc32.Checksum(s.data[:n], crcTable)})
		sf.written += int64(n)
		s.spilled += int64(n)
		s.base += uint64(n)
		s.data = s.data[n:]
	}
	s.data = s.data[:0:0]
	return nil
}

// load makes the whole stream readable as s.data: unless nothing was spilled, it spills the
// rest, maps the file (or reads it back) and checks every frame. The file stays open, and
// mapped, until close.
func (s *edgeStore) load() error {
	sf := s.spill
	if sf == nil || sf.mapping != nil {
		return nil
	}
	if err := s.spillOut(""); err != nil {
		return err
	}
	if err := sf.w.Flush(); err != nil {
		return spillErr(err)
	}
	fi, err := sf.f.Stat()
	if err != nil {
		return spillErr(err)
	}
	if fi.Size() < sf.written {
		return spillErr(errors.New(sf.frameAt(fi.Size()) + ": the file ends at byte " + strconv.FormatInt(fi.Size(), 10)))
	}
	if sf.written != int64(int(sf.written)) {
		return spillErr(errors.New("the stream's " + strconv.FormatInt(sf.written, 10) + " bytes do not fit in the address space"))
	}
	m, err := mapFile(sf.f, int(sf.written))
	if err != nil {
		return spillErr(err)
	}
	sf.mapping = m
	if err := sf.verify(); err != nil {
		return err
	}
	s.data, s.base = m, 0
	return nil
}

// frameAt names the frame that holds stream byte at, for an error.
func (sf *graphSpill) frameAt(at int64) string {
	var lo int64
	for k, fr := range sf.frames {
		if hi := lo + int64(fr.n); at < hi || k == len(sf.frames)-1 {
			return sf.frameName(k, lo)
		}
		lo += int64(fr.n)
	}
	return "no frame"
}

func (sf *graphSpill) frameName(k int, lo int64) string {
	return "frame " + strconv.Itoa(k+1) + " of " + strconv.Itoa(len(sf.frames)) + " (stream bytes " +
		strconv.FormatInt(lo, 10) + " to " + strconv.FormatInt(lo+int64(sf.frames[k].n), 10) + ")"
}

// verify checks every frame of the mapping against its checksum, in one sequential pass,
// and hands the checked pages back.
func (sf *graphSpill) verify() error {
	m := sf.mapping
	page := int64(os.Getpagesize())
	var lo, dropped int64
	for k, fr := range sf.frames {
		hi := lo + int64(fr.n)
		// A piece at a time, handing the pages read back behind it, so that the pass keeps
		// at most verifyPiece bytes of the mapping resident (mapWindow).
		var crc uint32
		for a := lo; a < hi; a += verifyPiece {
			b := min(a+verifyPiece, hi)
			crc = crc32.Update(crc, crcTable, m[a:b])
			if end := b / page * page; end > dropped {
				dropPages(m[dropped:end])
				dropped = end
			}
		}
		if crc != fr.crc {
			return spillErr(errors.New(sf.frameName(k, lo) + ": checksum mismatch"))
		}
		lo = hi
	}
	dropPages(m[dropped:])
	return nil
}

// close unmaps and removes the spill file, if any. The stream's spilled part is lost.
func (s *edgeStore) close() {
	sf := s.spill
	if sf == nil {
		return
	}
	s.spill = nil
	if sf.mapping != nil {
		s.data = nil
		unmapFile(sf.mapping)
		sf.mapping = nil
	}
	sf.f.Close()
	if sf.name != "" {
		os.Remove(sf.name)
	}
}

// releaseTo hands the pages of the mapping before stream offset p back (see dropPages),
// from where the last call left off: a pass through the stream in order calls it as it
// goes, so that what it read leaves the resident set behind it.
func (s *edgeStore) releaseTo(p int) {
	if !s.mapped() {
		return
	}
	sf := s.spill
	if p >= len(s.data) {
		p = len(s.data)
	} else {
		p = p / os.Getpagesize() * os.Getpagesize()
	}
	if p > sf.released {
		dropPages(s.data[sf.released:p])
		sf.released = p
	}
}

// releaseAll hands every page of the mapping back, after a pass through the stream, or
// searches that read it out of order.
func (s *edgeStore) releaseAll() {
	if s.mapped() {
		dropPages(s.data)
		s.spill.released = 0
	}
}

// mapped reports whether s.data is the spill file's mapping rather than memory the engine
// holds.
func (s *edgeStore) mapped() bool { return s.spill != nil && s.spill.mapping != nil && mapsFiles }

// spilledBytes is the size of the stream's part on disk.
func (s *edgeStore) spilledBytes() int64 {
	return s.spilled
}
