package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Reference: issue 11, defect 8 (smaller ones).

// failWriter fails every write, as a full disk or a closed pipe does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

func TestStdoutFailure(t *testing.T) {
	for _, args := range [][]string{
		{"list"},
		{"help"},
		{"suite", "testdata/suite-ok", "--workers", "1"},
		{"check", spec, "--check", "fixed", "--workers", "1"},
	} {
		var stderr strings.Builder
		code := run(args, failWriter{}, &stderr)
		if code != exitInternal || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("kmc %s to a failing stdout: got exit %d, stderr %q; want exit 1 and the error", args[0], code, stderr.String())
		}
	}
}

func TestStdoutDevFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	bin := kmcBinary(t)
	for _, args := range [][]string{{"list"}, {"suite", "testdata/suite-ok", "--workers", "1"}} {
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, args...)
		cmd.Stdout = full
		code, _, stderr := runBinary(t, cmd)
		full.Close()
		if code != exitInternal || !strings.Contains(stderr, "kmc: write stdout") {
			t.Errorf("kmc %s >/dev/full: got exit %d\n%s", args[0], code, stderr)
		}
	}
}

func TestSmallUsageErrors(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"suite", "testdata/nothing-here"}, "testdata/nothing-here"},
		{[]string{"suite", empty}, "no *.toml files"},
		{[]string{"suite", spec}, "not a folder"},
		{[]string{"suite", "testdata/suite-ok", "--workers", "257"}, "--workers"},
		{[]string{"suite", "testdata/suite-ok", "--memory", "0"}, "--memory"},
		{[]string{"check", spec, "--workers", "257"}, "--workers must be at most 256"},
		{[]string{"check", spec, "--memory", "0"}, "--memory: must be positive"},
		{[]string{"check", spec, "--set", "rms=3\nrms=5"}, "--set:1:6: rms: a value must be one line"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) || strings.Contains(stdout, "Checking") {
			t.Errorf("kmc %s: got exit %d\n%s%s\nwant exit 2 and %q", strings.Join(tt.args, " "), code, stdout, stderr, tt.want)
		}
	}
}
