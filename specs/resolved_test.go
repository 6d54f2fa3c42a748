package specs

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// Reference: issue 28, "Traces that carry their configuration": every check of every spec
// file, resolved (the JSON a trace records), rebuilds without the file a spec whose check
// configures the same model, resolves the same again, and builds.
func TestResolvedRoundTrip(t *testing.T) {
	paths, err := FindSpecs(".")
	if err != nil {
		t.Fatal(err)
	}
	families := map[string]bool{}
	for _, p := range paths {
		s, err := Load(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		families[s.Model] = true
		for i := range s.Checks {
			c := &s.Checks[i]
			r := s.Resolve(c)
			data := r.JSON()
			if !bytes.Equal(data, s.Resolve(c).JSON()) {
				t.Fatalf("%s, check %s: Resolve's JSON differs from call to call", p, c.Name)
			}
			back, err := ParseResolved(data)
			if err != nil {
				t.Fatalf("%s, check %s: ParseResolved: %v\n%s", p, c.Name, err, data)
			}
			if d := r.Diff(back); d != nil {
				t.Fatalf("%s, check %s: the JSON reads back as another configuration: %v", p, c.Name, d)
			}
			rs, err := FromResolved(back, "trace.itf.json: #meta.kmc::config", p, nil)
			if err != nil {
				t.Fatalf("%s, check %s: FromResolved: %v\n%s", p, c.Name, err, data)
			}
			if len(rs.Checks) != 1 || rs.Path != p {
				t.Fatalf("%s, check %s: rebuilt %d checks, path %q", p, c.Name, len(rs.Checks), rs.Path)
			}
			rc := &rs.Checks[0]
			if rc.Name != c.Name || rc.Expect != c.Expect || rc.Property != c.Property {
				t.Errorf("%s, check %s: rebuilt as %s %s(%s)", p, c.Name, rc.Name, rc.Expect, rc.Property)
			}
			if !sameModel(rc.Config, c.Config) || len(rc.Config.Exprs) != len(c.Config.Exprs) {
				t.Errorf("%s, check %s: the rebuilt check configures another model:\n%+v\n%+v", p, c.Name, rc.Config, c.Config)
			}
			if d := r.Diff(rs.Resolve(rc)); d != nil {
				t.Errorf("%s, check %s: the rebuilt check resolves otherwise: %v", p, c.Name, d)
			}
			if rs.Options.Deadlock != s.Options.Deadlock || rs.Options.MaxStates != s.Options.MaxStates ||
				rs.Options.Time != s.Options.Time || rs.Options.MemoryBytes != s.Options.MemoryBytes ||
				rs.SymmetrySet != s.SymmetrySet || len(rs.Fairness) != len(s.Fairness) {
				t.Errorf("%s, check %s: the rebuilt spec's options differ", p, c.Name)
			}
			if _, _, err := rs.Runnable(rc); err != nil {
				t.Errorf("%s, check %s: the rebuilt check does not build: %v", p, c.Name, err)
			}
		}
	}
	for _, f := range Families() {
		if !families[f.Name] {
			t.Errorf("no spec file of family %s: its round trip is untested", f.Name)
		}
	}
}

// TestResolvedSets: a --set over a rebuilt configuration applies as over the file, and
// the SHA-256 and overrides a spec was loaded with are kept.
func TestResolvedSets(t *testing.T) {
	s, err := Parse("f.toml", []byte(goodSpec), []string{"rms=4", "fixes+=CommitAfterAllPrepared"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Sets, " ") != "rms=4 fixes+=CommitAfterAllPrepared" || len(s.SHA256) != 64 {
		t.Fatalf("Sets %q, SHA256 %q", s.Sets, s.SHA256)
	}
	r := s.Resolve(&s.Checks[0])
	if r.Constants["rms"] != int64(4) || strings.Join(r.Fixes, ",") != "CommitAfterAllPrepared" {
		t.Fatalf("resolved: %s", r.JSON())
	}
	rs, err := FromResolved(r, "t: #meta.kmc::config", "", []string{"rms=2"})
	if err != nil {
		t.Fatal(err)
	}
	got := rs.Resolve(&rs.Checks[0])
	d := r.Diff(got)
	if len(d) != 1 || d[0] != (Difference{"constants.rms", "4", "2"}) {
		t.Errorf("Diff after --set rms=2: got %v", d)
	}
	_, err = FromResolved(r, "t: #meta.kmc::config", "", []string{"rms=99"})
	var re *ResolvedError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "t: #meta.kmc::config: --set:1:") || !strings.Contains(err.Error(), "constants.rms") {
		t.Errorf("FromResolved with --set rms=99: got %v", err)
	}
}

// TestParseResolvedRefuses: what is not a configuration kmc wrote is an error naming the key.
func TestParseResolvedRefuses(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"model":"twophase","colour":1}`, `unknown field "colour"`},
		{`{"model":"twophase","constants":{"rms":1.5}}`, "constants.rms: want an integer (got 1.5)"},
		{`{"model":"twophase","constants":{"rms":[1]}}`, "constants.rms: want an integer, true or false, or a name (got an array)"},
		{`{"model":"twophase"} {}`, "data after the configuration"},
		{`[]`, "cannot unmarshal array"},
	} {
		_, err := ParseResolved([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.want)
		}
	}
}

// FuzzResolved: ParseResolved and FromResolved never panic; a configuration they accept
// gives a valid spec of one check that resolves to the same configuration.
func FuzzResolved(f *testing.F) {
	paths, err := FindSpecs(".")
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range paths {
		s, err := Load(p, nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(s.Resolve(&s.Checks[0]).JSON())
	}
	f.Add([]byte(`{"model":"twophase","properties":["TCConsistent"],"check":"x","expect":"ok","constants":{"rms":2},"fixes":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseResolved(data)
		if err != nil {
			return
		}
		s, err := FromResolved(r, "fuzz", "", nil)
		if err != nil {
			var re *ResolvedError
			if !errors.As(err, &re) || len(re.Problems) == 0 {
				t.Fatalf("FromResolved: got %T (%v), want a ResolvedError", err, err)
			}
			return
		}
		if verr := s.valid(); verr != nil || len(s.Checks) != 1 {
			t.Fatalf("FromResolved accepted an invalid spec: %v", verr)
		}
		again := s.Resolve(&s.Checks[0])
		s2, err := FromResolved(again, "fuzz", "", nil)
		if err != nil {
			t.Fatalf("a rebuilt configuration does not rebuild: %v\n%s", err, again.JSON())
		}
		if d := again.Diff(s2.Resolve(&s2.Checks[0])); d != nil {
			t.Fatalf("not a fixed point: %v", d)
		}
	})
}

// Reference: issue 28: "--check buggy --set version=4.0 fails on the other check's fixes":
// a run of one check validates that check's configuration only; the file must still be
// valid, and a run of every check still validates every check.
func TestLoadCheckOnlyItsOwn(t *testing.T) {
	const path = "kafka-18723.toml"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sets := []string{"version=4.0"}
	s, err := ParseCheck(path, src, sets, "buggy")
	if err != nil {
		t.Fatalf("--check buggy --set version=4.0: %v", err)
	}
	if len(s.Checks) != 1 || s.Checks[0].Name != "buggy" || !s.Checks[0].Overridden {
		t.Errorf("got checks %v, want buggy alone, overridden", CheckNamesOf(s))
	}
	if _, err := ParseCheck(path, src, sets, ""); err == nil || !strings.Contains(err.Error(), "check[1].fixes") {
		t.Errorf("every check with --set version=4.0: got %v, want check[1]'s error", err)
	}
	if _, err := ParseCheck(path, src, sets, "fixed"); err == nil || !strings.Contains(err.Error(), "KAFKA-18723 is already in version 4.0") {
		t.Errorf("--check fixed --set version=4.0: got %v, want its own error", err)
	}
	// Without a --set the spec keeps every check; with one that harms none, too.
	for _, sets := range [][]string{nil, {"max_epoch=2"}} {
		s, err := ParseCheck(path, src, sets, "buggy")
		if err != nil || len(s.Checks) != 2 {
			t.Errorf("sets %q: got %v, %d checks", sets, err, len(s.Checks))
		}
	}
	// An error of the file itself stays an error, whichever check runs.
	bad := strings.Replace(string(src), `name = "fixed"`, "name = \"fixed\"\nstates = -1", 1)
	if _, err := ParseCheck(path, []byte(bad), sets, "buggy"); err == nil {
		t.Errorf("a file error in another check: got no error")
	}
}

// CheckNamesOf names s's checks, for messages.
func CheckNamesOf(s *Spec) []string {
	var out []string
	for _, c := range s.Checks {
		out = append(out, c.Name)
	}
	return out
}

// TestResolvedEveryKey: limits, options, fairness and invariants (a file's and a
// --invariant's) survive the round trip, as the spec files in the tree (which set few of
// them) cannot show.
func TestResolvedEveryKey(t *testing.T) {
	src := strings.Replace(goodSpec, "deadlock = false", "deadlock = true\nsymmetry = true", 1) +
		"\n[invariants]\nsome = \"size(rmState) > 0\"\n"
	s, err := Parse("f.toml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddInvariant(`size(msgs) >= 0`); err != nil {
		t.Fatal(err)
	}
	for i := range s.Checks {
		c := &s.Checks[i]
		r := s.Resolve(c)
		for _, want := range []string{`"fairness":{"TMCommit":"strong"}`, `"invariants":{"inv1":"size(msgs) >= 0","some":"size(rmState) > 0"}`,
			`"limits":{"max_states":1000,"memory":1610612736,"time":"10m0s"}`, `"options":{"deadlock":true,"symmetry":true}`} {
			if !strings.Contains(string(r.JSON()), want) {
				t.Errorf("check %s: no %s in %s", c.Name, want, r.JSON())
			}
		}
		back, err := ParseResolved(r.JSON())
		if err != nil {
			t.Fatal(err)
		}
		rs, err := FromResolved(back, "t", "", nil)
		if err != nil {
			t.Fatalf("check %s: %v", c.Name, err)
		}
		if d := r.Diff(rs.Resolve(&rs.Checks[0])); d != nil {
			t.Errorf("check %s: rebuilt otherwise: %v", c.Name, d)
		}
		if rs.Options.Time != s.Options.Time || rs.Options.MemoryBytes != s.Options.MemoryBytes || !rs.Options.Symmetry ||
			!rs.Options.Deadlock || len(rs.Fairness) != 1 || len(rs.Checks[0].Config.Exprs) != 2 {
			t.Errorf("check %s: rebuilt options %+v, fairness %v", c.Name, rs.Options, rs.Fairness)
		}
	}
}
