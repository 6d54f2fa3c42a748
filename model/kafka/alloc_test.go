package kafka

import "testing"

// Reference: DESIGN §2 (successors into caller-owned buffers, no allocation per state).
func TestNextAllocatesNothing(t *testing.T) {
	c := DefaultConfig()
	c.MaxRecords, c.MaxEpoch, c.MaxFetchRecords, c.LeaderChange = 4, 2, 2, 1
	c.Crash, c.UncleanCrash, c.Lag, c.MessageLoss = 1, 1, 1, 1
	bytes := c // reads by position, and the send-side fix's post-pass (bytes.go)
	bytes.RecordSizes = SizesVaried
	bytes.Switches = bytes.Switches.With(Kafka18723SendSide, true).With(Kafka18723, true).With(Kafka18723Strict, true)
	mutant := c // every guard with a code path here turned off (issue 16)
	p, _ := ProfileByName(DefaultVersion)
	for g := Guard(0); g < NumGuards; g++ {
		if c.guardIn(g, &p) == "" {
			mutant.Mutate |= GuardBit(g)
		}
	}
	for _, c := range []Config{c, bytes, mutant} {
		nextAllocatesNothing(t, c)
	}
	for _, mode := range []int{Fired, Counted} { // the counters (switches.go) allocate nothing either
		counting = mode
		nextAllocatesNothing(t, bytes)
		nextAllocatesNothing(t, mutant)
	}
	counting = NotCounted
}

// counting is the counting mode of the models nextAllocatesNothing builds.
var counting = NotCounted

func nextAllocatesNothing(t *testing.T, c Config) {
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	m.CountBranches(counting)
	// A sample of reachable states, by a short BFS.
	states := m.Init(nil)
	succ := make([]State, 0, 256)
	acts := make([]uint64, 0, 256)
	for i := 0; i < len(states) && len(states) < 2000; i++ {
		succ, acts = m.Next(&states[i], succ[:0], acts[:0])
		states = append(states, succ...)
	}
	buf := make([]byte, 0, 1024)
	cut := make([]uint64, 0, 64)
	by := make([]int, 0, 64)
	var d State
	allocs := testing.AllocsPerRun(10, func() {
		for i := range states {
			succ, acts = m.Next(&states[i], succ[:0], acts[:0])
			succ, acts, cut, by = m.NextCut(&states[i], succ[:0], acts[:0], cut[:0], by[:0])
			buf = m.Encode(&states[i], buf[:0])
			m.Decode(buf, &d)
		}
	})
	if allocs != 0 {
		t.Errorf("Next/NextCut/Encode/Decode over %d states: got %v allocations per run, want 0", len(states), allocs)
	}
}
