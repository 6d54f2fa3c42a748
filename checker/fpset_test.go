package checker

import (
	"math/rand/v2"
	"testing"
)

// TestFPSetAgainstMap compares the fingerprint set, with and without values, with a map;
// fingerprints are clustered in a few shards so that tables grow many times and runs reach
// the end of a table. Reference: STYLE.md §6 (fingerprint set against a map).
func TestFPSetAgainstMap(t *testing.T) {
	for _, vals := range []bool{true, false} {
		s := fpSet{vals: vals}
		ref := map[uint64]uint32{}
		r := rand.New(rand.NewPCG(1, 2))
		for i := range 200000 {
			fp := r.Uint64()%50000 + 1 // many repeats, all in shard 0
			switch i % 3 {
			case 0:
				fp = r.Uint64() | 1
			case 1:
				fp |= 0xff << 56 // the last shard, home slots near the end of the table
			}
			v, inserted := s.shards[shardOf(fp)].insert(fp, uint32(i), vals)
			old, had := ref[fp]
			if inserted == had || (vals && had && v != old) {
				t.Fatalf("vals=%v: insert %x: got %d %v, want %d %v", vals, fp, v, inserted, old, !had)
			}
			if !had {
				ref[fp] = uint32(i)
			}
		}
		if s.len() != len(ref) {
			t.Errorf("vals=%v: got %d fingerprints, want %d", vals, s.len(), len(ref))
		}
		for fp, want := range ref {
			got, ok := s.lookup(fp)
			if !vals {
				want = 0
			}
			if !ok || got != want {
				t.Fatalf("vals=%v: lookup %x: got %d %v, want %d", vals, fp, got, ok, want)
			}
			if !s.shards[shardOf(fp)].has(fp) {
				t.Fatalf("vals=%v: has %x: got false", vals, fp)
			}
		}
		for _, fp := range []uint64{1 << 62, 50001, 0xff<<56 | 50001, 1<<64 - 1} {
			if _, ok := s.lookup(fp); ok {
				t.Errorf("vals=%v: lookup of absent %x: got found, want absent", vals, fp)
			}
		}
		for i := range s.shards {
			if err := s.shards[i].check(i, vals); err != "" {
				t.Fatalf("vals=%v: shard %d: %s", vals, i, err)
			}
		}
		// A shard loaded from its fingerprints in order is the same table.
		for _, i := range []int{0, 0xff} {
			sh := &s.shards[i]
			var fps []uint64
			var vs []uint32
			for j, f := range sh.fps {
				if f != 0 {
					fps = append(fps, f)
					if vals {
						vs = append(vs, sh.vals[j])
					}
				}
			}
			var c fpShard
			c.load(fps, vs)
			if c.n != sh.n || len(c.fps) > len(sh.fps) {
				t.Errorf("vals=%v: shard %d loaded: got %d in %d slots, want %d in at most %d", vals, i, c.n, len(c.fps), sh.n, len(sh.fps))
			}
			for _, f := range fps {
				if !c.has(f) {
					t.Fatalf("vals=%v: shard %d loaded: %x missing", vals, i, f)
				}
			}
		}
	}
}

// check verifies the shard's invariants (see fpSet).
func (sh *fpShard) check(shard int, vals bool) string {
	if len(sh.fps) == 0 {
		return ""
	}
	if uint64(len(sh.fps)) != sh.size+fpSlack(sh.size) || (vals && len(sh.vals) != len(sh.fps)) || (!vals && sh.vals != nil) {
		return "table sizes"
	}
	if sh.fps[len(sh.fps)-1] != 0 || fpFull(sh.n, sh.size) {
		return "last slot full or over the load"
	}
	n, prev := 0, uint64(0)
	for i, f := range sh.fps {
		if f == 0 {
			continue
		}
		n++
		if shardOf(f) != shard || f <= prev {
			return "fingerprint " + itoa(i) + " out of order or of another shard"
		}
		prev = f
		for j := home(f, sh.size); j < uint64(i); j++ {
			if sh.fps[j] == 0 {
				return "a gap before fingerprint " + itoa(i)
			}
		}
	}
	if n != sh.n {
		return "count"
	}
	return ""
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
		// Vacuity's per-worker bits of kinds taken are on the successor path too (issue 16).
		e, _, ok := newEngine[cstate](m, props, Options{Workers: 1, Vacuity: rec})
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
				e.set.shards[shardOf(fingerprint(enc))].insert(fingerprint(enc), uint32(i), e.set.vals)
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
			s.shards[shardOf(fp)].insert(fp, uint32(i), false)
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

// TestParentLinks compares the compressed parent links with plain arrays: parents in BFS
// order with small and large gaps, initial states (noIndex), positions beyond a byte.
func TestParentLinks(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var l parentLinks
	var parents []uint32
	var pos []uint16
	p := uint32(0)
	for i := range 20000 {
		q := noIndex
		if i >= 3 {
			switch r.IntN(10) {
			case 0:
				p += uint32(r.IntN(100000)) // a large gap
			case 1, 2, 3:
				p += uint32(r.IntN(5))
			}
			q = p
		}
		ps := uint16(r.IntN(300))
		if r.IntN(100) == 0 {
			ps = uint16(r.IntN(65536))
		}
		parents, pos = append(parents, q), append(pos, ps)
		l.add(q, ps)
	}
	if l.len() != len(parents) {
		t.Fatalf("got %d links, want %d", l.len(), len(parents))
	}
	for i := range parents {
		if got, want := l.parent(uint32(i)), parents[i]; got != want {
			t.Fatalf("parent(%d): got %d, want %d", i, got, want)
		}
		if got, want := l.position(uint32(i)), pos[i]; got != want {
			t.Fatalf("position(%d): got %d, want %d", i, got, want)
		}
	}
	for _, lo := range []int{0, 1, 63, 64, 4095, 19990} {
		got := l.parents(lo, len(parents), nil)
		for k, v := range got {
			if v != parents[lo+k] {
				t.Fatalf("parents(%d, ...)[%d]: got %d, want %d", lo, k, v, parents[lo+k])
			}
		}
	}
	// Two bytes a state, a base per 64, and the exceptions (with append's slack).
	c := linksOf(parents, pos)
	n := int64(len(parents))
	if want := 2*n + 4*(n/linkBlock+1) + 16*int64(len(c.wide)+len(c.widePos)); c.bytes() > want {
		t.Errorf("links of %d states: got %d bytes, want at most %d", n, c.bytes(), want)
	}
}
