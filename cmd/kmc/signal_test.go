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
)

// Reference: issue 11, defect 6 (signals): SIGINT and SIGTERM stop cleanly with partial
// statistics and exit by the worst verdict found so far; kmc suite reports "interrupted"
// and exits 3; a second signal exits at once (130, 143).

// stopOn makes the commands the test runs stop, as on SIGINT, when the function returned
// is called (once or more).
func stopOn(t *testing.T) func() {
	t.Helper()
	saved := signalContext
	t.Cleanup(func() { signalContext = saved })
	ctx, cancel := context.WithCancel(context.Background())
	signalContext = func() (context.Context, func()) { return ctx, func() {} }
	return cancel
}

// triggerWriter passes writes on to w and calls fire once it has seen text.
type triggerWriter struct {
	w    io.Writer
	text string
	fire func()
	seen bytes.Buffer
}

func (tw *triggerWriter) Write(p []byte) (int, error) {
	n, err := tw.w.Write(p)
	tw.seen.Write(p)
	if strings.Contains(tw.seen.String(), tw.text) {
		tw.fire()
	}
	return n, err
}

func TestInterruptAfterViolation(t *testing.T) {
	// The first check finds its violation, the signal comes before the second: exit 12.
	stop := stopOn(t)
	var stdout, stderr bytes.Buffer
	w := &triggerWriter{w: &stdout, text: "Result: violated", fire: stop}
	code := run([]string{"check", spec, "--workers", "1"}, w, &stderr)
	if code != exitSafety {
		t.Errorf("exit code: got %d, want %d\n%s%s", code, exitSafety, stdout.String(), stderr.String())
	}
	if n := strings.Count(stdout.String(), "Checking "); n != 1 {
		t.Errorf("got %d checks run, want 1", n)
	}
	if got, want := stderr.String(), "kmc: check: interrupted; not run: fixed\n"; !strings.Contains(got, want) {
		t.Errorf("stderr: got %q, want %q", got, want)
	}
}

func TestInterruptWhileWritingOut(t *testing.T) {
	// The search is complete when the signal comes: its statistics are not partial.
	stop := stopOn(t)
	saved := afterSearch
	defer func() { afterSearch = saved }()
	afterSearch = stop
	out := t.TempDir()
	code, stdout, stderr := runCLI("check", spec, "--check", "buggy", "--workers", "1", "--out", out)
	if code != exitSafety {
		t.Errorf("exit code: got %d, want %d\n%s%s", code, exitSafety, stdout, stderr)
	}
	if strings.Contains(stderr, "partial") || strings.Contains(stdout, "interrupted") {
		t.Errorf("a complete search reported as interrupted:\n%s%s", stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "buggy", "trace.itf.json")); err != nil {
		t.Errorf("--out: %v", err)
	}
}

func TestSuiteInterrupted(t *testing.T) {
	stop := stopOn(t)
	var stdout, stderr bytes.Buffer
	w := &triggerWriter{w: &stdout, text: "twophase.toml  buggy", fire: stop}
	code := run([]string{"suite", "testdata/suite-ok", "--workers", "1"}, w, &stderr)
	if code != exitIncomplete {
		t.Errorf("exit code: got %d, want %d\n%s%s", code, exitIncomplete, stdout.String(), stderr.String())
	}
	if strings.Contains(stdout.String(), "differ") || strings.Contains(stdout.String(), "mismatch") {
		t.Errorf("an interrupted suite reported differences:\n%s", stdout.String())
	}
	if !strings.Contains(stdout.String(), "interrupted after 1 of 2 checks") || !strings.Contains(stderr.String(), "kmc: suite: interrupted") {
		t.Errorf("got\n%s%s\nwant the suite reported interrupted", stdout.String(), stderr.String())
	}
}

func TestSecondSignalExits(t *testing.T) {
	for _, tt := range []struct {
		first, second os.Signal
		want          int
	}{
		{syscall.SIGTERM, syscall.SIGINT, 130},
		{os.Interrupt, syscall.SIGTERM, 143},
	} {
		sig := make(chan os.Signal, 2)
		exited := make(chan int, 1)
		stop := make(chan struct{})
		release := watchSignals(sig, func() { close(stop) }, func(code int) { exited <- code })
		sig <- tt.first
		<-stop // closed by the first signal
		select {
		case code := <-exited:
			t.Fatalf("exit(%d) after one signal", code)
		default:
		}
		sig <- tt.second
		if code := <-exited; code != tt.want {
			t.Errorf("%v then %v: exit(%d), want exit(%d)", tt.first, tt.second, code, tt.want)
		}
		release()
	}
}

// TestRealSignals sends real SIGTERM, SIGINT and SIGHUP to a long run of the binary.
// Issue 26, defect 5: SIGHUP is handled as SIGTERM (on main it killed kmc, leaving its
// temporary files).
func TestRealSignals(t *testing.T) {
	bin := kmcBinary(t)
	for _, sig := range []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		cmd := exec.Command(bin, "check", spec, "--check", "fixed", "--set", "rms=10", "--workers", "1", "--memory", "1GiB")
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(pipe)
		var stdout bytes.Buffer
		for !strings.Contains(stdout.String(), "Running breadth-first search") {
			line, err := r.ReadString('\n')
			stdout.WriteString(line)
			if err != nil {
				cmd.Process.Kill()
				t.Fatalf("no banner: %v\n%s%s", err, stdout.String(), stderr.String())
			}
		}
		time.Sleep(200 * time.Millisecond) // inside the search, not a timing assertion
		cmd.Process.Signal(sig)
		rest, _ := io.ReadAll(r)
		stdout.Write(rest)
		err = cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != exitIncomplete {
			t.Errorf("%v: exit code: got %d, want %d\n%s%s", sig, code, exitIncomplete, stdout.String(), stderr.String())
		}
		for _, want := range []string{"Search stopped before it was complete: interrupted.", "distinct states found", "The depth of the partial state graph search"} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("%v: stdout lacks %q:\n%s", sig, want, stdout.String())
			}
		}
		if !strings.Contains(stderr.String(), "the statistics above are partial") {
			t.Errorf("%v: stderr: %s", sig, stderr.String())
		}
	}
}

// Reference: issue 11, defect 7: --dump-graph honours --memory and an interrupt (no graph
// written, exit 3), and --dump-graph-max must be positive.
func TestDumpGraphLimits(t *testing.T) {
	dir := t.TempDir()
	base := []string{"check", spec, "--check", "fixed", "--workers", "1", "--set", "rms=4", "--dump-graph-max", "2000"}
	path := filepath.Join(dir, "mem.dot")
	code, _, stderr := runCLI(append(base, "--dump-graph", path, "--memory", "1KiB")...)
	if _, err := os.Stat(path); code != exitIncomplete || err == nil || !strings.Contains(stderr, "memory budget") {
		t.Errorf("--memory 1KiB: got exit %d, file %v\n%s", code, err, stderr)
	}

	stop := stopOn(t)
	stop()
	path = filepath.Join(dir, "int.dot")
	code, _, stderr = runCLI(append(base, "--dump-graph", path)...)
	if _, err := os.Stat(path); code != exitIncomplete || err == nil || !strings.Contains(stderr, "interrupted") {
		t.Errorf("interrupted: got exit %d, file %v\n%s", code, err, stderr)
	}

	code, _, stderr = runCLI("check", spec, "--check", "fixed", "--dump-graph", filepath.Join(dir, "x.dot"), "--dump-graph-max", "-1")
	if code != exitUsage || !strings.Contains(stderr, "--dump-graph-max") {
		t.Errorf("--dump-graph-max -1: got exit %d\n%s", code, stderr)
	}
}
