package specs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kmc/checker"
)

// Reference: issue 10 ("Verdicts that survive a moved bound"): robustness neighbours.

const robustSpec = `model = "twophase"
properties = ["TCConsistent"]

[constants]
rms = 3

[[check]]
name = "buggy"
expect = "violated"
property = "TCConsistent"
robust = ["rms+1", "rms-1"]

[[check]]
name = "fixed"
fixes = ["CommitAfterAllPrepared"]
expect = "ok"
robust = [
  "rms+2", # a comment
]
`

func TestParseRobust(t *testing.T) {
	s, err := Parse("r.toml", []byte(robustSpec), nil)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	var got []string
	for _, c := range s.Checks {
		for _, n := range c.Robust {
			got = append(got, c.Name+":"+n.String()+"@"+n.Pos.String())
		}
	}
	want := "buggy:rms+1@r.toml:11:11 buggy:rms-1@r.toml:11:20 fixed:rms+2@r.toml:18:3"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("neighbours: got %s, want %s", g, want)
	}
	b := &s.Checks[0]
	if got := b.NeighbourConfig(b.Robust[1]).Values["rms"]; got != 2 {
		t.Errorf("rms of buggy[rms-1]: got %d, want 2", got)
	}
	if got := b.Config.Values["rms"]; got != 3 {
		t.Errorf("NeighbourConfig changed the check's own rms: got %d, want 3", got)
	}
}

func TestParseRobustErrors(t *testing.T) {
	const head = "model = \"twophase\"\nproperties = [\"TCConsistent\"]\n[[check]]\nname = \"a\"\n"
	const kafka = "model = \"kafka\"\nproperties = [\"LeaderInISR\"]\n[constants]\nbrokers = 2\nmin_isr = 2\ncontrollers = 2\n[[check]]\nname = \"a\"\n"
	tests := []struct {
		name string
		src  string
		sets []string
		want string // "" for no error
	}{
		{"malformed", head + "expect = \"ok\"\nrobust = [\"rms\", \"rms+0\", \"rms+x\", \"+1\", \"rms+01\", \"rms+-1\", 5]\n", nil, strings.Join([]string{
			`r.toml:6:11: check[0].robust[0]: must be KEY+N or KEY-N with N >= 1, such as max_epoch+1 (got "rms")`,
			`r.toml:6:18: check[0].robust[1]: must be KEY+N or KEY-N with N >= 1, such as max_epoch+1 (got "rms+0")`,
			`r.toml:6:27: check[0].robust[2]: must be KEY+N or KEY-N with N >= 1, such as max_epoch+1 (got "rms+x")`,
			`r.toml:6:36: check[0].robust[3]: must be KEY+N or KEY-N with N >= 1, such as max_epoch+1 (got "+1")`,
			`r.toml:6:42: check[0].robust[4]: must be KEY+N or KEY-N with N >= 1, such as max_epoch+1 (got "rms+01")`,
			`r.toml:6:52: check[0].robust[5]: must be KEY+N or KEY-N with N >= 1, such as max_epoch+1 (got "rms+-1")`,
			`r.toml:6:62: check[0].robust[6]: must be a string such as "max_epoch+1", not an integer (got 5)`,
		}, "\n")},
		{"unknown key", head + "expect = \"ok\"\nrobust = [\"brokers+1\"]\n", nil,
			`r.toml:6:11: check[0].robust[0]: unknown constant or fault "brokers"; want one of rms (got "brokers+1")`},
		{"out of range", head + "expect = \"ok\"\nrobust = [\"rms+14\", \"rms-2\", \"rms+13\"]\n", nil, strings.Join([]string{
			`r.toml:6:11: check[0].robust[0]: the neighbour's rms = 17 is outside 2..16 (got "rms+14")`,
			`r.toml:6:21: check[0].robust[1]: the neighbour's rms = 1 is outside 2..16 (got "rms-2")`,
		}, "\n")},
		{"duplicate", head + "expect = \"ok\"\nrobust = [\n  \"rms+1\",\n  \"rms+1\",\n]\n", nil,
			`r.toml:8:3: check[0].robust[1]: duplicate entry; first at r.toml:7:3 (got "rms+1")`},
		{"incomplete check", head + "expect = \"incomplete\"\nrobust = [\"rms+1\"]\n", nil,
			`r.toml:6:10: check[0].robust: not allowed when expect = "incomplete": the neighbours of an incomplete check are not checked (got ["rms+1"])`},
		{"not an array", head + "expect = \"ok\"\nrobust = \"rms+1\"\n", nil,
			`r.toml:6:10: check[0].robust: must be an array of strings such as ["max_epoch+1"], not a string (got "rms+1")`},
		{"enum", kafka + "expect = \"ok\"\nrobust = [\"version+1\"]\n", nil,
			`r.toml:10:11: check[0].robust[0]: version is not an integer constant or fault (got "version+1")`},
		{"model rejects", kafka + "expect = \"ok\"\nrobust = [\"max_epoch+1\", \"min_isr+1\", \"leader_change+1\"]\n", nil, strings.Join([]string{
			`r.toml:10:26: check[0].robust: the model rejects the neighbour min_isr+1: model: min_isr = 3 outside 1..2`,
			`r.toml:10:39: check[0].robust: the model rejects the neighbour leader_change+1: model: leader_change is not modelled with controllers >= 2`,
		}, "\n")},
		// A --set override that pushes a neighbour out of range drops it: the suite loads
		// specs without overrides, and kmc check does not run neighbours.
		{"set drops", head + "expect = \"ok\"\nrobust = [\"rms+1\"]\n", []string{"rms=16"}, ""},
		{"set drops rejected", kafka + "expect = \"ok\"\nrobust = [\"min_isr+1\"]\n", []string{"max_epoch=2"}, ""},
		{"inline table", "model = \"twophase\"\nproperties = [\"TCConsistent\"]\ncheck = [{ name = \"a\", expect = \"ok\", robust = [\"x+1\"] }]\n", nil,
			`r.toml:3:1: check[0].robust[0]: unknown constant or fault "x"; want one of rms (got "x+1")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("r.toml", []byte(tt.src), tt.sets)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if n := len(s.Checks[0].Robust); n != 0 {
					t.Errorf("neighbours: got %d, want 0 (dropped)", n)
				}
				return
			}
			if err == nil {
				t.Fatalf("Parse: got no error, want\n%s", tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("errors:\ngot:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestCompareNeighbour(t *testing.T) {
	n := Neighbour{Param: "max_epoch", Delta: 1}
	viol := Check{Expect: checker.Violated, Property: "P"}
	ok := Check{Expect: checker.OK}
	tests := []struct {
		name string
		c    *Check
		r    checker.Result
		want string
	}{
		{"violated stays", &viol, checker.Result{Verdict: checker.Violated, Property: "P"}, ""},
		{"violated flips to ok", &viol, checker.Result{Verdict: checker.OK}, "robust max_epoch+1: got ok, want violated(P)"},
		{"violated other property", &viol, checker.Result{Verdict: checker.Violated, Property: "Q"}, "robust max_epoch+1: got violated(Q), want violated(P)"},
		{"violated incomplete", &viol, checker.Result{Verdict: checker.Incomplete}, "robust max_epoch+1: got incomplete, want violated(P)"},
		{"ok stays", &ok, checker.Result{Verdict: checker.OK}, ""},
		{"ok incomplete allowed", &ok, checker.Result{Verdict: checker.Incomplete, Reason: "max states 5 reached"}, ""},
		{"ok violated", &ok, checker.Result{Verdict: checker.Violated, Property: "P"}, "robust max_epoch+1: got violated(P), want not violated"},
	}
	for _, tt := range tests {
		if got := tt.c.CompareNeighbour(n, tt.r); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := (Neighbour{Param: "brokers", Delta: -1}).String(); got != "brokers-1" {
		t.Errorf("String: got %s, want brokers-1", got)
	}
}

// TestFindSpecsLarge: a folder called large holds the heavier specs of make bench; the
// suite of a parent folder skips it, the suite of the folder itself (or of a folder
// inside it) runs them.
func TestFindSpecsLarge(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.toml", "large/b.toml", "large/deep/c.toml", "larger/d.toml", "x/large/e.toml"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		dir  string
		want []string
	}{
		{"", []string{"a.toml", "larger/d.toml"}},
		{"large", []string{"large/b.toml", "large/deep/c.toml"}},
		{"large/deep", []string{"large/deep/c.toml"}},
		{"x", nil},
		{"x/large", []string{"x/large/e.toml"}},
	}
	for _, tt := range tests {
		paths, err := FindSpecs(filepath.Join(dir, tt.dir))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range paths {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, filepath.ToSlash(rel))
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("FindSpecs(%q): got %v, want %v", tt.dir, got, tt.want)
		}
	}
}
