package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Reference: issue 11, defect 5: a contradiction between fields of any check (min_isr
// above brokers) is a spec error at load, positioned, exit 2, before any check runs; kmc
// suite runs nothing.
func TestContradictionAtLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "odd.toml")
	src := `model = "kafka"
properties = ["LeaderInISR"]

[constants]
brokers = 2
max_records = 0
max_epoch = 1

[[check]]
name = "fine"
expect = "ok"

[[check]]
name = "odd"
expect = "ok"
[check.constants]
min_isr = 3
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want := path + ":17:11: check[1].constants.min_isr: min_isr = 3 outside 1..2\n"
	for _, args := range [][]string{
		{"check", path, "--workers", "1"},
		{"check", path, "--check", "fine", "--workers", "1"},
		{"suite", dir, "--workers", "1"},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != exitUsage || stdout != "" || !strings.HasPrefix(stderr, want) {
			t.Errorf("kmc %s: got exit %d\n%s%s\nwant exit 2, nothing run, and %q", strings.Join(args, " "), code, stdout, stderr, want)
		}
	}
}
