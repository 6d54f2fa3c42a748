package checker

import (
	"bufio"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"strconv"
)

// Spilling. When the liveness graph's stream outgrows its share of the memory budget
// (Options.SpillBytes, by default a quarter of Options.MemoryBytes), the part in memory is
// appended to a temporary file in Options.SpillDir ("": the OS temp dir) as one frame:
//
//  1. 4 bytes, little endian: the payload's length n;
//  2. 4 bytes, little endian: the CRC-32 (Castagnoli) of the payload;
//  3. n bytes: the stream (already compressed: varint deltas, see edges.go).
//
// Frames are written in stream order and only appended, so that spilling is one sequential
// write; when the search is over, load reads them back in one sequential pass, checking
// every checksum, before the components are searched. The file is unlinked as soon as it is
// created where the OS allows it (Unix), so that nothing is left behind even if the process
// dies; close removes it otherwise.

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// graphSpill is the file the stream spills to.
type graphSpill struct {
	f       *os.File
	name    string // removed by close unless unlinked already
	w       *bufio.Writer
	written int64
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
// never. A search that takes checkpoints never spills it: a checkpoint holds the whole graph.
func (e *engine[S]) spillShare() int64 {
	if e.opts.Checkpoint != nil {
		return 0
	}
	return e.spillLimit()
}

// spillOut writes the stream's part in memory to the spill file and drops it from memory.
func (s *edgeStore) spillOut(dir string) error {
	if len(s.data) == 0 {
		return nil
	}
	if s.spill == nil {
		f, err := os.CreateTemp(dir, "kmc-graph-*.bin")
		if err != nil {
			return errors.New("liveness graph: spill: " + err.Error())
		}
		sf := &graphSpill{f: f, name: f.Name(), w: bufio.NewWriterSize(f, 1<<20)}
		if os.Remove(sf.name) == nil {
			sf.name = ""
		}
		s.spill = sf
	}
	sf := s.spill
	var head [8]byte
	for len(s.data) > 0 {
		// A frame holds at most 1 GiB, so that its length fits.
		n := min(len(s.data), 1<<30)
		binary.LittleEndian.PutUint32(head[:4], uint32(n))
		binary.LittleEndian.PutUint32(head[4:], crc32.Checksum(s.data[:n], crcTable))
		if _, err := sf.w.Write(head[:]); err != nil {
			return errors.New("liveness graph: spill: " + err.Error())
		}
		if _, err := sf.w.Write(s.data[:n]); err != nil {
			return errors.New("liveness graph: spill: " + err.Error())
		}
		sf.written += int64(n)
		s.spilled += int64(n)
		s.base += uint64(n)
		s.data = s.data[n:]
	}
	s.data = s.data[:0:0]
	return nil
}

// load reads the spilled part of the stream back, in one sequential pass, so that the whole
// stream is in memory, and removes the file.
func (s *edgeStore) load() error {
	sf := s.spill
	if sf == nil {
		return nil
	}
	defer s.close()
	if err := sf.w.Flush(); err != nil {
		return errors.New("liveness graph: spill: " + err.Error())
	}
	if _, err := sf.f.Seek(0, io.SeekStart); err != nil {
		return errors.New("liveness graph: spill: " + err.Error())
	}
	all := make([]byte, s.base+uint64(len(s.data)))
	r := bufio.NewReaderSize(sf.f, 1<<20)
	var at uint64
	var head [8]byte
	for at < s.base {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return errors.New("liveness graph: spill: reading frame at " + strconv.FormatUint(at, 10) + ": " + err.Error())
		}
		n := uint64(binary.LittleEndian.Uint32(head[:4]))
		if at+n > s.base {
			return errors.New("liveness graph: spill: frame at " + strconv.FormatUint(at, 10) + " runs past the spilled part")
		}
		if _, err := io.ReadFull(r, all[at:at+n]); err != nil {
			return errors.New("liveness graph: spill: reading frame at " + strconv.FormatUint(at, 10) + ": " + err.Error())
		}
		if crc32.Checksum(all[at:at+n], crcTable) != binary.LittleEndian.Uint32(head[4:]) {
			return errors.New("liveness graph: spill: frame at " + strconv.FormatUint(at, 10) + ": checksum mismatch")
		}
		at += n
	}
	copy(all[s.base:], s.data)
	s.data, s.base = all, 0
	return nil
}

// close removes the spill file, if any. The stream's spilled part is lost.
func (s *edgeStore) close() {
	sf := s.spill
	if sf == nil {
		return
	}
	s.spill = nil
	sf.f.Close()
	if sf.name != "" {
		os.Remove(sf.name)
	}
}

// spilledBytes is the size of the stream's part on disk.
func (s *edgeStore) spilledBytes() int64 {
	return s.spilled
}
