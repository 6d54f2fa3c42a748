package main

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
	"kmc/specs"
)

// Checkpoints (kmc check --checkpoint DIR, --resume DIR). DIR holds the latest checkpoint
// of one check's search as a folder DIR/ckpt-NNNNNN (a sequence number) of two files:
//
//   - search.kmcs, the engine's snapshot (checker.Snapshot: fingerprint set, parent links,
//     frontier, liveness graph, counters; each section with its CRC-32C);
//   - manifest.txt, what it is (see manifest): kmc's version, the spec and check, the
//     resolved configuration and its SHA-256, the counters, and the size and CRC-32C of
//     search.kmcs; its last line is the CRC-32C of the lines before it.
//
// A checkpoint is written into DIR/.tmp-ckpt-*, each file and the folder fsynced, then
// renamed to the next DIR/ckpt-NNNNNN and DIR fsynced, and only then are the older ones
// removed: DIR always holds a whole checkpoint, the newest being the one resumed. kmc
// removes only the files it writes (manifest.txt, search.kmcs) and the folders they leave
// empty.

const (
	ckptPrefix     = "ckpt-"
	ckptTmpPrefix  = ".tmp-ckpt-"
	ckptSnapshot   = "search.kmcs"
	ckptManifest   = "manifest.txt"
	manifestHeader = "kmc checkpoint 1"
	maxManifest    = 1 << 20 // bytes
)

// kmcVersion identifies this kmc: a checkpoint is resumed only by the kmc that wrote it,
// since fingerprints, state encodings and the order of the search may change with the
// code. It names the module version, the Go version, the VCS revision when the build
// recorded one, and the SHA-256 of the executable, which tells apart two builds of a
// modified tree. Tests replace it.
var kmcVersion = sync.OnceValue(func() string {
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

// manifest describes one checkpoint. Its invariants, checked by parseManifest:
//  1. Version, Spec, Check and every Config line are non-empty single lines; Config lines
//     are key=value and ConfigSum is the SHA-256 of Config (configSum).
//  2. The counters are non-negative; Expanded <= Distinct; Level >= 1.
//  3. File is ckptSnapshot.
type manifest struct {
	Version   string
	Spec      string   // the spec file, as given on the command line
	Check     string   // the check's name
	Config    []string // the resolved configuration (searchConfig)
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

// searchConfig is what makes a check's search what it is, one key=value per line: the
// model, every constant and fault budget, the fixes, the properties, and the options that
// change the search (deadlock, symmetry, fairness overrides, max depth). Workers, the state
// limit and the time and memory budgets are not in it: they may change on resume.
func searchConfig(spec *specs.Spec, c *specs.Check, opts checker.Options) []string {
	lines := []string{"model=" + spec.Model}
	for _, group := range []struct {
		prefix string
		params []specs.Param
	}{{"constants.", spec.Family.Constants}, {"faults.", spec.Family.Faults}} {
		for _, p := range group.params {
			if p.Quiet && c.Config.Values[p.Name] == p.Default {
				continue
			}
			lines = append(lines, group.prefix+p.Name+"="+paramValue(p, c.Config.Values[p.Name]))
		}
	}
	fixes := slices.Clone(c.Fixes)
	slices.Sort(fixes)
	if len(fixes) == 0 {
		fixes = []string{"none"}
	}
	if len(c.Mutate) > 0 { // only when set, so that checkpoints of other checks keep their form
		mu := slices.Clone(c.Mutate)
		slices.Sort(mu)
		lines = append(lines, "mutate="+strings.Join(mu, ","))
	}
	lines = append(lines, "fixes="+strings.Join(fixes, ","), "properties="+strings.Join(c.Config.Properties, ","),
		"options.deadlock="+strconv.FormatBool(opts.Deadlock), "options.symmetry="+strconv.FormatBool(opts.Symmetry))
	for _, f := range spec.Fairness {
		lines = append(lines, "fairness."+f.Kind+"="+f.Fairness.String())
	}
	return append(lines, "limits.max_depth="+strconv.Itoa(opts.MaxDepth))
}

func configSum(lines []string) string {
	h := sha256.New()
	for _, l := range lines {
		io.WriteString(h, l+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))
}

// configDiff names each way a checkpoint's configuration (have) differs from this run's.
func configDiff(have, want []string) []string {
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

// bytes is the manifest's text, ending with the CRC-32C line.
func (m *manifest) bytes() []byte {
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

// parseManifest reads a manifest written by manifest.bytes. Every error names the line.
func parseManifest(data []byte) (*manifest, error) {
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
	m := &manifest{}
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
	if got := configSum(m.Config); got != m.ConfigSum {
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
	if len(parts) != 3 || parts[0] != ckptSnapshot || !strings.HasPrefix(parts[2], "crc32c=") {
		return nil, lineErr(n, "file: want %q, got %q", ckptSnapshot+" SIZE crc32c=HEX", shortLine(v))
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

func shortLine(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// checkpoints lists the sequence numbers of the checkpoints in dir, in increasing order.
func checkpoints(dir string) ([]int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var seqs []int
	for _, e := range entries {
		if s, ok := strings.CutPrefix(e.Name(), ckptPrefix); ok && e.IsDir() && len(s) >= 6 {
			if n, err := strconv.Atoi(s); err == nil && n >= 0 {
				seqs = append(seqs, n)
			}
		}
	}
	slices.Sort(seqs)
	return seqs, nil
}

func ckptName(seq int) string { return fmt.Sprintf("%s%06d", ckptPrefix, seq) }

// loadedCheckpoint is the newest checkpoint of a folder, its manifest read and checked.
type loadedCheckpoint struct {
	path string // DIR/ckpt-NNNNNN
	seq  int
	man  *manifest
}

// errNoCheckpoint says that a folder holds no checkpoint.
var errNoCheckpoint = errors.New("holds no checkpoint")

// latestCheckpoint reads the manifest of the newest checkpoint in dir.
func latestCheckpoint(dir string) (*loadedCheckpoint, error) {
	seqs, err := checkpoints(dir)
	if err != nil {
		return nil, err
	}
	if len(seqs) == 0 {
		return nil, fmt.Errorf("%s %w", dir, errNoCheckpoint)
	}
	seq := seqs[len(seqs)-1]
	path := filepath.Join(dir, ckptName(seq))
	file := filepath.Join(path, ckptManifest)
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifest+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	m, err := parseManifest(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &loadedCheckpoint{path: path, seq: seq, man: m}, nil
}

// readSnapshot reads the checkpoint's snapshot, checking its size and CRC-32C against the
// manifest and the snapshot's own checksums.
func (lc *loadedCheckpoint) readSnapshot() (*checker.Snapshot, error) {
	file := filepath.Join(lc.path, lc.man.File)
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() != lc.man.Size {
		return nil, fmt.Errorf("%s: %d bytes, the manifest says %d: the checkpoint is torn", file, st.Size(), lc.man.Size)
	}
	cr := &crcReader{r: bufio.NewReaderSize(f, 1<<20)}
	s, err := checker.ReadSnapshot(cr, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w; the checkpoint is torn or corrupt", file, err)
	}
	if cr.crc != lc.man.CRC {
		return nil, fmt.Errorf("%s: checksum mismatch (manifest %08x, file %08x): the checkpoint is corrupt", file, lc.man.CRC, cr.crc)
	}
	return s, nil
}

type crcReader struct {
	r   io.Reader
	crc uint32
}

func (c *crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.crc = crc32.Update(c.crc, castagnoli, p[:n])
	return n, err
}

type crcWriter struct {
	w   io.Writer
	crc uint32
}

func (c *crcWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.crc = crc32.Update(c.crc, castagnoli, p[:n])
	return n, err
}

// checkpointer writes the checkpoints of one search into a folder.
type checkpointer struct {
	dir  string
	base manifest // version, spec, check and configuration
	seq  int      // of the last checkpoint in dir
	out  *checkOutput
	last string // the last checkpoint written by this run
	err  error  // of the last write that failed
	// resume is the command that goes on with the search.
	resume string
}

// prepareCheckpointDir creates dir if need be, checks that files can be written in it,
// and removes the temporary folders an interrupted write left there. It returns the
// sequence number of its newest checkpoint (-1: none).
func prepareCheckpointDir(dir string) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	probe, err := os.MkdirTemp(dir, ckptTmpPrefix+"*")
	if err != nil {
		return 0, err
	}
	os.Remove(probe)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ckptTmpPrefix) && e.IsDir() {
			removeCheckpoint(filepath.Join(dir, e.Name()))
		}
	}
	seqs, err := checkpoints(dir)
	if err != nil || len(seqs) == 0 {
		return -1, err
	}
	return seqs[len(seqs)-1], nil
}

// removeCheckpoint removes the files kmc writes in a checkpoint folder, then the folder if
// that left it empty.
func removeCheckpoint(path string) {
	os.Remove(filepath.Join(path, ckptSnapshot))
	os.Remove(filepath.Join(path, ckptManifest))
	os.Remove(path)
}

// write writes snapshot s as the folder's next checkpoint (it is Options.Checkpoint). A
// failure is reported and the search goes on.
func (c *checkpointer) write(s *checker.Snapshot) {
	start := time.Now()
	path, size, err := c.writeDir(s)
	if err != nil {
		c.err = err
		c.out.checkpointFailed(err, c.last)
		return
	}
	c.last = path
	c.out.checkpointWritten(path, s, size, time.Since(start))
}

func (c *checkpointer) writeDir(s *checker.Snapshot) (path string, size int64, err error) {
	tmp, err := os.MkdirTemp(c.dir, ckptTmpPrefix+"*")
	if err != nil {
		return "", 0, fmt.Errorf("write checkpoint: %w", err)
	}
	defer func() {
		if err != nil {
			removeCheckpoint(tmp)
		}
	}()
	file := filepath.Join(tmp, ckptSnapshot)
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", 0, fmt.Errorf("write checkpoint: %w", err)
	}
	cw := &crcWriter{w: f}
	size, err = s.WriteTo(cw)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, fmt.Errorf("write %s: %w", file, err)
	}
	m := c.base
	m.Level, m.Generated, m.Distinct, m.Expanded, m.Queue = s.Depth, s.Generated, s.Distinct, s.Expanded, s.Queue
	m.Elapsed, m.Written = s.Elapsed.Round(time.Millisecond), time.Now()
	m.File, m.Size, m.CRC = ckptSnapshot, size, cw.crc
	if err = writeSynced(filepath.Join(tmp, ckptManifest), m.bytes()); err != nil {
		return "", 0, err
	}
	if err = syncDir(tmp); err != nil {
		return "", 0, err
	}
	path = filepath.Join(c.dir, ckptName(c.seq+1))
	if err = os.Rename(tmp, path); err != nil {
		return "", 0, fmt.Errorf("write checkpoint: %w", err)
	}
	c.seq++
	if err := syncDir(c.dir); err != nil {
		return path, size, err
	}
	if seqs, err := checkpoints(c.dir); err == nil {
		for _, n := range seqs {
			if n < c.seq {
				removeCheckpoint(filepath.Join(c.dir, ckptName(n)))
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

// checkpointAt, when set, is passed on as Options.CheckpointAt (tests).
var checkpointAt func(depth int, expanded int64) bool

// setupCheckpoint prepares the checkpoints of check c's search: with --resume, it checks
// that the checkpoint is of this kmc and this search and reads its snapshot into
// opts.Resume; it prepares the folder checkpoints go to (--checkpoint, else the --resume
// folder) and sets opts.Checkpoint. A refusal is reported and returns a nil checkpointer
// and the exit code.
func setupCheckpoint(f *checkFlags, spec *specs.Spec, c *specs.Check, opts *checker.Options, resumed *loadedCheckpoint,
	every time.Duration, out *checkOutput, stderr io.Writer) (*checkpointer, int) {
	config := searchConfig(spec, c, *opts)
	base := manifest{Version: kmcVersion(), Spec: spec.Path, Check: c.Name, Config: config, ConfigSum: configSum(config)}
	dir, flag := f.checkpoint, "--checkpoint"
	if dir == "" {
		dir, flag = f.resume, "--resume"
	}
	seq, err := prepareCheckpointDir(dir)
	if err != nil {
		fmt.Fprintf(stderr, "kmc: check: %s: %v\n", flag, err)
		hint(stderr, flag+" needs a folder kmc can create and write in")
		return nil, exitUsage
	}
	if seq >= 0 && (resumed == nil || !sameFile(dir, f.resume)) {
		fmt.Fprintf(stderr, "kmc: check: --checkpoint: %s already holds a checkpoint (%s)\n", dir, ckptName(seq))
		hint(stderr, "go on with it with --resume "+dir+", or remove it to start over")
		return nil, exitUsage
	}
	if resumed != nil {
		m := resumed.man
		if m.Version != base.Version {
			fmt.Fprintf(stderr, "kmc: check: --resume: %s was written by another kmc:\n  checkpoint: %s\n  this kmc:   %s\n", resumed.path, m.Version, base.Version)
			hint(stderr, "resume it with the kmc that wrote it, or start the search over without --resume")
			return nil, exitUsage
		}
		if diffs := configDiff(m.Config, config); len(diffs) > 0 || m.ConfigSum != base.ConfigSum {
			fmt.Fprintf(stderr, "kmc: check: --resume: %s is of another search (%s, check %s):\n", resumed.path, m.Spec, m.Check)
			for _, d := range diffs {
				fmt.Fprintf(stderr, "  %s\n", d)
			}
			hint(stderr, "resume it with the spec, --set values and flags it was written with, or start the search over without --resume")
			return nil, exitUsage
		}
		snap, err := resumed.readSnapshot()
		if err != nil {
			fmt.Fprintf(stderr, "kmc: check: --resume: %v\n", err)
			hint(stderr, "the checkpoint cannot be used; start the search over without --resume")
			return nil, exitUsage
		}
		opts.Resume = snap
		out.resumed = resumed
	}
	ck := &checkpointer{dir: dir, base: base, seq: max(seq, 0), out: out, resume: resumeCommand(f, spec, c, dir)}
	opts.Checkpoint, opts.CheckpointEvery, opts.CheckpointAt = ck.write, every, checkpointAt
	return ck, exitOK
}

// resumeCommand is the command that goes on with the search of check c from the
// checkpoints in dir: the spec, the check, and what of the configuration came from flags.
func resumeCommand(f *checkFlags, spec *specs.Spec, c *specs.Check, dir string) string {
	args := []string{"kmc", "check", spec.Path, "--check", c.Name}
	for _, s := range f.sets {
		args = append(args, "--set", s)
	}
	if f.maxDepth > 0 {
		args = append(args, "--max-depth", strconv.Itoa(f.maxDepth))
	}
	if f.deadlock {
		args = append(args, "--deadlock")
	}
	if f.symmetry {
		args = append(args, "--symmetry")
	}
	args = append(args, "--resume", dir)
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			args[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(args, " ")
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// finish ends the checkpoints of a search. One that a limit or an interrupt stopped keeps
// them: finish returns the command that goes on with it. A complete one (a verdict, or
// nothing left on the queue) needs them no more: they are removed.
func (c *checkpointer) finish(spec *specs.Spec, chk *specs.Check, res checker.Result) string {
	seqs, err := checkpoints(c.dir)
	if err != nil || len(seqs) == 0 {
		return ""
	}
	if res.Verdict == checker.Incomplete && res.Stats.Queue > 0 {
		return c.resume
	}
	for _, n := range seqs {
		removeCheckpoint(filepath.Join(c.dir, ckptName(n)))
	}
	if !c.out.json {
		fmt.Fprintf(c.out.stderr, "kmc: check: the search is complete; removed its checkpoint from %s\n", c.dir)
	}
	return ""
}

// checkpointWritten reports a checkpoint written (stderr, or a JSON event).
func (o *checkOutput) checkpointWritten(path string, s *checker.Snapshot, size int64, took time.Duration) {
	if o.json {
		o.event(map[string]any{"event": "checkpoint", "path": path, "level": s.Depth, "generated": s.Generated,
			"distinct": s.Distinct, "queue": s.Queue, "bytes": size, "seconds": took.Seconds()})
		return
	}
	fmt.Fprintf(o.stderr, "Checkpoint %s: level %d, %d distinct states found, %d states left on queue; %s written in %s.\n",
		path, s.Depth, s.Distinct, s.Queue, specs.FormatSize(size), specs.FormatElapsed(took))
}

// checkpointFailed reports a checkpoint that could not be written; the search goes on.
func (o *checkOutput) checkpointFailed(err error, last string) {
	was := "no checkpoint was written"
	if last != "" {
		was = "the last one is " + last
	}
	if o.json {
		o.event(map[string]any{"event": "checkpoint_error", "error": err.Error(), "last": last})
	}
	fmt.Fprintf(o.stderr, "kmc: check: --checkpoint: %v; the search goes on (%s)\n", err, was)
}
