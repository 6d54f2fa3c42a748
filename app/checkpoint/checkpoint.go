// Package checkpoint is the on-disk form of a search's checkpoints: a folder DIR that holds
// the latest checkpoint of one check's search as a folder DIR/ckpt-NNNNNN (a sequence
// number) of two files:
//
//   - search.kmcs, the engine's snapshot (checker.Snapshot: fingerprint set, parent links,
//     frontier, liveness graph, counters; each section with its CRC-32C);
//   - manifest.txt, what it is (Manifest): the version of kmc, the spec and check, the
//     resolved configuration and its SHA-256, the counters, and the size and CRC-32C of
//     search.kmcs; its last line is the CRC-32C of the lines before it.
//
// A checkpoint is written into DIR/.tmp-ckpt-*, each file and the folder fsynced, then
// renamed to the next DIR/ckpt-NNNNNN and DIR fsynced, and only then are the older ones
// removed: DIR always holds a whole checkpoint, the newest being the one resumed. Only the
// files this package writes (manifest.txt, search.kmcs) and the folders they leave empty
// are ever removed. A run that writes checkpoints holds DIR/kmc-checkpoint.lock locked
// (Lock), which stays in DIR: a second run is refused while the first holds it. Nothing in
// DIR is followed: a ckpt-* that is a symlink is no checkpoint, the lock is never opened
// through a symlink, and the two files must be regular files.
//
// What the configuration lines say is the caller's (package app writes the spec's model,
// constants, fixes and the options that shape the search); this package stores them,
// checks their checksum and says how two configurations differ (ConfigDiff).
package checkpoint

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"kmc/checker"
	"kmc/fsx"
)

// Names in a checkpoint folder.
const (
	prefix         = "ckpt-"
	tmpPrefix      = ".tmp-ckpt-"
	SnapshotFile   = "search.kmcs"
	ManifestFile   = "manifest.txt"
	manifestHeader = "kmc checkpoint 1"
	maxManifest    = 1 << 20 // bytes
)

// Version identifies this kmc: a checkpoint is resumed only by the kmc that wrote it,
// since fingerprints, state encodings and the order of the search may change with the
// code. It names the module version, the Go version, the VCS revision when the build
// recorded one, and the SHA-256 of the executable, which tells apart two builds of a
// modified tree.
func Version() string { return version() }

var version = sync.OnceValue(func() string {
	v := "kmc"
	if bi, ok := debug.ReadBuildInfo(); ok {
		v += " " + bi.Main.Version
		rev, modified := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if rev != "" {
			if modified {
				rev += "+modified"
			}
			v += " vcs " + rev
		}
	}
	v += " " + runtime.Version()
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				v += " binary sha256:" + hex.EncodeToString(h.Sum(nil))
			}
			f.Close()
		}
	}
	return v
})

// Manifest describes one checkpoint. Its invariants, checked by ParseManifest:
//  1. Version, Spec, Check and every Config line are non-empty single lines; Config lines
//     are key=value and ConfigSum is the SHA-256 of Config (ConfigSum).
//  2. The counters are non-negative; Expanded <= Distinct; Level >= 1.
//  3. File is SnapshotFile.
type Manifest struct {
	Version   string
	Spec      string   // the spec file, as given
	Check     string   // the check's name
	Config    []string // the resolved configuration, key=value
	ConfigSum string   // hex SHA-256 of Config
	Level     int      // the BFS level being expanded
	Generated int64
	Distinct  int64
	Expanded  int64
	Queue     int64
	Elapsed   time.Duration // the search's time so far
	Written   time.Time
	File      string // the snapshot's file name
	Size      int64  // its size
	CRC       uint32 // its CRC-32C
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ConfigSum is the hex SHA-256 of configuration lines, as a manifest records it.
func ConfigSum(lines []string) string {
	h := sha256.New()
	for _, l := range lines {
		io.WriteString(h, l+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ConfigDiff names each way a checkpoint's configuration (have) differs from a run's
// (want), key by key: "constants.rms: 4 in the checkpoint, 5 in this run".
func ConfigDiff(have, want []string) []string {
	value := func(lines []string, key string) (string, bool) {
		for _, l := range lines {
			if k, v, _ := strings.Cut(l, "="); k == key {
				return v, true
			}
		}
		return "", false
	}
	var keys, diffs []string
	for _, l := range append(slices.Clone(have), want...) {
		k, _, _ := strings.Cut(l, "=")
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		a, okA := value(have, k)
		b, okB := value(want, k)
		switch {
		case !okA:
			diffs = append(diffs, k+": not in the checkpoint, "+b+" in this run")
		case !okB:
			diffs = append(diffs, k+": "+a+" in the checkpoint, not in this run")
		case a != b:
			diffs = append(diffs, k+": "+a+" in the checkpoint, "+b+" in this run")
		}
	}
	return diffs
}

// Bytes is the manifest's text, ending with the CRC-32C line.
func (m *Manifest) Bytes() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n", manifestHeader)
	fmt.Fprintf(&b, "version: %s\n", m.Version)
	fmt.Fprintf(&b, "spec: %s\n", m.Spec)
	fmt.Fprintf(&b, "check: %s\n", m.Check)
	fmt.Fprintf(&b, "config-sha256: %s\n", m.ConfigSum)
	for _, l := range m.Config {
		fmt.Fprintf(&b, "config: %s\n", l)
	}
	fmt.Fprintf(&b, "level: %d\n", m.Level)
	fmt.Fprintf(&b, "generated: %d\n", m.Generated)
	fmt.Fprintf(&b, "distinct: %d\n", m.Distinct)
	fmt.Fprintf(&b, "expanded: %d\n", m.Expanded)
	fmt.Fprintf(&b, "queue: %d\n", m.Queue)
	fmt.Fprintf(&b, "elapsed: %s\n", m.Elapsed)
	fmt.Fprintf(&b, "written: %s\n", m.Written.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "file: %s %d crc32c=%08x\n", m.File, m.Size, m.CRC)
	fmt.Fprintf(&b, "crc32c: %08x\n", crc32.Checksum(b.Bytes(), castagnoli))
	return b.Bytes()
}

// ParseManifest reads a manifest written by Manifest.Bytes. Every error names the line.
func ParseManifest(data []byte) (*Manifest, error) {
	if len(data) > maxManifest {
		return nil, fmt.Errorf("%d bytes, more than a manifest holds (%d)", len(data), maxManifest)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return nil, errors.New("does not end with a newline: it is torn")
	}
	lines := strings.Split(string(data[:len(data)-1]), "\n")
	last := lines[len(lines)-1]
	body := data[:len(data)-len(last)-1]
	lineErr := func(n int, format string, args ...any) error {
		return fmt.Errorf("line %d: "+format, append([]any{n}, args...)...)
	}
	crcText, ok := strings.CutPrefix(last, "crc32c: ")
	if !ok {
		return nil, lineErr(len(lines), "want the crc32c line last, got %q: the manifest is torn", shortLine(last))
	}
	crc, err := strconv.ParseUint(crcText, 16, 32)
	if err != nil || len(crcText) != 8 {
		return nil, lineErr(len(lines), "crc32c: want 8 hex digits, got %q", shortLine(crcText))
	}
	if got := crc32.Checksum(body, castagnoli); got != uint32(crc) {
		return nil, lineErr(len(lines), "checksum mismatch (stored %08x, computed %08x): the manifest is corrupt", crc, got)
	}
	m := &Manifest{}
	n := 0
	next := func(key string) (string, error) {
		n++
		if n > len(lines)-1 {
			return "", lineErr(n, "want %q, got the end of the manifest", key)
		}
		l := lines[n-1]
		if key == "" {
			return l, nil
		}
		v, ok := strings.CutPrefix(l, key+": ")
		if !ok || v == "" {
			return "", lineErr(n, "want %q, got %q", key+": ...", shortLine(l))
		}
		return v, nil
	}
	if l, _ := next(""); l != manifestHeader {
		return nil, lineErr(1, "want %q, got %q: not a kmc checkpoint manifest, or of another format", manifestHeader, shortLine(l))
	}
	for _, f := range []struct {
		key string
		to  *string
	}{{"version", &m.Version}, {"spec", &m.Spec}, {"check", &m.Check}, {"config-sha256", &m.ConfigSum}} {
		if *f.to, err = next(f.key); err != nil {
			return nil, err
		}
	}
	for n < len(lines)-1 && strings.HasPrefix(lines[n], "config: ") {
		l, _ := next("config")
		if k, _, ok := strings.Cut(l, "="); !ok || k == "" {
			return nil, lineErr(n, "config: want key=value, got %q", shortLine(l))
		}
		m.Config = append(m.Config, l)
	}
	if len(m.Config) == 0 {
		return nil, lineErr(n+1, "want the configuration (config: key=value lines)")
	}
	if got := ConfigSum(m.Config); got != m.ConfigSum {
		return nil, lineErr(5, "config-sha256 %s is not the SHA-256 of the config lines (%s)", shortLine(m.ConfigSum), got)
	}
	num := func(key string, max int64) (int64, error) {
		v, err := next(key)
		if err != nil {
			return 0, err
		}
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil || x < 0 || x > max {
			return 0, lineErr(n, "%s: want a count from 0 to %d, got %q", key, max, shortLine(v))
		}
		return x, nil
	}
	level, err := num("level", 1<<31)
	if err != nil {
		return nil, err
	}
	if level < 1 {
		return nil, lineErr(n, "level: want at least 1, got 0")
	}
	m.Level = int(level)
	for _, f := range []struct {
		key string
		to  *int64
	}{{"generated", &m.Generated}, {"distinct", &m.Distinct}, {"expanded", &m.Expanded}, {"queue", &m.Queue}} {
		if *f.to, err = num(f.key, 1<<62); err != nil {
			return nil, err
		}
	}
	if m.Expanded > m.Distinct {
		return nil, lineErr(n-1, "expanded: %d states expanded of %d distinct", m.Expanded, m.Distinct)
	}
	v, err := next("elapsed")
	if err != nil {
		return nil, err
	}
	if m.Elapsed, err = time.ParseDuration(v); err != nil || m.Elapsed < 0 {
		return nil, lineErr(n, "elapsed: want a duration, got %q", shortLine(v))
	}
	if v, err = next("written"); err != nil {
		return nil, err
	}
	if m.Written, err = time.Parse(time.RFC3339, v); err != nil {
		return nil, lineErr(n, "written: want an RFC 3339 time, got %q", shortLine(v))
	}
	if v, err = next("file"); err != nil {
		return nil, err
	}
	parts := strings.Split(v, " ")
	if len(parts) != 3 || parts[0] != SnapshotFile || !strings.HasPrefix(parts[2], "crc32c=") {
		return nil, lineErr(n, "file: want %q, got %q", SnapshotFile+" SIZE crc32c=HEX", shortLine(v))
	}
	m.File = parts[0]
	if m.Size, err = strconv.ParseInt(parts[1], 10, 64); err != nil || m.Size < 0 {
		return nil, lineErr(n, "file: size: want a byte count, got %q", shortLine(parts[1]))
	}
	c, err := strconv.ParseUint(strings.TrimPrefix(parts[2], "crc32c="), 16, 32)
	if err != nil || len(parts[2]) != len("crc32c=")+8 {
		return nil, lineErr(n, "file: crc32c: want 8 hex digits, got %q", shortLine(parts[2]))
	}
	m.CRC = uint32(c)
	if n != len(lines)-1 {
		return nil, lineErr(n+1, "unexpected %q after the file line", shortLine(lines[n]))
	}
	return m, nil
}

// matches checks that the manifest's counters are the snapshot's, as Writer.Write records
// them: a manifest edited with its checksum recomputed is refused.
func (m *Manifest) matches(s *checker.Snapshot) error {
	for _, c := range []struct {
		key        string
		have, want int64
	}{{"level", int64(m.Level), int64(s.Depth)}, {"generated", m.Generated, s.Generated}, {"distinct", m.Distinct, s.Distinct},
		{"expanded", m.Expanded, s.Expanded}, {"queue", m.Queue, s.Queue}} {
		if c.have != c.want {
			return fmt.Errorf("%s: %d in the manifest, %d in the snapshot", c.key, c.have, c.want)
		}
	}
	if d := m.Elapsed - s.Elapsed.Round(time.Millisecond); d != 0 {
		return fmt.Errorf("elapsed: %s in the manifest, %s in the snapshot", m.Elapsed, s.Elapsed.Round(time.Millisecond))
	}
	return nil
}

func shortLine(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// List lists the sequence numbers of the checkpoints in dir, in increasing order.
func List(dir string) ([]int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var seqs []int
	for _, e := range entries {
		if s, ok := strings.CutPrefix(e.Name(), prefix); ok && e.IsDir() && len(s) >= 6 {
			if n, err := strconv.Atoi(s); err == nil && n >= 0 {
				seqs = append(seqs, n)
			}
		}
	}
	slices.Sort(seqs)
	return seqs, nil
}

// Name is the name of checkpoint seq in its folder: "ckpt-000001".
func Name(seq int) string { return fmt.Sprintf("%s%06d", prefix, seq) }

// Checkpoint is the newest checkpoint of a folder, its manifest read and checked.
type Checkpoint struct {
	Path     string // DIR/ckpt-NNNNNN
	Seq      int
	Manifest *Manifest
}

// ErrNone says that a folder holds no checkpoint.
var ErrNone = errors.New("holds no checkpoint")

// Latest reads the manifest of the newest checkpoint in dir.
func Latest(dir string) (*Checkpoint, error) {
	seqs, err := List(dir)
	if err != nil {
		return nil, err
	}
	if len(seqs) == 0 {
		return nil, fmt.Errorf("%s %w", dir, ErrNone)
	}
	seq := seqs[len(seqs)-1]
	path := filepath.Join(dir, Name(seq))
	file := filepath.Join(path, ManifestFile)
	f, _, err := fsx.OpenOwn(file) // a named pipe planted there is refused, not waited on
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifest+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	m, err := ParseManifest(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &Checkpoint{Path: path, Seq: seq, Manifest: m}, nil
}

// ReadSnapshot reads the checkpoint's snapshot, checking its size and CRC-32C against the
// manifest and the snapshot's own checksums.
func (cp *Checkpoint) ReadSnapshot() (*checker.Snapshot, error) {
	file := filepath.Join(cp.Path, cp.Manifest.File)
	f, st, err := fsx.OpenOwn(file) // a named pipe planted there is refused, not waited on
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() != cp.Manifest.Size {
		return nil, fmt.Errorf("%s: %d bytes, the manifest says %d: the checkpoint is torn", file, st.Size(), cp.Manifest.Size)
	}
	crc := crc32.New(castagnoli)
	s, err := checker.ReadSnapshot(io.TeeReader(bufio.NewReaderSize(f, 1<<20), crc), st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w; the checkpoint is torn or corrupt", file, err)
	}
	if crc.Sum32() != cp.Manifest.CRC {
		return nil, fmt.Errorf("%s: checksum mismatch (manifest %08x, file %08x): the checkpoint is corrupt", file, cp.Manifest.CRC, crc.Sum32())
	}
	if err := cp.Manifest.matches(s); err != nil {
		return nil, fmt.Errorf("%s: %w: the checkpoint is forged or corrupt", filepath.Join(cp.Path, ManifestFile), err)
	}
	return s, nil
}

// PrepareDir creates dir if need be, checks that files can be written in it, and removes
// the temporary folders an interrupted write left there. It returns the sequence number of
// its newest checkpoint (-1: none).
func PrepareDir(dir string) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	probe, err := os.MkdirTemp(dir, tmpPrefix+"*")
	if err != nil {
		return 0, err
	}
	os.Remove(probe)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tmpPrefix) && e.IsDir() {
			remove(filepath.Join(dir, e.Name()))
		}
	}
	seqs, err := List(dir)
	if err != nil || len(seqs) == 0 {
		return -1, err
	}
	return seqs[len(seqs)-1], nil
}

// remove removes the files this package writes in a checkpoint folder, then the folder if
// that left it empty.
func remove(path string) {
	os.Remove(filepath.Join(path, SnapshotFile))
	os.Remove(filepath.Join(path, ManifestFile))
	os.Remove(path)
}

// RemoveAll removes every checkpoint of dir (the files this package wrote, and the folders
// they leave empty), and reports whether there was one, and an error naming what is left
// when one could not be removed (a read-only file system, a file of the user's in it).
func RemoveAll(dir string) (bool, error) {
	seqs, err := List(dir)
	if err != nil || len(seqs) == 0 {
		return false, nil
	}
	for _, n := range seqs {
		remove(filepath.Join(dir, Name(n)))
	}
	left, err := List(dir)
	if err == nil && len(left) > 0 {
		path := filepath.Join(dir, Name(left[0]))
		err = fmt.Errorf("%s is still there", path)
		if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = rerr
		}
	}
	return true, err
}

// LockName is the file of a checkpoint folder that a run writing checkpoints there holds
// locked (flock), so that a second one is refused.
const LockName = "kmc-checkpoint.lock"

// ErrLocked is the error, wrapped, of Lock for a folder another kmc writes checkpoints to.
var ErrLocked = fsx.ErrLocked

// Lock takes the lock of checkpoint folder dir (created if need be), LockName, which
// stays there; closing the file returned releases it, and so does the end of the process.
func Lock(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return fsx.Lock(filepath.Join(dir, LockName))
}

// Writer writes the checkpoints of one search into a folder prepared by PrepareDir.
type Writer struct {
	dir  string
	base Manifest // version, spec, check and configuration
	seq  int      // of the last checkpoint in dir
}

// NewWriter writes checkpoints into dir after its checkpoint seq (-1: none), each with the
// manifest base (its version, spec, check and configuration) and the snapshot's counters.
func NewWriter(dir string, base Manifest, seq int) *Writer {
	return &Writer{dir: dir, base: base, seq: max(seq, 0)}
}

// Write writes snapshot s as the folder's next checkpoint and removes the older ones. It
// returns the checkpoint's path and the snapshot's size in bytes.
func (w *Writer) Write(s *checker.Snapshot) (path string, size int64, err error) {
	tmp, err := fsx.MkdirTemp(w.dir, tmpPrefix) // .tmp-ckpt-PID-*
	if err != nil {
		return "", 0, fmt.Errorf("write checkpoint: %w", err)
	}
	defer fsx.Track(tmp)() // removed on a second interrupt
	defer func() {
		if err != nil {
			remove(tmp)
		}
	}()
	file := filepath.Join(tmp, SnapshotFile)
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", 0, fmt.Errorf("write checkpoint: %w", err)
	}
	crc := crc32.New(castagnoli)
	size, err = s.WriteTo(io.MultiWriter(f, crc))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, fmt.Errorf("write %s: %w", file, err)
	}
	m := w.base
	m.Level, m.Generated, m.Distinct, m.Expanded, m.Queue = s.Depth, s.Generated, s.Distinct, s.Expanded, s.Queue
	m.Elapsed, m.Written = s.Elapsed.Round(time.Millisecond), time.Now()
	m.File, m.Size, m.CRC = SnapshotFile, size, crc.Sum32()
	if err = writeSynced(filepath.Join(tmp, ManifestFile), m.Bytes()); err != nil {
		return "", 0, err
	}
	if err = syncDir(tmp); err != nil {
		return "", 0, err
	}
	path = filepath.Join(w.dir, Name(w.seq+1))
	if err = os.Rename(tmp, path); err != nil {
		return "", 0, fmt.Errorf("write checkpoint: %w", err)
	}
	w.seq++
	if err := syncDir(w.dir); err != nil {
		return path, size, err
	}
	if seqs, err := List(w.dir); err == nil {
		for _, n := range seqs {
			if n < w.seq {
				remove(filepath.Join(w.dir, Name(n)))
			}
		}
	}
	return path, size, nil
}

// writeSynced writes a new file and fsyncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// syncDir fsyncs a folder, so that the names created or renamed in it last.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	err = f.Sync()
	f.Close()
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
