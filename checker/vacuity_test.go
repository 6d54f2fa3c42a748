package checker

import (
	"slices"
	"testing"
)

// Reference: issue 16. A check that passes says when it tested little: a LeadsTo whose
// condition never held, a search of fewer than Handful states; the kinds of action taken are
// merged from the workers, the same for any number of them.
func TestVacuity(t *testing.T) {
	never := Property[cstate]{Name: "NeverP", Kind: LeadsTo,
		P: func(s *cstate) bool { return s.C[0] > 9 }, Q: func(s *cstate) bool { return s.C[0] == 0 }}
	held := Property[cstate]{Name: "HeldP", Kind: LeadsTo,
		P: func(s *cstate) bool { return s.C[0] == 2 }, Q: func(s *cstate) bool { return s.C[0] < 3 }}
	tests := []struct {
		name  string
		m     counters
		props []Property[cstate]
		want  []string
		taken []bool
	}{
		{"condition never held", counters{N: 2, fair: Weak}, []Property[cstate]{never, held},
			[]string{"NeverP: its condition never held"}, []bool{true, true, true}},
		{"not vacuous", counters{N: 2, fair: Weak}, []Property[cstate]{held}, nil, []bool{true, true, true}},
		{"no move", counters{N: 2, noMove: true, fair: Weak}, []Property[cstate]{held}, nil, []bool{true, true, false}},
		{"one state", counters{N: 0, fair: Weak}, []Property[cstate]{held},
			[]string{"only 1 distinct state", "HeldP: its condition never held"}, []bool{false, false, false}},
	}
	for _, tt := range tests {
		for _, w := range []int{1, 2} {
			res := Check[cstate](tt.m, tt.props, Options{Workers: w, Vacuity: true})
			if res.Verdict != OK {
				t.Fatalf("%s, %d workers: verdict %s (%s), want ok", tt.name, w, res.Verdict, res.Reason)
			}
			if !slices.Equal(res.Vacuous, tt.want) {
				t.Errorf("%s, %d workers: vacuous: got %q, want %q", tt.name, w, res.Vacuous, tt.want)
			}
			if !slices.Equal(res.Taken, tt.taken) {
				t.Errorf("%s, %d workers: taken: got %v, want %v", tt.name, w, res.Taken, tt.taken)
			}
		}
	}
	// Without the option nothing is reported.
	res := Check[cstate](counters{N: 0}, nil, Options{Workers: 1})
	if res.Vacuous != nil || res.Taken != nil {
		t.Errorf("without Vacuity: got vacuous %q, taken %v; want none", res.Vacuous, res.Taken)
	}
}
