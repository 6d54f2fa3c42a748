package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"

	"kmc/app/checkpoint"
	"kmc/checker"
	"kmc/specs"
)

// Reference: issue 11, "Long runs": Check with Checkpoint writes checkpoints of the search
// and Resume goes on with it, to the same counts, depth, verdict and counterexample as a
// run never stopped, with any number of workers on either side; a checkpoint of another
// kmc, spec, check or configuration, or a torn or corrupt one, is refused, never used.

const (
	twophase   = "../specs/twophase.toml"
	kafka14154 = "../specs/kafka-14154.toml"
)

func load(t *testing.T, path string, sets ...string) *specs.Spec {
	t.Helper()
	spec, err := specs.Load(path, sets)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// stopAt is a context cancelled, and a CheckpointAt that cancels it, once the search
// has expanded a level at or beyond depth (the engine then takes its last checkpoint).
func stopAt(depth int) (context.Context, func(int, int64) bool) {
	ctx, cancel := context.WithCancel(context.Background())
	return ctx, func(d int, _ int64) bool {
		if d >= depth {
			cancel()
		}
		return false
	}
}

// same says how two results of one search differ, leaving out what may: the workers, the
// time, the memory estimate.
func same(got, want checker.Result) string {
	g, w := got, want
	for _, r := range []*checker.Result{&g, &w} {
		r.Stats.Workers, r.Stats.Elapsed, r.Stats.MemoryBytes, r.Stats.Collision = 0, 0, 0, 0
		r.Vacuous, r.Taken = nil, nil // a resumed search saw part of the steps
	}
	if !reflect.DeepEqual(g, w) {
		return "got " + describe(g) + ", want " + describe(w)
	}
	return ""
}

func describe(r checker.Result) string {
	return fmt.Sprintf("%s(%s) %q, %+v, trace of %d states", r.Verdict, r.Property, r.Reason, r.Stats, traceLen(r))
}

// traceLen is the length of a result's trace, or 0.
func traceLen(r checker.Result) int {
	if r.Trace == nil {
		return 0
	}
	return len(r.Trace.States)
}

func TestCheckpointResume(t *testing.T) {
	tests := []struct {
		name  string
		spec  string
		check string
		sets  []string
		depth int // where the first run is interrupted
	}{
		{"twophase-ok", twophase, "fixed", []string{"rms=5"}, 8},
		{"twophase-violated", twophase, "buggy", []string{"rms=5"}, 3},
		// Liveness: the recorded graph goes into the checkpoint.
		{"kafka-14154-violated", kafka14154, "buggy", nil, 6},
		{"kafka-14154-ok", kafka14154, "fixed", nil, 5},
	}
	for _, tc := range tests {
		spec := load(t, tc.spec, tc.sets...)
		want, err := Check(context.Background(), spec, tc.check, CheckOptions{Search: Search{Workers: 1}})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{1, 2, 4} {
			dir := filepath.Join(t.TempDir(), "cp")
			ctx, at := stopAt(tc.depth)
			got, err := Check(ctx, spec, tc.check, CheckOptions{Search: Search{Workers: w}, Checkpoint: dir, CheckpointAt: at})
			if err != nil || !got.Interrupted || !got.Resumable || got.Checkpoint != dir {
				t.Fatalf("%s w=%d: interrupted: got %+v, %v; want interrupted and resumable from %s", tc.name, w, got, err, dir)
			}
			if seqs, _ := checkpoint.List(dir); len(seqs) != 1 {
				t.Fatalf("%s w=%d: got checkpoints %v, want one", tc.name, w, seqs)
			}
			for _, rw := range []int{w, 2} {
				if rw == w && w == 2 {
					continue
				}
				keep := filepath.Join(t.TempDir(), "keep")
				copyDir(t, dir, keep)
				var resumed *checkpoint.Checkpoint
				got, err := Check(context.Background(), spec, "", CheckOptions{Search: Search{Workers: rw}, Resume: keep,
					OnEvent: func(e Event) {
						if s, ok := e.(CheckStarted); ok {
							resumed = s.Resumed
						}
					}})
				if err != nil {
					t.Fatalf("%s: written with %d workers, resumed with %d: %v", tc.name, w, rw, err)
				}
				if resumed == nil || resumed.Path != filepath.Join(keep, "ckpt-000001") || got.Interrupted {
					t.Errorf("%s: resumed from %+v, interrupted %v; want %s/ckpt-000001", tc.name, resumed, got.Interrupted, keep)
				}
				if d := same(got.Result, want.Result); d != "" {
					t.Errorf("%s: written with %d workers, resumed with %d: %s", tc.name, w, rw, d)
				}
				// The search is complete: its checkpoint is removed.
				if seqs, _ := checkpoint.List(keep); len(seqs) != 0 || !got.CheckpointRemoved || got.Resumable {
					t.Errorf("%s: after a complete search: got checkpoints %v, removed %v", tc.name, seqs, got.CheckpointRemoved)
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

// fifo replaces path with a named pipe that nobody writes.
func fifo(t *testing.T, path string) {
	t.Helper()
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// interruptedCheckpoint leaves a checkpoint of twophase's fixed check (rms=4) in a new
// folder and returns the folder and the checkpoint in it.
func interruptedCheckpoint(t *testing.T) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cp")
	ctx, at := stopAt(5)
	res, err := Check(ctx, load(t, twophase, "rms=4"), "fixed", CheckOptions{Search: Search{Workers: 1}, Checkpoint: dir, CheckpointAt: at})
	if err != nil || !res.Resumable {
		t.Fatalf("interrupted: got %+v, %v", res, err)
	}
	return dir, filepath.Join(dir, "ckpt-000001")
}

func TestResumeRefused(t *testing.T) {
	dir, ck := interruptedCheckpoint(t)
	manifestPath := filepath.Join(ck, checkpoint.ManifestFile)
	snapPath := filepath.Join(ck, checkpoint.SnapshotFile)
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
			os.Remove(p) // a named pipe planted there, too
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// rewrite changes the manifest and writes it back with a right checksum.
	rewrite := func(edit func(m *checkpoint.Manifest)) {
		m, err := checkpoint.ParseManifest(orig[manifestPath])
		if err != nil {
			t.Fatal(err)
		}
		edit(m)
		if err := os.WriteFile(manifestPath, m.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rms4 := load(t, twophase, "rms=4")
	resume := CheckOptions{Search: Search{Workers: 1}, Resume: dir}
	var (
		another *OtherCheckError
		search  *OtherSearchError
		version *OtherVersionError
		taken   *CheckpointTakenError
		resumeE *ResumeError
		dirE    *CheckpointDirError
	)
	tests := []struct {
		name   string
		spec   *specs.Spec
		check  string
		opts   CheckOptions
		damage func()
		as     any // the error's type, for errors.As
		want   string
	}{
		{"constant", load(t, twophase, "rms=5"), "", resume, nil, &search,
			"is of another search (" + twophase + ", check fixed):\n  constants.rms: 4 in the checkpoint, 5 in this run"},
		{"option", rms4, "", CheckOptions{Search: Search{Deadlock: true}, Resume: dir}, nil, &search,
			"  options.deadlock: false in the checkpoint, true in this run"},
		{"max depth", rms4, "", CheckOptions{Search: Search{MaxDepth: 20}, Resume: dir}, nil, &search,
			"  limits.max_depth: 0 in the checkpoint, 20 in this run"},
		{"check", rms4, "buggy", resume, nil, &another, "/ckpt-000001 is of check fixed, not buggy"},
		{"spec", load(t, kafka14154), "", resume, nil, &search, "  model: twophase in the checkpoint, kafka in this run\n"},
		{"version", rms4, "", resume, func() { rewrite(func(m *checkpoint.Manifest) { m.Version = "kmc v0.0.1 go1.20" }) }, &version,
			"was written by another kmc:\n  checkpoint: kmc v0.0.1 go1.20\n  this kmc:   " + checkpoint.Version()},
		{"manifest byte", rms4, "", resume, func() { flip(t, manifestPath, 40) }, &resumeE, "manifest.txt: line 21: checksum mismatch (stored"},
		{"manifest torn", rms4, "", resume, func() { truncate(t, manifestPath, 100) }, &resumeE, "manifest.txt: does not end with a newline: it is torn"},
		{"manifest config", rms4, "", resume, func() { rewrite(func(m *checkpoint.Manifest) { m.Config[1] = "constants.rms=5" }) }, &resumeE, "config-sha256"},
		{"snapshot torn", rms4, "", resume, func() { truncate(t, snapPath, 1000) }, &resumeE, "search.kmcs: 1000 bytes, the manifest says"},
		{"snapshot byte", rms4, "", resume, func() { flip(t, snapPath, len(orig[snapPath])/2) }, &resumeE, "; the checkpoint is torn or corrupt"},
		{"snapshot last byte", rms4, "", resume, func() { flip(t, snapPath, len(orig[snapPath])-1) }, &resumeE, "section END_: checksum mismatch"},
		{"snapshot swapped", rms4, "", resume, func() {
			// A whole snapshot, right in itself, that is not the manifest's.
			rewrite(func(m *checkpoint.Manifest) { m.CRC ^= 1 })
		}, &resumeE, "checksum mismatch (manifest"},
		{"no checkpoint", rms4, "", CheckOptions{Resume: t.TempDir()}, nil, &resumeE, "holds no checkpoint"},
		// Issue 26, defect 11: a manifest edited with its checksum recomputed (level 999,
		// 2^62 states generated) was trusted on main; its counters must be the snapshot's.
		{"manifest level forged", rms4, "", resume, func() { rewrite(func(m *checkpoint.Manifest) { m.Level = 999 }) }, &resumeE,
			"manifest.txt: level: 999 in the manifest, "},
		{"manifest generated forged", rms4, "", resume, func() { rewrite(func(m *checkpoint.Manifest) { m.Generated = 1 << 62 }) }, &resumeE,
			"generated: 4611686018427387904 in the manifest, "},
		{"manifest queue forged", rms4, "", resume, func() { rewrite(func(m *checkpoint.Manifest) { m.Queue++ }) }, &resumeE,
			"the checkpoint is forged or corrupt"},
		// Issue 26, defect 10: a named pipe planted as a checkpoint's file made --resume
		// hang on main; it is refused at once.
		{"manifest fifo", rms4, "", resume, func() { fifo(t, manifestPath) }, &resumeE, "manifest.txt: not a regular file (a named pipe)"},
		{"snapshot fifo", rms4, "", resume, func() { fifo(t, snapPath) }, &resumeE, "search.kmcs: not a regular file (a named pipe)"},
		// Nothing in a checkpoint folder is followed: a symlink as search.kmcs (to the
		// very snapshot it replaced) is refused.
		{"snapshot symlink", rms4, "", resume, func() {
			other := filepath.Join(t.TempDir(), "search.kmcs")
			os.WriteFile(other, orig[snapPath], 0o644)
			os.Remove(snapPath)
			os.Symlink(other, snapPath)
		}, &resumeE, "search.kmcs: not a regular file (a symlink)"},
		{"checkpoint taken", rms4, "fixed", CheckOptions{Checkpoint: dir}, nil, &taken, "already holds a checkpoint (ckpt-000001)"},
		{"checkpoint unwritable", rms4, "fixed", CheckOptions{Checkpoint: "/dev/null/cp"}, nil, &dirE, "not a directory"},
		{"coverage", rms4, "", CheckOptions{Coverage: true, Resume: dir}, nil, nil, ErrCoverageResumed.Error()},
	}
	for _, tc := range tests {
		restore()
		if tc.damage != nil {
			tc.damage()
		}
		started := false
		tc.opts.OnEvent = func(e Event) { started = started || reflect.TypeOf(e) == reflect.TypeOf(CheckStarted{}) }
		res, err := Check(context.Background(), tc.spec, tc.check, tc.opts)
		switch {
		case err == nil || res != nil || started:
			t.Errorf("%s: got %+v, %v (started %v); want a refusal before the search", tc.name, res, err, started)
		case tc.as != nil && !errors.As(err, tc.as):
			t.Errorf("%s: got %T %v, want a %T", tc.name, err, err, tc.as)
		case !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: got %q, want it to hold %q", tc.name, err, tc.want)
		}
	}
	// Refused checkpoints are left alone; the original one still resumes.
	restore()
	if res, err := Check(context.Background(), rms4, "", resume); err != nil || res.Verdict != checker.OK {
		t.Errorf("the original checkpoint: got %+v, %v", res, err)
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

// TestCheckpointFolder: writes leave one whole checkpoint, and no temporary folder; files
// kmc did not write are left alone; each checkpoint is reported.
func TestCheckpointFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cp")
	if err := os.MkdirAll(filepath.Join(dir, ".tmp-ckpt-stale"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".tmp-ckpt-stale", checkpoint.SnapshotFile), []byte("half"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	var mu sync.Mutex
	var written []string
	res, err := Check(ctx, load(t, twophase, "rms=4"), "fixed", CheckOptions{Search: Search{Workers: 2}, Checkpoint: dir,
		CheckpointAt: func(d int, _ int64) bool {
			if d >= 8 {
				cancel()
			}
			n++
			return true // a checkpoint after every segment
		},
		OnEvent: func(e Event) {
			if w, ok := e.(CheckpointWritten); ok {
				mu.Lock()
				written = append(written, w.Path)
				mu.Unlock()
			}
		}})
	if err != nil || !res.Interrupted {
		t.Fatalf("got %+v, %v", res, err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// The lock file stays (a run holds it locked while it writes checkpoints there).
	if want := []string{checkpoint.Name(n + 1), checkpoint.LockName, "notes.txt"}; strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("got %v, want %v", names, want)
	}
	if len(written) != n+1 || written[n] != filepath.Join(dir, checkpoint.Name(n+1)) {
		t.Errorf("got %d checkpoints reported (%v), want %d", len(written), written, n+1)
	}
}
