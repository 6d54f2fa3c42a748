package kafka

import (
	"strings"
	"testing"
)

// TestCutsAreExactlyTheBoundedSteps checks NextCut against the model with one bound
// raised: in a sample of reachable states, every step that the raised model has and the
// bounded one lacks was reported as cut by that bound, and every step reported as cut by
// a bound is a step of the model with that bound raised. Next and NextCut give the same
// successors, and no cut step is also a successor. Reference: issue 10 (bounds are cuts,
// not guards).
func TestCutsAreExactlyTheBoundedSteps(t *testing.T) {
	single := DefaultConfig()
	single.MaxRecords, single.MaxEpoch, single.LeaderChange, single.Crash = 1, 2, 1, 1
	cp := DefaultConfig()
	cp.MaxRecords, cp.MaxEpoch, cp.Controllers, cp.ControllerBroker, cp.Crash = 1, 1, 2, 3, 1
	cp2 := cp
	cp2.Failover, cp2.MaxEpoch, cp2.Crash, cp2.MaxRecords = 1, 2, 2, 0
	mech := DefaultConfig()
	// max_epoch 1: every election is cut (with 2 the shutdown's steps put the second
	// election beyond the sample).
	mech.Brokers, mech.MaxRecords, mech.MaxEpoch, mech.UncleanElection, mech.ControlledShutdown, mech.PreferredElection = 2, 1, 1, true, 1, 1
	mechCP := DefaultConfig()
	mechCP.MaxRecords, mechCP.MaxEpoch, mechCP.Controllers, mechCP.Failover = 0, 2, 2, 1
	mechCP.ControllerHostCrash, mechCP.ControlledShutdown, mechCP.PreferredElection, mechCP.ControlLoss, mechCP.Lag = true, 1, 1, 1, 1
	bytes := single // reads by position, with the send-side fix's post-pass (bytes.go)
	bytes.RecordSizes, bytes.MaxFetchRecords, bytes.MaxRecords = SizesVaried, 2, 2
	bytes.Switches = bytes.Switches.With(Kafka18723SendSide, true)
	// KRaft below metadata version 3.6: an AlterPartition's shrink bumps the leader epoch,
	// which max_epoch 1 cuts (it used to panic).
	kraft33 := DefaultConfig()
	kraft33.KRaft, kraft33.Version, kraft33.Brokers, kraft33.MinISR = true, "3.3.2", 3, 2
	kraft33.MaxRecords, kraft33.MaxEpoch, kraft33.Lag = 1, 1, 1
	for _, tc := range []struct {
		name string
		c    Config
	}{{"single", single}, {"controlplane", cp}, {"failover", cp2}, {"mechanisms", mech}, {"mechanisms-controlplane", mechCP}, {"bytes", bytes}, {"kraft-3.3", kraft33}} {
		m, err := New(tc.c)
		if err != nil {
			t.Fatal(err)
		}
		names := m.Bounds()
		raised := func(bound int) *Model {
			c := m.C
			switch bound {
			case BoundMaxEpoch:
				c.MaxEpoch++
			case BoundMaxRecords:
				c.MaxRecords++
			case BoundCrash + FaultCrash:
				c.Crash++
			case BoundCrash + FaultUnclean:
				c.UncleanCrash++
			case BoundCrash + FaultLag:
				c.Lag++
			case BoundCrash + FaultLoss:
				c.MessageLoss++
			case BoundCrash + FaultLeaderChange:
				c.LeaderChange++
			case BoundSessionLoss:
				c.SessionLoss++
			case BoundFailover:
				c.Failover++
			case BoundControllers:
				c.Controllers++
			case BoundPowerLoss:
				c.PowerLoss++
			case BoundControlledShutdown:
				c.ControlledShutdown++
			case BoundPreferred:
				c.PreferredElection++
			case BoundControlLoss:
				c.ControlLoss++
			case BoundQuorumFailover:
				c.QuorumFailover++
			}
			return newModel(c) // not validated: a raised bound may exceed a limit of the spec
		}
		all := raised(-1)
		for b := range names {
			all = newModel(all.C).raisedFrom(b, raised)
		}
		// A sample of reachable states.
		states := m.Init(nil)
		var succ []State
		var acts []uint64
		for i := 0; i < len(states) && len(states) < 3000; i++ {
			succ, acts = m.Next(&states[i], succ[:0], acts[:0])
			states = append(states, succ...)
		}
		seen := map[int]int{}
		for i := range states {
			s := &states[i]
			succ, acts = m.Next(s, succ[:0], acts[:0])
			s2, a2, cut, by := m.NextCut(s, nil, nil, nil, nil)
			if len(s2) != len(succ) {
				t.Fatalf("%s: state %d: Next gives %d successors, NextCut %d", tc.name, i, len(succ), len(s2))
			}
			for k := range succ {
				if s2[k] != succ[k] || a2[k] != acts[k] {
					t.Fatalf("%s: state %d: successor %d differs between Next and NextCut", tc.name, i, k)
				}
			}
			for j, a := range cut {
				seen[by[j]]++
				for _, x := range acts {
					if x == a {
						t.Fatalf("%s: state %d: %s is both a step and cut", tc.name, i, m.ActionName(a))
					}
				}
				// The cut step is a step once the bounds are raised (its own may not be
				// the only one that cuts it: a leader change may need both budget and epoch).
				_, ra := all.Next(s, nil, nil)
				if !containsAction(ra, a) {
					t.Errorf("%s: state %d: %s reported cut by %s, but raising the bounds does not enable it", tc.name, i, m.ActionName(a), names[by[j]])
				}
			}
			// Every step that raising a bound adds was reported as cut by it.
			for b := range names {
				r := raised(b)
				_, ra := r.Next(s, nil, nil)
				for _, a := range ra {
					if containsAction(acts, a) {
						continue
					}
					// One instance of each crash with choices stands for them all.
					switch r := &s.B[argOf(a, 0)]; kindOf(a) {
					case KindBrokerUncleanCrash:
						a = act(KindBrokerUncleanCrash, argOf(a, 0), int(r.LEO), int(r.NCache))
					case KindBrokerPowerLoss:
						a = act(KindBrokerPowerLoss, argOf(a, 0), int(r.LEO), int(r.LEO), int(r.NCache))
					case KindBrokerCrash, KindBrokerControlledShutdown:
						a = act1(kindOf(a), argOf(a, 0))
					case KindNetworkLoseControlMessage:
						a = act(KindNetworkLoseControlMessage, argOf(a, 0), 0)
					}
					found := false
					for j := range cut {
						found = found || (cut[j] == a && by[j] == b)
					}
					if !found {
						t.Errorf("%s: state %d: raising %s adds %s, which was not reported cut by it", tc.name, i, names[b], m.ActionName(a))
					}
				}
			}
			if t.Failed() {
				return
			}
		}
		// The sample exercises the bounds the configuration is about.
		want := []int{BoundMaxEpoch}
		if tc.c.MaxRecords > 0 {
			want = append(want, BoundMaxRecords)
		}
		if tc.c.MaxRecords > 0 && tc.c.Lag == 0 {
			want = append(want, BoundCrash+FaultLag)
		}
		if tc.c.Controllers > 1 {
			want = append(want, BoundFailover)
		}
		for _, b := range want {
			if seen[b] == 0 {
				t.Errorf("%s: no step cut by %s in %d states", tc.name, names[b], len(states))
			}
		}
	}
}

// raisedFrom applies raise's change for bound b on top of m's configuration.
func (m *Model) raisedFrom(b int, raise func(int) *Model) *Model {
	base := raise(-1).C
	r := raise(b).C
	c := m.C
	c.MaxEpoch += r.MaxEpoch - base.MaxEpoch
	c.MaxRecords += r.MaxRecords - base.MaxRecords
	c.Crash += r.Crash - base.Crash
	c.UncleanCrash += r.UncleanCrash - base.UncleanCrash
	c.Lag += r.Lag - base.Lag
	c.MessageLoss += r.MessageLoss - base.MessageLoss
	c.LeaderChange += r.LeaderChange - base.LeaderChange
	c.SessionLoss += r.SessionLoss - base.SessionLoss
	c.Failover += r.Failover - base.Failover
	c.Controllers += r.Controllers - base.Controllers
	c.PowerLoss += r.PowerLoss - base.PowerLoss
	c.ControlledShutdown += r.ControlledShutdown - base.ControlledShutdown
	c.PreferredElection += r.PreferredElection - base.PreferredElection
	c.ControlLoss += r.ControlLoss - base.ControlLoss
	c.QuorumFailover += r.QuorumFailover - base.QuorumFailover
	return newModel(c)
}

func containsAction(acts []uint64, a uint64) bool {
	for _, x := range acts {
		if x == a {
			return true
		}
	}
	return false
}

func TestBoundsNames(t *testing.T) {
	m, _ := New(DefaultConfig())
	got := strings.Join(m.Bounds(), " ")
	want := "max_epoch=3 max_records=2 crash=0 unclean_crash=0 lag=0 message_loss=0 leader_change=0 session_loss=0 controller_failover=0 controllers=1 power_loss=0" +
		" controlled_shutdown=0 preferred_election=0 control_loss=0 quorum_failover=0"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
