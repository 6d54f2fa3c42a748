package traces

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/goccy/go-graphviz"
)

// Graphviz runs as WebAssembly (go-graphviz, patched so that nothing happens at start-up:
// see third_party/go-graphviz/KMC-PATCH.md). It is started on the first drawing, never for
// commands that draw nothing, with wazero's compilation cache in the user's own cache
// folder, os.UserCacheDir()/kmc/graphviz. A cache that cannot be used (a corrupt file, a
// folder of another user) costs time, not the drawing: Graphviz then starts without it,
// and kmc removes the unusable entries of its own cache so that the next run rebuilds them.

var gvMu sync.Mutex

// GraphvizCacheDir is the folder of Graphviz's compilation cache, or "" when the user has
// no cache folder.
func GraphvizCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "kmc", "graphviz")
}

// startGraphviz starts Graphviz once; later calls return at once.
func startGraphviz() error {
	gvMu.Lock()
	defer gvMu.Unlock()
	dir := GraphvizCacheDir()
	err := graphviz.Init(dir)
	if err == nil || dir == "" {
		return wrapStart(err)
	}
	if err2 := graphviz.Init(""); err2 != nil {
		return wrapStart(err2)
	}
	removeCacheEntries(dir)
	return nil
}

func wrapStart(err error) error {
	if err != nil {
		return fmt.Errorf("render: start graphviz: %w", err)
	}
	return nil
}

// removeCacheEntries removes the compiled-code files of wazero's cache under dir (one
// folder per wazero version, files named by a 64-digit hex key), which kmc's own runs
// wrote, and nothing else.
func removeCacheEntries(dir string) {
	subs, _ := filepath.Glob(filepath.Join(dir, "wazero-*"))
	for _, sub := range subs {
		entries, _ := os.ReadDir(sub)
		for _, e := range entries {
			if e.Type().IsRegular() && isHexKey(e.Name()) {
				os.Remove(filepath.Join(sub, e.Name()))
			}
		}
	}
}

func isHexKey(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// newGraphviz starts Graphviz if needed and returns a renderer.
func newGraphviz(ctx context.Context) (*graphviz.Graphviz, error) {
	if err := startGraphviz(); err != nil {
		return nil, err
	}
	gv, err := graphviz.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("render: start graphviz: %w", err)
	}
	return gv, nil
}
