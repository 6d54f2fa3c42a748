package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Reference: issue 11 (kmc simulate: random walks with a printed seed; the same output
// formats, --out and exit codes as kmc check).

// maskSim is mask with the simulation's rate masked too.
func maskSim(s string) string {
	s = regexp.MustCompile(`\(\d+ walks/s\)`).ReplaceAllString(s, "(R walks/s)")
	s = regexp.MustCompile(`"walks_per_second":\d+`).ReplaceAllString(s, `"walks_per_second":R`)
	return mask(s)
}

func TestSimulateCLI(t *testing.T) {
	tests := []struct {
		name string
		args []string
		exit int
	}{
		{"simulate-help", []string{"simulate", "--help"}, exitOK},
		{"simulate-violated", []string{"simulate", spec, "--check", "buggy", "--seed", "1", "--workers", "1"}, exitSafety},
		{"simulate-ok", []string{"simulate", spec, "--check", "fixed", "--seed", "1", "--runs", "300", "--depth", "30", "--workers", "2"}, exitOK},
		{"simulate-json", []string{"simulate", spec, "--check", "buggy", "--seed", "1", "--workers", "1", "--format", "json"}, exitSafety},
		// Reference: KAFKA-14154. A lasso that ends stuttering, found by walk 476.
		{"simulate-liveness", []string{"simulate", kafka14154, "--check", "buggy", "--seed", "1", "--workers", "1"}, exitLiveness},
		{"simulate-walk-alone", []string{"simulate", kafka14154, "--check", "buggy", "--seed", "1", "--first-run", "476", "--runs", "1", "--bias", "uniform", "--workers", "1"}, exitLiveness},
		{"simulate-bad-depth", []string{"simulate", spec, "--depth", "0"}, exitUsage},
		{"simulate-bad-bias", []string{"simulate", spec, "--bias", "lucky"}, exitUsage},
		{"simulate-bad-format", []string{"simulate", spec, "--format", "xml"}, exitUsage},
		{"simulate-unknown-check", []string{"simulate", spec, "--check", "nope"}, exitUsage},
		{"simulate-no-spec", []string{"simulate"}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			got := "exit " + strconv.Itoa(code) + "\n-- stdout --\n" + maskSim(stdout.String()) + "-- stderr --\n" + maskSim(stderr.String())
			if code != tt.exit {
				t.Errorf("exit code: got %d, want %d\n%s", code, tt.exit, got)
			}
			golden(t, filepath.Join("testdata", tt.name+".golden"), got)
		})
	}
}

// TestSimulateDefaultSeed: without --seed the seed comes from the clock and is printed, and
// the walk-alone command names it.
func TestSimulateDefaultSeed(t *testing.T) {
	saved := simNow
	defer func() { simNow = saved }()
	simNow = func() time.Time { return time.Unix(0, 987654321) }
	code, stdout, _ := runCLI("simulate", spec, "--check", "buggy", "--workers", "1")
	if code != exitSafety {
		t.Fatalf("exit code: got %d, want %d", code, exitSafety)
	}
	for _, want := range []string{", with seed 987654321,", "--seed 987654321 --first-run", "Seed: 987654321."} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}

// TestSimulateOutReplays: the counterexample written by --out is the same file for one and
// two workers, and kmc replay accepts it as a behaviour violating its property.
func TestSimulateOutReplays(t *testing.T) {
	for _, tc := range []struct{ spec, check string }{{spec, "buggy"}, {kafka14154, "buggy"}} {
		var files [2][]byte
		for i, w := range []string{"1", "2"} {
			out := t.TempDir()
			code, stdout, stderr := runCLI("simulate", tc.spec, "--check", tc.check, "--seed", "1", "--workers", w, "--out", out)
			if code != exitSafety && code != exitLiveness {
				t.Fatalf("%s workers %s: got exit %d\n%s%s", tc.spec, w, code, stdout, stderr)
			}
			path := filepath.Join(out, tc.check, "trace.itf.json")
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			files[i] = b
			code, stdout, stderr = runCLI("replay", path, "--spec", tc.spec)
			if code != exitOK {
				t.Errorf("%s: replay: got exit %d\n%s%s", tc.spec, code, stdout, stderr)
			}
			report, err := os.ReadFile(filepath.Join(out, tc.check, "report.html"))
			if err != nil || !bytes.Contains(report, []byte("--first-run")) {
				t.Errorf("%s: the report does not name the command that takes the walk alone (%v)", tc.spec, err)
			}
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("%s: the trace differs between 1 and 2 workers", tc.spec)
		}
	}
}

// TestSimulateInterrupted: Ctrl-C stops the walks; without a violation the exit code is 3.
func TestSimulateInterrupted(t *testing.T) {
	stop := stopOn(t)
	stop()
	code, stdout, stderr := runCLI("simulate", spec, "--check", "fixed", "--runs", "0", "--workers", "1")
	if code != exitIncomplete {
		t.Errorf("exit code: got %d, want %d\n%s%s", code, exitIncomplete, stdout, stderr)
	}
	if !strings.Contains(stdout, "Simulation stopped: interrupted.") || !strings.Contains(stderr, "kmc: simulate: interrupted; the statistics above are partial") {
		t.Errorf("got:\n%s%s", stdout, stderr)
	}
}

// TestSimulateTimeBudget: --time without --runs takes walks until the time is up, and
// reaching it ends the simulation ok.
func TestSimulateTimeBudget(t *testing.T) {
	code, stdout, stderr := runCLI("simulate", spec, "--check", "fixed", "--time", "1ms", "--seed", "1", "--workers", "1")
	if code != exitOK {
		t.Fatalf("exit code: got %d, want %d\n%s%s", code, exitOK, stdout, stderr)
	}
	for _, want := range []string{"Running random walks of at most 100 states, until stopped, with seed 1", "(time budget reached)."} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}
