package kafka

import (
	"bytes"
	"math/rand"
	"testing"
)

// symConfigs are configurations that between them reach every broker-indexed field:
// leaders' ISR, maximal ISR and follower offsets, AlterPartition with KIP-903 joiners,
// LeaderAndIsr, the control plane's incarnations, queues and brokers' views, ISR change
// notifications (0.11), and the mechanisms that elect.
func symConfigs() map[string]Config {
	single := DefaultConfig()
	single.Brokers, single.MaxRecords, single.MaxEpoch, single.MaxFetchRecords = 4, 2, 3, 2
	single.Crash, single.UncleanCrash, single.Lag, single.MessageLoss, single.LeaderChange = 1, 1, 1, 1, 1
	single.UncleanElection, single.ControlledShutdown, single.PreferredElection = true, 1, 1

	cp := DefaultConfig()
	cp.Version = "3.9"
	cp.Brokers, cp.MaxRecords, cp.MaxEpoch = 4, 1, 3
	cp.Controllers, cp.ControllerBroker, cp.Failover, cp.SessionLoss, cp.Crash = 3, 2, 1, 1, 1
	cp.ControlLoss, cp.ControlledShutdown, cp.PreferredElection, cp.ControllerHostCrash = 1, 1, 1, true
	cp.UncleanElection, cp.Lag = true, 1

	zk := DefaultConfig() // KAFKA-5480's version: ISR written by the leader, change notifications
	zk.Version = "0.11"
	zk.Brokers, zk.MaxRecords, zk.MaxEpoch = 3, 1, 4
	zk.Controllers, zk.ControllerBroker, zk.Failover, zk.Crash, zk.Lag = 2, 3, 1, 2, 1
	return map[string]Config{"single": single, "control-plane": cp, "0.11": zk}
}

// reachableStates returns about max reachable states of c, breadth-first, and as many
// more from random walks, and the model.
func reachableStates(t *testing.T, c Config, max int) (*Model, []State) {
	t.Helper()
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return m, explore(m, m.Init(nil), max)
}

// explore returns the states of inits and about max states reachable from them,
// breadth-first, and as many more from random walks from the first.
func explore(m *Model, states []State, max int) []State {
	seen := map[string]bool{}
	var out []State
	add := func(s *State) {
		if k := string(m.Encode(s, nil)); !seen[k] {
			seen[k] = true
			out = append(out, *s)
		}
	}
	for i := range states {
		add(&states[i])
	}
	var succ []State
	var acts []uint64
	for i := 0; i < len(out) && len(out) < max; i++ {
		succ, acts = m.Next(&out[i], succ[:0], acts[:0])
		for j := range succ {
			add(&succ[j])
		}
	}
	// Deeper states too: random walks from the first state.
	rng := rand.New(rand.NewSource(int64(len(out))))
	for w := 0; w < max/20; w++ {
		s := out[0]
		for d := 0; d < 60; d++ {
			succ, acts = m.Next(&s, succ[:0], acts[:0])
			if len(succ) == 0 {
				break
			}
			s = succ[rng.Intn(len(succ))]
			add(&s)
		}
	}
	return out
}

func randPerm(rng *rand.Rand, n int) Perm {
	p := Identity()
	for i, j := range rng.Perm(n) {
		p[i] = uint8(j)
	}
	return p
}

// TestPermuteIsGroupAction: Permute is an action of the permutation group on valid states:
// the identity changes nothing, composing two permutations is permuting by their product,
// the inverse undoes it, a permuted state is valid and round-trips through Encode, and
// Canonical gives one representative and one orbit size per class.
func TestPermuteIsGroupAction(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	for name, c := range symConfigs() {
		m, states := reachableStates(t, c, 4000)
		n := m.nb()
		perms := m.Perms(uint8(1<<n - 1))
		if want := []int{1, 1, 2, 6, 24, 120}[n]; len(perms) != want {
			t.Fatalf("%s: Perms: got %d permutations of %d brokers, want %d", name, len(perms), n, want)
		}
		var u, v, w, d, c1, c2 State
		for i := range states {
			s := &states[i]
			id := Identity()
			if m.Permute(s, &id, &u); u != *s {
				t.Fatalf("%s: state %d: the identity changed it:\n%s\n%s", name, i, m.Format(s), m.Format(&u))
			}
			p, q := randPerm(rng, n), randPerm(rng, n)
			var qp, inv Perm = Identity(), Identity()
			for b := 0; b < n; b++ {
				qp[b] = q[p[b]]
				inv[p[b]] = uint8(b)
			}
			m.Permute(s, &p, &u)
			if err := m.Valid(&u); err != nil {
				t.Fatalf("%s: state %d permuted by %v is invalid: %v\n%s", name, i, p[:n], err, m.Format(&u))
			}
			if m.Decode(m.Encode(&u, nil), &d); d != u {
				t.Fatalf("%s: state %d permuted by %v does not round-trip through Encode", name, i, p[:n])
			}
			m.Permute(&u, &q, &v)
			m.Permute(s, &qp, &w)
			if v != w {
				t.Fatalf("%s: state %d: permuting by %v then %v differs from permuting by %v", name, i, p[:n], q[:n], qp[:n])
			}
			if m.Permute(&u, &inv, &v); v != *s {
				t.Fatalf("%s: state %d: the inverse of %v does not undo it", name, i, p[:n])
			}
			o1, o2 := m.Canonical(s, perms, &c1), m.Canonical(&u, perms, &c2)
			if !bytes.Equal(m.Encode(&c1, nil), m.Encode(&c2, nil)) || o1 != o2 {
				t.Fatalf("%s: state %d and its permutation by %v: different representatives or orbits (%d, %d)", name, i, p[:n], o1, o2)
			}
			if len(perms)%o1 != 0 {
				t.Fatalf("%s: state %d: orbit %d does not divide the group's order %d", name, i, o1, len(perms))
			}
		}
	}
}

// electing are the kinds of action whose successor depends on the assignment order
// (brokers 1..N): each elects the first candidate in that order, or singles out broker 1.
var electing = map[int]bool{
	KindControllerHandleBrokerFailure: true, KindControllerHandleBrokerStartup: true,
	KindBrokerControlledShutdown: true, KindControllerFailover: true, KindControllerElect: true,
	KindControllerElectPreferred: true,
}

// succSet is the set of encodings of s's successors by actions of the kinds keep accepts,
// each permuted by p.
func succSet(m *Model, s *State, p *Perm, keep func(kind int) bool) map[string]int {
	succ, acts := m.Next(s, nil, nil)
	out := map[string]int{}
	var u State
	for i := range succ {
		if keep(kindOf(acts[i])) {
			m.Permute(&succ[i], p, &u)
			out[string(m.Encode(&u, nil))] = kindOf(acts[i])
		}
	}
	return out
}

// commutes fails the test unless the successors of ps, s permuted by p, are the permuted
// successors of s, for the kinds of action keep accepts (state i of a configuration name).
func commutes(t *testing.T, name string, m *Model, i int, s, ps *State, p *Perm, keep func(kind int) bool) {
	t.Helper()
	id := Identity()
	want, got := succSet(m, s, p, keep), succSet(m, ps, &id, keep)
	for k, kind := range want {
		if _, ok := got[k]; !ok {
			t.Fatalf("%s: state %d, permutation %v: a %s successor of s, permuted, is no successor of the permuted state\n%s",
				name, i, p[:m.nb()], kindNames[kind], m.Format(s))
		}
	}
	for k, kind := range got {
		if _, ok := want[k]; !ok {
			t.Fatalf("%s: state %d, permutation %v: the permuted state has a %s successor that is no permuted successor of s\n%s",
				name, i, p[:m.nb()], kindNames[kind], m.Format(s))
		}
	}
}

// TestKafkaSymmetricButForElections is the check that catches a broker-indexed field
// Permute forgets: for reachable states s and random permutations p, the successors of p(s)
// are the permuted successors of s, for every kind of action that does not elect by
// assignment order. (For those that do, see TestKafkaNotSymmetric.)
func TestKafkaSymmetricButForElections(t *testing.T) {
	rng := rand.New(rand.NewSource(5480))
	plain := func(k int) bool { return !electing[k] }
	for name, c := range symConfigs() {
		m, states := reachableStates(t, c, 3000)
		var ps State
		for i := range states {
			s := &states[i]
			p := randPerm(rng, m.nb())
			m.Permute(s, &p, &ps)
			commutes(t, name, m, i, s, &ps, &p, plain)
		}
	}
}

// TestKafkaNotSymmetric documents why a search under symmetry runs the model with the
// assignment order open (symmetry.go, order.go): in the plain model even swapping two
// brokers that neither Init nor the configuration single out (b2 and b3, with b1 the
// initial leader) changes what an election does, because Kafka elects the first candidate
// in assignment order. If this test fails, elections no longer depend on the order and the
// search would not need it open.
func TestKafkaNotSymmetric(t *testing.T) {
	c := DefaultConfig()
	c.Crash = 1
	m, states := reachableStates(t, c, 20000)
	if _, open := m.InitDeferred(nil); !open {
		t.Fatalf("InitDeferred with crash = 1: got no open order, want one while elections follow assignment order")
	}
	swap := Identity()
	swap[1], swap[2] = 2, 1
	all := func(int) bool { return true }
	id := Identity()
	var ps State
	for i := range states {
		s := &states[i]
		m.Permute(s, &swap, &ps)
		want, got := succSet(m, s, &swap, all), succSet(m, &ps, &id, all)
		for k, kind := range want {
			if _, ok := got[k]; !ok {
				if !electing[kind] {
					t.Fatalf("state %d: a %s step breaks the symmetry; only elections should", i, kindNames[kind])
				}
				return // an election: the asymmetry this test expects
			}
		}
	}
	t.Fatalf("no reachable state of %d (brokers 3, crash 1) tells b2 from b3: elections no longer follow assignment order?", len(states))
}

// TestKafkaSymmetricWhenNoBrokerStops: when no broker stops and the single controller runs,
// brokers 2..N are interchangeable: for every kind of action the successors of a permuted
// state are the permuted successors, Init is fixed, and Canonicalize and OrbitSize agree
// on a state and its permutations.
func TestKafkaSymmetricWhenNoBrokerStops(t *testing.T) {
	c := DefaultConfig()
	c.Brokers, c.MaxRecords, c.MaxEpoch, c.MaxFetchRecords = 4, 2, 3, 2
	c.Lag, c.MessageLoss, c.LeaderChange, c.PreferredElection = 1, 1, 1, 1
	m, states := reachableStates(t, c, 3000)
	if got, want := m.Interchangeable(), uint8(0b1110); got != want {
		t.Fatalf("Interchangeable: got %b, want %b", got, want)
	}
	if _, open := m.InitDeferred(nil); open {
		t.Fatalf("InitDeferred: the order is open where no election compares brokers")
	}
	perms := m.Perms(m.Interchangeable())
	all := func(int) bool { return true }
	id := Identity()
	rng := rand.New(rand.NewSource(18723))
	var ps, c1, c2 State
	for i := range states {
		s := &states[i]
		p := perms[rng.Intn(len(perms))]
		m.Permute(s, &p, &ps)
		if i == 0 && ps != *s {
			t.Fatalf("the initial state is not fixed by %v", p[:m.nb()])
		}
		want, got := succSet(m, s, &p, all), succSet(m, &ps, &id, all)
		if len(want) != len(got) {
			t.Fatalf("state %d, permutation %v: %d successors, permuted state %d", i, p[:m.nb()], len(want), len(got))
		}
		for k, kind := range want {
			if _, ok := got[k]; !ok {
				t.Fatalf("state %d, permutation %v: a %s successor, permuted, is no successor of the permuted state\n%s",
					i, p[:m.nb()], kindNames[kind], m.Format(s))
			}
		}
		c1, c2 = *s, ps
		m.Canonicalize(&c1)
		m.Canonicalize(&c2)
		if c1 != c2 || m.OrbitSize(s) != m.OrbitSize(&ps) {
			t.Fatalf("state %d and its permutation by %v: different representatives or orbit sizes", i, p[:m.nb()])
		}
		enc, orbit := m.EncodeCanonical(&ps, nil)
		if !bytes.Equal(enc, m.Encode(&c1, nil)) || orbit != m.OrbitSize(s) {
			t.Fatalf("state %d: EncodeCanonical of its permutation by %v differs from Encode after Canonicalize, or its class size %d from OrbitSize's %d",
				i, p[:m.nb()], orbit, m.OrbitSize(s))
		}
	}
	buf := make([]byte, 0, 4096)
	if allocs := testing.AllocsPerRun(3, func() {
		for i := range states {
			buf, _ = m.EncodeCanonical(&states[i], buf[:0])
		}
	}); allocs != 0 {
		t.Errorf("EncodeCanonical over %d states with %d permutations: got %v allocations per run, want 0", len(states), len(perms), allocs)
	}
}

// Reference: DESIGN §2 (no allocation per state): Permute, Canonical and EncodeCanonical
// run on the hot path of a symmetric search.
func TestCanonicalAllocatesNothing(t *testing.T) {
	m, states := reachableStates(t, symConfigs()["control-plane"], 500)
	perms := m.Perms(uint8(1<<m.nb() - 1))
	var u State
	buf := make([]byte, 0, 4096)
	allocs := testing.AllocsPerRun(5, func() {
		for i := range states {
			m.Canonical(&states[i], perms, &u)
			u = states[i]
			m.Canonicalize(&u)
			buf, _ = m.EncodeCanonical(&states[i], buf[:0])
		}
	})
	if allocs != 0 {
		t.Errorf("Canonical over %d states: got %v allocations per run, want 0", len(states), allocs)
	}
}

// Canonical, the reference the tests hold canon to: it writes into t the representative of
// s's class under perms (which must form a group, the identity first) found by trying every
// permutation, the permuted state with the smallest encoding, and returns the size of the
// class (the number of distinct states among s's permutations). It allocates nothing.
func (m *Model) Canonical(s *State, perms []Perm, t *State) (orbit int) {
	var own, best, cur [1024]byte
	*t = *s
	es := m.Encode(s, own[:0])
	bl := append(best[:0], es...)
	stab := 1 // permutations that fix s
	var u State
	for i := 1; i < len(perms); i++ {
		m.Permute(s, &perms[i], &u)
		cl := m.Encode(&u, cur[:0])
		if bytes.Equal(cl, es) {
			stab++
		} else if bytes.Compare(cl, bl) < 0 {
			*t = u
			bl = append(best[:0], cl...)
		}
	}
	return len(perms) / stab
}
