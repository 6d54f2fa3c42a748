package kafka

import (
	"bytes"
	"math/rand"
	"testing"
)

// deferredConfigs are configurations whose elections compare brokers, between them taking
// every election that follows the assignment order: the single controller's failure,
// startup and controlled-shutdown elections and unclean election; the ZooKeeper plane's
// elections, failover and ControllerElect after a host crash, with the host at broker 1 and
// in the middle (two blocks); KRaft's PartitionChangeBuilder with ELR and unclean election.
func deferredConfigs() map[string]Config {
	single := DefaultConfig()
	single.Brokers, single.MaxRecords, single.MaxEpoch = 4, 1, 3
	single.Crash, single.UncleanCrash, single.Lag, single.LeaderChange = 1, 1, 1, 1
	single.UncleanElection, single.ControlledShutdown, single.PreferredElection = true, 1, 1

	cp := DefaultConfig()
	cp.Version = "3.9"
	cp.Brokers, cp.MaxRecords, cp.MaxEpoch = 4, 1, 3
	cp.Controllers, cp.Failover, cp.SessionLoss, cp.Crash = 3, 1, 1, 1
	cp.ControlledShutdown, cp.ControllerHostCrash, cp.UncleanElection = 1, true, true

	mid := DefaultConfig() // the host in the middle: blocks {2,3} and {5}
	mid.Version = "2.8"
	mid.Brokers, mid.MaxRecords, mid.MaxEpoch = 5, 0, 3
	mid.Controllers, mid.ControllerBroker, mid.Failover, mid.Crash = 2, 4, 1, 1

	zk := DefaultConfig() // KAFKA-5480's version: ISR written by the leader, change notifications
	zk.Version = "0.11"
	zk.Brokers, zk.MaxRecords, zk.MaxEpoch = 3, 1, 4
	zk.Controllers, zk.Failover, zk.Crash, zk.Lag = 2, 1, 2, 1

	kr := DefaultConfig()
	kr.Version = "4.0.1"
	kr.Brokers, kr.MinISR, kr.MaxRecords, kr.MaxEpoch = 4, 2, 1, 3
	kr.KRaft, kr.Switches, kr.Crash, kr.PowerLoss, kr.SessionLoss, kr.ControlledShutdown = true, kr.Switches.With(KIP966, true), 1, 1, 1, 1
	kr.QuorumFailover = 1

	kru := kr
	kru.Switches, kru.UncleanElection, kru.MinISR = kru.Switches.With(KIP966, false), true, 1
	return map[string]Config{"single": single, "control-plane": cp, "host-in-the-middle": mid,
		"0.11": zk, "kraft-elr": kr, "kraft-unclean": kru}
}

// mutated is c with every guard that has a code path in it turned off (kmc mutate runs
// each guard off under symmetry: the guards' conditions must not single out a broker).
func mutated(c Config) Config {
	p, _ := ProfileByName(c.Version)
	for g := Guard(0); g < NumGuards; g++ {
		if c.guardIn(g, &p) == "" {
			c.Mutate |= GuardBit(g)
		}
	}
	return c
}

// deferredStates returns about max states reachable from InitDeferred, breadth-first, and
// as many more from random walks.
func deferredStates(t *testing.T, c Config, max int) (*Model, []State) {
	t.Helper()
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	states, open := m.InitDeferred(nil)
	if !open || len(states) != 1 {
		t.Fatalf("InitDeferred: got %d states, open %v; want one, open", len(states), open)
	}
	return m, explore(m, states, max)
}

// TestDeferredSymmetric is the soundness check of the search under symmetry: with the
// assignment order open, for reachable states s and random permutations p of the symmetry
// group, the successors of p(s) are the permuted successors of s for every kind of action,
// elections included; the initial state is fixed by the group; every state is valid, its
// permutations too, and they round-trip through Encode; Canonicalize gives one
// representative per class, whose class size is the number of distinct renamings. A
// broker-indexed field that Permute forgets, or an election that does not go through the
// order, fails it.
func TestDeferredSymmetric(t *testing.T) {
	rng := rand.New(rand.NewSource(966))
	all := func(int) bool { return true }
	configs := deferredConfigs()
	for name, c := range deferredConfigs() {
		configs[name+", guards off"] = mutated(c)
	}
	for name, c := range configs {
		m, states := deferredStates(t, c, 3000)
		if len(m.perms) < 2 {
			t.Fatalf("%s: the symmetry group is trivial", name)
		}
		branched := false
		var ps, d, c1, c2 State
		for i := range states {
			s := &states[i]
			if err := m.Valid(s); err != nil {
				t.Fatalf("%s: state %d: %v\n%s", name, i, err, m.Format(s))
			}
			branched = branched || s.Ord != states[0].Ord
			p := m.perms[1+rng.Intn(len(m.perms)-1)]
			m.Permute(s, &p, &ps)
			if i == 0 && ps != *s {
				t.Fatalf("%s: the initial state is not fixed by %v", name, p[:m.nb()])
			}
			if err := m.Valid(&ps); err != nil {
				t.Fatalf("%s: state %d permuted by %v: %v", name, i, p[:m.nb()], err)
			}
			if m.Decode(m.Encode(&ps, nil), &d); d != ps {
				t.Fatalf("%s: state %d permuted by %v does not round-trip through Encode", name, i, p[:m.nb()])
			}
			commutes(t, name, m, i, s, &ps, &p, all)
			c1, c2 = *s, ps
			m.Canonicalize(&c1)
			m.Canonicalize(&c2)
			if c1 != c2 {
				t.Fatalf("%s: state %d and its permutation by %v: different representatives", name, i, p[:m.nb()])
			}
			enc, orbit := m.EncodeCanonical(&ps, nil)
			if !bytes.Equal(enc, m.Encode(&c1, nil)) {
				t.Fatalf("%s: state %d: EncodeCanonical differs from Encode after Canonicalize", name, i)
			}
			if want := m.Canonical(s, m.perms, &d); orbit != want || m.OrbitSize(s) != want {
				t.Fatalf("%s: state %d: class size %d (EncodeCanonical), %d (OrbitSize); all the group's renamings give %d",
					name, i, orbit, m.OrbitSize(s), want)
			}
		}
		if !branched {
			t.Fatalf("%s: no state of %d revealed any of the order: no election compared brokers", name, len(states))
		}
	}
}

// TestDeferredReachesThePlainStates: with the order open the model reaches, up to
// renaming, exactly the plain model's states: the states whose revealed order 1..N extends,
// with the order closed, are the plain model's reachable states, no more and no fewer.
// (Each election of the plain model takes the candidate first in 1..N, which the open
// model offers; each branch of the open model is the plain model's step for the orders
// that extend what it revealed.)
func TestDeferredReachesThePlainStates(t *testing.T) {
	small := map[string]Config{}
	for name, c := range deferredConfigs() {
		c.Brokers, c.MaxRecords, c.MaxEpoch = 3, 0, 2
		c.Lag, c.LeaderChange, c.PreferredElection, c.QuorumFailover, c.SessionLoss = 0, 0, 0, 0, 0
		c.PowerLoss, c.UncleanCrash = 0, 0
		if c.KRaft {
			c.ControlledShutdown = 0
		}
		if c.ControllerBroker > 3 {
			c.ControllerBroker = 1
		}
		small[name] = c
	}
	for name, c := range small {
		m, err := New(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		plain := reach(m, m.Init(nil), 1_000_000)
		open, _ := m.InitDeferred(nil)
		all := reach(m, open, 3_000_000)
		if len(plain) >= 1_000_000 || len(all) >= 3_000_000 {
			t.Fatalf("%s: too many states to compare (%d plain, %d open)", name, len(plain), len(all))
		}
		t.Logf("%s: %d plain states, %d with the order open", name, len(plain), len(all))
		proj := map[string]bool{}
		for _, s := range all {
			if inOrder(&s.Ord) {
				s.Ord = Order{}
				proj[string(m.Encode(&s, nil))] = true
			}
		}
		if len(proj) != len(plain) {
			t.Errorf("%s: the open model reaches %d states in the order 1..N, the plain model %d", name, len(proj), len(plain))
		}
		for _, s := range plain {
			if !proj[string(m.Encode(&s, nil))] {
				t.Fatalf("%s: a plain state the open model does not reach in the order 1..N:\n%s", name, m.Format(&s))
			}
		}
		if len(all) <= len(plain) {
			t.Errorf("%s: the open model reaches %d states, no more than the plain model's %d: nothing branched", name, len(all), len(plain))
		}
	}
}

// reach is every state reachable from inits (at most max).
func reach(m *Model, inits []State, max int) []State {
	seen := map[string]bool{}
	var out []State
	for i := range inits {
		if k := string(m.Encode(&inits[i], nil)); !seen[k] {
			seen[k] = true
			out = append(out, inits[i])
		}
	}
	var succ []State
	var acts []uint64
	for i := 0; i < len(out) && len(out) < max; i++ {
		succ, acts = m.Next(&out[i], succ[:0], acts[:0])
		for j := range succ {
			if k := string(m.Encode(&succ[j], nil)); !seen[k] {
				seen[k] = true
				out = append(out, succ[j])
			}
		}
	}
	return out
}

// inOrder reports whether the order 1..N extends o.
func inOrder(o *Order) bool {
	for a := 0; a < MaxBrokers; a++ {
		if o.After[a]&uint8(1<<(a+1)-1) != 0 {
			return false
		}
	}
	return true
}

// TestSettle: random behaviours of the open model, settled, are behaviours of the plain
// model: the first state is Init's and each later one a successor of the one before; the
// order is closed in each.
func TestSettle(t *testing.T) {
	rng := rand.New(rand.NewSource(13077))
	for name, c := range deferredConfigs() {
		m, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		init := m.Init(nil)[0]
		revealed := 0
		for w := 0; w < 200; w++ {
			path, _ := m.InitDeferred(nil)
			var succ []State
			var acts []uint64
			for d := 0; d < 40; d++ {
				succ, acts = m.Next(&path[len(path)-1], succ[:0], acts[:0])
				if len(succ) == 0 {
					break
				}
				path = append(path, succ[rng.Intn(len(succ))])
			}
			if path[len(path)-1].Ord != path[0].Ord {
				revealed++
			}
			m.Settle(path)
			if path[0] != init {
				t.Fatalf("%s: walk %d settled does not start in the initial state", name, w)
			}
			for j := 1; j < len(path); j++ {
				if path[j].Ord != (Order{}) {
					t.Fatalf("%s: walk %d: state %d settled keeps the order open", name, w, j)
				}
				succ, acts = m.Next(&path[j-1], succ[:0], acts[:0])
				found := false
				for k := range succ {
					found = found || succ[k] == path[j]
				}
				if !found {
					t.Fatalf("%s: walk %d settled: state %d is no successor of state %d\n%s\n%s", name, w, j, j-1,
						m.Format(&path[j-1]), m.Format(&path[j]))
				}
			}
		}
		if revealed == 0 {
			t.Fatalf("%s: no walk revealed any of the order", name)
		}
	}
}

// TestPlainModelKeepsItsOrder: the plain model (the order closed) never branches an
// election: every election takes the lowest candidate, as before the order existed, and
// no state it reaches has the order open.
func TestPlainModelKeepsItsOrder(t *testing.T) {
	for name, c := range deferredConfigs() {
		_, states := reachableStates(t, c, 2000)
		for i := range states {
			if states[i].Ord != (Order{}) {
				t.Fatalf("%s: state %d of the plain model has an open order", name, i)
			}
		}
	}
}

// Reference: DESIGN §2 (no allocation per state): Next with the order open, elections
// branching, allocates nothing once its buffers have grown.
func TestDeferredNextAllocatesNothing(t *testing.T) {
	m, states := deferredStates(t, deferredConfigs()["kraft-elr"], 1000)
	succ := make([]State, 0, 256)
	acts := make([]uint64, 0, 256)
	allocs := testing.AllocsPerRun(5, func() {
		for i := range states {
			succ, acts = m.Next(&states[i], succ[:0], acts[:0])
		}
	})
	if allocs != 0 {
		t.Errorf("Next over %d states with the order open: got %v allocations per run, want 0", len(states), allocs)
	}
}
