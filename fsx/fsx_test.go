//go:build unix

package fsx

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Reference: issue 26: defect 1 (render -o and --dump-graph replaced /dev/null, a FIFO or a
// symlink with a regular file, and failed on long names), defect 5 (temporary files left
// behind after a crash), defects 10 and 12 (a FIFO planted as a checkpoint file, or given
// as a trace, made kmc wait forever; /dev/zero as a trace read without end).

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	for _, p := range []string{file, link} {
		f, fi, err := OpenRegular(p)
		if err != nil || fi.Size() != 5 {
			t.Fatalf("%s: got %v, size %v", p, err, fi)
		}
		f.Close()
	}
	tests := []struct{ path, kind string }{
		{dir, "a directory"},
		{"/dev/zero", "a device"},
		{fifo, "a named pipe"}, // no writer: must not block
	}
	for _, tc := range tests {
		_, _, err := OpenRegular(tc.path)
		want := tc.path + ": not a regular file (" + tc.kind + ")"
		if err == nil || err.Error() != want || !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: got %v, want %s", tc.path, err, want)
		}
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, max := range []int64{10, 100, -1} {
		if b, err := ReadFile(file, max); err != nil || string(b) != "0123456789" {
			t.Errorf("max %d: got %q, %v", max, b, err)
		}
	}
	_, err := ReadFile(file, 9)
	if want := file + ": larger than the limit: 10 bytes or more, the limit is 9"; err == nil || err.Error() != want || !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: got %v, want %s", err, want)
	}
	if _, err := ReadFile("/dev/zero", -1); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/zero: got %v, want not a regular file", err)
	}
}

func TestWriteRegular(t *testing.T) {
	dir := t.TempDir()
	// A new file, with a name of 250 characters (the temporary file's name is short).
	long := filepath.Join(dir, strings.Repeat("n", 250))
	if err := WriteFile(long, []byte("one"), 0o644); err != nil {
		t.Fatalf("long name: %v", err)
	}
	if fi, err := os.Stat(long); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("long name: got %v, %v; want mode 0644", fi, err)
	}
	// An existing file is replaced whole (a new inode) and keeps its mode.
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(file)
	if err := WriteFile(file, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(file)
	if b, _ := os.ReadFile(file); string(b) != "new" || after.Mode().Perm() != 0o600 || os.SameFile(before, after) {
		t.Errorf("replace: got %q, mode %v, same file %v; want new, 0600, a new file", b, after.Mode(), os.SameFile(before, after))
	}
	// A failing fill leaves the file as it was, and no temporary file.
	boom := errors.New("boom")
	if err := Write(file, 0o644, func(w io.Writer) error { w.Write([]byte("half")); return boom }); !errors.Is(err, boom) {
		t.Errorf("failing fill: got %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "new" {
		t.Errorf("failing fill: the file holds %q, want new", b)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".kmc-*")); len(m) != 0 {
		t.Errorf("failing fill: left %v", m)
	}
}

func TestWriteSymlink(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	target := filepath.Join(sub, "target.txt")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	li, _ := os.Lstat(link)
	if b, _ := os.ReadFile(target); li.Mode()&os.ModeSymlink == 0 || string(b) != "new" {
		t.Errorf("got link mode %v, target %q; want a symlink still, its target new", li.Mode(), b)
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "missing"), dangling)
	if err := WriteFile(dangling, []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "a symlink to a missing file") {
		t.Errorf("dangling symlink: got %v", err)
	}
}

func TestWriteInPlace(t *testing.T) {
	// A device stays a device.
	if err := WriteFile("/dev/null", []byte("x"), 0o644); err != nil {
		t.Fatalf("/dev/null: %v", err)
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null: now %v, %v", fi, err)
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		if err := WriteFile("/dev/full", []byte("x"), 0o644); err == nil || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("/dev/full: got %v, want no space left", err)
		}
	}
	dir := t.TempDir()
	// A named pipe: its reader gets the data; without a reader, an error at once.
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	if err := WriteFile(fifo, []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "a named pipe with no reader") {
		t.Errorf("fifo without a reader: got %v", err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := WriteFile(fifo, []byte("through the pipe"), 0o644); err != nil {
		t.Fatalf("fifo: %v", err)
	}
	buf := make([]byte, 64)
	n, _ := r.Read(buf)
	if got := string(buf[:n]); got != "through the pipe" {
		t.Errorf("fifo: the reader got %q", got)
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("fifo: now %v", fi.Mode())
	}
	// A standard stream, here a pipe's write end as /proc/self/fd/N.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	path := "/proc/self/fd/" + strconv.Itoa(int(pw.Fd()))
	if _, err := os.Stat(path); err != nil {
		pw.Close()
		t.Skipf("no %s", path)
	}
	err = WriteFile(path, []byte("to the stream"), 0o644)
	pw.Close()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b, _ := io.ReadAll(pr); string(b) != "to the stream" {
		t.Errorf("stream: got %q", b)
	}
	// A folder is an error.
	if err := WriteFile(dir, []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("folder: got %v", err)
	}
}

// deadPid is the pid of a process that has ended.
func deadPid(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("true: %v", err)
	}
	return cmd.Process.Pid
}

func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	dead := strconv.Itoa(deadPid(t))
	me := strconv.Itoa(os.Getpid())
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := mk("kmc-frontier-" + dead + "-123.spill")
	goneDir := filepath.Join(dir, ".tmp-ckpt-"+dead+"-456")
	os.Mkdir(goneDir, 0o700)
	outside := mk("precious.txt")
	os.Symlink(outside, filepath.Join(goneDir, "link")) // removed, not followed
	keep := []string{
		mk("kmc-frontier-" + me + "-123.spill"),     // this process runs
		mk("kmc-frontier-" + dead + "-123.spilled"), // not the suffix
		mk("kmc-frontier-" + dead + ".spill"),       // no random part
		mk("kmc-frontier-0" + dead + "-1.spill"),    // not a pid as CreateTemp writes it
		mk("kmc-frontier-" + dead + "-12a.spill"),   // not CreateTemp's random part
		outside,
	}
	os.Symlink(outside, filepath.Join(dir, "kmc-frontier-"+dead+"-9.spill"))
	removed, err := RemoveStale(dir, "kmc-frontier-", ".spill")
	if err != nil || len(removed) != 1 || removed[0] != gone {
		t.Errorf("files: removed %v, %v; want %s", removed, err, gone)
	}
	removed, err = RemoveStale(dir, ".tmp-ckpt-", "")
	if err != nil || len(removed) != 1 || removed[0] != goneDir {
		t.Errorf("folders: removed %v, %v; want %s", removed, err, goneDir)
	}
	for _, p := range append(keep, filepath.Join(dir, "kmc-frontier-"+dead+"-9.spill")) {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
	// CreateTemp and MkdirTemp name what they make so that RemoveStale can read the pid.
	f, err := CreateTemp(dir, "kmc-frontier-", ".spill")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if pid, ok := pidOf(filepath.Base(f.Name()), "kmc-frontier-", ".spill"); !ok || pid != os.Getpid() {
		t.Errorf("CreateTemp made %s", f.Name())
	}
	d, err := MkdirTemp(dir, ".tmp-ckpt-")
	if err != nil {
		t.Fatal(err)
	}
	if pid, ok := pidOf(filepath.Base(d), ".tmp-ckpt-", ""); !ok || pid != os.Getpid() {
		t.Errorf("MkdirTemp made %s", d)
	}
}

// TestTrack: RemoveTracked removes what is tracked (a folder with its files) and nothing
// that was forgotten (renamed into place).
func TestTrack(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Mkdir(a, 0o755)
	os.WriteFile(filepath.Join(a, "f"), nil, 0o644)
	os.WriteFile(b, nil, 0o644)
	Track(a)
	Track(b)()
	RemoveTracked()
	if _, err := os.Lstat(a); err == nil {
		t.Errorf("%s: tracked, not removed", a)
	}
	if _, err := os.Lstat(b); err != nil {
		t.Errorf("%s: forgotten, yet removed", b)
	}
}
