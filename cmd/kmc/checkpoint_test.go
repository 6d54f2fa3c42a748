package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kmc/app/checkpoint"
)

// Reference: issue 11, "Long runs": kmc check --checkpoint DIR writes checkpoints of the
// search and --resume DIR goes on with it. What the search does (the same counts, depth,
// verdict and counterexample as a run never stopped, with any number of workers; every
// refusal of a checkpoint) is tested in package app; here, what kmc check prints and its
// exit codes.

// interruptAt makes the next check stop, as on SIGINT, once the search has expanded a level
// at or beyond depth (then the engine takes its last checkpoint). The function returned
// undoes it.
func interruptAt(depth int) func() {
	savedCtx, savedAt := signalContext, checkpointAt
	ctx, cancel := context.WithCancel(context.Background())
	signalContext = func() (context.Context, func()) { return ctx, func() {} }
	checkpointAt = func(d int, _ int64) bool {
		if d >= depth {
			cancel()
		}
		return false
	}
	return func() { signalContext, checkpointAt = savedCtx, savedAt }
}

// finalLines is a check's stdout without what may differ between an uninterrupted and a
// resumed run: the worker count, the resume line and the elapsed time.
func finalLines(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Running breadth-first search") || strings.HasPrefix(l, "Resuming from checkpoint") || strings.HasPrefix(l, "Finished in") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// TestCheckpointCLI: an interrupted kmc check --checkpoint reports its checkpoint and the
// command that goes on (exit 3); kmc check --resume says where it resumes from, prints
// what a run never stopped prints, and says it removed the checkpoint.
func TestCheckpointCLI(t *testing.T) {
	args := []string{spec, "--check", "fixed", "--set", "rms=5"}
	code, want, _ := runCLI(append([]string{"check", "--workers", "1"}, args...)...)
	if code != exitOK {
		t.Fatalf("uninterrupted: got exit %d\n%s", code, want)
	}
	dir := filepath.Join(t.TempDir(), "cp")
	undo := interruptAt(8)
	code, out, errs := runCLI(append([]string{"check", "--workers", "2", "--checkpoint", dir}, args...)...)
	undo()
	for _, w := range []string{"Checkpoint " + dir + "/ckpt-000001: level ", "kmc: check: interrupted; the statistics above are partial\n",
		"hint: go on with the search: kmc check " + spec + " --check fixed --set rms=5 --resume " + dir + "\n"} {
		if code != exitIncomplete || !strings.Contains(errs, w) {
			t.Errorf("interrupted: got exit %d, want %d and stderr with %q\n%s%s", code, exitIncomplete, w, out, errs)
		}
	}
	code, got, errs := runCLI(append([]string{"check", "--workers", "1", "--resume", dir}, args...)...)
	if code != exitOK || !strings.Contains(got, "Resuming from checkpoint "+dir+"/ckpt-000001: level ") || finalLines(got) != finalLines(want) {
		t.Errorf("resumed: got exit %d\n%s\nwant\n%s", code, got, want)
	}
	if !strings.Contains(errs, "kmc: check: the search is complete; removed its checkpoint from "+dir+"\n") {
		t.Errorf("resumed: stderr %q", errs)
	}
}

// interruptedCheckpoint leaves a checkpoint of twophase's fixed check (rms=4) in a new
// folder and returns the folder and the checkpoint in it.
func interruptedCheckpoint(t *testing.T) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cp")
	undo := interruptAt(5)
	code, out, errs := runCLI("check", spec, "--check", "fixed", "--set", "rms=4", "--workers", "1", "--checkpoint", dir)
	undo()
	if code != exitIncomplete {
		t.Fatalf("interrupted: got exit %d\n%s%s", code, out, errs)
	}
	return dir, filepath.Join(dir, "ckpt-000001")
}

// TestResumeRefused: a refused checkpoint or checkpoint flag is exit 2 before the search,
// with the message and the hint.
func TestResumeRefused(t *testing.T) {
	dir, ck := interruptedCheckpoint(t)
	manifest := filepath.Join(ck, checkpoint.ManifestFile)
	orig, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"check", spec, "--set", "rms=4", "--workers", "1", "--resume", dir}
	tests := []struct {
		name   string
		args   []string
		damage func()
		want   string
	}{
		{"constant", []string{"check", spec, "--set", "rms=5", "--resume", dir}, nil,
			"kmc: check: --resume: " + ck + " is of another search (" + spec + ", check fixed):\n  constants.rms: 4 in the checkpoint, 5 in this run\n" +
				"hint: resume it with the spec, --set values and flags it was written with, or start the search over without --resume\n"},
		{"check", append(base, "--check", "buggy"), nil, "kmc: check: --resume: " + ck + " is of check fixed, not buggy\n"},
		{"version", base, func() {
			m, err := checkpoint.ParseManifest(orig)
			if err != nil {
				t.Fatal(err)
			}
			m.Version = "kmc v0.0.1 go1.20"
			os.WriteFile(manifest, m.Bytes(), 0o644)
		}, "was written by another kmc:\n  checkpoint: kmc v0.0.1 go1.20\n  this kmc:   " + checkpoint.Version() + "\n" +
			"hint: resume it with the kmc that wrote it, or start the search over without --resume\n"},
		{"manifest torn", base, func() { os.WriteFile(manifest, orig[:100], 0o644) },
			"manifest.txt: does not end with a newline: it is torn\nhint: the checkpoint cannot be used; start the search over without --resume\n"},
		{"no checkpoint", []string{"check", spec, "--resume", t.TempDir()}, nil, "holds no checkpoint\nhint: --resume takes the folder that --checkpoint wrote\n"},
		{"checkpoint taken", []string{"check", spec, "--check", "fixed", "--checkpoint", dir}, nil,
			"kmc: check: --checkpoint: " + dir + " already holds a checkpoint (ckpt-000001)\nhint: go on with it with --resume " + dir + ", or remove it to start over\n"},
		{"checkpoint unwritable", []string{"check", spec, "--check", "fixed", "--checkpoint", "/dev/null/cp"}, nil,
			"hint: --checkpoint needs a folder kmc can create and write in\n"},
		{"every without checkpoint", []string{"check", spec, "--checkpoint-every", "1m"}, nil, "--checkpoint-every needs --checkpoint or --resume"},
		{"every zero", []string{"check", spec, "--checkpoint", t.TempDir(), "--checkpoint-every", "0s"}, nil, "--checkpoint-every: must be positive"},
		{"two checks", []string{"check", spec, "--checkpoint", t.TempDir()}, nil, "--checkpoint and --resume need one check"},
		{"coverage", append(base, "--coverage"), nil, "kmc: check: --coverage --resume: coverage counts a whole search, and the checkpoint's search did not count it (it ran without --coverage)"},
	}
	for _, tc := range tests {
		if err := os.WriteFile(manifest, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		if tc.damage != nil {
			tc.damage()
		}
		code, out, errs := runCLI(tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) || strings.Contains(out, "Model checking") {
			t.Errorf("%s: got exit %d, want %d and stderr with %q\n%s%s", tc.name, code, exitUsage, tc.want, out, errs)
		}
	}
}

// TestCheckpointJSON: --format json reports checkpoints and the resume as events.
func TestCheckpointJSON(t *testing.T) {
	dir, _ := interruptedCheckpoint(t)
	code, out, errs := runCLI("check", spec, "--set", "rms=4", "--workers", "1", "--resume", dir, "--format", "json")
	if code != exitOK || !strings.Contains(out, `"resume":{"checkpoint":"`+dir+`/ckpt-000001"`) {
		t.Errorf("got exit %d\n%s%s", code, out, errs)
	}
	dir = filepath.Join(t.TempDir(), "cp")
	undo := interruptAt(5)
	code, out, errs = runCLI("check", spec, "--check", "fixed", "--set", "rms=4", "--workers", "1", "--checkpoint", dir, "--format", "json")
	undo()
	if code != exitIncomplete || !strings.Contains(out, `{"bytes":`) || !strings.Contains(out, `"event":"checkpoint"`) || errs != "" {
		t.Errorf("got exit %d\n%s%s", code, out, errs)
	}
}

// TestCheckpointRealProcess runs the binary: a run interrupted by SIGINT writes a last
// checkpoint, a run killed by SIGKILL leaves the one before; both resume, with another
// worker count, to the statistics of a run never stopped.
func TestCheckpointRealProcess(t *testing.T) {
	bin := kmcBinary(t)
	rms := "8" // 1,745,408 distinct states; KMC_CHECKPOINT_RMS=9 or 10 for a longer run
	if v := os.Getenv("KMC_CHECKPOINT_RMS"); v != "" {
		rms = v
	}
	args := []string{"check", spec, "--check", "fixed", "--set", "rms=" + rms}
	code, want, errs := runBinary(t, exec.Command(bin, append(args, "--workers", "2")...))
	if code != exitOK {
		t.Fatalf("uninterrupted: got exit %d\n%s%s", code, want, errs)
	}
	for _, tc := range []struct {
		sig   syscall.Signal
		after int // checkpoint lines seen before the signal
		exit  int // -1: killed
	}{
		{syscall.SIGINT, 1, exitIncomplete},
		{syscall.SIGKILL, 2, -1},
	} {
		dir := filepath.Join(t.TempDir(), "cp")
		cmd := exec.Command(bin, append(args, "--workers", "2", "--checkpoint", dir, "--checkpoint-every", "100ms")...)
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		pipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(pipe)
		var stderr bytes.Buffer
		for seen := 0; seen < tc.after; {
			line, err := r.ReadString('\n')
			stderr.WriteString(line)
			if err != nil {
				cmd.Process.Kill()
				t.Fatalf("%v: the run ended before %d checkpoints\n%s%s", tc.sig, tc.after, stdout.String(), stderr.String())
			}
			if strings.HasPrefix(line, "Checkpoint ") {
				seen++
			}
		}
		cmd.Process.Signal(tc.sig)
		rest, _ := io.ReadAll(r)
		stderr.Write(rest)
		err = cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != tc.exit {
			t.Fatalf("%v: got exit %d, want %d\n%s%s", tc.sig, code, tc.exit, stdout.String(), stderr.String())
		}
		if tc.sig == syscall.SIGINT && !strings.Contains(stderr.String(), "hint: go on with the search: kmc check ") {
			t.Errorf("%v: no resume hint\n%s", tc.sig, stderr.String())
		}
		start := time.Now()
		code, got, errs := runBinary(t, exec.Command(bin, append(args, "--workers", "1", "--resume", dir)...))
		if code != exitOK || finalLines(got) != finalLines(want) {
			t.Errorf("%v: resumed: got exit %d\n%s%s\nwant\n%s", tc.sig, code, got, errs, want)
		}
		t.Logf("%v after %d checkpoints: %s; resumed in %s", tc.sig, tc.after, lastCheckpointLine(stderr.String()), time.Since(start).Round(time.Millisecond))
	}
}

func lastCheckpointLine(s string) string {
	last := ""
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "Checkpoint ") {
			last = l
		}
	}
	return last
}
