package main

import (
	"path/filepath"
	"strings"
	"testing"

	"kmc/checker"
)

// TestResumeBeyondOneProcess: a checkpoint of more states than the single-process engine
// numbers (here: OneProcessStates lowered to 10; really 2^31-2, a partitioned search's
// checkpoint beyond it) is refused by kmc check --resume without --partitions or --cluster,
// exit 2, naming the checkpoint's file, its count of states and the way out; resumed with
// --partitions 2 it gives the output of a search never stopped.
func TestResumeBeyondOneProcess(t *testing.T) {
	args := []string{spec, "--check", "fixed", "--set", "rms=5", "--por=false"}
	code, want, _ := runCLI(append([]string{"check", "--workers", "1"}, args...)...)
	dir := filepath.Join(t.TempDir(), "cp")
	undo := interruptAt(4)
	c, out, errs := runCLI(append([]string{"check", "--workers", "2", "--checkpoint", dir, "--partitions", "3"}, args...)...)
	undo()
	if c != exitIncomplete || !strings.Contains(errs, "Checkpoint "+dir+"/ckpt-") {
		t.Fatalf("interrupted: exit %d, want %d and a checkpoint\n%s%s", c, exitIncomplete, out, errs)
	}
	defer func(n int64) { checker.OneProcessStates = n }(checker.OneProcessStates)
	checker.OneProcessStates = 10
	c, out, errs = runCLI(append([]string{"check", "--workers", "2", "--resume", dir}, args...)...)
	if c != exitUsage || !strings.Contains(errs, "--resume: "+dir+"/ckpt-") ||
		!strings.Contains(errs, "states, more than one process numbers (10): resume it as a partitioned search") ||
		!strings.Contains(errs, "hint: resume it with --partitions N or --cluster URL") {
		t.Errorf("resumed in one process: exit %d, want %d and the refusal\n%s%s", c, exitUsage, out, errs)
	}
	c, got, errs := runCLI(append([]string{"check", "--workers", "2", "--resume", dir, "--partitions", "2"}, args...)...)
	if c != code || finalLines(got) != finalLines(want) {
		t.Errorf("resumed on 2 partitions: exit %d, want %d\n%s\nwant\n%s\n%s", c, code, got, want, errs)
	}
}

// TestResumeCoverage: kmc check --coverage --resume of a checkpoint written with --coverage
// prints the coverage of a search never stopped (the snapshot carries the counts so far),
// in one process and on partitions, whatever wrote the checkpoint; a checkpoint written
// without --coverage is refused with it (exit 2). The Kafka model's counts per branch of a
// fix and per guard (specs.BranchCounter) are the model's, not the engine's: a snapshot does
// not carry them, and a resumed or partitioned search does not print them (withoutBranches).
func TestResumeCoverage(t *testing.T) {
	for _, args := range [][]string{
		{spec, "--check", "fixed", "--set", "rms=5", "--por=false", "--coverage"},
		{"../../specs/kafka-18723.toml", "--check", "buggy", "--coverage"},
	} {
		name := strings.Join(args, " ")
		code, want, _ := runCLI(append([]string{"check", "--workers", "1"}, args...)...)
		if !strings.Contains(want, "Coverage") && !strings.Contains(want, "coverage") {
			t.Fatalf("%s: no coverage printed:\n%s", name, want)
		}
		for _, tc := range []struct{ write, resume []string }{
			{nil, nil},
			{nil, []string{"--partitions", "2"}},
			{[]string{"--partitions", "3"}, nil},
			{[]string{"--partitions", "3"}, []string{"--partitions", "2"}},
		} {
			dir := filepath.Join(t.TempDir(), "cp")
			undo := interruptAt(4)
			c, out, errs := runCLI(append(append([]string{"check", "--workers", "2", "--checkpoint", dir}, args...), tc.write...)...)
			undo()
			if c != exitIncomplete || !strings.Contains(errs, "Checkpoint "+dir+"/ckpt-") {
				t.Fatalf("%s %v: interrupted: exit %d, want %d and a checkpoint\n%s%s", name, tc.write, c, exitIncomplete, out, errs)
			}
			c, got, errs := runCLI(append(append([]string{"check", "--workers", "2", "--resume", dir}, args...), tc.resume...)...)
			if c != code || !strings.Contains(got, "Resuming from checkpoint") || withoutBranches(finalLines(got)) != withoutBranches(finalLines(want)) {
				t.Errorf("%s: written %v, resumed %v: exit %d, want %d\n%s\nwant\n%s\n%s", name, tc.write, tc.resume, c, code, got, want, errs)
			}
		}
	}
	// Written without --coverage: refused with it.
	args := []string{spec, "--check", "fixed", "--set", "rms=5", "--por=false"}
	dir := filepath.Join(t.TempDir(), "cp")
	undo := interruptAt(4)
	runCLI(append([]string{"check", "--workers", "2", "--checkpoint", dir}, args...)...)
	undo()
	c, out, errs := runCLI(append([]string{"check", "--workers", "2", "--resume", dir, "--coverage"}, args...)...)
	if c != exitUsage || !strings.Contains(errs, "kmc: check: --coverage --resume: coverage counts a whole search, and the checkpoint's search did not count it") {
		t.Errorf("a checkpoint without coverage resumed with --coverage: exit %d, want %d\n%s%s", c, exitUsage, out, errs)
	}
}

// withoutBranches drops the table of the counts per branch of a fix and per guard, and the
// paragraph of those that never fired.
func withoutBranches(s string) string {
	var out []string
	skip := false
	for _, l := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(l, "Coverage, per branch of a fix"), strings.HasPrefix(l, "Never fired at these bounds"):
			skip = true
			continue
		case skip && strings.HasPrefix(l, " "):
			continue
		}
		skip = false
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
