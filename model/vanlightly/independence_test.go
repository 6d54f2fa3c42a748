package vanlightly

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"kmc/checker"
)

// The declarations of independence (independence.go) against the port on every reachable
// state of small configurations, and the reduced search against the plain one. Reference:
// issue 31.

var propNames = []string{"ValidLeaderMaximalISR", "ControllerIsrHasUpToTrueHWM", "LeaderHasCompleteCommittedLog",
	"NoPartitionLogDivergence", "NoMetadataLogDivergence", "ConsumedRecordsMatchLeaderLog"}

func porProps(m *Model) []checker.Property[State] {
	fs := []func(*State) bool{m.ValidLeaderMaximalISR, m.ControllerIsrHasUpToTrueHWM, m.LeaderHasCompleteCommittedLog,
		m.NoPartitionLogDivergence, m.NoMetadataLogDivergence, m.ConsumedRecordsMatchLeaderLog}
	var props []checker.Property[State]
	for i, name := range propNames {
		reads := m.PropertyReads(name)
		if reads == nil {
			panic("no reads for " + name)
		}
		props = append(props, checker.Property[State]{Name: name, Kind: checker.Invariant, State: fs[i], Reads: reads})
	}
	return props
}

// porStates bounds the states each configuration is checked on, in breadth-first order by
// the whole state (the check costs the square of a state's steps).
const porStates = 2500

// porConfigs: smallConfigs (every action of the module is taken in them,
// TestEveryActionTaken), two values, and each guard turned off on a configuration where
// turning it off changes the reachable states (TestGuardOffChangesReachable).
func porConfigs() map[string]Config {
	out := map[string]Config{}
	for i, c := range smallConfigs {
		out[fmt.Sprintf("small-%d", i)] = c
	}
	out["rf2-values-2"] = with(cfgRF2, func(c *Config) { c.Values, c.FenceBrokerLimit = 2, 0 })
	out["rf2-unclean"] = with(cfgRF2, func(c *Config) { c.UncleanShutdownLimit, c.AvoidLastReplicaStanding = 1, false })
	for g := range NumGuards {
		out["without-"+Guards[g].Name] = with(smallConfigs[1], func(c *Config) { c.Mutate = GuardBit(g) })
	}
	return out
}

func TestIndependenceDeclarations(t *testing.T) {
	kinds := map[int]bool{}
	for name, c := range porConfigs() {
		m := mustNew(t, c)
		max := porStates
		if c.Mutate != 0 {
			max = porStates / 3 // a guard's first steps off the module's path
		}
		n, err := checker.CheckIndependence[State](m, porProps(m), nil, max)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n < 100 {
			t.Fatalf("%s: checked %d states", name, n)
		}
		for k := range kindsTaken(m, porStates) {
			kinds[k] = true
		}
	}
	if len(kinds) != numKinds {
		t.Errorf("%d of %d kinds took a step in the states checked", len(kinds), numKinds)
	}
}

// kindsTaken is the set of kinds with a step in the first max states of m, breadth-first by
// the whole state (the states CheckIndependence checks).
func kindsTaken(m *Model, max int) map[int]bool {
	kinds := map[int]bool{}
	states := m.Init(nil)
	seen := map[string]bool{}
	for i := 0; i < len(states) && i < max; i++ {
		succ, acts := m.Next(&states[i], nil, nil)
		for j := range succ {
			kinds[int(acts[j]&0xff)] = true
			if k := string(m.Encode(&succ[j], nil)); !seen[k] {
				seen[k] = true
				states = append(states, succ[j])
			}
		}
	}
	return kinds
}

// TestIndependenceCatchesWrongDeclarations: declarations made wrong on purpose are caught.
func TestIndependenceCatchesWrongDeclarations(t *testing.T) {
	// rf2-last-replica-standing (specs/vanlightly/v3-5-simple.toml): ControllerIsrHasUpToTrueHWM
	// fails at depth 8, when broker 1 loses a committed record to an unclean shutdown.
	lrs := mustNew(t, with(cfgRF2, func(c *Config) { c.UncleanShutdownLimit, c.AvoidLastReplicaStanding = 1, false }))
	props := porProps(lrs)
	props[1].Reads = &Objects{} // ControllerIsrHasUpToTrueHWM reads every log
	if _, err := checker.CheckIndependence[State](lrs, props, nil, 1<<20); err == nil {
		t.Error("ControllerIsrHasUpToTrueHWM declared to read nothing: no error")
	}
	m := mustNew(t, smallConfigs[1])
	bad := &wrongFootprint{Model: m}
	if _, err := checker.CheckIndependence[State](bad, porProps(m), nil, porStates); err == nil {
		t.Error("SendFetchRequest declared not to send its request: no error")
	}
	bad2 := &wrongEnablers{Model: m}
	if _, err := checker.CheckIndependence[State](bad2, porProps(m), nil, porStates); err == nil {
		t.Error("a fetch request declared to be enabled by nothing: no error")
	}
}

// wrongFootprint declares that SendFetchRequest neither reads nor writes its channel of
// fetch requests.
type wrongFootprint struct{ *Model }

func (w *wrongFootprint) Footprint(g int) (reads, writes Objects) {
	r, wr := w.Model.Footprint(g)
	if k, b, l, _ := w.groupOf(g); k == kSendFetchRequest {
		o := pair(oFetchReq, b, l)
		r[o>>6] &^= 1 << (o & 63)
		wr[o>>6] &^= 1 << (o & 63)
	}
	return r, wr
}

// wrongEnablers declares that no step can make a fetch request receivable.
type wrongEnablers struct{ *Model }

func (w *wrongEnablers) GuardEnablers(s *State, g, j int, e *GroupSet) bool {
	if k, _, _, _ := w.groupOf(g); k == kReceiveFetchRequest && j == 0 {
		*e = GroupSet{}
		return true
	}
	return w.Model.GuardEnablers(s, g, j, e)
}

// TestDeclarationsNoAllocs: the reduction asks for groups, guards and enabling sets while it
// expands a state, so none of them allocates.
func TestDeclarationsNoAllocs(t *testing.T) {
	m := mustNew(t, cfgRF2)
	states := m.Init(nil)
	for range 8 {
		next, _ := m.Next(&states[len(states)-1], nil, nil)
		states = append(states, next...)
	}
	var acts []uint64
	var succ []State
	for i := range states {
		var a []uint64
		succ, a = m.Next(&states[i], succ[:0], nil)
		acts = append(acts, a...)
	}
	var e GroupSet
	calls, sum := 0, 0
	allocs := testing.AllocsPerRun(10, func() {
		for _, a := range acts {
			sum += m.Group(a)
		}
		for i := range states {
			for g := 0; g < m.Groups(); g++ {
				for k := 0; k < m.Guards(g); k++ {
					if !m.Guard(&states[i], g, k) && m.GuardEnablers(&states[i], g, k, &e) {
						calls++
					}
				}
			}
		}
	})
	if allocs != 0 || calls == 0 || sum == 0 {
		t.Errorf("%v allocations, %d sets declared", allocs, calls)
	}
}

// The model declares enabling sets through its own alias of checker.Groups; were the
// engine's array to change size, it would stop implementing Enabling.
var _ checker.Enabling[State] = (*Model)(nil)

// TestPORReduces: the reduced search of the module's cfg with ReplicationFactor = 3 (no
// shutdown, no AlterPartition) and its six invariants finds fewer states than the plain one
// (16 fewer), and with every step invisible a third fewer.
func TestPORReduces(t *testing.T) {
	if testing.Short() {
		t.Skip("two searches of 158,000 states")
	}
	m := mustNew(t, cfgRF3Static)
	props := porProps(m)
	plain := checker.Check[State](m, props, checker.Options{Workers: 2})
	red := checker.Check[State](m, props, checker.Options{Workers: 2, POR: true})
	t.Logf("RF 3: plain %d states, reduced %d (%d reduced sets, %d refused by the proviso)",
		plain.Stats.Distinct, red.Stats.Distinct, red.Stats.Reduced, red.Stats.Proviso)
	if red.Verdict != checker.OK || plain.Verdict != checker.OK || red.Stats.Distinct >= plain.Stats.Distinct {
		t.Errorf("reduced %d states (%s), plain %d (%s)", red.Stats.Distinct, red.Verdict, plain.Stats.Distinct, plain.Verdict)
	}
	// The declarations' ceiling: NoMetadataLogDivergence alone reads nothing a step writes,
	// so every step is invisible and only conflicts bound the sets (independence.go).
	none := props[4:5]
	ceil := checker.Check[State](m, none, checker.Options{Workers: 2, POR: true})
	t.Logf("RF 3, every step invisible: reduced %d states (%d reduced sets)", ceil.Stats.Distinct, ceil.Stats.Reduced)
	if ceil.Verdict != checker.OK || ceil.Stats.Distinct*3 > plain.Stats.Distinct*2 {
		t.Errorf("every step invisible: reduced %d states (%s), plain %d: want at most two thirds", ceil.Stats.Distinct, ceil.Verdict, plain.Stats.Distinct)
	}
}

// TestPORDifferential: random small configurations (replication factor 2 or 3, values,
// MinISR, the ISR, each limit, the two switches, a guard turned off as kmc mutate turns it
// off, a subset of the invariants, deadlock, workers; a fixed seed): the reduced and the
// plain search agree on the verdict, the property and the trace length.
// TestPORDifferentialLong runs KMC_POR_DIFF of them (make por-diff).
func TestPORDifferential(t *testing.T) {
	runDifferential(t, 20)
}

func TestPORDifferentialLong(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("KMC_POR_DIFF"))
	if n <= 0 {
		t.Skip("KMC_POR_DIFF not set (make por-diff sets it)")
	}
	runDifferential(t, n)
}

func runDifferential(t *testing.T, n int) {
	r := rand.New(rand.NewPCG(31, 13))
	fewer, skipped := 0, 0
	for i := range n {
		c := Config{ReplicationFactor: 2, Values: 1 + r.IntN(2), AvoidLastReplicaStanding: r.IntN(2) == 0,
			LimitFetchesOnLeaderEpoch: r.IntN(3) != 0, CleanShutdownLimit: r.IntN(2), UncleanShutdownLimit: r.IntN(2),
			FenceBrokerLimit: r.IntN(2), AlterPartitionLimit: r.IntN(2)}
		if r.IntN(3) == 0 { // three brokers, with fewer faults
			c.ReplicationFactor, c.Values, c.CleanShutdownLimit, c.UncleanShutdownLimit = 3, 1, 0, 0
			c.FenceBrokerLimit *= r.IntN(2)
		}
		c.MinISR = 1 + r.IntN(c.ReplicationFactor)
		if c.ReplicationFactor == 2 && r.IntN(8) != 0 {
			// MinISR = 1 with two brokers nearly always reaches a state where the module
			// has no value (SubSeq outside the log: TLC stops), which would be skipped.
			c.MinISR = 2
		}
		c.InitIsrSize = 1 + r.IntN(c.ReplicationFactor)
		if r.IntN(2) == 0 {
			c.Mutate = GuardBit(Guard(r.IntN(int(NumGuards))))
		}
		m := mustNew(t, c)
		all := porProps(m)
		var props []checker.Property[State]
		for _, p := range all {
			if r.IntN(2) == 0 {
				props = append(props, p)
			}
		}
		if len(props) == 0 {
			props = all[r.IntN(len(all)):][:1]
		}
		opts := checker.Options{Workers: 1 + r.IntN(3), Deadlock: r.IntN(2) == 0, MaxStates: 200000}
		desc := fmt.Sprintf("config %d (%+v, %d properties, workers %d, deadlock %v)", i, c, len(props), opts.Workers, opts.Deadlock)
		plain, perr := check(m, props, opts)
		if perr != nil {
			// The module has no value for this configuration: TLC stops with an evaluation
			// error (the port panics where it would).
			t.Logf("%s: %v; skipped", desc, perr)
			skipped++
			continue
		}
		opts.POR = true
		red, rerr := check(m, props, opts)
		if rerr != nil {
			t.Fatalf("%s: the reduced search: %v", desc, rerr)
		}
		if plain.Interrupted != "" || red.Interrupted != "" {
			t.Logf("%s: stopped at %d states; skipped", desc, plain.Stats.Distinct)
			skipped++
			continue
		}
		if red.Verdict != plain.Verdict || red.Property != plain.Property {
			t.Fatalf("%s: reduced %s %s, plain %s %s", desc, red.Verdict, red.Property, plain.Verdict, plain.Property)
		}
		if plain.Trace != nil && (red.Trace == nil || len(red.Trace.States) != len(plain.Trace.States)) {
			t.Fatalf("%s: reduced trace not the plain search's length", desc)
		}
		if red.Stats.Reduced > 0 {
			fewer++
		}
	}
	t.Logf("%d configurations, %d compared, %d of them reduced", n, n-skipped, fewer)
	if skipped > n/2 {
		t.Errorf("%d of %d configurations skipped", skipped, n)
	}
}

// check is checker.Check with the port's panic where TLC stops with an evaluation error
// turned into an error.
func check(m *Model, props []checker.Property[State], opts checker.Options) (res checker.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	return checker.Check[State](m, props, opts), nil
}
