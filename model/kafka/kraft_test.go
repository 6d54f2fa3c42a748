package kafka

import (
	"strings"
	"testing"
)

// kraftConfig is a KRaft configuration with every KRaft step and fault enabled.
func kraftConfig(elr bool) Config {
	c := DefaultConfig()
	c.KRaft, c.Switches, c.Version = true, c.Switches.With(KIP966, elr), "3.9"
	if elr {
		c.Version = "4.0.1" // ELR: opt-in from 4.0
	}
	c.MaxRecords, c.Crash, c.PowerLoss, c.Lag, c.SessionLoss, c.ControlledShutdown, c.QuorumFailover = 1, 1, 1, 1, 1, 1, 1
	return c
}

// Reference: DESIGN §2 (no allocation per state), with the KRaft plane.
func TestKRaftNextAllocatesNothing(t *testing.T) {
	for _, elr := range []bool{false, true} {
		nextAllocatesNothing(t, kraftConfig(elr))
	}
}

// Reference: KIP-966. Over a BFS sample: the encoding round-trips, Valid holds, and the
// state invariants of KRaft (kraft.go) hold: kept records unread by someone, ELR disjoint
// from the ISR and empty at min ISR, brokers in controlled shutdown are not live.
func TestKRaftEncodingAndInvariants(t *testing.T) {
	for _, elr := range []bool{false, true} {
		c := kraftConfig(elr)
		c.MinISR = 2
		m, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		states := m.Init(nil)
		seen := map[string]bool{}
		var succ []State
		var acts []uint64
		for i := 0; i < len(states) && len(states) < 20000; i++ {
			s := &states[i]
			enc := m.Encode(s, nil)
			var d State
			m.Decode(enc, &d)
			if d != *s {
				t.Fatalf("decode(encode(s)) != s for\n%s", m.Format(s))
			}
			if err := m.Valid(s); err != nil {
				t.Fatalf("%v in\n%s", err, m.Format(s))
			}
			k := &s.KR
			if k.N > 0 {
				some := false
				for b := 0; b < m.nb(); b++ {
					some = some || k.Lag[b] == k.N
				}
				if !some {
					t.Fatalf("a record every broker read is kept in\n%s", m.Format(s))
				}
			}
			if k.ELR&s.Ctrl.ISR != 0 || (popcount(s.Ctrl.ISR) >= c.MinISR && k.ELR != 0) || (!elr && k.ELR|k.LastELR != 0) {
				t.Fatalf("ELR %b with ISR %b in\n%s", k.ELR, s.Ctrl.ISR, m.Format(s))
			}
			if k.Down&s.Ctrl.Live != 0 || k.Fenced&s.Ctrl.Live != 0 {
				t.Fatalf("a fenced or shutting-down broker is live in\n%s", m.Format(s))
			}
			succ, acts = m.Next(s, succ[:0], acts[:0])
			for j := range succ {
				key := string(m.Encode(&succ[j], nil))
				if !seen[key] {
					seen[key] = true
					states = append(states, succ[j])
				}
			}
		}
		if len(states) < 20000 {
			t.Errorf("elr=%v: only %d states reached; the sample should be larger", elr, len(states))
		}
	}
}

// step applies the enabled action called name to s, or fails the test.
func step(t *testing.T, m *Model, s State, name string) State {
	t.Helper()
	succ, acts := m.Next(&s, nil, nil)
	for i, a := range acts {
		if m.ActionName(a) == name {
			return succ[i]
		}
	}
	t.Fatalf("%s is not enabled in\n%s", name, m.Format(&s))
	return s
}

// Reference: KIP-966; the KRaft controlPlane view marks a broker image that lags the active
// controller, and shows the old active controller until it renounces.
func TestKRaftView(t *testing.T) {
	c := DefaultConfig()
	c.KRaft, c.Brokers, c.MaxRecords, c.SessionLoss, c.QuorumFailover = true, 2, 0, 1, 1
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Init(nil)[0]
	s = step(t, m, s, "ControllerQuorumFailover(2)")
	s = step(t, m, s, "BrokerSessionLoss(2)")
	got := string(m.AppendViews(&s, nil))
	for _, want := range []string{`"title":"KRaft control plane"`, `"old controller"`,
		`{"text":"{1,2}","marks":["stale"]}`, `"b2 image"`} {
		if !strings.Contains(got, want) {
			t.Errorf("views: got %s, want it to hold %s", got, want)
		}
	}
	s = step(t, m, s, "ControllerRenounce(1)")
	if got := string(m.AppendViews(&s, nil)); strings.Contains(got, `"old controller"`) {
		t.Errorf("views after the renounce still show the old controller: %s", got)
	}
}

// Reference: sequence charts (checker.Eventer) of the KRaft plane. Over a BFS sample, each
// KRaft control-plane step draws what happened: a registration and a heartbeat as messages
// to the controller with the record appended, a fencing with its records, a replay as a
// message from the controller (or a broker's first image).
func TestKRaftEvents(t *testing.T) {
	m, states := reachable(t, kraftConfig(false), 20000)
	want := map[int][]string{
		KindControllerRegisterBroker: {`"type":"send","actor":"b`, `BrokerRegistration b`, `RegisterBrokerRecord b`},
		KindControllerUnfenceBroker:  {`BrokerHeartbeat b`, `unfenced`},
		KindControllerFenceBroker:    {`session of b`, `fenced`},
		KindBrokerReplayMetadata:     {`"actor":"controller"`},
		KindControllerQuorumFailover: {`ControllerQuorumFailover`},
	}
	found := map[int]bool{}
	var succ []State
	var acts []uint64
	for i := range states {
		succ, acts = m.Next(&states[i], succ[:0], acts[:0])
		for j, a := range acts {
			subs, ok := want[kindOf(a)]
			if !ok {
				continue
			}
			ev := string(m.AppendEvents(&states[i], a, &succ[j], nil))
			if kindOf(a) == KindBrokerReplayMetadata && states[i].KR.Lag[argOf(a, 0)] == 0 {
				subs = []string{"publishes its first metadata image"}
			}
			for _, s := range subs {
				if !strings.Contains(ev, s) {
					t.Errorf("%s: events %s lack %q", m.ActionName(a), ev, s)
				}
			}
			found[kindOf(a)] = true
		}
	}
	for k := range want {
		if !found[k] {
			t.Errorf("no step of kind %d in the sample", k)
		}
	}
}
