package checker

import "sort"

// parentLinks holds, for every state in index order, its BFS parent (noIndex for an initial
// state) and the position of the successor (or of the initial state) that reached it, in
// about 2 bytes per state. A BFS assigns indices in the order of the states it expands, so
// the parents of consecutive states are nearly always equal or close: a parent is stored as
// its difference from the previous state's (a byte), with the full value every linkBlock
// states and, for the rare difference of 255 or more, in a list of exceptions; a position
// below 255 is a byte, a larger one an exception too.
//
// Invariants:
//  1. len(delta) == len(pos) == n and len(base) == (n+linkBlock-1)/linkBlock.
//  2. wide and widePos are sorted by state; wide holds exactly the states i (not the first
//     of a block) whose delta is linkWide, widePos those whose pos is linkWide.
type parentLinks struct {
	base    []uint32 // parent of state k*linkBlock
	delta   []uint8  // parent[i]-parent[i-1] (mod 2^32) below linkWide, else linkWide
	pos     []uint8  // successor position below linkWide, else linkWide
	wide    []linkRec
	widePos []linkRec
	last    uint32 // parent of the last state
}

// linkRec is one exception: state i's parent or position.
type linkRec struct{ i, v uint32 }

const (
	linkBlock = 64
	linkWide  = 255
)

// len is the number of states.
func (l *parentLinks) len() int { return len(l.delta) }

// reserve makes room for n more states.
func (l *parentLinks) reserve(n int) {
	l.delta, l.pos = reserve(l.delta, n, false), reserve(l.pos, n, false)
	l.base = reserve(l.base, n/linkBlock+1, false)
}

// add appends the link of the next state.
func (l *parentLinks) add(parent uint32, pos uint16) {
	i := uint32(len(l.delta))
	switch d := parent - l.last; {
	case i%linkBlock == 0:
		l.base = append(l.base, parent)
		l.delta = append(l.delta, 0)
	case d < linkWide:
		l.delta = append(l.delta, uint8(d))
	default:
		l.delta = append(l.delta, linkWide)
		l.wide = append(l.wide, linkRec{i, parent})
	}
	if pos < linkWide {
		l.pos = append(l.pos, uint8(pos))
	} else {
		l.pos = append(l.pos, linkWide)
		l.widePos = append(l.widePos, linkRec{i, uint32(pos)})
	}
	l.last = parent
}

// parent returns the parent of state i.
func (l *parentLinks) parent(i uint32) uint32 {
	b := i / linkBlock * linkBlock
	p := l.base[i/linkBlock]
	for j := b + 1; j <= i; j++ {
		if d := l.delta[j]; d == linkWide {
			p = findRec(l.wide, j)
		} else {
			p += uint32(d)
		}
	}
	return p
}

// parents appends the parents of states [lo, hi) to dst, decoding them in one pass.
func (l *parentLinks) parents(lo, hi int, dst []uint32) []uint32 {
	if lo >= hi {
		return dst
	}
	p := l.parent(uint32(lo))
	dst = append(dst, p)
	for i := lo + 1; i < hi; i++ {
		switch d := l.delta[i]; {
		case i%linkBlock == 0:
			p = l.base[i/linkBlock]
		case d == linkWide:
			p = findRec(l.wide, uint32(i))
		default:
			p += uint32(d)
		}
		dst = append(dst, p)
	}
	return dst
}

// position returns the successor position that reached state i.
func (l *parentLinks) position(i uint32) uint16 {
	if p := l.pos[i]; p != linkWide {
		return uint16(p)
	}
	return uint16(findRec(l.widePos, i))
}

func findRec(recs []linkRec, i uint32) uint32 {
	k := sort.Search(len(recs), func(k int) bool { return recs[k].i >= i })
	if k == len(recs) || recs[k].i != i {
		panic("checker: parent links: no exception recorded for state " + itoa(int(i)))
	}
	return recs[k].v
}

// bytes is the memory held.
func (l *parentLinks) bytes() int64 {
	return int64(cap(l.delta)+cap(l.pos)) + 4*int64(cap(l.base)) + 8*int64(cap(l.wide)+cap(l.widePos))
}

// growBytes is an upper bound on what adding n states allocates.
func (l *parentLinks) growBytes(n int) int64 {
	return 2*growBytes(len(l.delta), cap(l.delta), n, 1, false) + growBytes(len(l.base), cap(l.base), n/linkBlock+1, 4, false)
}

// linksOf builds the links of parents and positions (a snapshot's).
func linksOf(parents []uint32, pos []uint16) parentLinks {
	var l parentLinks
	l.reserve(len(parents))
	for i, p := range parents {
		l.add(p, pos[i])
	}
	return l
}
