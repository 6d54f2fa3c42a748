package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"kmc/checker"
)

// Reference: STYLE.md §7 (the CLI is tested in-process) and §3 (exit codes as TLC's).

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const spec = "../../specs/twophase.toml"

const kafka14154 = "../../specs/kafka-14154.toml"

// mask replaces what varies between runs (elapsed times) or belongs to the engine.
func mask(s string) string {
	s = regexp.MustCompile(`\b\d+\.\d\ds\b`).ReplaceAllString(s, "T.TTs")
	s = regexp.MustCompile(`"elapsed_seconds":[0-9.e+-]+`).ReplaceAllString(s, `"elapsed_seconds":T`)
	// the engine's memory estimate is the engine's business, not the CLI's
	s = regexp.MustCompile(`"memory_budget_bytes":\d+`).ReplaceAllString(s, `"memory_budget_bytes":B`)
	return regexp.MustCompile(`"memory_bytes":\d+`).ReplaceAllString(s, `"memory_bytes":M`)
}

func TestCLI(t *testing.T) {
	tests := []struct {
		name string
		args []string
		exit int
	}{
		{"no-args", nil, exitUsage},
		{"help", []string{"help"}, exitOK},
		{"help-check", []string{"check", "--help"}, exitOK},
		{"unknown-command", []string{"frobnicate"}, exitUsage},
		{"check-bad-flag", []string{"check", "--max-states", "many", spec}, exitUsage},
		{"check-no-spec", []string{"check"}, exitUsage},
		{"check-bad-format", []string{"check", spec, "--format", "xml"}, exitUsage},
		{"check-unknown-check", []string{"check", spec, "--check", "nope"}, exitUsage},
		{"check-bad-spec", []string{"check", "testdata/bad.toml"}, exitUsage},
		{"check-bad-set", []string{"check", spec, "--set", "rms=99", "--set", "brokers=3"}, exitUsage},
		{"check-missing-file", []string{"check", "testdata/nothing-here.toml"}, exitUsage},
		{"check-dev-zero", []string{"check", "/dev/zero"}, exitUsage},
		{"check-ok", []string{"check", spec, "--check", "fixed", "--workers", "2"}, exitOK},
		{"check-violated", []string{"check", spec, "--check", "buggy", "--workers", "2"}, exitSafety},
		{"check-all", []string{"check", spec, "--workers", "1", "--full-states"}, exitSafety},
		{"check-set", []string{"check", spec, "--check", "fixed", "--set", "rms=4", "--workers", "2"}, exitOK},
		{"check-symmetry", []string{"check", spec, "--check", "fixed", "--symmetry", "--workers", "2"}, exitOK},
		{"check-incomplete", []string{"check", spec, "--check", "fixed", "--max-states", "100", "--workers", "1"}, exitIncomplete},
		{"check-json", []string{"check", spec, "--check", "buggy", "--format", "json", "--workers", "1"}, exitSafety},
		// Reference: issue 10. A fair lasso that exists only because max_epoch cut the
		// recovery election is no counterexample: incomplete, naming the bound; raised, ok.
		{"check-bound-cut", []string{"check", "../../specs/kafka-5480.toml", "--check", "fixed", "--set", "brokers=2", "--set", "controller_broker=2", "--set", "max_epoch=4", "--workers", "1"}, exitIncomplete},
		{"check-bound-cut-json", []string{"check", "../../specs/kafka-5480.toml", "--check", "fixed", "--set", "brokers=2", "--set", "controller_broker=2", "--set", "max_epoch=4", "--workers", "2", "--format", "json"}, exitIncomplete},
		{"check-bound-raised", []string{"check", "../../specs/kafka-5480.toml", "--check", "fixed", "--set", "brokers=2", "--set", "controller_broker=2", "--set", "max_epoch=6", "--workers", "1"}, exitOK},
		// Reference: issue 13 (Kafka views): the log grid after each state, the control plane
		// on request; a view the model does not have is bad usage.
		{"check-view-logs", []string{"check", kafka14154, "--check", "buggy", "--workers", "1", "--view", "logs,controlPlane"}, exitLiveness},
		{"check-view-bad", []string{"check", kafka14154, "--check", "buggy", "--view", "logs,grid"}, exitUsage},
		// Reference: issue 14. The Kafka model's symmetry reduction is for safety only: with a
		// liveness property the search refuses it (incomplete), never silently unsound.
		{"check-symmetry-kafka", []string{"check", kafka14154, "--check", "buggy", "--symmetry"}, exitIncomplete},
		// Reference: issue 14. The kafka model's symmetry reduction is on by default in a
		// safety check where brokers are interchangeable, with the unreduced count printed;
		// --symmetry=false gives the plain search.
		{"check-symmetry-default", []string{"check", "../../specs/kafka-18723.toml", "--check", "fixed", "--set", "max_records=2", "--workers", "2"}, exitOK},
		{"check-symmetry-off", []string{"check", "../../specs/kafka-18723.toml", "--check", "fixed", "--set", "max_records=2", "--workers", "2", "--symmetry=false"}, exitOK},
		{"list", []string{"list", "twophase"}, exitOK},
		// Reference: issue 16. kmc mutate turns each guard off in turn: two-phase commit's
		// known-bug guard is caught by TCConsistent; a check that fails as it is cannot
		// catch a mutant; a misspelt guard is bad usage. A passing check that tested
		// nothing says so.
		{"mutate-twophase", []string{"mutate", spec, "--check", "fixed", "--workers", "1"}, exitOK},
		{"mutate-twophase-json", []string{"mutate", spec, "--check", "fixed", "--workers", "2", "--format", "json"}, exitOK},
		{"mutate-one-guard", []string{"mutate", spec, "--check", "fixed", "--guard", "CommitAllPrepared", "--workers", "1"}, exitOK},
		{"mutate-baseline-violated", []string{"mutate", spec, "--check", "buggy", "--workers", "1"}, exitUsage},
		{"mutate-unknown-guard", []string{"mutate", spec, "--check", "fixed", "--guard", "CommitAllPrepare"}, exitUsage},
		{"help-mutate", []string{"mutate", "--help"}, exitOK},
		{"check-vacuous", []string{"check", kafka14154, "--check", "fixed", "--set", "max_epoch=1", "--workers", "1"}, exitOK},
		{"check-vacuous-json", []string{"check", kafka14154, "--check", "fixed", "--set", "max_epoch=1", "--workers", "1", "--format", "json"}, exitOK},
		{"suite-ok", []string{"suite", "testdata/suite-ok", "--workers", "2"}, exitOK},
		{"suite-mismatch", []string{"suite", "testdata/suite-mismatch", "--workers", "2"}, exitInternal},
		{"suite-bad", []string{"suite", "testdata/suite-bad"}, exitUsage},
		{"suite-robust", []string{"suite", "testdata/suite-robust", "--workers", "1"}, exitInternal},
		{"help-sweep", []string{"sweep", "--help"}, exitOK},
		{"help-why", []string{"help", "why"}, exitOK},
		{"sweep-twophase", []string{"sweep", spec, "--check", "fixed", "--vary", "rms=2..4", "--max-states", "300", "--workers", "1"}, exitOK},
		{"sweep-json", []string{"sweep", spec, "--check", "fixed", "--vary", "rms=2..4", "--max-states", "300", "--workers", "1", "--format", "json"}, exitOK},
		{"sweep-invalid", []string{"sweep", "../../specs/kafka-13077-precondition.toml", "--check", "power-loss-2-8", "--vary", "min_isr=1..3", "--vary", "session_loss=0,1", "--workers", "1"}, exitOK},
		{"sweep-bad-range", []string{"sweep", spec, "--check", "buggy", "--vary", "rms=1..3"}, exitUsage},
		{"sweep-unknown-key", []string{"sweep", spec, "--check", "buggy", "--vary", "brokers=2..3"}, exitUsage},
		{"sweep-no-check", []string{"sweep", spec, "--vary", "rms=2..3"}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			got := "exit " + strconv.Itoa(code) + "\n-- stdout --\n" + mask(stdout.String()) + "-- stderr --\n" + mask(stderr.String())
			if code != tt.exit {
				t.Errorf("exit code: got %d, want %d\n%s", code, tt.exit, got)
			}
			golden(t, filepath.Join("testdata", tt.name+".golden"), got)
		})
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/kmc -update)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (refresh with -update):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func TestListUnknownModel(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"list", "raft"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("exit code: got %d, want %d", code, exitUsage)
	}
	got := stderr.String()
	for _, want := range []string{"kmc: list: unknown model \"raft\"\n", "hint: the models are: twophase"} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr: got %q, want it to contain %q", got, want)
		}
	}
}

func TestCheckInterrupted(t *testing.T) {
	// An interrupt stops the search like a limit: partial statistics, exit 3.
	stopOn(t)()
	var stdout, stderr bytes.Buffer
	code := run([]string{"check", spec, "--workers", "1"}, &stdout, &stderr)
	if code != exitIncomplete {
		t.Errorf("exit code: got %d, want %d\n%s%s", code, exitIncomplete, stdout.String(), stderr.String())
	}
	if got := stdout.String(); strings.Count(got, "Checking ") != 1 || !strings.Contains(got, "Search stopped before it was complete: interrupted.\n") {
		t.Errorf("stdout: got\n%s\nwant one check, stopped", got)
	}
	if got, want := stderr.String(), "interrupted; the statistics above are partial"; !strings.Contains(got, want) {
		t.Errorf("stderr: got %q, want it to contain %q", got, want)
	}
}

func TestCheckOut(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"check", spec, "--check", "buggy", "--out", dir, "--workers", "1"}, &stdout, &stderr)
	if code != exitSafety {
		t.Fatalf("exit code: got %d, want %d\n%s", code, exitSafety, stderr.String())
	}
	for _, name := range []string{"trace.itf.json", "trace.dot", "sequence.svg", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, "buggy", name)); err != nil {
			t.Errorf("--out: %v", err)
		}
	}
	p := filepath.Join(dir, "buggy", "trace.txt")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "State 1: <Initial predicate>\n") || !strings.Contains(string(data), "State 4: <") {
		t.Errorf("%s: got\n%s\nwant a 4-state TLC trace", p, data)
	}
	if !strings.Contains(stdout.String(), "Wrote "+p+"\n") {
		t.Errorf("stdout does not name %s:\n%s", p, stdout.String())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestExitCodes(t *testing.T) {
	// Reference: TLC's exit codes (11 deadlock, 12 safety, 13 liveness).
	tests := []struct {
		name       string
		code, want int
	}{
		{"ok", exitOK, 0}, {"internal", exitInternal, 1}, {"usage", exitUsage, 2}, {"incomplete", exitIncomplete, 3},
		{"deadlock", exitDeadlock, 11}, {"safety", exitSafety, 12}, {"liveness", exitLiveness, 13},
	}
	for _, tt := range tests {
		if tt.code != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, tt.code, tt.want)
		}
	}
}

func TestProgressLine(t *testing.T) {
	// Reference: issue 2 (a progress line on long runs: depth, generated, distinct, queue, rate).
	var stdout, stderr bytes.Buffer
	o := &checkOutput{w: &stdout, stderr: &stderr}
	o.progress(checker.Stats{Depth: 7, Generated: 5000, Distinct: 1000, Queue: 300, Elapsed: 2 * time.Second})
	o.progress(checker.Stats{Depth: 9, Generated: 9000, Distinct: 3000, Queue: 200, Elapsed: 4 * time.Second})
	want := "Progress(7): 5000 states generated, 1000 distinct states found, 300 states left on queue, 500 distinct states/s.\n" +
		"Progress(9): 9000 states generated, 3000 distinct states found, 200 states left on queue, 1000 distinct states/s.\n"
	if got := stderr.String(); got != want {
		t.Errorf("progress lines:\ngot:\n%s\nwant:\n%s", got, want)
	}
	if stdout.Len() != 0 {
		t.Errorf("progress went to stdout: %q", stdout.String())
	}
	o = &checkOutput{w: &stdout, stderr: &stderr, json: true}
	o.progress(checker.Stats{Depth: 7, Generated: 5000, Distinct: 1000, Queue: 300, Elapsed: 2 * time.Second})
	if got, want := stdout.String(), `{"depth":7,"distinct":1000,"distinct_per_second":500,"event":"progress","generated":5000,"queue":300}`+"\n"; got != want {
		t.Errorf("json progress: got %s, want %s", got, want)
	}
}

// TestDumpGraph writes the whole reachable graph of a small check as DOT and refuses one
// above the cap. Reference: issue 6 (kmc check --dump-graph).
func TestDumpGraph(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		args  []string
		exit  int
		nodes int // -1: no file must be written
	}{
		{"two-rms", []string{"--set", "rms=2"}, exitOK, 56},
		{"over-cap", []string{"--set", "rms=4"}, exitUsage, -1},
		{"raised-cap", []string{"--set", "rms=4", "--dump-graph-max", "2000"}, exitOK, 1568},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".dot")
			args := append([]string{"check", spec, "--check", "fixed", "--workers", "1", "--dump-graph", path}, tt.args...)
			var stdout, stderr bytes.Buffer
			if code := run(args, &stdout, &stderr); code != tt.exit {
				t.Fatalf("exit code: got %d, want %d\n%s", code, tt.exit, stderr.String())
			}
			data, err := os.ReadFile(path)
			if tt.nodes < 0 {
				if err == nil {
					t.Fatalf("got a graph file, want none after a refusal")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := len(regexp.MustCompile(`(?m)^  s\d+ \[`).FindAll(data, -1))
			if got != tt.nodes {
				t.Errorf("nodes in DOT: got %d, want %d", got, tt.nodes)
			}
		})
	}
}
