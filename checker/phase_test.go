package checker

import (
	"fmt"
	"strings"
	"testing"
)

// Reference: issue 13 (phase lines): the search reports the phases it enters, in order.
func TestPhases(t *testing.T) {
	at := func(k uint32) func(s *uint32) bool { return func(s *uint32) bool { return *s == k } }
	props := []Property[uint32]{
		{Name: "Three", Kind: AlwaysEventually, State: at(3)},
		{Name: "Safe", Kind: Invariant, State: func(*uint32) bool { return true }},
		{Name: "Five", Kind: AlwaysEventually, State: at(5)},
	}
	for _, tc := range []struct {
		props []Property[uint32]
		want  string
	}{
		{props, "state-space search|liveness: state graph|liveness: Three|liveness: Five"},
		{props[1:2], "state-space search"},
	} {
		var got []string
		res := Check[uint32](chain{n: 10, wrap: true}, tc.props, Options{Workers: 2, Phase: func(p string, st Stats) {
			got = append(got, p)
		}})
		if res.Verdict != OK {
			t.Fatalf("verdict: got %s, want ok", res.Verdict)
		}
		if s := strings.Join(got, "|"); s != tc.want {
			t.Errorf("phases: got %q, want %q", s, tc.want)
		}
	}
}

// Reference: issue 13 (--coverage): per kind of action, the states where it was enabled and
// the steps it generated; the same for any number of workers, and the steps add up to the
// states generated (less the initial state). A kind the model never offers has none.
func TestCoverage(t *testing.T) {
	var first []KindCoverage
	for _, w := range []int{1, 2, 4} {
		res := Check[cstate](counters{N: 5, noMove: true}, nil, Options{Workers: w, Coverage: true})
		if res.Verdict != OK || len(res.Coverage) != 3 {
			t.Fatalf("workers %d: got %s with %d kinds", w, res.Verdict, len(res.Coverage))
		}
		var taken int64
		for _, c := range res.Coverage {
			taken += c.Taken
			if c.Enabled > c.Taken || c.Enabled > res.Stats.Distinct {
				t.Errorf("workers %d: %s enabled %d, taken %d, of %d states", w, c.Kind, c.Enabled, c.Taken, res.Stats.Distinct)
			}
		}
		if taken != res.Stats.Generated-1 { // the initial state counts as generated
			t.Errorf("workers %d: steps by kind add up to %d, want %d generated, less the initial state", w, taken, res.Stats.Generated)
		}
		if mv := res.Coverage[2]; mv.Kind != "Move" || mv.Enabled != 0 || mv.Taken != 0 {
			t.Errorf("workers %d: Move without moves: got %+v", w, mv)
		}
		if res.Coverage[0].Taken == 0 || res.Coverage[1].Taken == 0 {
			t.Errorf("workers %d: Inc and Dec never taken: %+v", w, res.Coverage)
		}
		if first == nil {
			first = res.Coverage
		} else if fmt.Sprint(first) != fmt.Sprint(res.Coverage) {
			t.Errorf("workers %d: got %+v, want %+v as with 1 worker", w, res.Coverage, first)
		}
	}
	if res := Check[cstate](counters{N: 3}, nil, Options{Workers: 1}); res.Coverage != nil {
		t.Errorf("without Coverage: got %+v, want none", res.Coverage)
	}
}
