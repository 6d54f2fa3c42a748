package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Reference: issue 10 ("Verdicts that survive a moved bound"): kmc sweep.

func TestSweepJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"sweep", kafka14154, "--check", "buggy", "--vary", "max_epoch=1..3", "--vary", "brokers=3,2",
		"--workers", "1", "--format", "json"}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit code: got %d, want %d\n%s", code, exitOK, stderr.String())
	}
	type event struct {
		Event    string
		Index    int
		Keys     []string
		Values   []any
		Verdict  string
		Property string
		Distinct int64
		Depth    int
		Differs  bool `json:"differs_from_neighbour"`
		Points   int
		Done     int
		Smallest *struct {
			Values   []any
			Distinct int64
		}
	}
	var events []event
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var e event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		events = append(events, e)
	}
	if len(events) != 7 {
		t.Fatalf("events: got %d, want 6 points and a summary\n%s", len(events), stdout.String())
	}
	var got []string
	for _, e := range events[:6] {
		if e.Event != "point" || strings.Join(e.Keys, ",") != "max_epoch,brokers" {
			t.Errorf("event: got %+v, want a point over max_epoch,brokers", e)
		}
		got = append(got, jsonString(t, e.Values)+" "+e.Verdict+" "+boolMark(e.Differs))
	}
	// Every max_epoch = 1 point differs from its max_epoch = 2 neighbour, and back.
	want := []string{
		`[1,3] ok *`, `[1,2] ok *`,
		`[2,3] violated *`, `[2,2] violated *`,
		`[3,3] violated -`, `[3,2] violated -`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("points:\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Three brokers take 1,561 states, two 181: the smallest is the fourth point, not the
	// first expected one.
	s := events[6]
	if s.Event != "summary" || s.Points != 6 || s.Done != 6 || s.Smallest == nil || jsonString(t, s.Smallest.Values) != `[2,2]` || s.Smallest.Distinct != 181 {
		t.Errorf("summary: got %s", strings.TrimSpace(strings.Split(stdout.String(), "\n")[6]))
	}
	if strings.Contains(stdout.String(), "VERDICT") {
		t.Errorf("json output holds the text table:\n%s", stdout.String())
	}
}

func jsonString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func boolMark(b bool) string {
	if b {
		return "*"
	}
	return "-"
}

func TestSweepUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no vary", []string{spec, "--check", "buggy"}, "kmc: sweep: want at least one --vary KEY=LO..HI\n"},
		{"varied twice", []string{spec, "--check", "buggy", "--vary", "rms=2", "--vary", "rms=3"}, "kmc: sweep: --vary rms=3: rms is varied twice\n"},
		{"varied and set", []string{spec, "--check", "buggy", "--vary", "rms=2", "--set", "constants.rms=3"},
			"kmc: sweep: --vary rms=2: rms is also given with --set constants.rms=3\n"},
		{"unknown check", []string{spec, "--check", "nope", "--vary", "rms=2"}, `kmc: sweep: ../../specs/twophase.toml has no check "nope"` + "\n"},
		{"bad set", []string{spec, "--check", "buggy", "--vary", "rms=2", "--set", "brokers=3"}, "--set:1:1: brokers: unknown key"},
		{"bad time", []string{spec, "--check", "buggy", "--vary", "rms=2", "--max-time-per-point", "soon"}, "kmc: sweep: --max-time-per-point: want a duration"},
		{"bad format", []string{spec, "--check", "buggy", "--vary", "rms=2", "--format", "xml"}, `kmc: sweep: --format must be text or json (got "xml")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(append([]string{"sweep"}, tt.args...), &stdout, &stderr); code != exitUsage {
				t.Errorf("exit code: got %d, want %d", code, exitUsage)
			}
			if !strings.HasPrefix(stderr.String(), tt.want) {
				t.Errorf("stderr: got %q, want it to start with %q", stderr.String(), tt.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout: got %q, want nothing", stdout.String())
			}
		})
	}
}

// stopOnWrite calls stop when a write holds trigger: an interrupt at a known moment.
type stopOnWrite struct {
	bytes.Buffer
	trigger string
	stop    func()
}

func (w *stopOnWrite) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.trigger) {
		w.stop()
	}
	return w.Buffer.Write(p)
}

func TestSweepInterrupted(t *testing.T) {
	// An interrupt as the second point starts: the first point is in the table, the third
	// never runs, and the sweep exits 3.
	stderr := &stopOnWrite{trigger: "sweep: point 2/3: ", stop: stopOn(t)}
	var stdout bytes.Buffer
	code := run([]string{"sweep", spec, "--check", "fixed", "--vary", "rms=2..4", "--workers", "1"}, &stdout, stderr)
	if code != exitIncomplete {
		t.Errorf("exit code: got %d, want %d\n%s%s", code, exitIncomplete, stdout.String(), stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "\n   2    ok ") || strings.Contains(out, "\n   4 ") || strings.Contains(out, "\n*  4 ") {
		t.Errorf("stdout: got\n%s\nwant the row of rms=2 and none of rms=4", out)
	}
	if !strings.HasSuffix(out, " of 3 points\n") || !strings.Contains(out, "\ninterrupted after ") {
		t.Errorf("stdout: got\n%s\nwant it to end with \"interrupted after N of 3 points\"", out)
	}
	if got := stderr.String(); strings.Contains(got, "point 3/3") || !strings.Contains(got, "kmc: sweep: interrupted") {
		t.Errorf("stderr: got\n%s\nwant no point 3 and the interrupt", got)
	}

	// The same in JSON: the points done, then a summary that says so.
	stderr = &stopOnWrite{trigger: "sweep: point 2/3: ", stop: stopOn(t)}
	stdout.Reset()
	code = run([]string{"sweep", spec, "--check", "fixed", "--vary", "rms=2..4", "--workers", "1", "--format", "json"}, &stdout, stderr)
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	last := lines[len(lines)-1]
	if code != exitIncomplete || !strings.Contains(last, `"event":"summary"`) || !strings.Contains(last, `"interrupted":true`) ||
		!strings.Contains(last, `"points":3`) || !strings.Contains(lines[0], `"values":[2]`) {
		t.Errorf("json: exit %d, got\n%s\nwant the point rms=2 and an interrupted summary", code, stdout.String())
	}
}

// Reference: issue 16. An interrupt as the second guard starts: the baseline and the first
// guard are in the table, the second never runs, and kmc mutate exits 3.
func TestMutateInterrupted(t *testing.T) {
	stderr := &stopOnWrite{trigger: "mutate: guard 2/2: ", stop: stopOn(t)}
	var stdout bytes.Buffer
	code := run([]string{"mutate", spec, "--check", "fixed", "--workers", "1"}, &stdout, stderr)
	if code != exitIncomplete {
		t.Errorf("exit code: got %d, want %d\n%s%s", code, exitIncomplete, stdout.String(), stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "\nCommitAllPrepared  caught ") || strings.Contains(out, "\nAbortInit ") ||
		!strings.HasSuffix(out, "interrupted after 1 of 2 guards: 1 caught, 0 not covered, 0 n/a\n") {
		t.Errorf("stdout: got\n%s\nwant the row of CommitAllPrepared, none of AbortInit, and the interrupt", out)
	}
	if got := stderr.String(); strings.Contains(got, "guard 2/2 done") || !strings.Contains(got, "kmc: mutate: interrupted") {
		t.Errorf("stderr: got\n%s\nwant no second guard done and the interrupt", got)
	}
}

// Reference: issue 28: "kmc sweep specs/kafka-14154.toml --check fixed --vary
// max_epoch=1..3 recommends max_epoch=1, a single state". A vacuous point is marked, says
// why, differs from its neighbour, and is never recommended.
func TestSweepVacuousPoints(t *testing.T) {
	code, out, errs := runCLI("sweep", kafka14154, "--check", "fixed", "--vary", "max_epoch=1..3", "--workers", "1")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"*  1          ok (vacuous)  ",
		"     vacuous: only 1 distinct state; NoStuckAlterPartition: its condition never held;",
		"*  2          ok            ",
		"smallest point with the expected verdict ok, not vacuous: max_epoch=2 (145 distinct states)\n",
		"sweep: point 1/3 done: ok (vacuous), 1 distinct states",
	} {
		if !strings.Contains(out+errs, want) {
			t.Errorf("no %q in\n%s%s", want, out, errs)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 100 {
			t.Errorf("line longer than 100 columns: %q", line)
		}
	}
	code, out, errs = runCLI("sweep", kafka14154, "--check", "fixed", "--vary", "max_epoch=1..2", "--workers", "1", "--format", "json")
	if code != exitOK {
		t.Fatalf("json: exit %d\n%s%s", code, out, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var first, second, summary struct {
		Vacuous  []string
		Smallest *struct{ Values []any }
	}
	for i, dst := range []any{&first, &second, &summary} {
		if err := json.Unmarshal([]byte(lines[i]), dst); err != nil {
			t.Fatal(err)
		}
	}
	if len(first.Vacuous) == 0 || first.Vacuous[0] != "only 1 distinct state" || second.Vacuous == nil || len(second.Vacuous) != 0 ||
		summary.Smallest == nil || jsonString(t, summary.Smallest.Values) != "[2]" {
		t.Errorf("json: got %s", out)
	}
}
