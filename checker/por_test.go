package checker

import (
	"strings"
	"testing"
)

// porCounters is counters (four counters 0..N, Inc, Dec and Move between two) with its
// independence declared: one object per counter, one group per action code, a guard per
// counter a step needs.
type porCounters struct{ counters }

func (porCounters) Groups() int { return 8 + nCounters*nCounters }

func (porCounters) Group(a uint64) int {
	i, j := int(a>>4&15), int(a&15)
	switch a >> 8 {
	case kInc:
		return i
	case kDec:
		return nCounters + i
	}
	return 2*nCounters + i*nCounters + j
}

func one(i ...int) Objects {
	var o Objects
	for _, k := range i {
		o[0] |= 1 << k
	}
	return o
}

func (porCounters) Footprint(g int) (reads, writes Objects) {
	switch {
	case g < 2*nCounters:
		return one(g % nCounters), one(g % nCounters)
	default:
		g -= 2 * nCounters
		o := one(g/nCounters, g%nCounters)
		return o, o
	}
}

// Guards: one per counter a step needs; a kind of step the configuration leaves out has
// one guard that is always false and reads nothing.
func (m porCounters) Guards(g int) int {
	if g < 2*nCounters || m.off(g) {
		return 1
	}
	return 2
}

func (m porCounters) off(g int) bool {
	return g >= nCounters && g < 2*nCounters && m.noDec || g >= 2*nCounters && m.noMove
}

func (m porCounters) GuardReads(g, k int) Objects {
	if m.off(g) {
		return Objects{}
	}
	if g < 2*nCounters {
		return one(g % nCounters)
	}
	g -= 2 * nCounters
	if k == 0 {
		return one(g / nCounters)
	}
	return one(g % nCounters)
}

func (m porCounters) Guard(s *cstate, g, k int) bool {
	switch {
	case m.off(g):
		return false
	case g < nCounters:
		return s.C[g] < m.N
	case g < 2*nCounters:
		return s.C[g-nCounters] > 0
	}
	g -= 2 * nCounters
	if k == 0 {
		return s.C[g/nCounters] > 0
	}
	return s.C[g%nCounters] < m.N
}

// porProps: both counters 0 and 1 full (reads counters 0 and 1), a counter at 2 while
// counter 3 is at 1 (reads 2 and 3), and an action property on Move (reads every counter).
func porProps(n uint8) []Property[cstate] {
	r01, r23, all := one(0, 1), one(2, 3), one(0, 1, 2, 3)
	return []Property[cstate]{
		{Name: "NotBothFull", Kind: Invariant, Reads: &r01, State: func(s *cstate) bool { return s.C[0] != n || s.C[1] != n }},
		{Name: "NotTwoOne", Kind: Invariant, Reads: &r23, State: func(s *cstate) bool { return s.C[2] != 2 || s.C[3] != 1 }},
		{Name: "NoMoveFromFull", Kind: ActionProperty, Reads: &all, Step: func(from *cstate, a uint64, to *cstate) bool {
			return a>>8 != kMove || from.C[a>>4&15] != n || n < 3
		}},
	}
}

func TestPORDeclarations(t *testing.T) {
	for _, m := range []counters{{N: 2}, {N: 3, noMove: true}, {N: 2, noDec: true, noMove: true}} {
		n, err := CheckIndependence[cstate](porCounters{m}, porProps(m.N), nil, 1<<16)
		if err != nil || n < 10 {
			t.Errorf("%+v: %d states, %v", m, n, err)
		}
	}
	// A wrong declaration: Move(0,1) declared not to touch counter 1.
	bad := badCounters{porCounters{counters{N: 2}}}
	if _, err := CheckIndependence[cstate](bad, nil, nil, 1<<16); err == nil {
		t.Error("a wrong footprint: no error")
	}
}

type badCounters struct{ porCounters }

func (b badCounters) Footprint(g int) (reads, writes Objects) {
	if g == 2*nCounters+1 {
		return one(0), one(0)
	}
	return b.porCounters.Footprint(g)
}

// TestPORSafety: the reduced search gives the plain search's verdict, property and
// counterexample (shortened by the bounded plain search), fewer states, and the same
// counts and trace for 1, 2 and 4 workers; with symmetry too.
func TestPORSafety(t *testing.T) {
	for _, m := range []counters{{N: 2}, {N: 3}, {N: 3, noMove: true}, {N: 4, noDec: true, noMove: true}} {
		all := porProps(m.N)
		for pi := range all {
			props := all[pi : pi+1]
			plain := Check[cstate](porCounters{m}, props, Options{Workers: 1})
			var first Result
			for _, workers := range []int{1, 2, 4} {
				red := Check[cstate](porCounters{m}, props, Options{Workers: workers, POR: true})
				if !red.Stats.POR {
					t.Fatal("no reduction")
				}
				if red.Verdict != plain.Verdict || red.Property != plain.Property {
					t.Fatalf("%+v %s: reduced %s %s, plain %s %s", m, props[0].Name, red.Verdict, red.Property, plain.Verdict, plain.Property)
				}
				if plain.Verdict == OK && pi < 2 && red.Stats.Distinct >= plain.Stats.Distinct {
					t.Errorf("%+v %s: reduced %d states, plain %d", m, props[0].Name, red.Stats.Distinct, plain.Stats.Distinct)
				}
				if plain.Trace != nil {
					if got, want := traceText(red.Trace), traceText(plain.Trace); got != want {
						t.Errorf("%+v %s: reduced trace\n%s\nplain\n%s", m, props[0].Name, got, want)
					}
					if red.Stats.Reduced > 0 && red.Stats.Shortened == 0 {
						t.Errorf("%+v %s: Stats.Shortened not set", m, props[0].Name)
					}
				}
				if workers == 1 {
					first = red
				} else if red.Stats.Distinct != first.Stats.Distinct || red.Stats.Generated != first.Stats.Generated || red.Stats.Reduced != first.Stats.Reduced {
					t.Errorf("%+v %s: %d workers: %+v, 1 worker: %+v", m, props[0].Name, workers, red.Stats, first.Stats)
				}
			}
		}
	}
}

func traceText(t *Trace) string {
	var b strings.Builder
	for _, s := range t.States {
		b.WriteString(s.Action + " " + strings.Join(s.Values, ",") + "\n")
	}
	return b.String()
}

// TestPORDeadlock: the corner of the box without Dec and Move deadlocks; the reduced search
// finds it, along one order of the increments.
func TestPORDeadlock(t *testing.T) {
	m := porCounters{counters{N: 3, noDec: true, noMove: true}}
	plain := Check[cstate](m, nil, Options{Workers: 1, Deadlock: true})
	red := Check[cstate](m, nil, Options{Workers: 1, Deadlock: true, POR: true})
	if red.Verdict != Violated || red.Property != "Deadlock" || plain.Property != "Deadlock" {
		t.Fatalf("got %s %s, plain %s %s", red.Verdict, red.Property, plain.Verdict, plain.Property)
	}
	if red.Stats.Distinct*4 > plain.Stats.Distinct {
		t.Errorf("reduced %d states, plain %d: want a quarter at most", red.Stats.Distinct, plain.Stats.Distinct)
	}
}

// TestPORProviso: with Inc and Dec every state lies on a cycle; the proviso expands some
// states in full, and the invariant that needs two counters full is still found.
func TestPORProviso(t *testing.T) {
	m := porCounters{counters{N: 3, noMove: true}}
	red := Check[cstate](m, porProps(3)[:1], Options{Workers: 2, POR: true})
	if red.Verdict != Violated || red.Stats.Proviso == 0 || red.Stats.Reduced == 0 {
		t.Errorf("got %s, %d reduced sets, %d refused by the proviso", red.Verdict, red.Stats.Reduced, red.Stats.Proviso)
	}
}

func TestPORRefusesLiveness(t *testing.T) {
	m := porCounters{counters{N: 2}}
	props := []Property[cstate]{{Name: "Full", Kind: Eventually, State: func(s *cstate) bool { return s.C[0] == 2 }}}
	res := Check[cstate](m, props, Options{POR: true})
	if res.Verdict != Incomplete || !strings.Contains(res.Reason, "partial-order reduction is not sound for liveness property Full") {
		t.Errorf("got %s %q", res.Verdict, res.Reason)
	}
}

// TestPORNoAllocs: the expansion with the reduction allocates nothing once its buffers
// have grown.
func TestPORNoAllocs(t *testing.T) {
	testPORNoAllocs(t, porCounters{counters{N: 5, noMove: true}})
	testPORNoAllocs(t, porEnabling{porCounters: porCounters{counters{N: 5, noMove: true}}})
}

func testPORNoAllocs[M Model[cstate]](t *testing.T, m M) {
	e, _, ok := newEngine[cstate](m, porProps(5)[:1], Options{Workers: 1, POR: true})
	if !ok || e.por == nil {
		t.Fatal("newEngine failed")
	}
	var fr frontier
	fr.reset(0)
	var enc []byte
	for i := range 50 {
		s := cstate{C: [4]uint8{uint8(i % 6), uint8(i / 6 % 6), 1, 2}}
		enc = m.Encode(&s, enc[:0])
		fr.add(enc)
	}
	w := e.worker(0)
	out := &chunkOut{}
	w.expandChunk(&fr, 0, fr.n(), out)
	if w.segReduced == 0 { // the chunk's segment is not committed here
		t.Fatal("no reduced set")
	}
	allocs := testing.AllocsPerRun(20, func() { w.expandChunk(&fr, 0, fr.n(), out) })
	if allocs != 0 {
		t.Errorf("got %v allocations per expansion of 50 states, want 0", allocs)
	}
}

// porCut is porCounters with a model bound: Inc(0) from 2 on is cut (Bounded), so that
// the corner of the box has a cut step and no successor.
type porCut struct{ porCounters }

func (m porCut) Next(s *cstate, succ []cstate, acts []uint64) ([]cstate, []uint64) {
	succ, acts, _, _ = m.NextCut(s, succ, acts, nil, nil)
	return succ, acts
}

func (m porCut) NextCut(s *cstate, succ []cstate, acts []uint64, cut []uint64, by []int) ([]cstate, []uint64, []uint64, []int) {
	start := len(succ)
	succ, acts = m.counters.Next(s, succ, acts)
	j := start
	for i := start; i < len(succ); i++ {
		if acts[i] == kInc<<8 && s.C[0] >= 2 {
			cut, by = append(cut, acts[i]), append(by, 0)
			continue
		}
		succ[j], acts[j] = succ[i], acts[i]
		j++
	}
	return succ[:j], acts[:j], cut, by
}

func (porCut) Bounds() []string { return []string{"cap=2"} }

// TestPORCuts: the reduction is of the model as its bound leaves it (a cut step is no
// step), and the deadlock rule stays: the corner (2,N,N,N), whose only step is cut, is no
// deadlock under the reduction either, with reduced sets on the way; the declarations hold
// for the bounded model.
func TestPORCuts(t *testing.T) {
	m := porCut{porCounters{counters{N: 3, noDec: true, noMove: true}}}
	if _, err := CheckIndependence[cstate](m, porProps(3)[:2], nil, 1<<16); err != nil {
		t.Fatal(err)
	}
	for _, props := range [][]Property[cstate]{nil, porProps(3)[1:2]} {
		plain := Check[cstate](m, props, Options{Workers: 1, Deadlock: true})
		red := Check[cstate](m, props, Options{Workers: 2, Deadlock: true, POR: true})
		if red.Verdict != plain.Verdict || red.Property != plain.Property || red.Stats.Reduced == 0 {
			t.Errorf("%d properties: reduced %s %s (%d reduced sets), plain %s %s", len(props), red.Verdict, red.Property, red.Stats.Reduced, plain.Verdict, plain.Property)
		}
	}
	// Without the bound's cut reported the corner is a deadlock: the test has teeth.
	plain := Check[cstate](porCounters{counters{N: 2, noDec: true, noMove: true}}, nil, Options{Workers: 1, Deadlock: true})
	if plain.Verdict != Violated {
		t.Errorf("the box without a bound: got %s, want a deadlock", plain.Verdict)
	}
}

// TestPORDeferred: the reduction with symmetry and the order left open (Deferring): the
// declarations hold on the open model's states as on the plain model's, and the verdict and
// trace are the symmetric search's for 1 and 2 workers. (The model is too small for a
// reduced set: every process's step conflicts with the election, which the property sees;
// the reduced sets under symmetry are TestPORSameVerdicts' in model/twophase.)
func TestPORDeferred(t *testing.T) {
	m := porPriority{}
	inits, _ := m.InitDeferred(nil)
	if _, err := CheckIndependence[pstate](m, priorityProps(), inits, 1<<16); err != nil {
		t.Fatal(err)
	}
	if _, err := CheckIndependence[pstate](m, priorityProps(), nil, 1<<16); err != nil {
		t.Fatal(err)
	}
	sym := Check[pstate](m, priorityProps(), Options{Workers: 1, Symmetry: true})
	for _, w := range []int{1, 2} {
		red := Check[pstate](m, priorityProps(), Options{Workers: w, Symmetry: true, POR: true})
		if red.Verdict != sym.Verdict || !red.Stats.POR || !red.Stats.Deferred || traceText(red.Trace) != traceText(sym.Trace) {
			t.Errorf("workers %d: reduced %s %+v, symmetric %s", w, red.Verdict, red.Stats, sym.Verdict)
		}
	}
}

// porPriority declares priority's independence: objects 0..2 the processes (ready, done),
// 3 the token's holder, 4 the open order; Ready(i) one group each, Elect and Release one.
type porPriority struct{ priority }

func (porPriority) Groups() int { return 5 }
func (porPriority) Group(a uint64) int {
	switch a & 15 {
	case pReady:
		return int(a >> 4)
	case pElect:
		return 3
	}
	return 4
}
func (porPriority) Footprint(g int) (reads, writes Objects) {
	switch {
	case g < 3:
		return one(g, 3), one(g)
	case g == 3:
		return one(0, 1, 2, 3, 4), one(0, 1, 2, 3, 4)
	}
	return one(0, 1, 2, 3), one(0, 1, 2, 3)
}
func (porPriority) Guards(g int) int { return 1 }
func (porPriority) GuardReads(g, k int) Objects {
	if g < 3 {
		return one(g, 3)
	}
	return one(3)
}
func (porPriority) Guard(s *pstate, g, k int) bool {
	switch {
	case g < 3:
		bit := uint8(1) << g
		return s.Ready&bit == 0 && s.Done&bit == 0 && int(s.Holder) != g
	case g == 3:
		return s.Holder < 0
	}
	return s.Holder >= 0
}

// porEnabling is porCounters with its necessary enabling sets declared (Enabling): a
// counter below N is filled only by its Inc or a Move into it, and one above 0 is emptied
// only by its Dec or a Move out of it, fewer groups than those that write the counter.
// wrong plants an error: 1 leaves the Moves out of Inc's set (a Move out of a full counter
// turns Inc's guard true); 2 gives Dec(i) only Inc(i) while every other counter is 0
// (true of the state, but an Inc elsewhere leads to a state whose set holds a Move into i).
type porEnabling struct {
	porCounters
	wrong int
}

func (m porEnabling) GuardEnablers(s *cstate, g, k int, e *Groups) bool {
	n := nCounters
	move := func(i, j int) int { return 2*n + i*n + j }
	add := func(g int) { e[g>>6] |= 1 << (g & 63) }
	switch {
	case m.off(g):
		return true // nothing enables a kind of step the configuration leaves out
	case g < n: // Inc(g): C[g] < N
		add(n + g)
		if m.wrong != 1 {
			for j := range n {
				add(move(g, j))
			}
		}
	case g < 2*n: // Dec(i): C[i] > 0
		i := g - n
		add(i)
		others := 0
		for j := range n {
			if j != i {
				others += int(s.C[j])
			}
		}
		if m.wrong != 2 || others > 0 {
			for j := range n {
				add(move(j, i))
			}
		}
	default:
		i, j := (g-2*n)/n, (g-2*n)%n
		if k == 0 { // C[i] > 0
			add(i)
			for x := range n {
				add(move(x, i))
			}
		} else { // C[j] < N
			add(n + j)
			for x := range n {
				add(move(j, x))
			}
		}
	}
	return true
}

// TestPOREnabling: the declared enabling sets pass CheckIndependence, reduce at least as
// much as the guards' writers and keep every verdict; the two planted errors are caught,
// each by its own clause of the check.
func TestPOREnabling(t *testing.T) {
	for _, m := range []counters{{N: 2}, {N: 3, noMove: true}, {N: 2, noDec: true, noMove: true}} {
		if n, err := CheckIndependence[cstate](porEnabling{porCounters: porCounters{m}}, porProps(m.N), nil, 1<<16); err != nil || n < 10 {
			t.Errorf("%+v: %d states, %v", m, n, err)
		}
	}
	for _, m := range []counters{{N: 2}, {N: 3}, {N: 4, noDec: true}} {
		all := porProps(m.N)
		for pi := range all {
			props := all[pi : pi+1]
			plain := Check[cstate](porCounters{m}, props, Options{Workers: 1})
			writers := Check[cstate](porCounters{m}, props, Options{Workers: 1, POR: true})
			for _, workers := range []int{1, 2} {
				red := Check[cstate](porEnabling{porCounters: porCounters{m}}, props, Options{Workers: workers, POR: true})
				if red.Verdict != plain.Verdict || red.Property != plain.Property {
					t.Fatalf("%+v %s: reduced %s %s, plain %s %s", m, props[0].Name, red.Verdict, red.Property, plain.Verdict, plain.Property)
				}
				if plain.Trace != nil && traceText(red.Trace) != traceText(plain.Trace) {
					t.Errorf("%+v %s: reduced trace differs from the plain one", m, props[0].Name)
				}
				if red.Verdict == OK && red.Stats.Distinct > writers.Stats.Distinct {
					t.Errorf("%+v %s: %d states with the declared sets, %d with the writers", m, props[0].Name, red.Stats.Distinct, writers.Stats.Distinct)
				}
			}
		}
	}
	for wrong, want := range map[int]string{1: "turns guard", 2: "leads to a state whose set"} {
		_, err := CheckIndependence[cstate](porEnabling{porCounters{counters{N: 2}}, wrong}, nil, nil, 1<<16)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("planted error %d: %v, want %q", wrong, err, want)
		}
	}
}
