package traces

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"kmc/checker"
	"kmc/fsx"
)

// Files of an output folder, in the order WriteAll lists them. The trace graph (one box of
// variables per state) is written as trace.dot only: drawn, it is boxes of TLA+ text a
// reader cannot follow; kmc render --format svg or png draws it on demand. The pictures
// are the sequence chart, the views and the report.
var outputFiles = []string{"trace.txt", "trace.itf.json", "trace.dot", "sequence.svg", "sequence.png", "report.html"}

// viewsFile is the picture of the last state's views, written after the others when the
// trace has the views WriteOptions.Views selects.
const viewsFile = "views.png"

// The files written for a trace too long to draw (MaxPictureStates): the text forms.
var textFiles = []string{"trace.txt", "trace.itf.json", "trace.dot"}

// ManifestName is the file of an output folder that lists, one name a line after a
// comment, the files kmc wrote there. kmc replaces or removes a folder only when every
// file in it is listed in its manifest: it never deletes what it did not write.
const ManifestName = "kmc-manifest.txt"

const manifestHeader = "# Written by kmc check --out. kmc replaces this folder only while it holds nothing but\n" +
	"# the files listed below; add a file of your own and kmc refuses to touch it (see README).\n" +
	"# kmc-manifest 2: SIZE SHA-256 NAME per file; a file whose content changed is kept.\n"

// manifestIdentity starts the manifest's last line: the device and inode kmc wrote it as.
// A manifest that is not that file (a copy, a symlink, one written by hand) is not kmc's.
const manifestIdentity = "# identity: "

// asidePrefix names the folder, beside DIR, that a previous DIR is moved into: kept when it
// holds files kmc did not write (WriteOptions.Force), removed once emptied otherwise.
const asidePrefix = "kmc-previous-"

// WriteOptions control WriteAll.
type WriteOptions struct {
	FullStates bool // trace.txt prints every variable of every state
	// Views are the views trace.txt prints after each state; the ITF file records them
	// (kmc::view) for kmc render.
	Views ViewSelection
	// Params, when not nil, names the actions' arguments in the sequence chart and the
	// report (the model's ActionParamNamer).
	Params ActionParamNamer
	// Force lets WriteAll replace a DIR that holds files kmc did not write: that folder is
	// moved, whole, to DIR's parent/kmc-previous-*/ and kept; nothing is deleted.
	Force bool
	// Stop, when closed (an interrupt), ends the drawing of the pictures: the files
	// rendered so far (the text forms first) are written, and WriteAll's error wraps
	// ErrPicturesStopped. A picture being drawn is finished first (a second or two).
	Stop <-chan struct{}
	// Config is the configuration the trace was made with, which trace.itf.json records
	// (ITFOptions.Config); nil records none.
	Config *RunConfig
}

// ErrPicturesStopped is the error, wrapped, of WriteAll when WriteOptions.Stop ended the
// drawing of the pictures: the files written are the text forms and the pictures drawn.
var ErrPicturesStopped = errors.New("interrupted while drawing the pictures")

// Written is what WriteAll did.
type Written struct {
	Paths []string // the files written, manifest excluded
	Aside string   // where the previous DIR went, when it held files kmc did not write; or ""
}

// ErrNotKmcOutput is the error (wrapped) for a DIR that holds files kmc did not write.
var ErrNotKmcOutput = errors.New("holds files kmc did not write")

// PrepareDir checks, before a search, that WriteAll can write dir: its parent is (or is
// made) a folder kmc can create dir in, and dir is absent, empty, or kmc's own output (every
// file listed in its manifest) unless force. It creates the parent and leaves no trace
// beside: a probe folder it makes and removes. It touches nothing inside dir.
func PrepareDir(dir string, force bool) error {
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	probe, err := os.MkdirTemp(parent, ".kmc-probe-*")
	if err != nil {
		return err
	}
	err = os.Mkdir(filepath.Join(probe, filepath.Base(dir)), 0o755)
	os.Remove(filepath.Join(probe, filepath.Base(dir)))
	os.Remove(probe)
	if err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, errors.Unwrap(err))
	}
	_, err = inspectDir(dir, force)
	return err
}

// previous describes what is at DIR before WriteAll replaces it.
type previous struct {
	exists  bool
	ours    []string // kmc's own files, unchanged: to remove once the folder is moved aside
	changed []string // files kmc wrote whose content changed since: kept, moved aside
	foreign bool     // it holds something kmc did not write (only with force)
}

// inspectDir says what is at dir and whether WriteAll may replace it. Nothing in dir is
// followed: a symlink, even one named as a listed file or as the manifest, is the user's.
func inspectDir(dir string, force bool) (previous, error) {
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return previous{}, nil
	}
	if err != nil {
		return previous{}, err
	}
	foreign := func(what string) (previous, error) {
		if force {
			return previous{exists: true, foreign: true}, nil
		}
		return previous{}, fmt.Errorf("%s %w: %s", dir, ErrNotKmcOutput, what)
	}
	if !st.IsDir() {
		return foreign("it is not a folder")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return previous{}, err
	}
	listed, err := readManifest(filepath.Join(dir, ManifestName))
	if err != nil && len(entries) > 0 {
		return foreign("it has no " + ManifestName + " that kmc wrote listing what it wrote (" + err.Error() + ")")
	}
	var p previous
	var unknown []string
	for _, e := range entries {
		l, ok := listed[e.Name()]
		switch {
		case e.Name() == ManifestName:
		case ok && e.Type().IsRegular():
			if sameContent(filepath.Join(dir, e.Name()), l) {
				p.ours = append(p.ours, e.Name())
			} else {
				p.changed = append(p.changed, e.Name())
			}
		default:
			unknown = append(unknown, e.Name())
		}
	}
	if len(unknown) > 0 {
		if len(unknown) > 3 {
			unknown = append(unknown[:3], "...")
		}
		return foreign(strings.Join(unknown, ", ") + " not listed in its " + ManifestName)
	}
	p.exists = true
	return p, nil
}

// listing is a file as a manifest lists it.
type listing struct {
	size int64
	sum  string // hex SHA-256
}

// sameContent reports whether the regular file path (not followed) holds what l lists.
func sameContent(path string, l listing) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() != l.size {
		return false
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == l.sum
}

// readManifest reads the files a manifest lists, if it is one kmc wrote: a regular file,
// not reached through a symlink, of at most 64 KiB, whose identity line names its own
// device and inode.
func readManifest(path string) (map[string]listing, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("the manifest is not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return nil, err
	}
	dev, ino, ok := fileID(st)
	if !ok || !strings.HasSuffix(string(data), manifestIdentity+identity(dev, ino)+"\n") {
		return nil, errors.New("the manifest is not the file kmc wrote")
	}
	names := map[string]listing{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, " ", 3)
		if len(parts) != 3 || parts[2] != filepath.Base(parts[2]) || parts[2] == "." || parts[2] == ".." || len(parts[1]) != 64 {
			return nil, fmt.Errorf("the manifest's line %q is not SIZE SHA-256 NAME", line)
		}
		size, err := strconv.ParseInt(parts[0], 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("the manifest's line %q is not SIZE SHA-256 NAME", line)
		}
		names[parts[2]] = listing{size: size, sum: parts[1]}
	}
	return names, nil
}

func identity(dev, ino uint64) string {
	return strconv.FormatUint(dev, 10) + " " + strconv.FormatUint(ino, 10)
}

// writeManifest writes the manifest of the files names (with their contents) at path: the
// list, then the identity line of the file it wrote, written into that same file.
func writeManifest(path string, names []string, contents [][]byte) error {
	var b strings.Builder
	b.WriteString(manifestHeader)
	for i, name := range names {
		sum := sha256.Sum256(contents[i])
		fmt.Fprintf(&b, "%d %s %s\n", len(contents[i]), hex.EncodeToString(sum[:]), name)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err == nil {
		dev, ino, ok := fileID(st)
		if !ok {
			dev, ino = 0, 0 // no identity on this system: the manifest is never taken as kmc's
		}
		b.WriteString(manifestIdentity + identity(dev, ino) + "\n")
		_, err = f.Write([]byte(b.String()))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteAll renders t in every format and writes the files trace.txt, trace.itf.json,
// trace.dot, sequence.svg, sequence.png and report.html (and
// views.png, the last state's views that opts.Views selects, when it has them), and the
// manifest, into dir, all or nothing: everything is rendered first and written into a new
// temporary folder beside dir, which is then renamed to dir. A previous dir is replaced
// only once the new one is complete, and only as PrepareDir allows: kmc's own output is
// moved aside and its listed files removed; anything else is refused, or with
// opts.Force moved aside whole and kept (Written.Aside). A trace longer than
// MaxPictureStates gets its text forms only (trace.txt, trace.itf.json, trace.dot),
// written as above, and an error that wraps ErrTooLongToDraw. info.Spec is the ITF source
// and info.Check is recorded in the ITF metadata.
func WriteAll(dir string, t *checker.Trace, info ReportInfo, opts WriteOptions) (Written, error) {
	var w Written
	names := outputFiles
	drawErr := drawable(t)
	if drawErr != nil {
		names = textFiles
	} else if t != nil && len(t.States) > 0 && hasViews(&t.States[len(t.States)-1], opts.Views) {
		names = append(append([]string(nil), names...), viewsFile)
	}
	contents, err := renderAll(t, info, opts, names)
	if errors.Is(err, ErrPicturesStopped) {
		names, drawErr, err = names[:len(contents)], err, nil
	}
	if err != nil {
		return w, fmt.Errorf("write %s: %w", dir, err)
	}
	prev, err := inspectDir(dir, opts.Force)
	if err != nil {
		return w, fmt.Errorf("write %s: %w", dir, err)
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return w, fmt.Errorf("write %s: %w", dir, err)
	}
	fsx.RemoveStale(parent, ".kmc-tmp-", "") // what a kmc killed while writing here left
	tmp, err := fsx.MkdirTemp(parent, ".kmc-tmp-")
	if err != nil {
		return w, fmt.Errorf("write %s: %w", dir, err)
	}
	defer fsx.Track(tmp)() // removed on a second interrupt (kmc's exit skips the defers)
	ok := false
	defer func() {
		if !ok {
			removeListed(tmp, append(names, ManifestName))
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return w, fmt.Errorf("write %s: %w", dir, err)
	}
	for i, name := range names {
		if err := writeFile(filepath.Join(tmp, name), contents[i]); err != nil {
			return w, fmt.Errorf("write %s: %w", dir, err)
		}
	}
	if err := writeManifest(filepath.Join(tmp, ManifestName), names, contents); err != nil {
		return w, fmt.Errorf("write %s: %w", dir, err)
	}
	var aside string // the folder holding the previous dir, beside dir
	if prev.exists {
		aside, err = os.MkdirTemp(parent, asidePrefix+"*")
		if err != nil {
			return w, fmt.Errorf("write %s: move the previous output aside: %w", dir, err)
		}
		if err := os.Rename(dir, filepath.Join(aside, filepath.Base(dir))); err != nil {
			os.Remove(aside)
			return w, fmt.Errorf("write %s: move the previous output aside: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if aside != "" {
			os.Rename(filepath.Join(aside, filepath.Base(dir)), dir) // put the previous output back
			os.Remove(aside)
		}
		return w, fmt.Errorf("write %s: %w", dir, err)
	}
	ok = true
	if aside != "" {
		old := filepath.Join(aside, filepath.Base(dir))
		if prev.foreign || len(prev.changed) > 0 || !removeListed(old, append(prev.ours, ManifestName)) || os.Remove(aside) != nil {
			if !prev.foreign {
				removeListed(old, append(prev.ours, ManifestName)) // the changed files stay
			}
			w.Aside = old // kept: it holds what kmc did not write, or changed since
		}
	}
	for _, name := range names {
		w.Paths = append(w.Paths, filepath.Join(dir, name))
	}
	if drawErr != nil {
		return w, fmt.Errorf("write %s: %w: wrote %s only", dir, drawErr, strings.Join(names, ", "))
	}
	return w, nil
}

// removeListed removes the regular files named in dir, then dir if it is then empty; it
// reports whether dir is gone. Nothing else is removed.
func removeListed(dir string, names []string) bool {
	for _, name := range names {
		p := filepath.Join(dir, name)
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
			os.Remove(p)
		}
	}
	return os.Remove(dir) == nil
}

// renderAll renders t in each of the formats named (file names of outputFiles).
func renderAll(t *checker.Trace, info ReportInfo, opts WriteOptions, names []string) ([][]byte, error) {
	chart := SequenceOptions{Params: opts.Params, Views: opts.Views}
	info.Chart = chart
	render := map[string]func(b *bytes.Buffer) error{
		"trace.txt": func(b *bytes.Buffer) error {
			return Text(b, t, TextOptions{FullStates: opts.FullStates, Views: opts.Views})
		},
		"trace.itf.json": func(b *bytes.Buffer) error {
			return WriteITF(b, t, ITFOptions{Source: info.Spec, Check: info.Check, View: opts.Views.String(), Config: opts.Config})
		},
		"trace.dot":    func(b *bytes.Buffer) error { return DOT(b, t) },
		"sequence.svg": func(b *bytes.Buffer) error { return SequenceSVGWith(b, t, chart) },
		"sequence.png": func(b *bytes.Buffer) error { return SequencePNGWith(b, t, chart) },
		"report.html":  func(b *bytes.Buffer) error { return HTML(b, t, info) },
		viewsFile:      func(b *bytes.Buffer) error { return ViewsPNG(b, namedLast(t, opts.Params), opts.Views) },
	}
	out := make([][]byte, len(names))
	for i, name := range names {
		select {
		case <-opts.Stop:
			if i >= len(textFiles) { // the text forms are always written
				return out[:i], ErrPicturesStopped
			}
		default:
		}
		var b bytes.Buffer
		if err := render[name](&b); err != nil {
			return nil, err
		}
		out[i] = b.Bytes()
	}
	return out, nil
}

// namedLast is t with its last state's action named by p (NamedAction), for the title of
// views.png; t itself when p is nil. t is not changed.
func namedLast(t *checker.Trace, p ActionParamNamer) *checker.Trace {
	if p == nil || t == nil || len(t.States) < 2 {
		return t
	}
	c := *t
	c.States = append([]checker.TraceState(nil), t.States...)
	last := &c.States[len(c.States)-1]
	last.Action = NamedAction(last.Action, last.Kind, p)
	return &c
}

// writeFile writes data to path and checks Close.
func writeFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil {
		return werr
	}
	return cerr
}
