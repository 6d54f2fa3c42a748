package checker

import (
	"math/rand/v2"
	"testing"
)

// TestFPSetAgainstMap compares the fingerprint set with a map. Reference: STYLE.md §6
// (fingerprint set against a map).
func TestFPSetAgainstMap(t *testing.T) {
	var s fpSet
	ref := map[uint64]uint32{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 100000 {
		fp := r.Uint64()%50000 + 1 // many repeats
		if i%3 == 0 {
			fp = r.Uint64() | 1
		}
		v, inserted := s.shards[shardOf(fp)].insert(fp, uint32(i))
		old, had := ref[fp]
		if inserted == had || (had && v != old) {
			t.Fatalf("insert %x: got %d %v, want %d %v", fp, v, inserted, old, !had)
		}
		if !had {
			ref[fp] = uint32(i)
		}
	}
	if s.len() != len(ref) {
		t.Errorf("got %d fingerprints, want %d", s.len(), len(ref))
	}
	for fp, want := range ref {
		if got, ok := s.lookup(fp); !ok || got != want {
			t.Fatalf("lookup %x: got %d %v, want %d", fp, got, ok, want)
		}
	}
	if _, ok := s.lookup(1 << 62); ok {
		t.Errorf("lookup of an absent fingerprint: got found, want absent")
	}
}

// TestFingerprintDistinct: every encoding of up to 2 bytes (and a few lengths of zeros)
// gets its own fingerprint, and fingerprints are fixed across processes. Reference:
// STYLE.md §5 (fixed-seed fingerprints).
func TestFingerprintDistinct(t *testing.T) {
	seen := map[uint64][]byte{}
	add := func(b []byte) {
		fp := fingerprint(b)
		if fp == 0 {
			t.Fatalf("fingerprint(%v) = 0", b)
		}
		if o, ok := seen[fp]; ok {
			t.Fatalf("fingerprint(%v) == fingerprint(%v)", b, o)
		}
		seen[fp] = append([]byte(nil), b...)
	}
	add(nil)
	for i := range 256 {
		add([]byte{byte(i)})
		for j := range 256 {
			add([]byte{byte(i), byte(j)})
		}
	}
	for n := 3; n < 40; n++ {
		add(make([]byte, n))
	}
	// Pinned values: a change of the hash changes every first-occurrence order downstream.
	pinned := []struct {
		in   string
		want uint64
	}{{"kmc", 0x4388729fc296518e}, {"0123456789abcdefXYZ", 0x5024c5a652af8ee4}}
	for _, p := range pinned {
		if got := fingerprint([]byte(p.in)); got != p.want {
			t.Errorf("fingerprint(%q): got %#x, want %#x", p.in, got, p.want)
		}
	}
}

// TestExpandAllocationFree pins the successor path: expanding states after warm-up
// allocates nothing. Reference: issue 2 (no allocation per state on the successor path).
func TestExpandAllocationFree(t *testing.T) {
	for _, rec := range []bool{false, true} {
		var props []Property[cstate]
		props = append(props, sumIs(100))
		props = append(props, Property[cstate]{Name: "Step", Kind: ActionProperty,
			Step: func(from *cstate, a uint64, to *cstate) bool { return true }})
		if rec {
			props = append(props, Property[cstate]{Name: "L", Kind: LeadsTo,
				P: func(s *cstate) bool { return true }, Q: func(s *cstate) bool { return s.sum() > 3 }})
		}
		m := counters{N: 5}
		e, _, ok := newEngine[cstate](m, props, Options{Workers: 1})
		if !ok {
			t.Fatal("newEngine failed")
		}
		var fr frontier
		fr.reset(0)
		var enc []byte
		for i := range 50 {
			s := cstate{C: [4]uint8{uint8(i % 6), uint8(i / 6 % 6), 1, 2}}
			enc = m.Encode(&s, enc[:0])
			fr.add(enc)
			if i%2 == 0 {
				e.set.shards[shardOf(fingerprint(enc))].insert(fingerprint(enc), uint32(i))
			}
		}
		for j := range e.flags {
			e.flags[j] = make([]byte, 50)
		}
		w := e.worker(0)
		out := &chunkOut{}
		w.expandChunk(&fr, 0, fr.n(), out)
		if len(out.cands) == 0 {
			t.Fatal("got no candidates")
		}
		allocs := testing.AllocsPerRun(20, func() { w.expandChunk(&fr, 0, fr.n(), out) })
		if allocs != 0 {
			t.Errorf("rec=%v: got %v allocations per expansion of 50 states, want 0", rec, allocs)
		}
	}
}

func BenchmarkFPSetInsert(b *testing.B) {
	b.ReportAllocs()
	r := rand.New(rand.NewPCG(3, 4))
	fps := make([]uint64, 1<<20)
	for i := range fps {
		fps[i] = r.Uint64() | 1
	}
	for b.Loop() {
		var s fpSet
		for i, fp := range fps {
			s.shards[shardOf(fp)].insert(fp, uint32(i))
		}
	}
	b.ReportMetric(float64(len(fps))*float64(b.N)/b.Elapsed().Seconds(), "inserts/s")
}

func BenchmarkFingerprint(b *testing.B) {
	buf := make([]byte, 64)
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		buf[0]++
		fingerprint(buf)
	}
}
