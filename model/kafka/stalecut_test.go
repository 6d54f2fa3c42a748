package kafka

import "testing"

// Reference: the conformance walks of Kafka 3.9.2 (issue 27). A pending checkpoint write
// writes the whole cache of its moment, so a crash finds the file before the first pending
// truncation or as one truncation left the cache, never cut between the entries one
// truncation removed; and once the scheduler has stopped no pending write runs. The walk that
// found the first (3 brokers, walk 4226 of seed 1) had a kill find one of the two entries the
// recovery's truncation removed; the second (walk 630), a power loss find the file without the
// entry a truncation after BrokerBeginShutdown removed.
func TestStaleFileCuts(t *testing.T) {
	cache := func(n uint8) Replica {
		var r Replica
		for i := uint8(0); i < n; i++ {
			r.Cache[i] = EpochEntry{Epoch: i + 1, Start: i}
		}
		r.NCache = n
		return r
	}
	for _, tc := range []struct {
		name    string
		entries uint8
		truncs  []uint8 // truncateFromEnd's end offsets, in order
		closing bool    // the scheduler stopped before the truncations
		files   []uint8 // the file lengths a crash can find, NCache..NCache+NStale
	}{
		{"one truncation removes two", 3, []uint8{1}, false, []uint8{1, 3}},
		{"two truncations of one each", 3, []uint8{2, 1}, false, []uint8{1, 2, 3}},
		{"three of one each", 4, []uint8{3, 2, 1}, false, []uint8{1, 2, 3, 4}},
		{"two then one", 4, []uint8{2, 1}, false, []uint8{1, 2, 4}},
		{"one then two", 4, []uint8{3, 1}, false, []uint8{1, 3, 4}},
		{"a truncation that removes nothing", 3, []uint8{2, 5, 1}, false, []uint8{1, 2, 3}},
		{"scheduler stopped", 3, []uint8{2, 1}, true, []uint8{3}},
		{"scheduler stopped, one truncation", 3, []uint8{0}, true, []uint8{3}},
	} {
		r := cache(tc.entries)
		if tc.closing {
			r.Shut = ShutClosing
		}
		for _, end := range tc.truncs {
			r.truncateFromEnd(end, true)
		}
		var got []uint8
		for j := r.NCache; j <= r.NCache+r.NStale; j++ {
			if r.fileCanHold(j) {
				got = append(got, j)
			}
		}
		if string(got) != string(tc.files) {
			t.Errorf("%s: a crash finds files of %v entries; want %v (cache %d, stale %d, cuts %08b)",
				tc.name, got, tc.files, r.NCache, r.NStale, r.StaleCut)
		}
		r.assign(9, r.LEO)
		if r.NStale != 0 || r.StaleCut != 0 {
			t.Errorf("%s: an assignment left stale %d, cuts %08b", tc.name, r.NStale, r.StaleCut)
		}
	}
}
