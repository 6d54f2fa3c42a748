package kafka

import (
	"encoding/json"
	"testing"
)

// Configurations that reach reads by position that are not record-aligned.
func bytesConfigs() map[string]Config {
	varied := DefaultConfig()
	varied.MaxRecords, varied.MaxEpoch, varied.MaxFetchRecords, varied.LeaderChange = 3, 3, 2, 2
	varied.RecordSizes = SizesVaried
	distinct := varied
	distinct.RecordSizes = SizesDistinct
	strict := varied
	strict.Version, strict.Switches = "4.0", strict.Switches.With(Kafka18723Strict, true)
	sendSide := varied
	sendSide.Switches = sendSide.Switches.With(Kafka18723SendSide, true)
	return map[string]Config{"varied": varied, "distinct": distinct, "strict": strict, "send-side": sendSide}
}

// Reference: STYLE §6 (encode/decode round trip), Apalache ADR-015 (ITF): the slice
// positions, the copied batches' offsets and holes survive Encode/Decode, and every value
// is valid JSON.
func TestRecordSizesRoundTrip(t *testing.T) {
	for name, c := range bytesConfigs() {
		m, states := reachable(t, c, 30000)
		var slices, offsets bool
		for i := range states {
			s := &states[i]
			if err := m.Valid(s); err != nil {
				t.Fatalf("%s: state %d: %v\n%s", name, i, err, m.Format(s))
			}
			var d State
			m.Decode(m.Encode(s, nil), &d)
			if d != *s {
				t.Fatalf("%s: Decode(Encode(s)) != s:\n%s\n%s", name, m.Format(s), m.Format(&d))
			}
			for v := range m.Vars() {
				if buf := m.AppendValue(s, v, nil); !json.Valid(buf) {
					t.Fatalf("%s: variable %s: invalid JSON %s", name, m.Vars()[v], buf)
				}
			}
			for k := 0; k < int(s.Net.Len); k++ {
				g := &s.Net.Msgs[k]
				slices = slices || g.Start != g.Off
				offsets = offsets || g.N > 0 && g.Offs[0] != 0
			}
		}
		if !slices || !offsets {
			t.Errorf("%s: no response in %d states has a slice start apart from its offset (%v) or a nonzero batch offset (%v)", name, len(states), slices, offsets)
		}
	}
}

// With uniform sizes a read by position is the record-aligned read the model made before
// sizes existed: the slice starts at the fetch offset, the copied batches carry the fetch
// offset and its successors, and no log has a hole. Reference: KAFKA-18723 (the research
// report's modelling note: equal-size batches make positions offsets).
func TestUniformReadsAreRecordAligned(t *testing.T) {
	c := allFaults()
	c.LeaderChange, c.MaxRecords = 2, 4
	m, states := reachable(t, c, 50000)
	for i := range states {
		s := &states[i]
		for k := 0; k < int(s.Net.Len); k++ {
			g := &s.Net.Msgs[k]
			if g.Kind != MsgFetchResponse {
				continue
			}
			if g.Start != g.Off {
				t.Fatalf("state %d: slice start %d, fetch offset %d\n%s", i, g.Start, g.Off, m.Format(s))
			}
			for j := uint8(0); j < g.N; j++ {
				if g.Offs[j] != g.Off+j {
					t.Fatalf("state %d: batch %d has offset %d, want %d\n%s", i, j, g.Offs[j], g.Off+j, m.Format(s))
				}
			}
		}
		for b := 0; b < m.nb(); b++ {
			for o := uint8(0); o < s.B[b].LEO; o++ {
				if s.B[b].Log[o].ID == 0 {
					t.Fatalf("state %d: b%d has a hole at %d\n%s", i, b+1, o, m.Format(s))
				}
			}
		}
	}
}

// appendFetched's outcomes by the copied batches' offsets and epochs.
// Reference: UnifiedLog.append (UnexpectedAppendOffsetException), analyzeAndValidateRecords
// (OffsetsOutOfOrderException, hasHigherPartitionLeaderEpoch), AbstractFetcherThread.
// processFetchRequest (markPartitionFailed); KAFKA-18723.
func TestAppendFetched(t *testing.T) {
	type batch struct{ off, epoch, id uint8 }
	for _, tc := range []struct {
		name     string
		strict   bool
		batches  []batch
		want     string // the follower's log after, as Format prints it
		failed   bool
		wantLast uint8
	}{
		{"in order", false, []batch{{1, 2, 3}, {2, 2, 4}}, "[e1:r1 e2:r3 e2:r4]", false, 2},
		{"lower first offset", false, []batch{{0, 2, 3}}, "[e1:r1]", true, 1},
		{"out of order", false, []batch{{1, 2, 3}, {1, 2, 4}}, "[e1:r1]", true, 1},
		{"hole", false, []batch{{2, 2, 3}}, "[e1:r1 hole e2:r3]", false, 2},
		{"above the request's epoch", false, []batch{{1, 2, 3}, {2, 4, 4}}, "[e1:r1 e2:r3]", false, 2},
		{"skipped before a lower offset", false, []batch{{1, 4, 3}, {0, 2, 4}}, "[e1:r1]", false, 1},
		{"below the last epoch, PR 18852", false, []batch{{1, 2, 3}, {2, 1, 4}}, "[e1:r1 e2:r3 e1:r4]", false, 1},
		{"below the last epoch, strict", true, []batch{{1, 2, 3}, {2, 1, 4}}, "[e1:r1 e2:r3]", false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Switches = c.Switches.With(Kafka18723, true).With(Kafka18723Strict, tc.strict)
			m, _ := New(c)
			var r Replica
			r.Role, r.Fetch, r.LastEp = RoleFollower, FetchFetching, 1
			r.appendRecord(Entry{Epoch: 1, ID: 1})
			resp := Msg{Kind: MsgFetchResponse, Epoch: 3, Off: 1, HW: 1, N: uint8(len(tc.batches))}
			for k, b := range tc.batches {
				resp.Recs[k], resp.Offs[k] = Entry{Epoch: b.epoch, ID: b.id}, b.off
			}
			m.appendFetched(&r, &resp)
			var buf []byte
			buf = append(buf, '[')
			for o := uint8(0); o < r.LEO; o++ {
				if o > 0 {
					buf = append(buf, ' ')
				}
				buf = fmtEntry(buf, r.Log[o])
			}
			buf = append(buf, ']')
			if got := string(buf); got != tc.want {
				t.Errorf("log: got %s, want %s", got, tc.want)
			}
			if got := r.Fetch == FetchFailed; got != tc.failed {
				t.Errorf("failed: got %v, want %v", got, tc.failed)
			}
			if r.LastEp != tc.wantLast {
				t.Errorf("lastFetchedEpoch: got %d, want %d", r.LastEp, tc.wantLast)
			}
			if tc.failed && r.HW != 0 {
				t.Errorf("high watermark: got %d, want 0 (not taken after a failure)", r.HW)
			}
			// A batch below the last epoch rewrites the cache (LeaderEpochFileCache.assign
			// drops the conflicting entries): the cache then no longer describes the log.
			if lower := tc.name == "below the last epoch, PR 18852"; r.CacheMatchesLog() == lower {
				t.Errorf("cache %v, log %s: CacheMatchesLog = %v", r.Cache[:r.NCache], buf, !lower)
			}
		})
	}
}

// The positions of a log with a hole, and the slices the leader fixes.
// Reference: LogSegment.read (translateOffset, minOneMessage), FileRecords.slice.
func TestSlice(t *testing.T) {
	c := DefaultConfig()
	c.RecordSizes, c.MaxFetchRecords = SizesVaried, 2
	m, _ := New(c)
	var r Replica
	for _, e := range []Entry{{1, 1}, {1, 2}} { // 1 and 2 units at positions 0, 1
		r.appendRecord(e)
	}
	r.appendAt(3, Entry{Epoch: 2, ID: 3})  // a hole at offset 2; r3 (1 unit) at position 3
	r.appendRecord(Entry{Epoch: 2, ID: 4}) // 2 units at position 4
	for _, tc := range []struct{ off, start, end uint8 }{
		{0, 0, 2}, // r1 and half of r2: the slice may end inside a batch
		{1, 1, 3}, // r2
		{2, 3, 5}, // the hole: from the next batch, r3, and half of r4
		{3, 3, 5},
		{4, 4, 6}, // r4 is 2 units
		{5, 6, 6}, // the log end: empty
	} {
		if s, e := m.slice(&r, tc.off); s != tc.start || e != tc.end {
			t.Errorf("slice(%d): got [%d,%d), want [%d,%d)", tc.off, s, e, tc.start, tc.end)
		}
	}
	for _, tc := range []struct {
		p    uint8
		want int
	}{{0, 0}, {1, 1}, {2, -1}, {3, 3}, {4, 4}, {5, -1}, {6, -1}} {
		if got := m.batchAt(&r, tc.p); got != tc.want {
			t.Errorf("batchAt(%d): got %d, want %d", tc.p, got, tc.want)
		}
	}
}
