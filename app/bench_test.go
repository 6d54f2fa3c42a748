package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bad benchmark table is an error naming the file and what is wrong.
func TestLoadBenchTable(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, src, want string }{
		{"unknown key", "[[run]]\nspec = \"a.toml\"\ncheck = \"c\"\nwokers = [1]\n", "unknown key run.wokers"},
		{"no check", "[[run]]\nspec = \"a.toml\"\n", "run 1: spec and check are required"},
		{"bad workers", "[[run]]\nspec = \"a.toml\"\ncheck = \"c\"\nworkers = [0]\n", "run 1 (a.toml c): workers: 0 outside 1..256"},
		{"no runs", "# nothing\n", "no [[run]]"},
		{"syntax", "[[run]\n", ".toml:2: expected end of table array name"},
	}
	for _, tc := range tests {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".toml")
		if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadBenchTable(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v; want an error naming %s and %q", tc.name, err, path, tc.want)
		}
	}
}
