package kafka

import "testing"

// Reference: issue 24 (KIP-380). No broker leads, and no LeaderAndIsr reaches a broker, on
// the strength of a controller view that predates the broker's last restart: in every
// reachable transition of configurations that combine crashes and restarts with elections
// to any ISR member, (a) with the single controller, a broker that restarted and whose
// restart the controller has not handled (Replica.Register) never becomes leader, and (b)
// with the ZooKeeper plane, no incarnation sends a LeaderAndIsr to a broker whose
// registration it has not read (its EvBrokerStartup still queued). Before KIP-380 (1.1.1)
// both happen, which the last case checks.
func TestNoLeaderFromStaleControllerView(t *testing.T) {
	single := DefaultConfig()
	single.Brokers, single.MaxRecords, single.MaxEpoch = 3, 1, 4
	single.Crash, single.UncleanCrash, single.LeaderChange = 1, 1, 2
	pref := DefaultConfig()
	pref.Brokers, pref.MaxRecords, pref.MaxEpoch = 2, 1, 4
	pref.Crash, pref.PreferredElection, pref.ControlledShutdown = 1, 1, 1
	cp := DefaultConfig()
	cp.Brokers, cp.MaxRecords, cp.MaxEpoch = 3, 0, 4
	cp.Controllers, cp.ControllerBroker, cp.Crash, cp.SessionLoss, cp.PreferredElection = 2, 3, 1, 1, 1
	old := single
	old.Version = "1.1.1"
	for _, tc := range []struct {
		name  string
		c     Config
		stale bool // before KIP-380: a stale view is acted on
	}{{"single", single, false}, {"preferred", pref, false}, {"controlplane", cp, false}, {"1.1.1", old, true}} {
		m, err := New(tc.c)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[State]bool{}
		queue := m.Init(nil)
		var succ []State
		var acts []uint64
		found := false
		for i := 0; i < len(queue) && len(queue) < 400_000; i++ {
			s := &queue[i]
			succ, acts = m.Next(s, succ[:0], acts[:0])
			for j := range succ {
				u := &succ[j]
				for b := 0; b < m.nb(); b++ {
					if u.B[b].Role == RoleLeader && s.B[b].Role != RoleLeader && u.B[b].Register {
						found = true
						if !tc.stale {
							t.Fatalf("%s: %s makes restarted broker %d leader before the controller handled its restart\n%s",
								tc.name, m.ActionName(acts[j]), b+1, m.Format(s))
						}
					}
				}
				for k := 0; k < int(u.Net.Len); k++ {
					g := &u.Net.Msgs[k]
					if g.Kind != MsgLeaderAndIsr || g.End == 0 || s.Net.find(MsgLeaderAndIsr, CtrlID, g.To) >= 0 &&
						s.Net.Msgs[s.Net.find(MsgLeaderAndIsr, CtrlID, g.To)] == *g {
						continue
					}
					c := &u.CP.C[g.End-1]
					for q := 0; q < int(c.NQ); q++ {
						if c.Q[q] == EvBrokerStartup<<4|g.To {
							t.Fatalf("%s: %s sends LeaderAndIsr to broker %d, whose registration controller %d has not read\n%s",
								tc.name, m.ActionName(acts[j]), g.To+1, g.End, m.Format(s))
						}
					}
				}
				if !seen[*u] {
					seen[*u] = true
					queue = append(queue, *u)
				}
			}
		}
		if tc.stale && !found {
			t.Errorf("%s: no restarted broker led before its restart was handled in %d states; want one (no KIP-380)", tc.name, len(queue))
		}
	}
}
