package kafka

import "strconv"

// The assignment order, deferred for a search under symmetry.
//
// Kafka's elections take the first candidate in the partition's assignment order (see the
// top of symmetry.go), and the model's assignment is brokers 1..N: an election compares
// brokers, so renaming brokers does not map the model's steps to steps. The model for the
// search under symmetry (InitDeferred) therefore leaves the order open: State.Ord records
// only what the elections so far have revealed of it, and an election whose candidates the
// revealed order does not rank yet is taken once per candidate that can still come first,
// each successor recording that its leader comes before the other candidates. A behaviour
// of that model is a behaviour of the plain model for every assignment order that extends
// what its last state revealed; renamed so that one such order becomes 1..N (Settle), it
// is a behaviour of the plain model. Conversely every behaviour of the plain model is one
// of the open model's (each election taking the candidate that comes first in 1..N). So
// both reach the same states up to renaming, and renaming the brokers, the order with
// them, maps the open model's steps to steps: the symmetry reduction is sound for it.
//
// Fixed parts of the order: broker 1 (the initial leader and preferred replica) comes first;
// with the ZooKeeper plane the first controller's host, controller_broker, keeps its place,
// the brokers numbered below it before it and those above it after it (the lowest live
// broker wins /controller in the model, so the host's place among the others matters).
// Those are the brokers the symmetry group fixes or keeps apart (Model.Blocks).

// Order is what a search knows of the assignment order. Invariants:
//  1. Open false: the order is 1..N (the plain model), and After is zero.
//  2. Open true: After[a] is the set of brokers known to come after a; it is transitively
//     closed and irreflexive, and holds the fixed parts above.
type Order struct {
	Open  bool
	After [MaxBrokers]uint8
}

// validOrder checks Order's invariants.
func (m *Model) validOrder(o *Order) error {
	if !o.Open {
		if o.After != ([MaxBrokers]uint8{}) {
			return errString("model: order: closed with brokers recorded")
		}
		return nil
	}
	c := *o
	c.close()
	base := m.baseOrder()
	for b := 0; b < MaxBrokers; b++ {
		switch {
		case b >= m.nb() && o.After[b] != 0, o.After[b]&^uint8(1<<m.nb()-1) != 0:
			return errString("model: order: a broker beyond the broker count")
		case c.After[b] != o.After[b]:
			return errString("model: order: not transitively closed")
		case has(o.After[b], b):
			return errString("model: order: b" + strconv.Itoa(b+1) + " comes after itself")
		case o.After[b]&base.After[b] != base.After[b]:
			return errString("model: order: b" + strconv.Itoa(b+1) + " is not where broker 1 and the controller's host fix it")
		}
	}
	return nil
}

// firsts is the set of brokers of cand (not empty) that can come first in the order.
func (o *Order) firsts(cand uint8) uint8 {
	if !o.Open {
		return bit(lowest(cand))
	}
	f := cand
	for x := cand; x != 0; x &= x - 1 {
		f &^= o.After[lowest(x)]
	}
	return f
}

// reveal records that broker first comes before the other brokers of cand.
func (o *Order) reveal(first int, cand uint8) {
	if !o.Open {
		return
	}
	if o.After[first]|bit(first) == o.After[first]|cand {
		return // known already
	}
	o.After[first] |= cand &^ bit(first)
	o.close()
}

// close makes After transitively closed (Warshall's algorithm).
func (o *Order) close() {
	for k := 0; k < MaxBrokers; k++ {
		for i := 0; i < MaxBrokers; i++ {
			if has(o.After[i], k) {
				o.After[i] |= o.After[k]
			}
		}
	}
}

// extension is the assignment order (order[i] is the broker at place i) that extends o
// and, among those, puts the lowest-numbered broker first wherever o leaves a choice.
func (o *Order) extension(n int) [MaxBrokers]uint8 {
	var order [MaxBrokers]uint8
	left := uint8(1<<n - 1)
	for i := 0; i < n; i++ {
		b := lowest(o.firsts(left))
		order[i] = uint8(b)
		left &^= bit(b)
	}
	return order
}

// baseOrder is the open order at the start of a search under symmetry: its fixed parts.
func (m *Model) baseOrder() Order {
	o := Order{Open: true}
	n := m.nb()
	all := uint8(1<<n - 1)
	o.After[0] = all &^ 1
	if h := m.orderHost(); h > 0 {
		low := all &^ (1<<h - 1)
		for b := 1; b < h; b++ {
			o.After[b] = low
		}
		o.After[h] = low &^ bit(h)
	}
	return o
}

// orderHost is the broker index whose place in the order is fixed besides broker 1: the
// first controller's host with the ZooKeeper plane, 0 (none beyond broker 1) otherwise.
func (m *Model) orderHost() int {
	if m.cp() {
		return int(m.ctrlHost())
	}
	return 0
}

// Blocks are the sets of brokers that the symmetry group permutes, each among itself: the
// brokers between broker 1 and the host, and those after the host (one block, 2..N, when
// no host is fixed). Blocks of fewer than two brokers are left out.
func (m *Model) Blocks() []uint8 {
	n := m.nb()
	h := m.orderHost()
	var out []uint8
	add := func(set uint8) {
		if popcount(set) >= 2 {
			out = append(out, set)
		}
	}
	if h == 0 {
		add(uint8(1<<n-1) &^ 1)
		return out
	}
	add(uint8(1<<h-1) &^ 1)
	add(uint8(1<<n-1) &^ uint8(1<<(h+1)-1))
	return out
}

// deferred reports whether a search under symmetry needs the order open: some election can
// compare brokers, because a broker can stop (crash, unclean_crash, power_loss,
// controlled_shutdown: the controller elects among the others), or a controller fails over
// (it elects a host, and a leader for a partition it finds leaderless), or KRaft's
// controller elects. Otherwise no step depends on the order and the plain model is
// symmetric as it is.
func (m *Model) deferred() bool {
	c := &m.C
	return c.Controllers > 1 || c.KRaft || c.Crash+c.UncleanCrash+c.PowerLoss+c.ControlledShutdown > 0
}

// InitDeferred appends the initial state of a search under symmetry, with the assignment
// order open, and reports true; it reports false, appending nothing, when the
// configuration needs no open order (checker.Deferring).
func (m *Model) InitDeferred(buf []State) ([]State, bool) {
	if !m.deferred() || len(m.perms) < 2 {
		return buf, false
	}
	n := len(buf)
	buf = m.Init(buf)
	for i := n; i < len(buf); i++ {
		buf[i].Ord = m.baseOrder()
	}
	return buf, true
}

// Settle turns a behaviour of the search with the order open into one of the plain model
// (checker.Deferring): it takes the assignment order that extends what the last state
// revealed (the lowest broker first where that leaves a choice), renames the brokers of
// every state so that the order becomes 1..N, and closes the order. The renaming is one of
// the symmetry group's: it fixes broker 1 and the host, and keeps the blocks.
func (m *Model) Settle(states []State) {
	if len(states) == 0 || !states[len(states)-1].Ord.Open {
		return
	}
	order := states[len(states)-1].Ord.extension(m.nb())
	p := Identity()
	for i := 0; i < m.nb(); i++ {
		p[order[i]] = uint8(i)
	}
	var u State
	for j := range states {
		m.Permute(&states[j], &p, &u)
		u.Ord = Order{}
		states[j] = u
	}
}

// Choice points of a step: an election among candidates that the open order does not rank
// yet. gen.branch runs a step once per combination of the choices its elections meet (an
// odometer over the choice points, later ones varying fastest); with the order closed no
// step meets one and every step runs once.
const maxChoices = 4

type choices struct {
	n, known   uint8 // choice points met in this run; points whose alternatives are known
	pick, alts [maxChoices]uint8
}

// first is the broker an election among cand (not empty) takes in successor t: the first
// of cand in the order, or with the order open the candidate the current choice names
// among those that can come first, which t's order then records.
func (g *gen) first(t *State, cand uint8) int {
	f := t.Ord.firsts(cand)
	b := lowest(f)
	if f != bit(b) {
		ch := &g.ch
		i := ch.n
		if int(i) == maxChoices {
			panic("model: more than 4 elections in one step")
		}
		ch.n++
		if i >= ch.known {
			ch.pick[i], ch.alts[i], ch.known = 0, uint8(popcount(f)), i+1
		}
		for k := ch.pick[i]; k > 0; k-- {
			f &^= bit(b)
			b = lowest(f)
		}
	}
	t.Ord.reveal(b, cand)
	return b
}

// branch emits step a once per combination of its choices (once when it meets none):
// each run starts a successor as a copy of the current state and calls step on it, which
// edits it and may change its code (recode); step reports false when a bound cut the step
// (it needs a leader epoch above max_epoch), and the successor is then withdrawn and the
// step reported as cut.
func (g *gen) branch(a uint64, step func(t *State) bool) {
	g.ch.known = 0
	for {
		g.ch.n = 0
		t := g.emit(a)
		if !step(t) {
			code := g.acts[len(g.acts)-1]
			g.retract()
			g.cutStep(code, BoundMaxEpoch)
		}
		if !g.ch.advance() {
			return
		}
	}
}

// recode sets the code of the successor emitted last (an election that names its winner).
func (g *gen) recode(a uint64) { g.acts[len(g.acts)-1] = a }

// advance moves to the next combination of choices and reports false when there is none.
func (ch *choices) advance() bool {
	for i := int(ch.n) - 1; i >= 0; i-- {
		if ch.pick[i]+1 < ch.alts[i] {
			ch.pick[i]++
			ch.known = uint8(i) + 1
			return true
		}
	}
	return false
}
