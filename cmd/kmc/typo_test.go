package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// Reference: issue 13 ("a CLI that forgives typos"): did you mean, kmc check on a folder,
// binary formats to a terminal.
func TestTypos(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"command", []string{"chek"}, `kmc: unknown command "chek"; did you mean "check"?`},
		{"help command", []string{"help", "sweap"}, `kmc: help: unknown command "sweap"; did you mean "sweep"?`},
		{"flag", []string{"check", "../../specs/twophase.toml", "--workrs", "2"}, "unknown flag: --workrs; did you mean --workers?"},
		{"check name", []string{"check", "../../specs/kafka-18723.toml", "--check", "fixd"}, `has no check "fixd"; did you mean "fixed"?`},
		{"sweep check name", []string{"sweep", "../../specs/kafka-18723.toml", "--check", "bugy", "--vary", "max_epoch=1..2"}, `has no check "bugy"; did you mean "buggy"?`},
		{"set key", []string{"check", "../../specs/twophase.toml", "--set", "rmz=3"}, `did you mean "rms"?`},
		{"folder", []string{"check", "../../specs/"}, "kmc: ../../specs/ is a folder, not a spec file\nhint: to run every spec under it: kmc suite ../../specs/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != exitUsage {
				t.Errorf("exit: got %d, want %d", code, exitUsage)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr: got\n%s\nwant it to hold\n%s", stderr.String(), tt.want)
			}
		})
	}
}

func TestRenderBinaryToTerminal(t *testing.T) {
	saved := isTerminal
	defer func() { isTerminal = saved }()
	isTerminal = func(io.Writer) bool { return true }
	const trace = "../../traces/testdata/lasso.itf.json"
	for _, f := range []string{"png", "sequence-png"} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"render", trace, "--format", f}, &stdout, &stderr)
		if code != exitUsage || stdout.Len() != 0 || !strings.Contains(stderr.String(), "name a file with -o FILE") {
			t.Errorf("%s to a terminal: got exit %d, %d bytes, stderr %q; want exit 2, nothing written and the hint", f, code, stdout.Len(), stderr.String())
		}
		stdout.Reset()
		stderr.Reset()
		if code := run([]string{"render", trace, "--format", f, "-o", "-"}, &stdout, &stderr); code != exitOK || !bytes.HasPrefix(stdout.Bytes(), []byte("\x89PNG")) {
			t.Errorf("%s with -o -: got exit %d, %d bytes; want exit 0 and a PNG (%s)", f, code, stdout.Len(), stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"render", trace, "--format", "text"}, &stdout, &stderr); code != exitOK || stdout.Len() == 0 {
		t.Errorf("text to a terminal: got exit %d, %d bytes; want exit 0 and the trace", code, stdout.Len())
	}
}

// Reference: issue 13: --fix NAME turns a fix on at the spec's bounds.
func TestFixFlag(t *testing.T) {
	for _, cmd := range []string{"check", "simulate"} {
		var stdout, stderr bytes.Buffer
		code := run([]string{cmd, "../../specs/twophase.toml", "--check", "buggy", "--fix", "CommitAfterAllPrepared", "--workers", "1"}, &stdout, &stderr)
		if code != exitOK || !strings.Contains(stdout.String(), "fixes=CommitAfterAllPrepared") ||
			!strings.Contains(stdout.String(), "Result: ok; the spec expects violated(TCConsistent)") {
			t.Errorf("%s --fix: got exit %d\n%s%s", cmd, code, stdout.String(), stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"check", "../../specs/twophase.toml", "--check", "buggy", "--fix", "CommitAfterAllPrepard"}, &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), `did you mean "CommitAfterAllPrepared"?`) {
		t.Errorf("--fix with a typo: got exit %d, stderr %q", code, stderr.String())
	}
}

// Reference: issue 13: a liveness verdict prints the fairness it assumed, wrapped at 100.
func TestFairnessText(t *testing.T) {
	got := fairnessText([]string{"A", strings.Repeat("B", 60), "C"}, nil)
	want := "Fairness assumed by the liveness properties: weak (WF): A,\n  " + strings.Repeat("B", 60) +
		", C; strong (SF): none; every other\n  kind of action is unfair."
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, l := range strings.Split(got, "\n") {
		if len(l) > 100 {
			t.Errorf("line over 100 columns: %q", l)
		}
	}
}

// Reference: issue 13 (--coverage, as TLC's): per kind of action, the states where it was
// enabled and the steps it took, and the kinds never taken.
func TestCoverageFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", "../../specs/twophase.toml", "--check", "fixed", "--coverage", "--workers", "2"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for _, want := range []string{
		"Coverage, per kind of action (over the states this search expanded):\n  ACTION             ENABLED IN   STEPS TAKEN\n",
		"  TMCommit                    1             1\n",
		"  RMRcvAbortMsg             162           486\n", // under the partial-order reduction (the default)
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	if strings.Contains(stdout.String(), "Never taken") {
		t.Errorf("two-phase commit takes every kind:\n%s", stdout.String())
	}
	stdout.Reset()
	if code := run([]string{"check", "../../specs/kafka-14154.toml", "--check", "buggy", "--coverage", "--workers", "1"}, &stdout, &stderr); code != exitLiveness {
		t.Fatalf("kafka-14154: exit %d", code)
	}
	if !strings.Contains(stdout.String(), "Never taken at these bounds: LeaderAppend, NetworkReadRecord,") {
		t.Errorf("kafka-14154 writes no record: want LeaderAppend never taken:\n%s", stdout.String())
	}
	stderr.Reset()
	// --coverage goes with --resume of a checkpoint whose search counted it
	// (TestResumeCoverage); this folder holds none.
	if code := run([]string{"check", "../../specs/twophase.toml", "--check", "fixed", "--coverage", "--resume", t.TempDir()}, &stdout, &stderr); code != exitUsage ||
		!strings.Contains(stderr.String(), "holds no checkpoint") {
		t.Errorf("--coverage --resume: got exit %d, %q", code, stderr.String())
	}
}
