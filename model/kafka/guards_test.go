package kafka

import (
	"strings"
	"testing"
)

// Reference: issue 16. Every guard has a name (an identifier, unique), a doc line and a
// Kafka citation naming a function; a guard with no code path in a configuration is an
// error naming it, and one with a code path is accepted.
func TestGuardTable(t *testing.T) {
	seen := map[string]bool{}
	for g, info := range Guards {
		if info.Name == "" || strings.ContainsAny(info.Name, " -.") || seen[info.Name] {
			t.Errorf("guard %d: bad or duplicate name %q", g, info.Name)
		}
		seen[info.Name] = true
		if info.Doc == "" || !strings.Contains(info.Kafka, ".") || !strings.Contains(info.Kafka, ":") {
			t.Errorf("guard %s: want a doc line and a citation \"Class.function: condition\", got %q", info.Name, info.Kafka)
		}
	}
	tests := []struct {
		version     string
		controllers int
		guard       Guard
		want        string // "" for accepted
	}{
		{"3.9", 1, GuardISRJoinHW, ""},
		{"3.9.0", 1, GuardFetchResponseEpoch, "guard FetchResponseEpoch needs KAFKA-18991 (3.9.1, 4.0.1, 4.1.0); version 3.9.0"},
		{"3.9", 1, GuardFetchResponseEpoch, ""}, // 3.9.1
		{"3.9.0", 1, GuardAlterPartitionBrokerEpoch, "needs KIP-903 (3.5.0) and a KRaft controller"},
		{"4.0.1", 1, GuardAlterPartitionBrokerEpoch, ""},
		{"1.1", 1, GuardLeaderAndIsrBrokerEpoch, "needs KIP-380 (2.2.0)"},
		{"2.7", 1, GuardLeaderAndIsrBrokerEpoch, ""},
		{"4.1", 1, GuardFetchResponseEpoch, ""},
		{"0.11", 1, GuardFetchDivergence, "needs truncation by diverging epoch"},
		{"3.9", 1, GuardZkVersion, "needs the control plane"},
		{"1.1", 1, GuardZkVersion, ""}, // the leader writes the ISR to ZooKeeper itself
		{"3.3", 2, GuardStaleControllerEpoch, ""},
		{"3.3", 2, GuardAlterPartitionBrokerEpoch, "needs KIP-903"},
	}
	for _, tt := range tests {
		c := DefaultConfig()
		c.Version, c.Controllers, c.Mutate = tt.version, tt.controllers, GuardBit(tt.guard)
		if tt.controllers > 1 {
			c.Failover = 1
		}
		err := c.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s on %s: got %v, want accepted", Guards[tt.guard].Name, tt.version, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s on %s: got %v, want an error containing %q", Guards[tt.guard].Name, tt.version, err, tt.want)
		}
	}
}

// Reference: issue 16. A guard turned off changes what is reachable: with ISRJoinHW off a
// follower behind the high watermark joins the ISR, and some state differs; with no guard
// off the successors are those of the unmutated model.
func TestGuardOffChangesSuccessors(t *testing.T) {
	c := DefaultConfig()
	c.Lag = 1
	base, _ := New(c)
	c.Mutate = GuardBit(GuardISRJoinHW)
	mut, _ := New(c)
	count := func(m *Model) int {
		seen := map[State]bool{}
		queue := m.Init(nil)
		for _, s := range queue {
			seen[s] = true
		}
		for i := 0; i < len(queue) && len(seen) < 20000; i++ {
			succ, _ := m.Next(&queue[i], nil, nil)
			for _, t := range succ {
				if !seen[t] {
					seen[t] = true
					queue = append(queue, t)
				}
			}
		}
		return len(seen)
	}
	if a, b := count(base), count(mut); a == b {
		t.Errorf("ISRJoinHW off: %d states within the first 20000, as many as with it on; want a difference", b)
	}
}
