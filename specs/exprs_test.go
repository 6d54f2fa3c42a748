package specs

import (
	"strings"
	"testing"

	"kmc/checker"
)

// Reference: issue 28 (ad-hoc properties: [invariants] in spec files, kmc check
// --invariant).

const twoPhaseInv = `model = "twophase"
properties = ["TCConsistent"]

[invariants]
%INV%

[[check]]
name = "fixed"
fixes = ["CommitAfterAllPrepared"]
expect = "ok"
`

func TestInvariantsParsed(t *testing.T) {
	tests := []struct {
		name, inv string
		want      string // the error, "" for none
	}{
		{"fine", `all_known = "rmState.all(r, rmState[r] in ['working', 'prepared', 'committed', 'aborted'])"`, ""},
		{"syntax", `bad = "rmState +"`, "s.toml:5:7: invariants.bad: expression \"rmState +\": 1:10: Syntax error"},
		{"unknown variable", "\n\nnope = \"leo > 1\"", "s.toml:7:8: invariants.nope: expression \"leo > 1\": 1:1: undeclared reference to 'leo'"},
		{"not a string", `n = 3`, "s.toml:5:5: invariants.n: must be a string, not an integer (got 3)"},
		{"a property's name", `TCConsistent = "true"`, "s.toml:5:1: invariants.TCConsistent: an invariant's name must not be a property's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("s.toml", []byte(strings.Replace(twoPhaseInv, "%INV%", tt.inv, 1)), nil)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("got %v, want no error", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			case tt.want == "" && (len(s.Checks[0].Config.Exprs) != 1 || s.Checks[0].Config.Exprs[0].Name != "all_known"):
				t.Fatalf("check fixed: got exprs %+v, want all_known", s.Checks[0].Config.Exprs)
			}
		})
	}
}

// TestInvariantChecked: an expression invariant is checked beside the built-in ones; one
// that is false gives its name as the violated property, with a witness naming its
// variables' values.
func TestInvariantChecked(t *testing.T) {
	s, err := Parse("s.toml", []byte(strings.Replace(twoPhaseInv, "%INV%",
		`no_commit = "!rmState.exists(r, rmState[r] == 'committed')"`, 1)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddInvariant("size(rmState) == 3"); err != nil {
		t.Fatal(err)
	}
	if err := s.AddInvariant("tmState +"); err == nil || !strings.Contains(err.Error(), "--invariant:2:1: --invariant: expression \"tmState +\"") {
		t.Errorf("AddInvariant of a bad expression: got %v", err)
	}
	r, err := s.Family.Build(s.Checks[0].Config)
	if err != nil {
		t.Fatal(err)
	}
	res := r.Check(checker.Options{Workers: 2})
	if res.Verdict != checker.Violated || res.Property != "no_commit" || !strings.Contains(res.Trace.Witness, `"!rmState.exists(r, rmState[r] == 'committed')" is false where rmState =`) {
		t.Errorf("got %v %s, witness %q; want no_commit violated", res.Verdict, res.Property, res.Trace.Witness)
	}
	// inv1 holds everywhere: with no_commit removed the check passes at the pinned count.
	cfg := s.Checks[0].Config
	cfg.Exprs = cfg.Exprs[1:]
	if r, err = s.Family.Build(cfg); err != nil {
		t.Fatal(err)
	}
	if res = r.Check(checker.Options{Workers: 2}); res.Verdict != checker.OK || res.Stats.Distinct != 288 {
		t.Errorf("inv1 alone: got %v with %d states, want ok with 288 (twophase.toml's fixed)", res.Verdict, res.Stats.Distinct)
	}
}
