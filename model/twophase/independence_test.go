package twophase

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"kmc/checker"
)

// Reference: TwoPhase.tla (tlaplus/Examples). The declarations of independence
// (independence.go) against the model on every reachable state, and the reduced search
// against the plain one.

func porProps(m *Model) []checker.Property[State] {
	props := []checker.Property[State]{
		{Name: "TCConsistent", Kind: checker.Invariant, State: TCConsistent},
		{Name: "TCTypeOK", Kind: checker.Invariant, State: m.TCTypeOK},
		{Name: "NotAllCommitted", Kind: checker.Invariant, State: m.NotAllCommitted},
	}
	for i := range props {
		props[i].Reads = m.PropertyReads(props[i].Name)
		if props[i].Reads == nil {
			panic("no reads for " + props[i].Name)
		}
	}
	return props
}

// porModels are the configurations the tests check: two to four RMs, the planted bug,
// each guard off.
func porModels() map[string]*Model {
	out := map[string]*Model{}
	for n := 2; n <= 4; n++ {
		out[fmt.Sprintf("N=%d", n)] = New(n)
		m := New(n)
		m.EarlyCommit = true
		out[fmt.Sprintf("N=%d/early-commit", n)] = m
		for g := range NumGuards {
			m := New(n)
			m.Mutate = GuardBit(g)
			out[fmt.Sprintf("N=%d/without-%s", n, Guards[g].Name)] = m
		}
	}
	return out
}

func TestIndependenceDeclarations(t *testing.T) {
	for name, m := range porModels() {
		t.Run(name, func(t *testing.T) {
			n, err := checker.CheckIndependence[State](m, porProps(m), nil, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if n < 10 {
				t.Fatalf("checked %d states", n)
			}
		})
	}
}

// TestIndependenceCatchesWrongDeclarations: a declaration made wrong on purpose is caught.
func TestIndependenceCatchesWrongDeclarations(t *testing.T) {
	m := New(3)
	props := porProps(m)
	props[2].Reads = &Objects{} // NotAllCommitted reads the decisions
	if _, err := checker.CheckIndependence[State](m, props, nil, 1<<20); err == nil {
		t.Error("NotAllCommitted declared to read nothing: no error")
	}
	bad := &wrongFootprint{Model: New(3)}
	if _, err := checker.CheckIndependence[State](bad, porProps(bad.Model), nil, 1<<20); err == nil {
		t.Error("RMPrepare declared not to write its Prepared message: no error")
	}
}

// wrongFootprint declares that RMPrepare does not send its Prepared message.
type wrongFootprint struct{ *Model }

func (w *wrongFootprint) Footprint(g int) (reads, writes Objects) {
	r, wr := w.Model.Footprint(g)
	if k, rm := w.groupOf(g); k == KindRMPrepare {
		wr[0] &^= 1 << (objMsgPrep + rm)
		r[0] &^= 1 << (objMsgPrep + rm)
	}
	return r, wr
}

func TestPORSameVerdicts(t *testing.T) {
	for name, m := range porModels() {
		for _, sym := range []bool{false, true} {
			props := porProps(m)
			for pi := range props {
				one := props[pi : pi+1]
				plain := checker.Check[State](m, one, checker.Options{Workers: 1, Symmetry: sym})
				for _, workers := range []int{1, 2} {
					red := checker.Check[State](m, one, checker.Options{Workers: workers, Symmetry: sym, POR: true})
					if red.Verdict != plain.Verdict || red.Property != plain.Property {
						t.Errorf("%s sym=%v %s: reduced %s %s, plain %s %s", name, sym, one[0].Name, red.Verdict, red.Property, plain.Verdict, plain.Property)
					}
					if plain.Verdict == checker.OK && red.Stats.Distinct > plain.Stats.Distinct {
						t.Errorf("%s sym=%v %s: reduced %d states, plain %d", name, sym, one[0].Name, red.Stats.Distinct, plain.Stats.Distinct)
					}
					if plain.Trace != nil && (red.Trace == nil || len(red.Trace.States) != len(plain.Trace.States)) {
						t.Errorf("%s sym=%v %s: reduced trace not the shortest", name, sym, one[0].Name)
					}
				}
			}
		}
	}
}

// TestPORReduces: with the type invariant alone (no step is visible to it) the reduction
// keeps one order of the RMs' independent steps. With TCConsistent, which reads every RM's
// decision, an RM's vote conflicts with its own visible choice to abort and little is left
// out: two-phase commit is all decisions.
func TestPORReduces(t *testing.T) {
	m := New(5)
	props := porProps(m)[1:2]
	plain := checker.Check[State](m, props, checker.Options{Workers: 1})
	red := checker.Check[State](m, props, checker.Options{Workers: 1, POR: true})
	t.Logf("N=5: plain %d states, reduced %d (%d reduced sets, %d refused by the proviso)", plain.Stats.Distinct, red.Stats.Distinct, red.Stats.Reduced, red.Stats.Proviso)
	if red.Verdict != checker.OK || red.Stats.Distinct*10 > plain.Stats.Distinct*7 {
		t.Errorf("reduced %d states (%s), plain %d: want at most 70%%", red.Stats.Distinct, red.Verdict, plain.Stats.Distinct)
	}
}

// TestPORDifferential: random configurations (RM count, the planted bug, guards off,
// properties, symmetry, workers), a fixed seed: the reduced and the plain search agree on
// the verdict, the property and the trace length. TestPORDifferentialLong runs 1,000 with
// KMC_POR_DIFF=1000 (make por-diff).
func TestPORDifferential(t *testing.T) {
	runDifferential(t, 60)
}

func runDifferential(t *testing.T, n int) {
	r := rand.New(rand.NewPCG(31, 5))
	for i := range n {
		m := New(2 + r.IntN(4))
		m.EarlyCommit = r.IntN(3) == 0
		m.Mutate = uint32(r.IntN(1 << NumGuards))
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
		opts := checker.Options{Workers: 1 + r.IntN(3), Symmetry: r.IntN(2) == 0, Deadlock: r.IntN(2) == 0}
		plain := checker.Check[State](m, props, opts)
		opts.POR = true
		red := checker.Check[State](m, props, opts)
		if red.Verdict != plain.Verdict || red.Property != plain.Property {
			t.Fatalf("config %d (N=%d early=%v mutate=%b %+v): reduced %s %s, plain %s %s", i, m.N, m.EarlyCommit, m.Mutate, opts, red.Verdict, red.Property, plain.Verdict, plain.Property)
		}
		if plain.Trace != nil && len(red.Trace.States) != len(plain.Trace.States) {
			t.Fatalf("config %d: trace of %d states, plain %d", i, len(red.Trace.States), len(plain.Trace.States))
		}
	}
}

func TestPORDifferentialLong(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("KMC_POR_DIFF"))
	if n <= 0 {
		t.Skip("KMC_POR_DIFF not set (make por-diff runs 1,000 configurations)")
	}
	runDifferential(t, n)
}

// TestPORStateOnly: TCConsistent reads every RM's decision, so every RM's step that decides
// is visible; with state properties only a stubborn set may hold visible groups (C2',
// checker/por.go) and the search reduces, with the plain search's verdict; an action
// property that reads nothing (it makes no step visible) brings C2 back, and with it nothing
// is reduced.
func TestPORStateOnly(t *testing.T) {
	var none checker.Objects
	always := checker.Property[State]{Name: "Always", Kind: checker.ActionProperty, Reads: &none,
		Step: func(*State, uint64, *State) bool { return true }}
	for n := 3; n <= 5; n++ {
		m := New(n)
		props := porProps(m)[:1]
		plain := checker.Check[State](m, props, checker.Options{Workers: 1})
		weak := checker.Check[State](m, props, checker.Options{Workers: 2, POR: true})
		strict := checker.Check[State](m, append(props, always), checker.Options{Workers: 2, POR: true})
		t.Logf("N=%d: plain %d states, C2' %d, C2 %d", n, plain.Stats.Distinct, weak.Stats.Distinct, strict.Stats.Distinct)
		if weak.Verdict != plain.Verdict || strict.Verdict != plain.Verdict {
			t.Fatalf("N=%d: C2' %s, C2 %s, plain %s", n, weak.Verdict, strict.Verdict, plain.Verdict)
		}
		if weak.Stats.Distinct >= strict.Stats.Distinct {
			t.Errorf("N=%d: C2' %d states, C2 %d: want fewer", n, weak.Stats.Distinct, strict.Stats.Distinct)
		}
	}
}
