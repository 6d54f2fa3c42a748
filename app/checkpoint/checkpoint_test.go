package checkpoint

import (
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func sample() *Manifest {
	m := &Manifest{Version: "kmc (devel) go1.26.0 binary sha256:00", Spec: "specs/twophase.toml", Check: "fixed",
		Config: []string{"model=twophase", "constants.rms=9", "fixes=CommitAfterAllPrepared"}, Level: 12,
		Generated: 123456, Distinct: 23456, Expanded: 20000, Queue: 3456, Elapsed: 1500 * time.Millisecond,
		Written: time.Date(2026, 12, 3, 11, 40, 51, 0, time.UTC), File: SnapshotFile, Size: 36513595, CRC: 0x1144dfda}
	m.ConfigSum = ConfigSum(m.Config)
	return m
}

// FuzzManifest: a manifest parses or is refused with an error naming the line; it never
// panics, and what parses writes back to what parses the same.
func FuzzManifest(f *testing.F) {
	m := sample()
	f.Add(m.Bytes(), false)
	f.Add(m.Bytes()[:50], true)
	f.Add([]byte("kmc checkpoint 1\ncrc32c: 00000000\n"), true)
	crcLine := regexp.MustCompile(`crc32c: [0-9a-f]{8}\n$`)
	f.Fuzz(func(t *testing.T, data []byte, fix bool) {
		if fix {
			// Put a right checksum line at the end, to reach the checks behind it.
			body := crcLine.ReplaceAll(data, nil)
			data = append(body, []byte("crc32c: "+strconv.FormatUint(uint64(crc32.Checksum(body, castagnoli)), 16))...)
			data = append(data, '\n')
		}
		m, err := ParseManifest(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") && !strings.Contains(err.Error(), "newline") && !strings.Contains(err.Error(), "bytes") {
				t.Errorf("error without a line: %v", err)
			}
			return
		}
		again, err := ParseManifest(m.Bytes())
		if err != nil || again.Bytes() == nil || string(again.Bytes()) != string(m.Bytes()) {
			t.Errorf("written back: %v", err)
		}
	})
}

func TestConfigDiff(t *testing.T) {
	have := []string{"model=twophase", "constants.rms=4", "options.deadlock=false"}
	want := []string{"model=twophase", "constants.rms=5", "limits.max_depth=0"}
	got := strings.Join(ConfigDiff(have, want), "\n")
	if w := "constants.rms: 4 in the checkpoint, 5 in this run\n" +
		"options.deadlock: false in the checkpoint, not in this run\n" +
		"limits.max_depth: not in the checkpoint, 0 in this run"; got != w {
		t.Errorf("got\n%s\nwant\n%s", got, w)
	}
}

// TestFolder: PrepareDir removes what an interrupted write left and nothing else, Latest
// finds the newest checkpoint, RemoveAll removes only what this package wrote.
func TestFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cp")
	if seq, err := PrepareDir(dir); err != nil || seq != -1 {
		t.Fatalf("empty folder: got %d, %v; want -1", seq, err)
	}
	if _, err := Latest(dir); err == nil || !strings.Contains(err.Error(), "holds no checkpoint") {
		t.Errorf("Latest of an empty folder: got %v", err)
	}
	for _, p := range []string{tmpPrefix + "stale", Name(1), Name(3)} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m := sample()
	for _, seq := range []int{1, 3} {
		m.Level = seq
		if err := os.WriteFile(filepath.Join(dir, Name(seq), ManifestFile), m.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	if seq, err := PrepareDir(dir); err != nil || seq != 3 {
		t.Fatalf("got %d, %v; want 3", seq, err)
	}
	if _, err := os.Stat(filepath.Join(dir, tmpPrefix+"stale")); err == nil {
		t.Errorf("the stale temporary folder is left")
	}
	cp, err := Latest(dir)
	if err != nil || cp.Seq != 3 || cp.Manifest.Level != 3 || cp.Path != filepath.Join(dir, "ckpt-000003") {
		t.Fatalf("Latest: got %+v, %v", cp, err)
	}
	if had, err := RemoveAll(dir); !had || err != nil {
		t.Errorf("RemoveAll: got %v, %v", had, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "notes.txt" {
		t.Errorf("after RemoveAll: got %v, want notes.txt alone", entries)
	}
}

// TestRemoveAllLeft: a checkpoint that cannot be removed (here a file of the user's in its
// folder) is an error naming it, not a silent success (issue 26, defect 10).
func TestRemoveAllLeft(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, Name(1)), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, Name(1), "mine.txt"), []byte("x"), 0o644)
	had, err := RemoveAll(dir)
	if !had || err == nil || !strings.Contains(err.Error(), Name(1)) {
		t.Errorf("got %v, %v; want an error naming %s", had, err, Name(1))
	}
	if _, err := os.Stat(filepath.Join(dir, Name(1), "mine.txt")); err != nil {
		t.Errorf("the user's file: %v", err)
	}
}

// TestLock: a second Lock of a folder is refused while the first is held, and taken once
// it is released; a symlink or a named pipe planted as the lock file is refused (issue 26,
// defect 10).
func TestLock(t *testing.T) {
	dir := t.TempDir()
	a, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(dir); !errors.Is(err, ErrLocked) {
		t.Errorf("second lock: got %v, want ErrLocked", err)
	}
	a.Close()
	b, err := Lock(dir)
	if err != nil {
		t.Errorf("after release: %v", err)
	} else {
		b.Close()
	}
	for name, plant := range map[string]func(string) error{
		"symlink": func(p string) error { return os.Symlink(filepath.Join(dir, "elsewhere"), p) },
		"fifo":    func(p string) error { return syscall.Mkfifo(p, 0o644) },
	} {
		d := t.TempDir()
		if err := plant(filepath.Join(d, LockName)); err != nil {
			t.Fatal(err)
		}
		if f, err := Lock(d); err == nil {
			f.Close()
			t.Errorf("%s as the lock file: taken, want refused", name)
		}
	}
}
