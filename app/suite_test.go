package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kmc/checker"
	"kmc/specs"
)

// rowText is a suite row as check, expected, got, then its differences and the reason of
// an incomplete verdict.
func rowText(r *SuiteRow) string {
	s := r.Name() + " " + r.Expected() + " " + specs.Outcome(r.Result.Verdict, r.Result.Property)
	for _, d := range r.Mismatches() {
		s += "; mismatch: " + d
	}
	if r.Result.Verdict == checker.Incomplete {
		s += "; incomplete: " + r.Result.Reason
	}
	return s
}

// suiteSpec is two-phase commit with four resource managers: 1,568 states, depth 14 when
// the fix is on.
const suiteSpec = `model = "twophase"
properties = ["TCConsistent"]
[constants]
rms = 4
[[check]]
name = "buggy"
expect = "violated"
property = "TCConsistent"
[[check]]
name = "fixed"
fixes = ["CommitAfterAllPrepared"]
expect = "ok"
`

// TestSuite runs every spec of a folder, sorted, and compares each check with its pins; a
// spec that does not load stops it before anything runs, with the error's position.
func TestSuite(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Two-phase commit runs under the partial-order reduction: por_states pins its count
	// (1,072 of the plain search's 1,568).
	write("b/two.toml", suiteSpec+"states = 1568\npor_states = 1072\ndepth = 14\n")
	write("a.toml", suiteSpec+"states = 1568\npor_states = 1071\n")
	var loaded []*specs.Spec
	var done []string
	res, err := Suite(context.Background(), dir, SuiteOptions{Workers: 1, OnEvent: func(e Event) {
		switch e := e.(type) {
		case SuiteLoaded:
			loaded = e.Specs
		case SuiteRowDone:
			done = append(done, e.Row.Spec.Path+" "+e.Row.Name())
		}
	}})
	if err != nil {
		t.Fatalf("Suite: %v", err)
	}
	if res.Checks != 4 || res.Total != 4 || res.Mismatches != 1 || len(loaded) != 2 || len(res.Specs) != 2 {
		t.Errorf("got %+v, want 4 checks of 2 specs, 1 mismatch", res)
	}
	want := []string{dir + "/a.toml buggy", dir + "/a.toml fixed", dir + "/b/two.toml buggy", dir + "/b/two.toml fixed"}
	if strings.Join(done, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows: got %q, want %q", done, want)
	}
	if got := res.Rows[1].Mismatches(); len(got) != 1 || got[0] != "states: got 1072, want 1071" {
		t.Errorf("a.toml fixed: got %q, want the states pin", got)
	}
	write("c.toml", "model = 1\n")
	var list specs.ErrorList
	if _, err := Suite(context.Background(), dir, SuiteOptions{}); !errors.As(err, &list) || !strings.Contains(err.Error(), "c.toml:1:9: model: must be a string") {
		t.Errorf("bad spec: got %v, want a positioned error", err)
	}
}

// Reference: issue 16. The suite compares a check's vacuous pin with what the search found:
// KAFKA-14154's fixed check at max_epoch = 1 reaches one state, in which no AlterPartition is
// pending and no failover happened; pinned vacuous = false it is a mismatch, pinned true it
// matches, and without max_epoch = 1 it is not vacuous.
func TestSuiteVacuousPin(t *testing.T) {
	spec := func(maxEpoch int, pin string) string {
		return `model = "kafka"
properties = ["NoStuckAlterPartition"]
[constants]
version = "3.3"
brokers = 2
max_records = 0
max_epoch = ` + string(rune('0'+maxEpoch)) + `
controllers = 2
[faults]
controller_failover = 1
[[check]]
name = "fixed"
expect = "ok"
vacuous = ` + pin + "\n"
	}
	tests := []struct {
		name, src string
		want      string // the mismatch, or ""
	}{
		{"vacuous pinned false", spec(1, "false"),
			"vacuous: got vacuous (only 1 distinct state; NoStuckAlterPartition: its condition never held; fault budget controller_failover=1 never used), want vacuous = false"},
		{"vacuous pinned true", spec(1, "true"), ""},
		{"not vacuous pinned true", spec(2, "true"), "vacuous: got not vacuous, want vacuous = true"},
		{"not vacuous pinned false", spec(2, "false"), ""},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "s.toml"), []byte(tt.src), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Suite(context.Background(), dir, SuiteOptions{Workers: 1})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := strings.Join(res.Rows[0].Mismatches(), "; ")
		if got != tt.want || (res.Mismatches > 0) != (tt.want != "") {
			t.Errorf("%s: got %q (%d mismatches), want %q", tt.name, got, res.Mismatches, tt.want)
		}
	}
}

// An interrupt stops the suite: the search it cuts short is marked, nothing is compared,
// and no further check runs.
func TestSuiteInterrupted(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.toml"), []byte(suiteSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Suite(ctx, dir, SuiteOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || len(res.Rows) != 1 || !res.Rows[0].Interrupted || res.Checks != 0 || res.Mismatches != 0 {
		t.Errorf("got %+v, want one row, interrupted, nothing compared", res)
	}
}

// robustSuite are spec files for TestSuiteRobust, by name.
var robustSuite = map[string]string{
	// A buggy check whose violation survives one more resource manager, and a check that
	// expects ok whose neighbour (more states) hits the state limit: allowed.
	"a.toml": `model = "twophase"
properties = ["TCConsistent"]
[limits]
max_states = 300
[constants]
rms = 2
[[check]]
name = "buggy"
expect = "violated"
property = "TCConsistent"
robust = ["rms+1"]
[[check]]
name = "capped"
fixes = ["CommitAfterAllPrepared"]
expect = "ok"
robust = ["rms+2"]
`,
	// NotAllCommitted is violated in 3N+2 states: within depth 8 for two resource managers,
	// not for three, so the neighbour flips to incomplete.
	"b.toml": `model = "twophase"
properties = ["NotAllCommitted"]
[limits]
max_depth = 8
[constants]
rms = 2
[[check]]
name = "fixed"
fixes = ["CommitAfterAllPrepared"]
expect = "violated"
property = "NotAllCommitted"
robust = ["rms+1"]
`,
	// KAFKA-13077's precondition needs an unclean crash: without one the buggy variant is
	// ok, and its neighbour unclean_crash+1 is violated (a safety property, so that no
	// model bound can make either verdict incomplete).
	"c.toml": `model = "kafka"
properties = ["EpochCacheMatchesLog"]
[constants]
brokers = 2
max_records = 1
max_epoch = 2
version = "2.8"
[[check]]
name = "buggy"
expect = "ok"
robust = ["power_loss+1"]
`,
}

// TestSuiteRobust runs robustness neighbours after their checks and counts a neighbour
// whose outcome flips as a mismatch.
func TestSuiteRobust(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		rows  []string // check, expected, got, then each difference and incomplete reason
		count [4]int   // checks, neighbours, mismatches, of which neighbours
	}{
		{"match", []string{"a.toml"}, []string{
			"buggy violated(TCConsistent) violated(TCConsistent)",
			"buggy[rms+1] violated(TCConsistent) violated(TCConsistent)",
			"capped ok ok",
			"capped[rms+2] not violated incomplete; incomplete: max states 300 reached",
		}, [4]int{2, 2, 0, 0}},
		{"flip", []string{"a.toml", "b.toml", "c.toml"}, []string{
			"buggy violated(TCConsistent) violated(TCConsistent)",
			"buggy[rms+1] violated(TCConsistent) violated(TCConsistent)",
			"capped ok ok",
			"capped[rms+2] not violated incomplete; incomplete: max states 300 reached",
			"fixed violated(NotAllCommitted) violated(NotAllCommitted)",
			"fixed[rms+1] violated(NotAllCommitted) incomplete; mismatch: robust rms+1: got incomplete, want violated(NotAllCommitted); incomplete: max depth 8 reached",
			"buggy ok ok",
			"buggy[power_loss+1] not violated violated(EpochCacheMatchesLog); mismatch: robust power_loss+1: got violated(EpochCacheMatchesLog), want not violated",
		}, [4]int{4, 4, 2, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(robustSuite[f]), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res, err := Suite(context.Background(), dir, SuiteOptions{Workers: 1})
			if err != nil {
				t.Fatalf("Suite: %v", err)
			}
			var rows []string
			for i := range res.Rows {
				rows = append(rows, rowText(&res.Rows[i]))
			}
			if got := strings.Join(rows, "\n"); got != strings.Join(tt.rows, "\n") {
				t.Errorf("rows:\ngot:\n%s\nwant:\n%s", got, strings.Join(tt.rows, "\n"))
			}
			if got := [4]int{res.Checks, res.Neighbours, res.Mismatches, res.NeighbourMismatches}; got != tt.count || res.Interrupted {
				t.Errorf("counts: got %v, want %v", got, tt.count)
			}
		})
	}
}
