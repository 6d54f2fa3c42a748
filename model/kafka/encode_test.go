package kafka

import (
	"encoding/json"
	"testing"
)

// reachable returns up to max states of c's reachable graph, breadth-first, with a map as
// the reference seen set.
func reachable(t *testing.T, c Config, max int) (*Model, []State) {
	t.Helper()
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	states := m.Init(nil)
	seen[string(m.Encode(&states[0], nil))] = true
	var succ []State
	var acts []uint64
	for i := 0; i < len(states) && len(states) < max; i++ {
		succ, acts = m.Next(&states[i], succ[:0], acts[:0])
		for j := range succ {
			if k := string(m.Encode(&succ[j], nil)); !seen[k] {
				seen[k] = true
				states = append(states, succ[j])
			}
		}
	}
	return m, states
}

func allFaults() Config {
	c := DefaultConfig()
	c.MaxRecords, c.MaxEpoch, c.MaxFetchRecords = 3, 3, 2
	c.Crash, c.UncleanCrash, c.Lag, c.MessageLoss, c.LeaderChange = 1, 1, 1, 1, 1
	return c
}

// Reference: STYLE §6 (encode/decode round trip); DESIGN §2 (canonical encoding).
func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, v := range VersionNames() {
		c := allFaults()
		c.Version = v
		c.PowerLoss = 1
		m, states := reachable(t, c, 20000)
		for i := range states {
			s := &states[i]
			if err := m.Valid(s); err != nil {
				t.Fatalf("version %s: state %d: %v\n%s", v, i, err, m.Format(s))
			}
			enc := m.Encode(s, nil)
			var d State
			m.Decode(enc, &d)
			if d != *s {
				t.Fatalf("version %s: Decode(Encode(s)) != s:\n%s\n%s", v, m.Format(s), m.Format(&d))
			}
		}
	}
}

// Every variable's value is valid JSON, and every action has a name.
// Reference: Apalache ADR-015 (ITF).
func TestValuesAndNames(t *testing.T) {
	m, states := reachable(t, allFaults(), 3000)
	for i := range states {
		for v := range m.Vars() {
			buf := m.AppendValue(&states[i], v, nil)
			if !json.Valid(buf) {
				t.Fatalf("variable %s: invalid JSON %s", m.Vars()[v], buf)
			}
		}
		_, acts := m.Next(&states[i], nil, nil)
		for _, a := range acts {
			n := m.ActionName(a)
			if k := m.ActionKind(a); k < 0 || k >= len(m.ActionKinds()) || n[:len(m.ActionKinds()[k])] != m.ActionKinds()[k] {
				t.Fatalf("action %d: kind %d, name %q", a, k, n)
			}
		}
	}
}

// Reference: KAFKA-NOTES A.4 (faults unfair, protocol steps fair).
func TestFairness(t *testing.T) {
	m, _ := New(DefaultConfig())
	tests := []struct {
		kind int
		want int
	}{
		{KindLeaderAppend, Unfair}, {KindBrokerCrash, Unfair}, {KindBrokerUncleanCrash, Unfair},
		{KindLeaderShrinkISR, Unfair}, {KindNetworkLoseMessage, Unfair}, {KindControllerMoveLeader, Unfair},
		{KindFollowerSendFetch, Weak}, {KindLeaderHandleFetch, Weak}, {KindNetworkReadRecord, Weak},
		{KindBrokerRestart, Weak}, {KindControllerHandleBrokerFailure, Weak},
	}
	for _, tt := range tests {
		if got := m.Fairness(tt.kind); got != tt.want {
			t.Errorf("Fairness(%s) = %d, want %d", m.ActionKinds()[tt.kind], got, tt.want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	bad := []func(c *Config){
		func(c *Config) { c.Brokers = 1 },
		func(c *Config) { c.Brokers = 6 },
		func(c *Config) { c.MinISR = 4 },
		func(c *Config) { c.MaxRecords = MaxLog + 1 },
		func(c *Config) { c.MaxEpoch = 0 },
		func(c *Config) { c.MaxFetchRecords = 0 },
		func(c *Config) { c.Version = "2.0" },
		func(c *Config) { c.Version = "4.0"; c.Controllers = 2 },
		func(c *Config) { c.Version = "2.8"; c.Switches = c.Switches.With(Kafka6082, true) },
		func(c *Config) { c.Version = "2.8"; c.Without = FixBit14154 },
		func(c *Config) { c.Version = "1.1"; c.Switches = c.Switches.With(Kafka14154, true) },
		func(c *Config) { c.Lag = 16 },
	}
	for i, f := range bad {
		c := DefaultConfig()
		f(&c)
		if _, err := New(c); err == nil {
			t.Errorf("case %d: New(%+v) = nil error, want one", i, c)
		}
	}
	if _, err := New(DefaultConfig()); err != nil {
		t.Errorf("New(DefaultConfig()) = %v, want nil", err)
	}
}

// Every step's events are a valid JSON array of events between known actors.
// Reference: checker.Eventer (sequence charts).
func TestEvents(t *testing.T) {
	m, states := reachable(t, allFaults(), 3000)
	actors := map[string]bool{"": true}
	for _, a := range m.Actors() {
		actors[a] = true
	}
	for i := range states {
		succ, acts := m.Next(&states[i], nil, nil)
		for j := range succ {
			buf := m.AppendEvents(&states[i], acts[j], &succ[j], nil)
			var evs []struct{ Type, Actor, Peer, Msg, Label string }
			if err := json.Unmarshal(buf, &evs); err != nil {
				t.Fatalf("%s: %v: %s", m.ActionName(acts[j]), err, buf)
			}
			for _, e := range evs {
				if !actors[e.Actor] || e.Actor == "" || !actors[e.Peer] || (e.Type != "local" && e.Type != "state" && (e.Peer == "" || e.Msg == "")) {
					t.Fatalf("%s: bad event %+v", m.ActionName(acts[j]), e)
				}
			}
		}
	}
}
