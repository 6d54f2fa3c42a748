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
