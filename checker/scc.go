package checker

import (
	"errors"
	"math/bits"
	"os"
	"strconv"
	"sync/atomic"
	"unsafe"
)

// lgraph is the recorded state graph for liveness checking: the compressed successor lists
// (states [0, expanded) have their edges recorded; self-loops are left out) and the
// fairness of each action code id. Per-state flags are bitsets.
type lgraph struct {
	n, expanded  int
	es           *edgeStore
	d            []byte // the whole edge stream, in memory
	trunc        bitset // successors not (all) recorded
	fair         []Fairness
	anyFair      bitset // some weakly or strongly fair action is enabled
	ninit        int
	truncByDepth bool
	// Fair steps cut by a model bound, sorted by state: state cutState[k] has the step with
	// code id ccode[k] cut by bound cby[k]; hasCut marks the states that have one.
	cutState []uint32
	ccode    []uint32
	cby      []uint16
	hasCut   bitset
}

// bitset is a set of state indices.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) get(v uint32) bool { return b[v/64]&(1<<(v%64)) != 0 }

func (b bitset) set(v uint32) { b[v/64] |= 1 << (v % 64) }

func (b bitset) clear(v uint32) { b[v/64] &^= 1 << (v % 64) }

// cuts returns the range of v's cut steps in ccode and cby.
func (g *lgraph) cuts(v uint32) (uint32, uint32) {
	if len(g.cutState) == 0 || !g.hasCut.get(v) {
		return 0, 0
	}
	return cutsOf(g.cutState, v)
}

// out returns an iterator over the edges of v (none if v was not expanded).
func (g *lgraph) out(v uint32) edgeIter {
	if int(v) >= g.expanded {
		return edgeIter{}
	}
	return g.es.edges(v)
}

// next returns the next edge of it, or ok false.
func (g *lgraph) next(it *edgeIter) (uint32, uint32, bool) { return it.next(g.d) }

// prevSet returns the largest member of b at or below p; there must be one.
func (b bitset) prevSet(p uint32) uint32 {
	k := p / 64
	w := b[k] & (^uint64(0) >> (63 - p%64))
	for w == 0 {
		k--
		w = b[k]
	}
	return k*64 + uint32(63-bits.LeadingZeros64(w))
}

// sccFinder is Tarjan's algorithm with an explicit call stack, so that a graph of any
// depth is handled without recursion. It visits only the states whose label equals the
// label of the run. Its per-state data is Tarjan's index and low link (8 bytes) and an
// on-stack bit; a run's stack is a buffer of the caller's (4 bytes a state visited), and its
// call stack holds a compact frame (16 bytes) per state on it, in chunks allocated as the
// search goes deeper.
type sccFinder struct {
	g       *lgraph
	label   []int32
	nodes   []sccNode
	onStack bitset
	call    frameStack
	stop    *stopper // polled per state visited: a run that sees a stop request returns
}

// sccNode is Tarjan's per-state data, side by side for locality.
type sccNode struct {
	index int32 // 0: not visited in this run
	low   int32
}

// sccFrame is a state on the call stack and how far its edges have been read: the
// iterator's position (rel bytes after the start of the state's index block: edges.go), the
// edges left and the last target read (their deltas are from it). Tarjan needs no code ids.
type sccFrame struct {
	v, rel, left, t uint32
}

// frameChunk is the number of frames in a chunk of the call stack (64 KiB).
const frameChunk = 1 << 12

// frameStack is a stack of frames in chunks, so that it grows without copying and holds
// only as much as the deepest search needs. With a spill folder (spill set), it holds at most
// keepChunks chunks in memory: when it grows past them, its lowest chunk in memory is written
// to a temporary file at the chunk's own offset and its buffer reused; when it shrinks into a
// chunk on disk, that chunk is read back into the buffer of the highest chunk, empty by then.
// Only the top frame is ever read or changed, so a chunk below the top is never touched
// while on disk. A search of any depth then takes keepChunks chunks of memory, and the
// liveness phase's reservation holds no call stack (liveBytesSpilled). An error of the file
// is kept in err, and stop (when set) then reports a stop, so that the search ends.
//
// Invariants: chunks[i] is nil exactly for the chunks on disk, i < lo; the top frame's chunk,
// (n-1)/frameChunk, is at or above lo; len(chunks)-lo <= keepChunks when spilling.
type frameStack struct {
	chunks [][]sccFrame
	n      int
	lo     int    // chunks below lo are on disk
	spill  bool   // keep at most keepChunks chunks in memory
	dir    string // the spill folder ("": the OS temp dir)
	f      *os.File
	name   string // removed by release unless unlinked already
	err    error
	stop   *stopper // told of an error, when set
}

// keepChunks is the number of chunks a spilling call stack keeps in memory (1 MiB; tests
// lower it).
var keepChunks = 16

// stackChunksWritten counts the chunks spilling call stacks wrote (tests read it).
var stackChunksWritten atomic.Int64

func (s *frameStack) push(f sccFrame) {
	if s.n == len(s.chunks)*frameChunk {
		if s.spill && len(s.chunks)-s.lo >= keepChunks && s.err == nil {
			s.grow()
		} else {
			s.chunks = append(s.chunks, make([]sccFrame, frameChunk))
		}
	}
	s.chunks[s.n/frameChunk][s.n%frameChunk] = f
	s.n++
}

// grow writes the lowest chunk in memory to the file and reuses its buffer for a new chunk
// on top.
func (s *frameStack) grow() {
	buf := s.chunks[s.lo]
	err := s.file()
	if err == nil {
		_, err = s.f.WriteAt(frameBytes(buf), int64(s.lo)*16*frameChunk)
	}
	if s.failed(err) {
		s.chunks = append(s.chunks, make([]sccFrame, frameChunk))
		return
	}
	stackChunksWritten.Add(1)
	s.chunks[s.lo] = nil
	s.lo++
	s.chunks = append(s.chunks, buf)
}

func (s *frameStack) top() *sccFrame { return &s.chunks[(s.n-1)/frameChunk][(s.n-1)%frameChunk] }

func (s *frameStack) pop() {
	s.n--
	if s.n > 0 && (s.n-1)/frameChunk < s.lo {
		// The top is in the chunk below the lowest in memory: read it back into the
		// highest chunk's buffer (that chunk is empty: the top is below it).
		c := s.lo - 1
		last := len(s.chunks) - 1
		buf := s.chunks[last]
		if _, err := s.f.ReadAt(frameBytes(buf), int64(c)*16*frameChunk); s.failed(err) {
			buf = make([]sccFrame, frameChunk) // the search stops; the frames are lost
		} else {
			s.chunks = s.chunks[:last]
		}
		s.chunks[c] = buf
		s.lo = c
	}
}

// file creates the spill file on first use, unlinked at once where the OS allows it.
func (s *frameStack) file() error {
	if s.f != nil {
		return nil
	}
	f, err := os.CreateTemp(s.dir, "kmc-stack-"+strconv.Itoa(os.Getpid())+"-*.bin")
	if err != nil {
		return err
	}
	if os.Remove(f.Name()) != nil {
		s.name = f.Name()
	}
	s.f = f
	return nil
}

// failed records err, if any, and tells the stopper.
func (s *frameStack) failed(err error) bool {
	if err == nil {
		return false
	}
	if s.err == nil {
		s.err = errors.New("liveness: call stack: spill: " + err.Error())
		if s.stop != nil {
			s.stop.fail(s.err)
		}
	}
	return true
}

// release lets the chunks go and closes the file (the stack must be empty).
func (s *frameStack) release() {
	s.chunks, s.lo = nil, 0
	if s.f != nil {
		s.f.Close()
		if s.name != "" {
			os.Remove(s.name)
		}
		s.f, s.name = nil, ""
	}
}

// bytes is the memory the chunks hold.
func (s *frameStack) bytes() int64 { return 16 * frameChunk * int64(len(s.chunks)-s.lo) }

// frameBytes is a chunk's frames as bytes, in the machine's byte order (read back only by
// the process that wrote them).
func frameBytes(c []sccFrame) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&c[0])), 16*len(c))
}

// relPos is stream position p relative to blk, the start of its index block, for a frame.
func relPos(p, blk int) uint32 {
	if uint64(p-blk) >= 1<<32 {
		panic("checker: liveness: the successor lists of " + strconv.Itoa(edgeBlock) + " states take more than 4 GiB")
	}
	return uint32(p - blk)
}

func newSCCFinder(g *lgraph, label []int32) *sccFinder {
	return &sccFinder{g: g, label: label, nodes: make([]sccNode, g.n), onStack: newBitset(g.n), stop: &stopper{}}
}

// run finds the strongly connected components of the subgraph induced by the states with
// label lab, visiting roots in order (roots nil: every state with label lab, in index
// order, whose Tarjan index the caller has cleared), and calls emit with each component.
// Components come out in reverse topological order: an edge leaving a component goes to
// one emitted before it. buf is the Tarjan stack, used from its end down, and must have
// room for every state the run visits; a component is a slice of it, valid during the call,
// which emit may reorder. emit may itself call run, with another buffer, on the states of
// the component (relabelled): the inner run's frames go on top of the outer run's. When
// f.stop sees a stop request, run returns at once, its work left half done.
func (f *sccFinder) run(roots []uint32, lab int32, buf []uint32, emit func(comp []uint32)) {
	for _, v := range roots {
		f.nodes[v].index = 0
	}
	var counter int32
	g := f.g
	es, d := g.es, g.d
	label, nodes, onStack, call := f.label, f.nodes, f.onStack, &f.call
	sp := len(buf) // the stack is buf[sp:], its top at buf[sp]
	push := func(w uint32) {
		counter++
		nodes[w] = sccNode{index: counter, low: counter}
		sp--
		buf[sp] = w
		onStack.set(w)
		fr := sccFrame{v: w, t: w}
		if int(w) < g.expanded {
			p, n := es.record(w)
			fr.rel, fr.left = relPos(p, int(es.blk[w/edgeBlock]-es.base)), n
		}
		call.push(fr)
	}
	base := call.n
	n := len(roots)
	if roots == nil {
		n = g.n
	}
	for i := range n {
		var r uint32
		if roots != nil {
			r = roots[i]
		} else if r = uint32(i); label[r] != lab {
			continue
		}
		if nodes[r].index != 0 {
			continue
		}
		push(r)
		for call.n > base {
			if f.stop.poll() {
				return
			}
			fr := call.top()
			v := fr.v
			descended := false
			if fr.left > 0 {
				blk := int(es.blk[v/edgeBlock] - es.base)
				p, left, t := blk+int(fr.rel), fr.left, int64(fr.t)
				for left > 0 {
					var u uint64
					u, p = uvarint(d, p)
					p = skipUvarint(d, p)
					left--
					t += unzigzag(u)
					w := uint32(t)
					if label[w] != lab {
						continue
					}
					nw := nodes[w]
					if nw.index == 0 {
						fr.rel, fr.left, fr.t = relPos(p, blk), left, w
						push(w)
						descended = true
						break
					}
					if nw.index < nodes[v].low && onStack.get(w) {
						nodes[v].low = nw.index
					}
				}
			}
			if descended {
				continue
			}
			call.pop()
			low := nodes[v].low // emit may search comp again, with indices of its own
			if low == nodes[v].index {
				k := sp
				for buf[k] != v {
					k++
				}
				comp := buf[sp : k+1]
				for _, w := range comp {
					onStack.clear(w)
				}
				sp = k + 1
				emit(comp)
			}
			if call.n > base {
				u := call.top().v
				if low < nodes[u].low {
					nodes[u].low = low
				}
			}
		}
	}
}
