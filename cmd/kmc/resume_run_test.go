package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a writer safe to read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// waitFor waits until w holds a match of re (up to a minute) and returns its first group.
func waitFor(t *testing.T, w *syncBuffer, re *regexp.Regexp) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(w.String()); m != nil {
			return m[len(m)-1]
		}
	}
	t.Fatalf("no %s within a minute:\n%s", re, w.String())
	return ""
}

var (
	runLine   = regexp.MustCompile(`--resume-run ([0-9a-f]+)\)`)
	levelLine = regexp.MustCompile(`Level\((\d+)\)`)
)

// startCoordinator starts kmc check --cluster with args and returns it, its stdout and its
// stderr, once it has named its run and a level is under way.
func startCoordinator(t *testing.T, bin string, args []string) (*exec.Cmd, *syncBuffer, *syncBuffer, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	// A coordinator killed leaves its rollback file in its temporary folder: the test's.
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	out, errs := &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	run := waitFor(t, errs, runLine)
	waitFor(t, errs, levelLine)
	return cmd, out, errs, run
}

// TestClusterResumeRun (make cluster-test): a coordinator of a search across three kmc node
// processes, SIGKILLed mid-run, is replaced by a new process with --resume-run RUN: it reads
// the run's plan and its last level checkpoint from the nodes' JetStream, takes the next
// epoch and prints the single process's output. Before that, a coordinator with another
// spec text or other --set values is refused (exit 2) and leaves the run as it was; after
// it, the run is gone (its buckets deleted) and --resume-run of it is refused. Then the
// fencing: a coordinator stopped (SIGSTOP) while another takes its run over, and let go on
// (SIGCONT), reaches no part and cannot write the plan: it stops with an error, while the
// new one prints the single process's output.
func TestClusterResumeRun(t *testing.T) {
	bin := clusterTests(t)
	nodes := startNodes(t, bin, 3)
	args := []string{"check", "../../specs/twophase.toml", "--por=false", "--check", "fixed", "--set", "rms=8", "--workers", "1"}
	wantCode, want, _ := runBinary(t, exec.Command(bin, args...))
	cluster := func(via int, extra ...string) []string {
		return append(append(append([]string{}, args...), "--cluster", nodes[via].url, "--nodes", "3"), extra...)
	}
	for range 2 { // the first run waits for JetStream's cluster to form
		runBinary(t, exec.Command(bin, cluster(0)...))
	}

	// SIGKILL.
	old, _, oldErr, run := startCoordinator(t, bin, cluster(0, "--rollback-every", "0"))
	time.Sleep(1500 * time.Millisecond)
	_ = old.Process.Signal(syscall.SIGKILL)
	_ = old.Wait()
	t.Logf("killed the coordinator of run %s:\n%s", run, oldErr.String())

	// Refused: another spec text, other --set values, with --resume.
	other := filepath.Join(t.TempDir(), "twophase.toml")
	src, err := os.ReadFile("../../specs/twophase.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, append(src, "\n# another text\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	otherSpec := append([]string{}, cluster(1, "--resume-run", run)...)
	otherSpec[1] = other
	otherSets := cluster(1, "--resume-run", run)
	otherSets[slices.Index(otherSets, "rms=8")] = "rms=7"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"another spec text", otherSpec, "the run is another search: the spec's SHA-256: the run's ../../specs/twophase.toml has "},
		{"other --set values", otherSets, "the run is another search: the --set values: the run's are [rms=8], these are [rms=7]"},
		{"an unknown run", cluster(1, "--resume-run", "0123456789abcdef"), "hold no plan of that run"},
	} {
		code, _, stderr := runBinary(t, exec.Command(bin, tc.args...))
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, want %d saying %q\n%s", tc.name, code, exitUsage, tc.want, stderr)
		}
	}

	// Resumed, through another node.
	code, got, stderr := runBinary(t, exec.Command(bin, cluster(1, "--resume-run", run)...))
	t.Logf("resumed:\n%s", stderr)
	if code != wantCode || withoutTime(got) != withoutTime(want) || !strings.Contains(stderr, "kmc: run "+run+": coordinator ") ||
		!strings.Contains(stderr, "is replaced: epoch 2 goes on from") {
		t.Errorf("resumed: exit %d, want %d and the single process's output\n%s\n%s\nwant\n%s", code, wantCode, got, stderr, want)
	}
	if code, _, stderr := runBinary(t, exec.Command(bin, cluster(1, "--resume-run", run)...)); code != exitUsage || !strings.Contains(stderr, "hold no plan of that run") {
		t.Errorf("a run ended, resumed again: exit %d, want %d\n%s", code, exitUsage, stderr)
	}

	// Fencing: the old coordinator stopped, then let go on after the new one took over.
	old, oldOut, oldErr, run := startCoordinator(t, bin, cluster(0, "--rollback-every", "0"))
	time.Sleep(1500 * time.Millisecond)
	_ = old.Process.Signal(syscall.SIGSTOP)
	repl := exec.Command(bin, cluster(2, "--resume-run", run)...)
	replOut, replErr := &syncBuffer{}, &syncBuffer{}
	repl.Stdout, repl.Stderr = replOut, replErr
	if err := repl.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, replErr, regexp.MustCompile(`(is replaced: epoch \d+ goes on)`))
	time.Sleep(time.Second) // the nodes see the plan move on and drop the old epoch's parts
	_ = old.Process.Signal(syscall.SIGCONT)
	oldDone := make(chan error, 1)
	go func() { oldDone <- old.Wait() }()
	err = repl.Wait()
	if code := exitOf(err); code != wantCode || withoutTime(replOut.String()) != withoutTime(want) {
		t.Errorf("the replacement: exit %d, want %d and the single process's output\n%s\n%s", code, wantCode, replOut.String(), replErr.String())
	}
	select {
	case err := <-oldDone:
		t.Logf("the old coordinator, let go on: exit %d\n%s%s", exitOf(err), oldOut.String(), oldErr.String())
		if code := exitOf(err); code != exitInternal || strings.Contains(oldOut.String(), "Result:") ||
			!strings.Contains(oldErr.String(), "run "+run+": ") || !strings.Contains(oldErr.String(), "this coordinator's epoch 1 is fenced off, it stops") {
			t.Errorf("the old coordinator, fenced: exit %d, want %d, no result and the takeover named\n%s%s", code, exitInternal, oldOut.String(), oldErr.String())
		}
	case <-time.After(2 * time.Minute):
		t.Errorf("the old coordinator did not stop within 2 minutes of its run's takeover:\n%s", oldErr.String())
	}
}

func exitOf(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
