package checker

import (
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
