package traces

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadManifest: an output folder's manifest of any bytes is read without a panic, and
// one accepted lists only plain names (issue 26, defect 9). Seeded with a manifest kmc
// writes, whose identity line the fuzzer's copies do not carry (another inode): those are
// refused too, as the held-out copied manifest is.
func FuzzReadManifest(f *testing.F) {
	dir := f.TempDir()
	m := filepath.Join(dir, ManifestName)
	if err := writeManifest(m, []string{"trace.txt", "trace.dot"}, [][]byte{[]byte("a"), nil}); err != nil {
		f.Fatal(err)
	}
	good, _ := os.ReadFile(m)
	f.Add(good)
	f.Add([]byte(manifestHeader + "1 " + string(make([]byte, 64)) + " ../x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), ManifestName)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		listed, err := readManifest(p)
		if err != nil {
			return
		}
		for name, l := range listed {
			if name != filepath.Base(name) || name == "" || name == "." || name == ".." || l.size < 0 || len(l.sum) != 64 {
				t.Fatalf("accepted %q: %+v", name, l)
			}
		}
	})
}
