package traces

import (
	"bytes"
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
	paths, err := WriteAll(dir, lassoTrace(), ReportInfo{Spec: "toy.toml", Check: "buggy"}, false)
	if err != nil {
		t.Fatal(err)
	}
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
	if _, err := WriteAll(dir, safetyTrace(), ReportInfo{}, true); err != nil {
		t.Fatal(err)
	}
	txt, _ := os.ReadFile(filepath.Join(dir, "trace.txt"))
	if !strings.Contains(string(txt), "CounterAtMostOne") && !strings.Contains(string(txt), "State 3: <Inc(p2)>") {
		t.Errorf("second run: trace.txt not replaced:\n%s", txt)
	}
	bad := safetyTrace()
	bad.States[2].Values[0] = "{oops"
	if _, err := WriteAll(dir, bad, ReportInfo{}, false); err == nil {
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
	if _, err := WriteAll(fresh, &checker.Trace{}, ReportInfo{}, false); err == nil {
		t.Fatal("empty trace: got no error")
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("empty trace: got %v, want no folder", err)
	}
}
