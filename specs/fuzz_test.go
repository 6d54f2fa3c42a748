package specs

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// Reference: STYLE.md §6: every parser has a fuzz target seeded from the real files (and
// robust lists, issue 10); it never panics and every error carries a position.
func FuzzLoad(f *testing.F) {
	paths, err := FindSpecs(".")
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, "")
		f.Add(src, "rms=4")
	}
	f.Add([]byte(goodSpec), "limits.memory=1GiB")
	f.Add([]byte(robustSpec), "")
	f.Add([]byte(robustSpec), "rms=16")
	f.Add([]byte(strings.Replace(goodSpec, "depth = 4\n", "depth = 4\nrobust = [\"rms+1\", \"rms-1\", \"rms+99\", \"x\"]\n", 1)), "")
	f.Fuzz(func(t *testing.T, src []byte, set string) {
		var sets []string
		if set != "" {
			sets = strings.Split(set, "\n")
		}
		s, err := Parse("fuzz.toml", src, sets)
		if err == nil {
			if verr := s.valid(); verr != nil {
				t.Fatalf("Parse accepted an invalid spec: %v", verr)
			}
			return
		}
		var list ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("Parse: got %T (%v), want an ErrorList", err, err)
		}
		if len(list) == 0 {
			t.Fatal("Parse: empty ErrorList")
		}
		for _, e := range list {
			if e.Pos.Line < 1 || e.Pos.Col < 1 || (e.Pos.File != "fuzz.toml" && e.Pos.File != SetFile) {
				t.Errorf("error without a position: %q", e.Error())
			}
		}
	})
}
