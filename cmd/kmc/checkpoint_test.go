package main

import (
	"bufio"
	"bytes"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Reference: issue 11, "Long runs": kmc check --checkpoint DIR writes checkpoints of the
// search and --resume DIR goes on with it, to the same counts, depth, verdict and
// counterexample as a run never stopped, with any number of workers on either side; a
// checkpoint of another kmc, spec, check or configuration, or a torn or corrupt one, is
// refused (exit 2), never used.

// interruptAt makes the next check stop, as on SIGINT, once the search has expanded a level
// at or beyond depth (then the engine takes its last checkpoint). The function returned
// undoes it.
func interruptAt(depth int) func() {
	savedStop, savedAt := newStop, checkpointAt
	stop := make(chan struct{})
	var once sync.Once
	newStop = func() (<-chan struct{}, func()) { return stop, func() {} }
	checkpointAt = func(d int, _ int64) bool {
		if d >= depth {
			once.Do(func() { close(stop) })
		}
		return false
	}
	return func() { newStop, checkpointAt = savedStop, savedAt }
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

func TestCheckpointResume(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		exit  int
		depth int // where the first run is interrupted
	}{
		{"twophase-ok", []string{spec, "--check", "fixed", "--set", "rms=5"}, exitOK, 8},
		{"twophase-violated", []string{spec, "--check", "buggy", "--set", "rms=5"}, exitSafety, 3},
		// Liveness: the recorded graph goes into the checkpoint.
		{"kafka-14154-violated", []string{kafka14154, "--check", "buggy"}, exitLiveness, 6},
		{"kafka-14154-ok", []string{kafka14154, "--check", "fixed"}, exitOK, 5},
	}
	for _, tc := range tests {
		code, want, _ := runCLI(append([]string{"check", "--workers", "1"}, tc.args...)...)
		if code != tc.exit {
			t.Fatalf("%s: uninterrupted: got exit %d, want %d\n%s", tc.name, code, tc.exit, want)
		}
		for _, w := range []string{"1", "2", "4"} {
			dir := filepath.Join(t.TempDir(), "cp")
			undo := interruptAt(tc.depth)
			code, out, errs := runCLI(append([]string{"check", "--workers", w, "--checkpoint", dir}, tc.args...)...)
			undo()
			if code != exitIncomplete || !strings.Contains(errs, "hint: go on with the search: kmc check ") {
				t.Fatalf("%s w=%s: interrupted: got exit %d\n%s%s", tc.name, w, code, out, errs)
			}
			seqs, _ := checkpoints(dir)
			if len(seqs) != 1 {
				t.Fatalf("%s w=%s: got checkpoints %v, want one", tc.name, w, seqs)
			}
			for _, rw := range []string{"1", "2", "4"} {
				if rw != w && rw != "2" {
					continue // resumed with the same count, and with another
				}
				keep := filepath.Join(t.TempDir(), "keep")
				copyDir(t, dir, keep)
				code, got, errs := runCLI(append([]string{"check", "--workers", rw, "--resume", keep}, tc.args...)...)
				if code != tc.exit || !strings.Contains(got, "Resuming from checkpoint "+keep+"/ckpt-000001: level ") {
					t.Fatalf("%s: written with %s workers, resumed with %s: got exit %d, want %d\n%s%s", tc.name, w, rw, code, tc.exit, got, errs)
				}
				if finalLines(got) != finalLines(want) {
					t.Errorf("%s: written with %s workers, resumed with %s: got\n%s\nwant\n%s", tc.name, w, rw, got, want)
				}
				// The search is complete: its checkpoint is removed.
				if seqs, _ := checkpoints(keep); len(seqs) != 0 || !strings.Contains(errs, "removed its checkpoint") {
					t.Errorf("%s: after a complete search: got checkpoints %v\n%s", tc.name, seqs, errs)
				}
			}
		}
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
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

func TestResumeRefused(t *testing.T) {
	dir, ck := interruptedCheckpoint(t)
	manifestPath := filepath.Join(ck, ckptManifest)
	snapPath := filepath.Join(ck, ckptSnapshot)
	orig := map[string][]byte{}
	for _, p := range []string{manifestPath, snapPath} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		orig[p] = data
	}
	restore := func() {
		for p, data := range orig {
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// rewrite changes the manifest and writes it back with a right checksum.
	rewrite := func(edit func(m *manifest)) {
		m, err := parseManifest(orig[manifestPath])
		if err != nil {
			t.Fatal(err)
		}
		edit(m)
		if err := os.WriteFile(manifestPath, m.bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{"check", spec, "--set", "rms=4", "--workers", "1", "--resume", dir}
	tests := []struct {
		name   string
		args   []string
		damage func()
		want   string
	}{
		{"constant", []string{"check", spec, "--set", "rms=5", "--resume", dir}, nil,
			"is of another search (" + spec + ", check fixed):\n  constants.rms: 4 in the checkpoint, 5 in this run\n"},
		{"option", append(base, "--deadlock"), nil, "  options.deadlock: false in the checkpoint, true in this run\n"},
		{"max depth", append(base, "--max-depth", "20"), nil, "  limits.max_depth: 0 in the checkpoint, 20 in this run\n"},
		{"check", append(base, "--check", "buggy"), nil, "/ckpt-000001 is of check fixed, not buggy\n"},
		{"spec", []string{"check", kafka14154, "--resume", dir}, nil, "  model: twophase in the checkpoint, kafka in this run\n"},
		{"version", base, func() { rewrite(func(m *manifest) { m.Version = "kmc v0.0.1 go1.20" }) },
			"was written by another kmc:\n  checkpoint: kmc v0.0.1 go1.20\n  this kmc:   " + kmcVersion() + "\n"},
		{"manifest byte", base, func() { flip(t, manifestPath, 40) }, "manifest.txt: line 21: checksum mismatch (stored"},
		{"manifest torn", base, func() { truncate(t, manifestPath, 100) }, "manifest.txt: does not end with a newline: it is torn"},
		{"manifest config", base, func() { rewrite(func(m *manifest) { m.Config[1] = "constants.rms=5" }) }, "config-sha256"},
		{"snapshot torn", base, func() { truncate(t, snapPath, 1000) }, "search.kmcs: 1000 bytes, the manifest says"},
		{"snapshot byte", base, func() { flip(t, snapPath, len(orig[snapPath])/2) }, "; the checkpoint is torn or corrupt"},
		{"snapshot last byte", base, func() { flip(t, snapPath, len(orig[snapPath])-1) }, "section END_: checksum mismatch"},
		{"snapshot swapped", base, func() {
			// A whole snapshot, right in itself, that is not the manifest's.
			rewrite(func(m *manifest) { m.CRC ^= 1 })
		}, "checksum mismatch (manifest"},
		{"no checkpoint", []string{"check", spec, "--resume", t.TempDir()}, nil, "holds no checkpoint"},
		{"checkpoint taken", []string{"check", spec, "--check", "fixed", "--checkpoint", dir}, nil, "already holds a checkpoint (ckpt-000001)"},
		{"every without checkpoint", []string{"check", spec, "--checkpoint-every", "1m"}, nil, "--checkpoint-every needs --checkpoint or --resume"},
		{"every zero", []string{"check", spec, "--checkpoint", t.TempDir(), "--checkpoint-every", "0s"}, nil, "--checkpoint-every: must be positive"},
		{"two checks", []string{"check", spec, "--checkpoint", t.TempDir()}, nil, "--checkpoint and --resume need one check"},
	}
	for _, tc := range tests {
		restore()
		if tc.damage != nil {
			tc.damage()
		}
		code, out, errs := runCLI(tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) || strings.Contains(out, "Model checking") {
			t.Errorf("%s: got exit %d, want %d and stderr with %q\n%s%s", tc.name, code, exitUsage, tc.want, out, errs)
		}
	}
	// Refused checkpoints are left alone; the original one still resumes.
	restore()
	if code, out, errs := runCLI(base...); code != exitOK {
		t.Errorf("the original checkpoint: got exit %d\n%s%s", code, out, errs)
	}
}

func flip(t *testing.T, path string, off int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[off] ^= 0x20
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func truncate(t *testing.T, path string, n int64) {
	t.Helper()
	if err := os.Truncate(path, n); err != nil {
		t.Fatal(err)
	}
}

// TestCheckpointFolder: writes leave one whole checkpoint, and no temporary folder; a
// folder kmc cannot write in is refused before the search; files kmc did not write are
// left alone.
func TestCheckpointFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cp")
	if err := os.MkdirAll(filepath.Join(dir, ckptTmpPrefix+"stale"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ckptTmpPrefix+"stale", ckptSnapshot), []byte("half"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	stop := stopOn(t)
	saved := checkpointAt
	defer func() { checkpointAt = saved }()
	n := 0
	checkpointAt = func(d int, _ int64) bool {
		if d >= 8 {
			stop()
		}
		n++
		return true // a checkpoint after every segment
	}
	code, out, errs := runCLI("check", spec, "--check", "fixed", "--set", "rms=4", "--workers", "2", "--checkpoint", dir)
	if code != exitIncomplete {
		t.Fatalf("got exit %d\n%s%s", code, out, errs)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"ckpt-" + pad6(n+1), "notes.txt"}; strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("got %v, want %v", names, want)
	}
	if got := strings.Count(errs, "Checkpoint "+dir+"/ckpt-"); got != n+1 {
		t.Errorf("got %d checkpoint lines, want %d\n%s", got, n+1, errs)
	}
	code, _, errs = runCLI("check", spec, "--check", "fixed", "--checkpoint", "/dev/null/cp")
	if code != exitUsage || !strings.Contains(errs, "--checkpoint needs a folder kmc can create and write in") {
		t.Errorf("--checkpoint /dev/null/cp: got exit %d\n%s", code, errs)
	}
}

func pad6(n int) string {
	s := strconv.Itoa(n)
	return strings.Repeat("0", 6-len(s)) + s
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

// FuzzManifest: a manifest parses or is refused with an error naming the line; it never
// panics, and what parses writes back to what parses the same.
func FuzzManifest(f *testing.F) {
	m := &manifest{Version: "kmc (devel) go1.26.0 binary sha256:00", Spec: "specs/twophase.toml", Check: "fixed",
		Config: []string{"model=twophase", "constants.rms=9", "fixes=CommitAfterAllPrepared"}, Level: 12,
		Generated: 123456, Distinct: 23456, Expanded: 20000, Queue: 3456, Elapsed: 1500 * time.Millisecond,
		Written: time.Date(2026, 12, 3, 11, 40, 51, 0, time.UTC), File: ckptSnapshot, Size: 36513595, CRC: 0x1144dfda}
	m.ConfigSum = configSum(m.Config)
	f.Add(m.bytes(), false)
	f.Add(m.bytes()[:50], true)
	f.Add([]byte("kmc checkpoint 1\ncrc32c: 00000000\n"), true)
	crcLine := regexp.MustCompile(`crc32c: [0-9a-f]{8}\n$`)
	f.Fuzz(func(t *testing.T, data []byte, fix bool) {
		if fix {
			// Put a right checksum line at the end, to reach the checks behind it.
			body := crcLine.ReplaceAll(data, nil)
			data = append(body, []byte("crc32c: "+strconv.FormatUint(uint64(crc32Castagnoli(body)), 16))...)
			data = append(data, '\n')
		}
		m, err := parseManifest(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") && !strings.Contains(err.Error(), "newline") && !strings.Contains(err.Error(), "bytes") {
				t.Errorf("error without a line: %v", err)
			}
			return
		}
		again, err := parseManifest(m.bytes())
		if err != nil || again.bytes() == nil || string(again.bytes()) != string(m.bytes()) {
			t.Errorf("written back: %v", err)
		}
	})
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

func crc32Castagnoli(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
