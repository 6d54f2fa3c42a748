package kafka

import (
	"strings"
	"testing"
)

// Reference: issue 16, KIP-966, KIP-903. A KRaft guard has a code path only with
// control_plane = kraft (and what its mechanism needs); with KRaft the ZooKeeper plane's
// and the single controller's guards have none.
func TestKRaftGuardIn(t *testing.T) {
	tests := []struct {
		version    string
		kraft, elr bool
		guard      Guard
		want       string // "" for accepted
	}{
		{"3.9", false, false, GuardKRaftAlterPartitionPartitionEpoch, "guard KRaftAlterPartitionPartitionEpoch needs control_plane = kraft"},
		{"3.9", true, false, GuardKRaftAlterPartitionPartitionEpoch, ""},
		{"3.9", true, false, GuardKRaftRegisterIncarnation, ""},
		{"3.3", true, false, GuardKRaftAlterPartitionBrokerEpoch, "needs KIP-903"},
		{"3.9", true, false, GuardKRaftELRActive, "needs KIP-966"},
		{"4.0.1", true, true, GuardKRaftELRActive, ""},
		{"4.0.1", true, true, GuardKRaftELRUncleanShutdown, ""},
		{"4.1", true, false, GuardKRaftELRActive, ""}, // ELR in the 4.1 profiles
		{"3.9", true, true, GuardKRaftELRActive, "needs version 4.0.0 or later"},
		{"3.9", true, false, GuardLeaderAndIsrEpoch, "guard LeaderAndIsrEpoch has no code path with control_plane = kraft"},
		{"3.9", true, false, GuardAlterPartitionPartitionEpoch, "no code path with control_plane = kraft"},
		{"3.9", true, false, GuardISRJoinHW, ""},
		{"3.9", true, false, GuardFetcherNewEpoch, ""},
		{"3.9", false, false, GuardLeaderAndIsrEpoch, ""},
	}
	for _, tt := range tests {
		c := DefaultConfig()
		c.Version, c.KRaft, c.Switches, c.Mutate = tt.version, tt.kraft, c.Switches.With(KIP966, tt.elr), GuardBit(tt.guard)
		err := c.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s (kraft %v, elr %v): got %v, want accepted", Guards[tt.guard].Name, tt.kraft, tt.elr, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s (kraft %v, elr %v): got %v, want an error containing %q", Guards[tt.guard].Name, tt.kraft, tt.elr, err, tt.want)
		}
	}
}

// Reference: issue 16. Each KRaft guard turned off changes what is reachable on a small
// KRaft configuration (so that it is read where its condition fails), and the model with
// every KRaft guard off still allocates nothing per state.
func TestKRaftGuardOffChangesSuccessors(t *testing.T) {
	bfs := func(c Config, limit int) int {
		m, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[State]bool{}
		queue := m.Init(nil)
		for _, s := range queue {
			seen[s] = true
		}
		var succ []State
		var acts []uint64
		for i := 0; i < len(queue) && len(seen) < limit; i++ {
			succ, acts = m.Next(&queue[i], succ[:0], acts[:0])
			for _, s := range succ {
				if !seen[s] {
					seen[s] = true
					queue = append(queue, s)
				}
			}
		}
		return len(seen)
	}
	base := kraftConfig(true)
	mutant := base
	for g := GuardKRaftAlterPartitionLeaderEpoch; g < NumGuards; g++ {
		if g != GuardKRaftRegisterIncarnation { // no code path from 4.0
			mutant.Mutate |= GuardBit(g)
		}
	}
	nextAllocatesNothing(t, mutant)
	// The bases, two brokers: those of specs/kafka-kraft-guards.toml where kmc mutate
	// measured a different count with the guard off.
	counts := map[Config]int{}
	for g := GuardKRaftAlterPartitionLeaderEpoch; g < NumGuards; g++ {
		c := DefaultConfig()
		c.Brokers, c.KRaft, c.Switches, c.Version, c.MaxRecords = 2, true, c.Switches.With(KIP966, true), "4.0.1", 1
		switch g {
		case GuardKRaftAlterPartitionLeaderEpoch, GuardKRaftAlterPartitionPartitionEpoch, GuardKRaftAlterPartitionEligible:
			c.Switches, c.Lag, c.SessionLoss = c.Switches.With(KIP966, false), 1, 1
		case GuardKRaftReplayPartitionEpoch:
			c.MaxRecords, c.Lag, c.Crash = 2, 1, 1
		case GuardKRaftRegisterIncarnation:
			c.Version, c.Switches, c.Crash, c.PowerLoss = "3.9", c.Switches.With(KIP966, false), 1, 1 // 3.9: registration waits for the fencing
		default:
			c.Crash, c.PowerLoss = 1, 1
		}
		a, ok := counts[c]
		if !ok {
			a = bfs(c, 1<<20)
			counts[c] = a
		}
		c.Mutate = GuardBit(g)
		if b := bfs(c, 1<<20); a == b {
			t.Errorf("%s off: %d states, as many as with it on; want a difference", Guards[g].Name, b)
		}
	}
}
