package checker

import (
	"encoding/binary"
	"math/bits"
)

// Fingerprints are a fixed-seed 64-bit hash of a state's canonical encoding, in the style of
// wyhash: each pair of 8-byte words is folded into the running value by a 64x64->128-bit
// multiply whose halves are xored. The seed and constants are fixed so that fingerprints, and
// with them the order of first occurrence, are the same in every process (hash/maphash is
// seeded randomly per process and would not be).
const (
	fpSeed = 0x2d358dccaa6c78a5
	fpK1   = 0xa0761d6478bd642f
	fpK2   = 0xe7037ed1a0b428db
	fpK3   = 0x8ebc6af09c88c6e3
	fpK4   = 0x589965cc75374cc3
)

func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// fingerprint returns the fingerprint of an encoding. It never returns 0, which the
// fingerprint set uses to mark an empty slot (an encoding hashing to 0 is mapped to 1).
func fingerprint(b []byte) uint64 {
	n := len(b)
	h := uint64(fpSeed) ^ mum(uint64(n)^fpK1, fpK2)
	for len(b) >= 16 {
		h = mum(binary.LittleEndian.Uint64(b)^fpK1, binary.LittleEndian.Uint64(b[8:])^h)
		b = b[16:]
	}
	var a, c uint64
	switch {
	case len(b) >= 8:
		a = binary.LittleEndian.Uint64(b)
		c = tail(b[8:])
	default:
		a = tail(b)
	}
	h = mum(a^fpK3^h, c^fpK4)
	h = mum(h^fpK1, uint64(n)^fpK3)
	if h == 0 {
		h = 1
	}
	return h
}

// tail reads up to 7 bytes little-endian, with a length marker so that trailing zero bytes
// change the value.
func tail(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v | uint64(len(b)+1)<<56
}

// collisionProbability is TLC's optimistic estimate of the probability that two distinct
// states of the search shared a fingerprint: distinct * (generated - distinct) / 2^64
// (TLC's "calculated (optimistic)" figure; each of the generated-but-already-seen states
// could have been a new state with a colliding fingerprint).
func collisionProbability(generated, distinct int64) float64 {
	if generated <= distinct {
		return float64(distinct) * float64(distinct-1) / 2 / 18446744073709551616.0
	}
	return float64(distinct) * float64(generated-distinct) / 18446744073709551616.0
}

// viewOf returns m's Projected.View, or nil when m identifies states by their whole
// encoding.
func viewOf(m any) func(enc []byte) []byte {
	if p, ok := m.(Projected); ok {
		return p.View
	}
	return nil
}

// fpView is the fingerprint of an encoding's view: of the part view returns, or of the
// whole encoding when view is nil.
func fpView(view func(enc []byte) []byte, enc []byte) uint64 {
	if view != nil {
		enc = view(enc)
	}
	return fingerprint(enc)
}

// fp is the fingerprint that identifies the state encoded as enc in this search.
func (e *engine[S]) fp(enc []byte) uint64 { return fpView(e.view, enc) }
