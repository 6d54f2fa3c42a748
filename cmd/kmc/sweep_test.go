package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"kmc/specs"
)

// Reference: issue 10 ("Verdicts that survive a moved bound"): kmc sweep.

// sweepRows runs kmc sweep with args, varying keys keys, and returns its exit code, each
// table row as its mark ("*" or "-"), the values of the varied keys and the verdict
// ("* 2 violated"), the lines after the table, and the whole output for messages.
func sweepRows(t *testing.T, keys int, args ...string) (int, []string, []string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"sweep"}, args...), &stdout, &stderr)
	var rows, rest []string
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	for _, l := range lines[1:] { // after the header
		switch {
		case strings.HasPrefix(l, "     "): // an incomplete: or invalid: line under a row
		case strings.HasPrefix(l, "   ") || strings.HasPrefix(l, "*  "):
			mark := "-"
			if l[0] == '*' {
				mark = "*"
			}
			f := strings.Fields(l[1:])
			rows = append(rows, mark+" "+strings.Join(f[:keys+1], " "))
		default:
			rest = append(rest, l)
		}
	}
	return code, rows, rest, stdout.String() + stderr.String()
}

func TestSweepNeighbourMarks(t *testing.T) {
	tests := []struct {
		name string
		keys int
		args []string
		rows []string // mark, values, verdict
		last string
	}{
		// KAFKA-14154 needs leader epoch 2 (the new controller's election): max_epoch = 1
		// cuts it and leaves one state; 2 and 3 give the same 181 states.
		{"kafka-14154 max_epoch", 1, []string{kafka14154, "--check", "buggy", "--vary", "max_epoch=1..3", "--workers", "1"},
			[]string{"* 1 ok", "* 2 violated", "- 3 violated"},
			"smallest point with the expected verdict violated(NoStuckAlterPartition): max_epoch=2 (181 distinct states)"},
		// A grid: the controller failover is needed too. (1,0) has only ok neighbours.
		{"kafka-14154 grid", 2, []string{kafka14154, "--check", "buggy", "--vary", "max_epoch=1..3", "--vary", "controller_failover=0..1", "--workers", "1"},
			[]string{"- 1 0 ok", "* 1 1 ok", "* 2 0 ok", "* 2 1 violated", "* 3 0 ok", "* 3 1 violated"},
			"smallest point with the expected verdict violated(NoStuckAlterPartition): max_epoch=2 controller_failover=1 (181 distinct states)"},
		// The fixed variant is ok everywhere: no marks, no legend.
		{"kafka-14154 fixed", 1, []string{kafka14154, "--check", "fixed", "--vary", "max_epoch=2,3", "--workers", "1"},
			[]string{"- 2 ok", "- 3 ok"},
			"smallest point with the expected verdict ok: max_epoch=2 (145 distinct states)"},
		// twophase's planted bug at every size, listed out of order: the smallest is rms=2;
		// neighbours are adjacent in the list as given.
		{"twophase buggy", 1, []string{spec, "--check", "buggy", "--vary", "rms=4,2,3", "--workers", "1"},
			[]string{"- 4 violated", "- 2 violated", "- 3 violated"},
			"smallest point with the expected verdict violated(TCConsistent): rms=2 (48 distinct states)"},
		// The state limit stops every point of a check that expects ok.
		{"twophase capped", 1, []string{spec, "--check", "fixed", "--vary", "rms=3..4", "--max-states", "50", "--workers", "1"},
			[]string{"- 3 incomplete", "- 4 incomplete"},
			"no point gives the expected verdict ok"},
		// The limit stops only the largest point: marks on both sides of the change.
		{"twophase partly capped", 1, []string{spec, "--check", "fixed", "--vary", "rms=2..4", "--max-states", "300", "--workers", "1"},
			[]string{"- 2 ok", "* 3 ok", "* 4 incomplete"},
			"smallest point with the expected verdict ok: rms=2 (56 distinct states)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, rows, rest, out := sweepRows(t, tt.keys, tt.args...)
			if code != exitOK {
				t.Fatalf("exit code: got %d, want %d\n%s", code, exitOK, out)
			}
			if strings.Join(rows, "\n") != strings.Join(tt.rows, "\n") {
				t.Errorf("rows:\ngot:\n%s\nwant:\n%s\n%s", strings.Join(rows, "\n"), strings.Join(tt.rows, "\n"), out)
			}
			marked := strings.Contains(strings.Join(tt.rows, " "), "*")
			legend := strings.Contains(out, "\n* the outcome differs from that of a grid neighbour")
			if legend != marked {
				t.Errorf("legend: got %v, want %v\n%s", legend, marked, out)
			}
			if len(rest) == 0 || rest[len(rest)-1] != tt.last {
				t.Errorf("last line: got %q, want %q\n%s", rest, tt.last, out)
			}
		})
	}
}

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

func TestParseVary(t *testing.T) {
	fam, ok := specs.FamilyByName("kafka")
	if !ok {
		t.Fatal("no kafka family")
	}
	tests := []struct {
		arg  string
		want string // the values, or the error
	}{
		{"max_epoch=1..3", "[1 2 3]"},
		{"max_epoch = 2", "[2]"},
		{"crash=3,0,1", "[3 0 1]"},
		{"version=3.9,0.11", "[20 15]"},
		{"max_epoch=0..3", "max_epoch must be 1..7 (got 0..3)"},
		{"brokers=6", "brokers must be 2..5 (got 6)"},
		{"max_epoch=3..1", "empty range 3..1: LO is above HI"},
		{"max_epoch=1..x", "want a range of integers LO..HI, such as 1..3"},
		{"max_epoch=1,1", "duplicate value 1"},
		{"max_epoch=one", `max_epoch takes integers (got "one")`},
		{"max_epoch", "want KEY=LO..HI, KEY=N or KEY=A,B,C"},
		{"=3", "want KEY=LO..HI, KEY=N or KEY=A,B,C"},
		{"rms=3", `unknown key "rms": not a constant or fault of kafka`},
		{"version=0..1", "version is not an integer: list its values, such as version=0.10.2.2,0.11.0.2,1.1.1,2.7.2,2.8.0,2.8.1,2.8.2,3.3.2,3.9.0,3.9.1,4.0.0,4.0.1,4.1.0,4.1.1,0.10,0.11,1.1,2.7,2.8,3.3,3.9,4.0,4.1"},
		{"version=sideways", `version must be one of 0.10.2.2, 0.11.0.2, 1.1.1, 2.7.2, 2.8.0, 2.8.1, 2.8.2, 3.3.2, 3.9.0, 3.9.1, 4.0.0, 4.0.1, 4.1.0, 4.1.1, 0.10, 0.11, 1.1, 2.7, 2.8, 3.3, 3.9, 4.0, 4.1 (got "sideways")`},
	}
	for _, tt := range tests {
		a, err := parseVary(fam, tt.arg)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = fmt.Sprint(a.values)
		}
		if got != tt.want {
			t.Errorf("parseVary(%q): got %s, want %s", tt.arg, got, tt.want)
		}
	}
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

// stopOnWrite closes stop when a write holds trigger: an interrupt at a known moment.
type stopOnWrite struct {
	bytes.Buffer
	trigger string
	stop    chan struct{}
}

func (w *stopOnWrite) Write(p []byte) (int, error) {
	if w.stop != nil && strings.Contains(string(p), w.trigger) {
		close(w.stop)
		w.stop = nil
	}
	return w.Buffer.Write(p)
}

func TestSweepInterrupted(t *testing.T) {
	// An interrupt as the second point starts: the first point is in the table, the third
	// never runs, and the sweep exits 3.
	saved := newStop
	defer func() { newStop = saved }()
	stop := make(chan struct{})
	newStop = func() (<-chan struct{}, func()) { return stop, func() {} }
	stderr := &stopOnWrite{trigger: "sweep: point 2/3: ", stop: stop}
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
	stop = make(chan struct{})
	stderr = &stopOnWrite{trigger: "sweep: point 2/3: ", stop: stop}
	stdout.Reset()
	code = run([]string{"sweep", spec, "--check", "fixed", "--vary", "rms=2..4", "--workers", "1", "--format", "json"}, &stdout, stderr)
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	last := lines[len(lines)-1]
	if code != exitIncomplete || !strings.Contains(last, `"event":"summary"`) || !strings.Contains(last, `"interrupted":true`) ||
		!strings.Contains(last, `"points":3`) || !strings.Contains(lines[0], `"values":[2]`) {
		t.Errorf("json: exit %d, got\n%s\nwant the point rms=2 and an interrupted summary", code, stdout.String())
	}
}

func TestPointError(t *testing.T) {
	list := specs.ErrorList{
		{Pos: specs.Pos{File: specs.SetFile, Line: 2, Col: 9}, Key: "check[0]", Problem: "cannot build the model: kafka: model: min_isr = 3 outside 1..2"},
		{Pos: specs.Pos{File: specs.SetFile, Line: 3, Col: 5}, Key: "constants.rms", Problem: "must be 2..16", Got: "1"},
	}
	if got, want := pointError(list), "check[0]: cannot build the model: kafka: model: min_isr = 3 outside 1..2; constants.rms: must be 2..16 (got 1)"; got != want {
		t.Errorf("ErrorList: got %q, want %q", got, want)
	}
	err := fmt.Errorf("specs/x.toml: check buggy: build model: %w", fmt.Errorf("kafka: %w", errors.New("model: leader_change is not modelled with controllers >= 2")))
	if got, want := pointError(err), "model: leader_change is not modelled with controllers >= 2"; got != want {
		t.Errorf("wrapped: got %q, want %q", got, want)
	}
}

// Reference: issue 16. An interrupt as the second guard starts: the baseline and the first
// guard are in the table, the second never runs, and kmc mutate exits 3.
func TestMutateInterrupted(t *testing.T) {
	saved := newStop
	defer func() { newStop = saved }()
	stop := make(chan struct{})
	newStop = func() (<-chan struct{}, func()) { return stop, func() {} }
	stderr := &stopOnWrite{trigger: "mutate: guard 2/2: ", stop: stop}
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
