package traces

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"kmc/fsx"
)

// Reference: issue 26, defect 12 (traces read whole, with no cap: why /dev/zero and replay
// /dev/zero ran out of memory; a 100 MB trace took about 1 GB).

// zeros is an endless reader of zero bytes that fails the test past a GiB.
type zeros struct {
	t    *testing.T
	read int64
}

func (z *zeros) Read(p []byte) (int, error) {
	if z.read += int64(len(p)); z.read > 1<<30 {
		z.t.Fatal("read more than 1 GiB of an endless input")
	}
	clear(p)
	return len(p), nil
}

// TestLoadEndless: an endless input (/dev/zero as a reader) is an error after its first
// bytes, not a read without end.
func TestLoadEndless(t *testing.T) {
	z := &zeros{t: t}
	_, err := LoadITF(z)
	if err == nil || !strings.HasPrefix(err.Error(), "itf: invalid character") {
		t.Errorf("got %v, want an error at the first byte", err)
	}
	if z.read > 1<<20 {
		t.Errorf("read %d bytes, want the parser's first buffer at most", z.read)
	}
	// An endless valid prefix stops at the limit.
	long := io.MultiReader(strings.NewReader(`{"vars":["x"],"states":[{"x":"`), strings.NewReader(strings.Repeat("a", 5000)))
	_, _, err = LoadITFReader(long, LoadOptions{MaxBytes: 1000})
	if want := "itf: the trace is longer than 1000 bytes, the limit for a trace (LoadOptions.MaxBytes)"; err == nil || err.Error() != want {
		t.Errorf("past the limit: got %v, want %s", err, want)
	}
}

// TestLoadITFFile: a file that is not regular is refused without waiting (a named pipe
// with no writer), a file beyond the limit before it is read, and a trace file loads as
// LoadITF loads it.
func TestLoadITFFile(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(filepath.Join("testdata", "safety.itf.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "trace.itf.json")
	os.WriteFile(path, good, 0o644)
	got, _, err := LoadITFFile(path, LoadOptions{})
	want, err2 := LoadITF(bytes.NewReader(good))
	if err != nil || err2 != nil || got == nil || len(got.States) != len(want.States) {
		t.Fatalf("got %v, %v; want the trace", err, err2)
	}
	_, _, err = LoadITFFile(path, LoadOptions{MaxBytes: int64(len(good) - 1)})
	if err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("beyond the limit: got %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, p := range []string{"/dev/zero", fifo, dir} {
		if _, _, err := LoadITFFile(p, LoadOptions{}); !errors.Is(err, fsx.ErrNotRegular) {
			t.Errorf("%s: got %v, want not a regular file", p, err)
		}
	}
}
