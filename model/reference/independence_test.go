package reference

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"kmc/checker"
)

// The declarations of independence (independence.go, asyncisr_independence.go) against the
// port on every reachable state of small configurations, and the reduced search against the
// plain one. Reference: issue 31.

var refPropNames = []string{"TypeOk", "TypeOkLiteral", "WeakIsr", "StrongIsr", "LeaderInIsr", "LeaderInIsrLiteral"}

func refProps(m *Model) []checker.Property[State] {
	fs := map[string]func(*State) bool{"TypeOk": m.TypeOk, "TypeOkLiteral": m.TypeOkLiteral, "WeakIsr": m.WeakIsr,
		"StrongIsr": m.StrongIsr, "LeaderInIsr": m.LeaderInIsr, "LeaderInIsrLiteral": m.LeaderInIsrLiteral}
	var props []checker.Property[State]
	for _, name := range refPropNames {
		reads := m.PropertyReads(name)
		if reads == nil {
			panic("no reads for " + name)
		}
		props = append(props, checker.Property[State]{Name: name, Kind: checker.Invariant, State: fs[name], Reads: reads})
	}
	return props
}

var asyncPropNames = []string{"TypeOk", "TypeOkLiteral", "ValidHighWatermark"}

func asyncProps(m *AsyncModel) []checker.Property[AsyncState] {
	fs := map[string]func(*AsyncState) bool{"TypeOk": m.TypeOk, "TypeOkLiteral": m.TypeOkLiteral, "ValidHighWatermark": m.ValidHighWatermark}
	var props []checker.Property[AsyncState]
	for _, name := range asyncPropNames {
		reads := m.PropertyReads(name)
		if reads == nil {
			panic("no reads for " + name)
		}
		props = append(props, checker.Property[AsyncState]{Name: name, Kind: checker.Invariant, State: fs[name], Reads: reads})
	}
	return props
}

// porConfigs are the KafkaReplication configurations the declarations are checked on: every
// variant (so every kind of action) with two and three replicas, and Kip320 with each of its
// guards turned off.
func porConfigs() map[string]Config {
	out := map[string]Config{}
	for v := TruncateToHighWatermark; v < AsyncIsr; v++ {
		out[fmt.Sprintf("%v/r2", v)] = Config{Variant: v, Replicas: 2, LogSize: 2, MaxRecords: 2, MaxLeaderEpoch: 2}
		out[fmt.Sprintf("%v/r3", v)] = Config{Variant: v, Replicas: 3, LogSize: 2, MaxRecords: 1, MaxLeaderEpoch: 2}
	}
	for g := range NumGuards {
		out[fmt.Sprintf("Kip320/r3/without-%s", Guards[g].Name)] = Config{Variant: Kip320, Replicas: 3, LogSize: 2,
			MaxRecords: 1, MaxLeaderEpoch: 2, Mutate: GuardBit(g)}
	}
	return out
}

var asyncConfigs = map[string]AsyncConfig{
	"r2":          {Replicas: 2, MaxOffset: 2, MaxVersion: 3},
	"r3":          {Replicas: 3, MaxOffset: 2, MaxVersion: 2},
	"r3-offset-1": {Replicas: 3, MaxOffset: 1, MaxVersion: 3},
}

// porStates bounds the states each configuration is checked on, in breadth-first order
// (the check costs the square of a state's steps): about 0.1 s a configuration.
const porStates = 3000

func TestIndependenceDeclarations(t *testing.T) {
	cfgs := porConfigs()
	names := make([]string, 0, len(cfgs))
	for name := range cfgs {
		names = append(names, name)
	}
	sort.Strings(names)
	kinds := map[int]bool{}
	for _, name := range names {
		m, err := New(cfgs[name])
		if err != nil {
			t.Fatal(err)
		}
		n, err := checker.CheckIndependence[State](m, refProps(m), nil, porStates)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n < 50 {
			t.Fatalf("%s: checked %d states", name, n)
		}
		t.Logf("%s: %d states", name, n)
		for k := range kindsTaken(m, porStates) {
			kinds[k] = true
		}
	}
	if len(kinds) != numKinds {
		t.Errorf("%d of %d kinds took a step in the states checked", len(kinds), numKinds)
	}
	for name, c := range asyncConfigs {
		m, err := NewAsyncIsr(c)
		if err != nil {
			t.Fatal(err)
		}
		n, err := checker.CheckIndependence[AsyncState](m, asyncProps(m), nil, porStates)
		if err != nil {
			t.Fatalf("AsyncIsr %s: %v", name, err)
		}
		t.Logf("AsyncIsr %s: %d states", name, n)
	}
}

// kindsTaken is the set of kinds with a step in the first max states of m, breadth-first (the
// states CheckIndependence checks).
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
	// Without FetchLeaderEpoch, WeakIsr fails at depth 8 (specs/reference/kip320-guards.toml).
	cfg := Config{Variant: Kip320, Replicas: 3, LogSize: 2, MaxRecords: 1, MaxLeaderEpoch: 2, Mutate: GuardBit(GuardFetchLeaderEpoch)}
	m, _ := New(cfg)
	props := refProps(m)
	props[2].Reads = &Objects{} // WeakIsr reads every log
	if _, err := checker.CheckIndependence[State](m, props, nil, 1<<20); err == nil {
		t.Error("WeakIsr declared to read nothing: no error")
	}
	cfg.Mutate = 0
	bad := &wrongFootprint{Model: m}
	if _, err := checker.CheckIndependence[State](bad, refProps(m), nil, porStates); err == nil {
		t.Error("LeaderWrite declared not to take nextRecordId: no error")
	}
	am, _ := NewAsyncIsr(asyncConfigs["r2"])
	abad := &wrongAsyncGuard{AsyncModel: am}
	if _, err := checker.CheckIndependence[AsyncState](abad, asyncProps(am), nil, porStates); err == nil {
		t.Error("FollowerReplicate's guard declared not to read the leader's offset: no error")
	}
}

// wrongFootprint declares that LeaderWrite neither reads nor writes nextRecordId, so that two
// leaders' writes would commute.
type wrongFootprint struct{ *Model }

func (w *wrongFootprint) Footprint(g int) (reads, writes Objects) {
	r, wr := w.Model.Footprint(g)
	if k, _, _, _ := w.groupOf(g); k == kLeaderWrite {
		r[objRecord>>6] &^= 1 << (objRecord & 63)
		wr[objRecord>>6] &^= 1 << (objRecord & 63)
	}
	return r, wr
}

// wrongAsyncGuard declares that FollowerReplicate's guard reads the follower's offset only
// and that its enabling set is empty.
type wrongAsyncGuard struct{ *AsyncModel }

func (w *wrongAsyncGuard) GuardReads(g, j int) Objects {
	if k, r, _ := w.groupOf(g); k == akFollowerReplicate {
		return objs(aobjOffset + r)
	}
	return w.AsyncModel.GuardReads(g, j)
}

func (w *wrongAsyncGuard) GuardEnablers(s *AsyncState, g, j int, e *GroupSet) bool {
	if k, _, _ := w.groupOf(g); k == akFollowerReplicate {
		*e = GroupSet{}
		return true
	}
	return w.AsyncModel.GuardEnablers(s, g, j, e)
}

// TestDeclarationsNoAllocs: the reduction asks for groups, guards and enabling sets while it
// expands a state, so none of them allocates.
func TestDeclarationsNoAllocs(t *testing.T) {
	m, _ := New(Config{Variant: Kip320, Replicas: 3, LogSize: 2, MaxRecords: 2, MaxLeaderEpoch: 2})
	states := m.Init(nil)
	for range 5 {
		next, _ := m.Next(&states[len(states)-1], nil, nil)
		states = append(states, next...)
	}
	var acts []uint64
	var succ []State
	for i := range states {
		succ, acts = m.Next(&states[i], succ[:0], acts)
	}
	var e GroupSet
	calls := 0
	allocs := testing.AllocsPerRun(10, func() {
		for _, a := range acts {
			calls += m.Group(a) & 0
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
	if allocs != 0 || calls == 0 {
		t.Errorf("KafkaReplication: %v allocations, %d sets declared", allocs, calls)
	}
	am, _ := NewAsyncIsr(asyncConfigs["r3"])
	as := am.Init(nil)
	for range 5 {
		next, _ := am.Next(&as[len(as)-1], nil, nil)
		as = append(as, next...)
	}
	calls = 0
	allocs = testing.AllocsPerRun(10, func() {
		for i := range as {
			for g := 0; g < am.Groups(); g++ {
				for k := 0; k < am.Guards(g); k++ {
					if !am.Guard(&as[i], g, k) && am.GuardEnablers(&as[i], g, k, &e) {
						calls++
					}
				}
			}
		}
	})
	if allocs != 0 || calls == 0 {
		t.Errorf("AsyncIsr: %v allocations, %d sets declared", allocs, calls)
	}
}

// The models declare enabling sets through their own alias of checker.Groups; were the
// engine's array to change size, they would stop implementing Enabling.
var (
	_ checker.Enabling[State]      = (*Model)(nil)
	_ checker.Enabling[AsyncState] = (*AsyncModel)(nil)
)

// TestPORReduces: the reduction leaves orders of independent steps out. AsyncIsr with its
// type invariant (no step is visible): the follower's replication and the leader's write of
// another replica commute with the controller's and the leader's ISR traffic. KafkaReplication
// reduces far less (independence.go says why): a few sets on Kip320 with two replicas.
func TestPORReduces(t *testing.T) {
	am, _ := NewAsyncIsr(AsyncConfig{Replicas: 3, MaxOffset: 2, MaxVersion: 3})
	aprops := asyncProps(am)[:1]
	aplain := checker.Check[AsyncState](am, aprops, checker.Options{Workers: 1})
	ared := checker.Check[AsyncState](am, aprops, checker.Options{Workers: 2, POR: true})
	t.Logf("AsyncIsr r3: plain %d states, reduced %d (%d reduced sets, %d refused by the proviso)",
		aplain.Stats.Distinct, ared.Stats.Distinct, ared.Stats.Reduced, ared.Stats.Proviso)
	if ared.Verdict != checker.OK || ared.Stats.Distinct >= aplain.Stats.Distinct {
		t.Errorf("AsyncIsr: reduced %d states (%s), plain %d", ared.Stats.Distinct, ared.Verdict, aplain.Stats.Distinct)
	}
	m, _ := New(Config{Variant: Kip320, Replicas: 2, LogSize: 2, MaxRecords: 2, MaxLeaderEpoch: 3})
	props := refProps(m)[2:3] // WeakIsr
	plain := checker.Check[State](m, props, checker.Options{Workers: 1, Symmetry: true})
	red := checker.Check[State](m, props, checker.Options{Workers: 2, Symmetry: true, POR: true})
	t.Logf("Kip320 r2: plain %d states, reduced %d (%d reduced sets, %d refused by the proviso)",
		plain.Stats.Distinct, red.Stats.Distinct, red.Stats.Reduced, red.Stats.Proviso)
	if red.Verdict != checker.OK || red.Stats.Reduced == 0 || red.Stats.Distinct > plain.Stats.Distinct {
		t.Errorf("Kip320: reduced %d states (%s, %d sets), plain %d", red.Stats.Distinct, red.Verdict, red.Stats.Reduced, plain.Stats.Distinct)
	}
}

// TestPORDifferential: random small configurations of both modules (variant, replicas,
// bounds, a Kip320 guard turned off as kmc mutate turns it off, a subset of the invariants,
// symmetry, deadlock, workers; a fixed seed): the reduced and the plain search agree on the
// verdict, the property and the trace length. TestPORDifferentialLong runs KMC_POR_DIFF of
// them (make por-diff).
func TestPORDifferential(t *testing.T) {
	runDifferential(t, 60)
}

func TestPORDifferentialLong(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("KMC_POR_DIFF"))
	if n <= 0 {
		t.Skip("KMC_POR_DIFF not set (make por-diff sets it)")
	}
	runDifferential(t, n)
}

func runDifferential(t *testing.T, n int) {
	r := rand.New(rand.NewPCG(31, 11))
	fewer := 0
	for i := range n {
		opts := checker.Options{Workers: 1 + r.IntN(3), Symmetry: r.IntN(2) == 0, Deadlock: r.IntN(2) == 0}
		var desc string
		var plain, red checker.Result
		if r.IntN(5) == 0 {
			c := AsyncConfig{Replicas: 2 + r.IntN(2), MaxOffset: 1 + r.IntN(2), MaxVersion: 1 + r.IntN(3)}
			m, err := NewAsyncIsr(c)
			if err != nil {
				t.Fatal(err)
			}
			props := pick(r, asyncProps(m))
			desc = fmt.Sprintf("AsyncIsr %+v %v", c, names(props))
			opts.Symmetry = false // AsyncIsr has no symmetry
			plain = checker.Check[AsyncState](m, props, opts)
			opts.POR = true
			red = checker.Check[AsyncState](m, props, opts)
		} else {
			c := Config{Variant: Variant(r.IntN(int(AsyncIsr))), Replicas: 2 + r.IntN(2), LogSize: 1 + r.IntN(2),
				MaxRecords: 1 + r.IntN(2), MaxLeaderEpoch: 1 + r.IntN(3)}
			if c.Replicas == 3 && c.LogSize == 2 { // at most about 100,000 states
				c.MaxRecords, c.MaxLeaderEpoch = 1, min(c.MaxLeaderEpoch, 2)
			}
			if c.Variant == Kip320 && r.IntN(2) == 0 {
				c.Mutate = GuardBit(Guard(r.IntN(int(NumGuards))))
			}
			m, err := New(c)
			if err != nil {
				t.Fatal(err)
			}
			props := pick(r, refProps(m))
			desc = fmt.Sprintf("%+v %v", c, names(props))
			plain = checker.Check[State](m, props, opts)
			opts.POR = true
			red = checker.Check[State](m, props, opts)
		}
		if red.Verdict != plain.Verdict || red.Property != plain.Property {
			t.Fatalf("config %d (%s, %+v): reduced %s %s, plain %s %s", i, desc, opts, red.Verdict, red.Property, plain.Verdict, plain.Property)
		}
		if plain.Trace != nil && (red.Trace == nil || len(red.Trace.States) != len(plain.Trace.States)) {
			t.Fatalf("config %d (%s): reduced trace not the plain search's length", i, desc)
		}
		if plain.Verdict == checker.OK && red.Stats.Distinct > plain.Stats.Distinct {
			t.Fatalf("config %d (%s): reduced %d states, plain %d", i, desc, red.Stats.Distinct, plain.Stats.Distinct)
		}
		if red.Stats.Reduced > 0 {
			fewer++
		}
	}
	t.Logf("%d configurations compared, %d of them reduced", n, fewer)
}

// pick is a random non-empty subset of props, in which each literal form (false in the
// initial state: the search stops there) joins one time in eight, the others one in two.
func pick[S any](r *rand.Rand, all []checker.Property[S]) []checker.Property[S] {
	var props []checker.Property[S]
	for _, p := range all {
		odds := 2
		if strings.HasSuffix(p.Name, "Literal") {
			odds = 8
		}
		if r.IntN(odds) == 0 {
			props = append(props, p)
		}
	}
	if len(props) == 0 {
		props = all[r.IntN(len(all)):][:1]
	}
	return props
}

func names[S any](props []checker.Property[S]) []string {
	var out []string
	for _, p := range props {
		out = append(out, p.Name)
	}
	return out
}
