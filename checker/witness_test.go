package checker

import (
	"strconv"
	"strings"
	"testing"
)

// The witness (Trace.Witness) of each kind of violation, from the engine, the simulator and
// Replay, on the counters model.
func TestWitness(t *testing.T) {
	explainC0 := func(s *cstate) string { return "c0 = " + strconv.Itoa(int(s.C[0])) }
	small := Property[cstate]{Name: "Small", Kind: Invariant, State: func(s *cstate) bool { return s.C[0] < 2 }, Explain: explainC0}
	bare := Property[cstate]{Name: "Bare", Kind: Invariant, State: func(s *cstate) bool { return s.C[0] < 2 }}
	noDec := Property[cstate]{Name: "NoDec", Kind: ActionProperty,
		Step: func(from *cstate, a uint64, to *cstate) bool { return to.sum() >= from.sum() },
		ExplainStep: func(from *cstate, a uint64, to *cstate) string {
			return "the sum goes down from " + strconv.Itoa(from.sum()) + " to " + strconv.Itoa(to.sum())
		}}
	full := Property[cstate]{Name: "Full", Kind: AlwaysEventually, State: func(s *cstate) bool { return s.C[0] == 2 }, Explain: explainC0}
	leads := Property[cstate]{Name: "Leads", Kind: LeadsTo, P: func(s *cstate) bool { return s.C[0] == 1 },
		Q: func(s *cstate) bool { return s.C[1] == 2 }, Explain: func(s *cstate) string { return "c1 = " + strconv.Itoa(int(s.C[1])) }}
	tests := []struct {
		name     string
		m        counters
		props    []Property[cstate]
		deadlock bool
		want     string // the witness, or its start when it ends with "..."
	}{
		{"invariant", counters{N: 2}, []Property[cstate]{small}, false, "Small is false in state 3: c0 = 2"},
		{"invariant without Explain", counters{N: 2}, []Property[cstate]{bare}, false, "Bare is false in state 3"},
		{"action property", counters{N: 2}, []Property[cstate]{noDec}, false,
			"NoDec is broken by the step into state 3 (Dec(0)): the sum goes down from 1 to 0"},
		{"deadlock", counters{N: 1, noDec: true, noMove: true}, nil, true,
			"no action is enabled in state 5 and no step of it was cut by a model bound"},
		{"always eventually", counters{N: 2, fair: Weak}, []Property[cstate]{full}, false,
			"Full: the goal holds in no state of the loop; states ..."},
		{"leads to", counters{N: 2, fair: Weak}, []Property[cstate]{leads}, false,
			"Leads: its condition holds in state 2 and its goal in no later state; ..."},
	}
	for _, tc := range tests {
		res := Check[cstate](tc.m, tc.props, Options{Workers: 2, Deadlock: tc.deadlock})
		if res.Verdict != Violated || res.Trace == nil {
			t.Fatalf("%s: verdict %s, want violated with a trace", tc.name, res.Verdict)
		}
		w := res.Trace.Witness
		if prefix, ok := strings.CutSuffix(tc.want, "..."); ok {
			if !strings.HasPrefix(w, prefix) {
				t.Errorf("%s: witness %q, want it to start with %q", tc.name, w, prefix)
			}
		} else if w != tc.want {
			t.Errorf("%s: witness %q, want %q", tc.name, w, tc.want)
		}
		if tc.props == nil {
			continue
		}
		// Replay gives the same witness for the trace.
		rep, err := Bind[cstate](tc.m, tc.props).Replay(res.Trace)
		if err != nil {
			t.Fatalf("%s: replay: %v", tc.name, err)
		}
		if len(rep.Witnesses) != 1 || rep.Witnesses[0] != w {
			t.Errorf("%s: replay witnesses %q, want [%q]", tc.name, rep.Witnesses, w)
		}
	}
}

// A lasso's witness names what holds in the loop's first state (Explain) and the fair steps
// the loop takes.
func TestLassoWitnessNamesLoopSteps(t *testing.T) {
	full := Property[cstate]{Name: "Full", Kind: AlwaysEventually, State: func(s *cstate) bool { return s.C[0] == 2 },
		Explain: func(s *cstate) string { return "c0 = " + strconv.Itoa(int(s.C[0])) }}
	res := Check[cstate](counters{N: 2, fair: Weak}, []Property[cstate]{full}, Options{Workers: 1})
	tr := res.Trace
	if tr == nil || tr.Loop < 0 {
		t.Fatalf("want a lasso, got %+v", res)
	}
	loop := "states " + strconv.Itoa(tr.Loop+1) + ".." + strconv.Itoa(len(tr.States)) + " repeat forever; in state " + strconv.Itoa(tr.Loop+1) + ": c0 = "
	if !strings.Contains(tr.Witness, loop) || !strings.Contains(tr.Witness, "Fair steps taken in the loop: ") {
		t.Errorf("witness %q lacks %q or the loop's fair steps", tr.Witness, loop)
	}
	if !strings.Contains(tr.Witness, tr.BackAction) {
		t.Errorf("witness %q does not name the back step %s among the loop's steps", tr.Witness, tr.BackAction)
	}
}
