package kafka

import (
	"slices"
	"testing"
)

func cacheOf(es ...EpochEntry) Replica {
	var r Replica
	for _, e := range es {
		r.Cache[r.NCache] = e
		r.NCache++
	}
	return r
}

func entries(r *Replica) []EpochEntry { return slices.Clone(r.Cache[:r.NCache]) }

// Reference: LeaderEpochFileCache.endOffsetFor (KAFKA-NOTES §1, cases 1-5); KAFKA-13077
// for case 5 with an epoch missing from the cache.
func TestEndOffsetFor(t *testing.T) {
	c := cacheOf(EpochEntry{1, 0}, EpochEntry{3, 2}, EpochEntry{5, 4})
	tests := []struct {
		name       string
		r          Replica
		req, leo   uint8
		epoch, off uint8
	}{
		{"1 undefined epoch", c, NoEpoch, 6, NoEpoch, NoOffset},
		{"2 latest epoch answers LEO", c, 5, 6, 5, 6},
		{"3 above every cached epoch", c, 6, 6, NoEpoch, NoOffset},
		{"3 empty cache", Replica{}, 2, 0, NoEpoch, NoOffset},
		{"4 below every cached epoch", cacheOf(EpochEntry{2, 1}, EpochEntry{3, 4}), 1, 6, 1, 1},
		{"5 cached epoch", c, 1, 6, 1, 2},
		{"5 cached middle epoch", c, 3, 6, 3, 4},
		{"5 missing epoch answered with the older one", c, 4, 6, 3, 4},
		{"5 missing epoch 2 (KAFKA-13077)", c, 2, 6, 1, 2},
	}
	for _, tt := range tests {
		e, o := tt.r.endOffsetFor(tt.req, tt.leo)
		if e != tt.epoch || o != tt.off {
			t.Errorf("%s: endOffsetFor(%d, %d) = (%d, %d), want (%d, %d)", tt.name, tt.req, tt.leo, e, o, tt.epoch, tt.off)
		}
	}
}

// Reference: LeaderEpochFileCache.assign / isUpdateNeeded / maybeTruncateNonMonotonicEntries.
func TestAssign(t *testing.T) {
	tests := []struct {
		name  string
		r     Replica
		epoch uint8
		start uint8
		want  []EpochEntry
	}{
		{"empty", Replica{}, 1, 0, []EpochEntry{{1, 0}}},
		{"same epoch later offset: no update", cacheOf(EpochEntry{1, 0}), 1, 3, []EpochEntry{{1, 0}}},
		{"same epoch earlier offset replaces", cacheOf(EpochEntry{1, 0}, EpochEntry{2, 3}), 2, 2, []EpochEntry{{1, 0}, {2, 2}}},
		{"new epoch appends", cacheOf(EpochEntry{1, 0}), 2, 3, []EpochEntry{{1, 0}, {2, 3}}},
		{"lower epoch removes higher tail", cacheOf(EpochEntry{1, 0}, EpochEntry{3, 2}), 2, 2, []EpochEntry{{1, 0}, {2, 2}}},
		{"start at or below tail starts removes them", cacheOf(EpochEntry{1, 0}, EpochEntry{2, 2}, EpochEntry{3, 4}), 4, 2, []EpochEntry{{1, 0}, {4, 2}}},
		{"KAFKA-7415 entry without data is replaced by a follower append", cacheOf(EpochEntry{1, 0}, EpochEntry{3, 2}), 2, 2, []EpochEntry{{1, 0}, {2, 2}}},
	}
	for _, tt := range tests {
		r := tt.r
		r.assign(tt.epoch, tt.start)
		if got := entries(&r); !slices.Equal(got, tt.want) {
			t.Errorf("%s: assign(%d, %d): got %v, want %v", tt.name, tt.epoch, tt.start, got, tt.want)
		}
	}
}

// Reference: LeaderEpochFileCache.truncateFromEndAsyncFlush; UnifiedLog.truncateTo
// (KAFKA-10706: the cache is truncated even when the offset is at the log end).
func TestTruncate(t *testing.T) {
	base := cacheOf(EpochEntry{1, 0}, EpochEntry{2, 2}, EpochEntry{3, 4})
	tests := []struct {
		end  uint8
		want []EpochEntry
	}{
		{5, []EpochEntry{{1, 0}, {2, 2}, {3, 4}}},
		{4, []EpochEntry{{1, 0}, {2, 2}}},
		{3, []EpochEntry{{1, 0}, {2, 2}}},
		{2, []EpochEntry{{1, 0}}},
		{0, []EpochEntry{}},
	}
	for _, tt := range tests {
		r := base
		r.truncateFromEnd(tt.end, false)
		if got := entries(&r); !slices.Equal(got, tt.want) || r.NStale != 0 {
			t.Errorf("truncateFromEnd(%d): got %v (%d stale), want %v", tt.end, got, r.NStale, tt.want)
		}
		// Kafka 3.8: the removed entries stay in the checkpoint file until it is rewritten.
		a := base
		a.truncateFromEnd(tt.end, true)
		f, n := a.checkpointFile(a.NCache + a.NStale)
		if got := f[:n]; !slices.Equal(got, base.Cache[:base.NCache]) || !slices.Equal(entries(&a), tt.want) {
			t.Errorf("truncateFromEnd(%d) async: cache %v, file %v, want %v and %v", tt.end, entries(&a), got, tt.want, base.Cache[:base.NCache])
		}
		if a.NCache > 0 {
			a.assign(7, 6) // an assignment rewrites the file
			if a.NStale != 0 {
				t.Errorf("truncateFromEnd(%d) async then assign: %d stale entries, want 0", tt.end, a.NStale)
			}
		}
	}
	// truncateTo at the log end still drops a leader's entry without data (KAFKA-10706).
	var r Replica
	r.appendRecord(Entry{1, 1})
	r.appendRecord(Entry{1, 2})
	r.HW = 2
	r.assign(3, 2)
	r.truncateTo(2, false)
	if got, want := entries(&r), []EpochEntry{{1, 0}}; !slices.Equal(got, want) {
		t.Errorf("truncateTo(LEO): cache %v, want %v", got, want)
	}
	r.truncateTo(1, false)
	if r.LEO != 1 || r.HW != 1 || r.Log[1] != (Entry{}) {
		t.Errorf("truncateTo(1): LEO %d HW %d log[1] %v, want 1, 1, zero", r.LEO, r.HW, r.Log[1])
	}
}

// Reference: LogLoader recovery (LogSegment.recover assigns a batch's epoch only when it is
// above the cache's latest; then truncateFromEnd at the log end); the proposed KAFKA-13077
// repair (rebuildCache: every batch, in order).
func TestRecoverAndRebuild(t *testing.T) {
	var r Replica
	for _, e := range []Entry{{1, 1}, {2, 2}, {2, 3}, {3, 4}} {
		r.appendRecord(e)
	}
	if !r.CacheMatchesLog() {
		t.Fatalf("fresh log: cache %v does not match", entries(&r))
	}
	tests := []struct {
		file []EpochEntry // the checkpoint file read back
		from uint8        // recovery from this offset
		want []EpochEntry
	}{
		// The whole file: recovery finds nothing above the latest epoch.
		{[]EpochEntry{{1, 0}, {2, 1}, {3, 3}}, 0, []EpochEntry{{1, 0}, {2, 1}, {3, 3}}},
		// An earlier version of the file (before 3.0, a power loss may undo renames): epoch 2
		// is missing, and recovery from offset 3 only adds 3@3: the KAFKA-13077 state.
		{[]EpochEntry{{1, 0}}, 3, []EpochEntry{{1, 0}, {3, 3}}},
		// Recovery from offset 1 refills it.
		{[]EpochEntry{{1, 0}}, 1, []EpochEntry{{1, 0}, {2, 1}, {3, 3}}},
		// A file with an entry beyond the log end (a truncation whose write was lost): it
		// blocks recovery of lower epochs, then the truncation at the log end drops it.
		{[]EpochEntry{{1, 0}, {5, 6}}, 0, []EpochEntry{{1, 0}}},
	}
	for i, tt := range tests {
		s := r
		var f [MaxEpoch]EpochEntry
		copy(f[:], tt.file)
		s.load(f, uint8(len(tt.file)))
		s.recover(tt.from, false)
		if got := entries(&s); !slices.Equal(got, tt.want) {
			t.Errorf("case %d: recovered %v, want %v", i, got, tt.want)
		}
		if i == 1 && s.CacheMatchesLog() {
			t.Errorf("case %d: CacheMatchesLog = true with epoch 2 missing, want false", i)
		}
		full := s
		full.rebuildCache()
		if got, want := entries(&full), entries(&r); !slices.Equal(got, want) {
			t.Errorf("case %d: rebuild: got %v, want %v", i, got, want)
		}
	}
}

// Reference: KIP-101, Kafka 0.11 LeaderEpochFileCache.endOffsetFor (an end offset only).
func TestEndOffsetForV0(t *testing.T) {
	c := cacheOf(EpochEntry{2, 0}, EpochEntry{3, 2}, EpochEntry{5, 4})
	tests := []struct{ req, want uint8 }{{5, 6}, {3, 4}, {4, 4}, {2, 2}, {1, NoOffset}, {6, NoOffset}}
	for _, tt := range tests {
		if got := c.endOffsetForV0(tt.req, 6); got != tt.want {
			t.Errorf("endOffsetForV0(%d, 6) = %d, want %d", tt.req, got, tt.want)
		}
	}
	var empty Replica
	if got := empty.endOffsetForV0(1, 0); got != NoOffset {
		t.Errorf("empty cache: got %d, want undefined", got)
	}
}
