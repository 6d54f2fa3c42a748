package traces

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kmc/checker"
)

// Reference: STYLE.md §4 (writes are all-or-nothing), issue 6 (kmc check --out DIR).
func TestWriteAll(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out", "buggy")
	wr, err := WriteAll(dir, lassoTrace(), ReportInfo{Spec: "toy.toml", Check: "buggy"}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	paths := wr.Paths
	if got, want := len(paths), len(outputFiles); got != want {
		t.Fatalf("got %d paths, want %d", got, want)
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: got %v (size %v), want a non-empty file", p, err, st)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "trace.itf.json"))
	if err != nil {
		t.Fatal(err)
	}
	tr, meta, err := LoadITFMeta(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if meta.Source != "toy.toml" || meta.Check != "buggy" || tr.Loop != 1 {
		t.Errorf("ITF written: got source %q check %q loop %d, want toy.toml buggy 1", meta.Source, meta.Check, tr.Loop)
	}

	// A second run replaces the folder; a failing one leaves the previous output alone.
	if _, err := WriteAll(dir, safetyTrace(), ReportInfo{}, WriteOptions{FullStates: true}); err != nil {
		t.Fatal(err)
	}
	txt, _ := os.ReadFile(filepath.Join(dir, "trace.txt"))
	if !strings.Contains(string(txt), "CounterAtMostOne") && !strings.Contains(string(txt), "State 3: <Inc(p2)>") {
		t.Errorf("second run: trace.txt not replaced:\n%s", txt)
	}
	bad := safetyTrace()
	bad.States[2].Values[0] = "{oops"
	if _, err := WriteAll(dir, bad, ReportInfo{}, WriteOptions{}); err == nil {
		t.Fatal("bad trace: got no error")
	}
	txt2, _ := os.ReadFile(filepath.Join(dir, "trace.txt"))
	if !bytes.Equal(txt, txt2) {
		t.Error("a failed run changed the previous output")
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left in %s: got %v, want only buggy", filepath.Dir(dir), names)
	}

	// A failure before anything is renamed writes nothing.
	fresh := filepath.Join(root, "fresh")
	if _, err := WriteAll(fresh, &checker.Trace{}, ReportInfo{}, WriteOptions{}); err == nil {
		t.Fatal("empty trace: got no error")
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("empty trace: got %v, want no folder", err)
	}
}

// Reference: issue 11, defect 2 (--out removed an existing DIR/CHECK recursively): kmc
// replaces only a folder whose every file its manifest lists, and with Force moves any other
// aside, whole; it deletes nothing it did not write.
func TestWriteAllKeepsWhatKmcDidNotWrite(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "buggy")
	mine := filepath.Join(dir, "x")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(mine, []byte("precious"), 0o644)

	if err := PrepareDir(dir, false); !errors.Is(err, ErrNotKmcOutput) {
		t.Errorf("PrepareDir: got %v, want ErrNotKmcOutput", err)
	}
	if _, err := WriteAll(dir, lassoTrace(), ReportInfo{}, WriteOptions{}); !errors.Is(err, ErrNotKmcOutput) {
		t.Errorf("WriteAll: got %v, want ErrNotKmcOutput", err)
	}
	if data, _ := os.ReadFile(mine); string(data) != "precious" {
		t.Fatalf("the user's file: got %q", data)
	}
	if err := PrepareDir(dir, true); err != nil {
		t.Errorf("PrepareDir with force: %v", err)
	}
	wr, err := WriteAll(dir, lassoTrace(), ReportInfo{}, WriteOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if wr.Aside == "" || !strings.HasPrefix(filepath.Base(filepath.Dir(wr.Aside)), asidePrefix) {
		t.Fatalf("Aside: got %q", wr.Aside)
	}
	if data, _ := os.ReadFile(filepath.Join(wr.Aside, "x")); string(data) != "precious" {
		t.Errorf("the user's file, moved aside: got %q", data)
	}
	listed, err := readManifest(filepath.Join(dir, ManifestName))
	if err != nil || len(listed) != len(outputFiles) {
		t.Errorf("manifest: got %v, %v", listed, err)
	}

	// kmc's own folder: replaced, the old one removed, nothing kept beside.
	wr, err = WriteAll(dir, safetyTrace(), ReportInfo{}, WriteOptions{})
	if err != nil || wr.Aside != "" {
		t.Fatalf("replacing kmc's folder: got aside %q, %v", wr.Aside, err)
	}
	if aside, _ := filepath.Glob(filepath.Join(root, asidePrefix+"*")); len(aside) != 1 {
		t.Errorf("beside: got %v, want only the folder kept by Force", aside)
	}

	// A symlink, even to kmc's folder, is not kmc's.
	link := filepath.Join(root, "link")
	os.Symlink(dir, link)
	if err := PrepareDir(link, false); !errors.Is(err, ErrNotKmcOutput) {
		t.Errorf("symlink: got %v, want ErrNotKmcOutput", err)
	}
}

// Reference: issue 11, defect 7 (rendering caps the trace size it draws as a picture; the
// text forms are still written).
func TestWriteAllTooLongToDraw(t *testing.T) {
	tr := lassoTrace()
	for len(tr.States) <= MaxPictureStates {
		tr.States = append(tr.States, tr.States[len(tr.States)-1])
	}
	var b bytes.Buffer
	for name, draw := range map[string]func() error{
		"svg":      func() error { return SVG(&b, tr) },
		"png":      func() error { return PNG(&b, tr) },
		"sequence": func() error { return SequenceSVG(&b, tr) },
		"html":     func() error { return HTML(&b, tr, ReportInfo{}) },
	} {
		if err := draw(); !errors.Is(err, ErrTooLongToDraw) {
			t.Errorf("%s: got %v, want ErrTooLongToDraw", name, err)
		}
	}
	dir := filepath.Join(t.TempDir(), "long")
	wr, err := WriteAll(dir, tr, ReportInfo{}, WriteOptions{})
	if !errors.Is(err, ErrTooLongToDraw) {
		t.Fatalf("WriteAll: got %v, want ErrTooLongToDraw", err)
	}
	if len(wr.Paths) != len(textFiles) {
		t.Errorf("written: got %v, want the text forms", wr.Paths)
	}
	for _, name := range append(textFiles, ManifestName) {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sequence.svg")); err == nil {
		t.Error("sequence.svg written for a trace too long to draw")
	}
}
