package kafka

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// cpConfigs are control-plane configurations with every control-plane fault and each switch.
func cpConfigs() []Config {
	base := DefaultConfig()
	base.MaxRecords, base.MaxEpoch = 1, 4
	base.Controllers, base.ControllerBroker, base.Failover = 3, 3, 2
	base.Crash, base.SessionLoss, base.Lag = 1, 1, 1
	var cs []Config
	for _, fix := range []func(c *Config){
		func(c *Config) { c.Version = "0.11" },                                                        // before KAFKA-6082 and KIP-497
		func(c *Config) { c.Version = "0.11"; c.Switches = c.Switches.With(Kafka6082, true) },         // the fix on the old release
		func(c *Config) { c.Version = "2.8" },                                                         // KAFKA-6082, AlterIsr, 2.7-3.2 validation
		func(c *Config) { c.Version = "3.3"; c.Without = FixBit14154 },                                // PR 12032's validation, no fix
		func(c *Config) { c.Version = "3.3" },                                                         // KAFKA-14154's fix
		func(c *Config) { c.Version = "3.9"; c.Switches = c.Switches.With(Kafka14154Proposed, true) }, // KIP-903; the proposed fix
		func(c *Config) { c.Version = "3.3"; c.Without = FixBit6082 | FixBit14154 },                   // no fencing at all
	} {
		c := base
		fix(&c)
		cs = append(cs, c)
	}
	return cs
}

// The control plane's state round-trips through the encoding, is valid, and its ITF values
// are JSON.
// Reference: STYLE §6 (encode/decode round trip); KAFKA-5480, KAFKA-14154 (issue 5).
func TestControlPlaneEncodeDecode(t *testing.T) {
	for ci, c := range cpConfigs() {
		m, states := reachable(t, c, 20000)
		if len(states) < 1000 {
			t.Fatalf("config %d: got %d reachable states, want at least 1000", ci, len(states))
		}
		for i := range states {
			s := &states[i]
			if err := m.Valid(s); err != nil {
				t.Fatalf("config %d, state %d: %v\n%s", ci, i, err, m.Format(s))
			}
			var d State
			m.Decode(m.Encode(s, nil), &d)
			if d != *s {
				t.Fatalf("config %d: Decode(Encode(s)) != s:\n%s\n%s", ci, m.Format(s), m.Format(&d))
			}
		}
		s := &states[len(states)-1]
		for v := range m.Vars() {
			if buf := m.AppendValue(s, v, nil); !json.Valid(buf) {
				t.Fatalf("config %d: variable %s: invalid JSON %s", ci, m.Vars()[v], buf)
			}
		}
	}
}

// With controllers = 1 the control plane is absent: no CP state, no control-plane variable,
// the same encoding length as before the control plane existed.
// Reference: issue 5 ("all earlier specs keep their results").
func TestControlPlaneOffIsAbsent(t *testing.T) {
	m, states := reachable(t, allFaults(), 5000)
	for i := range states {
		if states[i].CP != (ControlPlane{}) {
			t.Fatalf("state %d: got control-plane state %+v, want zero", i, states[i].CP)
		}
	}
	if got, want := len(m.Vars()), int(numVars); got != want {
		t.Errorf("got %d variables, want %d", got, want)
	}
}

// Successors, encoding and decoding allocate nothing with the control plane on.
// Reference: DESIGN §2 (no allocation per state).
func TestControlPlaneNextAllocatesNothing(t *testing.T) {
	for ci, c := range cpConfigs() {
		m, states := reachable(t, c, 2000)
		succ := make([]State, 0, 256)
		acts := make([]uint64, 0, 256)
		buf := make([]byte, 0, 1024)
		var d State
		allocs := testing.AllocsPerRun(5, func() {
			for i := range states {
				succ, acts = m.Next(&states[i], succ[:0], acts[:0])
				buf = m.Encode(&states[i], buf[:0])
				m.Decode(buf, &d)
			}
		})
		if allocs != 0 {
			t.Errorf("config %d: got %v allocations per run, want 0", ci, allocs)
		}
	}
}

// Configuration errors of the control plane.
// Reference: issue 5; STYLE §4.
func TestControlPlaneValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(c *Config)
		ok   bool
	}{
		{"off", func(c *Config) {}, true},
		{"on", func(c *Config) { c.Controllers, c.Failover = 2, 1 }, true},
		{"failover without controllers", func(c *Config) { c.Failover = 1 }, false},
		{"session loss without controllers", func(c *Config) { c.SessionLoss = 1 }, false},
		{"leader change with controllers", func(c *Config) { c.Controllers, c.LeaderChange = 2, 1 }, false},
		{"host beyond brokers", func(c *Config) { c.Controllers, c.ControllerBroker = 2, 4 }, false},
		{"too many controllers", func(c *Config) { c.Controllers = 4 }, false},
		{"queue overflow", func(c *Config) { c.Controllers, c.Crash, c.UncleanCrash = 2, 2, 2 }, false},
	} {
		c := DefaultConfig()
		tc.edit(&c)
		if _, err := New(c); (err == nil) != tc.ok {
			t.Errorf("%s: got error %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

// Reference: KAFKA-5480, KAFKA-14154 (zombie controllers): with the control plane the
// sequence chart has a lifeline per controller incarnation and one for the store; a
// failover marks the old incarnation a zombie, its resignation ends that, store writes go
// to the store, and every event names a known actor. Without it, one controller and no
// store.
func TestEventsControlPlane(t *testing.T) {
	single, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(single.Actors()), "[b1 b2 b3 controller]"; got != want {
		t.Errorf("controllers=1: Actors() = %s, want %s", got, want)
	}
	c := cpConfigs()[0]
	m, states := reachable(t, c, 4000)
	if got, want := fmt.Sprint(m.Actors()), "[b1 b2 b3 controller1 controller2 controller3 zookeeper]"; got != want {
		t.Errorf("controllers=3: Actors() = %s, want %s", got, want)
	}
	actors := map[string]bool{}
	for _, a := range m.Actors() {
		actors[a] = true
	}
	seen := map[string]bool{}
	for i := range states {
		succ, acts := m.Next(&states[i], nil, nil)
		for j := range succ {
			name := m.ActionName(acts[j])
			var evs []struct{ Type, Actor, Peer, Msg, Label string }
			if err := json.Unmarshal(m.AppendEvents(&states[i], acts[j], &succ[j], nil), &evs); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, e := range evs {
				if !actors[e.Actor] || (e.Peer != "" && !actors[e.Peer]) {
					t.Fatalf("%s: event %+v names an unknown actor", name, e)
				}
				switch {
				case e.Type == "state" && e.Label == "zombie":
					if kindOf(acts[j]) != KindControllerFailover {
						t.Errorf("%s: zombie event outside a failover", name)
					}
					seen["zombie"] = true
				case e.Type == "state" && e.Label == "":
					seen["unzombie"] = true
				case e.Type == "recv" && e.Actor == "zookeeper" && strings.HasPrefix(e.Label, "write partition state"):
					seen["write"] = true
				case e.Type == "supersede":
					seen["supersede"] = true
				}
			}
		}
	}
	for _, w := range []string{"zombie", "unzombie", "write", "supersede"} {
		if !seen[w] {
			t.Errorf("no %s event in %d states", w, len(states))
		}
	}
}
