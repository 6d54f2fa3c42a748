package specs

import (
	"strings"
	"testing"

	"kmc/checker"
)

// Reference: issue 28 ("expect becomes optional for exploratory checks"). A check without
// expect parses, expects nothing ("-"), and compares no result; it may pin nothing, since
// there is nothing to compare a pin with.
func TestExploratoryCheck(t *testing.T) {
	head := "model = \"twophase\"\nproperties = [\"TCConsistent\"]\n[constants]\nrms = 2\n[[check]]\nname = \"look\"\n"
	s, err := Parse("s.toml", []byte(head), nil)
	if err != nil {
		t.Fatalf("a check without expect: %v", err)
	}
	c := &s.Checks[0]
	if !c.Exploratory() || c.Expected() != "-" {
		t.Errorf("Exploratory() = %v, Expected() = %q; want true, \"-\"", c.Exploratory(), c.Expected())
	}
	for _, r := range []checker.Result{
		{Verdict: checker.OK},
		{Verdict: checker.Violated, Property: "TCConsistent"},
		{Verdict: checker.Incomplete},
	} {
		if d := c.Compare(r); len(d) != 0 {
			t.Errorf("Compare(%s) = %v; an exploratory check compares nothing", r.Verdict, d)
		}
	}
	for _, tc := range []struct{ pin, key string }{
		{"states = 10", "states"},
		{"depth = 3", "depth"},
		{"unreduced = 10", "unreduced"},
		{"por_states = 10", "por_states"},
		{"vacuous = false", "vacuous"},
		{`robust = ["rms+1"]`, "robust"},
		{`property = "TCConsistent"`, "property"},
	} {
		_, err := Parse("s.toml", []byte(head+tc.pin+"\n"), nil)
		if err == nil || !strings.Contains(err.Error(), "check[0]."+tc.key) {
			t.Errorf("%s without expect: error %v; want one naming check[0].%s", tc.pin, err, tc.key)
		}
	}
}
