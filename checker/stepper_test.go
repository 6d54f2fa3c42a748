package checker

import (
	"reflect"
	"strings"
	"testing"
)

// The stepper walks the counters box one state at a time: its successors are Next's, in
// order; its search from a state finds the shortest path to a goal, as indexes that lead
// there again; an invariant's explanation comes with its value.
func TestStepperWalksAndSearches(t *testing.T) {
	m := counters{N: 2}
	props := []Property[cstate]{{Name: "SumBelow3", Kind: Invariant,
		State:   func(s *cstate) bool { return s.sum() < 3 },
		Explain: func(s *cstate) string { return "sum is " + itoa(s.sum()) }}}
	st := Bind[cstate](m, props).Stepper()
	inits := st.Init()
	if len(inits) != 1 {
		t.Fatalf("Init: got %d states, want 1", len(inits))
	}
	steps, cuts := st.Next(inits[0].State)
	if len(steps) != 4 || len(cuts) != 0 {
		t.Fatalf("Next of the initial state: got %d steps and %d cuts, want 4 and 0", len(steps), len(cuts))
	}
	if steps[2].Name != "Inc(2)" || steps[2].Kind != "Inc" {
		t.Errorf("step 3: got %s (%s), want Inc(2) (Inc)", steps[2].Name, steps[2].Kind)
	}
	if got := st.Values(steps[2].State); !reflect.DeepEqual(got, []string{`{"#bigint":"0"}`, `{"#bigint":"0"}`, `{"#bigint":"1"}`, `{"#bigint":"0"}`}) {
		t.Errorf("values after Inc(2): got %v", got)
	}
	ev := st.Evaluate(nil, 0, inits[0].State)
	if len(ev) != 1 || !ev[0].Holds || ev[0].Why != "" {
		t.Errorf("SumBelow3 in the initial state: got %+v, want it to hold", ev)
	}

	res := st.Search(steps[2].State, Goal{Property: "SumBelow3"}, Options{Workers: 2})
	if res.Verdict != Violated || len(res.Path) != 2 {
		t.Fatalf("search from c2=1: got %s with path %v, want violated in 2 steps", res.Verdict, res.Path)
	}
	cur := steps[2].State
	for _, k := range res.Path {
		next, _ := st.Next(cur)
		cur = next[k].State
	}
	if ev := st.Evaluate(nil, 0, cur); ev[0].Holds || ev[0].Why != "sum is 3" {
		t.Errorf("the search's last state: got %+v, want SumBelow3 false with its explanation", ev[0])
	}
	if !strings.Contains(res.Witness, "SumBelow3 is false in state 3") {
		t.Errorf("witness: got %q", res.Witness)
	}

	goal := Goal{Name: "c3is2", State: func(value func(v int) []byte) bool {
		return string(value(3)) == `{"#bigint":"2"}`
	}}
	res = st.Search(inits[0].State, goal, Options{Workers: 1})
	if res.Verdict != Violated || len(res.Path) != 2 {
		t.Fatalf("search for c3 = 2: got %s with path %v, want found in 2 steps", res.Verdict, res.Path)
	}
	// Any number of workers: the same shortest path.
	for _, w := range []int{2, 4} {
		if r := st.Search(inits[0].State, goal, Options{Workers: w}); !reflect.DeepEqual(r.Path, res.Path) {
			t.Errorf("search for c3 = 2 with %d workers: got path %v, want %v", w, r.Path, res.Path)
		}
	}
	res = st.Search(inits[0].State, Goal{Name: "never", State: func(func(int) []byte) bool { return false }}, Options{})
	if res.Verdict != OK || res.Stats.Distinct != 81 {
		t.Errorf("search for nothing: got %s after %d states, want ok after 81", res.Verdict, res.Stats.Distinct)
	}
	res = st.Search(inits[0].State, Goal{Property: "Nope"}, Options{})
	if res.Verdict != Incomplete || !strings.Contains(res.Reason, "no such property") {
		t.Errorf("search for an unknown property: got %s (%s)", res.Verdict, res.Reason)
	}
}

// Cut steps come with the bound that cut them.
func TestStepperCuts(t *testing.T) {
	m := tiny{steps: []tstep{{0, 1, 0}}, cuts: []tstep{{0, 2, 1}}, names: []string{"A", "B"}, fair: []Fairness{Weak, Weak}}
	st := Bind[uint32](m, nil).Stepper()
	steps, cuts := st.Next(st.Init()[0].State)
	if len(steps) != 1 || len(cuts) != 1 || cuts[0].Kind != "B" || cuts[0].Bound != "limit=1" {
		t.Fatalf("got steps %+v cuts %+v, want one step and B cut by limit=1", steps, cuts)
	}
	if got := st.Bounds(); !reflect.DeepEqual(got, []string{"limit=1"}) {
		t.Errorf("Bounds: got %v", got)
	}
}
