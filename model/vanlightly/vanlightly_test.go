package vanlightly

import (
	"encoding/json"
	"testing"

	"kmc/checker"
)

// portResult is what a plain breadth-first search over the port finds.
type portResult struct {
	states []State
	depth  int
}

// explorePort enumerates every reachable state of m breadth-first, as TLC does with one
// worker: a state is known by the module's VIEW (by its whole encoding when whole is
// set), and the first state found with a view is the one kept and expanded. Initial
// states are at depth 1.
func explorePort(m *Model, whole bool) portResult {
	key := func(s *State) string {
		enc := m.Encode(s, nil)
		if whole {
			return string(enc)
		}
		return string(m.View(enc))
	}
	seen := map[string]bool{}
	var res portResult
	level := m.Init(nil)
	for i := range level {
		seen[key(&level[i])] = true
	}
	res.states = append(res.states, level...)
	var succ []State
	var acts []uint64
	for len(level) > 0 {
		res.depth++
		var next []State
		for i := range level {
			succ, acts = m.Next(&level[i], succ[:0], acts[:0])
			for j := range succ {
				if k := key(&succ[j]); !seen[k] {
					seen[k] = true
					next = append(next, succ[j])
				}
			}
		}
		res.states = append(res.states, next...)
		level = next
	}
	return res
}

func mustNew(t testing.TB, c Config) *Model {
	t.Helper()
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// cfgRF2 is the module's cfg with ReplicationFactor = 2, and cfgRF3Static the cfg with
// CleanShutdownLimit = 0 and AlterPartitionLimit = 0: the two configurations whose counts
// the regression suite pins (TLC's).
var (
	cfgRF2 = Config{ReplicationFactor: 2, Values: 1, MinISR: 2, InitIsrSize: 2, CleanShutdownLimit: 1,
		FenceBrokerLimit: 1, AlterPartitionLimit: 1, AvoidLastReplicaStanding: true, LimitFetchesOnLeaderEpoch: true}
	cfgRF3Static = Config{ReplicationFactor: 3, Values: 1, MinISR: 2, InitIsrSize: 2,
		FenceBrokerLimit: 1, AvoidLastReplicaStanding: true, LimitFetchesOnLeaderEpoch: true}
)

// with returns c changed by f.
func with(c Config, f func(c *Config)) Config {
	f(&c)
	return c
}

// smallConfigs reach every action of the module (each is checked to be taken) and stay
// small enough for the naive cross-check.
var smallConfigs = []Config{
	with(cfgRF2, func(c *Config) { c.CleanShutdownLimit = 0 }),
	with(cfgRF2, func(c *Config) { c.FenceBrokerLimit = 0 }),
	with(cfgRF2, func(c *Config) {
		c.FenceBrokerLimit, c.CleanShutdownLimit, c.AlterPartitionLimit = 0, 0, 0
		c.UncleanShutdownLimit, c.AvoidLastReplicaStanding = 1, false
	}),
	with(cfgRF2, func(c *Config) { c.CleanShutdownLimit, c.LimitFetchesOnLeaderEpoch = 0, false }),
	with(cfgRF3Static, func(c *Config) { c.FenceBrokerLimit = 0 }),
	with(cfgRF3Static, func(c *Config) { c.FenceBrokerLimit, c.AlterPartitionLimit, c.MinISR = 0, 1, 1 }),
}

// TestTLCCounts: a plain search of the port, known by the VIEW, finds TLC's distinct
// states and depth for the two pinned configurations.
// Reference: TLC on kafka_replication_v3_5_simple.cfg (docs/tla-ports.md, specs/vanlightly).
func TestTLCCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("explores 470,000 states")
	}
	for _, tt := range []struct {
		c             Config
		states, depth int
	}{{cfgRF2, 314423, 37}, {cfgRF3Static, 157986, 35}} {
		m := mustNew(t, tt.c)
		res := explorePort(m, false)
		if len(res.states) != tt.states || res.depth != tt.depth {
			t.Errorf("RF %d: got %d states, depth %d; want TLC's %d, %d", tt.c.ReplicationFactor, len(res.states), res.depth, tt.states, tt.depth)
		}
	}
}

// TestViewMatters: known by the whole state (without the VIEW) the search finds more
// states, so the view is what makes the counts TLC's.
func TestViewMatters(t *testing.T) {
	m := mustNew(t, smallConfigs[0]) // 6,204 states with the VIEW, 6,322 without
	view, whole := explorePort(m, false), explorePort(m, true)
	if len(whole.states) <= len(view.states) {
		t.Errorf("got %d states without the VIEW, want more than the %d with it", len(whole.states), len(view.states))
	}
}

// TestEncodeRoundTrip checks Decode(Encode(s)) == s on every reachable state, and that
// View ignores exactly the auxiliary variables.
func TestEncodeRoundTrip(t *testing.T) {
	for _, c := range smallConfigs {
		m := mustNew(t, c)
		res := explorePort(m, false)
		for i := range res.states {
			s := &res.states[i]
			enc := m.Encode(s, nil)
			var back State
			m.Decode(enc, &back)
			if back != *s {
				t.Fatalf("Decode(Encode(s)) = %+v, want %+v", back, *s)
			}
			aux := *s
			aux.AuxBrokerEpoch++
			aux.Ctrs.FenceBroker++
			aux.Ctrs.Incarnation++
			if string(m.View(m.Encode(&aux, nil))) != string(m.View(enc)) {
				t.Fatalf("View depends on aux_vars")
			}
			other := *s
			other.TrueHWM++
			if string(m.View(m.Encode(&other, nil))) == string(m.View(enc)) {
				t.Fatalf("View ignores inv_true_hwm")
			}
		}
	}
}

// TestEveryActionTaken checks that the small configurations take every action of Next, so
// that the cross-checks below cover each.
func TestEveryActionTaken(t *testing.T) {
	var taken [numKinds]bool
	var succ []State
	var acts []uint64
	for _, c := range smallConfigs {
		m := mustNew(t, c)
		res := explorePort(m, false)
		for i := range res.states {
			succ, acts = m.Next(&res.states[i], succ[:0], acts[:0])
			for _, a := range acts {
				taken[m.ActionKind(a)] = true
			}
		}
	}
	for k, ok := range taken {
		if !ok {
			t.Errorf("action %s is never taken", kindNames[k])
		}
	}
}

// TestActionCodesUnique checks that in every reachable state the enabled actions have
// distinct codes, each of a kind of the module.
func TestActionCodesUnique(t *testing.T) {
	for _, c := range smallConfigs {
		m := mustNew(t, c)
		res := explorePort(m, false)
		var succ []State
		var acts []uint64
		for i := range res.states {
			succ, acts = m.Next(&res.states[i], succ[:0], acts[:0])
			codes := map[uint64]bool{}
			for _, a := range acts {
				if codes[a] {
					t.Fatalf("action %s enabled twice in one state", m.ActionName(a))
				}
				codes[a] = true
				if k := m.ActionKind(a); k < 0 || k >= len(m.ActionKinds()) {
					t.Fatalf("action %s has kind %d", m.ActionName(a), k)
				}
			}
		}
	}
}

// TestAppendValueIsJSON checks that every variable of every reachable state prints as
// valid JSON, and some of the initial state as the module's Init.
func TestAppendValueIsJSON(t *testing.T) {
	m := mustNew(t, smallConfigs[0])
	res := explorePort(m, false)
	for i := range res.states {
		for v := range m.Vars() {
			if b := m.AppendValue(&res.states[i], v, nil); !json.Valid(b) {
				t.Fatalf("%s: got invalid JSON %s", m.Vars()[v], b)
			}
		}
	}
	init := m.Init(nil)[0]
	tests := []struct {
		v    int
		want string
	}{
		{VarConPartitionMetadata, `{"isr":{"#set":[{"#bigint":"1"},{"#bigint":"2"}]},"leader":{"#bigint":"1"},"leader_epoch":{"#bigint":"1"},"partition_epoch":{"#bigint":"1"}}`},
		{VarPartitionLeso, `{"#map":[[{"#bigint":"1"},{"#bigint":"1"}],[{"#bigint":"2"},"Nil"]]}`},
		{VarAuxCtrs, `{"incarn_ctr":{"#bigint":"3"},"clean_shutdown_ctr":{"#bigint":"0"},"unclean_shutdown_ctr":{"#bigint":"0"},"fence_broker_ctr":{"#bigint":"0"},"alter_part_ctr":{"#bigint":"0"}}`},
		{VarMessages, `{"#map":[]}`},
	}
	for _, tt := range tests {
		if got := string(m.AppendValue(&init, tt.v, nil)); got != tt.want {
			t.Errorf("%s: got %s, want %s", m.Vars()[tt.v], got, tt.want)
		}
	}
}

// TestNextAllocs pins that Next and Encode allocate nothing once the caller's buffers have
// grown.
func TestNextAllocs(t *testing.T) {
	m := mustNew(t, smallConfigs[0])
	res := explorePort(m, false)
	s := res.states[len(res.states)/2]
	var succ []State
	var acts []uint64
	var buf []byte
	succ, acts = m.Next(&s, succ, acts)
	buf = m.Encode(&s, buf)
	if allocs := testing.AllocsPerRun(100, func() {
		succ, acts = m.Next(&s, succ[:0], acts[:0])
		buf = m.Encode(&s, buf[:0])
		_ = m.View(buf)
	}); allocs != 0 {
		t.Errorf("got %v allocations per Next and Encode, want 0", allocs)
	}
}

// TestEngineAgrees: the engine, with 1 and with 2 workers, finds the plain search's
// counts, and the same counterexample for the Last Replica Standing configuration.
func TestEngineAgrees(t *testing.T) {
	props := func(m *Model) []checker.Property[State] {
		return []checker.Property[State]{
			{Name: "ControllerIsrHasUpToTrueHWM", Kind: checker.Invariant, State: m.ControllerIsrHasUpToTrueHWM},
			{Name: "LeaderHasCompleteCommittedLog", Kind: checker.Invariant, State: m.LeaderHasCompleteCommittedLog},
		}
	}
	for _, c := range smallConfigs {
		m := mustNew(t, c)
		want := explorePort(m, false)
		var first checker.Result
		for _, w := range []int{1, 2} {
			r := checker.Check[State](m, props(m), checker.Options{Workers: w})
			if r.Verdict == checker.OK && (r.Stats.Distinct != int64(len(want.states)) || r.Stats.Depth != want.depth) {
				t.Errorf("%d workers: got %d states, depth %d; want %d, %d", w, r.Stats.Distinct, r.Stats.Depth, len(want.states), want.depth)
			}
			if w == 1 {
				first = r
				continue
			}
			if r.Verdict != first.Verdict || r.Stats.Distinct != first.Stats.Distinct || r.Property != first.Property {
				t.Errorf("2 workers: got %v %s %d states, 1 worker %v %s %d", r.Verdict, r.Property, r.Stats.Distinct,
					first.Verdict, first.Property, first.Stats.Distinct)
			}
			if !sameTrace(r.Trace, first.Trace) {
				t.Errorf("2 workers: the counterexample differs from 1 worker's")
			}
		}
	}
}

// sameTrace reports whether two counterexamples have the same actions and values.
func sameTrace(a, b *checker.Trace) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.States) != len(b.States) {
		return false
	}
	for i := range a.States {
		x, y := &a.States[i], &b.States[i]
		if x.Action != y.Action || len(x.Values) != len(y.Values) {
			return false
		}
		for j := range x.Values {
			if x.Values[j] != y.Values[j] {
				return false
			}
		}
	}
	return true
}
